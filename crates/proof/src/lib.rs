//! The priv-stark/v1 spend proof (work in progress).
#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod air;
pub mod builder;
pub mod config;
pub mod encoding;
pub mod errors;
pub mod layout;
pub mod params;
pub mod prover;
pub mod rpo_air;
pub mod security;
pub mod shape;
pub mod statement;
pub mod trace;
pub mod transcript;
pub mod verifier;

#[cfg(test)]
mod tests;
