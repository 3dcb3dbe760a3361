//! One run, interleaved: FRI at proof v3's numbers, STIR at 100 bits (its own parameter
//! derivation under the Johnson bound) over a grid of rates, folding factors and options, and
//! WHIR at 100 composed bits (whir.rs) over a grid of rates and folding factors, each committing
//! and opening the matrices of the spend and transition statements, as uni-stark does without zero
//! knowledge: the trace (opened at `zeta` and the next row) and the quotient chunks (at `zeta`).
//! Prints one JSON object per line: the derived parameters of the candidates that report them
//! (WHIR), then one per round and candidate.
//!
//! What it measures is the polynomial commitment alone, not a proof: no AIR, no hiding (STIR's PCS
//! declares `ZK = false`; WHIR's is the plain one), Plonky3 0.9.0-rc.2. It bounds what replacing
//! FRI could save.

use std::time::Instant;

use p3_blake3::Blake3;
use p3_challenger::{CanObserve, FieldChallenger, HashChallenger, SerializingChallenger64};
use p3_commit::{ExtensionMmcs, OpeningRequest, Pcs};
use p3_dft::Radix2DitParallel;
use p3_field::{
    TwoAdicField, coset::TwoAdicMultiplicativeCoset, extension::CubicTrinomialExtensionField,
};
use p3_fri::{FriParameters, TwoAdicFriPcs};
use p3_goldilocks::Goldilocks;
use p3_matrix::dense::RowMajorMatrix;
use p3_merkle_tree::MerkleTreeMmcs;
use p3_stir::{SecurityAssumption, StirOptions, StirParameters, TwoAdicStirPcs};
use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
use rand::{SeedableRng, rngs::StdRng};

mod whir;

type Val = Goldilocks;
/// The challenge field of proof v3: `x^3 - x - 1` over Goldilocks.
type Challenge = CubicTrinomialExtensionField<Val>;
type ValMmcs = MerkleTreeMmcs<
    Val,
    u8,
    SerializingHasher<Blake3>,
    CompressionFunctionFromHasher<Blake3, 2, 32>,
    2,
    32,
>;
type ChallengeMmcs = ExtensionMmcs<Val, Challenge, ValMmcs>;
type Dft = Radix2DitParallel<Val>;
type Challenger = SerializingChallenger64<Val, HashChallenger<u8, Blake3, 32>>;
type Fri = TwoAdicFriPcs<Val, Dft, ValMmcs, ChallengeMmcs>;
type Stir = TwoAdicStirPcs<Val, Dft, ValMmcs, ChallengeMmcs, Challenge, Challenger>;

/// A committed matrix: log2 of its height, its width, and how many points it is opened at.
type Matrix = (usize, usize, usize);

/// The statements' committed matrices: the trace (two points) and the quotient of a degree-4 AIR,
/// three chunks of cubic-extension columns (nine base columns, one point).
const STATEMENTS: [(&str, [Matrix; 2]); 2] =
    [("spend", [(9, 46, 2), (9, 9, 1)]), ("transition", [(10, 60, 2), (10, 9, 1)])];

fn val_mmcs() -> ValMmcs {
    ValMmcs::new(
        SerializingHasher::new(Blake3 {}),
        CompressionFunctionFromHasher::new(Blake3 {}),
        0,
    )
}

fn challenger() -> Challenger {
    SerializingChallenger64::from_hasher(vec![], Blake3 {})
}

/// One sample: proof bytes, commit-and-open milliseconds, verify milliseconds.
struct Sample {
    bytes: usize,
    prove_ms: f64,
    verify_ms: f64,
}

/// Commits random matrices of `shape`, opens them and verifies the opening; `observe` absorbs a
/// commitment as the PCS expects.
fn sample<P>(
    pcs: &P,
    shape: &[Matrix; 2],
    seed: u64,
    observe: impl Fn(&mut Challenger, &P::Commitment),
) -> Option<Sample>
where
    P: Pcs<Challenge, Challenger, Domain = TwoAdicMultiplicativeCoset<Val>>,
    P::Proof: serde::Serialize,
{
    let mut rng = StdRng::seed_from_u64(seed);
    let started = Instant::now();
    let mut transcript = challenger();
    let mut committed = Vec::new();
    for &(log_rows, width, _) in shape {
        let domain = pcs.natural_domain_for_degree(1 << log_rows);
        let matrix = RowMajorMatrix::<Val>::rand(&mut rng, 1 << log_rows, width);
        let (commitment, data) = pcs.commit([(domain, matrix)]).ok()?;
        observe(&mut transcript, &commitment);
        committed.push((commitment, data, domain));
    }
    let zeta = FieldChallenger::<Val>::sample_algebra_element::<Challenge>(&mut transcript);
    let points: Vec<Vec<Challenge>> = shape
        .iter()
        .map(|&(log_rows, _, count)| {
            let next = zeta * Challenge::from(Val::two_adic_generator(log_rows));
            if count == 2 { vec![zeta, next] } else { vec![zeta] }
        })
        .collect();
    let requests = committed
        .iter()
        .zip(&points)
        .map(|((_, data, _), at)| OpeningRequest { prover_data: data, points: vec![at.clone()] })
        .collect();
    let (opened, proof) = pcs.open(requests, &mut transcript.clone()).ok()?;
    let prove_ms = started.elapsed().as_secs_f64() * 1e3;
    let bytes = postcard::to_allocvec(&proof).ok()?.len();
    let claims = committed
        .iter()
        .zip(&points)
        .zip(&opened)
        .map(|(((commitment, _, domain), at), round)| {
            let values: Vec<(Challenge, Vec<Challenge>)> =
                at.iter().copied().zip(round[0].iter().cloned()).collect();
            (commitment.clone(), vec![(*domain, values)]).into()
        })
        .collect();
    let started = Instant::now();
    pcs.verify(claims, &proof, &mut transcript.clone()).ok()?;
    let verify_ms = started.elapsed().as_secs_f64() * 1e3;
    Some(Sample { bytes, prove_ms, verify_ms })
}

/// Samples a candidate on a statement's shape, with a seed; `None` if it cannot.
type Run = Box<dyn Fn(&[Matrix; 2], u64) -> Option<Sample>>;

/// A candidate commitment scheme, named, sampled on a statement's shape.
struct Candidate {
    name: String,
    /// Per statement, the parameters it derived (none for FRI and STIR).
    parameters: Vec<(&'static str, serde_json::Value)>,
    run: Run,
}

fn fri_set_3() -> Candidate {
    let pcs = Fri::new(
        Dft::default(),
        val_mmcs(),
        FriParameters {
            log_blowup: 5,
            log_final_poly_len: 7,
            max_log_arity: 3,
            num_queries: 33,
            batch_proof_of_work_bits: 0,
            commit_proof_of_work_bits: 0,
            query_proof_of_work_bits: 18,
            mmcs: ChallengeMmcs::new(val_mmcs()),
        },
    );
    Candidate {
        name: "FRI, set 3 (blowup 32, 33 queries, 18 grinding bits, arity 8, final 128)".into(),
        parameters: Vec::new(),
        run: Box::new(move |shape, seed| sample(&pcs, shape, seed, |t, c| t.observe(c.clone()))),
    }
}

fn stir(log_blowup: usize, log_fold: usize, options: StirOptions, label: &str) -> Candidate {
    let pcs = Stir::new(
        Dft::default(),
        val_mmcs(),
        StirParameters {
            log_blowup,
            log_folding_factor: log_fold,
            log_starting_folding_factor: log_fold,
            soundness_type: SecurityAssumption::JohnsonBound,
            security_level: 100,
            max_pow_bits: 18,
            mmcs: ChallengeMmcs::new(val_mmcs()),
        },
    )
    .with_options(options);
    Candidate {
        name: format!("STIR, blowup {}, folding {}, {label}", 1 << log_blowup, 1 << log_fold),
        parameters: Vec::new(),
        run: Box::new(move |shape, seed| {
            // A schedule the crate cannot derive for these numbers panics inside it: no sample.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                sample(&pcs, shape, seed, |t, c: &p3_stir::StirCommitment<_>| {
                    c.iter().for_each(|root| t.observe(root.clone()));
                })
            }))
            .ok()
            .flatten()
        }),
    }
}

fn candidates() -> Vec<Candidate> {
    let mut all = vec![fri_set_3()];
    let compact = StirOptions { compact_answers: true, max_log_final_poly_len: Some(7) };
    for log_blowup in 1..=5 {
        for log_fold in [2, 3, 4] {
            all.push(stir(log_blowup, log_fold, StirOptions::default(), "default options"));
            all.push(stir(log_blowup, log_fold, compact, "compact answers, final 128"));
        }
    }
    all.extend(whir::candidates());
    all
}

fn main() {
    let rounds: u64 =
        std::env::var("BENCH_PCS_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(7);
    let all = candidates();
    // Silence the panics of schedules that cannot be derived: they are reported as such.
    std::panic::set_hook(Box::new(|_| {}));
    for candidate in &all {
        for (statement, parameters) in &candidate.parameters {
            let line = serde_json::json!({
                "statement": statement,
                "candidate": candidate.name,
                "parameters": parameters,
            });
            println!("{line}");
        }
    }
    for round in 0..rounds {
        for (statement, shape) in &STATEMENTS {
            for candidate in &all {
                let line = match (candidate.run)(shape, round) {
                    Some(s) => format!(
                        "{{\"round\":{round},\"statement\":\"{statement}\",\"candidate\":\"{}\",\"bytes\":{},\"proveMs\":{:.4},\"verifyMs\":{:.4}}}",
                        candidate.name, s.bytes, s.prove_ms, s.verify_ms
                    ),
                    None => format!(
                        "{{\"round\":{round},\"statement\":\"{statement}\",\"candidate\":\"{}\",\"derivable\":false}}",
                        candidate.name
                    ),
                };
                println!("{line}");
            }
        }
        eprintln!("[bench:pcs] round {}/{rounds}", round + 1);
    }
}
