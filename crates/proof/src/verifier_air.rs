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

use alloc::{borrow::Cow, vec::Vec};

use p3_air::{
    Air, AirBuilder, BaseAir, BoundaryPublic, WindowAccess, symbolic::SymbolicAirBuilder,
};
use p3_field::PrimeCharacteristicRing;
use p3_matrix::dense::RowMajorMatrix;
use p3_uni_stark::VerifierConstraintFolder;
use priv_stark_core::Felt;

use crate::{
    air::{MAX_CONSTRAINT_DEGREE, SpendAir},
    config::SpendConfig,
};

/// [`SpendAir`] with a constant-size symbolic pass; see the module documentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifierAir;

impl VerifierAir {
    fn spend() -> &'static SpendAir {
        SpendAir::shared()
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
        Self::spend().periodic_columns()
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

/// The constraint check at the out-of-domain point: exactly [`SpendAir`]'s constraints.
impl<'a> Air<VerifierConstraintFolder<'a, SpendConfig>> for VerifierAir {
    fn eval(&self, builder: &mut VerifierConstraintFolder<'a, SpendConfig>) {
        Self::spend().eval(builder);
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
