//! Byte-level entry points shared by the N-API and WebAssembly bindings, mirroring
//! `priv_stark_core::wire`: every argument arrives as untrusted bytes, is checked here, and every
//! failure is a [`ProofError`] with a stable code. Encodings are documented in
//! [`crate::encoding`]:
//!
//! * witness: 1144 bytes, `sk ‖ v ‖ rho ‖ index ‖ path ‖ amount ‖ ctx`;
//! * public inputs: 136 bytes, `root ‖ nf ‖ change ‖ amount ‖ ctx`;
//! * seed: 32 bytes from a CSPRNG, fresh per proof;
//! * proof: `"PSSP" ‖ version ‖ parameter set ‖ postcard body`, at most 128 KiB;
//! * accepted parameter sets: one byte per id (see [`accept_parameter_sets`]);
//! * parameter-set records: [`PARAMETER_SET_RECORD_BYTES`] bytes each (see [`parameter_sets`]).

use alloc::vec::Vec;

pub use crate::encoding::{MAX_PROOF_BYTES, PUBLIC_INPUTS_BYTES, SEED_BYTES, WITNESS_BYTES};
use crate::{
    errors::ProofError,
    params::{KNOWN_SETS, PARAMETER_SET, ParameterSet, SecurityLevel},
    prover, reference,
    statement::{PublicInputs, SpendWitness},
    transition::{
        self, AcceptedTransitionSets, TRANSITION_PARAMETER_SET, TRANSITION_SETS,
        TransitionPublicInputs, TransitionWitness,
    },
    verifier::{self, AcceptedSets},
};

/// Parses a 32-byte seed; an all-zero seed is refused.
///
/// # Errors
/// [`ProofError::InvalidLength`] or [`ProofError::InvalidSeed`].
pub fn parse_seed(seed: &[u8]) -> Result<[u8; SEED_BYTES], ProofError> {
    let seed: [u8; SEED_BYTES] = seed.try_into().map_err(|_| ProofError::InvalidLength {
        what: "seed",
        expected: SEED_BYTES,
        got: seed.len(),
    })?;
    if seed.iter().all(|&byte| byte == 0) {
        return Err(ProofError::InvalidSeed);
    }
    Ok(seed)
}

/// Proves the encoded witness; returns the proof bytes.
///
/// # Errors
/// A malformed witness or seed, a refused witness (`insufficient_value`, …), or a prover fault.
pub fn prove_spend(witness: &[u8], seed: &[u8]) -> Result<Vec<u8>, ProofError> {
    let seed = parse_seed(seed)?;
    let witness = SpendWitness::from_bytes(witness)?;
    Ok(prover::prove(&witness, seed)?.bytes)
}

/// The encoded public inputs (136 bytes) the encoded witness proves.
///
/// # Errors
/// A malformed or refused witness.
pub fn public_inputs_of(witness: &[u8]) -> Result<Vec<u8>, ProofError> {
    Ok(SpendWitness::from_bytes(witness)?.public_inputs()?.to_bytes())
}

/// The reference of proof bytes for encoded public inputs, followed by the parameter-set id of the
/// proof header (33 bytes; see [`crate::reference`]).
///
/// # Errors
/// Malformed public inputs, or a proof whose size or header is refused.
pub fn proof_reference(proof: &[u8], public_inputs: &[u8]) -> Result<Vec<u8>, ProofError> {
    let public_inputs = PublicInputs::from_bytes(public_inputs)?;
    Ok(reference::reference(proof, &public_inputs)?.to_bytes().to_vec())
}

/// Verifies proof bytes against encoded public inputs.
///
/// # Errors
/// Malformed public inputs, or the first check the proof fails (see [`crate::verifier`]).
pub fn verify_spend(proof: &[u8], public_inputs: &[u8]) -> Result<(), ProofError> {
    let public_inputs = PublicInputs::from_bytes(public_inputs)?;
    verifier::verify(proof, &public_inputs)
}

/// Verifies proof bytes against encoded public inputs, accepting the parameter sets listed in
/// `accepted` (one byte per id; see [`accept_parameter_sets`]).
///
/// # Errors
/// A refused list of sets, malformed public inputs, or the first check the proof fails.
pub fn verify_spend_accepting(
    proof: &[u8],
    public_inputs: &[u8],
    accepted: &[u8],
) -> Result<(), ProofError> {
    let accepted = AcceptedSets::new(accepted)?;
    let public_inputs = PublicInputs::from_bytes(public_inputs)?;
    verifier::verify_accepting(&accepted, proof, &public_inputs)
}

/// Checks a list of parameter-set ids a verifier should accept and returns it normalised: the
/// accepted ids, newest first, each once.
///
/// # Errors
/// [`ProofError::InvalidLength`] for an empty list, [`ProofError::UnsupportedParameterSet`] for
/// an unknown id.
pub fn accept_parameter_sets(ids: &[u8]) -> Result<Vec<u8>, ProofError> {
    Ok(AcceptedSets::new(ids)?.ids())
}

/// Bytes of one record of [`parameter_sets`].
pub const PARAMETER_SET_RECORD_BYTES: usize = 8;
/// Record flag: the default verifier configuration accepts the set.
pub const FLAG_ACCEPTED_BY_DEFAULT: u8 = 1;
/// Record flag: the prover makes proofs of this set.
pub const FLAG_PROVER: u8 = 2;

/// Every parameter set a verifier can accept, newest first, as records of
/// [`PARAMETER_SET_RECORD_BYTES`] bytes: id, flags ([`FLAG_ACCEPTED_BY_DEFAULT`],
/// [`FLAG_PROVER`]), log2 of the blowup, queries, query grinding bits, then the security level
/// Plonky3's estimator gives it: conjectured, proven list-decoding and proven unique-decoding bits.
pub fn parameter_sets() -> Vec<u8> {
    let mut out = Vec::with_capacity(KNOWN_SETS.len() * PARAMETER_SET_RECORD_BYTES);
    for known in &KNOWN_SETS {
        let mut flags = 0;
        if known.accepted_by_default {
            flags |= FLAG_ACCEPTED_BY_DEFAULT;
        }
        if known.params.id == PARAMETER_SET.id {
            flags |= FLAG_PROVER;
        }
        out.extend_from_slice(&record(&known.params, flags, &known.security));
    }
    out
}

/// One record of [`parameter_sets`] or [`transition_parameter_sets`].
fn record(params: &ParameterSet, flags: u8, security: &SecurityLevel) -> [u8; 8] {
    let byte = |value: usize| u8::try_from(value).unwrap_or(u8::MAX);
    [
        params.id,
        flags,
        byte(params.log_blowup),
        byte(params.num_queries),
        byte(params.query_pow_bits),
        byte(security.conjectured_bits),
        byte(security.proven_list_decoding_bits),
        byte(security.proven_unique_decoding_bits),
    ]
}

// TRANSITIONS (merge, split, exit)
// ================================================================================================

/// Proves an encoded transition witness (2232 bytes; see [`crate::transition::encoding`]).
///
/// # Errors
/// A malformed witness or seed, a refused witness (`values_not_conserved`, …), or a prover fault.
pub fn prove_transition(witness: &[u8], seed: &[u8]) -> Result<Vec<u8>, ProofError> {
    let seed = parse_seed(seed)?;
    let witness = TransitionWitness::from_bytes(witness)?;
    Ok(transition::prove_transition(&witness, seed)?.0)
}

/// As [`prove_transition`], under the transition parameter set `set` (the newest set a pool node
/// accepts: set 16 for one of an older release).
///
/// # Errors
/// As [`prove_transition`]; [`ProofError::UnsupportedParameterSet`] for a set that is not a
/// transition set.
pub fn prove_transition_in_set(
    witness: &[u8],
    seed: &[u8],
    set: u8,
) -> Result<Vec<u8>, ProofError> {
    let seed = parse_seed(seed)?;
    let set =
        transition::transition_set(set).ok_or(ProofError::UnsupportedParameterSet { got: set })?;
    let witness = TransitionWitness::from_bytes(witness)?;
    Ok(transition::prove_transition_in(set, &witness, seed)?.0)
}

/// The encoded public inputs (248 bytes) the encoded transition witness proves.
///
/// # Errors
/// A malformed or refused witness.
pub fn transition_public_inputs_of(witness: &[u8]) -> Result<Vec<u8>, ProofError> {
    Ok(TransitionWitness::from_bytes(witness)?.public_inputs()?.to_bytes())
}

/// Verifies transition proof bytes against encoded public inputs, accepting every transition set.
///
/// # Errors
/// Malformed public inputs, or the first check the proof fails.
pub fn verify_transition(proof: &[u8], public_inputs: &[u8]) -> Result<(), ProofError> {
    let public_inputs = TransitionPublicInputs::from_bytes(public_inputs)?;
    transition::verify_transition(proof, &public_inputs)
}

/// Verifies transition proof bytes against encoded public inputs, accepting the transition sets
/// listed in `accepted` (one byte per id; see [`accept_transition_parameter_sets`]).
///
/// # Errors
/// A refused list of sets, malformed public inputs, or the first check the proof fails.
pub fn verify_transition_accepting(
    proof: &[u8],
    public_inputs: &[u8],
    accepted: &[u8],
) -> Result<(), ProofError> {
    let accepted = AcceptedTransitionSets::new(accepted)?;
    let public_inputs = TransitionPublicInputs::from_bytes(public_inputs)?;
    transition::verify_transition_accepting(&accepted, proof, &public_inputs)
}

/// Checks a list of transition parameter-set ids a verifier should accept and returns it
/// normalised: the accepted ids, newest first, each once.
///
/// # Errors
/// [`ProofError::InvalidLength`] for an empty list, [`ProofError::UnsupportedParameterSet`] for
/// an id that is not a transition set.
pub fn accept_transition_parameter_sets(ids: &[u8]) -> Result<Vec<u8>, ProofError> {
    Ok(AcceptedTransitionSets::new(ids)?.ids())
}

/// Every transition parameter set a verifier can accept, newest first, as records of
/// [`PARAMETER_SET_RECORD_BYTES`] bytes laid out as [`parameter_sets`]' (every transition set is
/// accepted by default; the prover makes the first).
pub fn transition_parameter_sets() -> Vec<u8> {
    let mut out = Vec::with_capacity(TRANSITION_SETS.len() * PARAMETER_SET_RECORD_BYTES);
    for set in &TRANSITION_SETS {
        let mut flags = FLAG_ACCEPTED_BY_DEFAULT;
        if set.params.id == TRANSITION_PARAMETER_SET.id {
            flags |= FLAG_PROVER;
        }
        out.extend_from_slice(&record(&set.params, flags, &set.security));
    }
    out
}
