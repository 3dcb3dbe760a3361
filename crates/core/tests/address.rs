//! Shielded addresses round-trip, and every corruption is refused.

use priv_stark_core::{
    Digest,
    address::{ADDRESS_CHARS, decode_address, encode_address},
    notes,
};
use proptest::prelude::*;

#[test]
fn round_trip_and_must_fail_twins() {
    let owner = notes::owner(&Digest::from_hex(&format!("0x{}", "11".repeat(32)), "sk").unwrap());
    let address = encode_address(&owner);
    assert!(address.starts_with("pstark1"));
    assert_eq!(address.len(), ADDRESS_CHARS);
    assert_eq!(decode_address(&address).unwrap(), owner);

    let mut typo = address.clone().into_bytes();
    let last = typo.len() - 10;
    typo[last] = if typo[last] == b'q' { b'p' } else { b'q' };
    let cases = [
        String::from_utf8(typo).unwrap(),
        address.to_uppercase(),
        address.replacen("pstark", "pstarx", 1),
        address[..address.len() - 1].to_string(),
        format!("{address}q"),
        String::new(),
    ];
    for bad in cases {
        assert_eq!(decode_address(&bad).unwrap_err().code(), "invalid_address", "{bad}");
    }
}

proptest! {
    #[test]
    fn any_text_is_refused_or_decodes(text in "\\PC{0,80}") {
        if let Ok(owner) = decode_address(&text) {
            prop_assert_eq!(encode_address(&owner), text);
        }
    }
}
