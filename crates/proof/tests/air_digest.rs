//! The AIR digest bound into the transcript of every parameter set from 3 on: computed from the
//! constraints and periodic columns, pinned here, sensitive to any change of either, blind to
//! rewriting a constraint without changing it.

use crate::common;

use std::borrow::Cow;

use p3_air::{Air, AirBuilder, BaseAir, WindowAccess, symbolic::SymbolicAirBuilder};
use p3_field::PrimeCharacteristicRing;
use priv_stark_core::Felt;
use priv_stark_proof::{
    air::SpendAir,
    air_digest::{air_digest, digest_of},
    config::build_config,
    encoding::proof_header,
    params::{AirBinding, PARAMETER_SET, PARAMETER_SET_2, ParameterSet},
    prover::prove_with,
    transcript::{AIR_DIGEST_LABEL, TRANSCRIPT_LABEL, transcript_prefix},
    verifier::verify_with,
    verifier_air::VerifierAir,
};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Update deliberately with any change of the constraints or periodic columns: the change is a
/// new transcript, hence a new parameter set (proofs of the old one would no longer verify).
const PINNED: &str = "d0270ead8d049d82a222ad15a74eb478fa7c1c7d45c12e4c17e708f021a6a8e0";

#[test]
fn the_digest_is_pinned() {
    assert_eq!(hex(&air_digest()), PINNED);
    assert_eq!(digest_of(&SpendAir::new()), air_digest());
}

/// The spend AIR with one periodic value changed, or one constraint added.
struct Tweaked {
    periodic: Vec<Vec<Felt>>,
    extra_constraint: bool,
}

impl BaseAir<Felt> for Tweaked {
    fn width(&self) -> usize {
        SpendAir::shared().width()
    }
    fn num_public_values(&self) -> usize {
        SpendAir::shared().num_public_values()
    }
    fn num_periodic_columns(&self) -> usize {
        self.periodic.len()
    }
    fn periodic_columns(&self) -> Cow<'_, [Vec<Felt>]> {
        Cow::Borrowed(&self.periodic)
    }
}

impl Air<SymbolicAirBuilder<Felt>> for Tweaked {
    fn eval(&self, builder: &mut SymbolicAirBuilder<Felt>) {
        SpendAir::shared().eval(builder);
        if self.extra_constraint {
            let cell: <SymbolicAirBuilder<Felt> as AirBuilder>::Expr =
                builder.main().current_slice()[44].into();
            builder.assert_zero(cell.clone() * cell);
        }
    }
}

#[test]
fn any_change_of_constraints_or_periodic_columns_changes_the_digest() {
    let periodic = SpendAir::shared().periodic_columns().into_owned();
    let same = Tweaked { periodic: periodic.clone(), extra_constraint: false };
    assert_eq!(digest_of(&same), air_digest(), "must-pass twin: the same AIR");

    let extra = Tweaked { periodic: periodic.clone(), extra_constraint: true };
    assert_ne!(digest_of(&extra), air_digest());

    for (column, row) in [(0, 3), (5, 0), (30, 511), (45, 511)] {
        let mut changed = periodic.clone();
        changed[column][row] += Felt::ONE;
        let tweaked = Tweaked { periodic: changed, extra_constraint: false };
        assert_ne!(digest_of(&tweaked), air_digest(), "column {column} row {row}");
    }
    // The verifier's view of the AIR has another symbolic pass, hence another digest: the
    // digest is always taken of the spend AIR itself.
    assert_ne!(digest_of(&VerifierAir), air_digest());
}

/// A toy AIR with one constraint, written in one of three ways.
struct Toy(u8);

impl BaseAir<Felt> for Toy {
    fn width(&self) -> usize {
        3
    }
}

impl Air<SymbolicAirBuilder<Felt>> for Toy {
    fn eval(&self, builder: &mut SymbolicAirBuilder<Felt>) {
        let main = builder.main();
        let [x, y, z]: [<SymbolicAirBuilder<Felt> as AirBuilder>::Expr; 3] =
            core::array::from_fn(|i| main.current_slice()[i].into());
        let constraint = match self.0 {
            0 => x * (y + z),
            1 => x.clone() * z + y * x,
            _ => x * (y + z) + Felt::ONE,
        };
        builder.assert_zero(constraint);
    }
}

#[test]
fn rewriting_a_constraint_without_changing_it_keeps_the_digest() {
    assert_eq!(digest_of(&Toy(0)), digest_of(&Toy(1)));
    assert_ne!(digest_of(&Toy(0)), digest_of(&Toy(2)));
}

#[test]
fn sets_one_and_two_keep_their_transcript_prefix() {
    // Byte for byte the prefix of the landed parameter set 2, so its proofs still verify.
    let mut legacy = TRANSCRIPT_LABEL.to_vec();
    for number in [1u32, 1, 2, 512, 46, 17, 5, 7, 3, 23, 16, 0, 0, 0, 3, 0, 2] {
        legacy.extend_from_slice(&number.to_le_bytes());
    }
    assert_eq!(transcript_prefix(&PARAMETER_SET_2), legacy);
}

/// A cheap set (for test speed) that names the AIR by its digest.
fn digest_bound() -> ParameterSet {
    ParameterSet {
        id: 9,
        num_queries: 4,
        query_pow_bits: 1,
        air_binding: AirBinding::Digest,
        ..PARAMETER_SET
    }
}

#[test]
fn the_digest_binds_the_transcript() {
    let params = digest_bound();
    let prefix = transcript_prefix(&params);
    assert!(prefix.ends_with(&[AIR_DIGEST_LABEL, &air_digest()].concat()));

    let (scenario, _) = common::proven();
    let proof = prove_with(&params, &scenario.witness, common::seed(11)).unwrap();
    verify_with(&params, &proof.bytes, &scenario.public_inputs).unwrap();

    // Must-fail twin: the same witness proven under a transcript naming another AIR digest.
    let mut other = prefix.clone();
    let last = other.len() - 1;
    other[last] ^= 1;
    let config = build_config(&params, &other, common::seed(11));
    let values = scenario.witness.derive().unwrap();
    let trace = priv_stark_proof::trace::build_trace(&scenario.witness, &values);
    let public = scenario.public_inputs.to_field_elements();
    let stark = p3_uni_stark::prove(&config, SpendAir::shared(), trace, &public).unwrap();
    let mut bytes = proof_header(params.id).to_vec();
    bytes.extend(postcard::to_allocvec(&stark).unwrap());
    let error = verify_with(&params, &bytes, &scenario.public_inputs).unwrap_err();
    assert_eq!(error.code(), "invalid_proof");
}
