//! The transition AIR: the permutation constraints of [`crate::rpo_air`] on every cycle, plus the
//! constraints that wire the permutations into the transition statement (see
//! [`super::layout`]). As in the spend AIR, selectors gating the same lane never fire on the same
//! row, so their terms share one constraint per lane.
//!
//! | constraint | degree |
//! |---|---|
//! | the RPO rounds | 4 |
//! | capacity: length, tag, zeros | 2 |
//! | rate lanes on the current row (key, owner, reg, pins, values, zeros) | 2 |
//! | the second input's root, gated by `v₂` | 3 |
//! | rate lanes from the previous output (`PrevHigh`, `NoteShift`, `Merkle`) | 3 |
//! | `Hold·(reg' − reg)`; `key, owner, vin, vout, real` constant | 2 |
//! | `v₁ + v₂ = w₁ + w₂ + exit` (every row) | 1 |
//! | `d_j (d_j − 1)`, `(1 − d_j) w_j` | 2 |
//! | first row: `v₁ · inv = 1` (the first input is worth something) | 3 |
//! | first row: `acc_j = w_j − d_j·MIN`; windows, keeps, last row: `acc_j = 0` | 2 |
//! | `bit·(bit − 1)` | 2 |
//! | revision two: `memo_j = pad_j + w_j` at the memo permutation's output | 2 |
//! | revision two: first row `wacc_j = w_j`; windows, keeps, last row `wacc_j = 0` | 2 |
//!
//! Revision one (set 16) emits exactly the constraints it always did, in the same order; revision
//! two's additions are a term in the lane constraints (a selector revision one does not have) and
//! constraints after all of revision one's.
//!
//! Value is conserved over the integers, not only mod p: `v₁, v₂` are values of notes in the
//! tree — below 2^62 + MIN (a deposit, payment or change is below 2^62; a transition output is
//! range-checked as `w − d·MIN < 2^62`, and in revision two as `w < 2^62` too) — or 0 for a dummy; `exit < 2^62` is checked by the
//! verifier; so both sides of the sum stay below `3 · 2^62 + 2·MIN < p` and are equal as integers
//! when equal mod p.

use alloc::{borrow::Cow, vec::Vec};
use core::array;

use p3_air::{Air, AirBuilder, BaseAir, WindowAccess};
use p3_field::PrimeCharacteristicRing;
use priv_stark_core::Felt;

use super::{
    layout::{
        COL_ACC, COL_BIT, COL_INV, COL_KEY, COL_OWNER, COL_REAL, COL_REG, COL_VIN, COL_VOUT,
        MIN_OUTPUT_VALUE, Revision, Selector, WINDOW_SELECTORS, periodic_columns, window_column,
    },
    statement::{
        NUM_PUBLIC_VALUES, PV_CONTEXT, PV_EXIT, PV_MEMO, PV_NULLIFIER_1, PV_NULLIFIER_2,
        PV_OUTPUT_1, PV_OUTPUT_2, PV_REFUND, PV_ROOT,
    },
};
use crate::rpo_air::{HASH_WIDTH, HashRow, NUM_ROUND_PERIODIC, eval_permutation};

/// Maximum constraint degree of the AIR (as the spend AIR's: the same quotient shape).
pub const MAX_CONSTRAINT_DEGREE: usize = 4;

/// The transition AIR of one [`Revision`]. Its periodic columns are computed once at
/// construction.
#[derive(Clone, Debug)]
pub struct TransitionAir {
    revision: Revision,
    periodic: Vec<Vec<Felt>>,
}

impl TransitionAir {
    /// The AIR of `revision` with its periodic columns.
    pub fn new(revision: Revision) -> Self {
        Self { revision, periodic: periodic_columns(revision) }
    }

    /// The AIR of `revision` shared by the prover and the verifier, built once.
    pub fn shared(revision: Revision) -> &'static Self {
        static ONE: spin::Lazy<TransitionAir> =
            spin::Lazy::new(|| TransitionAir::new(Revision::One));
        static TWO: spin::Lazy<TransitionAir> =
            spin::Lazy::new(|| TransitionAir::new(Revision::Two));
        match revision {
            Revision::One => &ONE,
            Revision::Two => &TWO,
        }
    }

    /// Which AIR this is.
    pub const fn revision(&self) -> Revision {
        self.revision
    }
}

impl BaseAir<Felt> for TransitionAir {
    fn width(&self) -> usize {
        self.revision.width()
    }

    fn num_public_values(&self) -> usize {
        NUM_PUBLIC_VALUES
    }

    fn num_periodic_columns(&self) -> usize {
        self.revision.num_periodic()
    }

    fn periodic_columns(&self) -> Cow<'_, [Vec<Felt>]> {
        Cow::Borrowed(&self.periodic)
    }

    fn max_constraint_degree(&self) -> Option<usize> {
        Some(MAX_CONSTRAINT_DEGREE)
    }
}

impl<AB: AirBuilder<F = Felt>> Air<AB> for TransitionAir {
    fn eval(&self, builder: &mut AB) {
        let main = builder.main();
        let local: Vec<AB::Var> = main.current_slice().to_vec();
        let next: Vec<AB::Var> = main.next_slice().to_vec();
        let periodic: Vec<AB::PeriodicVar> = builder.periodic_values().to_vec();
        let public: Vec<AB::Expr> = builder.public_values().iter().map(|&v| v.into()).collect();
        let is_transition = builder.is_transition();
        let is_first_row = builder.is_first_row();

        // 1. Every cycle is an RPO permutation.
        eval_permutation(
            builder,
            &HashRow::from_slice(&local[..HASH_WIDTH]),
            &HashRow::from_slice(&next[..HASH_WIDTH]),
            &periodic[..NUM_ROUND_PERIODIC],
        );

        let sel = |selector: Selector| -> AB::Expr { periodic[selector.column()].into() };
        let col = |i: usize| -> AB::Expr { local[i].into() };
        let col_next = |i: usize| -> AB::Expr { next[i].into() };
        let s: [AB::Expr; 12] = array::from_fn(col);
        let s_next: [AB::Expr; 12] = array::from_fn(col_next);
        let key: [AB::Expr; 4] = array::from_fn(|i| col(COL_KEY + i));
        let owner: [AB::Expr; 4] = array::from_fn(|i| col(COL_OWNER + i));
        let reg: [AB::Expr; 4] = array::from_fn(|i| col(COL_REG + i));
        let vin: [AB::Expr; 2] = array::from_fn(|i| col(COL_VIN + i));
        let vout: [AB::Expr; 2] = array::from_fn(|i| col(COL_VOUT + i));
        let real: [AB::Expr; 2] = array::from_fn(|i| col(COL_REAL + i));
        let acc: [AB::Expr; 2] = array::from_fn(|i| col(COL_ACC + i));
        let acc_next: [AB::Expr; 2] = array::from_fn(|i| col_next(COL_ACC + i));
        let bit = col(COL_BIT);
        let bit_next = col_next(COL_BIT);
        let pv = |offset: usize, i: usize| public[offset + i].clone();
        let two = self.revision == Revision::Two;

        // 2. Capacity of every hash input: length, domain tag, zeros.
        let length = sel(Selector::Length);
        let tag = sel(Selector::Tag);
        builder.assert_zero(length.clone() * (s[8].clone() - length.clone()));
        builder.assert_zero(tag.clone() * (s[9].clone() - tag));
        builder.assert_zero(length.clone() * s[10].clone());
        builder.assert_zero(length * s[11].clone());

        // 3. Rate lanes 0..4 on the current row.
        for j in 0..4 {
            let lane = s[j].clone();
            let mut constraint = sel(Selector::KeyLow) * (lane.clone() - key[j].clone())
                + sel(Selector::OwnerLow) * (lane.clone() - owner[j].clone())
                + sel(Selector::RegLow) * (lane.clone() - reg[j].clone())
                + sel(Selector::PinRoot) * (lane.clone() - pv(PV_ROOT, j))
                + sel(Selector::PinRootIfReal) * vin[1].clone() * (lane.clone() - pv(PV_ROOT, j))
                + sel(Selector::PinNullifier1) * (lane.clone() - pv(PV_NULLIFIER_1, j))
                + sel(Selector::PinNullifier2) * (lane.clone() - pv(PV_NULLIFIER_2, j))
                + sel(Selector::PinOutput1) * (lane.clone() - pv(PV_OUTPUT_1, j))
                + sel(Selector::PinOutput2) * (lane.clone() - pv(PV_OUTPUT_2, j))
                + sel(Selector::PinRefund) * (lane.clone() - pv(PV_REFUND, j))
                + sel(Selector::PinContext) * (lane.clone() - pv(PV_CONTEXT, j));
            if two && j < 2 {
                // The memo masks each output value with the pad: `memo_j = pad_j + w_j`.
                constraint +=
                    sel(Selector::PinMemo) * (lane.clone() + vout[j].clone() - pv(PV_MEMO, j));
            }
            if j == 0 {
                constraint += sel(Selector::InputValue1) * (lane.clone() - vin[0].clone())
                    + sel(Selector::InputValue2) * (lane.clone() - vin[1].clone())
                    + sel(Selector::OutputValue1) * (lane.clone() - vout[0].clone())
                    + sel(Selector::OutputValue2) * (lane.clone() - vout[1].clone())
                    + sel(Selector::ExitValue) * (lane - pv(PV_EXIT, 0));
            }
            builder.assert_zero(constraint);
        }

        // 4. Rate lanes 4..8 on the current row.
        for j in 0..4 {
            let lane = s[4 + j].clone();
            let mut constraint = sel(Selector::ZeroHigh) * lane.clone()
                + sel(Selector::NullifierHigh) * (lane.clone() - pv(PV_NULLIFIER_1, j))
                + sel(Selector::RegHigh) * (lane.clone() - reg[j].clone());
            if j > 0 {
                constraint += sel(Selector::NoteZero) * lane;
            }
            builder.assert_zero(constraint);
        }

        // 5. Rate lanes of the next input from this row's output digest.
        for j in 0..4 {
            let digest = s[j].clone();
            let merkle = s_next[j].clone() - digest.clone()
                + bit_next.clone() * (s_next[4 + j].clone() - s_next[j].clone());
            builder.assert_zero(
                sel(Selector::PrevHigh) * (s_next[4 + j].clone() - digest.clone())
                    + sel(Selector::NoteShift) * (s_next[1 + j].clone() - digest)
                    + sel(Selector::Merkle) * merkle,
            );
        }

        // 6. Registers: `reg` is held between loads; the rest is constant.
        for (j, held) in reg.iter().enumerate() {
            builder.assert_zero(sel(Selector::Hold) * (col_next(COL_REG + j) - held.clone()));
        }
        for column in (COL_KEY..COL_REG).chain(COL_VIN..COL_ACC) {
            builder.assert_zero(is_transition.clone() * (col_next(column) - col(column)));
        }

        // 7. Value: conserved on every row; outputs real (≥ MIN) or dummies (0).
        builder.assert_zero(
            vin[0].clone() + vin[1].clone() - vout[0].clone() - vout[1].clone() - pv(PV_EXIT, 0),
        );
        builder.assert_zero(is_first_row.clone() * (vin[0].clone() * col(COL_INV) - AB::Expr::ONE));
        let min = AB::Expr::from_u64(MIN_OUTPUT_VALUE);
        for j in 0..2 {
            builder.assert_zero(real[j].clone() * (real[j].clone() - AB::Expr::ONE));
            builder.assert_zero((AB::Expr::ONE - real[j].clone()) * vout[j].clone());
            builder.assert_zero(
                is_first_row.clone()
                    * (acc[j].clone() - vout[j].clone() + real[j].clone() * min.clone()),
            );
        }

        // 8. Range checks: acc_j = Σ bit_i 2^i over its 62 window rows, then 0.
        let window_constraint = |k: usize, acc: AB::Expr, acc_next: AB::Expr| {
            let (window, keep) = WINDOW_SELECTORS[k];
            sel(keep) * (acc.clone() - acc_next.clone())
                + sel(window) * (acc.clone() - acc_next.clone() - acc_next - bit.clone())
                + sel(Selector::AccZero) * acc
        };
        for j in 0..2 {
            builder.assert_zero(window_constraint(j, acc[j].clone(), acc_next[j].clone()));
        }
        builder.assert_zero(bit.clone() * (bit.clone() - AB::Expr::ONE));

        // 9. Revision two: each output value itself below 2^62 (with `w_j − d_j·MIN < 2^62` above,
        // a real output is in [MIN, 2^62)), so every output is a note the core can open.
        if two {
            for (j, value) in vout.iter().enumerate() {
                let column = window_column(2 + j);
                let wacc = col(column);
                builder.assert_zero(is_first_row.clone() * (wacc.clone() - value.clone()));
                builder.assert_zero(window_constraint(2 + j, wacc, col_next(column)));
            }
        }
    }
}
