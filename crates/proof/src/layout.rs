//! The fixed shape of the spend trace: columns, the permutation schedule, and the periodic
//! columns (round constants and one-hot row selectors) that place every constraint.
//!
//! # Columns (46)
//!
//! | columns | name | content |
//! |---|---|---|
//! | 0..12 | `s` | RPO state (row 8p + r: state of permutation p before round r; r = 7: output) |
//! | 12..24 | `t` | `(MDS(s) + ARK1)^3` |
//! | 24..36 | `u` | `s^3` |
//! | 36..40 | `key` | `sk`, constant on every row |
//! | 40..44 | `reg` | `owner` on rows 0..47, then `cm` on rows 47..512 |
//! | 44 | `acc` | `v − amount` on rows 0..=320, then shifted right one bit per row down to 0 |
//! | 45 | `bit` | Merkle path bits on Merkle input rows, range-check bits on rows 320..382 |
//!
//! # Permutations (8 rows each, 512 rows)
//!
//! | p | hash | rate lanes 0..4 | rate lanes 4..8 |
//! |---|---|---|---|
//! | 0 | `owner = H_OWNER(sk)` | `key` | 0 |
//! | 1 | `crho = H_CHANGE_RHO(sk, nf)` | `key` | public `nf` |
//! | 2 | `cpre = H_PRE(owner, crho)` | `reg` (= owner) | output of p = 1 |
//! | 3 | `change = H_NOTE(v − amount, cpre)` | `acc`, output of p = 2 (lanes 1..5) | 0 (lanes 5..8) |
//! | 4 | `pre = H_PRE(owner, rho)` | `reg` (= owner) | `rho` (witness) |
//! | 5 | `cm = H_NOTE(v, pre)` | `acc + amount`, output of p = 4 (lanes 1..5) | 0 (lanes 5..8) |
//! | 6..38 | `node = H_NODE(·, ·)` | previous output or sibling, by `bit` | the other one |
//! | 38 | `nf = H_NULLIFIER(sk, cm)` | `key` | `reg` (= cm) |
//! | 39 | padding; input lanes 0..4 pinned to public `ctx` | | |
//! | 40..64 | padding | | |
//!
//! Every input row of p = 0..=38 pins its capacity: lane 8 = input length, lane 9 = domain tag,
//! lanes 10, 11 = 0. The outputs of p = 3, 37 and 38 are pinned to the public `change`, `root`
//! and `nf`; the output of p = 0 is loaded into `reg` (owner) and that of p = 5 reloads it (cm).

use alloc::{vec, vec::Vec};

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{Domain, Felt, tree::DEPTH};

use crate::rpo_air::{CYCLE, HASH_WIDTH, NUM_ROUND_PERIODIC, round_periodic_columns};

/// log2 of the trace height.
pub const LOG_TRACE_ROWS: usize = 9;
/// Rows of the trace.
pub const TRACE_ROWS: usize = 1 << LOG_TRACE_ROWS;

/// First state column.
pub const COL_S: usize = 0;
/// First `sk` column.
pub const COL_KEY: usize = HASH_WIDTH;
/// First register column.
pub const COL_REG: usize = COL_KEY + 4;
/// The range accumulator column.
pub const COL_ACC: usize = COL_REG + 4;
/// The bit column.
pub const COL_BIT: usize = COL_ACC + 1;
/// Columns of the trace.
pub const TRACE_WIDTH: usize = COL_BIT + 1;

/// `owner = H_OWNER(sk)`.
pub const P_OWNER: usize = 0;
/// `crho = H_CHANGE_RHO(sk, nf)`.
pub const P_CHANGE_RHO: usize = 1;
/// `cpre = H_PRE(owner, crho)`.
pub const P_CHANGE_PRE: usize = 2;
/// `change = H_NOTE(v − amount, cpre)`.
pub const P_CHANGE_NOTE: usize = 3;
/// `pre = H_PRE(owner, rho)`.
pub const P_PRE: usize = 4;
/// `cm = H_NOTE(v, pre)`.
pub const P_NOTE: usize = 5;
/// The Merkle level-0 node; levels follow.
pub const P_MERKLE: usize = 6;
/// `nf = H_NULLIFIER(sk, cm)`.
pub const P_NULLIFIER: usize = P_MERKLE + DEPTH;
/// The padding permutation whose input holds `ctx`.
pub const P_CONTEXT: usize = P_NULLIFIER + 1;
/// Permutations whose input is constrained.
pub const NUM_HASHES: usize = P_NULLIFIER + 1;

/// Bits of the change-value range check.
pub const RANGE_BITS: usize = 62;
/// First row of the range-check window.
pub const RANGE_START: usize = input_row(P_CONTEXT + 1);
/// The row after the window, where `acc` is 0.
pub const RANGE_END: usize = RANGE_START + RANGE_BITS;

/// The input row of permutation `p`.
pub const fn input_row(p: usize) -> usize {
    p * CYCLE
}

/// The output row of permutation `p`.
pub const fn output_row(p: usize) -> usize {
    p * CYCLE + CYCLE - 1
}

/// Input length and domain of the hash of permutation `p` (`p < NUM_HASHES`).
pub const fn hash_kind(p: usize) -> (usize, Domain) {
    match p {
        P_OWNER => (4, Domain::Owner),
        P_CHANGE_RHO => (8, Domain::ChangeRho),
        P_CHANGE_PRE | P_PRE => (8, Domain::Pre),
        P_CHANGE_NOTE | P_NOTE => (5, Domain::Note),
        P_NULLIFIER => (8, Domain::Nullifier),
        _ => (8, Domain::Node),
    }
}

/// The one-hot row selectors, in periodic-column order after the round columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Selector {
    /// Input length at hash input rows (nonzero there, 0 elsewhere).
    Length,
    /// Domain tag at hash input rows (nonzero there, 0 elsewhere).
    Tag,
    /// Lanes 0..4 = `key`.
    KeyLow,
    /// Lanes 0..4 = `reg` (also loads `reg` from an output digest).
    RegLow,
    /// Lanes 0..4 = public `change`.
    PinChange,
    /// Lanes 0..4 = public `root`.
    PinRoot,
    /// Lanes 0..4 = public `nf`.
    PinNullifier,
    /// Lanes 0..4 = public `ctx`.
    PinContext,
    /// Lane 0 = `acc` (the change value).
    ChangeValue,
    /// Lane 0 = `acc + amount` (the spent value).
    SpentValue,
    /// Lanes 4..8 = 0.
    ZeroHigh,
    /// Lanes 4..8 = public `nf`.
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
    /// Transition: `acc` is kept.
    Keep,
    /// Transition: `acc = 2 acc' + bit`.
    Window,
    /// `acc = 0`.
    AccZero,
}

/// Number of [`Selector`] columns.
pub const NUM_SELECTORS: usize = Selector::AccZero as usize + 1;
/// Periodic columns: the round columns, then the selectors.
pub const NUM_PERIODIC: usize = NUM_ROUND_PERIODIC + NUM_SELECTORS;

impl Selector {
    /// Index among the periodic columns.
    pub const fn column(self) -> usize {
        NUM_ROUND_PERIODIC + self as usize
    }
}

/// All periodic columns: the round columns (period 8), then the selectors (period 512).
pub fn periodic_columns() -> Vec<Vec<Felt>> {
    let mut columns = round_periodic_columns();
    let mut selectors = vec![vec![Felt::ZERO; TRACE_ROWS]; NUM_SELECTORS];
    let mut set = |selector: Selector, row: usize, value: Felt| {
        selectors[selector as usize][row] = value;
    };
    for p in 0..NUM_HASHES {
        let (len, domain) = hash_kind(p);
        set(Selector::Length, input_row(p), Felt::from_usize(len));
        set(Selector::Tag, input_row(p), domain.tag());
    }
    for p in [P_OWNER, P_CHANGE_RHO, P_NULLIFIER] {
        set(Selector::KeyLow, input_row(p), Felt::ONE);
    }
    for row in [output_row(P_OWNER), input_row(P_CHANGE_PRE), input_row(P_PRE), output_row(P_NOTE)]
    {
        set(Selector::RegLow, row, Felt::ONE);
    }
    set(Selector::PinChange, output_row(P_CHANGE_NOTE), Felt::ONE);
    set(Selector::PinRoot, output_row(P_MERKLE + DEPTH - 1), Felt::ONE);
    set(Selector::PinNullifier, output_row(P_NULLIFIER), Felt::ONE);
    set(Selector::PinContext, input_row(P_CONTEXT), Felt::ONE);
    set(Selector::ChangeValue, input_row(P_CHANGE_NOTE), Felt::ONE);
    set(Selector::SpentValue, input_row(P_NOTE), Felt::ONE);
    set(Selector::ZeroHigh, input_row(P_OWNER), Felt::ONE);
    set(Selector::NullifierHigh, input_row(P_CHANGE_RHO), Felt::ONE);
    set(Selector::RegHigh, input_row(P_NULLIFIER), Felt::ONE);
    for p in [P_CHANGE_NOTE, P_NOTE] {
        set(Selector::NoteZero, input_row(p), Felt::ONE);
        set(Selector::NoteShift, output_row(p - 1), Felt::ONE);
    }
    set(Selector::PrevHigh, output_row(P_CHANGE_RHO), Felt::ONE);
    for p in P_MERKLE..P_MERKLE + DEPTH {
        set(Selector::Merkle, output_row(p - 1), Felt::ONE);
    }
    for row in 0..TRACE_ROWS - 1 {
        if row + 1 != output_row(P_NOTE) {
            set(Selector::Hold, row, Felt::ONE);
        }
        if (RANGE_START..RANGE_END).contains(&row) {
            set(Selector::Window, row, Felt::ONE);
        } else {
            set(Selector::Keep, row, Felt::ONE);
        }
    }
    set(Selector::AccZero, TRACE_ROWS - 1, Felt::ONE);
    columns.extend(selectors);
    columns
}
