//! The spend AIR as the verifier hands it to Plonky3.
//!
//! Plonky3's verifier evaluates the AIR twice per proof: numerically at the out-of-domain point
//! (the constraint check), and symbolically, only to size the quotient (how many chunks the
//! prover committed). The symbolic pass rebuilds every constraint as an expression tree and was a
//! quarter of a verification (about 0.25 ms of ~1 ms natively, more in WebAssembly), for a number
//! that is a constant of the AIR.
//!
//! [`VerifierAir`] is [`SpendAir`] in every respect — shape, periodic columns, public values and
//! the numeric constraints the verifier checks — except that its symbolic pass states one
//! constraint of the AIR's maximum degree instead of all of them. The quotient size is all the
//! verifier takes from that pass; `tests/verifier_air.rs` checks that both AIRs size it the same
//! (and the prover, the trace check and the security estimate keep using [`SpendAir`] itself).
//! Soundness is untouched: the constraints evaluated at the out-of-domain point are the real ones.
//!
//! Its periodic columns are evaluated at the out-of-domain point by [`crate::periodic`] (sparse
//! Lagrange form, about 150 rows and one inversion) instead of Plonky3's dense interpolation of
//! every column (46 columns, 21 of them 512 rows long), which was a tenth of a verification. To
//! Plonky3 it declares 46 placeholder columns of period 1 — the count is part of the transcript
//! shape; the values are never read — and its constraint pass recovers `ζ` from the transition
//! selector (`ζ − g⁻¹` on the 512-row trace domain) and hands [`SpendAir`] the real values.
//! `tests/verifier_air.rs` checks the values against Plonky3's evaluation of the real columns.

use alloc::{borrow::Cow, vec::Vec};

use p3_air::{
    Air, AirBuilder, BaseAir, BoundaryPublic, RowWindow, WindowAccess, symbolic::SymbolicAirBuilder,
};
use p3_field::{Field, PrimeCharacteristicRing, TwoAdicField};
use p3_matrix::dense::RowMajorMatrix;
use p3_uni_stark::VerifierConstraintFolder;
use priv_stark_core::Felt;

use crate::{
    air::{MAX_CONSTRAINT_DEGREE, SpendAir},
    config::{Challenge, SpendConfig},
    layout::LOG_TRACE_ROWS,
    periodic::PeriodicColumnsAtPoint,
};

/// [`SpendAir`] with a constant-size symbolic pass; see the module documentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifierAir;

impl VerifierAir {
    fn spend() -> &'static SpendAir {
        SpendAir::shared()
    }

    /// The spend AIR's periodic columns, prepared for evaluation at a point.
    pub fn periodic_at_point() -> &'static PeriodicColumnsAtPoint {
        static PERIODIC: spin::Lazy<PeriodicColumnsAtPoint> = spin::Lazy::new(|| {
            PeriodicColumnsAtPoint::new(&SpendAir::shared().periodic_columns(), LOG_TRACE_ROWS)
        });
        &PERIODIC
    }

    /// What Plonky3 sees as the periodic columns: as many as the spend AIR has, each of period
    /// 1 and never read.
    fn placeholder_columns() -> &'static [Vec<Felt>] {
        static PLACEHOLDERS: spin::Lazy<Vec<Vec<Felt>>> = spin::Lazy::new(
            || alloc::vec![alloc::vec![Felt::ZERO]; SpendAir::shared().num_periodic_columns()],
        );
        &PLACEHOLDERS
    }

    /// The out-of-domain point, from the transition selector Plonky3 evaluates there:
    /// `is_transition = ζ − g⁻¹` on the trace domain (subgroup of order 512, shift 1).
    pub fn zeta_from_transition(is_transition: Challenge) -> Challenge {
        is_transition + Felt::two_adic_generator(LOG_TRACE_ROWS).inverse()
    }
}

impl BaseAir<Felt> for VerifierAir {
    fn width(&self) -> usize {
        Self::spend().width()
    }

    fn preprocessed_trace(&self) -> Option<RowMajorMatrix<Felt>> {
        Self::spend().preprocessed_trace()
    }

    fn preprocessed_width(&self) -> usize {
        Self::spend().preprocessed_width()
    }

    fn num_periodic_columns(&self) -> usize {
        Self::spend().num_periodic_columns()
    }

    fn periodic_columns(&self) -> Cow<'_, [Vec<Felt>]> {
        Cow::Borrowed(Self::placeholder_columns())
    }

    fn main_next_row_columns(&self) -> Vec<usize> {
        Self::spend().main_next_row_columns()
    }

    fn preprocessed_next_row_columns(&self) -> Vec<usize> {
        Self::spend().preprocessed_next_row_columns()
    }

    fn num_constraints(&self) -> Option<usize> {
        Self::spend().num_constraints()
    }

    fn max_constraint_degree(&self) -> Option<usize> {
        Self::spend().max_constraint_degree()
    }

    fn num_public_values(&self) -> usize {
        Self::spend().num_public_values()
    }

    fn public_boundary_io(&self) -> &[BoundaryPublic] {
        Self::spend().public_boundary_io()
    }

    fn assumes_boolean_trace(&self) -> bool {
        Self::spend().assumes_boolean_trace()
    }
}

/// The constraint check at the out-of-domain point: exactly [`SpendAir`]'s constraints, with the
/// periodic columns' real values at `ζ`.
impl<'a> Air<VerifierConstraintFolder<'a, SpendConfig>> for VerifierAir {
    fn eval(&self, builder: &mut VerifierConstraintFolder<'a, SpendConfig>) {
        let zeta = Self::zeta_from_transition(builder.is_transition);
        let periodic = Self::periodic_at_point().evaluate(zeta);
        Self::spend().eval(&mut WithPeriodic { inner: builder, periodic: &periodic });
    }
}

/// Plonky3's verifier folder with other periodic values; everything else is forwarded.
struct WithPeriodic<'f, 'a> {
    inner: &'f mut VerifierConstraintFolder<'a, SpendConfig>,
    periodic: &'f [Challenge],
}

impl<'a> AirBuilder for WithPeriodic<'_, 'a> {
    type F = Felt;
    type Expr = Challenge;
    type Var = Challenge;
    type PreprocessedWindow = RowWindow<'a, Challenge>;
    type MainWindow = RowWindow<'a, Challenge>;
    type PublicVar = Felt;
    type PeriodicVar = Challenge;

    fn main(&self) -> Self::MainWindow {
        self.inner.main()
    }

    fn preprocessed(&self) -> &Self::PreprocessedWindow {
        self.inner.preprocessed()
    }

    fn is_first_row(&self) -> Self::Expr {
        self.inner.is_first_row()
    }

    fn is_last_row(&self) -> Self::Expr {
        self.inner.is_last_row()
    }

    fn is_transition(&self) -> Self::Expr {
        self.inner.is_transition()
    }

    fn assert_zero<I: Into<Self::Expr>>(&mut self, x: I) {
        self.inner.assert_zero(x);
    }

    fn public_values(&self) -> &[Self::PublicVar] {
        self.inner.public_values()
    }

    fn periodic_values(&self) -> &[Self::PeriodicVar] {
        self.periodic
    }
}

/// The quotient sizing pass: one constraint of degree [`MAX_CONSTRAINT_DEGREE`] (a trace cell to
/// that power), which sizes the quotient as all of [`SpendAir`]'s constraints do.
impl Air<SymbolicAirBuilder<Felt>> for VerifierAir {
    fn eval(&self, builder: &mut SymbolicAirBuilder<Felt>) {
        let main = builder.main();
        let cell: <SymbolicAirBuilder<Felt> as AirBuilder>::Expr = main.current_slice()[0].into();
        builder.assert_zero(cell.exp_u64(MAX_CONSTRAINT_DEGREE as u64));
    }
}
