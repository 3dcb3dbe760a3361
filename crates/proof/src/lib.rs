//! The priv-stark/v1 spend proof (work in progress).
#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod config;
pub mod params;
pub mod rpo_air;
