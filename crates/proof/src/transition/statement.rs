//! The transition statement (merge, split, exit): its witness, its public inputs, and the values
//! in between.
//!
//! Public inputs `root, nf₁, nf₂, out₁, out₂, exit, ctx, memo, refund`; witness `sk`, two inputs
//! `(v_i, rho_i, index_i, path_i)` and two output values `w₁, w₂`:
//!
//! 1. `owner = H_OWNER(sk)`; for each input `cm_i = H_NOTE(v_i, H_PRE(owner, rho_i))` and
//!    `nf_i = H_NULLIFIER(sk, cm_i)`; the first input is a leaf under `root`, and so is the
//!    second unless `v₂ = 0` (a dummy: its nullifier is still published, so the number of real
//!    inputs does not show);
//! 2. for each output `out_j = H_NOTE(w_j, H_PRE(owner, H_TRANSITION_RHO_j(sk, nf₁)))`: outputs
//!    belong to the inputs' owner, with randomness recoverable from the key and the log; each
//!    `w_j` is 0 (a dummy) or at least [`MIN_OUTPUT_VALUE`], and below 2^62 (set 17; set 16's AIR
//!    proves only `w_j < 2^62 + MIN_OUTPUT_VALUE`);
//! 3. `v₁ + v₂ = w₁ + w₂ + exit` over the integers, `0 ≤ exit < 2^62` (an exit pays `exit` out
//!    of the pool; a merge or a split has `exit = 0`);
//! 4. `refund = H_NOTE(exit, H_PRE(owner, H_REFUND_RHO(sk, nf₁)))`: the note the pool appends
//!    for the owner if an exit's payout fails (proven, so the pool cannot refund to anyone else,
//!    and recoverable from the key); a merge or split's refund is a note of 0 that is never
//!    appended;
//! 5. `ctx` (what the transition is for: the pool, the expiry, an exit's destination) and `memo`
//!    are bound as public inputs. The memo is `w_j` masked by `H_TRANSITION_MEMO(sk, nf₁)` when
//!    [`TransitionWitness::derive`] computes it, so the owner's wallet recovers the values from the
//!    key; set 17's AIR proves that masking, set 16's does not (docs/proof.md §9);
//! 6. outside the AIR, [`check_public_rules`]: `exit < 2^62` and `nf₁ ≠ nf₂`.

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{
    Digest, Felt,
    notes::{self, VALUE_LIMIT},
    tree::{self, CAPACITY, MerklePath},
};

use super::layout::MIN_OUTPUT_VALUE;
use crate::errors::ProofError;

/// Field elements of the public inputs: root, nf₁, nf₂, out₁, out₂ (4 each), exit (1), ctx (4),
/// memo (2), refund (4).
pub const NUM_PUBLIC_VALUES: usize = 31;
/// Index of `root`.
pub const PV_ROOT: usize = 0;
/// Index of `nf₁`.
pub const PV_NULLIFIER_1: usize = 4;
/// Index of `nf₂`.
pub const PV_NULLIFIER_2: usize = 8;
/// Index of `out₁`.
pub const PV_OUTPUT_1: usize = 12;
/// Index of `out₂`.
pub const PV_OUTPUT_2: usize = 16;
/// Index of `exit`.
pub const PV_EXIT: usize = 20;
/// Index of `ctx`.
pub const PV_CONTEXT: usize = 21;
/// Index of `memo`.
pub const PV_MEMO: usize = 25;
/// Index of `refund`.
pub const PV_REFUND: usize = 27;

/// The rules on a transition's public inputs that the AIR does not prove, checked by the one
/// function every entry point calls: [`TransitionPublicInputs::new`] (and so every decoding of
/// public-input bytes: the wire functions and both bindings) and
/// [`crate::transition::verify_transition`] again just before the STARK check.
///
/// * `exit < 2^62`: the AIR reads `exit` as a field element, so an exit of `p + e` would verify as
///   `e` while the pool pays `p + e`, and one in `[2^62, p)` balances outputs worth more than the
///   inputs (`v₁ + v₂ = w₁ + w₂ + exit` holds over the integers only with `exit < 2^62`);
/// * `nf₁ ≠ nf₂`: the AIR proves each nullifier but not that they differ, so one note given as
///   both inputs would be spent twice in one transition (its value counted twice).
///
/// # Errors
/// [`ProofError::AmountOutOfRange`] unless `exit < 2^62`;
/// [`ProofError::NullifiersNotDistinct`] when `nf₁ = nf₂`.
pub fn check_public_rules(nullifiers: &[Digest; 2], exit: u64) -> Result<(), ProofError> {
    if exit >= VALUE_LIMIT {
        return Err(ProofError::AmountOutOfRange { amount: exit });
    }
    if nullifiers[0] == nullifiers[1] {
        return Err(ProofError::NullifiersNotDistinct);
    }
    Ok(())
}

/// What a transition proof reveals. Built only through [`TransitionPublicInputs::new`] (or a
/// witness, or bytes), which checks `exit < 2^62` and `nf₁ ≠ nf₂`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransitionPublicInputs {
    root: Digest,
    nullifiers: [Digest; 2],
    outputs: [Digest; 2],
    exit: u64,
    context: Digest,
    memo: [Felt; 2],
    refund: Digest,
}

impl TransitionPublicInputs {
    /// Public inputs with a checked exit amount and distinct nullifiers.
    ///
    /// # Errors
    /// [`ProofError::AmountOutOfRange`] unless `exit < 2^62`;
    /// [`ProofError::NullifiersNotDistinct`] when `nf₁ = nf₂`.
    pub fn new(
        root: Digest,
        nullifiers: [Digest; 2],
        outputs: [Digest; 2],
        exit: u64,
        context: Digest,
        memo: [Felt; 2],
        refund: Digest,
    ) -> Result<Self, ProofError> {
        check_public_rules(&nullifiers, exit)?;
        Ok(Self { root, nullifiers, outputs, exit, context, memo, refund })
    }

    /// Public inputs without [`check_public_rules`]: only for tests that show a verifier entry
    /// point runs it itself.
    #[cfg(test)]
    pub(crate) const fn unchecked(
        root: Digest,
        nullifiers: [Digest; 2],
        outputs: [Digest; 2],
        exit: u64,
        context: Digest,
        memo: [Felt; 2],
        refund: Digest,
    ) -> Self {
        Self { root, nullifiers, outputs, exit, context, memo, refund }
    }

    /// The anchor.
    pub const fn root(&self) -> Digest {
        self.root
    }

    /// The inputs' nullifiers.
    pub const fn nullifiers(&self) -> [Digest; 2] {
        self.nullifiers
    }

    /// The output commitments.
    pub const fn outputs(&self) -> [Digest; 2] {
        self.outputs
    }

    /// The amount leaving the pool (0 for a merge or a split).
    pub const fn exit(&self) -> u64 {
        self.exit
    }

    /// The transition context digest.
    pub const fn context(&self) -> Digest {
        self.context
    }

    /// The masked output values.
    pub const fn memo(&self) -> [Felt; 2] {
        self.memo
    }

    /// The refund note of an exit.
    pub const fn refund(&self) -> Digest {
        self.refund
    }

    /// The 31 public values in AIR order.
    pub fn to_field_elements(&self) -> [Felt; NUM_PUBLIC_VALUES] {
        let mut out = [Felt::ZERO; NUM_PUBLIC_VALUES];
        out[PV_ROOT..PV_ROOT + 4].copy_from_slice(&self.root.0);
        out[PV_NULLIFIER_1..PV_NULLIFIER_1 + 4].copy_from_slice(&self.nullifiers[0].0);
        out[PV_NULLIFIER_2..PV_NULLIFIER_2 + 4].copy_from_slice(&self.nullifiers[1].0);
        out[PV_OUTPUT_1..PV_OUTPUT_1 + 4].copy_from_slice(&self.outputs[0].0);
        out[PV_OUTPUT_2..PV_OUTPUT_2 + 4].copy_from_slice(&self.outputs[1].0);
        out[PV_EXIT] = Felt::from_u64(self.exit);
        out[PV_CONTEXT..PV_CONTEXT + 4].copy_from_slice(&self.context.0);
        out[PV_MEMO..PV_MEMO + 2].copy_from_slice(&self.memo);
        out[PV_REFUND..PV_REFUND + 4].copy_from_slice(&self.refund.0);
        out
    }
}

/// One input note of a transition. A dummy has value 0 and a fresh random `rho`; its index and
/// path are ignored (zeros by convention).
#[derive(Clone, PartialEq, Eq)]
pub struct TransitionInput {
    /// The note's value (0 for a dummy).
    pub value: u64,
    /// The note's randomness.
    pub rho: Digest,
    /// The note's leaf index.
    pub index: u64,
    /// The leaf's authentication path, leaf level first.
    pub path: MerklePath,
}

/// The prover's secret input, plus the public values it is bound to (`exit`, `ctx`). Its `Debug`
/// output shows only the public part.
#[derive(Clone, PartialEq, Eq)]
pub struct TransitionWitness {
    /// The spending key owning every input and output.
    pub spending_key: Digest,
    /// The two inputs; the first is always a real note of the tree.
    pub inputs: [TransitionInput; 2],
    /// The two output values (0 for a dummy output).
    pub outputs: [u64; 2],
    /// The amount leaving the pool.
    pub exit: u64,
    /// The transition context digest.
    pub context: Digest,
}

impl core::fmt::Debug for TransitionWitness {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TransitionWitness")
            .field("exit", &self.exit)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// Every value the statement computes for one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputValues {
    /// `H_PRE(owner, rho)`.
    pub precommitment: Digest,
    /// `H_NOTE(v, pre)`.
    pub commitment: Digest,
    /// The Merkle nodes above the leaf, level 1 first; the last one is the root reached.
    pub nodes: [Digest; tree::DEPTH],
    /// `H_NULLIFIER(sk, cm)`.
    pub nullifier: Digest,
}

/// Every value the statement computes for one output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputValues {
    /// `H_TRANSITION_RHO_j(sk, nf₁)`.
    pub rho: Digest,
    /// `H_PRE(owner, rho)`.
    pub precommitment: Digest,
    /// `H_NOTE(w, pre)`.
    pub commitment: Digest,
}

/// Every value the statement computes, in the order the trace computes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransitionValues {
    /// `H_OWNER(sk)`.
    pub owner: Digest,
    /// The two inputs.
    pub inputs: [InputValues; 2],
    /// The two outputs.
    pub outputs: [OutputValues; 2],
    /// The masked output values.
    pub memo: [Felt; 2],
    /// The refund note's values.
    pub refund: OutputValues,
}

impl TransitionWitness {
    /// Checks the ranges and rules the statement needs and computes every intermediate value.
    ///
    /// # Errors
    /// [`ProofError::FirstInputDummy`], [`ProofError::AmountOutOfRange`] (exit),
    /// [`ProofError::ValueOutOfRange`],
    /// [`ProofError::OutputBelowMinimum`], [`ProofError::ValuesNotConserved`],
    /// [`ProofError::IndexOutOfRange`], [`ProofError::RootMismatch`] (the two real inputs under
    /// different roots) or [`ProofError::NullifiersNotDistinct`].
    pub fn derive(&self) -> Result<TransitionValues, ProofError> {
        if self.exit >= VALUE_LIMIT {
            return Err(ProofError::AmountOutOfRange { amount: self.exit });
        }
        if self.inputs[0].value == 0 {
            return Err(ProofError::FirstInputDummy);
        }
        for input in &self.inputs {
            if input.value >= VALUE_LIMIT {
                return Err(ProofError::ValueOutOfRange { value: input.value });
            }
            if input.index >= CAPACITY {
                return Err(ProofError::IndexOutOfRange { index: input.index });
            }
        }
        for &value in &self.outputs {
            if value >= VALUE_LIMIT {
                return Err(ProofError::ValueOutOfRange { value });
            }
            if value != 0 && value < MIN_OUTPUT_VALUE {
                return Err(ProofError::OutputBelowMinimum { value });
            }
        }
        let inputs_total = self.inputs[0].value + self.inputs[1].value;
        if inputs_total != self.outputs[0] + self.outputs[1] + self.exit {
            return Err(ProofError::ValuesNotConserved);
        }
        let owner = notes::owner(&self.spending_key);
        let inputs = [self.input_values(&owner, 0)?, self.input_values(&owner, 1)?];
        if self.inputs[1].value != 0 && inputs[1].nodes[tree::DEPTH - 1] != inputs[0].root() {
            return Err(ProofError::RootMismatch);
        }
        let first = inputs[0].nullifier;
        if first == inputs[1].nullifier {
            return Err(ProofError::NullifiersNotDistinct);
        }
        let output = |j: usize| -> Result<OutputValues, ProofError> {
            let rho = notes::transition_rho(&self.spending_key, &first, j);
            let precommitment = notes::precommitment(&owner, &rho);
            let commitment = notes::note_commitment(self.outputs[j], &precommitment)?;
            Ok(OutputValues { rho, precommitment, commitment })
        };
        let outputs = [output(0)?, output(1)?];
        let memo = notes::transition_memo(&self.spending_key, &first, self.outputs);
        let refund_rho = notes::refund_rho(&self.spending_key, &first);
        let refund_pre = notes::precommitment(&owner, &refund_rho);
        let refund = OutputValues {
            rho: refund_rho,
            precommitment: refund_pre,
            commitment: notes::note_commitment(self.exit, &refund_pre)?,
        };
        Ok(TransitionValues { owner, inputs, outputs, memo, refund })
    }

    fn input_values(&self, owner: &Digest, i: usize) -> Result<InputValues, ProofError> {
        let input = &self.inputs[i];
        let precommitment = notes::precommitment(owner, &input.rho);
        let commitment = notes::note_commitment(input.value, &precommitment)?;
        let mut nodes = [Digest::ZERO; tree::DEPTH];
        let mut current = commitment;
        for (level, (node, sibling)) in nodes.iter_mut().zip(&input.path).enumerate() {
            current = if (input.index >> level) & 1 == 0 {
                priv_stark_core::sponge::merge(&current, sibling)
            } else {
                priv_stark_core::sponge::merge(sibling, &current)
            };
            *node = current;
        }
        let nullifier = notes::nullifier(&self.spending_key, &commitment);
        Ok(InputValues { precommitment, commitment, nodes, nullifier })
    }

    /// The public inputs this witness proves.
    ///
    /// # Errors
    /// As [`TransitionWitness::derive`].
    pub fn public_inputs(&self) -> Result<TransitionPublicInputs, ProofError> {
        let values = self.derive()?;
        Ok(self.public_inputs_from(&values))
    }

    /// Only after [`TransitionWitness::derive`] has checked the ranges.
    pub(crate) const fn public_inputs_from(
        &self,
        values: &TransitionValues,
    ) -> TransitionPublicInputs {
        TransitionPublicInputs {
            root: values.inputs[0].root(),
            nullifiers: [values.inputs[0].nullifier, values.inputs[1].nullifier],
            outputs: [values.outputs[0].commitment, values.outputs[1].commitment],
            exit: self.exit,
            context: self.context,
            memo: values.memo,
            refund: values.refund.commitment,
        }
    }

    /// Checks that this witness proves exactly `expected`.
    ///
    /// # Errors
    /// As [`TransitionWitness::derive`], then the first of [`ProofError::AmountMismatch`],
    /// [`ProofError::ContextMismatch`], [`ProofError::RootMismatch`],
    /// [`ProofError::NullifierMismatch`] and [`ProofError::OutputMismatch`] that applies.
    pub fn check_against(
        &self,
        expected: &TransitionPublicInputs,
    ) -> Result<TransitionValues, ProofError> {
        let values = self.derive()?;
        let got = self.public_inputs_from(&values);
        if got.exit != expected.exit {
            return Err(ProofError::AmountMismatch);
        }
        if got.context != expected.context {
            return Err(ProofError::ContextMismatch);
        }
        if got.root != expected.root {
            return Err(ProofError::RootMismatch);
        }
        if got.nullifiers != expected.nullifiers {
            return Err(ProofError::NullifierMismatch);
        }
        if got.outputs != expected.outputs
            || got.memo != expected.memo
            || got.refund != expected.refund
        {
            return Err(ProofError::OutputMismatch);
        }
        Ok(values)
    }
}

impl InputValues {
    /// The root the path leads to.
    pub const fn root(&self) -> Digest {
        self.nodes[tree::DEPTH - 1]
    }
}
