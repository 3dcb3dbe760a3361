//! One encoding per proof.
//!
//! Postcard's decoder accepts more than its encoder writes: a varint may be padded with
//! continuation bytes (a length of 1 written `81 00` decodes as `01`). The transcript absorbs the
//! decoded values, not the bytes, so a padded copy of a valid proof verifies too, and anything
//! that names a proof by its bytes (the compact payments' reference, a stored row) would see two
//! proofs. The verifier therefore accepts a body only if encoding what it decoded gives back the
//! same bytes.
//!
//! The comparison runs inside the encoder ([`Compare`] is a postcard flavor that checks each
//! byte as it would be written), so it allocates nothing and stops at the first difference.

use postcard::ser_flavors::Flavor;
use serde::Serialize;

/// Whether postcard encodes `value` to exactly `bytes`.
pub fn encodes_to<T: Serialize + ?Sized>(value: &T, bytes: &[u8]) -> bool {
    postcard::serialize_with_flavor(value, Compare { expected: bytes }).is_ok()
}

/// A postcard output that compares instead of writing: any byte that differs from `expected`,
/// or any byte past its end, fails the encoding; so does an encoding shorter than `expected`.
struct Compare<'a> {
    /// The bytes not yet matched.
    expected: &'a [u8],
}

impl Flavor for Compare<'_> {
    type Output = ();

    // Most of a proof arrives a byte at a time (digests are byte arrays): kept to one compare.
    #[inline]
    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        match self.expected.split_first() {
            Some((&first, rest)) if first == byte => {
                self.expected = rest;
                Ok(())
            }
            _ => Err(postcard::Error::SerializeBufferFull),
        }
    }

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        match self.expected.split_at_checked(data.len()) {
            Some((head, rest)) if head == data => {
                self.expected = rest;
                Ok(())
            }
            // Postcard has no "mismatch" error; any error ends the encoding.
            _ => Err(postcard::Error::SerializeBufferFull),
        }
    }

    fn finalize(self) -> postcard::Result<()> {
        if self.expected.is_empty() { Ok(()) } else { Err(postcard::Error::SerializeBufferFull) }
    }
}
