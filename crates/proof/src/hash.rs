//! BLAKE3 for the Merkle leaves, the Merkle nodes and the Fiat–Shamir transcript: the same
//! function as Plonky3's `p3_blake3::Blake3` (with `SerializingHasher` for rows of field elements
//! and `CompressionFunctionFromHasher` for nodes), digest for digest, with lean paths for the
//! single messages a verifier hashes.
//!
//! Plonky3's single-message path builds a full incremental `blake3::Hasher` (with its subtree
//! stack) for every leaf and every 64-byte node and feeds it through a byte iterator; that was a
//! fifth of a verification. Every message here fits one BLAKE3 chunk (1024 bytes: a node is 64,
//! the widest leaf a few hundred), so its digest is a plain chain of block compressions from the
//! IV, computed directly with the compression function of the platform `blake3` detects (AVX-512,
//! AVX2, SSE4.1, or `simd128` in WebAssembly when built with that feature). Longer messages go
//! to `blake3::hash`. Batches (the prover's `hash_many` / `compress_many`) go to Plonky3's
//! batched implementation unchanged. `tests/hash.rs` compares every path with Plonky3's.
//!
//! Like `p3_blake3`, this relies on `blake3::platform`, which the `blake3` crate marks as
//! unstable; the equality tests pin it.

use blake3::{BLOCK_LEN, CHUNK_LEN, OUT_LEN, platform::Platform};
use p3_field::PrimeField64;
use p3_symmetric::{
    CompressionFunctionFromHasher, CryptographicHasher, PseudoCompressionFunction,
    SerializingHasher,
};
use priv_stark_core::Felt;

/// BLAKE3's initialization vector (the SHA-256 one).
const IV: [u32; 8] = [
    0x6A09_E667,
    0xBB67_AE85,
    0x3C6E_F372,
    0xA54F_F53A,
    0x510E_527F,
    0x9B05_688C,
    0x1F83_D9AB,
    0x5BE0_CD19,
];
/// Flag of the first block of a chunk.
const CHUNK_START: u8 = 1;
/// Flag of the last block of a chunk.
const CHUNK_END: u8 = 2;
/// Flag of the compression producing the output.
const ROOT: u8 = 8;

/// BLAKE3 of a message of at most one chunk, as a chain of block compressions.
fn hash_chunk(platform: Platform, message: &[u8]) -> [u8; OUT_LEN] {
    debug_assert!(message.len() <= CHUNK_LEN);
    let mut cv = IV;
    let blocks = message.len().div_ceil(BLOCK_LEN).max(1);
    for index in 0..blocks {
        let start = index * BLOCK_LEN;
        let end = message.len().min(start + BLOCK_LEN);
        let mut block = [0u8; BLOCK_LEN];
        block[..end - start].copy_from_slice(&message[start..end]);
        let mut flags = 0;
        if index == 0 {
            flags |= CHUNK_START;
        }
        if index + 1 == blocks {
            flags |= CHUNK_END | ROOT;
        }
        platform.compress_in_place(&mut cv, &block, (end - start) as u8, 0, flags);
    }
    let mut out = [0u8; OUT_LEN];
    for (word, bytes) in cv.iter().zip(out.chunks_exact_mut(4)) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// A message assembled on the stack while it fits one chunk, hashed on `finish`.
struct Message {
    buffer: [u8; CHUNK_LEN],
    len: usize,
    /// The incremental hasher, once the message outgrows one chunk.
    spill: Option<blake3::Hasher>,
}

impl Message {
    const fn new() -> Self {
        Self { buffer: [0; CHUNK_LEN], len: 0, spill: None }
    }

    fn push(&mut self, bytes: &[u8]) {
        if let Some(hasher) = &mut self.spill {
            hasher.update(bytes);
        } else if self.len + bytes.len() <= CHUNK_LEN {
            self.buffer[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        } else {
            let mut hasher = blake3::Hasher::new();
            hasher.update(&self.buffer[..self.len]);
            hasher.update(bytes);
            self.spill = Some(hasher);
        }
    }

    fn finish(self) -> [u8; OUT_LEN] {
        match self.spill {
            Some(hasher) => hasher.finalize().into(),
            None => hash_chunk(Platform::detect(), &self.buffer[..self.len]),
        }
    }
}

/// BLAKE3 over bytes: the transcript's hash.
#[derive(Clone, Copy, Debug, Default)]
pub struct Blake3Hash;

impl CryptographicHasher<u8, [u8; OUT_LEN]> for Blake3Hash {
    const LANES: usize = <p3_blake3::Blake3 as CryptographicHasher<u8, [u8; OUT_LEN]>>::LANES;

    fn hash_iter<I: IntoIterator<Item = u8>>(&self, input: I) -> [u8; OUT_LEN] {
        let mut message = Message::new();
        let mut staged = [0u8; 64];
        let mut count = 0;
        for byte in input {
            staged[count] = byte;
            count += 1;
            if count == staged.len() {
                message.push(&staged);
                count = 0;
            }
        }
        message.push(&staged[..count]);
        message.finish()
    }

    fn hash_iter_slices<'a, I>(&self, input: I) -> [u8; OUT_LEN]
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let mut message = Message::new();
        for slice in input {
            message.push(slice);
        }
        message.finish()
    }

    fn hash_many(&self, input: &[u8], out: &mut [[u8; OUT_LEN]]) {
        p3_blake3::Blake3.hash_many(input, out);
    }
}

/// BLAKE3 of a row of field elements, each as its canonical 8 bytes little-endian: the Merkle
/// leaf hash (Plonky3's `SerializingHasher<Blake3>`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LeafHash;

impl LeafHash {
    fn push_elements(message: &mut Message, elements: &[Felt]) {
        for chunk in elements.chunks(8) {
            let mut bytes = [0u8; 64];
            for (element, out) in chunk.iter().zip(bytes.chunks_exact_mut(8)) {
                out.copy_from_slice(&element.as_canonical_u64().to_le_bytes());
            }
            message.push(&bytes[..8 * chunk.len()]);
        }
    }
}

impl CryptographicHasher<Felt, [u8; OUT_LEN]> for LeafHash {
    const LANES: usize = <p3_blake3::Blake3 as CryptographicHasher<u8, [u8; OUT_LEN]>>::LANES;

    fn hash_iter<I: IntoIterator<Item = Felt>>(&self, input: I) -> [u8; OUT_LEN] {
        let mut message = Message::new();
        let mut staged = [Felt::default(); 8];
        let mut count = 0;
        for element in input {
            staged[count] = element;
            count += 1;
            if count == staged.len() {
                Self::push_elements(&mut message, &staged);
                count = 0;
            }
        }
        Self::push_elements(&mut message, &staged[..count]);
        message.finish()
    }

    fn hash_iter_slices<'a, I>(&self, input: I) -> [u8; OUT_LEN]
    where
        I: IntoIterator<Item = &'a [Felt]>,
    {
        let mut message = Message::new();
        for slice in input {
            Self::push_elements(&mut message, slice);
        }
        message.finish()
    }

    fn hash_many(&self, input: &[Felt], out: &mut [[u8; OUT_LEN]]) {
        SerializingHasher::new(p3_blake3::Blake3).hash_many(input, out);
    }
}

/// BLAKE3 of two 32-byte digests: the Merkle node compression (Plonky3's
/// `CompressionFunctionFromHasher<Blake3, 2, 32>`). One block compression.
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeCompress;

impl PseudoCompressionFunction<[u8; OUT_LEN], 2> for NodeCompress {
    const LANES: usize =
        <CompressionFunctionFromHasher<p3_blake3::Blake3, 2, OUT_LEN> as PseudoCompressionFunction<
            [u8; OUT_LEN],
            2,
        >>::LANES;

    fn compress(&self, [left, right]: [[u8; OUT_LEN]; 2]) -> [u8; OUT_LEN] {
        let mut block = [0u8; BLOCK_LEN];
        block[..OUT_LEN].copy_from_slice(&left);
        block[OUT_LEN..].copy_from_slice(&right);
        hash_chunk(Platform::detect(), &block)
    }

    fn compress_many(&self, inputs: &[[[u8; OUT_LEN]; 2]], out: &mut [[u8; OUT_LEN]]) {
        CompressionFunctionFromHasher::<_, 2, OUT_LEN>::new(p3_blake3::Blake3)
            .compress_many(inputs, out);
    }
}
