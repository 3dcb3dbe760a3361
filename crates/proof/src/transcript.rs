//! The Fiat-Shamir domain separator.
//!
//! Plonky3 binds the trace shape and the public values into its transcript, but neither the
//! identity of the AIR (its constraints) nor the FRI parameters. The challenger therefore starts
//! from a fixed prefix naming the statement, the AIR, the field and hash choices and every
//! number of the parameter set: a proof made for another AIR or parameter set draws other
//! challenges and fails.
//!
//! Parameter sets name the AIR as [`AirBinding`] says: sets 1 and 2 by the hand-kept version
//! number 1 (their prefix is unchanged, so their proofs still verify), later sets by
//! [`air_digest`], computed from the constraints and periodic columns.

use alloc::vec::Vec;

use crate::{
    air_digest::air_digest,
    config::SALT_ELEMS,
    encoding::FORMAT_VERSION,
    layout::{TRACE_ROWS, TRACE_WIDTH},
    params::{AirBinding, ParameterSet},
    statement::NUM_PUBLIC_VALUES,
};

/// The statement's name in the transcript.
pub const TRANSCRIPT_LABEL: &[u8] =
    b"priv-stark/v1 spend | goldilocks^3 x^3-x-1 | rpo-256 air | blake3 | hiding fri";
/// The label of a prefix naming the AIR by its digest (followed by the 32 digest bytes).
pub const AIR_DIGEST_LABEL: &[u8] = b" | air digest";

/// The transcript prefix for `params`: the label, 17 numbers as `u32` little-endian (the format
/// version, the AIR version or 0, the set's id and numbers, the trace shape, the salt size),
/// then, for [`AirBinding::Digest`], [`AIR_DIGEST_LABEL`] and the digest.
pub fn transcript_prefix(params: &ParameterSet) -> Vec<u8> {
    let digest = match params.air_binding {
        AirBinding::Digest => Some(air_digest()),
        AirBinding::Version(_) => None,
    };
    let statement = StatementShape {
        label: TRANSCRIPT_LABEL,
        trace_rows: TRACE_ROWS,
        trace_width: TRACE_WIDTH,
        public_values: NUM_PUBLIC_VALUES,
    };
    transcript_prefix_of(&statement, params, digest.as_ref())
}

/// What a transcript prefix says of a statement besides its parameter set.
#[derive(Clone, Copy, Debug)]
pub struct StatementShape {
    /// The statement's name (it also names the field, hash and PCS choices).
    pub label: &'static [u8],
    /// Rows of its trace.
    pub trace_rows: usize,
    /// Columns of its trace.
    pub trace_width: usize,
    /// Field elements of its public inputs.
    pub public_values: usize,
}

/// The transcript prefix of any statement: as [`transcript_prefix`] with that statement's label,
/// shape and AIR digest (`None` only for the [`AirBinding::Version`] sets of the spend AIR).
pub fn transcript_prefix_of(
    statement: &StatementShape,
    params: &ParameterSet,
    digest: Option<&[u8; 32]>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(statement.label.len() + 128);
    out.extend_from_slice(statement.label);
    let air_version = match params.air_binding {
        AirBinding::Version(version) => version as usize,
        AirBinding::Digest => 0,
    };
    let numbers = [
        usize::from(FORMAT_VERSION),
        air_version,
        usize::from(params.id),
        statement.trace_rows,
        statement.trace_width,
        statement.public_values,
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
    if let Some(digest) = digest {
        out.extend_from_slice(AIR_DIGEST_LABEL);
        out.extend_from_slice(digest);
    }
    out
}
