//! The payment context digest `ctx`, which binds a proof to one payment.
//!
//! `ctx = H_CONTEXT(encode(scheme, network, asset, payTo, amount, resourceId, expiry))`, fields in
//! this order. A string is one element holding its UTF-8 byte length followed by its bytes packed
//! 7 per element, little-endian (the last element zero-filled); `amount` and `expiry` are one
//! element each. The TypeScript side recomputes nothing: it calls this through the bindings, and
//! `test/vectors/context.json` pins the result for both languages.

use alloc::vec::Vec;

use p3_field::PrimeCharacteristicRing;

use crate::{
    digest::Digest,
    errors::CoreError,
    field::{Felt, MODULUS},
    notes::check_value,
    sponge::{Domain, hash_elements},
};

/// Bytes packed into one element (56 bits, always below p).
pub const BYTES_PER_ELEMENT: usize = 7;

/// Maximum UTF-8 lengths, in bytes.
pub const MAX_SCHEME: usize = 32;
/// See [`MAX_SCHEME`].
pub const MAX_NETWORK: usize = 64;
/// See [`MAX_SCHEME`].
pub const MAX_ASSET: usize = 64;
/// See [`MAX_SCHEME`].
pub const MAX_PAY_TO: usize = 128;
/// See [`MAX_SCHEME`].
pub const MAX_RESOURCE_ID: usize = 256;

/// The fields of one payment that a proof commits to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaymentContext<'a> {
    /// `priv-stark/v1`.
    pub scheme: &'a str,
    /// `shielded:<pool id>`.
    pub network: &'a str,
    /// The pool's one asset.
    pub asset: &'a str,
    /// The recipient's shielded address.
    pub pay_to: &'a str,
    /// Atomic units, `0 < amount < 2^62`.
    pub amount: u64,
    /// The merchant's route identifier; empty when absent.
    pub resource_id: &'a str,
    /// Unix seconds.
    pub expiry: u64,
}

impl PaymentContext<'_> {
    /// The field elements that are hashed.
    ///
    /// # Errors
    /// [`CoreError::FieldTooLong`] for an over-long string, [`CoreError::ValueOutOfRange`] for an
    /// amount of 0 or at least 2^62, [`CoreError::NonCanonicalElement`] for an expiry not below p.
    pub fn encode(&self) -> Result<Vec<Felt>, CoreError> {
        let mut out = Vec::new();
        push_string(&mut out, self.scheme, "scheme", MAX_SCHEME)?;
        push_string(&mut out, self.network, "network", MAX_NETWORK)?;
        push_string(&mut out, self.asset, "asset", MAX_ASSET)?;
        push_string(&mut out, self.pay_to, "payTo", MAX_PAY_TO)?;
        if self.amount == 0 {
            return Err(CoreError::ValueOutOfRange { what: "amount" });
        }
        out.push(Felt::from_u64(check_value(self.amount, "amount")?));
        push_string(&mut out, self.resource_id, "resourceId", MAX_RESOURCE_ID)?;
        if self.expiry >= MODULUS {
            return Err(CoreError::NonCanonicalElement { what: "expiry", index: 0 });
        }
        out.push(Felt::from_u64(self.expiry));
        Ok(out)
    }

    /// `ctx`.
    ///
    /// # Errors
    /// As [`PaymentContext::encode`].
    pub fn digest(&self) -> Result<Digest, CoreError> {
        Ok(hash_elements(Domain::Context, &self.encode()?))
    }
}

fn push_string(
    out: &mut Vec<Felt>,
    text: &str,
    what: &'static str,
    max: usize,
) -> Result<(), CoreError> {
    let bytes = text.as_bytes();
    if bytes.len() > max {
        return Err(CoreError::FieldTooLong { what, max, got: bytes.len() });
    }
    out.push(Felt::from_usize(bytes.len()));
    for chunk in bytes.chunks(BYTES_PER_ELEMENT) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        out.push(Felt::from_u64(u64::from_le_bytes(word)));
    }
    Ok(())
}
