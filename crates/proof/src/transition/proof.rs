//! The transition prover and verifier: the spend pipeline ([`crate::prover`],
//! [`crate::verifier`]) over [`TransitionAir`], with the statement's own magic, parameter set and
//! transcript.
//!
//! The verifier never panics and rejects, cheapest first: public inputs (exit range, distinct
//! nullifiers; checked when they were built), size and header (magic `"PSTR"`, format version,
//! parameter set 16 only), the postcard body, the fixed shape, then Plonky3's verifier.

use alloc::vec::Vec;

use p3_air::check_all_constraints;

use super::{
    air::TransitionAir,
    layout::{LOG_TRACE_ROWS, TRACE_ROWS, TRACE_WIDTH},
    statement::{
        NUM_PUBLIC_VALUES, TransitionPublicInputs, TransitionValues, TransitionWitness,
        check_public_rules,
    },
    trace::build_trace,
};
use crate::{
    air_digest::{AIR_DIGEST_BYTES, digest_of_rows},
    config::build_config,
    encoding::{proof_header_of, split_header_of},
    errors::ProofError,
    params::{AirBinding, PARAMETER_SET_3, ParameterSet, SecurityLevel},
    prover::guard,
    security::{level_of, security_params_of},
    shape::check_shape_of,
    transcript::{StatementShape, transcript_prefix_of},
    verifier::{decode_body, map_verification_error},
};

/// The first four bytes of every transition proof.
pub const TRANSITION_MAGIC: [u8; 4] = *b"PSTR";

/// The statement's name in the transcript.
pub const TRANSITION_LABEL: &[u8] =
    b"priv-stark/v1 transition | goldilocks^3 x^3-x-1 | rpo-256 air | blake3 | hiding fri";

/// The transition parameter set: set 3's FRI numbers (blowup 32, 33 queries, 18 bits of query
/// grinding, arity 8 to a final polynomial of 128 coefficients, 3 random codewords) on the
/// 1024-row trace, the AIR named by its digest. [`TRANSITION_SECURITY`] has its level.
pub const TRANSITION_PARAMETER_SET: ParameterSet =
    ParameterSet { id: 16, air_binding: AirBinding::Digest, ..PARAMETER_SET_3 };

/// Plonky3's estimate for the transition AIR under [`TRANSITION_PARAMETER_SET`] (checked by
/// `tests/transition.rs` against [`transition_security_level`]).
pub const TRANSITION_SECURITY: SecurityLevel = SecurityLevel {
    conjectured_bits: 128,
    proven_unique_decoding_bits: 49,
    proven_list_decoding_bits: 100,
};

/// The digest of [`TransitionAir`] at its own trace height, computed on first use. (Until issue
/// 23 it was computed at the spend trace's height; the degree it hashes is the same at both, so
/// set 16's digest did not change: `tests/transition.rs` pins both.)
pub fn transition_air_digest() -> [u8; AIR_DIGEST_BYTES] {
    static DIGEST: spin::Lazy<[u8; AIR_DIGEST_BYTES]> =
        spin::Lazy::new(|| digest_of_rows(TransitionAir::shared(), TRACE_ROWS));
    *DIGEST
}

/// The security level of `params` for transition proofs, as Plonky3's estimator computes it.
pub fn transition_security_level(params: &ParameterSet) -> SecurityLevel {
    let estimator = security_params_of(params, &TransitionAir::new(), LOG_TRACE_ROWS);
    level_of(&estimator, LOG_TRACE_ROWS + 1)
}

/// The transcript prefix of transition proofs under `params` (the statement's label and shape, the
/// parameter set and [`transition_air_digest`]).
pub fn transition_transcript_prefix(params: &ParameterSet) -> Vec<u8> {
    let statement = StatementShape {
        label: TRANSITION_LABEL,
        trace_rows: TRACE_ROWS,
        trace_width: TRACE_WIDTH,
        public_values: NUM_PUBLIC_VALUES,
    };
    transcript_prefix_of(&statement, params, Some(&transition_air_digest()))
}

/// Proves `witness`. `seed` must be 32 bytes from a CSPRNG, fresh for every proof.
///
/// # Errors
/// A refused witness ([`TransitionWitness::derive`]), [`ProofError::UnsatisfiedConstraints`],
/// [`ProofError::ProvingFailed`] or [`ProofError::InternalPanic`].
pub fn prove_transition(
    witness: &TransitionWitness,
    seed: [u8; 32],
) -> Result<(Vec<u8>, TransitionPublicInputs), ProofError> {
    let values = witness.derive()?;
    prove_values(witness, &values, seed)
}

/// As [`prove_transition`], after checking that the witness proves exactly `expected`.
///
/// # Errors
/// As [`TransitionWitness::check_against`], then as [`prove_transition`].
pub fn prove_transition_against(
    witness: &TransitionWitness,
    expected: &TransitionPublicInputs,
    seed: [u8; 32],
) -> Result<Vec<u8>, ProofError> {
    let values = witness.check_against(expected)?;
    prove_values(witness, &values, seed).map(|(bytes, _)| bytes)
}

fn prove_values(
    witness: &TransitionWitness,
    values: &TransitionValues,
    seed: [u8; 32],
) -> Result<(Vec<u8>, TransitionPublicInputs), ProofError> {
    let params = &TRANSITION_PARAMETER_SET;
    let public_inputs = witness.public_inputs_from(values);
    let public = public_inputs.to_field_elements();
    let trace = build_trace(witness, values);
    let air = TransitionAir::shared();
    let report = check_all_constraints(air, &trace, &public, Some(1));
    if !report.failures.is_empty() {
        return Err(ProofError::UnsatisfiedConstraints { failures: report.failures.len() });
    }
    let config = build_config(params, &transition_transcript_prefix(params), seed);
    let proof = guard(|| {
        p3_uni_stark::prove(&config, air, trace, &public).map_err(|_| ProofError::ProvingFailed)
    })?;
    let mut bytes = Vec::from(proof_header_of(TRANSITION_MAGIC, params.id));
    let body = postcard::to_allocvec(&proof).map_err(|_| ProofError::ProvingFailed)?;
    bytes.extend_from_slice(&body);
    Ok((bytes, public_inputs))
}

/// Verifies a transition proof against its public inputs.
///
/// # Errors
/// The first failed check, as a typed [`ProofError`]; any header naming another set than
/// [`TRANSITION_PARAMETER_SET`] is [`ProofError::UnsupportedParameterSet`].
pub fn verify_transition(
    proof: &[u8],
    public_inputs: &TransitionPublicInputs,
) -> Result<(), ProofError> {
    // Checked when built; checked again because a wrapped exit or a repeated nullifier would
    // mint value, and the AIR proves neither rule.
    check_public_rules(&public_inputs.nullifiers(), public_inputs.exit())?;
    let params = &TRANSITION_PARAMETER_SET;
    let (id, body) = split_header_of(proof, TRANSITION_MAGIC)?;
    if id != params.id {
        return Err(ProofError::UnsupportedParameterSet { got: id });
    }
    let stark_proof = decode_body(body)?;
    check_shape_of(&stark_proof, params, LOG_TRACE_ROWS, TRACE_WIDTH)?;
    let public = public_inputs.to_field_elements();
    let config = build_config(params, &transition_transcript_prefix(params), [0; 32]);
    guard(|| {
        p3_uni_stark::verify(&config, TransitionAir::shared(), &stark_proof, &public)
            .map_err(map_verification_error)
    })
}
