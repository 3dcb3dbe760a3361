//! The two transition parameter sets: 17, which the prover makes (revision two of the AIR: the
//! memo proven, every output below 2^62), and 16 (revision one), still verified. Each fix of the
//! red team's findings is shown on set 17 beside its must-fail twin on set 16, where the same
//! forgery is a valid proof.

use crate::common::{self, unchecked_transition as unchecked};

use p3_air::check_all_constraints;
use p3_field::{PrimeCharacteristicRing, PrimeField64};
use priv_stark_core::{Felt, notes};
use priv_stark_proof::{
    ProofError,
    builder::{TransitionScenario, build_transition, random_digest},
    errors::FailedCheck,
    transition::{
        Revision, TRANSITION_PARAMETER_SET, TRANSITION_SET_16, TRANSITION_SET_17, TRANSITION_SETS,
        TransitionSet,
        air::TransitionAir,
        layout::{P_MEMO, output_row, p_output_note},
        prove_transition, prove_transition_in,
        statement::{PV_MEMO, PV_OUTPUT_1},
        trace::build_trace,
        transition_air_digest, transition_transcript_prefix, verify_transition,
    },
};
use rand::{SeedableRng, rngs::StdRng};

fn scenario(seed: u64, inputs: [u64; 2], outputs: [u64; 2], exit: u64) -> TransitionScenario {
    let mut rng = StdRng::seed_from_u64(seed);
    let context = random_digest(&mut rng);
    build_transition(&mut rng, inputs, outputs, exit, 20, context).expect("scenario")
}

fn code(result: Result<(), ProofError>) -> &'static str {
    result.expect_err("must fail").code()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn fixture_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/transition")
}

const REFUSED: Result<(), ProofError> =
    Err(ProofError::InvalidProof { check: FailedCheck::Constraints });

#[test]
fn the_prover_makes_set_17_and_set_16_still_verifies() {
    assert_eq!(TRANSITION_PARAMETER_SET, TRANSITION_SET_17.params);
    assert_eq!(TRANSITION_SETS.map(|set| set.params.id), [17, 16]);
    let built = scenario(40, [300_000, 0], [120_000, 130_000], 50_000);
    let (newest, public) = prove_transition(&built.witness, common::seed(40)).unwrap();
    assert_eq!(newest[5], 17);
    assert_eq!(verify_transition(&newest, &public), Ok(()));
    let (older, again) = prove_transition_in(&TRANSITION_SET_16, &built.witness, common::seed(41))
        .expect("set 16 proves");
    assert_eq!(again, public);
    assert_eq!(older[5], 16);
    assert_eq!(verify_transition(&older, &public), Ok(()));
    println!("transition proof bytes: set 17 {}, set 16 {}", newest.len(), older.len());

    // The wire entry the bindings call: the set asked for, or a refusal for one that is not a
    // transition set.
    let witness = built.witness.to_bytes();
    let wired = priv_stark_proof::wire::prove_transition_in_set(&witness, &common::seed(42), 16)
        .expect("set 16 over the wire");
    assert_eq!(wired[5], 16);
    assert_eq!(verify_transition(&wired, &public), Ok(()));
    for id in [3, 18] {
        assert_eq!(
            priv_stark_proof::wire::prove_transition_in_set(&witness, &common::seed(42), id),
            Err(ProofError::UnsupportedParameterSet { got: id })
        );
    }

    // One set's proof under the other's header: another width, refused at the shape; an unknown
    // set at the header.
    let mut relabelled = older.clone();
    relabelled[5] = 17;
    assert_eq!(code(verify_transition(&relabelled, &public)), "invalid_proof_shape");
    let mut relabelled = newest.clone();
    relabelled[5] = 16;
    assert_eq!(code(verify_transition(&relabelled, &public)), "invalid_proof_shape");
    for id in [0, 3, 15, 18, 255] {
        relabelled[5] = id;
        assert_eq!(
            verify_transition(&relabelled, &public),
            Err(ProofError::UnsupportedParameterSet { got: id })
        );
    }
}

/// The AIR digests: revision one's pinned in `transition.rs`; revision two's here. Update
/// deliberately with any change of revision two while set 17 has not shipped; after that a change
/// is a new revision and a new set.
const PINNED_DIGEST_TWO: &str = "0f67a17e2e86c14d530f3f908db3fdb861775bf6637caf2fe35edfe0e19e1a5e";

#[test]
fn the_revision_two_digest_is_pinned_and_differs_from_revision_one() {
    let two = transition_air_digest(Revision::Two);
    assert_eq!(hex(&two), PINNED_DIGEST_TWO);
    assert_ne!(two, transition_air_digest(Revision::One));
}

/// The public inputs with the memo replaced by `memo`.
fn with_memo(public: &[Felt], memo: [Felt; 2]) -> Vec<Felt> {
    let mut public = public.to_vec();
    public[PV_MEMO..PV_MEMO + 2].copy_from_slice(&memo);
    public
}

/// A faulty wallet library publishes a transition whose memo does not mask the output values
/// (here: the values off by one), so a restore from the key cannot find the outputs. Set 17
/// refuses it; set 16 accepts it (its AIR never reads the memo), the finding reproduced.
#[test]
fn a_memo_that_does_not_mask_the_outputs_is_refused_by_set_17_only() {
    let built = scenario(42, [300_000, 200_000], [450_000, 50_000], 0);
    let values = built.witness.derive().unwrap();
    let honest = built.public_inputs.to_field_elements();
    let memo = built.public_inputs.memo();
    let wrong = with_memo(&honest, [memo[0] + Felt::ONE, memo[1]]);
    for set in &TRANSITION_SETS {
        let air = TransitionAir::shared(set.revision);
        let trace = build_trace(set.revision, &built.witness, &values);
        let failures = check_all_constraints(air, &trace, &wrong, None).failures;
        let proof = unchecked::prove(set, trace, &wrong);
        let verdict = verify_transition(&proof, &public_with(&built, &wrong));
        match set.revision {
            Revision::Two => {
                assert!(!failures.is_empty());
                assert!(failures.iter().all(|failure| failure.row == output_row(P_MEMO)));
                assert_eq!(verdict, REFUSED);
            }
            Revision::One => {
                assert!(failures.is_empty());
                assert_eq!(verdict, Ok(()), "set 16 does not prove the memo");
            }
        }
    }
    // Must-pass twin: the honest memo under set 17, proven the same way.
    let trace = build_trace(Revision::Two, &built.witness, &values);
    let proof = unchecked::prove(&TRANSITION_SET_17, trace, &honest);
    assert_eq!(verify_transition(&proof, &built.public_inputs), Ok(()));
}

/// The encoded public inputs of `built` with the field elements `public` in place of its own.
fn public_with(
    built: &TransitionScenario,
    public: &[Felt],
) -> priv_stark_proof::transition::TransitionPublicInputs {
    let mut bytes = built.public_inputs.to_bytes();
    for (i, value) in public.iter().enumerate() {
        // Every public value is one little-endian u64 in the encoding, in the same order.
        bytes[i * 8..i * 8 + 8].copy_from_slice(&value.as_canonical_u64().to_le_bytes());
    }
    priv_stark_proof::transition::TransitionPublicInputs::from_bytes(&bytes).expect("decodes")
}

/// Two notes of 2^61 merged into one output of exactly 2^62, a note the core refuses to open:
/// set 16's AIR range-checks `w − MIN` and proves it; set 17's range-checks `w` too and refuses.
#[test]
fn an_output_of_2_pow_62_is_refused_by_set_17_only() {
    const HALF: u64 = 1 << 61;
    let built = scenario(43, [HALF, HALF], [(1 << 62) - 1_000, 1_000], 0);
    let values = built.witness.derive().unwrap();
    let mut witness = built.witness.clone();
    witness.outputs = [1 << 62, 0];
    assert_eq!(witness.derive().unwrap_err().code(), "value_out_of_range");
    let sk = witness.spending_key;
    let first = built.public_inputs.nullifiers()[0];
    let pad = notes::transition_memo_pad(&sk, &first);
    for set in &TRANSITION_SETS {
        let trace = build_trace(set.revision, &witness, &values);
        // The public inputs this trace proves: its output notes as hashed in the trace, the memo
        // masking its output values, as a forger would publish them.
        let width = set.revision.width();
        let mut public = built.public_inputs.to_field_elements();
        for j in 0..2 {
            let row = output_row(p_output_note(j)) * width;
            let offset = PV_OUTPUT_1 + 4 * j;
            public[offset..offset + 4].copy_from_slice(&trace.values[row..row + 4]);
        }
        let outputs = witness.outputs.map(Felt::from_u64);
        let public = with_memo(&public, [pad[0] + outputs[0], pad[1] + outputs[1]]);
        let air = TransitionAir::shared(set.revision);
        let failures = check_all_constraints(air, &trace, &public, None).failures;
        let proof = unchecked::prove(set, trace, &public);
        let verdict = verify_transition(&proof, &public_with(&built, &public));
        match set.revision {
            Revision::Two => {
                assert!(!failures.is_empty());
                assert_eq!(verdict, REFUSED);
            }
            Revision::One => {
                assert!(failures.is_empty(), "set 16 proves outputs below 2^62 + 1000 only");
                assert_eq!(verdict, Ok(()));
            }
        }
    }
    // Must-pass twin: the largest output a note can hold, 2^62 − 1, under set 17.
    let largest = scenario(44, [HALF, HALF - 1], [(1 << 62) - 1, 0], 0);
    let (proof, public) = prove_transition(&largest.witness, common::seed(44)).unwrap();
    assert_eq!(verify_transition(&proof, &public), Ok(()));
}

/// Set 17's golden proof in `test/fixtures/transition/set-17/` (the same exit as set 16's: 50,000
/// from a note of 300,000 with change 250,000): verified on every run beside set 16's, with its
/// twin; the bindings' tests verify the same bytes on both backends.
#[test]
fn the_set_17_golden_proof_verifies_and_its_twin_does_not() {
    let dir = fixture_dir().join("set-17");
    let proof = std::fs::read(dir.join("proof.bin")).expect("proof.bin");
    let public = std::fs::read(dir.join("public.bin")).expect("public.bin");
    assert_eq!(proof[5], 17);
    assert_eq!(priv_stark_proof::wire::verify_transition(&proof, &public), Ok(()));
    let mut twin = public.clone();
    // The first memo element: refused because the transcript binds every public input (set 16
    // refuses this too); that set 17's AIR proves the memo is the differential test above.
    twin[200] ^= 1;
    assert_eq!(
        priv_stark_proof::wire::verify_transition(&proof, &twin).unwrap_err().code(),
        "invalid_proof"
    );
    // The same transition as set 16's golden proof, so the two differ only in their set.
    let older = std::fs::read(fixture_dir().join("public.bin")).expect("public.bin");
    assert_eq!(older, public);
}

#[test]
fn each_set_has_its_own_transcript_and_width() {
    let prefix = |set: &TransitionSet| transition_transcript_prefix(set);
    assert_ne!(prefix(&TRANSITION_SET_16), prefix(&TRANSITION_SET_17));
    assert_eq!(TRANSITION_SETS.map(|set| set.revision.width()), [60, 58]);
    assert_eq!(
        TRANSITION_SETS.map(|set| TransitionAir::shared(set.revision).revision()),
        [Revision::Two, Revision::One]
    );
}

/// The accepted-sets window: every transition set by default; a pool node narrows it to 17 once no
/// set-16 transition can be in flight. Both golden proofs are the twins of each list.
#[test]
fn an_accepted_list_narrows_the_transition_verifier() {
    use priv_stark_proof::wire;
    let read = |dir: &str| {
        let dir = fixture_dir().join(dir);
        (
            std::fs::read(dir.join("proof.bin")).expect("proof.bin"),
            std::fs::read(dir.join("public.bin")).expect("public.bin"),
        )
    };
    let (older, public) = read("");
    let (newest, _) = read("set-17");
    assert_eq!(wire::verify_transition_accepting(&newest, &public, &[17]), Ok(()));
    assert_eq!(
        wire::verify_transition_accepting(&older, &public, &[17]),
        Err(ProofError::UnsupportedParameterSet { got: 16 })
    );
    assert_eq!(wire::verify_transition_accepting(&older, &public, &[16, 17]), Ok(()));
    assert_eq!(wire::verify_transition(&older, &public), Ok(()));
    assert_eq!(
        wire::verify_transition_accepting(&newest, &public, &[16]),
        Err(ProofError::UnsupportedParameterSet { got: 17 })
    );
    assert_eq!(wire::accept_transition_parameter_sets(&[16, 17, 16]), Ok(vec![17, 16]));
    for ids in [&[3][..], &[18], &[17, 2]] {
        assert_eq!(
            wire::accept_transition_parameter_sets(ids).unwrap_err().code(),
            "unsupported_parameter_set"
        );
    }
    assert_eq!(wire::accept_transition_parameter_sets(&[]).unwrap_err().code(), "invalid_length");
    // The records /health shows: id, flags (1 accepted by default, 2 proved), log2 blowup,
    // queries, grinding, conjectured, proven list- and unique-decoding bits.
    assert_eq!(
        wire::transition_parameter_sets(),
        [
            17, 3, 5, 33, 18, 128, 100, 49, //
            16, 1, 5, 33, 18, 128, 100, 49,
        ]
    );
}
