//! The transition prover and verifier: the spend pipeline ([`crate::prover`],
//! [`crate::verifier`]) over [`TransitionAir`], with the statement's own magic, parameter set and
//! transcript.
//!
//! Two parameter sets ([`TRANSITION_SETS`]): 17, which the prover makes (revision two of the AIR:
//! the memo proven, outputs below 2^62), and 16 (revision one), verified beside it so that
//! transitions proven before the upgrade, and by wallets that do not yet prove set 17, still
//! verify; both have set 3's FRI numbers.
//!
//! The verifier never panics and rejects, cheapest first: public inputs (exit range, distinct
//! nullifiers; checked when they were built), size and header (magic `"PSTR"`, format version,
//! parameter set 16 or 17), the postcard body, the fixed shape, then Plonky3's verifier.

use alloc::vec::Vec;

use p3_air::check_all_constraints;

use super::{
    accepted::AcceptedTransitionSets,
    air::TransitionAir,
    layout::{LOG_TRACE_ROWS, Revision, TRACE_ROWS},
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

/// A transition parameter set: the FRI numbers, the AIR revision they prove, and the security
/// level Plonky3's estimator gives the pair (`tests/transition.rs` checks each figure).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransitionSet {
    /// The parameters; the id is written in the proof header.
    pub params: ParameterSet,
    /// The AIR the set proves.
    pub revision: Revision,
    /// Plonky3's estimate for that AIR under these parameters.
    pub security: SecurityLevel,
}

/// Set 16 (issue 17): set 3's FRI numbers (blowup 32, 33 queries, 18 bits of query grinding, arity
/// 8 to a final polynomial of 128 coefficients, 3 random codewords) on the 1024-row trace of
/// revision one, the AIR named by its digest. Verified, no longer proved by default.
pub const TRANSITION_SET_16: TransitionSet = TransitionSet {
    params: ParameterSet { id: 16, air_binding: AirBinding::Digest, ..PARAMETER_SET_3 },
    revision: Revision::One,
    security: SecurityLevel {
        conjectured_bits: 128,
        proven_unique_decoding_bits: 49,
        proven_list_decoding_bits: 100,
    },
};

/// Set 17 (issue 23): set 16's FRI numbers on revision two of the AIR (the memo proven, every
/// output below 2^62). The set the prover makes.
pub const TRANSITION_SET_17: TransitionSet = TransitionSet {
    params: ParameterSet { id: 17, ..TRANSITION_SET_16.params },
    revision: Revision::Two,
    security: SecurityLevel {
        conjectured_bits: 128,
        proven_unique_decoding_bits: 49,
        proven_list_decoding_bits: 100,
    },
};

/// Every transition set the verifier accepts, newest first; the prover makes the first.
pub const TRANSITION_SETS: [TransitionSet; 2] = [TRANSITION_SET_17, TRANSITION_SET_16];

/// The parameter set of the transition proofs [`prove_transition`] makes.
pub const TRANSITION_PARAMETER_SET: ParameterSet = TRANSITION_SETS[0].params;

/// The security level of [`TRANSITION_PARAMETER_SET`].
pub const TRANSITION_SECURITY: SecurityLevel = TRANSITION_SETS[0].security;

/// The transition set with this id.
pub fn transition_set(id: u8) -> Option<&'static TransitionSet> {
    TRANSITION_SETS.iter().find(|set| set.params.id == id)
}

/// The digest of the transition AIR of `revision` at its own trace height, computed on first use.
/// (Until issue 23 it was computed at the spend trace's height; the degree it hashes is the same
/// at both, so set 16's digest did not change: `tests/transition.rs` pins both.)
pub fn transition_air_digest(revision: Revision) -> [u8; AIR_DIGEST_BYTES] {
    static ONE: spin::Lazy<[u8; AIR_DIGEST_BYTES]> =
        spin::Lazy::new(|| digest_of_rows(TransitionAir::shared(Revision::One), TRACE_ROWS));
    static TWO: spin::Lazy<[u8; AIR_DIGEST_BYTES]> =
        spin::Lazy::new(|| digest_of_rows(TransitionAir::shared(Revision::Two), TRACE_ROWS));
    match revision {
        Revision::One => *ONE,
        Revision::Two => *TWO,
    }
}

/// The security level of `params` for transition proofs of `revision`, as Plonky3's estimator
/// computes it.
pub fn transition_security_level(params: &ParameterSet, revision: Revision) -> SecurityLevel {
    let estimator = security_params_of(params, &TransitionAir::new(revision), LOG_TRACE_ROWS);
    level_of(&estimator, LOG_TRACE_ROWS + 1)
}

/// The transcript prefix of transition proofs under `set` (the statement's label and shape, the
/// parameter set and the digest of its AIR).
pub fn transition_transcript_prefix(set: &TransitionSet) -> Vec<u8> {
    let statement = StatementShape {
        label: TRANSITION_LABEL,
        trace_rows: TRACE_ROWS,
        trace_width: set.revision.width(),
        public_values: NUM_PUBLIC_VALUES,
    };
    transcript_prefix_of(&statement, &set.params, Some(&transition_air_digest(set.revision)))
}

/// Proves `witness` under [`TRANSITION_PARAMETER_SET`]. `seed` must be 32 bytes from a CSPRNG,
/// fresh for every proof.
///
/// # Errors
/// A refused witness ([`TransitionWitness::derive`]), [`ProofError::UnsatisfiedConstraints`],
/// [`ProofError::ProvingFailed`] or [`ProofError::InternalPanic`].
pub fn prove_transition(
    witness: &TransitionWitness,
    seed: [u8; 32],
) -> Result<(Vec<u8>, TransitionPublicInputs), ProofError> {
    prove_transition_in(&TRANSITION_SETS[0], witness, seed)
}

/// As [`prove_transition`], under `set` (set 16 for a pool node that does not verify set 17 yet).
///
/// # Errors
/// As [`prove_transition`].
pub fn prove_transition_in(
    set: &TransitionSet,
    witness: &TransitionWitness,
    seed: [u8; 32],
) -> Result<(Vec<u8>, TransitionPublicInputs), ProofError> {
    let values = witness.derive()?;
    prove_values(set, witness, &values, seed)
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
    prove_values(&TRANSITION_SETS[0], witness, &values, seed).map(|(bytes, _)| bytes)
}

fn prove_values(
    set: &TransitionSet,
    witness: &TransitionWitness,
    values: &TransitionValues,
    seed: [u8; 32],
) -> Result<(Vec<u8>, TransitionPublicInputs), ProofError> {
    let params = &set.params;
    let public_inputs = witness.public_inputs_from(values);
    let public = public_inputs.to_field_elements();
    let trace = build_trace(set.revision, witness, values);
    let air = TransitionAir::shared(set.revision);
    let report = check_all_constraints(air, &trace, &public, Some(1));
    if !report.failures.is_empty() {
        return Err(ProofError::UnsatisfiedConstraints { failures: report.failures.len() });
    }
    let config = build_config(params, &transition_transcript_prefix(set), seed);
    let proof = guard(|| {
        p3_uni_stark::prove(&config, air, trace, &public).map_err(|_| ProofError::ProvingFailed)
    })?;
    let mut bytes = Vec::from(proof_header_of(TRANSITION_MAGIC, params.id));
    let body = postcard::to_allocvec(&proof).map_err(|_| ProofError::ProvingFailed)?;
    bytes.extend_from_slice(&body);
    Ok((bytes, public_inputs))
}

/// Verifies a transition proof against its public inputs, accepting every one of
/// [`TRANSITION_SETS`].
///
/// # Errors
/// As [`verify_transition_accepting`].
pub fn verify_transition(
    proof: &[u8],
    public_inputs: &TransitionPublicInputs,
) -> Result<(), ProofError> {
    verify_transition_accepting(&AcceptedTransitionSets::DEFAULT, proof, public_inputs)
}

/// Verifies a transition proof against its public inputs, accepting the sets of `accepted`.
///
/// # Errors
/// The first failed check, as a typed [`ProofError`]; a header naming a set that is not one of
/// [`TRANSITION_SETS`], or not in `accepted`, is [`ProofError::UnsupportedParameterSet`].
pub fn verify_transition_accepting(
    accepted: &AcceptedTransitionSets,
    proof: &[u8],
    public_inputs: &TransitionPublicInputs,
) -> Result<(), ProofError> {
    // Checked when built; checked again because a wrapped exit or a repeated nullifier would
    // mint value, and the AIR proves neither rule.
    check_public_rules(&public_inputs.nullifiers(), public_inputs.exit())?;
    let (id, body) = split_header_of(proof, TRANSITION_MAGIC)?;
    let set = match transition_set(id) {
        Some(set) if accepted.contains(id) => set,
        _ => return Err(ProofError::UnsupportedParameterSet { got: id }),
    };
    let stark_proof = decode_body(body)?;
    check_shape_of(&stark_proof, &set.params, LOG_TRACE_ROWS, set.revision.width())?;
    let public = public_inputs.to_field_elements();
    let config = build_config(&set.params, &transition_transcript_prefix(set), [0; 32]);
    guard(|| {
        p3_uni_stark::verify(&config, TransitionAir::shared(set.revision), &stark_proof, &public)
            .map_err(map_verification_error)
    })
}
