//! Security level of a parameter set, as Plonky3's own estimator computes it
//! (`p3_uni_stark::{ConjecturedSecurity, ProvenSecurity}`, backed by `p3-security`).
//!
//! Inputs: the FRI regime and grinding sites of the parameter set, the AIR's constraint count and
//! degree (read symbolically from [`SpendAir`]), the zero-knowledge opening shape, the trace
//! height after the zero-knowledge extension (`2^10`), the challenge field (the cubic extension:
//! `⌊3·log2 p⌋ = 191` bits) and BLAKE3-256's 128-bit collision resistance.

use p3_air::symbolic::AirLayout;
use p3_field::{PrimeCharacteristicRing, coset::TwoAdicMultiplicativeCoset};
use p3_fri::FriParameters;
use p3_security::{
    fri::FriRegime,
    report::{RegimeReport, SecurityReport},
    shape::{InstanceShape, StarkAirParams},
    stark::{conjectured_security_report, proven_security_report},
};
use p3_uni_stark::{
    ConjecturedSecurity, GrindingSites, OpeningShape, ProvenSecurity, StarkSecurityParams,
};

pub use crate::params::SecurityLevel;
use crate::{
    air::SpendAir,
    config::{Challenge, Val},
    layout::LOG_TRACE_ROWS,
    params::ParameterSet,
};

/// Bits of the challenge field, rounded down: `⌊3 · log2(2^64 − 2^32 + 1)⌋`.
pub const CHALLENGE_FIELD_BITS: usize = 191;
/// Collision resistance of BLAKE3 with 256-bit digests.
pub const COLLISION_RESISTANCE_BITS: usize = 128;
/// `degree_bits` of every proof: the 512-row trace doubled by the zero-knowledge extension.
pub const PROOF_DEGREE_BITS: usize = LOG_TRACE_ROWS + 1;

const fn fri_regime(params: &ParameterSet) -> FriRegime {
    FriParameters {
        log_blowup: params.log_blowup,
        log_final_poly_len: params.log_final_poly_len,
        max_log_arity: params.max_log_arity,
        num_queries: params.num_queries,
        batch_proof_of_work_bits: params.batch_pow_bits,
        commit_proof_of_work_bits: params.commit_pow_bits,
        query_proof_of_work_bits: params.query_pow_bits,
        mmcs: (),
    }
    .security_regime()
}

/// The estimator's inputs for the spend AIR under `params`.
pub fn security_params(params: &ParameterSet) -> StarkSecurityParams {
    security_params_of(params, &SpendAir::new(), LOG_TRACE_ROWS)
}

/// The estimator's inputs for any AIR of this crate with `2^log_trace_rows` rows.
pub fn security_params_of<A>(
    params: &ParameterSet,
    air: &A,
    log_trace_rows: usize,
) -> StarkSecurityParams
where
    A: p3_air::BaseAir<Val> + p3_air::Air<p3_air::symbolic::SymbolicAirBuilder<Val, Challenge>>,
{
    // The prover's trace domain before the zero-knowledge extension.
    let trace_domain = TwoAdicMultiplicativeCoset::new(Val::ONE, log_trace_rows)
        .expect("the trace height is below the two-adicity of Goldilocks");
    StarkSecurityParams::from_air::<Val, Challenge, A>(
        fri_regime(params),
        air,
        AirLayout::from_air(air),
        trace_domain,
        CHALLENGE_FIELD_BITS,
        COLLISION_RESISTANCE_BITS,
        2,
        OpeningShape::hiding(params.num_random_codewords),
        GrindingSites {
            out_of_domain: params.ood_pow_bits,
            batch_combination: params.batch_pow_bits,
            lookup_challenge: 0,
        },
    )
}

/// The security level of `params` for spend proofs.
pub fn security_level(params: &ParameterSet) -> SecurityLevel {
    level_of(&security_params(params), PROOF_DEGREE_BITS)
}

/// The security level from the estimator's inputs, for proofs of `degree_bits`.
pub fn level_of(estimator: &StarkSecurityParams, degree_bits: usize) -> SecurityLevel {
    let conjectured = ConjecturedSecurity::compute_from_params(estimator, degree_bits);
    let proven = ProvenSecurity::compute_from_proof(degree_bits, estimator);
    SecurityLevel {
        conjectured_bits: conjectured.security_bits,
        proven_unique_decoding_bits: proven.unique_decoding_bits,
        proven_list_decoding_bits: proven.list_decoding_bits,
    }
}

fn shapes(estimator: &StarkSecurityParams) -> (FriRegime, StarkAirParams, InstanceShape) {
    (
        FriRegime {
            log_blowup: estimator.fri_log_blowup,
            num_queries: estimator.fri_num_queries,
            log_final_poly_len: estimator.fri_log_final_poly_len,
            max_log_arity: estimator.fri_max_log_arity,
            commit_pow_bits: estimator.fri_commit_proof_of_work_bits,
            query_pow_bits: estimator.fri_query_proof_of_work_bits,
        },
        StarkAirParams {
            num_constraints: estimator.num_constraints,
            max_constraint_degree: estimator.air_max_constraint_degree,
            num_quotient_chunks: estimator.num_quotient_chunks,
            max_combo: estimator.max_combo,
        },
        InstanceShape {
            log_trace_length: PROOF_DEGREE_BITS,
            modulus_bits: estimator.num_modulus_bits,
            collision_resistance: estimator.collision_resistance,
            num_batched_functions: estimator.num_batched_functions,
        },
    )
}

/// The estimator's term-by-term reports (conjectured, proven), for documentation and tuning.
pub fn security_reports(params: &ParameterSet) -> (RegimeReport, SecurityReport) {
    let estimator = security_params(params);
    let (regime, air, shape) = shapes(&estimator);
    (
        conjectured_security_report(&regime, &air, &shape, &[], &estimator.grinding),
        proven_security_report(&regime, &air, &shape, &[], &estimator.grinding),
    )
}
