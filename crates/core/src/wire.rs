//! Byte-level entry points shared by the N-API and WebAssembly bindings.
//!
//! Every argument arrives as untrusted bytes (or a string) and is checked here: lengths first,
//! then canonical field elements. Elements are 8 bytes little-endian, digests 32 bytes, lists of
//! digests are concatenated. The bindings only move bytes and map [`CoreError`] to their error
//! type, so both backends answer identically.

use alloc::{string::String, vec::Vec};

use crate::{
    context::PaymentContext,
    deposits::Deposit,
    digest::{DIGEST_BYTES, Digest},
    errors::CoreError,
    field::{felt_array_from_bytes, felts_from_bytes, felts_to_bytes},
    rpo::{self, STATE_WIDTH},
    sponge::{self, Domain},
    tree::{DEPTH, Frontier, MerkleTree},
};

/// Applies the RPO permutation to 12 encoded elements.
///
/// # Errors
/// A wrong length or a non-canonical element.
pub fn rpo_permute(state: &[u8]) -> Result<Vec<u8>, CoreError> {
    let mut state = felt_array_from_bytes::<STATE_WIDTH>(state, "state")?;
    rpo::permute(&mut state);
    Ok(felts_to_bytes(&state))
}

/// Hashes encoded elements in the domain with tag `domain`.
///
/// # Errors
/// An unknown domain, a length that is not a multiple of 8, or a non-canonical element.
pub fn hash_elements(domain: u32, input: &[u8]) -> Result<Vec<u8>, CoreError> {
    let domain = Domain::from_tag(domain)?;
    let input = felts_from_bytes(input, "input")?;
    Ok(sponge::hash_elements(domain, &input).to_bytes().to_vec())
}

/// `H_NODE(left, right)` of two encoded digests.
///
/// # Errors
/// A wrong length or a non-canonical element.
pub fn merge(left: &[u8], right: &[u8]) -> Result<Vec<u8>, CoreError> {
    let left = Digest::from_bytes(left, "left")?;
    let right = Digest::from_bytes(right, "right")?;
    Ok(sponge::merge(&left, &right).to_bytes().to_vec())
}

/// `H_NODE` of each pair of concatenated digests: `2n` digests in, `n` out (a level of a tree in
/// one call).
///
/// # Errors
/// A length that is not a whole number of pairs, or a non-canonical element.
pub fn merge_pairs(nodes: &[u8]) -> Result<Vec<u8>, CoreError> {
    if !nodes.len().is_multiple_of(2 * DIGEST_BYTES) {
        return Err(CoreError::InvalidLength {
            what: "nodes",
            expected: nodes.len().next_multiple_of(2 * DIGEST_BYTES),
            got: nodes.len(),
        });
    }
    let nodes = digests_from_bytes(nodes, "nodes")?;
    Ok(digests_to_bytes(&sponge::merge_pairs(&nodes)))
}

/// Parses the wire (hex) form of a digest into bytes.
///
/// # Errors
/// [`CoreError::InvalidHex`] or [`CoreError::NonCanonicalElement`].
pub fn digest_from_hex(text: &str) -> Result<Vec<u8>, CoreError> {
    Ok(Digest::from_hex(text, "digest")?.to_bytes().to_vec())
}

/// The wire (hex) form of an encoded digest.
///
/// # Errors
/// A wrong length or a non-canonical element.
pub fn digest_to_hex(bytes: &[u8]) -> Result<String, CoreError> {
    Ok(Digest::from_bytes(bytes, "digest")?.to_hex())
}

/// The encoded frontier of the empty tree.
pub fn frontier_empty() -> Vec<u8> {
    Frontier::new().to_bytes()
}

/// Appends concatenated leaves to an encoded frontier and returns the new encoding.
///
/// # Errors
/// A malformed frontier or leaf, or a full tree.
pub fn frontier_append(frontier: &[u8], leaves: &[u8]) -> Result<Vec<u8>, CoreError> {
    let mut frontier = Frontier::from_bytes(frontier)?;
    frontier.extend(&digests_from_bytes(leaves, "leaves")?)?;
    Ok(frontier.to_bytes())
}

/// The root of the tree holding the concatenated leaves.
///
/// # Errors
/// A malformed leaf or too many leaves.
pub fn tree_root(leaves: &[u8]) -> Result<Vec<u8>, CoreError> {
    let tree = MerkleTree::from_leaves(&digests_from_bytes(leaves, "leaves")?)?;
    Ok(tree.root().to_bytes().to_vec())
}

/// The authentication path (`DEPTH` concatenated digests) of leaf `index`.
///
/// # Errors
/// A malformed leaf or an index out of range.
pub fn tree_path(leaves: &[u8], index: u64) -> Result<Vec<u8>, CoreError> {
    let tree = MerkleTree::from_leaves(&digests_from_bytes(leaves, "leaves")?)?;
    Ok(digests_to_bytes(&tree.path(index)?))
}

/// The root reached from `leaf` at `index` along `path`.
///
/// # Errors
/// A malformed digest, a path of the wrong length or an index beyond the capacity.
pub fn root_from_path(leaf: &[u8], index: u64, path: &[u8]) -> Result<Vec<u8>, CoreError> {
    let leaf = Digest::from_bytes(leaf, "leaf")?;
    if path.len() != DEPTH * DIGEST_BYTES {
        return Err(CoreError::InvalidLength {
            what: "path",
            expected: DEPTH * DIGEST_BYTES,
            got: path.len(),
        });
    }
    let mut siblings = [Digest::ZERO; DEPTH];
    for (slot, digest) in siblings.iter_mut().zip(digests_from_bytes(path, "path")?) {
        *slot = digest;
    }
    Ok(crate::tree::root_from_path(&leaf, index, &siblings)?.to_bytes().to_vec())
}

/// The shielded address of an encoded owner digest.
///
/// # Errors
/// A wrong length or a non-canonical element.
pub fn address_encode(owner: &[u8]) -> Result<String, CoreError> {
    Ok(crate::address::encode_address(&Digest::from_bytes(owner, "owner")?))
}

/// The encoded owner digest of a shielded address.
///
/// # Errors
/// [`CoreError::InvalidAddress`] or [`CoreError::NonCanonicalElement`].
pub fn address_decode(address: &str) -> Result<Vec<u8>, CoreError> {
    Ok(crate::address::decode_address(address)?.to_bytes().to_vec())
}

/// `ctx` of a packed payment: five strings (`scheme`, `network`, `asset`, `payTo`,
/// `resourceId`), each a u32 little-endian byte length and its UTF-8 bytes, then `amount` and
/// `expiry` as u64 little-endian.
///
/// # Errors
/// A malformed packing, invalid UTF-8, or a field [`PaymentContext::encode`] refuses.
pub fn context_digest(packed: &[u8]) -> Result<Vec<u8>, CoreError> {
    let mut reader = Reader { bytes: packed };
    let scheme = reader.string("scheme")?;
    let network = reader.string("network")?;
    let asset = reader.string("asset")?;
    let pay_to = reader.string("payTo")?;
    let resource_id = reader.string("resourceId")?;
    let amount = reader.u64("amount")?;
    let expiry = reader.u64("expiry")?;
    if !reader.bytes.is_empty() {
        return Err(CoreError::InvalidLength {
            what: "context",
            expected: packed.len() - reader.bytes.len(),
            got: packed.len(),
        });
    }
    let context = PaymentContext { scheme, network, asset, pay_to, amount, resource_id, expiry };
    Ok(context.digest()?.to_bytes().to_vec())
}

/// Bytes of one deposit given to [`deposit_matches`]: its amount (u64 little-endian), then its
/// commitment.
pub const DEPOSIT_BYTES: usize = 8 + DIGEST_BYTES;

/// The deposits that pay one of the precommitments (see [`crate::deposits::deposit_matches`]):
/// `precommitments` are concatenated digests, `deposits` concatenated [`DEPOSIT_BYTES`] records;
/// the answer is one pair of u32 little-endian indexes (deposit, precommitment) per match, in
/// the deposits' order.
///
/// # Errors
/// A length that is not a whole number of records, a non-canonical element, an amount not below
/// 2^62, or more than 2^32 records.
pub fn deposit_matches(precommitments: &[u8], deposits: &[u8]) -> Result<Vec<u8>, CoreError> {
    let pres = digests_from_bytes(precommitments, "precommitments")?;
    if !deposits.len().is_multiple_of(DEPOSIT_BYTES) {
        return Err(CoreError::InvalidLength {
            what: "deposits",
            expected: deposits.len().next_multiple_of(DEPOSIT_BYTES),
            got: deposits.len(),
        });
    }
    let records = deposits
        .chunks_exact(DEPOSIT_BYTES)
        .map(|record| {
            let (amount, commitment) = record.split_at(8);
            let mut le = [0u8; 8];
            le.copy_from_slice(amount);
            Ok(Deposit {
                amount: u64::from_le_bytes(le),
                commitment: Digest::from_bytes(commitment, "deposits")?,
            })
        })
        .collect::<Result<Vec<_>, CoreError>>()?;
    let index = |i: usize, what: &'static str| {
        u32::try_from(i).map_err(|_| CoreError::InvalidLength {
            what,
            expected: u32::MAX as usize,
            got: i,
        })
    };
    index(pres.len(), "precommitments")?;
    index(records.len(), "deposits")?;
    let mut out = Vec::new();
    for found in crate::deposits::deposit_matches(&pres, &records)? {
        out.extend_from_slice(&index(found.deposit, "deposits")?.to_le_bytes());
        out.extend_from_slice(&index(found.precommitment, "precommitments")?.to_le_bytes());
    }
    Ok(out)
}

/// Splits concatenated 32-byte digests.
///
/// # Errors
/// A length that is not a multiple of 32, or a non-canonical element.
pub fn digests_from_bytes(bytes: &[u8], what: &'static str) -> Result<Vec<Digest>, CoreError> {
    if !bytes.len().is_multiple_of(DIGEST_BYTES) {
        return Err(CoreError::InvalidLength {
            what,
            expected: bytes.len().next_multiple_of(DIGEST_BYTES),
            got: bytes.len(),
        });
    }
    bytes.chunks_exact(DIGEST_BYTES).map(|chunk| Digest::from_bytes(chunk, what)).collect()
}

/// Concatenates encoded digests.
pub fn digests_to_bytes(digests: &[Digest]) -> Vec<u8> {
    let mut out = Vec::with_capacity(digests.len() * DIGEST_BYTES);
    for digest in digests {
        out.extend_from_slice(&digest.to_bytes());
    }
    out
}

/// A cursor over packed arguments that never reads past the end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize, what: &'static str) -> Result<&'a [u8], CoreError> {
        if self.bytes.len() < len {
            return Err(CoreError::InvalidLength { what, expected: len, got: self.bytes.len() });
        }
        let (head, tail) = self.bytes.split_at(len);
        self.bytes = tail;
        Ok(head)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, CoreError> {
        let mut word = [0u8; 4];
        word.copy_from_slice(self.take(4, what)?);
        Ok(u32::from_le_bytes(word))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, CoreError> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_le_bytes(word))
    }

    fn string(&mut self, what: &'static str) -> Result<&'a str, CoreError> {
        let len = usize::try_from(self.u32(what)?).unwrap_or(usize::MAX);
        let bytes = self.take(len, what)?;
        core::str::from_utf8(bytes).map_err(|_| CoreError::InvalidEncoding { what })
    }
}
