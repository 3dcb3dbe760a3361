//! Shared fixtures: deterministic spends and one cached proof per test binary.
#![allow(dead_code)]

use std::sync::OnceLock;

use priv_stark_proof::{
    builder::{SpendScenario, random_spend},
    prover::{SpendProof, prove},
};
use rand::{SeedableRng, rngs::StdRng};

/// A deterministic spend of 1_250_000 out of a 5_000_000 note among 40 other leaves.
pub fn scenario(seed: u64) -> SpendScenario {
    let mut rng = StdRng::seed_from_u64(seed);
    random_spend(&mut rng, 5_000_000, 1_250_000, 40).expect("scenario")
}

/// A proof seed that is not all zeros.
pub fn seed(byte: u8) -> [u8; 32] {
    let mut seed = [byte; 32];
    seed[0] = 0xa5;
    seed
}

/// The scenario of seed 1 and its proof, made once per test binary.
pub fn proven() -> &'static (SpendScenario, SpendProof) {
    static PROVEN: OnceLock<(SpendScenario, SpendProof)> = OnceLock::new();
    PROVEN.get_or_init(|| {
        let scenario = scenario(1);
        let proof = prove(&scenario.witness, seed(1)).expect("prove");
        (scenario, proof)
    })
}
