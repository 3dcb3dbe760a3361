//! Measures the levers of the parameter set (release mode, feature `measure`):
//!
//! ```text
//! cargo run --release -p priv-stark-proof --example measure -- levers     # the trade-off table
//! cargo run --release -p priv-stark-proof --example measure -- grid       # smallest q per blowup
//! cargo run --release -p priv-stark-proof --example measure -- breakdown  # bytes of one proof
//! cargo run --release -p priv-stark-proof --example measure -- verify B Q G [runs]  # a loop to profile
//! cargo run --release -p priv-stark-proof --example measure -- security-inputs  # for bench:pcs
//! valgrind --tool=callgrind --toggle-collect='*measured_*' target/release/examples/measure one I verify|prove
//! ```
//!
//! `one I verify|prove` proves candidate `I` of the `levers` list once, then runs one more
//! verification (or proof) inside `measured_verify` (`measured_prove`), for instruction counts
//! that do not depend on the machine's load.
//!
//! `levers` proves `WITNESSES` witnesses `PROOFS_PER_WITNESS` times for every candidate (mean and
//! worst size), times proving (median), then verifies every candidate in interleaved rounds
//! (median), so load on the machine spreads over all candidates alike.

use std::time::{Duration, Instant};

use priv_stark_proof::{
    builder::{SpendScenario, random_spend},
    config::StarkProof,
    encoding::HEADER_BYTES,
    params::{PARAMETER_SET, PARAMETER_SET_2, ParameterSet},
    prover::prove_with,
    security::{security_level, security_reports},
    verifier::{decode_body, verify_with},
};
use rand::{SeedableRng, rngs::StdRng};

const WITNESSES: u64 = 10;
const PROOFS_PER_WITNESS: u8 = 2;
const VERIFY_ROUNDS: usize = 10;
const VERIFY_PER_ROUND: usize = 20;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn set(log_blowup: usize, num_queries: usize, query_pow_bits: usize) -> ParameterSet {
    ParameterSet { id: 9, log_blowup, num_queries, query_pow_bits, ..PARAMETER_SET }
}

fn candidates() -> Vec<(String, ParameterSet)> {
    let mut out = vec![
        ("set 2: b32 q23 g16".to_string(), PARAMETER_SET_2),
        ("b8 q57 g16".to_string(), set(3, 57, 16)),
        ("b16 q43 g16".to_string(), set(4, 43, 16)),
        ("b32 q34 g16".to_string(), set(5, 34, 16)),
        ("set 3: b32 q33 g18".to_string(), PARAMETER_SET),
        ("b32 q33 g20".to_string(), set(5, 33, 20)),
        ("b64 q29 g16".to_string(), set(6, 29, 16)),
        ("b64 q28 g18".to_string(), set(6, 28, 18)),
        ("b128 q25 g16".to_string(), set(7, 25, 16)),
    ];
    for (arity, final_len) in [(3, 6), (3, 8), (2, 8), (4, 6), (1, 9)] {
        out.push((
            format!("set 3, arity {} final {}", 1 << arity, 1 << final_len),
            ParameterSet {
                id: 9,
                max_log_arity: arity,
                log_final_poly_len: final_len,
                ..PARAMETER_SET
            },
        ));
    }
    for cap_height in [2, 4] {
        out.push((
            format!("set 3, cap height {cap_height}"),
            ParameterSet { id: 9, cap_height, ..PARAMETER_SET },
        ));
    }
    out.push((
        "set 3, 4 random codewords".to_string(),
        ParameterSet { id: 9, num_random_codewords: 4, ..PARAMETER_SET },
    ));
    out
}

fn scenarios() -> Vec<SpendScenario> {
    (0..WITNESSES)
        .map(|i| {
            let mut rng = StdRng::seed_from_u64(1000 + i);
            random_spend(&mut rng, 5_000_000 + i, 1_250_000, 40 + i as usize).expect("scenario")
        })
        .collect()
}

struct Row {
    name: String,
    params: ParameterSet,
    mean: usize,
    worst: usize,
    prove: Duration,
    proof: (Vec<u8>, priv_stark_proof::PublicInputs),
    verify: Vec<Duration>,
}

fn levers() {
    let scenarios = scenarios();
    let mut rows: Vec<Row> = Vec::new();
    for (name, params) in candidates() {
        let (mut sizes, mut times, mut last) = (Vec::new(), Vec::new(), None);
        for (w, scenario) in scenarios.iter().enumerate() {
            for p in 0..PROOFS_PER_WITNESS {
                let mut seed = [p + 1; 32];
                seed[1] = w as u8;
                let start = Instant::now();
                let proof = prove_with(&params, &scenario.witness, seed).expect("prove");
                times.push(start.elapsed());
                sizes.push(proof.bytes.len());
                last = Some((proof.bytes, proof.public_inputs));
            }
        }
        let mean = sizes.iter().sum::<usize>() / sizes.len();
        let worst = *sizes.iter().max().unwrap();
        eprintln!("{name}: proved");
        rows.push(Row {
            name,
            params,
            mean,
            worst,
            prove: median(times),
            proof: last.unwrap(),
            verify: Vec::new(),
        });
    }
    for _ in 0..VERIFY_ROUNDS {
        for row in &mut rows {
            for _ in 0..VERIFY_PER_ROUND {
                let start = Instant::now();
                verify_with(&row.params, &row.proof.0, &row.proof.1).expect("verify");
                row.verify.push(start.elapsed());
            }
        }
    }
    println!(
        "| set | mean size (B) | worst (B) | prove (ms) | verify (ms) | conjectured | proven LDR | proven UDR |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for row in rows {
        let level = security_level(&row.params);
        println!(
            "| {} | {} | {} | {:.0} | {:.3} | {} | {} | {} |",
            row.name,
            row.mean,
            row.worst,
            row.prove.as_secs_f64() * 1e3,
            median(row.verify).as_secs_f64() * 1e3,
            level.conjectured_bits,
            level.proven_list_decoding_bits,
            level.proven_unique_decoding_bits
        );
    }
}

/// The smallest query count reaching 100 proven (list-decoding) and 128 conjectured bits.
fn grid() {
    let (conjectured, proven) = security_reports(&PARAMETER_SET);
    println!("set 3: {:?}\n{conjectured:#?}\n{proven:#?}", security_level(&PARAMETER_SET));
    for log_blowup in 2..=8 {
        for pow in [16, 18, 20, 22] {
            let found = (8..200).find_map(|q| {
                let level = security_level(&set(log_blowup, q, pow));
                (level.proven_list_decoding_bits >= 100 && level.conjectured_bits >= 128)
                    .then_some((q, level))
            });
            println!("b{} g{pow}: {found:?}", 1 << log_blowup);
        }
    }
}

fn breakdown(proof: &StarkProof) {
    let len = |bytes: Vec<u8>| bytes.len();
    let (hidden, fri) = &proof.opening_proof;
    println!("  commitments      {}", len(postcard::to_allocvec(&proof.commitments).unwrap()));
    println!("  ood openings     {}", len(postcard::to_allocvec(&proof.opened_values).unwrap()));
    println!("  hiding openings  {}", len(postcard::to_allocvec(hidden).unwrap()));
    for (name, batch) in ["random", "trace", "quotient"].iter().zip(&fri.input_openings) {
        println!(
            "  {name:9} rows {} salts {} merkle {} ({} digests)",
            len(postcard::to_allocvec(&batch.opened_values).unwrap()),
            len(postcard::to_allocvec(&batch.opening_proof.0).unwrap()),
            len(postcard::to_allocvec(&batch.opening_proof.1).unwrap()),
            batch.opening_proof.1.sibling_hashes.len()
        );
    }
    for (i, step) in fri.commit_phase_openings.iter().enumerate() {
        println!(
            "  fri round {i}   siblings {} salts {} merkle {}",
            len(postcard::to_allocvec(&step.sibling_values).unwrap()),
            len(postcard::to_allocvec(&step.opening_proof.0).unwrap()),
            len(postcard::to_allocvec(&step.opening_proof.1).unwrap()),
        );
    }
    println!("  final poly       {}", len(postcard::to_allocvec(&fri.final_poly).unwrap()));
}

#[inline(never)]
fn measured_verify(params: &ParameterSet, proof: &[u8], public: &priv_stark_proof::PublicInputs) {
    verify_with(params, proof, public).expect("verify");
}

#[inline(never)]
fn measured_prove(params: &ParameterSet, scenario: &SpendScenario) -> usize {
    prove_with(params, &scenario.witness, [9; 32]).expect("prove").bytes.len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let number =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    match args.get(1).map_or("levers", String::as_str) {
        "grid" => grid(),
        "breakdown" => {
            let scenario = &scenarios()[0];
            let proof = prove_with(&PARAMETER_SET, &scenario.witness, [7; 32]).expect("prove");
            println!("set 3 proof: {} bytes", proof.bytes.len());
            breakdown(&decode_body(&proof.bytes[HEADER_BYTES..]).unwrap());
        }
        "one" => {
            let (name, params) = candidates().swap_remove(number(2, 0));
            let scenario = &scenarios()[0];
            let proof = prove_with(&params, &scenario.witness, [7; 32]).expect("prove");
            // Warm every lazily computed value (AIR digest, periodic evaluator) first.
            verify_with(&params, &proof.bytes, &proof.public_inputs).expect("verify");
            if args.get(3).map(String::as_str) == Some("prove") {
                println!("{name}: {} bytes", measured_prove(&params, scenario));
            } else {
                measured_verify(&params, &proof.bytes, &proof.public_inputs);
                println!("{name}: verified");
            }
        }
        "verify" => {
            let params = ParameterSet {
                id: if (number(2, 5), number(3, 33), number(4, 18)) == (5, 33, 18) { 3 } else { 9 },
                ..set(number(2, 5), number(3, 33), number(4, 18))
            };
            let scenario = &scenarios()[0];
            let proof = prove_with(&params, &scenario.witness, [7; 32]).expect("prove");
            let runs = number(5, 1000);
            let start = Instant::now();
            for _ in 0..runs {
                verify_with(&params, &proof.bytes, &proof.public_inputs).expect("verify");
            }
            println!("mean verify: {:?} over {runs} runs", start.elapsed() / runs as u32);
        }
        "security-inputs" => security_inputs(),
        _ => levers(),
    }
}

/// One JSON line per accepted set (spend 3 and 2, transition 17 and 16): the estimator's inputs
/// for its own AIR, and the bits p3-security 0.8 gives them, so that `npm run bench:pcs`
/// recomputes the same sets with the 0.9.0-rc.2 line (bench/pcs/src/bin/security.rs).
fn security_inputs() {
    use priv_stark_proof::{
        params::PARAMETER_SET_2,
        security::{PROOF_DEGREE_BITS, level_of, security_params, security_params_of},
        transition::{TRANSITION_SETS, air::TransitionAir, layout::LOG_TRACE_ROWS},
    };
    let mut sets = vec![
        ("spend", PARAMETER_SET, security_params(&PARAMETER_SET), PROOF_DEGREE_BITS),
        ("spend", PARAMETER_SET_2, security_params(&PARAMETER_SET_2), PROOF_DEGREE_BITS),
    ];
    for set in &TRANSITION_SETS {
        let air = TransitionAir::new(set.revision);
        let estimator = security_params_of(&set.params, &air, LOG_TRACE_ROWS);
        sets.push(("transition", set.params, estimator, LOG_TRACE_ROWS + 1));
    }
    for (statement, params, e, degree_bits) in sets {
        let level = level_of(&e, degree_bits);
        println!(
            "{{\"statement\":\"{statement}\",\"set\":{},\"logBlowup\":{},\"numQueries\":{},\"logFinalPolyLen\":{},\"maxLogArity\":{},\"commitPowBits\":{},\"queryPowBits\":{},\"outOfDomainPowBits\":{},\"batchPowBits\":{},\"numConstraints\":{},\"maxConstraintDegree\":{},\"numQuotientChunks\":{},\"maxCombo\":{},\"logTraceLength\":{degree_bits},\"modulusBits\":{},\"collisionResistance\":{},\"numBatchedFunctions\":{},\"bits08\":{{\"conjectured\":{},\"provenListDecoding\":{},\"provenUniqueDecoding\":{}}}}}",
            params.id,
            e.fri_log_blowup,
            e.fri_num_queries,
            e.fri_log_final_poly_len,
            e.fri_max_log_arity,
            e.fri_commit_proof_of_work_bits,
            e.fri_query_proof_of_work_bits,
            e.grinding.out_of_domain,
            e.grinding.batch_combination,
            e.num_constraints,
            e.air_max_constraint_degree,
            e.num_quotient_chunks,
            e.max_combo,
            e.num_modulus_bits,
            e.collision_resistance,
            e.num_batched_functions,
            level.conjectured_bits,
            level.proven_list_decoding_bits,
            level.proven_unique_decoding_bits,
        );
    }
}
