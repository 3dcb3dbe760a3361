//! The crate's integration tests, one module per file, built as one test binary: as thirteen
//! binaries each monomorphised and linked the prover anew, and the workspace's test build took
//! 223 s from clean on two cores (`cargo test --no-run` as `npm test` runs it); as one, 146 s. One
//! binary also proves the shared fixtures of `common` once. Run one file's tests by its module:
//! `cargo test -p priv-stark-proof --test proof spend::`.

#[path = "air.rs"]
mod air;
#[path = "air_digest.rs"]
mod air_digest;
#[path = "amount_range.rs"]
mod amount_range;
#[path = "canonical.rs"]
mod canonical;
#[path = "common/mod.rs"]
mod common;
#[path = "fixture.rs"]
mod fixture;
#[path = "hardening.rs"]
mod hardening;
#[path = "hash.rs"]
mod hash;
#[path = "pitfalls.rs"]
mod pitfalls;
#[path = "reference.rs"]
mod reference;
#[path = "security.rs"]
mod security;
#[path = "spend.rs"]
mod spend;
#[path = "transition.rs"]
mod transition;
#[path = "transition_sets.rs"]
mod transition_sets;
#[path = "verifier_air.rs"]
mod verifier_air;
