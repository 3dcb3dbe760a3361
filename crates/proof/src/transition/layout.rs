//! The fixed shape of the transition trace: columns, the permutation schedule, and the periodic
//! selectors that place every constraint (the spend layout, [`crate::layout`], for two inputs and
//! two outputs), in its two revisions ([`Revision`]): revision one is parameter set 16's AIR, kept
//! as it was so that set 16's proofs keep verifying; revision two (set 17) adds one permutation
//! that proves the memo and two range checks that keep each output value below 2^62.
//!
//! # Columns (58; revision two: 60)
//!
//! | columns | name | content |
//! |---|---|---|
//! | 0..36 | `s, t, u` | RPO state and auxiliaries, as in the spend trace |
//! | 36..40 | `key` | `sk`, constant |
//! | 40..44 | `owner` | `H_OWNER(sk)`, constant |
//! | 44..48 | `reg` | `cm₁` from its note's output, then `cm₂` from its note's output |
//! | 48, 49 | `vin` | input values `v₁, v₂`, constant |
//! | 50, 51 | `vout` | output values `w₁, w₂`, constant |
//! | 52, 53 | `real` | `d₁, d₂`: output `j` is real (1) or a dummy of value 0 (0), constant |
//! | 54, 55 | `acc` | `w_j − d_j · MIN` until its window, then shifted right one bit per row to 0 |
//! | 56 | `bit` | Merkle path bits on Merkle input rows, range-check bits in the two windows |
//! | 57 | `inv` | `1 / v₁`: the first input is a real note (no transition of dummies only) |
//! | 58, 59 | `wacc` | revision two: `w_j` until its window, then shifted right one bit per row to 0 |
//!
//! # Permutations (8 rows each, 1024 rows)
//!
//! | p | hash | rate lanes 0..4 | rate lanes 4..8 |
//! |---|---|---|---|
//! | 0 | `owner = H_OWNER(sk)` | `key` | 0 |
//! | 1, 36 | `pre_i = H_PRE(owner, rho_i)` | `owner` | `rho_i` (witness) |
//! | 2, 37 | `cm_i = H_NOTE(v_i, pre_i)` | `v_i`, previous digest (lanes 1..5) | 0 (lanes 5..8) |
//! | 3..35, 38..70 | `node = H_NODE(·, ·)` | previous output or sibling, by `bit` | the other |
//! | 35, 70 | `nf_i = H_NULLIFIER(sk, cm_i)` | `key` | `reg` (= `cm_i`) |
//! | 71, 74 | `rho'_j = H_TRANSITION_RHO_j(sk, nf₁)` | `key` | public `nf₁` |
//! | 72, 75 | `pre'_j = H_PRE(owner, rho'_j)` | `owner` | previous digest |
//! | 73, 76 | `out_j = H_NOTE(w_j, pre'_j)` | `w_j`, previous digest (lanes 1..5) | 0 |
//! | 77 | `rrho = H_REFUND_RHO(sk, nf₁)` | `key` | public `nf₁` |
//! | 78 | `rpre = H_PRE(owner, rrho)` | `owner` | previous digest |
//! | 79 | `refund = H_NOTE(exit, rpre)` | public `exit`, previous digest (lanes 1..5) | 0 |
//! | 80 | padding; input lanes 0..4 pinned to public `ctx` | | |
//! | 81 | revision two: `pad = H_TRANSITION_MEMO(sk, nf₁)`; output lanes 0, 1 + `w₁, w₂` = public `memo` | `key` | public `nf₁` |
//! | 81..128 (revision two: 82..128) | padding (the range windows) | | |
//!
//! The outputs of p = 34 (the first input's root), 35, 70, 73, 76 and 79 are pinned to the public
//! `root, nf₁, nf₂, out₁, out₂, refund`; the second input's root (p = 69) is pinned only when `v₂ ≠ 0`:
//! a dummy input is worth nothing and proves no membership.

use alloc::{vec, vec::Vec};

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{Domain, Felt, tree::DEPTH};

use crate::rpo_air::{CYCLE, HASH_WIDTH, NUM_ROUND_PERIODIC, round_periodic_columns};

/// log2 of the trace height.
pub const LOG_TRACE_ROWS: usize = 10;
/// Rows of the trace.
pub const TRACE_ROWS: usize = 1 << LOG_TRACE_ROWS;

/// First `sk` column.
pub const COL_KEY: usize = HASH_WIDTH;
/// First owner column.
pub const COL_OWNER: usize = COL_KEY + 4;
/// First register column (`cm` of the input being opened).
pub const COL_REG: usize = COL_OWNER + 4;
/// The input value columns.
pub const COL_VIN: usize = COL_REG + 4;
/// The output value columns.
pub const COL_VOUT: usize = COL_VIN + 2;
/// The "output is real" columns.
pub const COL_REAL: usize = COL_VOUT + 2;
/// The range accumulators, one per output.
pub const COL_ACC: usize = COL_REAL + 2;
/// The bit column.
pub const COL_BIT: usize = COL_ACC + 2;
/// The inverse of the first input's value.
pub const COL_INV: usize = COL_BIT + 1;
/// Columns of revision one's trace (set 16).
pub const TRACE_WIDTH: usize = COL_INV + 1;
/// Revision two: the accumulators that range-check each output value itself.
pub const COL_VALUE_ACC: usize = COL_INV + 1;
/// Columns of revision two's trace (set 17).
pub const TRACE_WIDTH_TWO: usize = COL_VALUE_ACC + 2;

/// The two transition AIRs. A change of the AIR is a new transcript and so a new parameter set;
/// the old revision stays beside it for as long as its set is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    /// Set 16's AIR: the memo is bound by the transcript but not proven, and an output is proven
    /// below `2^62 + MIN_OUTPUT_VALUE` (docs/proof.md §9).
    One,
    /// Set 17's AIR: revision one plus `memo_j = w_j + H_TRANSITION_MEMO(sk, nf₁)_j` proven
    /// ([`P_MEMO`]) and every output value range-checked below 2^62 ([`COL_VALUE_ACC`]).
    Two,
}

impl Revision {
    /// Columns of the trace.
    pub const fn width(self) -> usize {
        match self {
            Self::One => TRACE_WIDTH,
            Self::Two => TRACE_WIDTH_TWO,
        }
    }

    /// Range windows: one per output (`w_j − d_j·MIN`), and in revision two one more per output
    /// (`w_j`).
    pub const fn num_windows(self) -> usize {
        match self {
            Self::One => 2,
            Self::Two => 4,
        }
    }

    /// First row of range window `k` (in the padding after the last constrained permutation,
    /// clear of every Merkle bit).
    pub const fn window_start(self, k: usize) -> usize {
        match self {
            Self::One => input_row(P_CONTEXT + 1) + k * 80,
            Self::Two => input_row(P_MEMO + 1) + k * 64,
        }
    }

    /// Whether permutation `p` is a hash whose input the AIR constrains.
    pub const fn is_hash(self, p: usize) -> bool {
        p < NUM_HASHES || (matches!(self, Self::Two) && p == P_MEMO)
    }

    /// Number of [`Selector`] columns.
    pub const fn num_selectors(self) -> usize {
        match self {
            Self::One => NUM_SELECTORS,
            Self::Two => NUM_SELECTORS_TWO,
        }
    }

    /// Periodic columns: the round columns, then the selectors.
    pub const fn num_periodic(self) -> usize {
        NUM_ROUND_PERIODIC + self.num_selectors()
    }
}

/// The accumulator column of range window `k`: `w_k − d_k·MIN` for `k < 2`, `w_{k−2}` after.
pub const fn window_column(k: usize) -> usize {
    if k < 2 { COL_ACC + k } else { COL_VALUE_ACC + k - 2 }
}

/// `owner = H_OWNER(sk)`.
pub const P_OWNER: usize = 0;
/// Permutations of one input: pre, note, `DEPTH` Merkle levels, nullifier.
const INPUT_SPAN: usize = 3 + DEPTH;
/// `pre_i` of input `i`.
pub const fn p_input_pre(i: usize) -> usize {
    1 + i * INPUT_SPAN
}
/// `cm_i` of input `i`.
pub const fn p_input_note(i: usize) -> usize {
    p_input_pre(i) + 1
}
/// The first Merkle level of input `i`.
pub const fn p_input_merkle(i: usize) -> usize {
    p_input_pre(i) + 2
}
/// `nf_i` of input `i`.
pub const fn p_input_nullifier(i: usize) -> usize {
    p_input_merkle(i) + DEPTH
}
/// `rho'_j` of output `j`.
pub const fn p_output_rho(j: usize) -> usize {
    1 + 2 * INPUT_SPAN + 3 * j
}
/// `pre'_j` of output `j`.
pub const fn p_output_pre(j: usize) -> usize {
    p_output_rho(j) + 1
}
/// `out_j` of output `j`.
pub const fn p_output_note(j: usize) -> usize {
    p_output_rho(j) + 2
}
/// `rrho = H_REFUND_RHO(sk, nf₁)`.
pub const P_REFUND_RHO: usize = p_output_note(1) + 1;
/// `rpre = H_PRE(owner, rrho)`.
pub const P_REFUND_PRE: usize = P_REFUND_RHO + 1;
/// `refund = H_NOTE(exit, rpre)`: the note an exit's owner gets back if its payout fails.
pub const P_REFUND_NOTE: usize = P_REFUND_RHO + 2;
/// The padding permutation whose input holds `ctx`.
pub const P_CONTEXT: usize = P_REFUND_NOTE + 1;
/// Permutations whose input is constrained in revision one (revision two adds [`P_MEMO`]).
pub const NUM_HASHES: usize = P_CONTEXT;
/// Revision two: `pad = H_TRANSITION_MEMO(sk, nf₁)`, whose first two lanes plus the output values
/// are the public memo.
pub const P_MEMO: usize = P_CONTEXT + 1;

/// Bits of each output's range check.
pub const RANGE_BITS: usize = 62;
/// First row of output `j`'s range window in revision one.
pub const fn range_start(j: usize) -> usize {
    Revision::One.window_start(j)
}

/// The least value of a real (non-dummy) output, in atomic units: a transition cannot mint dust
/// notes, and every leaf costs every wallet's sync.
pub const MIN_OUTPUT_VALUE: u64 = 1_000;

/// The input row of permutation `p`.
pub const fn input_row(p: usize) -> usize {
    p * CYCLE
}

/// The output row of permutation `p`.
pub const fn output_row(p: usize) -> usize {
    p * CYCLE + CYCLE - 1
}

/// Input length and domain of the hash of permutation `p` (a `p` of [`Revision::is_hash`]).
pub fn hash_kind(p: usize) -> (usize, Domain) {
    if p == P_OWNER {
        return (4, Domain::Owner);
    }
    for i in 0..2 {
        if p == p_input_pre(i) || p == p_output_pre(i) {
            return (8, Domain::Pre);
        }
        if p == p_input_note(i) || p == p_output_note(i) {
            return (5, Domain::Note);
        }
        if p == p_input_nullifier(i) {
            return (8, Domain::Nullifier);
        }
    }
    if p == p_output_rho(0) {
        return (8, Domain::TransitionRho1);
    }
    if p == p_output_rho(1) {
        return (8, Domain::TransitionRho2);
    }
    if p == P_REFUND_RHO {
        return (8, Domain::RefundRho);
    }
    if p == P_REFUND_PRE {
        return (8, Domain::Pre);
    }
    if p == P_REFUND_NOTE {
        return (5, Domain::Note);
    }
    if p == P_MEMO {
        return (8, Domain::TransitionMemo);
    }
    (8, Domain::Node)
}

/// The one-hot row selectors, in periodic-column order after the round columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Selector {
    /// Input length at hash input rows.
    Length,
    /// Domain tag at hash input rows.
    Tag,
    /// Lanes 0..4 = `key`.
    KeyLow,
    /// Lanes 0..4 = `owner`.
    OwnerLow,
    /// Lanes 0..4 = `reg` (loads `reg` from a note's output digest).
    RegLow,
    /// Lanes 0..4 = public `root` (the first input).
    PinRoot,
    /// Lanes 0..4 = public `root` when `v₂ ≠ 0` (the second input).
    PinRootIfReal,
    /// Lanes 0..4 = public `nf₁`.
    PinNullifier1,
    /// Lanes 0..4 = public `nf₂`.
    PinNullifier2,
    /// Lanes 0..4 = public `out₁`.
    PinOutput1,
    /// Lanes 0..4 = public `out₂`.
    PinOutput2,
    /// Lanes 0..4 = public `refund`.
    PinRefund,
    /// Lanes 0..4 = public `ctx`.
    PinContext,
    /// Lane 0 = `v₁`.
    InputValue1,
    /// Lane 0 = `v₂`.
    InputValue2,
    /// Lane 0 = `w₁`.
    OutputValue1,
    /// Lane 0 = `w₂`.
    OutputValue2,
    /// Lane 0 = public `exit`.
    ExitValue,
    /// Lanes 4..8 = 0.
    ZeroHigh,
    /// Lanes 4..8 = public `nf₁`.
    NullifierHigh,
    /// Lanes 4..8 = `reg`.
    RegHigh,
    /// Lanes 5..8 = 0 (a note hash input).
    NoteZero,
    /// Transition: next lanes 4..8 = this row's digest.
    PrevHigh,
    /// Transition: next lanes 1..5 = this row's digest.
    NoteShift,
    /// Transition: next row is a Merkle input holding this row's digest on the side of `bit`.
    Merkle,
    /// Transition: `reg` is kept.
    Hold,
    /// Transition: `acc₁` is kept.
    Keep1,
    /// Transition: `acc₁ = 2 acc₁' + bit`.
    Window1,
    /// Transition: `acc₂` is kept.
    Keep2,
    /// Transition: `acc₂ = 2 acc₂' + bit`.
    Window2,
    /// Every accumulator is 0 (the last row).
    AccZero,
    /// Revision two: output lanes 0, 1 plus `w₁, w₂` = public `memo`.
    PinMemo,
    /// Revision two: transition: `wacc₁` is kept.
    Keep3,
    /// Revision two: transition: `wacc₁ = 2 wacc₁' + bit`.
    Window3,
    /// Revision two: transition: `wacc₂` is kept.
    Keep4,
    /// Revision two: transition: `wacc₂ = 2 wacc₂' + bit`.
    Window4,
}

/// Number of [`Selector`] columns of revision one.
pub const NUM_SELECTORS: usize = Selector::AccZero as usize + 1;
/// Number of [`Selector`] columns of revision two.
pub const NUM_SELECTORS_TWO: usize = Selector::Window4 as usize + 1;
/// Periodic columns of revision one: the round columns, then the selectors.
pub const NUM_PERIODIC: usize = NUM_ROUND_PERIODIC + NUM_SELECTORS;

/// The (window, keep) selectors of range window `k`.
pub const WINDOW_SELECTORS: [(Selector, Selector); 4] = [
    (Selector::Window1, Selector::Keep1),
    (Selector::Window2, Selector::Keep2),
    (Selector::Window3, Selector::Keep3),
    (Selector::Window4, Selector::Keep4),
];

impl Selector {
    /// Index among the periodic columns.
    pub const fn column(self) -> usize {
        NUM_ROUND_PERIODIC + self as usize
    }
}

/// All periodic columns of `revision`: the round columns (period 8), then the selectors (period
/// 1024).
pub fn periodic_columns(revision: Revision) -> Vec<Vec<Felt>> {
    let mut columns = round_periodic_columns();
    let mut selectors = vec![vec![Felt::ZERO; TRACE_ROWS]; revision.num_selectors()];
    let mut set = |selector: Selector, row: usize| {
        selectors[selector as usize][row] = Felt::ONE;
    };
    let mut lengths = vec![Felt::ZERO; TRACE_ROWS];
    let mut tags = vec![Felt::ZERO; TRACE_ROWS];
    for p in (0..TRACE_ROWS / CYCLE).filter(|&p| revision.is_hash(p)) {
        let (len, domain) = hash_kind(p);
        lengths[input_row(p)] = Felt::from_usize(len);
        tags[input_row(p)] = domain.tag();
    }
    set(Selector::ZeroHigh, input_row(P_OWNER));
    set(Selector::KeyLow, input_row(P_OWNER));
    set(Selector::OwnerLow, output_row(P_OWNER));
    for i in 0..2 {
        set(Selector::OwnerLow, input_row(p_input_pre(i)));
        set(Selector::NoteShift, output_row(p_input_pre(i)));
        set(Selector::NoteZero, input_row(p_input_note(i)));
        set(Selector::RegLow, output_row(p_input_note(i)));
        for level in 0..DEPTH {
            set(Selector::Merkle, output_row(p_input_merkle(i) + level - 1));
        }
        set(Selector::KeyLow, input_row(p_input_nullifier(i)));
        set(Selector::RegHigh, input_row(p_input_nullifier(i)));

        set(Selector::KeyLow, input_row(p_output_rho(i)));
        set(Selector::NullifierHigh, input_row(p_output_rho(i)));
        set(Selector::PrevHigh, output_row(p_output_rho(i)));
        set(Selector::OwnerLow, input_row(p_output_pre(i)));
        set(Selector::NoteShift, output_row(p_output_pre(i)));
        set(Selector::NoteZero, input_row(p_output_note(i)));
    }
    set(Selector::KeyLow, input_row(P_REFUND_RHO));
    set(Selector::NullifierHigh, input_row(P_REFUND_RHO));
    set(Selector::PrevHigh, output_row(P_REFUND_RHO));
    set(Selector::OwnerLow, input_row(P_REFUND_PRE));
    set(Selector::NoteShift, output_row(P_REFUND_PRE));
    set(Selector::NoteZero, input_row(P_REFUND_NOTE));
    set(Selector::ExitValue, input_row(P_REFUND_NOTE));
    set(Selector::PinRefund, output_row(P_REFUND_NOTE));
    set(Selector::InputValue1, input_row(p_input_note(0)));
    set(Selector::InputValue2, input_row(p_input_note(1)));
    set(Selector::OutputValue1, input_row(p_output_note(0)));
    set(Selector::OutputValue2, input_row(p_output_note(1)));
    set(Selector::PinRoot, output_row(p_input_nullifier(0) - 1));
    set(Selector::PinRootIfReal, output_row(p_input_nullifier(1) - 1));
    set(Selector::PinNullifier1, output_row(p_input_nullifier(0)));
    set(Selector::PinNullifier2, output_row(p_input_nullifier(1)));
    set(Selector::PinOutput1, output_row(p_output_note(0)));
    set(Selector::PinOutput2, output_row(p_output_note(1)));
    set(Selector::PinContext, input_row(P_CONTEXT));
    if revision == Revision::Two {
        set(Selector::KeyLow, input_row(P_MEMO));
        set(Selector::NullifierHigh, input_row(P_MEMO));
        set(Selector::PinMemo, output_row(P_MEMO));
    }
    let reloads = [output_row(p_input_note(0)), output_row(p_input_note(1))];
    for row in 0..TRACE_ROWS - 1 {
        if !reloads.contains(&(row + 1)) {
            set(Selector::Hold, row);
        }
        for (k, &(window, keep)) in WINDOW_SELECTORS.iter().enumerate().take(revision.num_windows())
        {
            let start = revision.window_start(k);
            if (start..start + RANGE_BITS).contains(&row) {
                set(window, row);
            } else {
                set(keep, row);
            }
        }
    }
    set(Selector::AccZero, TRACE_ROWS - 1);
    selectors[Selector::Length as usize] = lengths;
    selectors[Selector::Tag as usize] = tags;
    columns.extend(selectors);
    columns
}
