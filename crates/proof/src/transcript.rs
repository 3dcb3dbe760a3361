//! The Fiat-Shamir domain separator.
//!
//! Plonky3 binds the trace shape and the public values into its transcript, but neither the
//! identity of the AIR (its constraints) nor the FRI parameters. The challenger therefore starts
//! from a fixed prefix naming the statement, the AIR version, the field and hash choices and
//! every number of the parameter set: a proof made for another AIR or parameter set draws other
//! challenges and fails.

use alloc::vec::Vec;

use crate::{
    air::AIR_VERSION,
    config::SALT_ELEMS,
    encoding::FORMAT_VERSION,
    layout::{TRACE_ROWS, TRACE_WIDTH},
    params::ParameterSet,
    statement::NUM_PUBLIC_VALUES,
};

/// The statement's name in the transcript.
pub const TRANSCRIPT_LABEL: &[u8] =
    b"priv-stark/v1 spend | goldilocks^3 x^3-x-1 | rpo-256 air | blake3 | hiding fri";

/// The transcript prefix for `params`.
pub fn transcript_prefix(params: &ParameterSet) -> Vec<u8> {
    let mut out = Vec::with_capacity(TRANSCRIPT_LABEL.len() + 64);
    out.extend_from_slice(TRANSCRIPT_LABEL);
    let numbers = [
        usize::from(FORMAT_VERSION),
        AIR_VERSION,
        usize::from(params.id),
        TRACE_ROWS,
        TRACE_WIDTH,
        NUM_PUBLIC_VALUES,
        params.log_blowup,
        params.log_final_poly_len,
        params.max_log_arity,
        params.num_queries,
        params.query_pow_bits,
        params.commit_pow_bits,
        params.batch_pow_bits,
        params.ood_pow_bits,
        params.num_random_codewords,
        params.cap_height,
        SALT_ELEMS,
    ];
    for number in numbers {
        out.extend_from_slice(&(number as u32).to_le_bytes());
    }
    out
}
