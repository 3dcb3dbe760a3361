//! The fixed shape of a spend proof, checked before Plonky3's verifier runs.
//!
//! Every count and width a decoded proof carries is compared with the value the accepted
//! parameter set and the AIR determine: the trace height (`degree_bits`), the Merkle cap sizes,
//! the out-of-domain openings, the hiding openings, the FRI round count and arities, the query
//! count, the salts and the final polynomial. Only proofs of exactly this shape reach Plonky3,
//! which bounds its work and keeps malformed proofs away from code that may panic.

use alloc::vec::Vec;

use p3_field::BasedVectorSpace;
use p3_fri::fold_schedule;

use crate::{
    config::{Challenge, SALT_ELEMS, StarkProof, Val},
    errors::ProofError,
    layout::{LOG_TRACE_ROWS, TRACE_WIDTH},
    params::ParameterSet,
};

/// Committed quotient chunks: degree 4 needs 4 chunks, doubled by the zero-knowledge extension.
pub const NUM_QUOTIENT_CHUNKS: usize = 8;
/// `degree_bits` of every proof: 512 rows, doubled by the zero-knowledge extension.
pub const DEGREE_BITS: usize = LOG_TRACE_ROWS + 1;
/// Extension degree of the challenge field.
const EXT: usize = <Challenge as BasedVectorSpace<Val>>::DIMENSION;

fn expect(what: &'static str, expected: usize, got: usize) -> Result<(), ProofError> {
    if expected == got {
        Ok(())
    } else {
        Err(ProofError::InvalidProofShape { what, expected, got })
    }
}

fn expect_at_most(what: &'static str, max: usize, got: usize) -> Result<(), ProofError> {
    if got <= max {
        Ok(())
    } else {
        Err(ProofError::InvalidProofShape { what, expected: max, got })
    }
}

/// The FRI folding schedule (log-arities) of a spend proof under `params`.
pub fn fri_schedule(params: &ParameterSet) -> Vec<usize> {
    fri_schedule_of(params, DEGREE_BITS)
}

/// The FRI folding schedule of a proof with `degree_bits` under `params`.
pub fn fri_schedule_of(params: &ParameterSet, degree_bits: usize) -> Vec<usize> {
    fold_schedule(
        &[degree_bits + params.log_blowup],
        params.log_blowup + params.log_final_poly_len,
        params.max_log_arity,
    )
}

/// Checks every count and width of `proof` against `params`.
///
/// # Errors
/// [`ProofError::InvalidProofShape`] naming the first mismatch.
pub fn check_shape(proof: &StarkProof, params: &ParameterSet) -> Result<(), ProofError> {
    check_shape_of(proof, params, LOG_TRACE_ROWS, TRACE_WIDTH)
}

/// [`check_shape`] for an AIR of `2^log_trace_rows` rows, `trace_width` columns and maximum
/// constraint degree 4 (every AIR of this crate).
///
/// # Errors
/// [`ProofError::InvalidProofShape`] naming the first mismatch.
pub fn check_shape_of(
    proof: &StarkProof,
    params: &ParameterSet,
    log_trace_rows: usize,
    trace_width: usize,
) -> Result<(), ProofError> {
    let r = params.num_random_codewords;
    let q = params.num_queries;
    let cap = 1usize << params.cap_height;
    let degree_bits = log_trace_rows + 1;
    let lde_bits = degree_bits + params.log_blowup;

    // 1. Trace height and commitments.
    expect("degree_bits", degree_bits, proof.degree_bits)?;
    let commitments = &proof.commitments;
    expect("trace commitment cap", cap, commitments.trace.roots().len())?;
    expect("quotient commitment cap", cap, commitments.quotient_chunks.roots().len())?;
    let random = commitments.random.as_ref().ok_or(ProofError::InvalidProofShape {
        what: "randomization commitment",
        expected: 1,
        got: 0,
    })?;
    expect("randomization commitment cap", cap, random.roots().len())?;

    // 2. Out-of-domain openings.
    let opened = &proof.opened_values;
    expect("trace_local width", trace_width, opened.trace_local.len())?;
    expect("trace_next width", trace_width, opened.trace_next.as_ref().map_or(0, Vec::len))?;
    expect("preprocessed openings", 0, usize::from(opened.preprocessed.is_some()))?;
    expect("quotient chunk openings", NUM_QUOTIENT_CHUNKS, opened.quotient_chunks.len())?;
    for chunk in &opened.quotient_chunks {
        expect("quotient chunk opening width", EXT, chunk.len())?;
    }
    expect("randomization opening width", EXT, opened.random.as_ref().map_or(0, Vec::len))?;

    // 3. The hiding PCS's own openings: per round, matrix and point, `r` values.
    //    Rounds: randomization (1 matrix, 1 point), trace (1 matrix, 2 points), quotient
    //    (8 matrices, 1 point each).
    let (hidden, fri) = &proof.opening_proof;
    let rounds: [(usize, usize); 3] = [(1, 1), (1, 2), (NUM_QUOTIENT_CHUNKS, 1)];
    let widths = [EXT + r, trace_width + r, EXT + r];
    expect("hiding opening rounds", rounds.len(), hidden.len())?;
    for (round, &(matrices, points)) in hidden.iter().zip(&rounds) {
        expect("hiding opening matrices", matrices, round.len())?;
        for matrix in round {
            expect("hiding opening points", points, matrix.len())?;
            for point in matrix {
                expect("hiding opening values", r, point.len())?;
            }
        }
    }

    // 4. FRI: input openings of the three commitments at every query.
    expect("FRI input batches", rounds.len(), fri.input_openings.len())?;
    for (batch, (&(matrices, _), &width)) in
        fri.input_openings.iter().zip(rounds.iter().zip(&widths))
    {
        expect("FRI input queries", q, batch.opened_values.len())?;
        for query in &batch.opened_values {
            expect("FRI input matrices", matrices, query.len())?;
            for row in query {
                expect("FRI input row width", width, row.len())?;
            }
        }
        let (salts, paths) = &batch.opening_proof;
        check_salts(salts, q, matrices)?;
        expect_at_most(
            "FRI input Merkle siblings",
            q * (lde_bits - params.cap_height),
            paths.sibling_hashes.len(),
        )?;
    }

    // 5. FRI commit phase: one commitment, witness and opening per round.
    let schedule = fri_schedule_of(params, degree_bits);
    expect("FRI commit rounds", schedule.len(), fri.commit_phase_commits.len())?;
    expect("FRI commit witnesses", schedule.len(), fri.commit_pow_witnesses.len())?;
    expect("FRI commit openings", schedule.len(), fri.commit_phase_openings.len())?;
    let mut height = lde_bits;
    for ((commit, step), &log_arity) in
        fri.commit_phase_commits.iter().zip(&fri.commit_phase_openings).zip(&schedule)
    {
        height -= log_arity;
        expect("FRI commit cap", cap.min(1 << height), commit.roots().len())?;
        expect("FRI round queries", q, step.sibling_values.len())?;
        for siblings in &step.sibling_values {
            expect("FRI sibling values", (1 << log_arity) - 1, siblings.len())?;
        }
        let (salts, paths) = &step.opening_proof;
        check_salts(salts, q, 1)?;
        expect_at_most(
            "FRI round Merkle siblings",
            q * height.saturating_sub(params.cap_height),
            paths.sibling_hashes.len(),
        )?;
    }
    expect("final polynomial length", 1 << params.log_final_poly_len, fri.final_poly.len())
}

fn check_salts(salts: &[Vec<Vec<Val>>], queries: usize, matrices: usize) -> Result<(), ProofError> {
    expect("salt queries", queries, salts.len())?;
    for query in salts {
        expect("salt matrices", matrices, query.len())?;
        for salt in query {
            expect("salt elements", SALT_ELEMS, salt.len())?;
        }
    }
    Ok(())
}
