//! The lean BLAKE3 paths of `src/hash.rs` compute Plonky3's functions digest for digest: bytes,
//! rows of field elements and node pairs, at every length around the block and chunk edges, one
//! message at a time and batched; and a whole proof made with them is byte for byte the proof a
//! configuration of Plonky3's own BLAKE3 types makes.

use crate::common;

use p3_blake3::Blake3;
use p3_challenger::{HashChallenger, SerializingChallenger64};
use p3_commit::ExtensionMmcs;
use p3_dft::Radix2DFTSmallBatch;
use p3_fri::{FriParameters, HidingFriPcs};
use p3_merkle_tree::MerkleTreeHidingMmcs;
use p3_symmetric::{
    CompressionFunctionFromHasher, CryptographicHasher, PseudoCompressionFunction,
    SerializingHasher,
};
use p3_uni_stark::StarkConfig;
use priv_stark_core::Felt;
use priv_stark_proof::{
    air::SpendAir,
    builder::random_felt,
    config::{Challenge, DIGEST_BYTES, SALT_ELEMS, Val},
    encoding::HEADER_BYTES,
    hash::{Blake3Hash, LeafHash, NodeCompress},
    params::PARAMETER_SET,
    prover::prove,
    trace::build_trace,
    transcript::transcript_prefix,
};
use rand::{Rng, SeedableRng, rngs::StdRng};

fn lengths() -> impl Iterator<Item = usize> {
    (0..200).chain([255, 256, 257, 511, 512, 513, 960, 1023, 1024, 1025, 1088, 2048, 2049, 5000])
}

#[test]
fn bytes_hash_like_plonky3() {
    let mut rng = StdRng::seed_from_u64(1);
    for len in lengths() {
        let message: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
        let expected = Blake3.hash_iter(message.iter().copied());
        assert_eq!(expected, *blake3::hash(&message).as_bytes());
        assert_eq!(Blake3Hash.hash_iter(message.iter().copied()), expected, "{len}");
        let cut = if len == 0 { 0 } else { rng.next_u32() as usize % len };
        let slices = [&message[..cut], &message[cut..], &[][..]];
        assert_eq!(Blake3Hash.hash_iter_slices(slices), expected, "{len}");
    }
    let batch: Vec<u8> = (0..8 * 100).map(|i| i as u8).collect();
    let (mut ours, mut theirs) = ([[0u8; 32]; 8], [[0u8; 32]; 8]);
    Blake3Hash.hash_many(&batch, &mut ours);
    Blake3.hash_many(&batch, &mut theirs);
    assert_eq!(ours, theirs);
}

#[test]
fn rows_hash_like_plonky3() {
    let plonky3 = SerializingHasher::new(Blake3);
    let mut rng = StdRng::seed_from_u64(2);
    for len in (0..160).chain([200, 255, 256, 300]) {
        let row: Vec<Felt> = (0..len).map(|_| random_felt(&mut rng)).collect();
        let expected: [u8; 32] = plonky3.hash_iter(row.iter().copied());
        assert_eq!(LeafHash.hash_iter(row.iter().copied()), expected, "{len}");
        assert_eq!(LeafHash.hash_slice(&row), expected, "{len}");
        let cut = len / 3;
        assert_eq!(LeafHash.hash_iter_slices([&row[..cut], &row[cut..]]), expected, "{len}");
    }
    let batch: Vec<Felt> = (0..16 * 51).map(|_| random_felt(&mut rng)).collect();
    let (mut ours, mut theirs) = ([[0u8; 32]; 16], [[0u8; 32]; 16]);
    LeafHash.hash_many(&batch, &mut ours);
    CryptographicHasher::<Felt, [u8; 32]>::hash_many(&plonky3, &batch, &mut theirs);
    assert_eq!(ours, theirs);
}

#[test]
fn nodes_compress_like_plonky3() {
    let plonky3 = CompressionFunctionFromHasher::<Blake3, 2, 32>::new(Blake3);
    let mut rng = StdRng::seed_from_u64(3);
    let mut digest = || -> [u8; 32] { core::array::from_fn(|_| rng.next_u32() as u8) };
    let pairs: Vec<[[u8; 32]; 2]> = (0..37).map(|_| [digest(), digest()]).collect();
    for pair in &pairs {
        assert_eq!(NodeCompress.compress(*pair), plonky3.compress(*pair));
    }
    let (mut ours, mut theirs) = (vec![[0u8; 32]; pairs.len()], vec![[0u8; 32]; pairs.len()]);
    NodeCompress.compress_many(&pairs, &mut ours);
    plonky3.compress_many(&pairs, &mut theirs);
    assert_eq!(ours, theirs);
}

type P3Mmcs = MerkleTreeHidingMmcs<
    Val,
    u8,
    SerializingHasher<Blake3>,
    CompressionFunctionFromHasher<Blake3, 2, DIGEST_BYTES>,
    StdRng,
    2,
    DIGEST_BYTES,
    SALT_ELEMS,
>;
type P3Pcs = HidingFriPcs<
    Val,
    Radix2DFTSmallBatch<Val>,
    P3Mmcs,
    ExtensionMmcs<Val, Challenge, P3Mmcs>,
    StdRng,
>;
type P3Config =
    StarkConfig<P3Pcs, Challenge, SerializingChallenger64<Val, HashChallenger<u8, Blake3, 32>>>;

/// `config::build_config` with Plonky3's own BLAKE3 types (and its seed split, whose labels are
/// hashed with BLAKE3 too, so it gives the same seeds).
fn plonky3_config(seed: [u8; 32]) -> P3Config {
    let params = PARAMETER_SET;
    let derive = |label: &[u8]| -> [u8; 32] { Blake3.hash_iter_slices([label, &seed[..]]) };
    let (mmcs_seed, pcs_seed) =
        (derive(b"priv-stark/v1 mmcs salts"), derive(b"priv-stark/v1 pcs masks"));
    let mmcs = P3Mmcs::new(
        SerializingHasher::new(Blake3),
        CompressionFunctionFromHasher::new(Blake3),
        params.cap_height,
        StdRng::from_seed(mmcs_seed),
    );
    let fri = FriParameters {
        log_blowup: params.log_blowup,
        log_final_poly_len: params.log_final_poly_len,
        max_log_arity: params.max_log_arity,
        num_queries: params.num_queries,
        batch_proof_of_work_bits: params.batch_pow_bits,
        commit_proof_of_work_bits: params.commit_pow_bits,
        query_proof_of_work_bits: params.query_pow_bits,
        mmcs: ExtensionMmcs::new(mmcs.clone()),
    };
    let pcs = P3Pcs::new(
        Radix2DFTSmallBatch::default(),
        mmcs,
        fri,
        params.num_random_codewords,
        StdRng::from_seed(pcs_seed),
    );
    let challenger = SerializingChallenger64::from_hasher(transcript_prefix(&params), Blake3);
    P3Config::new(pcs, challenger).with_ood_proof_of_work_bits(params.ood_pow_bits)
}

#[test]
fn proofs_are_byte_for_byte_those_of_plonky3s_blake3() {
    let (scenario, proof) = common::proven();
    let values = scenario.witness.derive().unwrap();
    let trace = build_trace(&scenario.witness, &values);
    let public = scenario.public_inputs.to_field_elements();
    let theirs =
        p3_uni_stark::prove(&plonky3_config(common::seed(1)), SpendAir::shared(), trace, &public)
            .unwrap();
    assert_eq!(postcard::to_allocvec(&theirs).unwrap(), proof.bytes[HEADER_BYTES..]);
    // And they verify under Plonky3's types.
    p3_uni_stark::verify(&plonky3_config([0; 32]), SpendAir::shared(), &theirs, &public).unwrap();
    // Must-fail twin: another seed, another proof.
    assert_ne!(prove(&scenario.witness, common::seed(2)).unwrap().bytes, proof.bytes);
}
