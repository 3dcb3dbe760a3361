//! Known-answer tests against `test/vectors/*.json`, written by the independent Python reference
//! `scripts/reference/rpo_reference.py`; the permutation vector is miden-crypto's. The
//! TypeScript suite checks the same files through both bindings.

use std::{fs, path::PathBuf};

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{
    Digest, Domain, Felt,
    context::PaymentContext,
    notes, rpo,
    sponge::hash_elements,
    tree::{Frontier, MerkleTree, empty_subtrees, root_from_path},
};
use serde_json::Value;

fn vectors(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/vectors").join(name);
    serde_json::from_str(&fs::read_to_string(path).expect("vector file")).expect("vector json")
}

fn felts(value: &Value) -> Vec<Felt> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|x| Felt::from_u64(x.as_str().unwrap().parse().unwrap()))
        .collect()
}

fn digest(value: &Value) -> Digest {
    Digest::from_hex(value.as_str().unwrap(), "vector").unwrap()
}

#[test]
fn permutation_matches_published_vectors() {
    let file = vectors("rpo.json");
    for case in file["permutation"].as_array().unwrap() {
        let mut state: [Felt; 12] = felts(&case["input"]).try_into().unwrap();
        rpo::permute(&mut state);
        assert_eq!(state.to_vec(), felts(&case["output"]));
    }
}

#[test]
fn domain_hashes_match_reference() {
    let file = vectors("rpo.json");
    let cases = file["hashes"].as_array().unwrap();
    assert!(cases.len() >= 9 * 7);
    for case in cases {
        let domain = Domain::from_tag(case["tag"].as_u64().unwrap() as u32).unwrap();
        let got = hash_elements(domain, &felts(&case["input"]));
        assert_eq!(got, digest(&case["digest"]), "{case}");
    }
}

#[test]
fn note_helpers_match_reference() {
    let v = vectors("notes.json");
    let sk = digest(&v["sk"]);
    let owner = notes::owner(&sk);
    assert_eq!(owner, digest(&v["owner"]));
    let rho = notes::deposit_rho(&sk, 0);
    assert_eq!(rho, digest(&v["depositRho"]));
    let pre = notes::precommitment(&owner, &rho);
    assert_eq!(pre, digest(&v["precommitment"]));
    let cm = notes::note_commitment(1_000_000, &pre).unwrap();
    assert_eq!(cm, digest(&v["commitment"]));
    let nf = notes::nullifier(&sk, &cm);
    assert_eq!(nf, digest(&v["nullifier"]));
    assert_eq!(notes::change_rho(&sk, &nf), digest(&v["changeRho"]));
    assert_eq!(notes::recipient_rho(&nf), digest(&v["recipientRho"]));
}

#[test]
fn tree_matches_reference() {
    let v = vectors("tree.json");
    let empty: Vec<Digest> = v["emptyRoots"].as_array().unwrap().iter().map(digest).collect();
    assert_eq!(empty.as_slice(), empty_subtrees().as_slice());
    let leaves: Vec<Digest> = v["leaves"].as_array().unwrap().iter().map(digest).collect();
    let roots: Vec<Digest> = v["roots"].as_array().unwrap().iter().map(digest).collect();
    let mut frontier = Frontier::new();
    assert_eq!(frontier.root(), roots[0]);
    for (k, leaf) in leaves.iter().enumerate() {
        assert_eq!(frontier.append(*leaf).unwrap(), k as u64);
        assert_eq!(frontier.root(), roots[k + 1]);
        assert_eq!(MerkleTree::from_leaves(&leaves[..=k]).unwrap().root(), roots[k + 1]);
    }
    let tree = MerkleTree::from_leaves(&leaves).unwrap();
    for (index, path) in v["paths"].as_object().unwrap() {
        let index: u64 = index.parse().unwrap();
        let expected: Vec<Digest> = path.as_array().unwrap().iter().map(digest).collect();
        let got = tree.path(index).unwrap();
        assert_eq!(got.to_vec(), expected);
        assert_eq!(root_from_path(&leaves[index as usize], index, &got).unwrap(), tree.root());
    }
}

#[test]
fn context_digests_match_reference() {
    let v = vectors("context.json");
    for case in v["contexts"].as_array().unwrap() {
        let context = PaymentContext {
            scheme: case["scheme"].as_str().unwrap(),
            network: case["network"].as_str().unwrap(),
            asset: case["asset"].as_str().unwrap(),
            pay_to: case["payTo"].as_str().unwrap(),
            amount: case["amount"].as_str().unwrap().parse().unwrap(),
            resource_id: case["resourceId"].as_str().unwrap(),
            expiry: case["expiry"].as_u64().unwrap(),
        };
        assert_eq!(context.digest().unwrap(), digest(&case["ctx"]), "{case}");
    }
}
