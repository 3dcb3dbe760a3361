//! The transition parameter sets a verifier accepts: a non-empty subset of
//! [`super::TRANSITION_SETS`], by default all of them. A pool node narrows it (for example to
//! `[17]` once no set-16 transition can still be in flight, which retires set 16's unproven memo
//! and wider output range) with [`AcceptedTransitionSets::new`].

use alloc::vec::Vec;

use super::proof::{TRANSITION_SETS, TransitionSet, transition_set};
use crate::{errors::ProofError, id_mask::IdMask};

/// A set of transition parameter-set ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcceptedTransitionSets {
    mask: IdMask,
}

impl AcceptedTransitionSets {
    /// The default: every transition set the crate knows.
    pub const DEFAULT: Self = {
        let mut mask = IdMask::EMPTY;
        let mut i = 0;
        while i < TRANSITION_SETS.len() {
            mask = mask.with(TRANSITION_SETS[i].params.id);
            i += 1;
        }
        Self { mask }
    };

    /// Accepts exactly the transition sets with these ids (in any order, duplicates ignored).
    ///
    /// # Errors
    /// [`ProofError::InvalidLength`] for an empty list, [`ProofError::UnsupportedParameterSet`]
    /// for an id that is not a transition set.
    pub fn new(ids: &[u8]) -> Result<Self, ProofError> {
        let known = |id| transition_set(id).is_some();
        Ok(Self { mask: IdMask::from_ids(ids, "accepted transition parameter sets", known)? })
    }

    /// Whether transition proofs of set `id` are accepted.
    pub const fn contains(&self, id: u8) -> bool {
        self.mask.contains(id)
    }

    /// The accepted sets, newest first.
    pub fn sets(&self) -> impl Iterator<Item = &'static TransitionSet> + '_ {
        TRANSITION_SETS.iter().filter(|set| self.contains(set.params.id))
    }

    /// The accepted ids, newest first.
    pub fn ids(&self) -> Vec<u8> {
        self.sets().map(|set| set.params.id).collect()
    }
}

impl Default for AcceptedTransitionSets {
    fn default() -> Self {
        Self::DEFAULT
    }
}
