use alloc::vec::Vec;

use p3_air::check_all_constraints;
use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{Digest, Felt, notes, tree::MerkleTree};

use crate::{
    air::SpendAir, config::build_config, params::PARAMETER_SET, statement::SpendWitness,
    trace::build_trace,
};

fn sample_witness() -> SpendWitness {
    let sk =
        Digest([Felt::from_u64(11), Felt::from_u64(22), Felt::from_u64(33), Felt::from_u64(44)]);
    let rho = Digest([Felt::from_u64(5), Felt::from_u64(6), Felt::from_u64(7), Felt::from_u64(8)]);
    let value = 1_000_000;
    let owner = notes::owner(&sk);
    let cm = notes::note_commitment(value, &notes::precommitment(&owner, &rho)).unwrap();
    let mut leaves: Vec<Digest> = (0..5u64)
        .map(|i| Digest([Felt::from_u64(i + 100), Felt::ONE, Felt::TWO, Felt::from_u64(3)]))
        .collect();
    leaves.insert(3, cm);
    let tree = MerkleTree::from_leaves(&leaves).unwrap();
    SpendWitness {
        spending_key: sk,
        value,
        rho,
        index: 3,
        path: tree.path(3).unwrap(),
        amount: 250_000,
        context: Digest([Felt::from_u64(9); 4]),
    }
}

#[test]
fn honest_trace_satisfies_the_air() {
    let witness = sample_witness();
    let values = witness.derive().unwrap();
    let trace = build_trace(&witness, &values);
    let public = witness.public_inputs().unwrap().to_field_elements();
    let report = check_all_constraints(&SpendAir::new(), &trace, &public, Some(10));
    assert!(report.is_ok(), "{report:?}");
}

#[test]
fn spend_proof_round_trip() {
    let witness = sample_witness();
    let values = witness.derive().unwrap();
    let trace = build_trace(&witness, &values);
    let public = witness.public_inputs().unwrap().to_field_elements();
    let config = build_config(&PARAMETER_SET, b"t", [1; 32]);
    let air = SpendAir::new();
    let proof = p3_uni_stark::prove(&config, &air, trace, &public).unwrap();
    let bytes = postcard::to_allocvec(&proof).unwrap();
    std::println!("spend proof: {} bytes, degree bits {}", bytes.len(), proof.degree_bits);
    p3_uni_stark::verify(&config, &air, &proof, &public).unwrap();
}
