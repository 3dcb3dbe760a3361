//! Canonical encodings: one value, one spelling; every other input is a typed error.

use priv_stark_core::{CoreError, Digest, wire};
use proptest::prelude::*;

const P: u64 = 0xffff_ffff_0000_0001;

fn hex_of(words: [u64; 4]) -> String {
    let mut bytes = Vec::new();
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    format!("0x{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

#[test]
fn hex_round_trip_and_its_must_fail_twins() {
    let text = hex_of([1, 2, 3, P - 1]);
    let digest = Digest::from_hex(&text, "d").unwrap();
    assert_eq!(digest.to_hex(), text);

    let upper = format!("0x{}", text[2..].to_uppercase());
    let cases: [(&str, String); 6] = [
        ("uppercase digits", upper),
        ("no prefix", text[2..].to_string() + "00"),
        ("short", text[..65].to_string()),
        ("long", text.clone() + "0"),
        ("non-hex digit", text.replacen('1', "g", 1)),
        ("empty", String::new()),
    ];
    for (name, bad) in cases {
        assert_eq!(Digest::from_hex(&bad, "d").unwrap_err().code(), "invalid_hex", "{name}: {bad}");
    }
    for word in [P, P + 1, u64::MAX] {
        let err = Digest::from_hex(&hex_of([0, 0, word, 0]), "d").unwrap_err();
        assert_eq!(err, CoreError::NonCanonicalElement { what: "d", index: 2 });
    }
}

#[test]
fn byte_entry_points_reject_bad_lengths_and_values() {
    assert_eq!(wire::rpo_permute(&[0; 95]).unwrap_err().code(), "invalid_length");
    assert_eq!(wire::rpo_permute(&[0xff; 96]).unwrap_err().code(), "non_canonical_element");
    assert_eq!(wire::hash_elements(0, &[]).unwrap_err().code(), "unknown_domain");
    assert_eq!(wire::hash_elements(14, &[]).unwrap_err().code(), "unknown_domain");
    assert_eq!(wire::hash_elements(1, &[0; 7]).unwrap_err().code(), "invalid_length");
    assert_eq!(wire::merge(&[0; 32], &[0; 31]).unwrap_err().code(), "invalid_length");
    assert_eq!(wire::frontier_append(&[0; 10], &[]).unwrap_err().code(), "invalid_length");
    assert_eq!(wire::tree_path(&[0; 64], 2).unwrap_err().code(), "index_out_of_range");
    assert_eq!(wire::tree_path(&[], 0).unwrap_err().code(), "index_out_of_range");
    assert_eq!(wire::root_from_path(&[0; 32], 0, &[0; 32]).unwrap_err().code(), "invalid_length");
    assert_eq!(wire::context_digest(&[1, 0, 0]).unwrap_err().code(), "invalid_length");
    let mut frontier = wire::frontier_empty();
    frontier[..8].copy_from_slice(&((1u64 << 32) + 1).to_le_bytes());
    assert_eq!(wire::frontier_append(&frontier, &[]).unwrap_err().code(), "index_out_of_range");
}

#[test]
fn context_limits_are_enforced() {
    fn pack(strings: [&[u8]; 5], amount: u64, expiry: u64) -> Vec<u8> {
        let mut out = Vec::new();
        for s in strings {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s);
        }
        out.extend_from_slice(&amount.to_le_bytes());
        out.extend_from_slice(&expiry.to_le_bytes());
        out
    }
    let ok = pack([b"priv-stark/v1", b"shielded:devnet", b"dUSD", b"pstark1x", b""], 5, 60);
    assert!(wire::context_digest(&ok).is_ok());
    let long = [b'a'; 33];
    let cases = [
        (pack([&long, b"n", b"a", b"p", b""], 5, 60), "field_too_long"),
        (pack([b"s", b"n", b"a", b"p", &[b'r'; 257]], 5, 60), "field_too_long"),
        (pack([b"s", b"n", b"a", b"p", b""], 0, 60), "value_out_of_range"),
        (pack([b"s", b"n", b"a", b"p", b""], 1 << 62, 60), "value_out_of_range"),
        (pack([b"s", b"n", b"a", b"p", b""], 5, P), "non_canonical_element"),
        (pack([b"s", b"n", &[0xff, 0xfe], b"p", b""], 5, 60), "invalid_encoding"),
    ];
    for (bytes, code) in cases {
        assert_eq!(wire::context_digest(&bytes).unwrap_err().code(), code);
    }
    let mut trailing = ok.clone();
    trailing.push(0);
    assert_eq!(wire::context_digest(&trailing).unwrap_err().code(), "invalid_length");
    let mut huge_len = ok;
    huge_len[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(wire::context_digest(&huge_len).unwrap_err().code(), "invalid_length");
}

#[test]
fn every_code_is_listed_once() {
    let mut codes = CoreError::CODES.to_vec();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), CoreError::CODES.len());
}

proptest! {
    #[test]
    fn digest_bytes_round_trip(words in proptest::array::uniform4(0..P)) {
        let text = hex_of(words);
        let bytes = wire::digest_from_hex(&text).unwrap();
        prop_assert_eq!(wire::digest_to_hex(&bytes).unwrap(), text);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), index in any::<u64>()) {
        let _ = wire::rpo_permute(&bytes);
        let _ = wire::hash_elements(4, &bytes);
        let _ = wire::frontier_append(&bytes, &bytes);
        let _ = wire::tree_path(&bytes, index);
        let _ = wire::root_from_path(&bytes, index, &bytes);
        let _ = wire::context_digest(&bytes);
        let _ = wire::digest_to_hex(&bytes);
        let _ = wire::digest_from_hex(&String::from_utf8_lossy(&bytes));
    }
}
