//! The WebAssembly binding's verify path, called natively through its C ABI: proofs of forged
//! traces whose claimed amount is outside `1..2^62` (`test/fixtures/spend/forged.json`, see
//! `crates/proof/tests/amount_range.rs`) are refused with `amount_out_of_range`, and the golden
//! honest proof verifies (must-pass twin).

use std::path::PathBuf;

use priv_stark_wasm::{ps_alloc, ps_free, ps_result_len, ps_result_ptr, ps_verify_spend};

fn fixture(name: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/spend");
    std::fs::read(dir.join(name)).expect("fixture")
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

/// Calls `ps_verify_spend` as the loader does: arguments copied into `ps_alloc` memory.
fn verify(proof: &[u8], public_inputs: &[u8]) -> (u32, String) {
    let copy = |bytes: &[u8]| {
        let ptr = ps_alloc(bytes.len());
        // SAFETY: `ptr` holds at least `bytes.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, bytes.len()) };
        ptr
    };
    let (pp, ip) = (copy(proof), copy(public_inputs));
    // SAFETY: both arguments are `ps_alloc` memory of the given lengths.
    let status = unsafe { ps_verify_spend(pp, proof.len(), ip, public_inputs.len()) };
    // SAFETY: the result pointer and length describe the module's result buffer.
    let result = unsafe { std::slice::from_raw_parts(ps_result_ptr(), ps_result_len()) }.to_vec();
    // SAFETY: exactly the pointers and lengths `ps_alloc` handed out.
    unsafe {
        ps_free(pp, proof.len());
        ps_free(ip, public_inputs.len());
    }
    (status, String::from_utf8(result).unwrap())
}

#[test]
fn forged_amounts_are_refused_through_the_binding() {
    let json: serde_json::Value =
        serde_json::from_slice(&fixture("forged.json")).expect("forged.json");
    let entries = json.as_array().unwrap();
    assert!(!entries.is_empty());
    for entry in entries {
        let proof = fixture(entry["proof"].as_str().unwrap());
        let public_inputs = unhex(entry["publicInputs"].as_str().unwrap());
        let (status, message) = verify(&proof, &public_inputs);
        assert_eq!(status, 1, "{}", entry["name"]);
        assert!(message.starts_with("amount_out_of_range: "), "{message}");
    }
}

#[test]
fn the_golden_proof_verifies_through_the_binding() {
    let json: serde_json::Value = serde_json::from_slice(&fixture("public.json")).unwrap();
    let public_inputs = unhex(json["publicInputs"].as_str().unwrap());
    assert_eq!(verify(&fixture("proof.bin"), &public_inputs), (0, String::new()));
}
