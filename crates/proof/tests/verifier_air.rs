//! The verifier's view of the AIR ([`VerifierAir`]) is the spend AIR except for its symbolic
//! pass, which Plonky3's verifier uses only to size the quotient: these tests pin that the two
//! agree on everything the verifier reads.

use p3_air::{BaseAir, symbolic::AirLayout};
use p3_commit::{PeriodicColumns, PolynomialSpace};
use p3_field::{PrimeCharacteristicRing, coset::TwoAdicMultiplicativeCoset};
use p3_uni_stark::get_log_num_quotient_chunks;
use priv_stark_core::Felt;
use priv_stark_proof::{
    air::{MAX_CONSTRAINT_DEGREE, SpendAir},
    builder::random_felt,
    config::Challenge,
    layout::{LOG_TRACE_ROWS, TRACE_ROWS},
    periodic::PeriodicColumnsAtPoint,
    verifier_air::VerifierAir,
};
use rand::{SeedableRng, rngs::StdRng};

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
    assert_eq!(fast.num_periodic_columns(), spend.num_periodic_columns());
    assert_eq!(fast.periodic_columns().len(), spend.periodic_columns().len());
    assert_eq!(fast.main_next_row_columns(), spend.main_next_row_columns());
    assert_eq!(fast.preprocessed_width(), spend.preprocessed_width());
    assert_eq!(fast.max_constraint_degree(), spend.max_constraint_degree());
    assert_eq!(fast.num_constraints(), spend.num_constraints());
    assert_eq!(fast.public_boundary_io(), spend.public_boundary_io());
    assert_eq!(fast.assumes_boolean_trace(), spend.assumes_boolean_trace());
}

fn random_point(rng: &mut StdRng) -> Challenge {
    Challenge::new([random_felt(rng), random_felt(rng), random_felt(rng)])
}

#[test]
fn periodic_values_at_a_point_are_plonky3s() {
    let domain = TwoAdicMultiplicativeCoset::new(Felt::ONE, LOG_TRACE_ROWS).unwrap();
    let columns = SpendAir::shared().periodic_columns();
    let screened = PeriodicColumns::new(&columns, TRACE_ROWS).unwrap();
    let mut rng = StdRng::seed_from_u64(8);
    for _ in 0..20 {
        let zeta = random_point(&mut rng);
        let expected: Vec<Challenge> = domain.evaluate_periodic_columns_at(screened, zeta);
        assert_eq!(VerifierAir::periodic_at_point().evaluate(zeta), expected);
    }
    // Base-field points too, and another set of columns (dense, of several periods).
    let others: Vec<Vec<Felt>> =
        (0..6).map(|i| (0..(1usize << (i + 1))).map(|_| random_felt(&mut rng)).collect()).collect();
    let evaluator = PeriodicColumnsAtPoint::new(&others, LOG_TRACE_ROWS);
    let screened = PeriodicColumns::new(&others, TRACE_ROWS).unwrap();
    for _ in 0..5 {
        let zeta = Challenge::from(random_felt(&mut rng));
        let expected: Vec<Challenge> = domain.evaluate_periodic_columns_at(screened, zeta);
        assert_eq!(evaluator.evaluate(zeta), expected);
    }
}

#[test]
fn zeta_is_recovered_from_the_transition_selector() {
    let domain = TwoAdicMultiplicativeCoset::new(Felt::ONE, LOG_TRACE_ROWS).unwrap();
    let mut rng = StdRng::seed_from_u64(9);
    for _ in 0..10 {
        let zeta = random_point(&mut rng);
        let selectors = domain.selectors_at_point(zeta);
        assert_eq!(VerifierAir::zeta_from_transition(selectors.is_transition), zeta);
    }
}
