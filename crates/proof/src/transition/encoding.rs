//! Byte encodings of the transition statement (digests and field elements as in
//! [`crate::encoding`]: canonical u64 little-endian elements):
//!
//! * **Public inputs** (248 bytes) = `root ‖ nf₁ ‖ nf₂ ‖ out₁ ‖ out₂` (32 each) ‖
//!   `exit (u64 LE)` ‖ `ctx (32)` ‖ `memo (2 elements, 16)` ‖ `refund (32)`.
//! * **Witness** (2232 bytes) = `sk (32)` ‖ two inputs, each `v (u64 LE) ‖ rho (32) ‖
//!   index (u64 LE) ‖ path (32 × 32, leaf level first)` ‖ `w₁ ‖ w₂ ‖ exit` (u64 LE each) ‖
//!   `ctx (32)`.

use alloc::vec::Vec;

use p3_field::{PrimeCharacteristicRing, PrimeField64};
use priv_stark_core::{
    Digest, Felt,
    digest::DIGEST_BYTES,
    field::MODULUS,
    tree::{DEPTH, MerklePath},
};

use super::statement::{TransitionInput, TransitionPublicInputs, TransitionWitness};
use crate::{
    encoding::{Reader, check_length},
    errors::ProofError,
};

/// Bytes of encoded transition public inputs.
pub const TRANSITION_PUBLIC_INPUTS_BYTES: usize =
    5 * DIGEST_BYTES + 8 + DIGEST_BYTES + 16 + DIGEST_BYTES;
/// Bytes of one encoded input.
const INPUT_BYTES: usize = 8 + DIGEST_BYTES + 8 + DEPTH * DIGEST_BYTES;
/// Bytes of an encoded transition witness.
pub const TRANSITION_WITNESS_BYTES: usize = DIGEST_BYTES + 2 * INPUT_BYTES + 3 * 8 + DIGEST_BYTES;

impl TransitionPublicInputs {
    /// The 248-byte encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TRANSITION_PUBLIC_INPUTS_BYTES);
        out.extend_from_slice(&self.root().to_bytes());
        for digest in self.nullifiers().iter().chain(&self.outputs()) {
            out.extend_from_slice(&digest.to_bytes());
        }
        out.extend_from_slice(&self.exit().to_le_bytes());
        out.extend_from_slice(&self.context().to_bytes());
        for element in self.memo() {
            out.extend_from_slice(&element.as_canonical_u64().to_le_bytes());
        }
        out.extend_from_slice(&self.refund().to_bytes());
        out
    }

    /// Decodes [`TransitionPublicInputs::to_bytes`]: exact length, canonical elements,
    /// `exit < 2^62`, distinct nullifiers.
    ///
    /// # Errors
    /// [`ProofError::InvalidLength`], [`ProofError::NonCanonicalElement`],
    /// [`ProofError::AmountOutOfRange`] or [`ProofError::NullifiersNotDistinct`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ProofError> {
        check_length(bytes, "transition public inputs", TRANSITION_PUBLIC_INPUTS_BYTES)?;
        let mut reader = Reader { bytes };
        let root = reader.digest("root")?;
        let nullifiers = [reader.digest("nullifier")?, reader.digest("nullifier")?];
        let outputs = [reader.digest("output")?, reader.digest("output")?];
        let exit = reader.u64();
        let context = reader.digest("context")?;
        let mut memo = [Felt::ZERO; 2];
        for (index, element) in memo.iter_mut().enumerate() {
            let word = reader.u64();
            if word >= MODULUS {
                return Err(ProofError::NonCanonicalElement { what: "memo", index });
            }
            *element = Felt::from_u64(word);
        }
        let refund = reader.digest("refund")?;
        Self::new(root, nullifiers, outputs, exit, context, memo, refund)
    }
}

impl TransitionWitness {
    /// The 2232-byte encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TRANSITION_WITNESS_BYTES);
        out.extend_from_slice(&self.spending_key.to_bytes());
        for input in &self.inputs {
            out.extend_from_slice(&input.value.to_le_bytes());
            out.extend_from_slice(&input.rho.to_bytes());
            out.extend_from_slice(&input.index.to_le_bytes());
            for sibling in &input.path {
                out.extend_from_slice(&sibling.to_bytes());
            }
        }
        for value in [self.outputs[0], self.outputs[1], self.exit] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&self.context.to_bytes());
        out
    }

    /// Decodes [`TransitionWitness::to_bytes`] (exact length, canonical elements). Ranges are
    /// checked by [`TransitionWitness::derive`].
    ///
    /// # Errors
    /// [`ProofError::InvalidLength`] or [`ProofError::NonCanonicalElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ProofError> {
        check_length(bytes, "transition witness", TRANSITION_WITNESS_BYTES)?;
        let mut reader = Reader { bytes };
        let spending_key = reader.digest("spending key")?;
        let mut input = || -> Result<TransitionInput, ProofError> {
            let value = reader.u64();
            let rho = reader.digest("rho")?;
            let index = reader.u64();
            let mut path: MerklePath = [Digest::ZERO; DEPTH];
            for sibling in &mut path {
                *sibling = reader.digest("path")?;
            }
            Ok(TransitionInput { value, rho, index, path })
        };
        let inputs = [input()?, input()?];
        let outputs = [reader.u64(), reader.u64()];
        let exit = reader.u64();
        let context = reader.digest("context")?;
        Ok(Self { spending_key, inputs, outputs, exit, context })
    }
}
