//! The spend verifier. It never panics on any input and rejects in this order, cheapest first:
//!
//! 1. public inputs: exact length, canonical elements, `0 < amount < 2^62` (checked when the
//!    [`PublicInputs`] were built, and again here);
//! 2. size (at most [`MAX_PROOF_BYTES`]) and header (magic, format version, parameter set);
//! 3. the postcard body: decodes completely, with canonical field elements and no trailing byte;
//! 4. the fixed shape ([`crate::shape::check_shape`]): trace height, widths, counts;
//! 5. Plonky3's verifier with the accepted parameter set and the statement's transcript prefix,
//!    on [`VerifierAir`] (the spend AIR without the per-call symbolic rebuild).
//!    Inside it, the proof-of-work witnesses are checked before any query is opened: the only
//!    work before them is replaying the transcript and interpolating the periodic columns at
//!    the out-of-domain point.

use p3_uni_stark::PcsError;

use crate::{
    config::{SpendConfig, StarkProof, build_config},
    encoding::{MAX_PROOF_BYTES, split_header},
    errors::{FailedCheck, ProofError},
    params::{PARAMETER_SET, ParameterSet},
    prover::guard,
    shape::check_shape,
    statement::{PublicInputs, check_amount},
    transcript::transcript_prefix,
    verifier_air::VerifierAir,
};

/// Verifies `proof` against `public_inputs` with the accepted parameter set.
///
/// # Errors
/// The first failed check, as a typed [`ProofError`].
pub fn verify(proof: &[u8], public_inputs: &PublicInputs) -> Result<(), ProofError> {
    verify_params(&PARAMETER_SET, proof, public_inputs)
}

/// As [`verify`] with any parameter set, accepted or not: for measurements and tuning only
/// (feature `measure`, off by default).
///
/// # Errors
/// As [`verify`].
#[cfg(feature = "measure")]
pub fn verify_with(
    params: &ParameterSet,
    proof: &[u8],
    public_inputs: &PublicInputs,
) -> Result<(), ProofError> {
    verify_params(params, proof, public_inputs)
}

#[inline(never)]
fn verify_params(
    params: &ParameterSet,
    proof: &[u8],
    public_inputs: &PublicInputs,
) -> Result<(), ProofError> {
    // `PublicInputs` can only hold a valid amount; checked again because the AIR reads the
    // amount modulo p, where an amount of p − 1 or p + k would alias another statement.
    check_amount(public_inputs.amount())?;
    let body = split_header(proof, params.id)?;
    let stark_proof = decode_body(body)?;
    check_shape(&stark_proof, params)?;
    let public = public_inputs.to_field_elements();
    let config = build_config(params, &transcript_prefix(params), [0; 32]);
    guard(|| {
        p3_uni_stark::verify(&config, &VerifierAir, &stark_proof, &public)
            .map_err(map_verification_error)
    })
}

/// Decodes the postcard body, which must be consumed exactly.
///
/// # Errors
/// [`ProofError::ProofTooLarge`], [`ProofError::MalformedProof`] or
/// [`ProofError::TrailingBytes`].
pub fn decode_body(body: &[u8]) -> Result<StarkProof, ProofError> {
    if body.len() > MAX_PROOF_BYTES {
        return Err(ProofError::ProofTooLarge { max: MAX_PROOF_BYTES, got: body.len() });
    }
    let (proof, rest) =
        postcard::take_from_bytes::<StarkProof>(body).map_err(|_| ProofError::MalformedProof)?;
    if !rest.is_empty() {
        return Err(ProofError::TrailingBytes { count: rest.len() });
    }
    Ok(proof)
}

fn map_verification_error(
    error: p3_uni_stark::VerificationError<PcsError<SpendConfig>>,
) -> ProofError {
    use p3_fri::verifier::FriError;
    use p3_uni_stark::VerificationError;
    let check = match error {
        VerificationError::InvalidProofShape(_) => {
            return ProofError::InvalidProofShape {
                what: "plonky3 shape check",
                expected: 0,
                got: 1,
            };
        }
        VerificationError::InvalidOodPowWitness
        | VerificationError::InvalidOpeningArgument(FriError::InvalidPowWitness(_)) => {
            FailedCheck::ProofOfWork
        }
        VerificationError::InvalidOpeningArgument(_) => FailedCheck::OpeningArgument,
        VerificationError::OodEvaluationMismatch { .. } => FailedCheck::Constraints,
        _ => FailedCheck::Other,
    };
    ProofError::InvalidProof { check }
}
