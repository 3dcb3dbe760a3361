//! A digest of the constraint system, bound into the Fiat–Shamir transcript.
//!
//! Plonky3 binds the trace shape into its transcript, not the constraints: two AIRs of the same
//! shape would draw the same challenges. The transcript prefix of every parameter set from 3 on
//! therefore carries [`air_digest`], computed from the AIR itself rather than from a version
//! number bumped by hand:
//!
//! 1. the shape: width, public values, periodic columns, preprocessed width, the columns read on
//!    the next row, the constraint counts and the maximum constraint degree (inferred from the
//!    symbolic constraints, periodic columns counted);
//! 2. every periodic column, length and values;
//! 3. every constraint polynomial, in order, evaluated at [`NUM_POINTS`] fixed pseudo-random
//!    points of the challenge field (every trace cell, periodic value, public value and
//!    selector drawn from BLAKE3 of a label and a counter).
//!
//! Step 3 fingerprints the polynomials rather than their expression trees: rewriting a
//! constraint without changing it (reassociating a sum, say) keeps the digest, and any change
//! of a constraint changes it except with probability about `degree / |EF|` per point
//! (Schwartz–Zippel; |EF| ≈ 2^192). The digest is computed once per process (about a
//! millisecond, the cost of one symbolic pass) and `tests/air_digest.rs` pins its value.

use alloc::vec::Vec;

use p3_air::{
    Air, BaseAir,
    symbolic::{
        AirLayout, BaseEntry, BaseLeaf, SymbolicAirBuilder, SymbolicExpr, SymbolicExpression,
        get_all_symbolic_constraints, get_max_constraint_degree_extension,
    },
};
use p3_blake3::Blake3;
use p3_field::{BasedVectorSpace, PrimeCharacteristicRing, PrimeField64};
use p3_symmetric::CryptographicHasher;
use priv_stark_core::Felt;

use crate::{air::SpendAir, config::Challenge, layout::TRACE_ROWS};

/// Bytes of the digest.
pub const AIR_DIGEST_BYTES: usize = 32;
/// Evaluation points of the constraint fingerprint.
pub const NUM_POINTS: usize = 2;
/// Domain label of the digest.
const LABEL: &[u8] = b"priv-stark/v1 spend AIR digest | constraints at fixed points";

/// The digest of [`SpendAir`], computed on first use.
pub fn air_digest() -> [u8; AIR_DIGEST_BYTES] {
    static DIGEST: spin::Lazy<[u8; AIR_DIGEST_BYTES]> =
        spin::Lazy::new(|| digest_of(SpendAir::shared()));
    *DIGEST
}

/// The digest of any AIR over Goldilocks whose trace has the spend trace's height, as
/// [`air_digest`] computes it for the spend AIR.
///
/// # Panics
/// As [`digest_of_rows`].
pub fn digest_of<A>(air: &A) -> [u8; AIR_DIGEST_BYTES]
where
    A: BaseAir<Felt> + Air<SymbolicAirBuilder<Felt>>,
{
    digest_of_rows(air, TRACE_ROWS)
}

/// The digest of any AIR over Goldilocks whose trace has `trace_rows` rows: the maximum
/// constraint degree in step 1 counts each periodic column's degree against the trace height.
///
/// # Panics
/// When the AIR's symbolic constraints disagree with its declared shape (Plonky3's own check).
pub fn digest_of_rows<A>(air: &A, trace_rows: usize) -> [u8; AIR_DIGEST_BYTES]
where
    A: BaseAir<Felt> + Air<SymbolicAirBuilder<Felt>>,
{
    let layout = AirLayout::from_air(air);
    let (constraints, extension) = get_all_symbolic_constraints::<Felt, Felt, A>(air, layout);
    let degree = get_max_constraint_degree_extension::<Felt, Felt, A>(air, layout, trace_rows);
    let periodic = air.periodic_columns();
    let next_row = air.main_next_row_columns();

    let mut bytes =
        Vec::with_capacity(LABEL.len() + 8 * (64 + periodic.iter().map(Vec::len).sum::<usize>()));
    bytes.extend_from_slice(LABEL);
    let number = |bytes: &mut Vec<u8>, value: usize| {
        bytes.extend_from_slice(&(value as u64).to_le_bytes());
    };

    // 1. The shape.
    for value in [
        air.width(),
        air.num_public_values(),
        air.num_periodic_columns(),
        air.preprocessed_width(),
        next_row.len(),
        constraints.len(),
        extension.len(),
        degree,
    ] {
        number(&mut bytes, value);
    }
    for column in &next_row {
        number(&mut bytes, *column);
    }
    // 2. The periodic columns.
    for column in periodic.iter() {
        number(&mut bytes, column.len());
        for value in column {
            bytes.extend_from_slice(&value.as_canonical_u64().to_le_bytes());
        }
    }
    // 3. The constraints at fixed points. Extension constraints (lookups) are counted above;
    //    the spend AIR has none, and an AIR with some is refused here rather than half-hashed.
    assert!(extension.is_empty(), "the AIR digest covers base-field constraints only");
    for point in 0..NUM_POINTS {
        let assignment = Assignment::new(air, point);
        for constraint in &constraints {
            let value = assignment.evaluate(constraint);
            for coefficient in BasedVectorSpace::<Felt>::as_basis_coefficients_slice(&value) {
                bytes.extend_from_slice(&coefficient.as_canonical_u64().to_le_bytes());
            }
        }
    }
    Blake3 {}.hash_iter(bytes)
}

/// Pseudo-random values for every leaf a constraint can read.
struct Assignment {
    local: Vec<Challenge>,
    next: Vec<Challenge>,
    periodic: Vec<Challenge>,
    public: Vec<Challenge>,
    /// `is_first_row`, `is_last_row`, `is_transition`.
    selectors: [Challenge; 3],
}

impl Assignment {
    fn new<A: BaseAir<Felt>>(air: &A, point: usize) -> Self {
        let mut stream = Stream { point, counter: 0 };
        let mut draw =
            |count: usize| -> Vec<Challenge> { (0..count).map(|_| stream.next()).collect() };
        let local = draw(air.width());
        let next = draw(air.width());
        let periodic = draw(air.num_periodic_columns());
        let public = draw(air.num_public_values());
        let selectors = [stream.next(), stream.next(), stream.next()];
        Self { local, next, periodic, public, selectors }
    }

    fn evaluate(&self, expression: &SymbolicExpression<Felt>) -> Challenge {
        match expression {
            SymbolicExpr::Leaf(leaf) => match leaf {
                BaseLeaf::Variable(variable) => {
                    let values = match variable.entry {
                        BaseEntry::Main { offset: 0 } => &self.local,
                        BaseEntry::Main { .. } => &self.next,
                        BaseEntry::Periodic => &self.periodic,
                        BaseEntry::Public => &self.public,
                        BaseEntry::Preprocessed { .. } => {
                            unreachable!("the spend AIR has no preprocessed columns")
                        }
                    };
                    values[variable.index]
                }
                BaseLeaf::IsFirstRow => self.selectors[0],
                BaseLeaf::IsLastRow => self.selectors[1],
                BaseLeaf::IsTransition => self.selectors[2],
                BaseLeaf::Constant(constant) => Challenge::from(*constant),
            },
            SymbolicExpr::Add { x, y, .. } => self.evaluate(x) + self.evaluate(y),
            SymbolicExpr::Sub { x, y, .. } => self.evaluate(x) - self.evaluate(y),
            SymbolicExpr::Neg { x, .. } => -self.evaluate(x),
            SymbolicExpr::Mul { x, y, .. } => self.evaluate(x) * self.evaluate(y),
        }
    }
}

/// Field elements from BLAKE3 of the label, the point and a counter.
struct Stream {
    point: usize,
    counter: u64,
}

impl Stream {
    fn next(&mut self) -> Challenge {
        let mut input = Vec::with_capacity(LABEL.len() + 16);
        input.extend_from_slice(LABEL);
        input.extend_from_slice(&(self.point as u64).to_le_bytes());
        input.extend_from_slice(&self.counter.to_le_bytes());
        self.counter += 1;
        let hash: [u8; 32] = Blake3 {}.hash_iter(input);
        let word = |i: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&hash[8 * i..8 * i + 8]);
            Felt::from_u64(u64::from_le_bytes(bytes))
        };
        Challenge::from_basis_coefficients_fn(word)
    }
}
