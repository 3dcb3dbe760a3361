//! Constraints and trace rows of one RPO-256 permutation, shared by every hash of the statement.
//!
//! A permutation occupies one 8-row cycle. Row `r` (0 ≤ r < 7) holds the state before round `r`,
//! row 7 the output. Round `r` is `MDS, +ARK1[r], x^7, MDS, +ARK2[r], x^(1/7)` (the core's
//! [`priv_stark_core::rpo`]); it is checked "from both ends", so the inverse S-box is never
//! evaluated:
//!
//! ```text
//! a  = MDS(s) + ARK1            (linear)
//! t  = a^3                      (auxiliary column, degree 3, every row)
//! u  = s^3                      (auxiliary column, degree 3, every row)
//! ROUND · (MDS⁻¹(u'^2 · s') − MDS⁻¹(ARK2) − t^2 · a) = 0      (degree 1 + 3 = 4)
//! ```
//!
//! since `s'^7 = u'^2 · s'`, `a^7 = t^2 · a` and `s'^7 = MDS(a^7) + ARK2`. Multiplying by the
//! inverse MDS matrix (also circulant) keeps each round constraint at 12 + 12 terms instead of
//! 12 × 12, which makes constraint evaluation (prover and verifier) and the symbolic degree
//! analysis cheap. `ROUND`, `ARK1` and `MDS⁻¹(ARK2)` are periodic columns of period 8 (`ROUND`
//! is 0 on row 7 and the constants are 0 there), so the round constraint is off on the
//! transition from one permutation's output to the next permutation's input.

use core::array;

use p3_air::AirBuilder;
use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{
    Felt,
    rpo::{MDS_FIRST_ROW, NUM_ROUNDS, STATE_WIDTH, State},
    rpo_constants::{ARK1, ARK2},
};

/// Rows of one permutation cycle.
pub const CYCLE: usize = NUM_ROUNDS + 1;
/// Trace columns of one permutation: the state `s`, `t = a^3` and `u = s^3`.
pub const HASH_WIDTH: usize = 3 * STATE_WIDTH;
/// First row of the inverse of the circulant MDS matrix (itself circulant):
/// `MDS⁻¹[i][j] = MDS_INVERSE_FIRST_ROW[(j − i) mod 12]`. A unit test checks `MDS · MDS⁻¹ = I`.
pub const MDS_INVERSE_FIRST_ROW: [u64; STATE_WIDTH] = [
    14868391535953158196,
    13278298489594233127,
    389999932707070822,
    9782021734907796003,
    4829905704463175582,
    7567822018949214430,
    14205019324568680367,
    15489674211196160593,
    17636013826542227504,
    16254215311946436093,
    3641486184877122796,
    11069068059762973582,
];

/// Periodic columns of the permutation: `ROUND`, then `ARK1` (12) and `MDS⁻¹(ARK2)` (12).
pub const NUM_ROUND_PERIODIC: usize = 1 + 2 * STATE_WIDTH;
/// Constraints added by [`eval_permutation`].
pub const NUM_ROUND_CONSTRAINTS: usize = 3 * STATE_WIDTH;

/// The permutation columns of one row.
#[derive(Clone, Copy, Debug)]
pub struct HashRow<T> {
    /// The state.
    pub s: [T; STATE_WIDTH],
    /// `(MDS(s) + ARK1)^3`.
    pub t: [T; STATE_WIDTH],
    /// `s^3`.
    pub u: [T; STATE_WIDTH],
}

impl<T: Copy> HashRow<T> {
    /// Reads the row from `HASH_WIDTH` consecutive columns.
    pub fn from_slice(columns: &[T]) -> Self {
        Self {
            s: array::from_fn(|i| columns[i]),
            t: array::from_fn(|i| columns[STATE_WIDTH + i]),
            u: array::from_fn(|i| columns[2 * STATE_WIDTH + i]),
        }
    }
}

/// `MDS⁻¹ · ARK2[round]`.
pub fn inverse_mixed_ark2(round: usize) -> State {
    array::from_fn(|i| {
        (0..STATE_WIDTH).fold(Felt::ZERO, |acc, j| {
            acc + Felt::from_u64(circulant(&MDS_INVERSE_FIRST_ROW, i, j))
                * Felt::from_u64(ARK2[round][j])
        })
    })
}

/// The periodic columns: `ROUND` (1 on rows 0..7, 0 on row 7), `ARK1[r][i]` and
/// `(MDS⁻¹ · ARK2[r])[i]` on row `r` (0 on row 7).
pub fn round_periodic_columns() -> alloc::vec::Vec<alloc::vec::Vec<Felt>> {
    let mut columns = alloc::vec::Vec::with_capacity(NUM_ROUND_PERIODIC);
    columns.push((0..CYCLE).map(|row| Felt::from_bool(row < NUM_ROUNDS)).collect());
    let mut ark1 = alloc::vec![alloc::vec![Felt::ZERO; CYCLE]; STATE_WIDTH];
    let mut ark2 = ark1.clone();
    for round in 0..NUM_ROUNDS {
        let unmixed = inverse_mixed_ark2(round);
        for (lane, (column1, column2)) in ark1.iter_mut().zip(ark2.iter_mut()).enumerate() {
            column1[round] = Felt::from_u64(ARK1[round][lane]);
            column2[round] = unmixed[lane];
        }
    }
    columns.extend(ark1);
    columns.extend(ark2);
    columns
}

/// Entry `(i, j)` of the circulant matrix with first row `first_row`.
pub const fn circulant(first_row: &[u64; STATE_WIDTH], i: usize, j: usize) -> u64 {
    first_row[(j + STATE_WIDTH - i) % STATE_WIDTH]
}

fn mix_expr<AB: AirBuilder>(
    first_row: &[u64; STATE_WIDTH],
    input: &[AB::Expr; STATE_WIDTH],
) -> [AB::Expr; STATE_WIDTH] {
    array::from_fn(|i| {
        input.iter().enumerate().fold(AB::Expr::ZERO, |acc, (j, value)| {
            acc + value.clone() * AB::F::from_u64(circulant(first_row, i, j))
        })
    })
}

/// Adds the [`NUM_ROUND_CONSTRAINTS`] permutation constraints between `local` and `next`.
/// `periodic` are the [`NUM_ROUND_PERIODIC`] values of [`round_periodic_columns`].
pub fn eval_permutation<AB: AirBuilder>(
    builder: &mut AB,
    local: &HashRow<AB::Var>,
    next: &HashRow<AB::Var>,
    periodic: &[AB::PeriodicVar],
) {
    let round: AB::Expr = periodic[0].into();
    let ark1: [AB::Expr; STATE_WIDTH] = array::from_fn(|i| periodic[1 + i].into());
    let ark2: [AB::Expr; STATE_WIDTH] = array::from_fn(|i| periodic[1 + STATE_WIDTH + i].into());

    let state: [AB::Expr; STATE_WIDTH] = array::from_fn(|i| local.s[i].into());
    let mixed = mix_expr::<AB>(&MDS_FIRST_ROW, &state);
    let a: [AB::Expr; STATE_WIDTH] = array::from_fn(|i| mixed[i].clone() + ark1[i].clone());

    // t = a^3 and u = s^3 on every row.
    for i in 0..STATE_WIDTH {
        builder.assert_eq(local.t[i], a[i].cube());
        builder.assert_eq(local.u[i], state[i].cube());
    }

    // MDS⁻¹(s'^7) − MDS⁻¹(ARK2) = a^7 on round rows.
    let s7_next: [AB::Expr; STATE_WIDTH] = array::from_fn(|i| {
        let u_next: AB::Expr = next.u[i].into();
        u_next.square() * next.s[i]
    });
    let unmixed = mix_expr::<AB>(&MDS_INVERSE_FIRST_ROW, &s7_next);
    for i in 0..STATE_WIDTH {
        let t: AB::Expr = local.t[i].into();
        let a7 = t.square() * a[i].clone();
        builder.assert_zero(round.clone() * (unmixed[i].clone() - ark2[i].clone() - a7));
    }
}

/// The 8 rows of one permutation of `input`, each `HASH_WIDTH` wide; returns the output state.
pub fn permutation_rows(input: &State, rows: &mut [[Felt; HASH_WIDTH]; CYCLE]) -> State {
    let mut state = *input;
    for (row, out) in rows.iter_mut().enumerate() {
        let mut mixed = state;
        priv_stark_core::rpo::apply_mds(&mut mixed);
        for lane in 0..STATE_WIDTH {
            let ark = if row < NUM_ROUNDS { Felt::from_u64(ARK1[row][lane]) } else { Felt::ZERO };
            out[lane] = state[lane];
            out[STATE_WIDTH + lane] = (mixed[lane] + ark).cube();
            out[2 * STATE_WIDTH + lane] = state[lane].cube();
        }
        if row < NUM_ROUNDS {
            priv_stark_core::rpo::apply_round(&mut state, row);
        }
    }
    state
}
