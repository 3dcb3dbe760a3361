//! The golden proof in `test/fixtures/spend/`: verified on every run, so a change to the proof
//! format, the AIR, the parameter set or Plonky3's serialization is noticed. Regenerate with
//! `cargo test -p priv-stark-proof -- --ignored regenerate_fixture` after a deliberate change.
//!
//! `public.json` holds the public inputs in wire encoding: digests as `0x` + 64 lowercase hex
//! digits, the amount as a decimal string, and `publicInputs`, the 136 encoded bytes in hex.

mod common;

use std::path::PathBuf;

use priv_stark_core::Digest;
use priv_stark_proof::{
    PublicInputs, encoding::HEADER_BYTES, params::PARAMETER_SET, prover::prove, verifier::verify,
    wire::verify_spend,
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
        "root": public.root.to_hex(),
        "nullifier": public.nullifier.to_hex(),
        "commitment": public.change.to_hex(),
        "amount": public.amount.to_string(),
        "context": public.context.to_hex(),
        "publicInputs": hex(&public.to_bytes()),
        "parameterSet": PARAMETER_SET.id,
    })
}

fn from_json(json: &serde_json::Value) -> PublicInputs {
    let digest = |key: &str| Digest::from_hex(json[key].as_str().unwrap(), "fixture").unwrap();
    PublicInputs {
        root: digest("root"),
        nullifier: digest("nullifier"),
        change: digest("commitment"),
        amount: json["amount"].as_str().unwrap().parse().unwrap(),
        context: digest("context"),
    }
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

#[test]
fn golden_fixture_verifies() {
    let dir = fixture_dir();
    let proof = std::fs::read(dir.join("proof.bin")).expect("run regenerate_fixture");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("public.json")).unwrap()).unwrap();
    let public = from_json(&json);
    let encoded = unhex(json["publicInputs"].as_str().unwrap());
    assert_eq!(encoded, public.to_bytes());
    assert_eq!(json["parameterSet"].as_u64(), Some(u64::from(PARAMETER_SET.id)));
    verify(&proof, &public).unwrap();
    verify_spend(&proof, &encoded).unwrap();
    // Must-fail twins: a flipped byte of the body, another amount.
    let mut flipped = proof.clone();
    flipped[HEADER_BYTES + 100] ^= 0x10;
    assert!(verify(&flipped, &public).is_err());
    let other = PublicInputs { amount: public.amount + 1, ..public };
    assert_eq!(verify(&proof, &other).unwrap_err().code(), "invalid_proof");
    // The fixture's statement is the deterministic scenario's.
    assert_eq!(public, common::scenario(2024).public_inputs);
}
