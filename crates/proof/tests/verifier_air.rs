//! The verifier's view of the AIR ([`VerifierAir`]) is the spend AIR except for its symbolic
//! pass, which Plonky3's verifier uses only to size the quotient: these tests pin that the two
//! agree on everything the verifier reads.

use p3_air::{BaseAir, symbolic::AirLayout};
use p3_uni_stark::get_log_num_quotient_chunks;
use priv_stark_core::Felt;
use priv_stark_proof::{
    air::{MAX_CONSTRAINT_DEGREE, SpendAir},
    layout::TRACE_ROWS,
    verifier_air::VerifierAir,
};

fn layout_of(air: &impl BaseAir<Felt>) -> AirLayout {
    AirLayout {
        preprocessed_width: air.preprocessed_width(),
        main_width: air.width(),
        num_public_values: air.num_public_values(),
        num_periodic_columns: air.num_periodic_columns(),
        ..Default::default()
    }
}

#[test]
fn both_airs_size_the_quotient_alike() {
    let spend = SpendAir::shared();
    for is_zk in [0, 1] {
        let real =
            get_log_num_quotient_chunks::<Felt, _>(spend, layout_of(spend), TRACE_ROWS, is_zk);
        let fast = get_log_num_quotient_chunks::<Felt, _>(
            &VerifierAir,
            layout_of(&VerifierAir),
            TRACE_ROWS,
            is_zk,
        );
        assert_eq!(real, fast, "is_zk {is_zk}");
    }
}

#[test]
fn the_degree_witness_is_the_real_maximum_degree() {
    // Inferred from the spend AIR's own constraints (periodic columns counted), without the hint:
    // the witness constraint of VerifierAir must have exactly this degree.
    let spend = SpendAir::shared();
    let inferred = p3_air::symbolic::get_max_constraint_degree_extension::<Felt, Felt, _>(
        spend,
        layout_of(spend),
        TRACE_ROWS,
    );
    assert_eq!(inferred, MAX_CONSTRAINT_DEGREE);
    let witnessed = p3_air::symbolic::get_max_constraint_degree_extension::<Felt, Felt, _>(
        &VerifierAir,
        layout_of(&VerifierAir),
        TRACE_ROWS,
    );
    assert_eq!(witnessed, inferred);
}

#[test]
fn both_airs_have_the_same_shape() {
    let spend = SpendAir::shared();
    let fast = VerifierAir;
    assert_eq!(fast.width(), spend.width());
    assert_eq!(fast.num_public_values(), spend.num_public_values());
    assert_eq!(fast.periodic_columns(), spend.periodic_columns());
    assert_eq!(fast.main_next_row_columns(), spend.main_next_row_columns());
    assert_eq!(fast.preprocessed_width(), spend.preprocessed_width());
    assert_eq!(fast.max_constraint_degree(), spend.max_constraint_degree());
    assert_eq!(fast.num_constraints(), spend.num_constraints());
    assert_eq!(fast.public_boundary_io(), spend.public_boundary_io());
    assert_eq!(fast.assumes_boolean_trace(), spend.assumes_boolean_trace());
}
