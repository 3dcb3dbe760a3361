//! The permutation against two outside references: the round constants re-derived from SHAKE-256
//! as the paper prescribes, and Plonky3's `RpoGoldilocks` on random states.

use p3_field::{PrimeCharacteristicRing, PrimeField64};
use p3_rescue::RpoGoldilocks;
use p3_symmetric::Permutation;
use priv_stark_core::{
    Felt,
    field::MODULUS,
    rpo::{self, MDS_FIRST_ROW, STATE_WIDTH},
    rpo_constants::{ARK1, ARK2},
};
use proptest::prelude::*;
use sha3::{
    Shake256,
    digest::{ExtendableOutput, Update, XofReader},
};

#[test]
fn round_constants_are_the_shake256_derivation() {
    let mut shake = Shake256::default();
    shake.update(format!("RPO({MODULUS},12,4,128)").as_bytes());
    let mut reader = shake.finalize_xof();
    for round in 0..rpo::NUM_ROUNDS {
        for table in [&ARK1, &ARK2] {
            for (lane, constant) in table[round].iter().enumerate() {
                let mut bytes = [0u8; 9];
                reader.read(&mut bytes);
                let mut wide = [0u8; 16];
                wide[..9].copy_from_slice(&bytes);
                let expected = (u128::from_le_bytes(wide) % u128::from(MODULUS)) as u64;
                assert_eq!(*constant, expected, "round {round} lane {lane}");
            }
        }
    }
}

#[test]
fn mds_is_the_circulant_of_the_paper() {
    for column in 0..STATE_WIDTH {
        let mut state = [Felt::ZERO; STATE_WIDTH];
        state[column] = Felt::ONE;
        rpo::apply_mds(&mut state);
        for (row, lane) in state.iter().enumerate() {
            let entry = MDS_FIRST_ROW[(column + STATE_WIDTH - row) % STATE_WIDTH];
            assert_eq!(lane.as_canonical_u64(), entry);
        }
    }
}

#[test]
fn batch_must_fail_twin_keeps_each_state_apart() {
    // Twelve states differing in one lane each: a batch mixing lanes across states would give
    // some of them another state's output.
    let mut states: Vec<[Felt; STATE_WIDTH]> = (0..12u64)
        .map(|i| {
            let mut s = [Felt::ZERO; STATE_WIDTH];
            s[i as usize] = Felt::from_u64(i + 1);
            s
        })
        .collect();
    let expected: Vec<_> = states
        .iter()
        .map(|s| {
            let mut s = *s;
            rpo::permute(&mut s);
            s
        })
        .collect();
    rpo::permute_batch(&mut states);
    assert_eq!(states, expected);
    for (i, a) in states.iter().enumerate() {
        for b in &states[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn permutation_must_fail_twin_differs_on_one_lane_change() {
    let mut a = [Felt::ZERO; STATE_WIDTH];
    let mut b = a;
    b[11] = Felt::ONE;
    rpo::permute(&mut a);
    rpo::permute(&mut b);
    assert!(a.iter().zip(&b).all(|(x, y)| x != y), "every lane should change");
}

proptest! {
    #[test]
    fn permutation_matches_plonky3(lanes in proptest::array::uniform12(0..MODULUS)) {
        let oracle = RpoGoldilocks::from_standard_constants();
        let input = lanes.map(Felt::from_u64);
        let mut ours = input;
        rpo::permute(&mut ours);
        prop_assert_eq!(ours, oracle.permute(input));
    }

    /// Any number of states, across the groups `permute_batch` takes together (up to 10) and a
    /// partial last group: each comes out as `permute` alone makes it.
    #[test]
    fn batch_is_permute_of_each(
        states in proptest::collection::vec(proptest::array::uniform12(0..MODULUS), 0..34),
    ) {
        let mut batch: Vec<[Felt; STATE_WIDTH]> =
            states.iter().map(|lanes| lanes.map(Felt::from_u64)).collect();
        let mut one_by_one = batch.clone();
        rpo::permute_batch(&mut batch);
        for state in &mut one_by_one {
            rpo::permute(state);
        }
        prop_assert_eq!(batch, one_by_one);
    }

    #[test]
    fn mds_is_linear(a in proptest::array::uniform12(0..MODULUS), b in proptest::array::uniform12(0..MODULUS)) {
        let (a, b) = (a.map(Felt::from_u64), b.map(Felt::from_u64));
        let mut sum: [Felt; STATE_WIDTH] = core::array::from_fn(|i| a[i] + b[i]);
        let (mut ma, mut mb) = (a, b);
        rpo::apply_mds(&mut sum);
        rpo::apply_mds(&mut ma);
        rpo::apply_mds(&mut mb);
        for i in 0..STATE_WIDTH {
            prop_assert_eq!(sum[i], ma[i] + mb[i]);
        }
    }
}
