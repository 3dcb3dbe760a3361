//! The spend verifier. It never panics on any input and rejects in this order, cheapest first:
//!
//! 1. public inputs: exact length, canonical elements, `0 < amount < 2^62` (checked when the
//!    [`PublicInputs`] were built, and again here);
//! 2. size (at most [`MAX_PROOF_BYTES`]) and header (magic, format version), then the header's
//!    parameter set against the accepted ones ([`AcceptedSets`]);
//! 3. the postcard body: decodes completely, with canonical field elements and no trailing byte,
//!    and is the one encoding of what it decodes to ([`crate::canonical`]);
//! 4. the fixed shape of that parameter set ([`crate::shape::check_shape`]): trace height,
//!    widths, counts;
//! 5. Plonky3's verifier with that parameter set and its transcript prefix, on [`VerifierAir`]
//!    (the spend AIR without the per-call symbolic rebuild or dense periodic interpolation).
//!    Inside it, the proof-of-work witnesses are checked before any query is opened: the only
//!    work before them is replaying the transcript.

use alloc::vec::Vec;

use p3_uni_stark::PcsError;

#[cfg(feature = "measure")]
use crate::params::ParameterSet;
use crate::{
    canonical::encodes_to,
    config::{SpendConfig, StarkProof, build_config},
    encoding::{MAX_PROOF_BYTES, split_header},
    errors::{FailedCheck, ProofError},
    id_mask::IdMask,
    params::{KNOWN_SETS, KnownSet, known_set},
    prover::guard,
    shape::check_shape,
    statement::{PublicInputs, check_amount},
    transcript::transcript_prefix,
    verifier_air::VerifierAir,
};

/// The parameter sets a verifier accepts: a non-empty subset of [`KNOWN_SETS`].
///
/// The default is every set marked `accepted_by_default` (set 3, and set 2 for its deprecation
/// window). A deployment narrows it (for example to `[3]` once no set-2 proof can still be in
/// flight) with [`AcceptedSets::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcceptedSets {
    mask: IdMask,
}

impl AcceptedSets {
    /// The default configuration.
    pub const DEFAULT: Self = {
        let mut mask = IdMask::EMPTY;
        let mut i = 0;
        while i < KNOWN_SETS.len() {
            if KNOWN_SETS[i].accepted_by_default {
                mask = mask.with(KNOWN_SETS[i].params.id);
            }
            i += 1;
        }
        Self { mask }
    };

    /// Accepts exactly the sets with these ids (in any order, duplicates ignored).
    ///
    /// # Errors
    /// [`ProofError::InvalidLength`] for an empty list, [`ProofError::UnsupportedParameterSet`]
    /// for an id that is not one of the [`KNOWN_SETS`].
    pub fn new(ids: &[u8]) -> Result<Self, ProofError> {
        let known = |id| known_set(id).is_some();
        Ok(Self { mask: IdMask::from_ids(ids, "accepted parameter sets", known)? })
    }

    /// Whether proofs of set `id` are accepted.
    pub const fn contains(&self, id: u8) -> bool {
        self.mask.contains(id)
    }

    /// The accepted sets, newest first.
    pub fn sets(&self) -> impl Iterator<Item = &'static KnownSet> + '_ {
        KNOWN_SETS.iter().filter(|known| self.contains(known.params.id))
    }

    /// The accepted ids, newest first.
    pub fn ids(&self) -> Vec<u8> {
        self.sets().map(|known| known.params.id).collect()
    }
}

impl Default for AcceptedSets {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Verifies `proof` against `public_inputs`, accepting the default parameter sets.
///
/// # Errors
/// The first failed check, as a typed [`ProofError`].
pub fn verify(proof: &[u8], public_inputs: &PublicInputs) -> Result<(), ProofError> {
    verify_accepting(&AcceptedSets::DEFAULT, proof, public_inputs)
}

/// Verifies `proof` against `public_inputs`, accepting the sets of `accepted`.
///
/// # Errors
/// The first failed check, as a typed [`ProofError`]; a proof of a set not in `accepted` is
/// [`ProofError::UnsupportedParameterSet`].
pub fn verify_accepting(
    accepted: &AcceptedSets,
    proof: &[u8],
    public_inputs: &PublicInputs,
) -> Result<(), ProofError> {
    // `PublicInputs` can only hold a valid amount; checked again because the AIR reads the
    // amount modulo p, where an amount of p − 1 or p + k would alias another statement.
    check_amount(public_inputs.amount())?;
    let (id, body) = split_header(proof)?;
    let known = match known_set(id) {
        Some(known) if accepted.contains(id) => known,
        _ => return Err(ProofError::UnsupportedParameterSet { got: id }),
    };
    verify_body(&known.params, body, public_inputs)
}

/// As [`verify`] with any parameter set, accepted or not: for measurements and tuning only
/// (feature `measure`, off by default). The header must name `params.id`.
///
/// # Errors
/// As [`verify`].
#[cfg(feature = "measure")]
pub fn verify_with(
    params: &ParameterSet,
    proof: &[u8],
    public_inputs: &PublicInputs,
) -> Result<(), ProofError> {
    check_amount(public_inputs.amount())?;
    let (id, body) = split_header(proof)?;
    if id != params.id {
        return Err(ProofError::UnsupportedParameterSet { got: id });
    }
    verify_body(params, body, public_inputs)
}

#[inline(never)]
fn verify_body(
    params: &crate::params::ParameterSet,
    body: &[u8],
    public_inputs: &PublicInputs,
) -> Result<(), ProofError> {
    let stark_proof = decode_body(body)?;
    check_shape(&stark_proof, params)?;
    let public = public_inputs.to_field_elements();
    let config = build_config(params, &transcript_prefix(params), [0; 32]);
    guard(|| {
        p3_uni_stark::verify(&config, &VerifierAir, &stark_proof, &public)
            .map_err(map_verification_error)
    })
}

/// Decodes the postcard body, which must be consumed exactly and be the canonical encoding of the
/// proof it decodes to (no padded varint: see [`crate::canonical`]).
///
/// # Errors
/// [`ProofError::ProofTooLarge`], [`ProofError::MalformedProof`] (also for a non-canonical
/// encoding) or [`ProofError::TrailingBytes`].
pub fn decode_body(body: &[u8]) -> Result<StarkProof, ProofError> {
    if body.len() > MAX_PROOF_BYTES {
        return Err(ProofError::ProofTooLarge { max: MAX_PROOF_BYTES, got: body.len() });
    }
    let (proof, rest) =
        postcard::take_from_bytes::<StarkProof>(body).map_err(|_| ProofError::MalformedProof)?;
    if !rest.is_empty() {
        return Err(ProofError::TrailingBytes { count: rest.len() });
    }
    if !encodes_to(&proof, body) {
        return Err(ProofError::MalformedProof);
    }
    Ok(proof)
}

pub(crate) fn map_verification_error(
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
