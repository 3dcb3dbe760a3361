//! The golden proofs in `test/fixtures/spend/`: verified on every run, so a change to the proof
//! format, the AIR, a parameter set or Plonky3's serialization is noticed. `proof.bin` is a proof
//! of the prover's set (regenerate with `cargo test -p priv-stark-proof -- --ignored
//! regenerate_fixture` after a deliberate change); `set-2/` holds a proof made by the landed
//! set-2 prover, which must keep verifying while set 2 is accepted (never regenerated).
//!
//! `public.json` holds the public inputs in wire encoding: digests as `0x` + 64 lowercase hex
//! digits, the amount as a decimal string, and `publicInputs`, the 136 encoded bytes in hex.
//!
//! `forged.json` lists proofs of forged traces (see `amount_range.rs`) whose claimed `u64`
//! amount is outside `1..2^62`, for the bindings' tests: every entry point must refuse them.

use crate::common;

use std::path::PathBuf;

use priv_stark_core::Digest;
use priv_stark_proof::{
    PublicInputs,
    encoding::HEADER_BYTES,
    params::{PARAMETER_SET, known_set},
    prover::prove,
    verifier::{AcceptedSets, verify, verify_accepting},
    wire::{verify_spend, verify_spend_accepting},
};

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/spend")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

fn to_json(public: &PublicInputs) -> serde_json::Value {
    serde_json::json!({
        "root": public.root().to_hex(),
        "nullifier": public.nullifier().to_hex(),
        "commitment": public.change().to_hex(),
        "amount": public.amount().to_string(),
        "context": public.context().to_hex(),
        "publicInputs": hex(&public.to_bytes()),
        "parameterSet": PARAMETER_SET.id,
    })
}

fn from_json(json: &serde_json::Value) -> PublicInputs {
    let digest = |key: &str| Digest::from_hex(json[key].as_str().unwrap(), "fixture").unwrap();
    PublicInputs::new(
        digest("root"),
        digest("nullifier"),
        digest("commitment"),
        json["amount"].as_str().unwrap().parse().unwrap(),
        digest("context"),
    )
    .unwrap()
}

#[test]
#[ignore = "writes the golden fixture"]
fn regenerate_fixture() {
    let scenario = common::scenario(2024);
    let proof = prove(&scenario.witness, common::seed(42)).unwrap();
    let dir = fixture_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("proof.bin"), &proof.bytes).unwrap();
    let json = serde_json::to_string_pretty(&to_json(&proof.public_inputs)).unwrap();
    std::fs::write(dir.join("public.json"), json + "\n").unwrap();
}

fn read_fixture(dir: &std::path::Path) -> (Vec<u8>, PublicInputs, Vec<u8>, u8) {
    let proof = std::fs::read(dir.join("proof.bin")).expect("run regenerate_fixture");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("public.json")).unwrap()).unwrap();
    let public = from_json(&json);
    let encoded = unhex(json["publicInputs"].as_str().unwrap());
    assert_eq!(encoded, public.to_bytes());
    let set = u8::try_from(json["parameterSet"].as_u64().unwrap()).unwrap();
    assert_eq!(proof[5], set);
    (proof, public, encoded, set)
}

#[test]
fn golden_fixture_verifies() {
    let (proof, public, encoded, set) = read_fixture(&fixture_dir());
    assert_eq!(set, PARAMETER_SET.id);
    verify(&proof, &public).unwrap();
    verify_spend(&proof, &encoded).unwrap();
    // Must-fail twins: a flipped byte of the body, another amount.
    let mut flipped = proof.clone();
    flipped[HEADER_BYTES + 100] ^= 0x10;
    assert!(verify(&flipped, &public).is_err());
    let other = public.with_amount(public.amount() + 1).unwrap();
    assert_eq!(verify(&proof, &other).unwrap_err().code(), "invalid_proof");
    // The fixture's statement is the deterministic scenario's.
    assert_eq!(public, common::scenario(2024).public_inputs);
}

#[test]
fn set_2_proofs_verify_while_set_2_is_accepted() {
    let (proof, public, encoded, set) = read_fixture(&fixture_dir().join("set-2"));
    assert_eq!(set, 2);
    assert!(known_set(2).unwrap().accepted_by_default);
    verify(&proof, &public).unwrap();
    verify_spend(&proof, &encoded).unwrap();
    verify_spend_accepting(&proof, &encoded, &[2]).unwrap();
    let other = public.with_amount(public.amount() + 1).unwrap();
    assert_eq!(verify(&proof, &other).unwrap_err().code(), "invalid_proof");
    // Once a deployment accepts set 3 only, the same proof is refused by its header.
    let only_3 = AcceptedSets::new(&[3]).unwrap();
    assert_eq!(
        verify_accepting(&only_3, &proof, &public).unwrap_err().code(),
        "unsupported_parameter_set"
    );
    assert_eq!(
        verify_spend_accepting(&proof, &encoded, &[3]).unwrap_err().code(),
        "unsupported_parameter_set"
    );
    // And a set-3 proof is refused by a verifier accepting set 2 only.
    let (current, current_public, _, _) = read_fixture(&fixture_dir());
    let only_2 = AcceptedSets::new(&[2]).unwrap();
    assert_eq!(
        verify_accepting(&only_2, &current, &current_public).unwrap_err().code(),
        "unsupported_parameter_set"
    );
}

/// The forged fixtures: one amount in `[2^62, p)`, one at `p` (the field's zero).
const FORGED: [(&str, u64); 2] =
    [("p-minus-1", priv_stark_core::field::MODULUS - 1), ("p", priv_stark_core::field::MODULUS)];

#[test]
#[ignore = "writes the forged-amount fixtures"]
fn regenerate_forged_fixtures() {
    let dir = fixture_dir();
    let mut entries = Vec::new();
    for (name, amount) in FORGED {
        let (bytes, forged) = common::forge::prove(&PARAMETER_SET, amount);
        let file = format!("forged-{name}.bin");
        std::fs::write(dir.join(&file), &bytes).unwrap();
        entries.push(serde_json::json!({
            "name": name,
            "amount": amount.to_string(),
            "publicInputs": hex(&forged.encoded),
            "proof": file,
            "parameterSet": PARAMETER_SET.id,
        }));
    }
    let json = serde_json::to_string_pretty(&entries).unwrap();
    std::fs::write(dir.join("forged.json"), json + "\n").unwrap();
}

#[test]
fn forged_fixtures_are_valid_starks_refused_for_their_amount() {
    use priv_stark_proof::{
        air::SpendAir, config::build_config, transcript::transcript_prefix, verifier::decode_body,
    };
    let dir = fixture_dir();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("forged.json")).unwrap()).unwrap();
    let entries = json.as_array().unwrap();
    assert_eq!(entries.len(), FORGED.len());
    for (entry, (name, amount)) in entries.iter().zip(FORGED) {
        assert_eq!(entry["name"], name);
        assert_eq!(entry["amount"].as_str().unwrap().parse::<u64>().unwrap(), amount);
        let proof = std::fs::read(dir.join(entry["proof"].as_str().unwrap())).unwrap();
        let encoded = unhex(entry["publicInputs"].as_str().unwrap());
        let (_, forged) = common::forge::statement(amount);
        assert_eq!(encoded, forged.encoded);
        // Still a valid STARK for the field-level statement, so the fixture keeps testing
        // what it claims to test.
        let set = u8::try_from(entry["parameterSet"].as_u64().unwrap()).unwrap();
        let params = known_set(set).unwrap().params;
        let config = build_config(&params, &transcript_prefix(&params), [0; 32]);
        let stark = decode_body(&proof[HEADER_BYTES..]).unwrap();
        p3_uni_stark::verify(&config, SpendAir::shared(), &stark, &forged.public).unwrap();
        assert_eq!(verify_spend(&proof, &encoded).unwrap_err().code(), "amount_out_of_range");
    }
}
