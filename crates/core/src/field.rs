//! Goldilocks field elements and their canonical byte encoding (8 bytes, little-endian, < p).

use alloc::vec::Vec;

use p3_field::{PrimeCharacteristicRing, PrimeField64};
use p3_goldilocks::Goldilocks;

use crate::errors::CoreError;

/// A Goldilocks field element, p = 2^64 - 2^32 + 1.
pub type Felt = Goldilocks;

/// The field modulus.
pub const MODULUS: u64 = Goldilocks::ORDER_U64;

/// Bytes of one encoded element.
pub const ELEMENT_BYTES: usize = 8;

/// Converts a `u64` that must already be canonical (below p).
///
/// # Errors
/// [`CoreError::NonCanonicalElement`] when `value >= p`.
pub fn felt_from_canonical(
    value: u64,
    what: &'static str,
    index: usize,
) -> Result<Felt, CoreError> {
    if value < MODULUS {
        Ok(Felt::from_u64(value))
    } else {
        Err(CoreError::NonCanonicalElement { what, index })
    }
}

/// The canonical integer of an element.
pub fn felt_to_u64(value: Felt) -> u64 {
    value.as_canonical_u64()
}

/// Decodes a packed string of elements; the length must be a multiple of 8 and every element
/// canonical.
///
/// # Errors
/// [`CoreError::InvalidLength`] or [`CoreError::NonCanonicalElement`].
pub fn felts_from_bytes(bytes: &[u8], what: &'static str) -> Result<Vec<Felt>, CoreError> {
    if !bytes.len().is_multiple_of(ELEMENT_BYTES) {
        return Err(CoreError::InvalidLength {
            what,
            expected: bytes.len().next_multiple_of(ELEMENT_BYTES),
            got: bytes.len(),
        });
    }
    bytes
        .chunks_exact(ELEMENT_BYTES)
        .enumerate()
        .map(|(index, chunk)| {
            let mut word = [0u8; ELEMENT_BYTES];
            word.copy_from_slice(chunk);
            felt_from_canonical(u64::from_le_bytes(word), what, index)
        })
        .collect()
}

/// Decodes exactly `N` elements.
///
/// # Errors
/// As [`felts_from_bytes`], and [`CoreError::InvalidLength`] when the count is not `N`.
pub fn felt_array_from_bytes<const N: usize>(
    bytes: &[u8],
    what: &'static str,
) -> Result<[Felt; N], CoreError> {
    if bytes.len() != N * ELEMENT_BYTES {
        return Err(CoreError::InvalidLength {
            what,
            expected: N * ELEMENT_BYTES,
            got: bytes.len(),
        });
    }
    let elements = felts_from_bytes(bytes, what)?;
    let mut out = [Felt::ZERO; N];
    out.copy_from_slice(&elements);
    Ok(out)
}

/// Appends the canonical encoding of each element to `out`.
pub fn felts_to_bytes_into(elements: &[Felt], out: &mut Vec<u8>) {
    for element in elements {
        out.extend_from_slice(&felt_to_u64(*element).to_le_bytes());
    }
}

/// The canonical encoding of a slice of elements.
pub fn felts_to_bytes(elements: &[Felt]) -> Vec<u8> {
    let mut out = Vec::with_capacity(elements.len() * ELEMENT_BYTES);
    felts_to_bytes_into(elements, &mut out);
    out
}
