//! The content reference of a handed-over proof: deterministic, computed from the header's
//! parameter set, the AIR digest, the public inputs and every proof byte; each round trip paired
//! with must-fail twins (another public input, one flipped proof byte, a bad header).

use crate::common;

use priv_stark_proof::{
    air_digest::air_digest,
    encoding::HEADER_BYTES,
    params::PARAMETER_SET,
    reference::{REFERENCE_TAG, reference},
    wire,
};

#[test]
fn is_blake3_of_tag_set_air_inputs_and_proof() {
    let (scenario, proof) = common::proven();
    let got = reference(&proof.bytes, &scenario.public_inputs).unwrap();
    assert_eq!(got.parameter_set, PARAMETER_SET.id);
    let mut hasher = blake3::Hasher::new();
    hasher.update(REFERENCE_TAG);
    hasher.update(&[PARAMETER_SET.id]);
    hasher.update(&air_digest());
    hasher.update(&scenario.public_inputs.to_bytes());
    hasher.update(&(proof.bytes.len() as u64).to_le_bytes());
    hasher.update(&proof.bytes);
    assert_eq!(&got.digest, hasher.finalize().as_bytes());
    // Deterministic, and the same through the wire entry point (reference ‖ parameter set).
    assert_eq!(reference(&proof.bytes, &scenario.public_inputs).unwrap(), got);
    let bytes = wire::proof_reference(&proof.bytes, &scenario.public_inputs.to_bytes()).unwrap();
    assert_eq!(bytes[..32], got.digest);
    assert_eq!(bytes[32], PARAMETER_SET.id);
}

#[test]
fn changes_with_every_input() {
    let (scenario, proof) = common::proven();
    let base = reference(&proof.bytes, &scenario.public_inputs).unwrap().digest;
    // Another statement: a second scenario's public inputs with the same proof bytes.
    let other = common::scenario(2);
    assert_ne!(reference(&proof.bytes, &other.public_inputs).unwrap().digest, base);
    // One byte of the proof body, anywhere.
    for at in [HEADER_BYTES, proof.bytes.len() / 2, proof.bytes.len() - 1] {
        let mut flipped = proof.bytes.clone();
        flipped[at] ^= 1;
        assert_ne!(reference(&flipped, &scenario.public_inputs).unwrap().digest, base, "byte {at}");
    }
    // Another parameter set in the header: another reference, and the set is reported as is.
    let mut other_set = proof.bytes.clone();
    other_set[5] = PARAMETER_SET.id.wrapping_add(1);
    let r = reference(&other_set, &scenario.public_inputs).unwrap();
    assert_ne!(r.digest, base);
    assert_eq!(r.parameter_set, PARAMETER_SET.id.wrapping_add(1));
    // A truncated proof (its length is hashed too).
    let truncated = &proof.bytes[..proof.bytes.len() - 1];
    assert_ne!(reference(truncated, &scenario.public_inputs).unwrap().digest, base);
}

#[test]
fn refuses_what_is_not_a_proof_header() {
    let (scenario, proof) = common::proven();
    let inputs = &scenario.public_inputs;
    assert_eq!(reference(&[], inputs).unwrap_err().code(), "proof_too_short");
    assert_eq!(
        reference(&proof.bytes[..HEADER_BYTES - 1], inputs).unwrap_err().code(),
        "proof_too_short"
    );
    let mut magic = proof.bytes.clone();
    magic[0] ^= 1;
    assert_eq!(reference(&magic, inputs).unwrap_err().code(), "bad_magic");
    let mut version = proof.bytes.clone();
    version[4] ^= 0x40;
    assert_eq!(reference(&version, inputs).unwrap_err().code(), "unsupported_version");
    let big = vec![0u8; priv_stark_proof::encoding::MAX_PROOF_BYTES + 1];
    assert_eq!(reference(&big, inputs).unwrap_err().code(), "proof_too_large");
    assert!(wire::proof_reference(&proof.bytes, &[0u8; 3]).is_err());
}
