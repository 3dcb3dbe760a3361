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

/// Zero knowledge first (issue 23): every parameter set the prover can make or a verifier accepts,
/// spend and transition alike, is proven through the one PCS type of `config`, and that type
/// declares `ZK = true` — uni-stark then randomises the trace and masks the batch polynomial. A
/// set built on a non-hiding PCS (STIR's `TwoAdicStirPcs` declares `ZK = false`) fails here, as
/// does one without the random codewords the hiding PCS needs.
#[test]
fn every_set_is_proven_through_a_hiding_pcs() {
    use priv_stark_proof::{
        config::{Challenge, Challenger, Pcs},
        transition::TRANSITION_SETS,
    };
    // The must-fail side: the non-hiding FRI PCS of the same crate does not pass this check.
    type PlainFri = p3_fri::TwoAdicFriPcs<
        priv_stark_proof::config::Val,
        p3_dft::Radix2DFTSmallBatch<priv_stark_proof::config::Val>,
        priv_stark_proof::config::ValMmcs,
        p3_commit::ExtensionMmcs<
            priv_stark_proof::config::Val,
            Challenge,
            priv_stark_proof::config::ValMmcs,
        >,
    >;
    // Checked when the test compiles: a non-hiding PCS type does not build this test at all.
    const { assert!(<Pcs as p3_commit::UnivariateStarkPcs<Challenge, Challenger>>::ZK) };
    const { assert!(!<PlainFri as p3_commit::UnivariateStarkPcs<Challenge, Challenger>>::ZK) };
    let sets = KNOWN_SETS.iter().map(|known| known.params);
    for params in sets.chain(TRANSITION_SETS.iter().map(|set| set.params)) {
        assert!(
            params.num_random_codewords >= 3,
            "set {}: hiding needs 3 random codewords",
            params.id
        );
    }
}
