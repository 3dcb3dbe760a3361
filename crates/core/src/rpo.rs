//! The RPO-256 permutation over Goldilocks (Rescue Prime Optimized, eprint 2022/1577):
//! state width 12 (rate 8 in lanes 0..8, capacity 4 in lanes 8..12), 7 rounds, S-box `x^7` and
//! its inverse. Each round is `MDS, +ARK1, x^7, MDS, +ARK2, x^(1/7)`; there is no concluding
//! linear step. The spend AIR reuses [`MDS_FIRST_ROW`] and the round constants.

use p3_field::{
    FieldArray, PrimeCharacteristicRing, PrimeField64, exponentiation::exp_10540996611094048183,
};

use crate::{
    field::Felt,
    rpo_constants::{ARK1, ARK2},
};

/// Lanes in the state.
pub const STATE_WIDTH: usize = 12;
/// Lanes absorbed per permutation.
pub const RATE: usize = 8;
/// First capacity lane.
pub const CAPACITY_START: usize = RATE;
/// Rounds of the permutation.
pub const NUM_ROUNDS: usize = 7;

/// First row of the circulant MDS matrix of the paper: `M[i][j] = MDS_FIRST_ROW[(j - i) mod 12]`.
pub const MDS_FIRST_ROW: [u64; STATE_WIDTH] = [7, 23, 8, 26, 13, 10, 9, 7, 6, 22, 21, 8];

/// A permutation state.
pub type State = [Felt; STATE_WIDTH];

/// Applies the permutation in place.
pub fn permute(state: &mut State) {
    for round in 0..NUM_ROUNDS {
        apply_round(state, round);
    }
}

/// One full round: both halves.
pub fn apply_round(state: &mut State, round: usize) {
    apply_mds(state);
    add_constants(state, &ARK1[round]);
    for lane in state.iter_mut() {
        *lane = lane.exp_const_u64::<7>();
    }
    apply_mds(state);
    add_constants(state, &ARK2[round]);
    apply_inverse_sbox(state);
}

/// Multiplies the state by the circulant MDS matrix. Entries are below 32, so each output is a
/// sum of 12 products below 2^69 and is reduced once from a `u128`.
pub fn apply_mds(state: &mut State) {
    let input: [u64; STATE_WIDTH] = state.map(|lane| lane.as_canonical_u64());
    for (i, lane) in state.iter_mut().enumerate() {
        let mut acc: u128 = 0;
        for (j, value) in input.iter().enumerate() {
            acc +=
                u128::from(*value) * u128::from(MDS_FIRST_ROW[(j + STATE_WIDTH - i) % STATE_WIDTH]);
        }
        *lane = Felt::from_u128(acc);
    }
}

fn add_constants(state: &mut State, constants: &[u64; STATE_WIDTH]) {
    for (lane, constant) in state.iter_mut().zip(constants) {
        *lane += Felt::from_u64(*constant);
    }
}

/// `x -> x^(1/7)`, with Plonky3's addition chain evaluated on all 12 lanes at once
/// ([`FieldArray`]), so the independent chains interleave in the pipeline.
fn apply_inverse_sbox(state: &mut State) {
    *state = exp_10540996611094048183(FieldArray(*state)).0;
}
