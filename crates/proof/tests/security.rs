//! The accepted parameter set's security, as Plonky3's estimator computes it, and the shape
//! facts the estimate depends on.

mod common;

use priv_stark_proof::{
    encoding::HEADER_BYTES,
    params::{PARAMETER_SET, ParameterSet},
    security::{PROOF_DEGREE_BITS, SecurityLevel, security_level, security_params},
    verifier::decode_body,
};

#[test]
fn accepted_parameter_set_reaches_128_conjectured_bits() {
    let level = security_level(&PARAMETER_SET);
    assert_eq!(
        level,
        SecurityLevel {
            conjectured_bits: 128,
            proven_unique_decoding_bits: 37,
            proven_list_decoding_bits: 73,
        }
    );
    assert!(level.conjectured_bits >= 120, "the floor of the profile");
    // Must-fail twin: one query fewer drops below the target.
    let weaker = ParameterSet { num_queries: PARAMETER_SET.num_queries - 1, ..PARAMETER_SET };
    assert!(security_level(&weaker).conjectured_bits < 128);
}

#[test]
fn estimator_sees_the_real_air_and_proof_shape() {
    let estimator = security_params(&PARAMETER_SET);
    assert_eq!(estimator.air_max_constraint_degree, 4);
    assert_eq!(estimator.num_quotient_chunks, 8);
    assert_eq!(estimator.max_combo, 2);
    assert_eq!(estimator.num_modulus_bits, 191);
    let (_, proof) = common::proven();
    let stark = decode_body(&proof.bytes[HEADER_BYTES..]).unwrap();
    assert_eq!(stark.degree_bits, PROOF_DEGREE_BITS);
    assert_eq!(stark.opened_values.quotient_chunks.len(), estimator.num_quotient_chunks);
}
