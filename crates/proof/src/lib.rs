//! The `priv-stark/v1` spend proof: a zero-knowledge STARK (Plonky3 0.8.0, uni-stark with the
//! hiding FRI PCS) that one note of the pool is spent correctly.
//!
//! The statement (see [`statement`]): for public `root, nf, change, amount, ctx`, the prover knows
//! `sk, v, rho, index, path` with `owner = H_OWNER(sk)`, `cm = H_NOTE(v, H_PRE(owner, rho))` the
//! leaf at `index` under `root`, `nf = H_NULLIFIER(sk, cm)`, and
//! `change = H_NOTE(v − amount, H_PRE(owner, H_CHANGE_RHO(sk, nf)))` with
//! `0 ≤ v − amount < 2^62`; `ctx` is bound as a public input. Every hash is one RPO-256
//! permutation of the core's sponge ([`priv_stark_core::sponge`]).
//!
//! # Usage
//!
//! Bindings call the byte-level functions of [`wire`]; Rust callers use [`prover::prove`] and
//! [`verifier::verify`] with the typed [`statement::SpendWitness`] and
//! [`statement::PublicInputs`]. [`builder`] makes valid witnesses for tests.
//!
//! The crate is `no_std` + `alloc` (default feature `std` adds panic catching around Plonky3), so
//! it builds for `wasm32-unknown-unknown`; it draws no randomness of its own: the prover's seed
//! comes from the caller.

#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod air;
pub mod air_digest;
pub mod builder;
pub mod canonical;
pub mod config;
pub mod encoding;
pub mod errors;
pub mod hash;
mod id_mask;
pub mod layout;
pub mod params;
pub mod periodic;
pub mod prover;
pub mod reference;
pub mod rpo_air;
pub mod security;
pub mod shape;
pub mod statement;
pub mod trace;
pub mod transcript;
pub mod transition;
pub mod verifier;
pub mod verifier_air;
pub mod wire;

pub use errors::ProofError;
pub use statement::{PublicInputs, SpendWitness};

#[cfg(test)]
mod tests;
#[cfg(all(test, feature = "std"))]
mod tests_transition_rules;
