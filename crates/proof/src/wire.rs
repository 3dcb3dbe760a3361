//! Byte-level entry points shared by the N-API and WebAssembly bindings, mirroring
//! `priv_stark_core::wire`: every argument arrives as untrusted bytes, is checked here, and every
//! failure is a [`ProofError`] with a stable code. Encodings are documented in
//! [`crate::encoding`]:
//!
//! * witness: 1144 bytes, `sk ‖ v ‖ rho ‖ index ‖ path ‖ amount ‖ ctx`;
//! * public inputs: 136 bytes, `root ‖ nf ‖ change ‖ amount ‖ ctx`;
//! * seed: 32 bytes from a CSPRNG, fresh per proof;
//! * proof: `"PSSP" ‖ version ‖ parameter set ‖ postcard body`, at most 128 KiB.

use alloc::vec::Vec;

pub use crate::encoding::{MAX_PROOF_BYTES, PUBLIC_INPUTS_BYTES, SEED_BYTES, WITNESS_BYTES};
use crate::{
    errors::ProofError,
    prover,
    reference,
    statement::{PublicInputs, SpendWitness},
    verifier,
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
