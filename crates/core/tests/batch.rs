//! Hashes run together (`permute_batch` under `hash_blocks` and `merge_pairs`, which a wallet's
//! sync uses for pages of thousands) are the hashes run one at a time.

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{
    Digest, Domain, Felt,
    field::MODULUS,
    notes::{note_commitment, note_input},
    sponge::{hash_blocks, hash_elements, merge, merge_pairs},
};
use proptest::prelude::*;

fn digest(words: [u64; 4]) -> Digest {
    Digest(words.map(Felt::from_u64))
}

#[test]
fn merge_pairs_must_fail_twin_ignores_a_trailing_odd_node() {
    let nodes: Vec<Digest> = (0..5u64).map(|i| digest([i, i + 1, i + 2, i + 3])).collect();
    let parents = merge_pairs(&nodes);
    assert_eq!(parents, [merge(&nodes[0], &nodes[1]), merge(&nodes[2], &nodes[3])]);
    assert_ne!(parents[0], parents[1]);
    assert!(merge_pairs(&[]).is_empty());
}

proptest! {
    #[test]
    fn merge_pairs_is_merge_of_each_pair(
        nodes in proptest::collection::vec(proptest::array::uniform4(0..MODULUS), 0..48),
    ) {
        let nodes: Vec<Digest> = nodes.into_iter().map(digest).collect();
        let one_by_one: Vec<Digest> =
            nodes.chunks_exact(2).map(|pair| merge(&pair[0], &pair[1])).collect();
        prop_assert_eq!(merge_pairs(&nodes), one_by_one);
    }

    #[test]
    fn note_commitments_together_are_each_alone(
        notes in proptest::collection::vec(
            (0..(1u64 << 62), proptest::array::uniform4(0..MODULUS)),
            0..30,
        ),
    ) {
        let inputs: Vec<_> =
            notes.iter().map(|(value, pre)| note_input(*value, &digest(*pre)).unwrap()).collect();
        let expected: Vec<Digest> = notes
            .iter()
            .map(|(value, pre)| note_commitment(*value, &digest(*pre)).unwrap())
            .collect();
        prop_assert_eq!(hash_blocks(Domain::Note, &inputs), expected);
    }

    #[test]
    fn hash_blocks_is_hash_elements_in_every_domain(
        inputs in proptest::collection::vec(proptest::array::uniform3(0..MODULUS), 1..14),
        tag in 1u32..=9,
    ) {
        let domain = Domain::from_tag(tag).unwrap();
        let inputs: Vec<[Felt; 3]> = inputs.into_iter().map(|i| i.map(Felt::from_u64)).collect();
        let expected: Vec<Digest> = inputs.iter().map(|i| hash_elements(domain, i)).collect();
        prop_assert_eq!(hash_blocks(domain, &inputs), expected);
    }
}
