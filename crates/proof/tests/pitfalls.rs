//! One test per item of the verifier-pitfall checklist (stark-facts.md §9). Each tampers with a
//! decoded proof (or the inputs) in the way the pitfall describes and asserts the exact error.

use crate::common;

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{Domain, Felt, sponge::initial_state};
use priv_stark_proof::{
    ProofError,
    config::{Challenge, StarkProof, Val},
    encoding::{HEADER_BYTES, proof_header},
    errors::FailedCheck,
    layout::{NUM_HASHES, TRACE_WIDTH, hash_kind, input_row},
    params::{PARAMETER_SET, PARAMETER_SET_1, PARAMETER_SET_2, PARAMETER_SET_3, ParameterSet},
    prover::prove_with,
    security::{COLLISION_RESISTANCE_BITS, security_level, security_reports},
    trace::build_trace,
    verifier::{decode_body, verify, verify_with},
};

fn decoded() -> StarkProof {
    decode_body(&common::proven().1.bytes[HEADER_BYTES..]).unwrap()
}

fn encode(proof: &StarkProof) -> Vec<u8> {
    let mut bytes = proof_header(PARAMETER_SET.id).to_vec();
    bytes.extend(postcard::to_allocvec(proof).unwrap());
    bytes
}

fn verdict(bytes: &[u8]) -> ProofError {
    verify(bytes, &common::proven().0.public_inputs).expect_err("must be rejected")
}

fn invalid(check: FailedCheck) -> ProofError {
    ProofError::InvalidProof { check }
}

#[test]
fn honest_proof_reencodes_to_the_same_bytes() {
    assert_eq!(encode(&decoded()), common::proven().1.bytes);
}

/// §9.1 Weak Fiat–Shamir: the AIR and parameter set are in the transcript prefix, the public
/// values are absorbed before the first challenge.
#[test]
fn pitfall_01_fiat_shamir_binds_parameters_and_public_inputs() {
    let (scenario, proof) = common::proven();
    // Same numbers, another parameter-set id: only the transcript prefix differs.
    let relabelled = ParameterSet { id: 9, ..PARAMETER_SET };
    let mut bytes = proof.bytes.clone();
    bytes[5] = 9;
    let err = verify_with(&relabelled, &bytes, &scenario.public_inputs).unwrap_err();
    assert_eq!(err.code(), "invalid_proof");
    // Any other public input (here: the context) changes the challenges.
    let mut context = scenario.public_inputs.context();
    context.0[0] += Felt::ONE;
    let public = scenario.public_inputs.with_context(context);
    assert_eq!(verify(&proof.bytes, &public).unwrap_err().code(), "invalid_proof");
}

/// §9.2 Prover-controlled parameters: only the accepted set and the fixed trace shape.
#[test]
fn pitfall_02_parameters_and_shape_are_fixed() {
    let (scenario, proof) = common::proven();
    let mut other_id = proof.bytes.clone();
    other_id[5] = PARAMETER_SET.id + 1;
    assert_eq!(verdict(&other_id).code(), "unsupported_parameter_set");
    // An honest proof under the retired set 1 is refused by its header, before any work.
    let retired = prove_with(&PARAMETER_SET_1, &scenario.witness, common::seed(4)).unwrap();
    assert!(verify_with(&PARAMETER_SET_1, &retired.bytes, &scenario.public_inputs).is_ok());
    assert_eq!(verdict(&retired.bytes).code(), "unsupported_parameter_set");

    // A weaker proof (fewer queries, less grinding) claiming the accepted id.
    let weak = ParameterSet { num_queries: 4, query_pow_bits: 1, ..PARAMETER_SET };
    let weak_proof = prove_with(&weak, &scenario.witness, common::seed(3)).unwrap();
    assert!(verify_with(&weak, &weak_proof.bytes, &scenario.public_inputs).is_ok());
    assert_eq!(
        verdict(&weak_proof.bytes),
        ProofError::InvalidProofShape {
            what: "FRI input queries",
            expected: PARAMETER_SET.num_queries,
            got: 4
        }
    );

    // A proof of one accepted set relabelled as the other: refused by the other set's shape.
    let set_2 = prove_with(&PARAMETER_SET_2, &scenario.witness, common::seed(6)).unwrap();
    verify(&set_2.bytes, &scenario.public_inputs).unwrap();
    let mut as_3 = set_2.bytes.clone();
    as_3[5] = PARAMETER_SET_3.id;
    assert_eq!(
        verdict(&as_3),
        ProofError::InvalidProofShape {
            what: "FRI input queries",
            expected: PARAMETER_SET_3.num_queries,
            got: PARAMETER_SET_2.num_queries
        }
    );
    let mut as_2 = proof.bytes.clone();
    as_2[5] = PARAMETER_SET_2.id;
    assert_eq!(
        verdict(&as_2),
        ProofError::InvalidProofShape {
            what: "FRI input queries",
            expected: PARAMETER_SET_2.num_queries,
            got: PARAMETER_SET_3.num_queries
        }
    );

    for degree_bits in [0, 9, 11, 33, usize::MAX] {
        let mut tampered = decoded();
        tampered.degree_bits = degree_bits;
        assert_eq!(
            verdict(&encode(&tampered)),
            ProofError::InvalidProofShape { what: "degree_bits", expected: 10, got: degree_bits }
        );
    }
}

/// §9.3 Missing boundary constraints / free lanes: every hash input's capacity is pinned to the
/// core's sponge layout (the AIR tests check every lane; this checks the layout itself).
#[test]
fn pitfall_03_every_hash_input_has_the_core_capacity() {
    let (scenario, _) = common::proven();
    let values = scenario.witness.derive().unwrap();
    let trace = build_trace(&scenario.witness, &values);
    for p in 0..NUM_HASHES {
        let (len, domain) = hash_kind(p);
        let expected = initial_state(domain, len);
        let row = input_row(p) * TRACE_WIDTH;
        assert_eq!(&trace.values[row + 8..row + 12], &expected[8..12], "permutation {p}");
    }
}

/// §9.4 OOD / DEEP: tampered out-of-domain values are caught.
#[test]
fn pitfall_04_out_of_domain_openings_are_checked() {
    let mut trace_local = decoded();
    trace_local.opened_values.trace_local[3] += Challenge::ONE;
    assert_eq!(verdict(&encode(&trace_local)).code(), "invalid_proof");

    let mut trace_next = decoded();
    trace_next.opened_values.trace_next.as_mut().unwrap()[40] += Challenge::ONE;
    assert_eq!(verdict(&encode(&trace_next)).code(), "invalid_proof");

    let mut quotient = decoded();
    quotient.opened_values.quotient_chunks[5][1] += Challenge::ONE;
    assert_eq!(verdict(&encode(&quotient)).code(), "invalid_proof");

    let mut random = decoded();
    random.opened_values.random.as_mut().unwrap()[0] += Challenge::ONE;
    assert_eq!(verdict(&encode(&random)).code(), "invalid_proof");
}

/// §9.5 FRI final polynomial: its length is fixed and its values are checked at every query.
#[test]
fn pitfall_05_final_polynomial_is_bounded_and_checked() {
    let mut shorter = decoded();
    shorter.opening_proof.1.final_poly.pop();
    assert_eq!(verdict(&encode(&shorter)).code(), "invalid_proof_shape");
    let mut longer = decoded();
    longer.opening_proof.1.final_poly.push(Challenge::ONE);
    assert_eq!(verdict(&encode(&longer)).code(), "invalid_proof_shape");
    let mut changed = decoded();
    changed.opening_proof.1.final_poly[1] += Challenge::ONE;
    assert_eq!(verdict(&encode(&changed)).code(), "invalid_proof");
}

/// §9.6 Length and shape checks: no silently zipped vectors, the proof is consumed exactly.
#[test]
fn pitfall_06_lengths_are_checked_and_the_proof_is_consumed() {
    let mut fewer_queries = decoded();
    fewer_queries.opening_proof.1.input_openings[1].opened_values.pop();
    assert_eq!(verdict(&encode(&fewer_queries)).code(), "invalid_proof_shape");

    let mut wider_row = decoded();
    wider_row.opening_proof.1.input_openings[1].opened_values[0][0].push(Val::ONE);
    assert_eq!(verdict(&encode(&wider_row)).code(), "invalid_proof_shape");

    let mut extra_sibling = decoded();
    extra_sibling.opening_proof.1.commit_phase_openings[0].sibling_values[0].push(Challenge::ONE);
    assert_eq!(verdict(&encode(&extra_sibling)).code(), "invalid_proof_shape");

    let mut missing_round = decoded();
    missing_round.opening_proof.1.commit_phase_openings.pop();
    assert_eq!(verdict(&encode(&missing_round)).code(), "invalid_proof_shape");

    let mut narrow = decoded();
    narrow.opened_values.trace_local.pop();
    assert_eq!(verdict(&encode(&narrow)).code(), "invalid_proof_shape");

    let mut trailing = common::proven().1.bytes.clone();
    trailing.push(0);
    assert_eq!(verdict(&trailing), ProofError::TrailingBytes { count: 1 });
}

/// §9.7 Query indices come from the transcript: reordering the opened rows is caught.
#[test]
fn pitfall_07_query_positions_are_not_the_provers_choice() {
    let mut swapped = decoded();
    swapped.opening_proof.1.input_openings[1].opened_values.swap(0, 1);
    assert_eq!(verdict(&encode(&swapped)), invalid(FailedCheck::OpeningArgument));
    let mut swapped_rounds = decoded();
    swapped_rounds.opening_proof.1.commit_phase_openings[0].sibling_values.swap(2, 3);
    assert_eq!(verdict(&encode(&swapped_rounds)).code(), "invalid_proof");
}

/// §9.8 Grinding: the query proof of work is checked, and zero-difficulty sites must hold zero.
#[test]
fn pitfall_08_proof_of_work_is_checked() {
    let honest = decoded();
    for delta in 1..=3u64 {
        let mut tampered = decoded();
        tampered.opening_proof.1.query_pow_witness =
            honest.opening_proof.1.query_pow_witness + Val::from_u64(delta);
        assert_eq!(verdict(&encode(&tampered)), invalid(FailedCheck::ProofOfWork));
    }
    let mut commit_witness = decoded();
    commit_witness.opening_proof.1.commit_pow_witnesses[0] = Val::ONE;
    assert!(matches!(
        verdict(&encode(&commit_witness)).code(),
        "invalid_proof" | "invalid_proof_shape"
    ));
    let mut ood_witness = decoded();
    ood_witness.ood_pow_witness = Val::ONE;
    assert_eq!(verdict(&encode(&ood_witness)).code(), "invalid_proof_shape");
}

/// §9.9 Non-canonical encodings: field elements not below p are refused in the proof body
/// (postcard decoding of Goldilocks) and in the public inputs.
#[test]
fn pitfall_09_non_canonical_elements_are_refused() {
    let p = 0xFFFF_FFFF_0000_0001u64;
    // The last 8 bytes of the body are the out-of-domain grinding witness (0 here): p is the
    // same field element as 0, but not its canonical encoding.
    let mut bytes = common::proven().1.bytes.clone();
    let len = bytes.len();
    assert_eq!(&bytes[len - 8..], &[0u8; 8]);
    bytes[len - 8..].copy_from_slice(&p.to_le_bytes());
    assert_eq!(verdict(&bytes), ProofError::MalformedProof);

    let mut public = common::proven().0.public_inputs.to_bytes();
    let root0 = u64::from_le_bytes(public[..8].try_into().unwrap());
    if let Some(alias) = root0.checked_add(p) {
        public[..8].copy_from_slice(&alias.to_le_bytes());
        let err = priv_stark_proof::wire::verify_spend(&common::proven().1.bytes, &public);
        assert_eq!(err.unwrap_err().code(), "non_canonical_element");
    }
    public[..8].copy_from_slice(&p.to_le_bytes());
    let err = priv_stark_proof::wire::verify_spend(&common::proven().1.bytes, &public);
    assert_eq!(err.unwrap_err().code(), "non_canonical_element");
}

/// §9.10 Sponge padding / domain separation: the statement uses six distinct domains, each with
/// the core's length-and-tag capacity (checked per permutation in pitfall 3).
#[test]
fn pitfall_10_each_use_has_its_own_domain() {
    let mut used: Vec<Domain> = (0..NUM_HASHES).map(|p| hash_kind(p).1).collect();
    used.sort_by_key(|domain| *domain as u32);
    used.dedup();
    assert_eq!(
        used,
        vec![
            Domain::Owner,
            Domain::Pre,
            Domain::Note,
            Domain::Node,
            Domain::Nullifier,
            Domain::ChangeRho
        ]
    );
}

/// §9.11 Hash strength caps soundness: BLAKE3-256 (128-bit collisions) bounds the estimate.
#[test]
fn pitfall_11_commitment_hash_caps_security() {
    let (conjectured, _) = security_reports(&PARAMETER_SET);
    let collision =
        conjectured.terms().iter().find(|term| term.label == "commitment-collision").unwrap();
    assert_eq!(collision.bits.0, COLLISION_RESISTANCE_BITS as f64);
    assert!(security_level(&PARAMETER_SET).conjectured_bits <= COLLISION_RESISTANCE_BITS);
}

/// §9.12 Zero knowledge: hiding commitments, a randomization polynomial, per-proof randomness
/// from the seed only, and no witness element in the clear.
#[test]
fn pitfall_12_proofs_are_zero_knowledge() {
    let (scenario, proof) = common::proven();
    let stark = decoded();
    assert!(stark.commitments.random.is_some());
    assert!(stark.opened_values.random.is_some());
    for batch in &stark.opening_proof.1.input_openings {
        assert!(batch.opening_proof.0.iter().flatten().all(|salt| salt.len() == 2));
    }
    // Same seed, same proof; another seed, another proof.
    let again = priv_stark_proof::prover::prove(&scenario.witness, common::seed(1)).unwrap();
    assert_eq!(again.bytes, proof.bytes);
    let other = priv_stark_proof::prover::prove(&scenario.witness, common::seed(2)).unwrap();
    assert_ne!(other.bytes, proof.bytes);
    // No 8-byte witness element appears in the proof.
    let witness = &scenario.witness;
    let mut secrets: Vec<[u8; 8]> = Vec::new();
    for digest in [witness.spending_key, witness.rho].iter().chain(witness.path.iter().take(5)) {
        for element in digest.0 {
            secrets.push(priv_stark_core::field::felt_to_u64(element).to_le_bytes());
        }
    }
    for secret in secrets {
        assert!(!proof.bytes.windows(8).any(|window| window == secret));
    }
}

/// §9.13 Panics are DoS: see `hardening.rs` (mutations, truncations, garbage); here a proof
/// whose every nested vector is emptied still gets a typed error.
#[test]
fn pitfall_13_hollow_proofs_get_typed_errors() {
    let mut hollow = decoded();
    hollow.opening_proof.1.input_openings.clear();
    hollow.opening_proof.1.commit_phase_openings.clear();
    hollow.opening_proof.1.commit_phase_commits.clear();
    hollow.opening_proof.0.clear();
    hollow.opened_values.quotient_chunks.clear();
    assert_eq!(verdict(&encode(&hollow)).code(), "invalid_proof_shape");
}
