//! The Plonky3 configuration: Goldilocks, its cubic extension `x^3 - x - 1` for every challenge,
//! BLAKE3 for Merkle commitments and Fiat-Shamir, and the hiding (zero-knowledge) FRI PCS over a
//! salted Merkle tree.
//!
//! The prover's two random generators (Merkle salts, PCS masks) are derived from a 32-byte seed
//! the caller draws from a CSPRNG. The verifier draws no randomness; it builds the same types
//! with a fixed seed that is never used.

use alloc::vec::Vec;

use p3_challenger::{HashChallenger, SerializingChallenger64};
use p3_commit::ExtensionMmcs;
use p3_dft::Radix2DFTSmallBatch;
use p3_field::extension::CubicTrinomialExtensionField;
use p3_fri::{FriParameters, HidingFriPcs};
use p3_goldilocks::Goldilocks;
use p3_merkle_tree::MerkleTreeHidingMmcs;
use p3_uni_stark::StarkConfig;
use rand::{SeedableRng, rngs::StdRng};

use crate::{
    hash::{Blake3Hash, LeafHash, NodeCompress},
    params::ParameterSet,
};

/// The base field.
pub type Val = Goldilocks;
/// The challenge field: the cubic extension of Goldilocks (192 bits).
pub type Challenge = CubicTrinomialExtensionField<Goldilocks>;

/// Salt elements per Merkle leaf: 2 × 64 bits ≥ 128 bits of hiding.
pub const SALT_ELEMS: usize = 2;
/// Bytes of a Merkle digest.
pub const DIGEST_BYTES: usize = 32;

/// The salted (hiding) Merkle commitment over base-field matrices: BLAKE3 of each salted row,
/// BLAKE3 of each pair of digests ([`crate::hash`]).
pub type ValMmcs =
    MerkleTreeHidingMmcs<Val, u8, LeafHash, NodeCompress, StdRng, 2, DIGEST_BYTES, SALT_ELEMS>;
type ChallengeMmcs = ExtensionMmcs<Val, Challenge, ValMmcs>;
/// Radix-2 DFT tuned for few columns on one thread (measured ~25% faster than
/// `Radix2DitParallel` here); the LDE values, hence the proofs, do not depend on the choice.
type Dft = Radix2DFTSmallBatch<Val>;
/// The hiding FRI polynomial commitment scheme.
pub type Pcs = HidingFriPcs<Val, Dft, ValMmcs, ChallengeMmcs, StdRng>;
/// Fiat-Shamir over BLAKE3, absorbing canonical little-endian bytes.
pub type Challenger = SerializingChallenger64<Val, HashChallenger<u8, Blake3Hash, 32>>;
/// The STARK configuration.
pub type SpendConfig = StarkConfig<Pcs, Challenge, Challenger>;
/// A Plonky3 proof under [`SpendConfig`].
pub type StarkProof = p3_uni_stark::Proof<SpendConfig>;

/// Builds the configuration for `params`; `transcript_prefix` seeds the Fiat-Shamir transcript,
/// `seed` the prover's randomness (split into independent MMCS and PCS seeds).
pub fn build_config(
    params: &ParameterSet,
    transcript_prefix: &[u8],
    seed: [u8; 32],
) -> SpendConfig {
    let (mmcs_seed, pcs_seed) = split_seed(seed);
    let val_mmcs =
        ValMmcs::new(LeafHash, NodeCompress, params.cap_height, StdRng::from_seed(mmcs_seed));
    let challenge_mmcs = ChallengeMmcs::new(val_mmcs.clone());
    let fri_params = FriParameters {
        log_blowup: params.log_blowup,
        log_final_poly_len: params.log_final_poly_len,
        max_log_arity: params.max_log_arity,
        num_queries: params.num_queries,
        batch_proof_of_work_bits: params.batch_pow_bits,
        commit_proof_of_work_bits: params.commit_pow_bits,
        query_proof_of_work_bits: params.query_pow_bits,
        mmcs: challenge_mmcs,
    };
    let pcs = Pcs::new(
        Dft::default(),
        val_mmcs,
        fri_params,
        params.num_random_codewords,
        StdRng::from_seed(pcs_seed),
    );
    let challenger = Challenger::from_hasher(transcript_prefix.to_vec(), Blake3Hash);
    SpendConfig::new(pcs, challenger).with_ood_proof_of_work_bits(params.ood_pow_bits)
}

/// Derives two independent 32-byte seeds from one with BLAKE3 in keyed-derivation style: each is
/// the hash of a distinct label and the seed, so neither reveals the other.
fn split_seed(seed: [u8; 32]) -> ([u8; 32], [u8; 32]) {
    use p3_symmetric::CryptographicHasher;
    let derive = |label: &[u8]| -> [u8; 32] {
        let mut input = Vec::with_capacity(label.len() + 32);
        input.extend_from_slice(label);
        input.extend_from_slice(&seed);
        Blake3Hash.hash_iter(input)
    };
    (derive(b"priv-stark/v1 mmcs salts"), derive(b"priv-stark/v1 pcs masks"))
}
