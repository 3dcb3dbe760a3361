//! The RPO-256 permutation over Goldilocks (Rescue Prime Optimized, eprint 2022/1577):
//! state width 12 (rate 8 in lanes 0..8, capacity 4 in lanes 8..12), 7 rounds, S-box `x^7` and
//! its inverse. Each round is `MDS, +ARK1, x^7, MDS, +ARK2, x^(1/7)`; there is no concluding
//! linear step. The spend AIR reuses [`MDS_FIRST_ROW`] and the round constants.

use p3_field::{Field, PackedValue, PrimeCharacteristicRing};
use p3_rescue::MdsMatrixRpoGoldilocks;
use p3_symmetric::Permutation;

use crate::{
    field::Felt,
    rpo_constants::{ARK1, ARK2},
};

/// Lanes in the state.
pub const STATE_WIDTH: usize = 12;
/// Lanes absorbed per permutation.
pub const RATE: usize = 8;
/// First capacity lane.
pub const CAPACITY_START: usize = RATE;
/// Rounds of the permutation.
pub const NUM_ROUNDS: usize = 7;

/// First row of the circulant MDS matrix of the paper: `M[i][j] = MDS_FIRST_ROW[(j - i) mod 12]`.
pub const MDS_FIRST_ROW: [u64; STATE_WIDTH] = [7, 23, 8, 26, 13, 10, 9, 7, 6, 22, 21, 8];

/// A permutation state.
pub type State = [Felt; STATE_WIDTH];

/// Applies the permutation in place.
pub fn permute(state: &mut State) {
    for round in 0..NUM_ROUNDS {
        apply_round(state, round);
    }
}

/// One full round: both halves.
pub fn apply_round(state: &mut State, round: usize) {
    apply_mds(state);
    add_constants(state, &ARK1[round]);
    for lane in state.iter_mut() {
        *lane = lane.exp_const_u64::<7>();
    }
    apply_mds(state);
    add_constants(state, &ARK2[round]);
    apply_inverse_sbox(state);
}

/// [`permute`] of each state, several states at a time: both S-boxes run over the lanes of all of
/// them at once, so the inverse S-box's chains of dependent multiplications — most of the
/// permutation's cost — run side by side and fill the pipeline (one state alone is 2 vectors of
/// AVX-512: its chains mostly wait). About 2.5 times the throughput of [`permute`] with AVX-512.
pub fn permute_batch(states: &mut [State]) {
    let width = <Felt as Field>::Packing::WIDTH;
    let together = (CHAINS * width / STATE_WIDTH).clamp(1, BATCH_MAX);
    for group in states.chunks_mut(together) {
        for round in 0..NUM_ROUNDS {
            for state in group.iter_mut() {
                apply_mds(state);
                add_constants(state, &ARK1[round]);
            }
            on_all_lanes(group, |packed| {
                for v in packed.iter_mut() {
                    *v = v.exp_const_u64::<7>();
                }
            });
            for state in group.iter_mut() {
                apply_mds(state);
                add_constants(state, &ARK2[round]);
            }
            on_all_lanes(group, seventh_root);
        }
    }
}

/// The most independent chains (packed vectors) [`seventh_root`] runs side by side.
const CHAINS: usize = 16;
/// The most states [`permute_batch`] takes together (AVX-512: 16 vectors of 8 lanes hold 10).
const BATCH_MAX: usize = 10;

/// `f` on the lanes of every state in `group` packed together (at most [`BATCH_MAX`] states,
/// whose lanes fill at most [`CHAINS`] packed vectors).
fn on_all_lanes(group: &mut [State], f: impl Fn(&mut [<Felt as Field>::Packing])) {
    // The states' lanes, padded to whole vectors (of up to 8 lanes).
    const LANES: usize = BATCH_MAX * STATE_WIDTH + 8;
    let width = <Felt as Field>::Packing::WIDTH;
    let used = group.len() * STATE_WIDTH;
    let vectors = used.div_ceil(width);
    debug_assert!(vectors <= CHAINS);
    let mut lanes = [Felt::ZERO; LANES];
    for (state, chunk) in group.iter().zip(lanes.chunks_exact_mut(STATE_WIDTH)) {
        chunk.copy_from_slice(state);
    }
    f(<Felt as Field>::Packing::pack_slice_mut(&mut lanes[..vectors * width]));
    for (state, chunk) in group.iter_mut().zip(lanes.chunks_exact(STATE_WIDTH)) {
        state.copy_from_slice(chunk);
    }
}

/// Multiplies the state by the circulant MDS matrix, with Plonky3's frequency-domain
/// implementation of exactly this matrix (`MdsMatrixRpoGoldilocks`); `tests/rpo.rs` checks it
/// column by column against [`MDS_FIRST_ROW`].
pub fn apply_mds(state: &mut State) {
    MdsMatrixRpoGoldilocks.permute_mut(state);
}

fn add_constants(state: &mut State, constants: &[u64; STATE_WIDTH]) {
    for (lane, constant) in state.iter_mut().zip(constants) {
        *lane += Felt::from_u64(*constant);
    }
}

/// `x -> x^(1/7)` on all lanes, in the widest SIMD packing the build has (AVX-512, AVX2, NEON or
/// wasm simd128; plain elements otherwise). The state is padded to whole packed vectors.
fn apply_inverse_sbox(state: &mut State) {
    const PADDED: usize = 16;
    let width = <Felt as Field>::Packing::WIDTH;
    let vectors = STATE_WIDTH.div_ceil(width);
    let mut lanes = [Felt::ZERO; PADDED];
    lanes[..STATE_WIDTH].copy_from_slice(state);
    let packed = <Felt as Field>::Packing::pack_slice_mut(&mut lanes[..vectors * width]);
    seventh_root(packed);
    state.copy_from_slice(&lanes[..STATE_WIDTH]);
}

/// `x^10540996611094048183` (the inverse of `x^7` since `7 e = 1 mod p - 1`) on every element of
/// `values`, step by step across all of them so the independent chains overlap in the pipeline.
///
/// The exponent in base 8 is `1111111111 0 6666666666 7` (22 digits), so it is evaluated by 3-bit
/// windows: 63 squarings and 20 multiplications, plus 4 for the digits `x^2, x^3, x^6, x^7`.
fn seventh_root<R: PrimeCharacteristicRing + Copy>(values: &mut [R]) {
    const MAX: usize = CHAINS;
    let n = values.len().min(MAX);
    let x: [R; MAX] = core::array::from_fn(|i| if i < n { values[i] } else { R::ZERO });
    let x2 = lanewise(&x, n, |a| a.square());
    let x3 = lanewise2(&x2, &x, n);
    let x6 = lanewise(&x3, n, |a| a.square());
    let x7 = lanewise2(&x6, &x, n);
    let mut acc = x;
    for digit in [1usize, 1, 1, 1, 1, 1, 1, 1, 1, 0, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7] {
        acc = lanewise(&acc, n, |a| a.square().square().square());
        match digit {
            1 => acc = lanewise2(&acc, &x, n),
            6 => acc = lanewise2(&acc, &x6, n),
            7 => acc = lanewise2(&acc, &x7, n),
            _ => {}
        }
    }
    values[..n].copy_from_slice(&acc[..n]);
}

fn lanewise<R: Copy, const M: usize>(a: &[R; M], n: usize, f: impl Fn(R) -> R) -> [R; M] {
    let mut out = *a;
    for v in out[..n].iter_mut() {
        *v = f(*v);
    }
    out
}

fn lanewise2<R: PrimeCharacteristicRing + Copy, const M: usize>(
    a: &[R; M],
    b: &[R; M],
    n: usize,
) -> [R; M] {
    let mut out = *a;
    for (v, w) in out[..n].iter_mut().zip(b) {
        *v *= *w;
    }
    out
}
