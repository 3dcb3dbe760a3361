//! The spend AIR: the permutation constraints of [`crate::rpo_air`] on every cycle, plus the
//! constraints that wire the permutations into the statement (see [`crate::layout`]).
//!
//! Row-specific constraints are gated by one-hot periodic selectors. Selectors that gate the
//! same lane never fire on the same row, so their terms are summed into one constraint per lane:
//! on every row at most one term is live, and the sum vanishes exactly when that term does.
//!
//! | constraint | degree |
//! |---|---|
//! | `t = (MDS(s) + ARK1)^3`, `u = s^3` | 3 |
//! | `ROUND · (u'^2 s' − MDS(t^2 a) − ARK2)` | 4 |
//! | capacity: `LEN·(s8 − LEN)`, `TAG·(s9 − TAG)`, `LEN·s10`, `LEN·s11` | 2 |
//! | rate lanes on the current row (key, reg, pins, values, zeros) | 2 |
//! | rate lanes from the previous output (`PrevHigh`, `NoteShift`, `Merkle`) | 3 |
//! | `Hold·(reg' − reg)`, `is_transition·(key' − key)` | 2 |
//! | `Keep·(acc − acc') + Window·(acc − 2 acc' − bit) + AccZero·acc` | 2 |
//! | `bit·(bit − 1)` | 2 |

use alloc::{borrow::Cow, vec::Vec};
use core::array;

use p3_air::{Air, AirBuilder, BaseAir, WindowAccess};
use p3_field::PrimeCharacteristicRing;
use priv_stark_core::Felt;

use crate::{
    layout::{
        COL_ACC, COL_BIT, COL_KEY, COL_REG, COL_S, NUM_PERIODIC, Selector, TRACE_WIDTH,
        periodic_columns,
    },
    rpo_air::{HASH_WIDTH, HashRow, NUM_ROUND_PERIODIC, eval_permutation},
    statement::{NUM_PUBLIC_VALUES, PV_AMOUNT, PV_CHANGE, PV_CONTEXT, PV_NULLIFIER, PV_ROOT},
};

/// Maximum constraint degree of the AIR.
pub const MAX_CONSTRAINT_DEGREE: usize = 4;

/// The spend AIR. Its periodic columns are computed once at construction.
#[derive(Clone, Debug)]
pub struct SpendAir {
    periodic: Vec<Vec<Felt>>,
}

impl Default for SpendAir {
    fn default() -> Self {
        Self::new()
    }
}

impl SpendAir {
    /// The AIR with its periodic columns.
    pub fn new() -> Self {
        Self { periodic: periodic_columns() }
    }

    /// The AIR shared by the prover and the verifier, built once.
    pub fn shared() -> &'static Self {
        static AIR: spin::Lazy<SpendAir> = spin::Lazy::new(SpendAir::new);
        &AIR
    }
}

impl BaseAir<Felt> for SpendAir {
    fn width(&self) -> usize {
        TRACE_WIDTH
    }

    fn num_public_values(&self) -> usize {
        NUM_PUBLIC_VALUES
    }

    fn num_periodic_columns(&self) -> usize {
        NUM_PERIODIC
    }

    fn periodic_columns(&self) -> Cow<'_, [Vec<Felt>]> {
        Cow::Borrowed(&self.periodic)
    }

    fn max_constraint_degree(&self) -> Option<usize> {
        Some(MAX_CONSTRAINT_DEGREE)
    }
}

impl<AB: AirBuilder<F = Felt>> Air<AB> for SpendAir {
    fn eval(&self, builder: &mut AB) {
        let main = builder.main();
        let local: Vec<AB::Var> = main.current_slice().to_vec();
        let next: Vec<AB::Var> = main.next_slice().to_vec();
        let periodic: Vec<AB::PeriodicVar> = builder.periodic_values().to_vec();
        let public: Vec<AB::Expr> = builder.public_values().iter().map(|&v| v.into()).collect();
        let is_transition = builder.is_transition();

        // 1. Every cycle is an RPO permutation.
        eval_permutation(
            builder,
            &HashRow::from_slice(&local[COL_S..HASH_WIDTH]),
            &HashRow::from_slice(&next[COL_S..HASH_WIDTH]),
            &periodic[..NUM_ROUND_PERIODIC],
        );

        let sel = |selector: Selector| -> AB::Expr { periodic[selector.column()].into() };
        let s: [AB::Expr; 12] = array::from_fn(|i| local[COL_S + i].into());
        let s_next: [AB::Expr; 12] = array::from_fn(|i| next[COL_S + i].into());
        let key: [AB::Expr; 4] = array::from_fn(|i| local[COL_KEY + i].into());
        let reg: [AB::Expr; 4] = array::from_fn(|i| local[COL_REG + i].into());
        let acc: AB::Expr = local[COL_ACC].into();
        let acc_next: AB::Expr = next[COL_ACC].into();
        let bit: AB::Expr = local[COL_BIT].into();
        let bit_next: AB::Expr = next[COL_BIT].into();
        let pv = |offset: usize, i: usize| public[offset + i].clone();

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
                + sel(Selector::RegLow) * (lane.clone() - reg[j].clone())
                + sel(Selector::PinChange) * (lane.clone() - pv(PV_CHANGE, j))
                + sel(Selector::PinRoot) * (lane.clone() - pv(PV_ROOT, j))
                + sel(Selector::PinNullifier) * (lane.clone() - pv(PV_NULLIFIER, j))
                + sel(Selector::PinContext) * (lane.clone() - pv(PV_CONTEXT, j));
            if j == 0 {
                constraint += sel(Selector::ChangeValue) * (lane.clone() - acc.clone())
                    + sel(Selector::SpentValue) * (lane - acc.clone() - pv(PV_AMOUNT, 0));
            }
            builder.assert_zero(constraint);
        }

        // 4. Rate lanes 4..8 on the current row.
        for j in 0..4 {
            let lane = s[4 + j].clone();
            let mut constraint = sel(Selector::ZeroHigh) * lane.clone()
                + sel(Selector::NullifierHigh) * (lane.clone() - pv(PV_NULLIFIER, j))
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

        // 6. Registers: `reg` is held between loads, `key` everywhere.
        for j in 0..4 {
            let reg_next: AB::Expr = next[COL_REG + j].into();
            let key_next: AB::Expr = next[COL_KEY + j].into();
            builder.assert_zero(sel(Selector::Hold) * (reg_next - reg[j].clone()));
            builder.assert_zero(is_transition.clone() * (key_next - key[j].clone()));
        }

        // 7. Range check: acc = Σ bit_i 2^i over the 62 window rows, then 0.
        builder.assert_zero(
            sel(Selector::Keep) * (acc.clone() - acc_next.clone())
                + sel(Selector::Window) * (acc.clone() - acc_next.clone() - acc_next - bit.clone())
                + sel(Selector::AccZero) * acc,
        );
        builder.assert_zero(bit.clone() * (bit - AB::Expr::ONE));
    }
}
