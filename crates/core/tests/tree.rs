//! Tree laws over random append sequences: the frontier root equals the root rebuilt from all
//! leaves, every path leads to the root, and a wrong leaf, index or sibling does not.

use p3_field::PrimeCharacteristicRing;
use priv_stark_core::{
    Digest, Felt,
    sponge::merge,
    tree::{CAPACITY, DEPTH, Frontier, MerkleTree, empty_subtrees, root_from_path},
};
use proptest::prelude::*;

fn leaf(seed: u64) -> Digest {
    Digest([Felt::from_u64(seed), Felt::from_u64(seed ^ 0x55), Felt::ONE, Felt::from_u64(7)])
}

#[test]
fn empty_tree_root_is_the_top_empty_subtree() {
    let empty = empty_subtrees();
    assert_eq!(Frontier::new().root(), empty[DEPTH]);
    assert_eq!(MerkleTree::from_leaves(&[]).unwrap().root(), empty[DEPTH]);
    assert_eq!(empty[1], merge(&Digest::ZERO, &Digest::ZERO));
}

#[test]
fn frontier_round_trips_through_bytes() {
    let mut frontier = Frontier::new();
    for i in 0..5 {
        frontier.append(leaf(i)).unwrap();
    }
    let decoded = Frontier::from_bytes(&frontier.to_bytes()).unwrap();
    assert_eq!(decoded, frontier);
    let mut corrupted = frontier.to_bytes();
    corrupted[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(Frontier::from_bytes(&corrupted).unwrap_err().code(), "non_canonical_element");
}

#[test]
fn index_beyond_capacity_is_refused() {
    let path = [Digest::ZERO; DEPTH];
    assert_eq!(root_from_path(&leaf(1), CAPACITY, &path).unwrap_err().code(), "index_out_of_range");
}

#[test]
fn extend_refuses_leaves_past_capacity_and_changes_nothing() {
    let mut bytes = Frontier::new().to_bytes();
    bytes[..8].copy_from_slice(&(CAPACITY - 1).to_le_bytes());
    let nearly_full = Frontier::from_bytes(&bytes).unwrap();
    let mut frontier = nearly_full.clone();
    assert_eq!(frontier.extend(&[leaf(1), leaf(2)]).unwrap_err().code(), "tree_full");
    assert_eq!(frontier, nearly_full);
    frontier.extend(&[leaf(1)]).unwrap();
    assert_eq!(frontier.size(), CAPACITY);
    frontier.extend(&[]).unwrap();
    assert_eq!(frontier.extend(&[leaf(3)]).unwrap_err().code(), "tree_full");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `extend` is an optimisation of one-by-one appends: same frontier, encoding included.
    #[test]
    fn extend_equals_appending_one_by_one(
        seeds in proptest::collection::vec(any::<u64>(), 0..300),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let leaves: Vec<Digest> = seeds.iter().map(|s| leaf(*s)).collect();
        let mut one_by_one = Frontier::new();
        for l in &leaves {
            one_by_one.append(*l).unwrap();
        }
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c.index(leaves.len() + 1)).collect();
        bounds.extend([0, leaves.len()]);
        bounds.sort_unstable();
        let mut batched = Frontier::new();
        for pair in bounds.windows(2) {
            batched.extend(&leaves[pair[0]..pair[1]]).unwrap();
            prop_assert_eq!(batched.size(), pair[1] as u64);
        }
        prop_assert_eq!(batched.to_bytes(), one_by_one.to_bytes());
    }

    #[test]
    fn frontier_root_equals_rebuilt_root(seeds in proptest::collection::vec(any::<u64>(), 0..40)) {
        let leaves: Vec<Digest> = seeds.iter().map(|s| leaf(*s)).collect();
        let mut frontier = Frontier::new();
        for (i, l) in leaves.iter().enumerate() {
            prop_assert_eq!(frontier.append(*l).unwrap(), i as u64);
        }
        prop_assert_eq!(frontier.size(), leaves.len() as u64);
        prop_assert_eq!(frontier.root(), MerkleTree::from_leaves(&leaves).unwrap().root());
    }

    #[test]
    fn paths_lead_to_the_root_and_wrong_ones_do_not(
        seeds in proptest::collection::vec(any::<u64>(), 1..40),
        pick in any::<prop::sample::Index>(),
        level in 0..DEPTH,
    ) {
        let leaves: Vec<Digest> = seeds.iter().enumerate().map(|(i, s)| leaf(s.wrapping_add(i as u64))).collect();
        let tree = MerkleTree::from_leaves(&leaves).unwrap();
        let index = pick.index(leaves.len());
        let path = tree.path(index as u64).unwrap();
        prop_assert_eq!(root_from_path(&leaves[index], index as u64, &path).unwrap(), tree.root());

        let wrong_leaf = leaf(u64::MAX - seeds[index]);
        prop_assume!(wrong_leaf != leaves[index]);
        prop_assert_ne!(root_from_path(&wrong_leaf, index as u64, &path).unwrap(), tree.root());
        let wrong_index = index as u64 ^ (1 << level);
        prop_assert_ne!(root_from_path(&leaves[index], wrong_index, &path).unwrap(), tree.root());
        let mut wrong_path = path;
        wrong_path[level] = leaf(12345);
        prop_assume!(wrong_path[level] != path[level]);
        prop_assert_ne!(root_from_path(&leaves[index], index as u64, &wrong_path).unwrap(), tree.root());
    }
}
