//! A minimal zero-knowledge proof of a chain of RPO permutations with the cubic extension: the
//! first end-to-end check of the configuration and of the round constraints.

use std::borrow::Cow;

use p3_air::{Air, AirBuilder, BaseAir, WindowAccess};
use p3_field::PrimeCharacteristicRing;
use p3_matrix::dense::RowMajorMatrix;
use p3_uni_stark::{prove, verify};
use priv_stark_core::{Felt, rpo};
use priv_stark_proof::{
    config::build_config,
    params::PARAMETER_SET,
    rpo_air::{
        CYCLE, HASH_WIDTH, HashRow, NUM_ROUND_PERIODIC, eval_permutation, permutation_rows,
        round_periodic_columns,
    },
};

const PERMUTATIONS: usize = 16;

/// `PERMUTATIONS` chained permutations; public values: input (12) and output (12).
struct ChainAir {
    periodic: Vec<Vec<Felt>>,
}

impl BaseAir<Felt> for ChainAir {
    fn width(&self) -> usize {
        HASH_WIDTH
    }
    fn num_public_values(&self) -> usize {
        24
    }
    fn num_periodic_columns(&self) -> usize {
        NUM_ROUND_PERIODIC
    }
    fn periodic_columns(&self) -> Cow<'_, [Vec<Felt>]> {
        Cow::Borrowed(&self.periodic)
    }
}

impl<AB: AirBuilder<F = Felt>> Air<AB> for ChainAir {
    fn eval(&self, builder: &mut AB) {
        let main = builder.main();
        let local = HashRow::from_slice(main.current_slice());
        let next = HashRow::from_slice(main.next_slice());
        let periodic = builder.periodic_values().to_vec();
        let public: Vec<AB::Expr> = builder.public_values().iter().map(|&v| v.into()).collect();
        eval_permutation(builder, &local, &next, &periodic);
        let round: AB::Expr = periodic[0].into();
        for i in 0..12 {
            builder.when_first_row().assert_eq(local.s[i], public[i].clone());
            builder.when_last_row().assert_eq(local.s[i], public[12 + i].clone());
            builder
                .when_transition()
                .assert_zero((AB::Expr::ONE - round.clone()) * (next.s[i] - local.s[i]));
        }
    }
}

fn chain_trace(input: [Felt; 12]) -> (RowMajorMatrix<Felt>, [Felt; 12]) {
    let mut values = Vec::with_capacity(PERMUTATIONS * CYCLE * HASH_WIDTH);
    let mut state = input;
    for _ in 0..PERMUTATIONS {
        let mut rows = [[Felt::ZERO; HASH_WIDTH]; CYCLE];
        state = permutation_rows(&state, &mut rows);
        values.extend(rows.iter().flatten());
    }
    (RowMajorMatrix::new(values, HASH_WIDTH), state)
}

#[test]
fn zk_proof_of_a_permutation_chain_verifies() {
    let input: [Felt; 12] = core::array::from_fn(|i| Felt::from_u64(i as u64 * 1000 + 7));
    let (trace, output) = chain_trace(input);
    let mut expected = input;
    for _ in 0..PERMUTATIONS {
        rpo::permute(&mut expected);
    }
    assert_eq!(output, expected);

    let air = ChainAir { periodic: round_periodic_columns() };
    let public: Vec<Felt> = input.iter().chain(&output).copied().collect();
    let config = build_config(&PARAMETER_SET, b"test chain", [7u8; 32]);
    let proof = prove(&config, &air, trace, &public).expect("prove");
    let bytes = postcard::to_allocvec(&proof).unwrap();
    println!("proof bytes: {}", bytes.len());
    let (rand_open, fri) = &proof.opening_proof;
    let len = |x: Vec<u8>| x.len();
    println!("commitments {}", len(postcard::to_allocvec(&proof.commitments).unwrap()));
    println!("opened_values {}", len(postcard::to_allocvec(&proof.opened_values).unwrap()));
    println!("random openings {}", len(postcard::to_allocvec(rand_open).unwrap()));
    for (i, batch) in fri.input_openings.iter().enumerate() {
        println!(
            "input batch {i}: values {} salts {} paths {} ({} digests)",
            len(postcard::to_allocvec(&batch.opened_values).unwrap()),
            len(postcard::to_allocvec(&batch.opening_proof.0).unwrap()),
            len(postcard::to_allocvec(&batch.opening_proof.1).unwrap()),
            batch.opening_proof.1.sibling_hashes.len()
        );
    }
    for (i, step) in fri.commit_phase_openings.iter().enumerate() {
        println!(
            "fri round {i}: siblings {} paths {}",
            len(postcard::to_allocvec(&step.sibling_values).unwrap()),
            len(postcard::to_allocvec(&step.opening_proof).unwrap())
        );
    }
    println!("final poly {}", len(postcard::to_allocvec(&fri.final_poly).unwrap()));
    let verifier = build_config(&PARAMETER_SET, b"test chain", [0u8; 32]);
    verify(&verifier, &air, &proof, &public).expect("verify");

    let mut wrong = public.clone();
    wrong[13] += Felt::ONE;
    assert!(verify(&verifier, &air, &proof, &wrong).is_err());
}
