//! The priv-stark/v1 spend proof (work in progress).
#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod air;
pub mod config;
pub mod errors;
pub mod layout;
pub mod params;
pub mod rpo_air;
pub mod statement;
pub mod trace;

#[cfg(test)]
mod tests;
