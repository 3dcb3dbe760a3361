//! The WebAssembly binding's verify paths, called natively through its C ABI: proofs of forged
//! traces whose claimed amount is outside `1..2^62` (`test/fixtures/spend/forged.json`, see
//! `crates/proof/tests/amount_range.rs`) are refused with `amount_out_of_range`, the golden
//! honest proof verifies (must-pass twin), and the accepted parameter sets are configurable.

use std::path::PathBuf;

use priv_stark_wasm::{
    ps_accept_parameter_sets, ps_alloc, ps_free, ps_parameter_sets, ps_result_len, ps_result_ptr,
    ps_verify_spend, ps_verify_spend_accepting,
};

fn fixture(name: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/spend");
    std::fs::read(dir.join(name)).expect("fixture")
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

/// Copies arguments into `ps_alloc` memory as the loader does, runs `call` with their pointers,
/// then reads the result and frees the arguments.
fn with_args(args: &[&[u8]], call: impl FnOnce(&[*mut u8]) -> u32) -> (u32, Vec<u8>) {
    let pointers: Vec<*mut u8> = args
        .iter()
        .map(|bytes| {
            let ptr = ps_alloc(bytes.len());
            // SAFETY: `ptr` holds at least `bytes.len()` bytes.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, bytes.len()) };
            ptr
        })
        .collect();
    let status = call(&pointers);
    // SAFETY: the result pointer and length describe the module's result buffer.
    let result = unsafe { std::slice::from_raw_parts(ps_result_ptr(), ps_result_len()) }.to_vec();
    for (ptr, bytes) in pointers.into_iter().zip(args) {
        // SAFETY: exactly the pointers and lengths `ps_alloc` handed out.
        unsafe { ps_free(ptr, bytes.len()) };
    }
    (status, result)
}

/// `ps_verify_spend`, or `ps_verify_spend_accepting` when `accepted` is given.
fn verify_with(proof: &[u8], public_inputs: &[u8], accepted: Option<&[u8]>) -> (u32, String) {
    let (status, result) = match accepted {
        // SAFETY: every argument is `ps_alloc` memory of the given length.
        None => with_args(&[proof, public_inputs], |p| unsafe {
            ps_verify_spend(p[0], proof.len(), p[1], public_inputs.len())
        }),
        // SAFETY: as above.
        Some(ids) => with_args(&[proof, public_inputs, ids], |p| unsafe {
            ps_verify_spend_accepting(p[0], proof.len(), p[1], public_inputs.len(), p[2], ids.len())
        }),
    };
    (status, String::from_utf8(result).unwrap())
}

fn verify(proof: &[u8], public_inputs: &[u8]) -> (u32, String) {
    verify_with(proof, public_inputs, None)
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

#[test]
fn accepted_parameter_sets_through_the_binding() {
    let current: serde_json::Value = serde_json::from_slice(&fixture("public.json")).unwrap();
    let previous: serde_json::Value =
        serde_json::from_slice(&fixture("set-2/public.json")).unwrap();
    let (proof_3, inputs_3) =
        (fixture("proof.bin"), unhex(current["publicInputs"].as_str().unwrap()));
    let (proof_2, inputs_2) =
        (fixture("set-2/proof.bin"), unhex(previous["publicInputs"].as_str().unwrap()));

    assert_eq!(verify(&proof_2, &inputs_2), (0, String::new()));
    assert_eq!(verify_with(&proof_2, &inputs_2, Some(&[2])), (0, String::new()));
    assert_eq!(verify_with(&proof_3, &inputs_3, Some(&[3, 2])), (0, String::new()));
    let (status, message) = verify_with(&proof_2, &inputs_2, Some(&[3]));
    assert_eq!(status, 1);
    assert!(message.starts_with("unsupported_parameter_set: "), "{message}");
    let (status, message) = verify_with(&proof_3, &inputs_3, Some(&[]));
    assert_eq!(status, 1);
    assert!(message.starts_with("invalid_length: "), "{message}");

    // The known sets, 8 bytes each: id, flags, log2 blowup, queries, grinding, bits.
    let (status, records) = with_args(&[], |_| ps_parameter_sets());
    assert_eq!(status, 0);
    assert_eq!(records, [3, 3, 5, 33, 18, 128, 100, 49, 2, 1, 5, 23, 16, 128, 73, 37]);

    // SAFETY: the argument is `ps_alloc` memory of length 3.
    let (status, ids) = with_args(&[&[2, 3, 2]], |p| unsafe { ps_accept_parameter_sets(p[0], 3) });
    assert_eq!((status, ids), (0, vec![3, 2]));
    // SAFETY: as above, length 1.
    let (status, message) = with_args(&[&[1]], |p| unsafe { ps_accept_parameter_sets(p[0], 1) });
    assert_eq!(status, 1);
    assert!(message.starts_with(b"unsupported_parameter_set: "));
}
