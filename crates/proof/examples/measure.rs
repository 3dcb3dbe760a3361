//! Measures proof size, prove time and verify time for the accepted parameter set and a few
//! alternatives (release mode: `cargo run --release -p priv-stark-proof --example measure`).
//! Pass `all` to measure the whole trade-off grid, `breakdown` for a size breakdown.

use std::time::{Duration, Instant};

use priv_stark_proof::{
    builder::random_spend,
    config::StarkProof,
    encoding::HEADER_BYTES,
    params::{PARAMETER_SET, ParameterSet},
    prover::prove_with,
    security::security_level,
    verifier::{decode_body, verify_with},
};
use rand::{SeedableRng, rngs::StdRng};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn candidates() -> Vec<(&'static str, ParameterSet)> {
    let base = PARAMETER_SET;
    let set =
        |log_blowup, num_queries, query_pow_bits, max_log_arity, log_final_poly_len| ParameterSet {
            log_blowup,
            num_queries,
            query_pow_bits,
            max_log_arity,
            log_final_poly_len,
            ..base
        };
    vec![
        ("b8 q38 g16 a8 f8", set(3, 38, 16, 3, 3)),
        ("b16 q29 g16 a8 f128", set(4, 29, 16, 3, 7)),
        ("b32 q23 g16 a8 f128 (accepted, set 2)", set(5, 23, 16, 3, 7)),
        ("b32 q22 g20 a8 f128", set(5, 22, 20, 3, 7)),
        ("b64 q19 g16 a8 f128 (set 1)", set(6, 19, 16, 3, 7)),
        ("b64 q19 g16 a8 f64", set(6, 19, 16, 3, 6)),
        ("b64 q19 g16 a16 f64", set(6, 19, 16, 4, 6)),
        ("b64 q19 g16 a4 f256", set(6, 19, 16, 2, 8)),
        ("b64 q18 g16 a8 f128 (120 bits)", set(6, 18, 16, 3, 7)),
        ("b128 q16 g16 a8 f128", set(7, 16, 16, 3, 7)),
    ]
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

/// Proof sizes over a grid, smallest query count reaching `target` bits.
fn sizes() {
    let mut rng = StdRng::seed_from_u64(7);
    let scenario = random_spend(&mut rng, 5_000_000, 1_250_000, 40).expect("scenario");
    for target in [128, 120] {
        for log_blowup in [4, 5, 6] {
            for query_pow_bits in [16, 20] {
                for (max_log_arity, log_final_poly_len) in
                    [(3, 3), (3, 5), (3, 6), (2, 6), (4, 6), (3, 7), (2, 8), (3, 4)]
                {
                    let mut params = ParameterSet {
                        log_blowup,
                        query_pow_bits,
                        max_log_arity,
                        log_final_poly_len,
                        ..PARAMETER_SET
                    };
                    params.num_queries = (8..100)
                        .find(|&q| {
                            security_level(&ParameterSet { num_queries: q, ..params })
                                .conjectured_bits
                                >= target
                        })
                        .unwrap();
                    let start = Instant::now();
                    let proof = prove_with(&params, &scenario.witness, [1; 32]).expect("prove");
                    let elapsed = start.elapsed();
                    println!(
                        "target {target} b{} q{} g{} arity {} final {}: {} bytes, prove {:.0} ms",
                        1 << log_blowup,
                        params.num_queries,
                        query_pow_bits,
                        1 << max_log_arity,
                        1 << log_final_poly_len,
                        proof.bytes.len(),
                        elapsed.as_secs_f64() * 1e3
                    );
                }
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let all = args.iter().any(|a| a == "all");
    let show_breakdown = args.iter().any(|a| a == "breakdown");
    if args.iter().any(|a| a == "sizes") {
        sizes();
        return;
    }
    let mut rng = StdRng::seed_from_u64(2024);
    let scenario = random_spend(&mut rng, 5_000_000, 1_250_000, 40).expect("scenario");
    let sets = if all { candidates() } else { vec![("accepted", PARAMETER_SET)] };
    println!(
        "| set | mean size (B) | prove (ms) | verify (ms) | conjectured | proven LDR | proven UDR |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, params) in sets {
        let mut prove_times = Vec::new();
        let mut proof = None;
        let mut total_size = 0;
        const RUNS: u8 = 7;
        for i in 0..RUNS {
            let start = Instant::now();
            let made = prove_with(&params, &scenario.witness, [i + 1; 32]).expect("prove");
            prove_times.push(start.elapsed());
            total_size += made.bytes.len();
            proof = Some(made);
        }
        let proof = proof.unwrap();
        let mut verify_times = Vec::new();
        for _ in 0..50 {
            let start = Instant::now();
            verify_with(&params, &proof.bytes, &proof.public_inputs).expect("verify");
            verify_times.push(start.elapsed());
        }
        let level = security_level(&params);
        println!(
            "| {name} | {} | {:.1} | {:.3} | {} | {} | {} |",
            total_size / usize::from(RUNS),
            median(prove_times).as_secs_f64() * 1e3,
            median(verify_times).as_secs_f64() * 1e3,
            level.conjectured_bits,
            level.proven_list_decoding_bits,
            level.proven_unique_decoding_bits
        );
        if show_breakdown {
            breakdown(&decode_body(&proof.bytes[HEADER_BYTES..]).unwrap());
        }
    }
}
