//! Shielded addresses: the recipient's `owner` digest as bech32m with the prefix `pstark`, so a
//! mistyped address fails its checksum instead of burning funds. Only the lowercase form is
//! accepted (one address, one spelling).

use alloc::string::String;

use bech32::{Bech32m, Hrp, primitives::decode::CheckedHrpstring};

use crate::{
    digest::{DIGEST_BYTES, Digest},
    errors::CoreError,
};

/// The human-readable prefix.
pub const ADDRESS_PREFIX: &str = "pstark";
/// Length of every address: prefix, separator, 52 data characters, 6 checksum characters.
pub const ADDRESS_CHARS: usize = ADDRESS_PREFIX.len() + 1 + 52 + 6;

/// Encodes an owner digest as an address.
pub fn encode_address(owner: &Digest) -> String {
    // The prefix is a valid constant and 32 bytes are far below bech32m's length limit.
    let hrp = Hrp::parse_unchecked(ADDRESS_PREFIX);
    bech32::encode_lower::<Bech32m>(hrp, &owner.to_bytes()).unwrap_or_default()
}

/// Decodes an address into its owner digest.
///
/// # Errors
/// [`CoreError::InvalidAddress`] for a wrong length, prefix, character, case or checksum, and
/// [`CoreError::NonCanonicalElement`] when the payload is not a canonical digest.
pub fn decode_address(text: &str) -> Result<Digest, CoreError> {
    if text.len() != ADDRESS_CHARS || text.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(CoreError::InvalidAddress);
    }
    let checked = CheckedHrpstring::new::<Bech32m>(text).map_err(|_| CoreError::InvalidAddress)?;
    if checked.hrp().as_str() != ADDRESS_PREFIX {
        return Err(CoreError::InvalidAddress);
    }
    let mut bytes = [0u8; DIGEST_BYTES];
    let mut count = 0;
    for byte in checked.byte_iter() {
        if count == DIGEST_BYTES {
            return Err(CoreError::InvalidAddress);
        }
        bytes[count] = byte;
        count += 1;
    }
    if count != DIGEST_BYTES {
        return Err(CoreError::InvalidAddress);
    }
    Digest::from_bytes(&bytes, "address")
}
