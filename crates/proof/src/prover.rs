//! The spend prover: witness → checked trace → zero-knowledge STARK → proof bytes.
//!
//! The prover refuses, with a typed error, anything it cannot prove honestly: ranges are checked
//! by [`SpendWitness::derive`], and the finished trace is checked against every AIR constraint
//! before Plonky3 is called (a release-mode Plonky3 prover does not check it and would emit a
//! proof that merely fails to verify).

use alloc::vec::Vec;

use p3_air::check_all_constraints;

use crate::{
    air::SpendAir,
    config::build_config,
    encoding::proof_header,
    errors::ProofError,
    params::{PARAMETER_SET, ParameterSet},
    statement::{PublicInputs, SpendValues, SpendWitness},
    trace::build_trace,
    transcript::transcript_prefix,
};

/// A proof and the public inputs it proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpendProof {
    /// The proof bytes: header ‖ postcard body.
    pub bytes: Vec<u8>,
    /// The statement's public inputs.
    pub public_inputs: PublicInputs,
}

/// Proves `witness` with the accepted parameter set. `seed` must be 32 bytes from a CSPRNG,
/// fresh for every proof: it derives the Merkle salts and the zero-knowledge masks.
///
/// # Errors
/// A refused witness ([`SpendWitness::derive`]), [`ProofError::UnsatisfiedConstraints`],
/// [`ProofError::ProvingFailed`] or [`ProofError::InternalPanic`].
pub fn prove(witness: &SpendWitness, seed: [u8; 32]) -> Result<SpendProof, ProofError> {
    let values = witness.derive()?;
    prove_values(&PARAMETER_SET, witness, &values, seed)
}

/// As [`prove`], after checking that the witness proves exactly `expected` (the anchor root,
/// nullifier, change, amount and context the caller means to send).
///
/// # Errors
/// As [`SpendWitness::check_against`], then as [`prove`].
pub fn prove_against(
    witness: &SpendWitness,
    expected: &PublicInputs,
    seed: [u8; 32],
) -> Result<Vec<u8>, ProofError> {
    let values = witness.check_against(expected)?;
    prove_values(&PARAMETER_SET, witness, &values, seed).map(|proof| proof.bytes)
}

/// As [`prove`] with any parameter set: for measurements and tuning only (feature `measure`, off
/// by default). A proof made with a set the verifier does not accept is refused by
/// [`crate::verifier::verify`].
///
/// # Errors
/// As [`prove`].
#[cfg(feature = "measure")]
pub fn prove_with(
    params: &ParameterSet,
    witness: &SpendWitness,
    seed: [u8; 32],
) -> Result<SpendProof, ProofError> {
    let values = witness.derive()?;
    prove_values(params, witness, &values, seed)
}

fn prove_values(
    params: &ParameterSet,
    witness: &SpendWitness,
    values: &SpendValues,
    seed: [u8; 32],
) -> Result<SpendProof, ProofError> {
    let public_inputs = witness.public_inputs_from(values);
    let public = public_inputs.to_field_elements();
    let trace = build_trace(witness, values);
    let air = SpendAir::shared();
    let report = check_all_constraints(air, &trace, &public, Some(1));
    if !report.failures.is_empty() {
        return Err(ProofError::UnsatisfiedConstraints { failures: report.failures.len() });
    }
    let config = build_config(params, &transcript_prefix(params), seed);
    let proof = guard(|| {
        p3_uni_stark::prove(&config, air, trace, &public).map_err(|_| ProofError::ProvingFailed)
    })?;
    let mut bytes = Vec::from(proof_header(params.id));
    let body = postcard::to_allocvec(&proof).map_err(|_| ProofError::ProvingFailed)?;
    bytes.extend_from_slice(&body);
    Ok(SpendProof { bytes, public_inputs })
}

/// Runs `f`, turning a panic into [`ProofError::InternalPanic`] where unwinding exists.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, ProofError>) -> Result<T, ProofError> {
    #[cfg(feature = "std")]
    {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .unwrap_or(Err(ProofError::InternalPanic))
    }
    #[cfg(not(feature = "std"))]
    {
        f()
    }
}
