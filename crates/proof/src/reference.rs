//! The content reference of a handed-over proof (compact payments, `docs/compact-payments.md`).
//!
//! A wallet hands a spend proof to the pool operator's node before paying and puts only this
//! reference in the payment; the node recomputes it from what it received, so a reference names
//! exactly one proof of exactly one statement:
//!
//! `reference = BLAKE3-256(tag ‖ parameter set ‖ AIR digest ‖ public inputs (136 bytes) ‖
//! proof length (u64 LE) ‖ proof)`
//!
//! with `tag = "priv-stark/v1 proof reference\0"`. The parameter set is the proof header's; the AIR
//! digest is [`crate::air_digest::air_digest`]; the public inputs are encoded as the verifier takes
//! them ([`crate::encoding`]), so the reference also binds the payment's context digest. The
//! reference says nothing about validity: the node verifies the proof before it stores it. It
//! hashes bytes, and one proof has only one encoding the verifier accepts ([`crate::canonical`]):
//! a re-encoded copy of a handed-over proof (another reference for the same proof) is refused
//! by that verification with `malformed_proof`, so it is never stored.

use crate::{
    air_digest::air_digest,
    encoding::{FORMAT_VERSION, HEADER_BYTES, MAX_PROOF_BYTES, PROOF_MAGIC},
    errors::ProofError,
    statement::PublicInputs,
};

/// Bytes of a reference.
pub const REFERENCE_BYTES: usize = 32;
/// Domain tag of the reference hash.
pub const REFERENCE_TAG: &[u8] = b"priv-stark/v1 proof reference\0";

/// A proof's reference and the parameter set its header names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofReference {
    /// The reference.
    pub digest: [u8; REFERENCE_BYTES],
    /// The parameter-set id of the proof header.
    pub parameter_set: u8,
}

impl ProofReference {
    /// The reference followed by the parameter-set id (33 bytes), as the bindings return it.
    pub fn to_bytes(&self) -> [u8; REFERENCE_BYTES + 1] {
        let mut out = [0u8; REFERENCE_BYTES + 1];
        out[..REFERENCE_BYTES].copy_from_slice(&self.digest);
        out[REFERENCE_BYTES] = self.parameter_set;
        out
    }
}

/// The reference of `proof` for `public_inputs`. Only the header is read (size, magic, format
/// version): whether the parameter set is accepted and the proof holds is the verifier's question.
///
/// # Errors
/// [`ProofError::ProofTooLarge`], [`ProofError::ProofTooShort`], [`ProofError::BadMagic`] or
/// [`ProofError::UnsupportedVersion`].
pub fn reference(proof: &[u8], public_inputs: &PublicInputs) -> Result<ProofReference, ProofError> {
    if proof.len() > MAX_PROOF_BYTES {
        return Err(ProofError::ProofTooLarge { max: MAX_PROOF_BYTES, got: proof.len() });
    }
    if proof.len() < HEADER_BYTES {
        return Err(ProofError::ProofTooShort { got: proof.len() });
    }
    if proof[..PROOF_MAGIC.len()] != PROOF_MAGIC {
        return Err(ProofError::BadMagic);
    }
    if proof[4] != FORMAT_VERSION {
        return Err(ProofError::UnsupportedVersion { expected: FORMAT_VERSION, got: proof[4] });
    }
    let parameter_set = proof[5];
    let mut hasher = blake3::Hasher::new();
    hasher.update(REFERENCE_TAG);
    hasher.update(&[parameter_set]);
    hasher.update(&air_digest());
    hasher.update(&public_inputs.to_bytes());
    hasher.update(&(proof.len() as u64).to_le_bytes());
    hasher.update(proof);
    Ok(ProofReference { digest: *hasher.finalize().as_bytes(), parameter_set })
}
