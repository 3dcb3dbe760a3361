//! The typed transition verifier runs the shared public-input rules itself
//! ([`crate::transition::check_public_rules`]): public inputs built without them (which only this
//! crate's tests can do) are refused with the rule's code. Without the check, the aliased exit
//! below would verify: `p + 50,000` is the field element of the golden proof's exit.

use alloc::vec::Vec;

use priv_stark_core::field::MODULUS;

use crate::transition::{TransitionPublicInputs, verify_transition};

fn golden() -> (Vec<u8>, TransitionPublicInputs) {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/transition");
    let proof = std::fs::read(dir.join("proof.bin")).expect("proof.bin");
    let public = std::fs::read(dir.join("public.bin")).expect("public.bin");
    (proof, TransitionPublicInputs::from_bytes(&public).expect("golden public inputs"))
}

fn with(
    public: &TransitionPublicInputs,
    nullifiers: [priv_stark_core::Digest; 2],
    exit: u64,
) -> TransitionPublicInputs {
    TransitionPublicInputs::unchecked(
        public.root(),
        nullifiers,
        public.outputs(),
        exit,
        public.context(),
        public.memo(),
        public.refund(),
    )
}

#[test]
fn the_typed_verifier_refuses_an_aliased_exit() {
    let (proof, public) = golden();
    assert_eq!(public.exit(), 50_000);
    let aliased = with(&public, public.nullifiers(), MODULUS + 50_000);
    assert_eq!(aliased.to_field_elements(), public.to_field_elements());
    assert_eq!(verify_transition(&proof, &aliased).unwrap_err().code(), "amount_out_of_range");
    // Must-pass twin: the same inputs through the unchecked constructor, with the real exit.
    assert_eq!(verify_transition(&proof, &with(&public, public.nullifiers(), 50_000)), Ok(()));
}

#[test]
fn the_typed_verifier_refuses_equal_nullifiers() {
    let (proof, public) = golden();
    let [first, _] = public.nullifiers();
    let twice = with(&public, [first, first], public.exit());
    assert_eq!(verify_transition(&proof, &twice).unwrap_err().code(), "nullifiers_not_distinct");
}
