//! The spend statement: its witness, its public inputs, and the values in between.
//!
//! Public inputs `root, nf, change, amount, ctx`; witness `sk, v, rho, index, path`:
//!
//! 1. `owner = H_OWNER(sk)`, `cm = H_NOTE(v, H_PRE(owner, rho))`;
//! 2. `cm` is the leaf at `index` of the depth-32 tree with root `root`;
//! 3. `nf = H_NULLIFIER(sk, cm)`;
//! 4. `change = H_NOTE(v − amount, H_PRE(owner, H_CHANGE_RHO(sk, nf)))`, `0 ≤ v − amount < 2^62`;
//! 5. `ctx` is bound as a public input.
//!
//! [`SpendWitness::derive`] computes every intermediate value with the core's functions, which
//! are both the trace generator's source and the test oracle.

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{
    Digest, Felt,
    notes::{self, VALUE_LIMIT},
    tree::{self, CAPACITY, MerklePath},
};

use crate::errors::ProofError;

/// Field elements of the public inputs: root (4), nf (4), change (4), amount (1), ctx (4).
pub const NUM_PUBLIC_VALUES: usize = 17;
/// Index of `root` in the public values.
pub const PV_ROOT: usize = 0;
/// Index of `nf` in the public values.
pub const PV_NULLIFIER: usize = 4;
/// Index of `change` in the public values.
pub const PV_CHANGE: usize = 8;
/// Index of `amount` in the public values.
pub const PV_AMOUNT: usize = 12;
/// Index of `ctx` in the public values.
pub const PV_CONTEXT: usize = 13;

/// What a spend proof reveals.
///
/// Built only through [`PublicInputs::new`] (or [`PublicInputs::from_bytes`], or a witness),
/// which check `0 < amount < 2^62`; the fields are private, so every value of this type holds a
/// valid amount. This matters because the AIR sees the amount as a field element: an unchecked
/// `u64` of `p − 1` or of `p + k` would be reduced modulo p, and a proof of a trace whose change
/// note is worth `v + 1` would verify for an "amount" of `p − 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PublicInputs {
    root: Digest,
    nullifier: Digest,
    change: Digest,
    amount: u64,
    context: Digest,
}

impl PublicInputs {
    /// Public inputs with a checked amount.
    ///
    /// # Errors
    /// [`ProofError::AmountOutOfRange`] unless `0 < amount < 2^62`.
    pub const fn new(
        root: Digest,
        nullifier: Digest,
        change: Digest,
        amount: u64,
        context: Digest,
    ) -> Result<Self, ProofError> {
        match check_amount(amount) {
            Ok(amount) => Ok(Self { root, nullifier, change, amount, context }),
            Err(error) => Err(error),
        }
    }

    /// The anchor: a checkpoint root of the pool tree.
    pub const fn root(&self) -> Digest {
        self.root
    }

    /// The nullifier of the spent note.
    pub const fn nullifier(&self) -> Digest {
        self.nullifier
    }

    /// The commitment of the change note.
    pub const fn change(&self) -> Digest {
        self.change
    }

    /// The amount paid, `0 < amount < 2^62`.
    pub const fn amount(&self) -> u64 {
        self.amount
    }

    /// The payment context digest.
    pub const fn context(&self) -> Digest {
        self.context
    }

    /// The same inputs with another root.
    #[must_use]
    pub const fn with_root(self, root: Digest) -> Self {
        Self { root, ..self }
    }

    /// The same inputs with another nullifier.
    #[must_use]
    pub const fn with_nullifier(self, nullifier: Digest) -> Self {
        Self { nullifier, ..self }
    }

    /// The same inputs with another change commitment.
    #[must_use]
    pub const fn with_change(self, change: Digest) -> Self {
        Self { change, ..self }
    }

    /// The same inputs with another context.
    #[must_use]
    pub const fn with_context(self, context: Digest) -> Self {
        Self { context, ..self }
    }

    /// The same inputs with another amount, checked as in [`PublicInputs::new`].
    ///
    /// # Errors
    /// [`ProofError::AmountOutOfRange`] unless `0 < amount < 2^62`.
    pub const fn with_amount(self, amount: u64) -> Result<Self, ProofError> {
        Self::new(self.root, self.nullifier, self.change, amount, self.context)
    }

    /// The 17 public values in AIR order. The amount is below 2^62 < p, so its field element
    /// is the amount itself.
    pub fn to_field_elements(&self) -> [Felt; NUM_PUBLIC_VALUES] {
        debug_assert!(check_amount(self.amount).is_ok());
        let mut out = [Felt::ZERO; NUM_PUBLIC_VALUES];
        out[PV_ROOT..PV_ROOT + 4].copy_from_slice(&self.root.0);
        out[PV_NULLIFIER..PV_NULLIFIER + 4].copy_from_slice(&self.nullifier.0);
        out[PV_CHANGE..PV_CHANGE + 4].copy_from_slice(&self.change.0);
        out[PV_AMOUNT] = Felt::from_u64(self.amount);
        out[PV_CONTEXT..PV_CONTEXT + 4].copy_from_slice(&self.context.0);
        out
    }
}

/// Checks `0 < amount < 2^62`.
///
/// # Errors
/// [`ProofError::AmountOutOfRange`].
pub const fn check_amount(amount: u64) -> Result<u64, ProofError> {
    if amount == 0 || amount >= VALUE_LIMIT {
        Err(ProofError::AmountOutOfRange { amount })
    } else {
        Ok(amount)
    }
}

/// The prover's secret input, plus the two public values it is bound to (`amount`, `ctx`).
/// Its `Debug` output shows only the public part, so a witness never reaches a log.
#[derive(Clone, PartialEq, Eq)]
pub struct SpendWitness {
    /// The spending key.
    pub spending_key: Digest,
    /// The spent note's value.
    pub value: u64,
    /// The spent note's randomness.
    pub rho: Digest,
    /// The spent note's leaf index.
    pub index: u64,
    /// The authentication path of the leaf, leaf level first.
    pub path: MerklePath,
    /// The amount paid.
    pub amount: u64,
    /// The payment context digest.
    pub context: Digest,
}

impl core::fmt::Debug for SpendWitness {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SpendWitness")
            .field("amount", &self.amount)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// Every value the statement computes, in the order the trace computes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpendValues {
    /// `H_OWNER(sk)`.
    pub owner: Digest,
    /// `H_PRE(owner, rho)`.
    pub precommitment: Digest,
    /// `H_NOTE(v, pre)`: the spent leaf.
    pub commitment: Digest,
    /// The Merkle nodes above the leaf, level 1 first; the last one is the root.
    pub nodes: [Digest; tree::DEPTH],
    /// `H_NULLIFIER(sk, cm)`.
    pub nullifier: Digest,
    /// `H_CHANGE_RHO(sk, nf)`.
    pub change_rho: Digest,
    /// `H_PRE(owner, change_rho)`.
    pub change_precommitment: Digest,
    /// `v − amount`.
    pub change_value: u64,
    /// `H_NOTE(v − amount, change_pre)`.
    pub change: Digest,
}

impl SpendValues {
    /// The root the path leads to.
    pub const fn root(&self) -> Digest {
        self.nodes[tree::DEPTH - 1]
    }
}

impl SpendWitness {
    /// Checks the ranges the statement needs and computes every intermediate value.
    ///
    /// # Errors
    /// [`ProofError::AmountOutOfRange`], [`ProofError::ValueOutOfRange`],
    /// [`ProofError::InsufficientValue`] or [`ProofError::IndexOutOfRange`].
    pub fn derive(&self) -> Result<SpendValues, ProofError> {
        let amount = check_amount(self.amount)?;
        if self.value >= VALUE_LIMIT {
            return Err(ProofError::ValueOutOfRange { value: self.value });
        }
        if self.value < amount {
            return Err(ProofError::InsufficientValue { value: self.value, amount });
        }
        if self.index >= CAPACITY {
            return Err(ProofError::IndexOutOfRange { index: self.index });
        }
        let change_value = self.value - amount;
        let owner = notes::owner(&self.spending_key);
        let precommitment = notes::precommitment(&owner, &self.rho);
        let commitment = notes::note_commitment(self.value, &precommitment)?;
        let mut nodes = [Digest::ZERO; tree::DEPTH];
        let mut current = commitment;
        for (level, (node, sibling)) in nodes.iter_mut().zip(&self.path).enumerate() {
            current = if (self.index >> level) & 1 == 0 {
                priv_stark_core::sponge::merge(&current, sibling)
            } else {
                priv_stark_core::sponge::merge(sibling, &current)
            };
            *node = current;
        }
        let nullifier = notes::nullifier(&self.spending_key, &commitment);
        let change_rho = notes::change_rho(&self.spending_key, &nullifier);
        let change_precommitment = notes::precommitment(&owner, &change_rho);
        let change = notes::note_commitment(change_value, &change_precommitment)?;
        Ok(SpendValues {
            owner,
            precommitment,
            commitment,
            nodes,
            nullifier,
            change_rho,
            change_precommitment,
            change_value,
            change,
        })
    }

    /// The public inputs this witness proves.
    ///
    /// # Errors
    /// As [`SpendWitness::derive`].
    pub fn public_inputs(&self) -> Result<PublicInputs, ProofError> {
        let values = self.derive()?;
        Ok(self.public_inputs_from(&values))
    }

    /// Only after [`SpendWitness::derive`] has checked the amount.
    pub(crate) const fn public_inputs_from(&self, values: &SpendValues) -> PublicInputs {
        PublicInputs {
            root: values.root(),
            nullifier: values.nullifier,
            change: values.change,
            amount: self.amount,
            context: self.context,
        }
    }

    /// Checks that this witness proves exactly `expected`.
    ///
    /// # Errors
    /// As [`SpendWitness::derive`], then the first of [`ProofError::RootMismatch`],
    /// [`ProofError::NullifierMismatch`], [`ProofError::ChangeMismatch`],
    /// [`ProofError::AmountMismatch`], [`ProofError::ContextMismatch`] that applies.
    pub fn check_against(&self, expected: &PublicInputs) -> Result<SpendValues, ProofError> {
        let values = self.derive()?;
        let got = self.public_inputs_from(&values);
        if got.amount != expected.amount {
            return Err(ProofError::AmountMismatch);
        }
        if got.context != expected.context {
            return Err(ProofError::ContextMismatch);
        }
        if got.root != expected.root {
            return Err(ProofError::RootMismatch);
        }
        if got.nullifier != expected.nullifier {
            return Err(ProofError::NullifierMismatch);
        }
        if got.change != expected.change {
            return Err(ProofError::ChangeMismatch);
        }
        Ok(values)
    }
}
