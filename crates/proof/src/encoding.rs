//! Byte encodings: the proof header, the public inputs and the witness.
//!
//! * **Proof** = `magic "PSSP"` ‖ `format version (1 byte)` ‖ `parameter-set id (1 byte)` ‖
//!   `postcard(Proof)` (Plonky3 0.8.0's serde layout; field elements are 8 bytes little-endian and
//!   must be canonical). At most [`MAX_PROOF_BYTES`].
//! * **Public inputs** (136 bytes) = `root (32)` ‖ `nf (32)` ‖ `change (32)` ‖
//!   `amount (u64 LE, 8)` ‖ `ctx (32)`; a digest is 4 canonical u64 little-endian elements.
//! * **Witness** (1144 bytes) = `sk (32)` ‖ `v (u64 LE)` ‖ `rho (32)` ‖ `index (u64 LE)` ‖
//!   `path (32 × 32, leaf level first)` ‖ `amount (u64 LE)` ‖ `ctx (32)`.

use alloc::vec::Vec;

use priv_stark_core::{
    Digest,
    digest::DIGEST_BYTES,
    tree::{DEPTH, MerklePath},
};

use crate::{
    errors::ProofError,
    statement::{PublicInputs, SpendWitness, check_amount},
};

/// The first four bytes of every spend proof.
pub const PROOF_MAGIC: [u8; 4] = *b"PSSP";
/// Version of the proof format (header, AIR, Plonky3 serialization).
pub const FORMAT_VERSION: u8 = 1;
/// Bytes of the header.
pub const HEADER_BYTES: usize = PROOF_MAGIC.len() + 2;
/// Largest proof accepted: 128 KiB (the profile's limit; honest proofs are far smaller).
pub const MAX_PROOF_BYTES: usize = 128 * 1024;
/// Bytes of encoded public inputs.
pub const PUBLIC_INPUTS_BYTES: usize = 3 * DIGEST_BYTES + 8 + DIGEST_BYTES;
/// Bytes of an encoded witness.
pub const WITNESS_BYTES: usize =
    DIGEST_BYTES + 8 + DIGEST_BYTES + 8 + DEPTH * DIGEST_BYTES + 8 + DIGEST_BYTES;
/// Bytes of a prover seed.
pub const SEED_BYTES: usize = 32;

/// The header of a proof with parameter set `parameter_set`.
pub fn proof_header(parameter_set: u8) -> [u8; HEADER_BYTES] {
    proof_header_of(PROOF_MAGIC, parameter_set)
}

/// The header of a proof of the statement whose magic is `magic`.
pub fn proof_header_of(magic: [u8; 4], parameter_set: u8) -> [u8; HEADER_BYTES] {
    let mut header = [0u8; HEADER_BYTES];
    header[..4].copy_from_slice(&magic);
    header[4] = FORMAT_VERSION;
    header[5] = parameter_set;
    header
}

/// Checks the size and header of `proof` and returns the parameter-set id it names and the body.
/// Whether that set is accepted is the verifier's decision.
///
/// # Errors
/// [`ProofError::ProofTooLarge`], [`ProofError::ProofTooShort`], [`ProofError::BadMagic`] or
/// [`ProofError::UnsupportedVersion`].
pub fn split_header(proof: &[u8]) -> Result<(u8, &[u8]), ProofError> {
    split_header_of(proof, PROOF_MAGIC)
}

/// [`split_header`] for the proofs of a statement whose magic is `magic`.
///
/// # Errors
/// As [`split_header`].
pub fn split_header_of(proof: &[u8], magic: [u8; 4]) -> Result<(u8, &[u8]), ProofError> {
    if proof.len() > MAX_PROOF_BYTES {
        return Err(ProofError::ProofTooLarge { max: MAX_PROOF_BYTES, got: proof.len() });
    }
    if proof.len() < HEADER_BYTES {
        return Err(ProofError::ProofTooShort { got: proof.len() });
    }
    if proof[..4] != magic {
        return Err(ProofError::BadMagic);
    }
    if proof[4] != FORMAT_VERSION {
        return Err(ProofError::UnsupportedVersion { expected: FORMAT_VERSION, got: proof[4] });
    }
    Ok((proof[5], &proof[HEADER_BYTES..]))
}

/// A cursor over a fixed-length encoding that never reads past the end.
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, len: usize) -> &'a [u8] {
        let (head, tail) = self.bytes.split_at(len.min(self.bytes.len()));
        self.bytes = tail;
        head
    }

    pub(crate) fn digest(&mut self, what: &'static str) -> Result<Digest, ProofError> {
        Ok(Digest::from_bytes(self.take(DIGEST_BYTES), what)?)
    }

    pub(crate) fn u64(&mut self) -> u64 {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8));
        u64::from_le_bytes(word)
    }
}

pub(crate) fn check_length(
    bytes: &[u8],
    what: &'static str,
    expected: usize,
) -> Result<(), ProofError> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(ProofError::InvalidLength { what, expected, got: bytes.len() })
    }
}

impl PublicInputs {
    /// The 136-byte encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PUBLIC_INPUTS_BYTES);
        out.extend_from_slice(&self.root().to_bytes());
        out.extend_from_slice(&self.nullifier().to_bytes());
        out.extend_from_slice(&self.change().to_bytes());
        out.extend_from_slice(&self.amount().to_le_bytes());
        out.extend_from_slice(&self.context().to_bytes());
        out
    }

    /// Decodes [`PublicInputs::to_bytes`]: exact length, canonical elements, `0 < amount < 2^62`.
    ///
    /// # Errors
    /// [`ProofError::InvalidLength`], [`ProofError::NonCanonicalElement`] or
    /// [`ProofError::AmountOutOfRange`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ProofError> {
        check_length(bytes, "public inputs", PUBLIC_INPUTS_BYTES)?;
        let mut reader = Reader { bytes };
        let root = reader.digest("root")?;
        let nullifier = reader.digest("nullifier")?;
        let change = reader.digest("change")?;
        let amount = check_amount(reader.u64())?;
        let context = reader.digest("context")?;
        Self::new(root, nullifier, change, amount, context)
    }
}

impl SpendWitness {
    /// The 1144-byte encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(WITNESS_BYTES);
        out.extend_from_slice(&self.spending_key.to_bytes());
        out.extend_from_slice(&self.value.to_le_bytes());
        out.extend_from_slice(&self.rho.to_bytes());
        out.extend_from_slice(&self.index.to_le_bytes());
        for sibling in &self.path {
            out.extend_from_slice(&sibling.to_bytes());
        }
        out.extend_from_slice(&self.amount.to_le_bytes());
        out.extend_from_slice(&self.context.to_bytes());
        out
    }

    /// Decodes [`SpendWitness::to_bytes`] (exact length, canonical elements). Ranges are
    /// checked by [`SpendWitness::derive`].
    ///
    /// # Errors
    /// [`ProofError::InvalidLength`] or [`ProofError::NonCanonicalElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ProofError> {
        check_length(bytes, "witness", WITNESS_BYTES)?;
        let mut reader = Reader { bytes };
        let spending_key = reader.digest("spending key")?;
        let value = reader.u64();
        let rho = reader.digest("rho")?;
        let index = reader.u64();
        let mut path: MerklePath = [Digest::ZERO; DEPTH];
        for sibling in &mut path {
            *sibling = reader.digest("path")?;
        }
        let amount = reader.u64();
        let context = reader.digest("context")?;
        Ok(Self { spending_key, value, rho, index, path, amount, context })
    }
}
