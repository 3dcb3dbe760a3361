//! One encoding per proof (issue 23): the golden spend and transition proofs with one varint
//! padded (`01` written `81 00`) decode to the same proof, and Plonky3 alone would accept that
//! proof, so only the verifier's canonical-encoding check refuses the padded bytes — at every
//! verify entry point, spend (typed, accepting, wire) and transition (typed and wire). The
//! unpadded originals are the must-pass twins.
//!
//! `PADDED_OFFSET` is the first byte of the body (the length of the trace commitment's Merkle
//! cap, 1); the bindings' suite (`test/core/proof-canonical.test.ts`) pads the same byte.

use std::path::PathBuf;

use p3_uni_stark::verify as plonky3_verify;
use priv_stark_proof::{
    PublicInputs,
    canonical::encodes_to,
    config::{StarkProof, build_config},
    encoding::HEADER_BYTES,
    params::PARAMETER_SET,
    transcript::transcript_prefix,
    transition::{
        TRANSITION_SET_16, TransitionPublicInputs, air::TransitionAir,
        transition_transcript_prefix, verify_transition,
    },
    verifier::{AcceptedSets, verify, verify_accepting},
    verifier_air::VerifierAir,
    wire,
};

/// The padded byte: the first of the body, a varint of value 1.
const PADDED_OFFSET: usize = HEADER_BYTES;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures")
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(path)).expect(path)
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The golden spend proof and its encoded public inputs.
fn golden_spend() -> (Vec<u8>, Vec<u8>) {
    let json: serde_json::Value =
        serde_json::from_slice(&read("spend/public.json")).expect("public.json");
    (read("spend/proof.bin"), unhex(json["publicInputs"].as_str().expect("publicInputs")))
}

/// The golden transition proof and its encoded public inputs.
fn golden_transition() -> (Vec<u8>, Vec<u8>) {
    (read("transition/proof.bin"), read("transition/public.bin"))
}

/// `proof` with the varint at `at` (a single byte below 0x80) padded to two bytes.
fn padded(proof: &[u8], at: usize) -> Vec<u8> {
    let value = proof[at];
    assert!(value < 0x80, "a one-byte varint");
    let mut out = proof[..at].to_vec();
    out.extend_from_slice(&[value | 0x80, 0x00]);
    out.extend_from_slice(&proof[at + 1..]);
    out
}

/// What postcard alone makes of a body: the decoder without the canonical check.
fn lenient_decode(body: &[u8]) -> StarkProof {
    let (proof, rest) = postcard::take_from_bytes::<StarkProof>(body).expect("postcard decodes");
    assert!(rest.is_empty());
    proof
}

#[test]
fn the_padded_byte_is_a_length_of_one() {
    for (proof, _) in [golden_spend(), golden_transition()] {
        assert_eq!(proof[PADDED_OFFSET], 0x01);
        let original = lenient_decode(&proof[HEADER_BYTES..]);
        // The same proof, decoded from other bytes: the malleability the check closes.
        let twin = padded(&proof, PADDED_OFFSET);
        let again = lenient_decode(&twin[HEADER_BYTES..]);
        assert_eq!(
            postcard::to_allocvec(&again).unwrap(),
            postcard::to_allocvec(&original).unwrap()
        );
        assert!(encodes_to(&original, &proof[HEADER_BYTES..]));
        assert!(!encodes_to(&again, &twin[HEADER_BYTES..]));
    }
}

#[test]
fn a_padded_spend_proof_is_refused_at_every_entry_point() {
    let (proof, inputs) = golden_spend();
    let public = PublicInputs::from_bytes(&inputs).unwrap();
    let twin = padded(&proof, PADDED_OFFSET);
    // Plonky3 alone accepts the padded bytes' proof: only the canonical check stands in the way.
    let params = &PARAMETER_SET;
    let config = build_config(params, &transcript_prefix(params), [0; 32]);
    let decoded = lenient_decode(&twin[HEADER_BYTES..]);
    assert!(plonky3_verify(&config, &VerifierAir, &decoded, &public.to_field_elements()).is_ok());

    let accepted = AcceptedSets::DEFAULT;
    let ids = accepted.ids();
    for (name, result) in [
        ("verify", verify(&twin, &public)),
        ("verify_accepting", verify_accepting(&accepted, &twin, &public)),
        ("wire::verify_spend", wire::verify_spend(&twin, &inputs)),
        ("wire::verify_spend_accepting", wire::verify_spend_accepting(&twin, &inputs, &ids)),
    ] {
        assert_eq!(result.unwrap_err().code(), "malformed_proof", "{name}");
    }
    // Must-pass twins: the original bytes.
    assert_eq!(verify(&proof, &public), Ok(()));
    assert_eq!(verify_accepting(&accepted, &proof, &public), Ok(()));
    assert_eq!(wire::verify_spend(&proof, &inputs), Ok(()));
    assert_eq!(wire::verify_spend_accepting(&proof, &inputs, &ids), Ok(()));
}

#[test]
fn a_padded_set_2_spend_proof_is_refused() {
    // The previous parameter set's golden proof, for its deprecation window.
    let json: serde_json::Value =
        serde_json::from_slice(&read("spend/set-2/public.json")).expect("set-2 public.json");
    let inputs = unhex(json["publicInputs"].as_str().unwrap());
    let proof = read("spend/set-2/proof.bin");
    assert_eq!(proof[5], 2);
    assert_eq!(wire::verify_spend_accepting(&proof, &inputs, &[2]), Ok(()));
    let twin = padded(&proof, PADDED_OFFSET);
    assert_eq!(
        wire::verify_spend_accepting(&twin, &inputs, &[2]).unwrap_err().code(),
        "malformed_proof"
    );
}

#[test]
fn a_padded_transition_proof_is_refused_at_every_entry_point() {
    let (proof, inputs) = golden_transition();
    let public = TransitionPublicInputs::from_bytes(&inputs).unwrap();
    let twin = padded(&proof, PADDED_OFFSET);
    // The golden proof is set 16's.
    let set = &TRANSITION_SET_16;
    let config = build_config(&set.params, &transition_transcript_prefix(set), [0; 32]);
    let decoded = lenient_decode(&twin[HEADER_BYTES..]);
    let air = TransitionAir::shared(set.revision);
    assert!(plonky3_verify(&config, air, &decoded, &public.to_field_elements()).is_ok());

    assert_eq!(verify_transition(&twin, &public).unwrap_err().code(), "malformed_proof");
    assert_eq!(wire::verify_transition(&twin, &inputs).unwrap_err().code(), "malformed_proof");
    assert_eq!(verify_transition(&proof, &public), Ok(()));
    assert_eq!(wire::verify_transition(&proof, &inputs), Ok(()));
}

#[test]
fn every_padded_varint_among_the_first_bytes_is_refused() {
    // Beyond the one offset: wherever a one-byte varint can be padded and postcard still decodes
    // the same proof, the verifier refuses it. Offsets where padding breaks the decoding are
    // refused too, by the decoder itself.
    let (proof, inputs) = golden_transition();
    let original = postcard::to_allocvec(&lenient_decode(&proof[HEADER_BYTES..])).unwrap();
    let mut same_proof = 0;
    for at in HEADER_BYTES..HEADER_BYTES + 400 {
        if proof[at] >= 0x80 {
            continue;
        }
        let twin = padded(&proof, at);
        if let Ok((decoded, [])) = postcard::take_from_bytes::<StarkProof>(&twin[HEADER_BYTES..])
            && postcard::to_allocvec(&decoded).unwrap() == original
        {
            same_proof += 1;
            assert_eq!(
                wire::verify_transition(&twin, &inputs).unwrap_err().code(),
                "malformed_proof",
                "offset {at}"
            );
        }
    }
    assert!(same_proof >= 2, "{same_proof} paddable varints found");
}
