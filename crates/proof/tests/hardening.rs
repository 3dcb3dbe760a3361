//! The verifier never panics and answers every malformed input with a typed error: size and
//! header checks, truncation, extension, random mutations, spliced proofs, garbage bodies, and
//! malformed public inputs, witnesses and seeds at the byte-level entry points.

use crate::common;

use priv_stark_proof::{
    ProofError,
    encoding::{HEADER_BYTES, MAX_PROOF_BYTES, PUBLIC_INPUTS_BYTES, WITNESS_BYTES, proof_header},
    params::PARAMETER_SET,
    prover::prove,
    verifier::verify,
    wire::{prove_spend, public_inputs_of, verify_spend},
};
use proptest::prelude::*;

fn code(result: Result<(), ProofError>) -> &'static str {
    let error = result.expect_err("must be rejected");
    assert_ne!(error.code(), "internal_panic", "{error}");
    assert!(error.is_verification_failure(), "{error}");
    error.code()
}

fn check(proof: &[u8]) -> &'static str {
    let (scenario, _) = common::proven();
    code(verify(proof, &scenario.public_inputs))
}

#[test]
fn size_and_header_are_checked_first() {
    let (_, proof) = common::proven();
    assert!(proof.bytes.len() < MAX_PROOF_BYTES);
    assert_eq!(check(&vec![0u8; MAX_PROOF_BYTES + 1]), "proof_too_large");
    let mut large = proof.bytes.clone();
    large.resize(MAX_PROOF_BYTES + 1, 0);
    assert_eq!(check(&large), "proof_too_large");
    assert_eq!(check(&[]), "proof_too_short");
    assert_eq!(check(&proof.bytes[..HEADER_BYTES - 1]), "proof_too_short");

    let mut magic = proof.bytes.clone();
    magic[0] ^= 1;
    assert_eq!(check(&magic), "bad_magic");
    let mut version = proof.bytes.clone();
    version[4] = 2;
    assert_eq!(check(&version), "unsupported_version");
    let mut params = proof.bytes.clone();
    params[5] = PARAMETER_SET.id + 1;
    assert_eq!(check(&params), "unsupported_parameter_set");
    // Must-pass twin.
    assert!(verify(&proof.bytes, &common::proven().0.public_inputs).is_ok());
}

#[test]
fn truncations_and_extensions_are_rejected() {
    let (_, proof) = common::proven();
    let len = proof.bytes.len();
    let mut lengths: Vec<usize> = (HEADER_BYTES..len).step_by(211).collect();
    lengths.extend(len.saturating_sub(40)..len);
    for cut in lengths {
        let got = check(&proof.bytes[..cut]);
        assert!(matches!(got, "malformed_proof" | "invalid_proof_shape"), "cut {cut}: {got}");
    }
    for extra in [1usize, 7, 8, 1000] {
        let mut longer = proof.bytes.clone();
        longer.extend(std::iter::repeat_n(0x5a, extra));
        assert_eq!(check(&longer), "trailing_bytes");
    }
}

#[test]
fn garbage_bodies_are_rejected() {
    let mut state = 0x1234_5678_9abc_def0u64;
    for len in [0usize, 1, 8, 100, 5_000, 60_000, MAX_PROOF_BYTES - HEADER_BYTES] {
        let mut bytes = proof_header(PARAMETER_SET.id).to_vec();
        bytes.extend((0..len).map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        }));
        let got = check(&bytes);
        assert!(matches!(got, "malformed_proof" | "invalid_proof_shape"), "{len}: {got}");
    }
}

#[test]
fn malformed_public_inputs_are_rejected() {
    let (scenario, proof) = common::proven();
    let good = scenario.public_inputs.to_bytes();
    assert_eq!(good.len(), PUBLIC_INPUTS_BYTES);
    verify_spend(&proof.bytes, &good).unwrap();
    assert_eq!(code(verify_spend(&proof.bytes, &good[..135])), "invalid_length");
    let mut long = good.clone();
    long.push(0);
    assert_eq!(code(verify_spend(&proof.bytes, &long)), "invalid_length");
    // Each digest element, then the amount, set to a value not below p.
    for offset in [0usize, 32, 64, 104 + 24] {
        let mut bad = good.clone();
        bad[offset..offset + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(code(verify_spend(&proof.bytes, &bad)), "non_canonical_element", "{offset}");
    }
    for amount in [0u64, 1 << 62, u64::MAX] {
        let mut bad = good.clone();
        bad[96..104].copy_from_slice(&amount.to_le_bytes());
        assert_eq!(code(verify_spend(&proof.bytes, &bad)), "amount_out_of_range");
    }
}

#[test]
fn byte_level_prover_checks_its_inputs() {
    let (scenario, _) = common::proven();
    let witness = scenario.witness.to_bytes();
    assert_eq!(witness.len(), WITNESS_BYTES);
    assert_eq!(public_inputs_of(&witness).unwrap(), scenario.public_inputs.to_bytes());
    let seed = common::seed(9);
    let err = |r: Result<Vec<u8>, ProofError>| r.expect_err("refused").code();
    assert_eq!(err(prove_spend(&witness, &seed[..31])), "invalid_length");
    assert_eq!(err(prove_spend(&witness, &[0; 32])), "invalid_seed");
    assert_eq!(err(prove_spend(&witness[..100], &seed)), "invalid_length");
    let mut bad = witness.clone();
    bad[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(err(prove_spend(&bad, &seed)), "non_canonical_element");
    assert_eq!(err(public_inputs_of(&bad)), "non_canonical_element");
    let mut poor = scenario.witness.clone();
    poor.amount = poor.value + 1;
    assert_eq!(err(prove_spend(&poor.to_bytes(), &seed)), "insufficient_value");
    let proof = prove_spend(&witness, &seed).unwrap();
    verify_spend(&proof, &scenario.public_inputs.to_bytes()).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutations_are_rejected(position in any::<usize>(), delta in 1u8..=255, count in 1usize..4) {
        let (_, proof) = common::proven();
        let mut bytes = proof.bytes.clone();
        for i in 0..count {
            let at = HEADER_BYTES + (position.wrapping_add(i * 7919)) % (bytes.len() - HEADER_BYTES);
            bytes[at] = bytes[at].wrapping_add(delta);
        }
        check(&bytes);
    }

    #[test]
    fn spliced_proofs_are_rejected(cut in HEADER_BYTES + 1..40_000usize) {
        static OTHER: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let (scenario, proof) = common::proven();
        let other = OTHER.get_or_init(|| prove(&scenario.witness, common::seed(7)).unwrap().bytes);
        let cut = cut.min(proof.bytes.len() - 1).min(other.len() - 1);
        let mut spliced = proof.bytes[..cut].to_vec();
        spliced.extend_from_slice(&other[cut..]);
        prop_assume!(spliced != proof.bytes && &spliced != other);
        check(&spliced);
        let mut swapped = other[..cut].to_vec();
        swapped.extend_from_slice(&proof.bytes[cut..]);
        prop_assume!(swapped != proof.bytes && &swapped != other);
        check(&swapped);
    }
}
