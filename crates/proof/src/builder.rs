//! A witness builder for tests, examples and wallets' integration tests: a note from a key and a
//! value, placed among other random leaves of a [`MerkleTree`], and a valid [`SpendWitness`] with
//! its [`PublicInputs`].

use alloc::vec::Vec;

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{Digest, Felt, field::MODULUS, notes, tree::MerkleTree};
use rand::Rng;

use crate::{
    errors::ProofError,
    statement::{PublicInputs, SpendWitness},
};

/// A uniformly random field element.
pub fn random_felt(rng: &mut impl Rng) -> Felt {
    loop {
        let candidate = rng.next_u64();
        if candidate < MODULUS {
            return Felt::from_u64(candidate);
        }
    }
}

/// A uniformly random digest (a key, a `rho`, or a stand-in leaf).
pub fn random_digest(rng: &mut impl Rng) -> Digest {
    Digest([random_felt(rng), random_felt(rng), random_felt(rng), random_felt(rng)])
}

/// A note of the spender: its key, value and randomness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    /// The owner's spending key.
    pub spending_key: Digest,
    /// The value, below 2^62.
    pub value: u64,
    /// The randomness.
    pub rho: Digest,
}

impl Note {
    /// A note of `value` for `spending_key` with random `rho`.
    pub fn random(rng: &mut impl Rng, spending_key: Digest, value: u64) -> Self {
        Self { spending_key, value, rho: random_digest(rng) }
    }

    /// `cm = H_NOTE(v, H_PRE(H_OWNER(sk), rho))`.
    ///
    /// # Errors
    /// [`ProofError::ValueOutOfRange`] when the value is not below 2^62.
    pub fn commitment(&self) -> Result<Digest, ProofError> {
        let owner = notes::owner(&self.spending_key);
        notes::note_commitment(self.value, &notes::precommitment(&owner, &self.rho))
            .map_err(|_| ProofError::ValueOutOfRange { value: self.value })
    }
}

/// A pool tree holding one spendable note, and a spend of it.
#[derive(Clone, Debug)]
pub struct SpendScenario {
    /// The leaves of the tree.
    pub leaves: Vec<Digest>,
    /// The tree.
    pub tree: MerkleTree,
    /// The spent note.
    pub note: Note,
    /// The witness of the spend.
    pub witness: SpendWitness,
    /// Its public inputs.
    pub public_inputs: PublicInputs,
}

/// Places `note` at `index` among `other_leaves` random leaves and spends `amount` of it in the
/// payment context `context`.
///
/// # Errors
/// As [`SpendWitness::derive`], or [`ProofError::IndexOutOfRange`] when `index` is beyond the
/// other leaves.
pub fn build_spend(
    rng: &mut impl Rng,
    note: Note,
    other_leaves: usize,
    index: usize,
    amount: u64,
    context: Digest,
) -> Result<SpendScenario, ProofError> {
    if index > other_leaves {
        return Err(ProofError::IndexOutOfRange { index: index as u64 });
    }
    let mut leaves: Vec<Digest> = (0..other_leaves).map(|_| random_digest(rng)).collect();
    leaves.insert(index, note.commitment()?);
    let tree = MerkleTree::from_leaves(&leaves)?;
    let witness = SpendWitness {
        spending_key: note.spending_key,
        value: note.value,
        rho: note.rho,
        index: index as u64,
        path: tree.path(index as u64)?,
        amount,
        context,
    };
    let public_inputs = witness.public_inputs()?;
    debug_assert_eq!(public_inputs.root(), tree.root());
    Ok(SpendScenario { leaves, tree, note, witness, public_inputs })
}

/// A random spend: a random key, a note of `value` at a random position among `other_leaves`
/// random leaves, a random context.
///
/// # Errors
/// As [`build_spend`].
pub fn random_spend(
    rng: &mut impl Rng,
    value: u64,
    amount: u64,
    other_leaves: usize,
) -> Result<SpendScenario, ProofError> {
    let spending_key = random_digest(rng);
    let note = Note::random(rng, spending_key, value);
    let index = usize::try_from(rng.next_u64() % (other_leaves as u64 + 1)).unwrap_or(0);
    let context = random_digest(rng);
    build_spend(rng, note, other_leaves, index, amount, context)
}

/// A pool tree holding a key's notes, and a transition of them.
#[derive(Clone, Debug)]
pub struct TransitionScenario {
    /// The tree.
    pub tree: MerkleTree,
    /// The witness of the transition.
    pub witness: crate::transition::TransitionWitness,
    /// Its public inputs.
    pub public_inputs: crate::transition::TransitionPublicInputs,
}

/// Places the real notes among `other_leaves` random leaves (each note of `input_values` that is
/// nonzero is a real note of one random key; a 0 is a dummy input) and builds the transition to
/// `outputs` with `exit` leaving the pool, in context `context`.
///
/// # Errors
/// As [`crate::transition::TransitionWitness::derive`].
pub fn build_transition(
    rng: &mut impl Rng,
    input_values: [u64; 2],
    outputs: [u64; 2],
    exit: u64,
    other_leaves: usize,
    context: Digest,
) -> Result<TransitionScenario, ProofError> {
    use crate::transition::{TransitionInput, TransitionWitness};
    let spending_key = random_digest(rng);
    let notes = input_values.map(|value| Note::random(rng, spending_key, value));
    let mut leaves: Vec<Digest> = (0..other_leaves).map(|_| random_digest(rng)).collect();
    let mut indexes = [0u64; 2];
    for (note, index) in notes.iter().zip(&mut indexes) {
        if note.value != 0 {
            let at = usize::try_from(rng.next_u64() % (leaves.len() as u64 + 1)).unwrap_or(0);
            leaves.insert(at, note.commitment()?);
            *index = at as u64;
        }
    }
    // Insertions shift earlier positions: look the notes up in the final order.
    for (note, index) in notes.iter().zip(&mut indexes) {
        if note.value != 0 {
            let commitment = note.commitment()?;
            *index = leaves.iter().position(|leaf| *leaf == commitment).unwrap_or(0) as u64;
        }
    }
    let tree = MerkleTree::from_leaves(&leaves)?;
    let input = |i: usize| -> Result<TransitionInput, ProofError> {
        let note = &notes[i];
        let path = if note.value != 0 {
            tree.path(indexes[i])?
        } else {
            [Digest::ZERO; priv_stark_core::tree::DEPTH]
        };
        let index = if note.value != 0 { indexes[i] } else { 0 };
        Ok(TransitionInput { value: note.value, rho: note.rho, index, path })
    };
    let witness =
        TransitionWitness { spending_key, inputs: [input(0)?, input(1)?], outputs, exit, context };
    let public_inputs = witness.public_inputs()?;
    Ok(TransitionScenario { tree, witness, public_inputs })
}
