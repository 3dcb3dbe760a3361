//! A digest: four Goldilocks elements. On the wire, `0x` + 64 lowercase hex digits of the 32
//! bytes (4 × u64 little-endian, each canonical); every other spelling is rejected, so one value
//! has exactly one encoding.

use alloc::string::String;

use p3_field::PrimeCharacteristicRing;

use crate::{
    errors::CoreError,
    field::{Felt, felt_array_from_bytes, felt_to_u64},
};

/// Elements in a digest.
pub const DIGEST_ELEMENTS: usize = 4;
/// Bytes in an encoded digest.
pub const DIGEST_BYTES: usize = 32;
/// Characters in a hex-encoded digest, `0x` included.
pub const DIGEST_HEX_CHARS: usize = 2 + 2 * DIGEST_BYTES;

/// Four field elements: a hash output, a key, a `rho` or a Merkle node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Digest(pub [Felt; DIGEST_ELEMENTS]);

impl Digest {
    /// The all-zero digest, which is also the empty leaf of the pool tree.
    pub const ZERO: Self = Self([Felt::ZERO; DIGEST_ELEMENTS]);

    /// The elements.
    pub const fn elements(&self) -> &[Felt; DIGEST_ELEMENTS] {
        &self.0
    }

    /// Decodes 32 bytes.
    ///
    /// # Errors
    /// [`CoreError::InvalidLength`] or [`CoreError::NonCanonicalElement`].
    pub fn from_bytes(bytes: &[u8], what: &'static str) -> Result<Self, CoreError> {
        felt_array_from_bytes::<DIGEST_ELEMENTS>(bytes, what).map(Self)
    }

    /// The 32-byte encoding.
    pub fn to_bytes(&self) -> [u8; DIGEST_BYTES] {
        let mut out = [0u8; DIGEST_BYTES];
        for (chunk, element) in out.chunks_exact_mut(8).zip(self.0) {
            chunk.copy_from_slice(&felt_to_u64(element).to_le_bytes());
        }
        out
    }

    /// Parses the wire encoding.
    ///
    /// # Errors
    /// [`CoreError::InvalidHex`] for a wrong length, prefix or digit (uppercase included), and
    /// [`CoreError::NonCanonicalElement`] when an element is not below p.
    pub fn from_hex(text: &str, what: &'static str) -> Result<Self, CoreError> {
        let raw = text.as_bytes();
        if raw.len() != DIGEST_HEX_CHARS || &raw[..2] != b"0x" {
            return Err(CoreError::InvalidHex { what });
        }
        let mut bytes = [0u8; DIGEST_BYTES];
        for (byte, pair) in bytes.iter_mut().zip(raw[2..].chunks_exact(2)) {
            let high = hex_value(pair[0]).ok_or(CoreError::InvalidHex { what })?;
            let low = hex_value(pair[1]).ok_or(CoreError::InvalidHex { what })?;
            *byte = (high << 4) | low;
        }
        Self::from_bytes(&bytes, what)
    }

    /// The wire encoding.
    pub fn to_hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(DIGEST_HEX_CHARS);
        out.push_str("0x");
        for byte in self.to_bytes() {
            out.push(DIGITS[usize::from(byte >> 4)] as char);
            out.push(DIGITS[usize::from(byte & 0x0f)] as char);
        }
        out
    }
}

/// Lowercase hex digits only: the encoding is canonical.
const fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}
