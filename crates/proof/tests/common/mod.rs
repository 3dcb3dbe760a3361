//! Shared fixtures: deterministic spends and one cached proof per test binary.
#![allow(dead_code)]

use std::sync::OnceLock;

use priv_stark_proof::{
    builder::{SpendScenario, random_spend},
    prover::{SpendProof, prove},
};
use rand::{SeedableRng, rngs::StdRng};

/// A deterministic spend of 1_250_000 out of a 5_000_000 note among 40 other leaves.
pub fn scenario(seed: u64) -> SpendScenario {
    let mut rng = StdRng::seed_from_u64(seed);
    random_spend(&mut rng, 5_000_000, 1_250_000, 40).expect("scenario")
}

/// A proof seed that is not all zeros.
pub fn seed(byte: u8) -> [u8; 32] {
    let mut seed = [byte; 32];
    seed[0] = 0xa5;
    seed
}

/// The scenario of seed 1 and its proof, made once per test binary.
pub fn proven() -> &'static (SpendScenario, SpendProof) {
    static PROVEN: OnceLock<(SpendScenario, SpendProof)> = OnceLock::new();
    PROVEN.get_or_init(|| {
        let scenario = scenario(1);
        let proof = prove(&scenario.witness, seed(1)).expect("prove");
        (scenario, proof)
    })
}

/// Forged spends for the amount-range tests: a trace that satisfies every constraint of the AIR
/// for a field-element amount no valid `u64` amount maps to, proven with Plonky3 directly.
pub mod forge {
    use p3_air::check_all_constraints;
    use p3_field::{PrimeCharacteristicRing, PrimeField64};
    use priv_stark_core::{
        Digest, Domain, Felt, field::MODULUS, notes::VALUE_LIMIT, sponge::hash_elements,
    };
    use priv_stark_proof::{
        air::SpendAir,
        builder::random_spend,
        config::build_config,
        encoding::proof_header,
        params::ParameterSet,
        statement::{NUM_PUBLIC_VALUES, PV_AMOUNT, PublicInputs, SpendWitness},
        trace::build_trace,
        transcript::transcript_prefix,
    };
    use rand::{SeedableRng, rngs::StdRng};

    /// The note value of every forged spend: large enough for `2^32 − 2` to be paid from it.
    pub const NOTE_VALUE: u64 = 1 << 40;

    /// A forged statement: the public values in AIR order (the amount as the field element
    /// `amount mod p`) and the 136-byte wire encoding with the `u64` amount as claimed.
    pub struct Forged {
        /// The claimed `u64` amount (not in `1..2^62`).
        pub amount: u64,
        /// The 17 public values the proof is about.
        pub public: [Felt; NUM_PUBLIC_VALUES],
        /// The wire encoding a caller would send: digests, then `amount` as a `u64`.
        pub encoded: Vec<u8>,
        /// The honest public inputs of the same witness paying 1, whose digests the forged
        /// statement shares except `change`.
        pub honest: PublicInputs,
    }

    /// Amounts whose forged traces satisfy every constraint: in `[2^62, p)` they are
    /// "negative" (the change note gains value), at `p` and above they alias a small amount.
    pub const AMOUNTS: [u64; 5] =
        [MODULUS - 1, MODULUS - 1_000_000, MODULUS, MODULUS + 1_000, u64::MAX];

    /// The forged trace for `amount` and its statement; panics if the trace does not satisfy the
    /// AIR (the point of the test is that it does).
    pub fn statement(amount: u64) -> (p3_matrix::dense::RowMajorMatrix<Felt>, Forged) {
        assert!(amount >= VALUE_LIMIT);
        let mut rng = StdRng::seed_from_u64(amount);
        let scenario = random_spend(&mut rng, NOTE_VALUE, 1, 20).expect("scenario");
        let field_amount = Felt::from_u64(amount);
        // Everything but the change note is independent of the amount.
        let mut values = scenario.witness.derive().expect("honest witness");
        let change = Felt::from_u64(NOTE_VALUE) - field_amount;
        values.change_value = change.as_canonical_u64();
        assert!(values.change_value < VALUE_LIMIT, "the change passes the range check");
        let mut note = [Felt::ZERO; 5];
        note[0] = change;
        note[1..].copy_from_slice(&values.change_precommitment.0);
        values.change = hash_elements(Domain::Note, &note);
        let witness = SpendWitness { amount, ..scenario.witness.clone() };
        let trace = build_trace(&witness, &values);
        let mut public = scenario.public_inputs.with_change(values.change).to_field_elements();
        public[PV_AMOUNT] = field_amount;
        let report = check_all_constraints(SpendAir::shared(), &trace, &public, None);
        assert!(report.failures.is_empty(), "the forged trace satisfies the AIR");
        let honest = scenario.public_inputs;
        let mut encoded = Vec::new();
        for digest in [honest.root(), honest.nullifier(), values.change] {
            encoded.extend_from_slice(&digest.to_bytes());
        }
        encoded.extend_from_slice(&amount.to_le_bytes());
        encoded.extend_from_slice(&honest.context().to_bytes());
        (trace, Forged { amount, public, encoded, honest })
    }

    /// Proves the forged trace of `amount` under `params` with Plonky3 directly (the project's
    /// prover refuses the witness) and returns the proof bytes with their header.
    pub fn prove(params: &ParameterSet, amount: u64) -> (Vec<u8>, Forged) {
        let (trace, forged) = statement(amount);
        let config = build_config(params, &transcript_prefix(params), super::seed(77));
        let proof = p3_uni_stark::prove(&config, SpendAir::shared(), trace, &forged.public)
            .expect("Plonky3 proves a satisfied trace");
        let mut bytes = proof_header(params.id).to_vec();
        bytes.extend(postcard::to_allocvec(&proof).expect("encode"));
        (bytes, forged)
    }

    /// The digest a caller would read back from the forged statement's encoding.
    pub fn change_of(forged: &Forged) -> Digest {
        Digest::from_bytes(&forged.encoded[64..96], "change").expect("canonical")
    }
}

/// Proofs of traces the project's prover refuses, made with Plonky3's prover itself.
///
/// `p3_uni_stark::prove` runs `p3_air::check_constraints` first in debug builds and panics on an
/// unsatisfied row; a release build skips it and proves whatever trace it is given. [`Unchecked`]
/// gives the prover the transition AIR's constraints for everything it computes (the symbolic
/// pass, the quotient) and nothing to check in that debug pass, so debug and release builds
/// alike prove the forged trace exactly as a release prover would.
pub mod unchecked_transition {
    use std::borrow::Cow;

    use p3_air::{Air, BaseAir, DebugConstraintBuilder, SymbolicAirBuilder};
    use p3_uni_stark::ProverConstraintFolder;
    use priv_stark_core::Felt;
    use priv_stark_proof::{
        config::{SpendConfig, build_config},
        encoding::{HEADER_BYTES, proof_header_of},
        transition::{
            TransitionSet, air::TransitionAir, proof::TRANSITION_MAGIC,
            transition_transcript_prefix,
        },
        verifier::decode_body,
    };

    /// The transition AIR of one revision without Plonky3's debug constraint check.
    struct Unchecked(&'static TransitionAir);

    impl BaseAir<Felt> for Unchecked {
        fn width(&self) -> usize {
            self.0.width()
        }

        fn num_public_values(&self) -> usize {
            BaseAir::<Felt>::num_public_values(self.0)
        }

        fn num_periodic_columns(&self) -> usize {
            self.0.num_periodic_columns()
        }

        fn periodic_columns(&self) -> Cow<'_, [Vec<Felt>]> {
            self.0.periodic_columns()
        }

        fn max_constraint_degree(&self) -> Option<usize> {
            self.0.max_constraint_degree()
        }
    }

    impl Air<SymbolicAirBuilder<Felt>> for Unchecked {
        fn eval(&self, builder: &mut SymbolicAirBuilder<Felt>) {
            self.0.eval(builder);
        }
    }

    impl<'a> Air<ProverConstraintFolder<'a, SpendConfig>> for Unchecked {
        fn eval(&self, builder: &mut ProverConstraintFolder<'a, SpendConfig>) {
            self.0.eval(builder);
        }
    }

    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    impl<'a>
        Air<
            p3_uni_stark::VectorizedConstraintFolder<
                'a,
                SpendConfig,
                { p3_uni_stark::QUOTIENT_ILP },
            >,
        > for Unchecked
    {
        fn eval(
            &self,
            builder: &mut p3_uni_stark::VectorizedConstraintFolder<
                'a,
                SpendConfig,
                { p3_uni_stark::QUOTIENT_ILP },
            >,
        ) {
            self.0.eval(builder);
        }
    }

    /// The debug pass: nothing to check (a release build has no such pass at all).
    impl<'a> Air<DebugConstraintBuilder<'a, Felt>> for Unchecked {
        fn eval(&self, _builder: &mut DebugConstraintBuilder<'a, Felt>) {}
    }

    /// Proves `trace` for `public` under `set`, its AIR and its transcript; the proof bytes with
    /// their header.
    pub fn prove(
        set: &TransitionSet,
        trace: p3_matrix::dense::RowMajorMatrix<Felt>,
        public: &[Felt],
    ) -> Vec<u8> {
        let params = &set.params;
        let config = build_config(params, &transition_transcript_prefix(set), super::seed(99));
        let air = Unchecked(TransitionAir::shared(set.revision));
        let proof = p3_uni_stark::prove(&config, &air, trace, public).expect("proves");
        let mut bytes = proof_header_of(TRANSITION_MAGIC, params.id).to_vec();
        bytes.extend(postcard::to_allocvec(&proof).expect("encode"));
        bytes
    }

    /// Whether Plonky3's verifier alone, with `set`'s real transition AIR, accepts `proof` for
    /// the field elements `public`: the verifier without the public-input rules.
    pub fn plonky3_accepts(set: &TransitionSet, proof: &[u8], public: &[Felt]) -> bool {
        let config = build_config(&set.params, &transition_transcript_prefix(set), [0; 32]);
        let stark = decode_body(&proof[HEADER_BYTES..]).expect("decodes");
        p3_uni_stark::verify(&config, TransitionAir::shared(set.revision), &stark, public).is_ok()
    }
}
