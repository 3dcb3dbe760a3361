//! A set of parameter-set ids as one bit mask (ids are below 32): what the spend verifier's and the
//! transition verifier's accepted lists hold, each over its own catalogue of known sets.

use crate::errors::ProofError;

/// Bit `i` set: id `i` is in the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IdMask(u32);

impl IdMask {
    /// No id.
    pub(crate) const EMPTY: Self = Self(0);

    /// This set with `id` added (`id` below 32: every known set's is).
    pub(crate) const fn with(self, id: u8) -> Self {
        Self(self.0 | 1 << id)
    }

    /// Whether `id` is in the set.
    pub(crate) const fn contains(self, id: u8) -> bool {
        id < 32 && self.0 & (1 << id) != 0
    }

    /// Exactly these ids (any order, duplicates ignored), each one `known` says exists.
    ///
    /// # Errors
    /// [`ProofError::InvalidLength`] (naming `what`) for an empty list,
    /// [`ProofError::UnsupportedParameterSet`] for an id `known` refuses.
    pub(crate) fn from_ids(
        ids: &[u8],
        what: &'static str,
        known: impl Fn(u8) -> bool,
    ) -> Result<Self, ProofError> {
        if ids.is_empty() {
            return Err(ProofError::InvalidLength { what, expected: 1, got: 0 });
        }
        ids.iter().try_fold(Self::EMPTY, |mask, &id| {
            if known(id) {
                Ok(mask.with(id))
            } else {
                Err(ProofError::UnsupportedParameterSet { got: id })
            }
        })
    }
}
