//! Unit tests of the error registry and the byte encodings.

use alloc::{collections::BTreeSet, vec, vec::Vec};

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{Digest, Felt, tree::DEPTH};

use crate::{
    encoding::{PUBLIC_INPUTS_BYTES, WITNESS_BYTES, split_header},
    errors::{FailedCheck, ProofError},
    statement::{PublicInputs, SpendWitness},
};

fn every_error() -> Vec<ProofError> {
    vec![
        ProofError::InvalidLength { what: "x", expected: 1, got: 2 },
        ProofError::NonCanonicalElement { what: "x", index: 0 },
        ProofError::InvalidSeed,
        ProofError::AmountOutOfRange { amount: 0 },
        ProofError::ValueOutOfRange { value: 0 },
        ProofError::InsufficientValue { value: 0, amount: 1 },
        ProofError::IndexOutOfRange { index: 0 },
        ProofError::RootMismatch,
        ProofError::NullifierMismatch,
        ProofError::ChangeMismatch,
        ProofError::AmountMismatch,
        ProofError::ContextMismatch,
        ProofError::UnsatisfiedConstraints { failures: 1 },
        ProofError::ProvingFailed,
        ProofError::ProofTooLarge { max: 1, got: 2 },
        ProofError::ProofTooShort { got: 0 },
        ProofError::BadMagic,
        ProofError::UnsupportedVersion { expected: 1, got: 2 },
        ProofError::UnsupportedParameterSet { got: 2 },
        ProofError::MalformedProof,
        ProofError::TrailingBytes { count: 1 },
        ProofError::InvalidProofShape { what: "x", expected: 1, got: 2 },
        ProofError::InvalidProof { check: FailedCheck::ProofOfWork },
        ProofError::InternalPanic,
        ProofError::ValuesNotConserved,
        ProofError::OutputBelowMinimum { value: 1 },
        ProofError::NullifiersNotDistinct,
        ProofError::OutputMismatch,
        ProofError::FirstInputDummy,
    ]
}

#[test]
fn codes_are_listed_once_in_order_and_snake_case() {
    let codes: Vec<&str> = every_error().iter().map(ProofError::code).collect();
    assert_eq!(codes, ProofError::CODES);
    let unique: BTreeSet<&str> = codes.iter().copied().collect();
    assert_eq!(unique.len(), codes.len());
    for code in codes {
        assert!(code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{code}");
    }
}

#[test]
fn public_inputs_and_witness_round_trip() {
    let digest = |seed: u64| Digest([Felt::from_u64(seed), Felt::ONE, Felt::TWO, Felt::NEG_ONE]);
    let public = PublicInputs::new(digest(1), digest(2), digest(3), 42, digest(4)).unwrap();
    let bytes = public.to_bytes();
    assert_eq!(bytes.len(), PUBLIC_INPUTS_BYTES);
    assert_eq!(PublicInputs::from_bytes(&bytes), Ok(public));

    let witness = SpendWitness {
        spending_key: digest(5),
        value: 100,
        rho: digest(6),
        index: 7,
        path: [digest(8); DEPTH],
        amount: 42,
        context: digest(4),
    };
    let bytes = witness.to_bytes();
    assert_eq!(bytes.len(), WITNESS_BYTES);
    assert_eq!(SpendWitness::from_bytes(&bytes), Ok(witness));
    assert_eq!(SpendWitness::from_bytes(&bytes[1..]).unwrap_err().code(), "invalid_length");
}

#[test]
fn header_checks_come_in_order() {
    assert_eq!(split_header(b"PSSP\x01\x07body"), Ok((7, &b"body"[..])));
    assert_eq!(split_header(b"PSSP\x01"), Err(ProofError::ProofTooShort { got: 5 }));
    assert_eq!(split_header(b"PSSQ\x01\x01"), Err(ProofError::BadMagic));
    assert_eq!(
        split_header(b"PSSP\x02\x01"),
        Err(ProofError::UnsupportedVersion { expected: 1, got: 2 })
    );
}
