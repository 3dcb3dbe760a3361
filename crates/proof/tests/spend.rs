//! Prove → verify round trips and every wrong statement, each asserting its exact error code.

use crate::common;

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{Digest, Felt, notes::VALUE_LIMIT, tree::MerkleTree};
use priv_stark_proof::{
    ProofError,
    builder::{Note, build_spend, random_digest},
    prover::{prove, prove_against},
    verifier::verify,
};
use rand::{SeedableRng, rngs::StdRng};

fn bump(digest: &Digest) -> Digest {
    let mut out = *digest;
    out.0[2] += Felt::ONE;
    out
}

fn code<T: core::fmt::Debug>(result: Result<T, ProofError>) -> &'static str {
    result.expect_err("must fail").code()
}

#[test]
fn round_trip_and_fresh_randomness() {
    let (scenario, proof) = common::proven();
    assert_eq!(proof.public_inputs, scenario.public_inputs);
    assert_eq!(proof.public_inputs.root(), scenario.tree.root());
    verify(&proof.bytes, &scenario.public_inputs).expect("verifies");

    // A second proof of the same witness with another seed differs and verifies too.
    let again = prove(&scenario.witness, common::seed(2)).unwrap();
    assert_ne!(again.bytes, proof.bytes);
    verify(&again.bytes, &scenario.public_inputs).expect("verifies");
}

#[test]
fn altered_public_inputs_are_rejected() {
    let (scenario, proof) = common::proven();
    let honest = scenario.public_inputs;
    let altered = [
        honest.with_root(bump(&honest.root())),
        honest.with_nullifier(bump(&honest.nullifier())),
        honest.with_change(bump(&honest.change())),
        honest.with_amount(honest.amount() + 1).unwrap(),
        honest.with_amount(honest.amount() - 1).unwrap(),
        honest.with_context(bump(&honest.context())),
    ];
    for public in altered {
        assert_eq!(code(verify(&proof.bytes, &public)), "invalid_proof", "{public:?}");
    }
}

#[test]
fn another_payments_public_inputs_are_rejected() {
    let (_, proof) = common::proven();
    let other = common::scenario(2);
    assert_eq!(code(verify(&proof.bytes, &other.public_inputs)), "invalid_proof");
}

#[test]
fn refused_witnesses() {
    let (scenario, _) = common::proven();
    let witness = &scenario.witness;
    let seed = common::seed(3);

    let mut poor = witness.clone();
    poor.amount = poor.value + 1;
    assert_eq!(code(prove(&poor, seed)), "insufficient_value");

    let mut zero = witness.clone();
    zero.amount = 0;
    assert_eq!(code(prove(&zero, seed)), "amount_out_of_range");

    let mut huge = witness.clone();
    huge.amount = VALUE_LIMIT;
    assert_eq!(code(prove(&huge, seed)), "amount_out_of_range");

    let mut rich = witness.clone();
    rich.value = VALUE_LIMIT;
    assert_eq!(code(prove(&rich, seed)), "value_out_of_range");

    let mut far = witness.clone();
    far.index = 1 << 32;
    assert_eq!(code(prove(&far, seed)), "index_out_of_range");

    // The whole value can be spent: the change note is worth 0.
    let mut all = witness.clone();
    all.amount = all.value;
    assert!(all.derive().is_ok());
}

#[test]
fn wrong_key_path_or_index_do_not_prove_the_statement() {
    let (scenario, _) = common::proven();
    let honest = &scenario.public_inputs;
    let seed = common::seed(4);
    let mut rng = StdRng::seed_from_u64(99);

    let mut wrong_key = scenario.witness.clone();
    wrong_key.spending_key = random_digest(&mut rng);
    assert_eq!(code(prove_against(&wrong_key, honest, seed)), "root_mismatch");
    // Proven anyway (for its own statement), it does not verify against the honest one.
    let forged = prove(&wrong_key, seed).unwrap();
    assert_eq!(code(verify(&forged.bytes, honest)), "invalid_proof");

    let mut wrong_path = scenario.witness.clone();
    wrong_path.path[5] = bump(&wrong_path.path[5]);
    assert_eq!(code(prove_against(&wrong_path, honest, seed)), "root_mismatch");

    let mut wrong_index = scenario.witness.clone();
    wrong_index.index ^= 1;
    assert_eq!(code(prove_against(&wrong_index, honest, seed)), "root_mismatch");

    let mut wrong_rho = scenario.witness.clone();
    wrong_rho.rho = bump(&wrong_rho.rho);
    assert_eq!(code(prove_against(&wrong_rho, honest, seed)), "root_mismatch");

    let mut wrong_value = scenario.witness.clone();
    wrong_value.value += 1;
    assert_eq!(code(prove_against(&wrong_value, honest, seed)), "root_mismatch");

    let mut wrong_amount = scenario.witness.clone();
    wrong_amount.amount += 1;
    assert_eq!(code(prove_against(&wrong_amount, honest, seed)), "amount_mismatch");

    let mut wrong_context = scenario.witness.clone();
    wrong_context.context = bump(&wrong_context.context);
    assert_eq!(code(prove_against(&wrong_context, honest, seed)), "context_mismatch");

    let expect_nf = honest.with_nullifier(bump(&honest.nullifier()));
    assert_eq!(code(prove_against(&scenario.witness, &expect_nf, seed)), "nullifier_mismatch");
    let expect_change = honest.with_change(bump(&honest.change()));
    assert_eq!(code(prove_against(&scenario.witness, &expect_change, seed)), "change_mismatch");

    // Must-pass twin: the honest witness proves the honest statement.
    let bytes = prove_against(&scenario.witness, honest, seed).unwrap();
    verify(&bytes, honest).unwrap();
}

#[test]
fn spend_at_the_edges_of_the_tree() {
    // The first and the last leaf of a full bottom subtree, with a zero-value change.
    let mut rng = StdRng::seed_from_u64(5);
    let key = random_digest(&mut rng);
    for (others, index) in [(0, 0), (7, 7)] {
        let note = Note::random(&mut rng, key, 777);
        let scenario = build_spend(&mut rng, note, others, index, 777, Digest::ZERO).unwrap();
        let tree = MerkleTree::from_leaves(&scenario.leaves).unwrap();
        assert_eq!(scenario.public_inputs.root(), tree.root());
        let proof = prove(&scenario.witness, common::seed(5)).unwrap();
        verify(&proof.bytes, &scenario.public_inputs).unwrap();
    }
}
