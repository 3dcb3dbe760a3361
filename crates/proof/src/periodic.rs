//! The periodic columns at the out-of-domain point, from their sparse Lagrange form.
//!
//! A periodic column of period `p` over the `n` trace rows is the polynomial of degree below `p`
//! through its values on the subgroup `H_p`, read at `x = ζ^(n/p)`:
//!
//! ```text
//! P(ζ) = Σ_r v_r · L_r(x),   L_r(x) = w^r · (x^p − 1) / (p · (x − w^r)),   w a generator of H_p
//! ```
//!
//! Plonky3's verifier interpolates every column densely: for the 21 selectors of period 512 that
//! is a 512 × 21 matrix product and 512 inversions on every verification, for columns that are
//! zero on all but a few rows. Since `Σ_r L_r = 1`, a column equal to `c` except on a few rows is
//! `c + Σ_{r: v_r ≠ c} (v_r − c) · L_r(x)`: with `c` the column's most frequent value, the spend
//! AIR's 46 columns need `L_r` on about 150 rows in all, one batched inversion.
//! [`PeriodicColumnsAtPoint::evaluate`] is exact (the same polynomial, evaluated differently);
//! `tests/verifier_air.rs` compares it with Plonky3's evaluation at random points.

use alloc::{collections::BTreeMap, vec, vec::Vec};

use p3_field::{Field, PrimeCharacteristicRing, TwoAdicField};
use priv_stark_core::Felt;

use crate::config::Challenge;

/// One column as `constant + Σ coefficient · L_row`.
#[derive(Clone, Debug)]
struct SparseColumn {
    /// Index among the AIR's periodic columns.
    index: usize,
    /// The column's most frequent value.
    constant: Felt,
    /// `(slot in the group's rows, v_r − constant)` for every other row.
    terms: Vec<(usize, Felt)>,
}

/// The columns sharing one period.
#[derive(Clone, Debug)]
struct PeriodGroup {
    /// `log2(n / p)`: `x = ζ` squared this many times.
    folds: usize,
    /// `w^r` for each row some column needs.
    points: Vec<Felt>,
    /// `w^r / p` for the same rows.
    weights: Vec<Felt>,
    columns: Vec<SparseColumn>,
}

/// Evaluates a fixed set of periodic columns at any point outside the trace domain.
#[derive(Clone, Debug)]
pub struct PeriodicColumnsAtPoint {
    log_trace_rows: usize,
    num_columns: usize,
    groups: Vec<PeriodGroup>,
}

impl PeriodicColumnsAtPoint {
    /// Prepares `columns` (each one period of values, a power of two dividing `2^log_trace_rows`).
    ///
    /// # Panics
    /// When a period is not a power of two dividing the trace height (an AIR bug: Plonky3
    /// refuses such columns too).
    pub fn new(columns: &[Vec<Felt>], log_trace_rows: usize) -> Self {
        let mut by_period: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (index, column) in columns.iter().enumerate() {
            assert!(column.len().is_power_of_two() && column.len() <= 1 << log_trace_rows);
            by_period.entry(column.len()).or_default().push(index);
        }
        let groups = by_period
            .into_iter()
            .map(|(period, indices)| {
                let log_period = period.trailing_zeros() as usize;
                let generator = Felt::two_adic_generator(log_period);
                let mut slots: BTreeMap<usize, usize> = BTreeMap::new();
                let mut sparse = Vec::with_capacity(indices.len());
                for index in indices {
                    let column = &columns[index];
                    let constant = most_frequent(column);
                    let mut terms = Vec::new();
                    for (row, &value) in column.iter().enumerate() {
                        if value != constant {
                            let next_slot = slots.len();
                            let slot = *slots.entry(row).or_insert(next_slot);
                            terms.push((slot, value - constant));
                        }
                    }
                    sparse.push(SparseColumn { index, constant, terms });
                }
                let mut rows = vec![0; slots.len()];
                for (&row, &slot) in &slots {
                    rows[slot] = row;
                }
                let inverse_period = Felt::from_usize(period).inverse();
                let points: Vec<Felt> =
                    rows.iter().map(|&row| generator.exp_u64(row as u64)).collect();
                let weights = points.iter().map(|&point| point * inverse_period).collect();
                PeriodGroup { folds: log_trace_rows - log_period, points, weights, columns: sparse }
            })
            .collect();
        Self { log_trace_rows, num_columns: columns.len(), groups }
    }

    /// The value of every column at `zeta`, in column order. `zeta` must lie outside the trace
    /// domain (the verifier refuses such a point before evaluating constraints); there, all
    /// values are returned as 0.
    pub fn evaluate(&self, zeta: Challenge) -> Vec<Challenge> {
        let mut out = vec![Challenge::ZERO; self.num_columns];
        // x^p − 1 = ζ^n − 1 for every group.
        let vanishing = zeta.exp_power_of_2(self.log_trace_rows) - Challenge::ONE;
        if vanishing.is_zero() {
            return out;
        }
        for group in &self.groups {
            let x = zeta.exp_power_of_2(group.folds);
            let lagrange = lagrange_at(x, vanishing, &group.points, &group.weights);
            for column in &group.columns {
                out[column.index] = column
                    .terms
                    .iter()
                    .fold(Challenge::from(column.constant), |sum, &(slot, coefficient)| {
                        sum + lagrange[slot] * coefficient
                    });
            }
        }
        out
    }
}

/// `L_r(x) = weight_r · (x^p − 1) / (x − point_r)` for every row, with one inversion.
fn lagrange_at(
    x: Challenge,
    vanishing: Challenge,
    points: &[Felt],
    weights: &[Felt],
) -> Vec<Challenge> {
    let differences: Vec<Challenge> = points.iter().map(|&point| x - point).collect();
    // Montgomery's trick: prefix products, one inverse, then back.
    let mut prefix = Vec::with_capacity(differences.len());
    let mut product = Challenge::ONE;
    for &difference in &differences {
        prefix.push(product);
        product *= difference;
    }
    let mut inverse = product.inverse();
    let mut out = vec![Challenge::ZERO; differences.len()];
    for i in (0..differences.len()).rev() {
        out[i] = inverse * prefix[i] * vanishing * weights[i];
        inverse *= differences[i];
    }
    out
}

fn most_frequent(column: &[Felt]) -> Felt {
    let mut counts: BTreeMap<u64, (usize, Felt)> = BTreeMap::new();
    for &value in column {
        use p3_field::PrimeField64;
        counts.entry(value.as_canonical_u64()).or_insert((0, value)).0 += 1;
    }
    counts.values().max_by_key(|(count, _)| *count).map_or(Felt::ZERO, |&(_, value)| value)
}
