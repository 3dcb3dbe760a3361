//! Proves or verifies one spend in a loop, for profiling with `perf`:
//! `cargo run --release -p priv-stark-proof --example profile -- prove|verify [runs]`.
use priv_stark_proof::{builder::random_spend, prover::prove, verifier::verify};
use rand::{SeedableRng, rngs::StdRng};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("verify", String::as_str);
    let runs: u32 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20);
    let mut rng = StdRng::seed_from_u64(1);
    let scenario = random_spend(&mut rng, 5_000_000, 1_250_000, 40).unwrap();
    let proof = prove(&scenario.witness, [3; 32]).unwrap();
    let start = std::time::Instant::now();
    for i in 0..runs {
        if mode == "prove" {
            let mut seed = [7u8; 32];
            seed[..4].copy_from_slice(&i.to_le_bytes());
            prove(&scenario.witness, seed).unwrap();
        } else {
            verify(&proof.bytes, &scenario.public_inputs).unwrap();
        }
    }
    println!("mean {mode}: {:?} over {runs} runs", start.elapsed() / runs);
}
