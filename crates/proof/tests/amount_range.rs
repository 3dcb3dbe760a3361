//! The typed API holds `0 < amount < 2^62` as the byte API does. The AIR reads the amount as a
//! field element, so without that check a `u64` amount of `p − 1` (or `p + k`) would stand for
//! `−1` (or `k`): a trace whose change note is worth `v + 1` satisfies every constraint for the
//! amount `p − 1`, which would mint one unit for the payer and tell the payee it got `p − 1`.
//!
//! Each forged trace below satisfies the AIR and is proven with Plonky3 directly (the project's
//! prover refuses such witnesses); Plonky3's own verifier accepts the proof for the field-level
//! statement (must-pass twin), and every entry point of this crate refuses the `u64` amount.

use crate::common;

use common::forge;
use priv_stark_proof::{
    ProofError, PublicInputs,
    air::SpendAir,
    config::build_config,
    encoding::HEADER_BYTES,
    params::KNOWN_SETS,
    statement::check_amount,
    transcript::transcript_prefix,
    verifier::{AcceptedSets, decode_body, verify, verify_accepting, verify_with},
    wire::{verify_spend, verify_spend_accepting},
};

#[test]
fn amounts_outside_the_range_are_refused_when_public_inputs_are_built() {
    let honest = common::proven().0.public_inputs;
    for amount in [0, 1 << 62, (1 << 62) + 1, forge::AMOUNTS[0], forge::AMOUNTS[2], u64::MAX] {
        let expected = Err(ProofError::AmountOutOfRange { amount });
        assert_eq!(
            PublicInputs::new(
                honest.root(),
                honest.nullifier(),
                honest.change(),
                amount,
                honest.context()
            ),
            expected
        );
        assert_eq!(honest.with_amount(amount), expected);
        assert_eq!(check_amount(amount).map(|_| ()), expected.map(|_: PublicInputs| ()));
    }
    // Must-pass twins: both ends of the range.
    for amount in [1, (1 << 62) - 1] {
        assert_eq!(honest.with_amount(amount).map(|p| p.amount()), Ok(amount));
    }
}

#[test]
fn forged_amount_proofs_are_refused_by_every_entry_point() {
    // Under every set a verifier can accept (the amounts alternate between them: proving is
    // the slow part of this test).
    for (i, amount) in forge::AMOUNTS.into_iter().enumerate() {
        let params = KNOWN_SETS[i % KNOWN_SETS.len()].params;
        let (bytes, forged) = forge::prove(&params, amount);
        let only_this = AcceptedSets::new(&[params.id]).unwrap();

        // The STARK itself holds for the field-level statement: only the range check stands
        // between this proof and a mint.
        let stark = decode_body(&bytes[HEADER_BYTES..]).unwrap();
        let config = build_config(&params, &transcript_prefix(&params), [0; 32]);
        p3_uni_stark::verify(&config, SpendAir::shared(), &stark, &forged.public)
            .expect("Plonky3 accepts the field-level statement");

        // The typed API cannot even express the claimed amount.
        let typed = forged.honest.with_change(forge::change_of(&forged)).with_amount(amount);
        assert_eq!(typed, Err(ProofError::AmountOutOfRange { amount }), "{amount}");

        // The byte API refuses it before looking at the proof.
        let refused = Err(ProofError::AmountOutOfRange { amount });
        assert_eq!(verify_spend(&bytes, &forged.encoded), refused, "{amount}");
        assert_eq!(verify_spend_accepting(&bytes, &forged.encoded, &[params.id]), refused);

        // Where the field element is itself a valid amount (p + k for 0 < k < 2^62), the proof
        // is an honest proof of paying k, and verifies only as that.
        let aliased = amount.wrapping_sub(priv_stark_core::field::MODULUS);
        if amount >= priv_stark_core::field::MODULUS && check_amount(aliased).is_ok() {
            let as_paid =
                forged.honest.with_change(forge::change_of(&forged)).with_amount(aliased).unwrap();
            verify(&bytes, &as_paid).expect("the proof of paying k");
            verify_accepting(&only_this, &bytes, &as_paid).expect("the proof of paying k");
            verify_with(&params, &bytes, &as_paid).expect("the proof of paying k");
            let mut encoded = forged.encoded.clone();
            encoded[96..104].copy_from_slice(&aliased.to_le_bytes());
            verify_spend(&bytes, &encoded).expect("the proof of paying k");
        }
    }
}
