//! The pool's append-only Merkle tree of note commitments: depth 32, `node = H_NODE(left, right)`,
//! empty leaf = the zero digest.
//!
//! Two views of the same tree:
//! * [`Frontier`] — what the pool keeps: the left siblings on the path of the next leaf, so an
//!   append costs `DEPTH` merges and yields the new root;
//! * [`MerkleTree`] — what a wallet rebuilds from all leaves it downloaded, to take the
//!   authentication path of its own note locally (asking anyone for it would reveal the note).

use alloc::{vec, vec::Vec};

use spin::Lazy;

use crate::{
    digest::{DIGEST_BYTES, Digest},
    errors::CoreError,
    sponge::merge,
};

/// Levels between a leaf and the root.
pub const DEPTH: usize = 32;
/// Leaves the tree can hold.
pub const CAPACITY: u64 = 1 << DEPTH;

/// An authentication path: the sibling at each level, leaf level first.
pub type MerklePath = [Digest; DEPTH];

static EMPTY_SUBTREES: Lazy<[Digest; DEPTH + 1]> = Lazy::new(|| {
    let mut roots = [Digest::ZERO; DEPTH + 1];
    for level in 1..=DEPTH {
        roots[level] = merge(&roots[level - 1], &roots[level - 1]);
    }
    roots
});

/// `EMPTY_SUBTREES[h]` is the root of an empty subtree of height `h`; `[DEPTH]` is the empty root.
pub fn empty_subtrees() -> &'static [Digest; DEPTH + 1] {
    &EMPTY_SUBTREES
}

/// The root of `leaf` at `index` given its path.
pub fn root_from_path(leaf: &Digest, index: u64, path: &MerklePath) -> Result<Digest, CoreError> {
    if index >= CAPACITY {
        return Err(CoreError::IndexOutOfRange { index, size: CAPACITY });
    }
    let mut current = *leaf;
    for (level, sibling) in path.iter().enumerate() {
        current = if (index >> level) & 1 == 0 {
            merge(&current, sibling)
        } else {
            merge(sibling, &current)
        };
    }
    Ok(current)
}

// FRONTIER
// ================================================================================================

/// The incremental state of the tree: size, left siblings of the next leaf's path, and root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    left: [Digest; DEPTH],
    root: Digest,
}

/// Bytes of an encoded frontier: size (u64 LE), `DEPTH` left siblings, root.
pub const FRONTIER_BYTES: usize = 8 + (DEPTH + 1) * DIGEST_BYTES;

impl Default for Frontier {
    fn default() -> Self {
        Self::new()
    }
}

impl Frontier {
    /// The frontier of the empty tree.
    pub fn new() -> Self {
        Self { size: 0, left: [Digest::ZERO; DEPTH], root: empty_subtrees()[DEPTH] }
    }

    /// Leaves appended so far.
    pub const fn size(&self) -> u64 {
        self.size
    }

    /// The current root.
    pub const fn root(&self) -> Digest {
        self.root
    }

    /// Appends `leaf` in `DEPTH` merges and returns its index.
    ///
    /// # Errors
    /// [`CoreError::TreeFull`] after 2^32 leaves.
    pub fn append(&mut self, leaf: Digest) -> Result<u64, CoreError> {
        let index = self.size;
        if index >= CAPACITY {
            return Err(CoreError::TreeFull);
        }
        let empty = empty_subtrees();
        let mut current = leaf;
        for (level, (left, empty)) in self.left.iter_mut().zip(empty).enumerate() {
            current = if (index >> level) & 1 == 0 {
                *left = current;
                merge(&current, empty)
            } else {
                merge(left, &current)
            };
        }
        self.root = current;
        self.size = index + 1;
        Ok(index)
    }

    /// Appends `leaves` in order, with the same result — root and encoding — as appending them
    /// one by one, in about two merges per leaf plus `DEPTH` for the last one: a leaf only
    /// completes the left subtrees that end with it, and only the last leaf walks to the root.
    ///
    /// # Errors
    /// [`CoreError::TreeFull`] if the leaves do not all fit; then nothing is appended.
    pub fn extend(&mut self, leaves: &[Digest]) -> Result<(), CoreError> {
        let Some((last, rest)) = leaves.split_last() else {
            return Ok(());
        };
        if self.size + leaves.len() as u64 > CAPACITY {
            return Err(CoreError::TreeFull);
        }
        for leaf in rest {
            // `index` is below CAPACITY - 1 here, so it has a zero bit below DEPTH.
            let index = self.size;
            let mut current = *leaf;
            let mut level = 0;
            while (index >> level) & 1 == 1 {
                current = merge(&self.left[level], &current);
                level += 1;
            }
            self.left[level] = current;
            self.size = index + 1;
        }
        self.append(*last).map(|_| ())
    }

    /// The encoding kept by the pool's stores.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FRONTIER_BYTES);
        out.extend_from_slice(&self.size.to_le_bytes());
        for digest in self.left.iter().chain(core::iter::once(&self.root)) {
            out.extend_from_slice(&digest.to_bytes());
        }
        out
    }

    /// Decodes [`Frontier::to_bytes`].
    ///
    /// # Errors
    /// [`CoreError::InvalidLength`], [`CoreError::NonCanonicalElement`], or
    /// [`CoreError::IndexOutOfRange`] for a size above the capacity.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CoreError> {
        if bytes.len() != FRONTIER_BYTES {
            return Err(CoreError::InvalidLength {
                what: "frontier",
                expected: FRONTIER_BYTES,
                got: bytes.len(),
            });
        }
        let mut size = [0u8; 8];
        size.copy_from_slice(&bytes[..8]);
        let size = u64::from_le_bytes(size);
        if size > CAPACITY {
            return Err(CoreError::IndexOutOfRange { index: size, size: CAPACITY });
        }
        let mut digests = bytes[8..].chunks_exact(DIGEST_BYTES);
        let mut left = [Digest::ZERO; DEPTH];
        for slot in left.iter_mut() {
            *slot = Digest::from_bytes(digests.next().unwrap_or(&[]), "frontier")?;
        }
        let root = Digest::from_bytes(digests.next().unwrap_or(&[]), "frontier")?;
        Ok(Self { size, left, root })
    }
}

// FULL TREE
// ================================================================================================

/// Every node of a tree built from its leaves, for local authentication paths.
#[derive(Clone, Debug)]
pub struct MerkleTree {
    /// `levels[0]` are the leaves; each level above holds the non-empty nodes only.
    levels: Vec<Vec<Digest>>,
}

impl MerkleTree {
    /// Builds the tree of `leaves` (about `2 n` merges).
    ///
    /// # Errors
    /// [`CoreError::TreeFull`] for more than 2^32 leaves.
    pub fn from_leaves(leaves: &[Digest]) -> Result<Self, CoreError> {
        if leaves.len() as u64 > CAPACITY {
            return Err(CoreError::TreeFull);
        }
        let empty = empty_subtrees();
        let mut levels = vec![leaves.to_vec()];
        for level in 0..DEPTH {
            let below = &levels[level];
            let above: Vec<Digest> = below
                .chunks(2)
                .map(|pair| merge(&pair[0], pair.get(1).unwrap_or(&empty[level])))
                .collect();
            levels.push(above);
        }
        Ok(Self { levels })
    }

    /// Leaves in the tree.
    pub fn size(&self) -> u64 {
        self.levels[0].len() as u64
    }

    /// The root.
    pub fn root(&self) -> Digest {
        self.levels[DEPTH].first().copied().unwrap_or(empty_subtrees()[DEPTH])
    }

    /// The authentication path of the leaf at `index`.
    ///
    /// # Errors
    /// [`CoreError::IndexOutOfRange`] when `index` is not below the size.
    pub fn path(&self, index: u64) -> Result<MerklePath, CoreError> {
        if index >= self.size() {
            return Err(CoreError::IndexOutOfRange { index, size: self.size() });
        }
        let empty = empty_subtrees();
        let mut path = [Digest::ZERO; DEPTH];
        for (level, sibling) in path.iter_mut().enumerate() {
            let position = usize::try_from((index >> level) ^ 1).unwrap_or(usize::MAX);
            *sibling = self.levels[level].get(position).copied().unwrap_or(empty[level]);
        }
        Ok(path)
    }
}
