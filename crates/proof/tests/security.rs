//! Every known parameter set's security, as Plonky3's estimator computes it, and the shape facts
//! the estimate depends on.

use crate::common;

use priv_stark_proof::{
    encoding::HEADER_BYTES,
    params::{KNOWN_SETS, PARAMETER_SET, PARAMETER_SET_3, ParameterSet},
    security::{PROOF_DEGREE_BITS, SecurityLevel, security_level, security_params},
    verifier::decode_body,
};

#[test]
fn the_pinned_figures_are_the_estimators() {
    for known in KNOWN_SETS {
        assert_eq!(security_level(&known.params), known.security, "set {}", known.params.id);
        assert!(known.security.conjectured_bits >= 120, "the floor of the profile");
    }
}

#[test]
fn set_3_is_proven_to_100_bits() {
    assert_eq!(PARAMETER_SET, PARAMETER_SET_3);
    let level = security_level(&PARAMETER_SET_3);
    assert_eq!(
        level,
        SecurityLevel {
            conjectured_bits: 128,
            proven_unique_decoding_bits: 49,
            proven_list_decoding_bits: 100,
        }
    );
    // Must-fail twins: one query fewer, or two bits less grinding, drop below 100 proven bits.
    let fewer = ParameterSet { num_queries: PARAMETER_SET_3.num_queries - 1, ..PARAMETER_SET_3 };
    assert!(security_level(&fewer).proven_list_decoding_bits < 100);
    let lighter =
        ParameterSet { query_pow_bits: PARAMETER_SET_3.query_pow_bits - 2, ..PARAMETER_SET_3 };
    assert!(security_level(&lighter).proven_list_decoding_bits < 100);
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
