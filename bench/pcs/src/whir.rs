//! WHIR (`p3-whir`), the multilinear commitment, holding the same field elements as the
//! univariate candidates: each statement's two matrices are the two tables of one stacked
//! commitment (columns back to back, zero-padded to a power of two: 2^15 evaluations for spend,
//! 2^17 for transition), opened where a multilinear STARK's zerocheck leaves its trace: every trace
//! column and its successor (the next row) at one point `r`, the nine other columns at `r`.
//!
//! Security: the crate derives a schedule with each error term at a per-term level (Johnson bound,
//! at most 18 grinding bits a step) and composes the terms of an opening into one figure
//! (`prescribed_security`, a union bound); the level is raised from 100 until that figure is
//! ≥ 100 bits, so the bits reported are the composed ones. Not hiding: `WhirProver` is the plain
//! PCS; the crate's hiding one (`HidingWhirPcs`) commits a single polynomial opened at points, with
//! no tables and no successor view, so it is not measured (docs/proof.md §7.5).

use std::time::Instant;

use p3_challenger::FieldChallenger;
use p3_commit::MultilinearPcs;
use p3_multilinear_util::point::Point;
use p3_sumcheck::layout::{Layout, SuffixProver, Table};
use p3_sumcheck::{OpeningBatch, OpeningProtocol, PrescribedPointPcs, TableShape, TableSpec};
use p3_whir::{FoldingFactor, ProtocolParameters, SecurityAssumption, WhirConfig, WhirProver};
use rand::{SeedableRng, rngs::StdRng};
use serde_json::json;

use crate::{
    Candidate, Challenge, Challenger, Dft, Matrix, STATEMENTS, Sample, Val, ValMmcs, challenger,
    val_mmcs,
};

type Stacked = SuffixProver<Val, Challenge>;
type Whir = WhirProver<Challenge, Val, Dft, ValMmcs, Challenger, Stacked>;

/// The proven bits every candidate must reach, composed over the opening's error terms.
const TARGET_BITS: f64 = 100.0;
/// Grinding per step, at most, as for STIR.
const MAX_GRINDING_BITS: usize = 18;
/// The highest per-term level tried before a schedule is reported as not derivable.
const MAX_LEVEL: usize = 128;

/// Variables of the stacked polynomial: every column back to back, padded to a power of two.
fn stacked_variables(shape: &[Matrix; 2]) -> usize {
    let cells: usize = shape.iter().map(|&(log_rows, width, _)| width << log_rows).sum();
    cells.next_power_of_two().trailing_zeros() as usize
}

/// What is opened: each table at one point, the trace's columns also through their successor.
fn protocol(shape: &[Matrix; 2], folding: usize) -> OpeningProtocol {
    let tables = shape
        .iter()
        .map(|&(log_rows, width, points)| {
            let columns: Vec<usize> = (0..width).collect();
            let next = if points == 2 { columns.clone() } else { Vec::new() };
            TableSpec::new(TableShape::new(log_rows, width), vec![OpeningBatch::new(columns, next)])
        })
        .collect();
    OpeningProtocol::new(tables).pad_to_min_num_variables(folding)
}

/// A derived schedule: the PCS, the per-term level it was derived at, its composed bits.
struct Derived {
    pcs: Whir,
    level: usize,
    bits: f64,
}

/// The lowest per-term level whose composed opening reaches 100 bits; the crate's refusal if none.
fn derive(shape: &[Matrix; 2], log_rate: usize, folding: usize) -> Result<Derived, String> {
    let protocol = protocol(shape, folding);
    for level in 100..=MAX_LEVEL {
        let parameters = ProtocolParameters {
            starting_log_inv_rate: log_rate,
            round_log_inv_rates: Vec::new(),
            folding_factor: FoldingFactor::Constant(folding),
            soundness_type: SecurityAssumption::JohnsonBound,
            security_level: level,
            pow_bits: MAX_GRINDING_BITS,
        };
        let config = WhirConfig::new(stacked_variables(shape), parameters)
            .map_err(|e| format!("level {level}: {e}"))?;
        let pcs = Whir::new(config, Dft::default(), val_mmcs());
        let bits = pcs
            .prescribed_security(&protocol)
            .ok_or_else(|| format!("level {level}: the opening's claims fail validation"))?
            .error()
            .bits();
        if bits >= TARGET_BITS {
            return Ok(Derived { pcs, level, bits });
        }
    }
    Err(format!("composed bits below {TARGET_BITS} at every level to {MAX_LEVEL}"))
}

/// A point of `variables` coordinates drawn from the transcript, as the zerocheck's would be.
fn point(transcript: &mut Challenger, variables: usize) -> Point<Challenge> {
    Point::new((0..variables).map(|_| transcript.sample_algebra_element()).collect())
}

/// Commits random tables of `shape`, opens them at one drawn point and verifies the opening.
/// Bytes are the opening proof's, without the opened values (as for FRI and STIR).
fn sample(pcs: &Whir, shape: &[Matrix; 2], seed: u64) -> Option<Sample> {
    let folding = pcs.round_folding_factor(0);
    let protocol = protocol(shape, folding);
    let mut rng = StdRng::seed_from_u64(seed);
    let started = Instant::now();
    let tables = shape
        .iter()
        .map(|&(log_rows, width, _)| Table::rand(&mut rng, width, log_rows.max(folding)))
        .collect();
    let witness = Stacked::new_witness(tables, folding);
    let mut transcript = challenger();
    let (commitment, data) = pcs.commit(witness, &mut transcript).ok()?;
    let variables = protocol.table_shapes()[0].num_variables();
    let r = point(&mut transcript, variables);
    let points = vec![r; protocol.num_openings()];
    let proof = pcs.open_at(data, &protocol, &points, &mut transcript.clone()).ok()?;
    let prove_ms = started.elapsed().as_secs_f64() * 1e3;
    let bytes = postcard::to_allocvec(&proof.whir).ok()?.len();
    let started = Instant::now();
    pcs.verify_at(&commitment, &proof, &protocol, &points, &mut transcript.clone()).ok()?;
    let verify_ms = started.elapsed().as_secs_f64() * 1e3;
    Some(Sample { bytes, prove_ms, verify_ms })
}

/// One WHIR candidate: a schedule per statement, derived once, with its parameters reported.
fn candidate(log_rate: usize, folding: usize) -> Candidate {
    let mut parameters = Vec::new();
    let mut derived = Vec::new();
    for (statement, shape) in &STATEMENTS {
        let reported = match derive(shape, log_rate, folding) {
            Ok(d) => {
                let reported = json!({
                    "variables": stacked_variables(shape),
                    "levelPerTerm": d.level,
                    "bits": (d.bits * 100.0).floor() / 100.0,
                    "folds": d.pcs.folding_schedule(),
                    "queries": queries(&d.pcs),
                    "maxGrindingBits": d.pcs.max_pow_bits(),
                });
                derived.push((*shape, d.pcs));
                reported
            }
            Err(reason) => json!({ "derivable": false, "reason": reason }),
        };
        parameters.push((*statement, reported));
    }
    Candidate {
        name: format!(
            "WHIR, blowup {}, folding {} ({folding} variables a round)",
            1 << log_rate,
            1 << folding
        ),
        parameters,
        run: Box::new(move |shape, seed| {
            let (_, pcs) = derived.iter().find(|(s, _)| s == shape)?;
            sample(pcs, shape, seed)
        }),
    }
}

/// Queries per round, the terminal test last.
fn queries(pcs: &Whir) -> Vec<usize> {
    let rounds = pcs.round_parameters().iter().map(|r| r.num_queries);
    rounds.chain([pcs.terminal().num_queries]).collect()
}

/// Starting rates 1/2 to 1/32, folding 2 to 4 variables a round.
pub fn candidates() -> Vec<Candidate> {
    (1..=5).flat_map(|log_rate| (2..=4).map(move |folding| candidate(log_rate, folding))).collect()
}
