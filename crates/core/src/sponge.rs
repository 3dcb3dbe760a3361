//! Hashing with one domain tag per use, so two kinds of thing are never hashed the same way.
//!
//! The sponge layout is pinned here (it is this profile's, not miden-crypto's):
//! 1. the state starts at zero; capacity lane 8 holds the input length in elements and capacity
//!    lane 9 the domain tag;
//! 2. the input is absorbed 8 elements at a time by overwriting lanes 0..8 (the last block is
//!    zero-padded; an empty input is one all-zero block), with one permutation per block;
//! 3. the digest is lanes 0..4.
//!
//! Inputs of at most 8 elements (every tag but `CONTEXT`) cost exactly one permutation, and the
//! spend AIR pins every lane of its initial state.

use alloc::vec::Vec;

use p3_field::PrimeCharacteristicRing;

use crate::{
    digest::{DIGEST_ELEMENTS, Digest},
    errors::CoreError,
    field::Felt,
    rpo::{CAPACITY_START, RATE, State, permute, permute_batch},
};

/// Capacity lane holding the input length.
pub const LENGTH_LANE: usize = CAPACITY_START;
/// Capacity lane holding the domain tag.
pub const DOMAIN_LANE: usize = CAPACITY_START + 1;

/// The uses of the hash. The discriminant is the tag placed in [`DOMAIN_LANE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Domain {
    /// `owner = H_OWNER(sk)`.
    Owner = 1,
    /// `pre = H_PRE(owner, rho)`.
    Pre = 2,
    /// `cm = H_NOTE(v, pre)`.
    Note = 3,
    /// `node = H_NODE(left, right)`.
    Node = 4,
    /// `nf = H_NULLIFIER(sk, cm)`.
    Nullifier = 5,
    /// `ctx = H_CONTEXT(encode(payment))`.
    Context = 6,
    /// `rho = H_RECIPIENT_RHO(nf)` of a recipient note.
    RecipientRho = 7,
    /// `rho' = H_CHANGE_RHO(sk, nf)` of a change note.
    ChangeRho = 8,
    /// `rho = H_DEPOSIT_RHO(sk, counter)` of a deposited note.
    DepositRho = 9,
    /// `rho = H_TRANSITION_RHO_1(sk, nf₁)` of a transition's first output.
    TransitionRho1 = 10,
    /// `rho = H_TRANSITION_RHO_2(sk, nf₁)` of a transition's second output.
    TransitionRho2 = 11,
    /// `pad = H_TRANSITION_MEMO(sk, nf₁)`: masks a transition's output values in its memo.
    TransitionMemo = 12,
    /// `rho = H_REFUND_RHO(sk, nf₁)` of an exit's refund note (appended if its payout fails).
    RefundRho = 13,
}

impl Domain {
    /// Every domain, in tag order.
    pub const ALL: [Self; 13] = [
        Self::Owner,
        Self::Pre,
        Self::Note,
        Self::Node,
        Self::Nullifier,
        Self::Context,
        Self::RecipientRho,
        Self::ChangeRho,
        Self::DepositRho,
        Self::TransitionRho1,
        Self::TransitionRho2,
        Self::TransitionMemo,
        Self::RefundRho,
    ];

    /// The domain with tag `tag`.
    ///
    /// # Errors
    /// [`CoreError::UnknownDomain`] for any other number.
    pub fn from_tag(tag: u32) -> Result<Self, CoreError> {
        Self::ALL
            .into_iter()
            .find(|domain| *domain as u32 == tag)
            .ok_or(CoreError::UnknownDomain { tag })
    }

    /// The tag as a field element.
    pub fn tag(self) -> Felt {
        Felt::from_u32(self as u32)
    }
}

/// The initial state for hashing `len` elements in `domain`.
pub fn initial_state(domain: Domain, len: usize) -> State {
    let mut state = [Felt::ZERO; 12];
    state[LENGTH_LANE] = Felt::from_usize(len);
    state[DOMAIN_LANE] = domain.tag();
    state
}

/// Hashes `input` in `domain`.
pub fn hash_elements(domain: Domain, input: &[Felt]) -> Digest {
    let mut state = initial_state(domain, input.len());
    let mut blocks = input.chunks(RATE);
    let first = blocks.next().unwrap_or(&[]);
    absorb_block(&mut state, first);
    for block in blocks {
        absorb_block(&mut state, block);
    }
    let mut digest = [Felt::ZERO; DIGEST_ELEMENTS];
    digest.copy_from_slice(&state[..DIGEST_ELEMENTS]);
    Digest(digest)
}

/// [`hash_elements`] of each input, for inputs of one block (`N <= 8` elements): one permutation
/// each, run together ([`permute_batch`]) — a wallet's sync hashes pages of thousands.
pub fn hash_blocks<const N: usize>(domain: Domain, inputs: &[[Felt; N]]) -> Vec<Digest> {
    const { assert!(N <= RATE) };
    let mut states: Vec<State> = inputs
        .iter()
        .map(|input| {
            let mut state = initial_state(domain, N);
            state[..N].copy_from_slice(input);
            state
        })
        .collect();
    permute_batch(&mut states);
    states
        .iter()
        .map(|state| {
            let mut digest = [Felt::ZERO; DIGEST_ELEMENTS];
            digest.copy_from_slice(&state[..DIGEST_ELEMENTS]);
            Digest(digest)
        })
        .collect()
}

fn absorb_block(state: &mut State, block: &[Felt]) {
    for (i, lane) in state[..RATE].iter_mut().enumerate() {
        *lane = block.get(i).copied().unwrap_or(Felt::ZERO);
    }
    permute(state);
}

/// Hashes two digests in `domain` (one permutation).
pub fn hash_two(domain: Domain, left: &Digest, right: &Digest) -> Digest {
    hash_elements(domain, &two(left, right))
}

/// The input of [`hash_two`].
fn two(left: &Digest, right: &Digest) -> [Felt; 2 * DIGEST_ELEMENTS] {
    let mut input = [Felt::ZERO; 2 * DIGEST_ELEMENTS];
    input[..DIGEST_ELEMENTS].copy_from_slice(&left.0);
    input[DIGEST_ELEMENTS..].copy_from_slice(&right.0);
    input
}

/// A Merkle node: `H_NODE(left, right)`.
pub fn merge(left: &Digest, right: &Digest) -> Digest {
    hash_two(Domain::Node, left, right)
}

/// [`merge`] of each pair of consecutive digests (a trailing odd one is ignored), hashed together.
pub fn merge_pairs(nodes: &[Digest]) -> Vec<Digest> {
    let inputs: Vec<_> = nodes.chunks_exact(2).map(|pair| two(&pair[0], &pair[1])).collect();
    hash_blocks(Domain::Node, &inputs)
}
