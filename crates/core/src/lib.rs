//! The priv-stark/v1 core: canonical Goldilocks encodings, RPO-256 with one domain tag per use,
//! the pool's depth-32 Merkle tree, and the payment context digest.
//!
//! The crate is `no_std` + `alloc` so the same code builds natively (N-API addon) and for
//! `wasm32-unknown-unknown`. Bindings call the byte-level entry points in [`wire`] and hold no
//! logic of their own.

#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod address;
pub mod context;
pub mod deposits;
pub mod digest;
pub mod errors;
pub mod field;
pub mod notes;
pub mod rpo;
pub mod rpo_constants;
pub mod sponge;
pub mod tree;
pub mod wire;

pub use digest::Digest;
pub use errors::CoreError;
pub use field::Felt;
pub use sponge::Domain;

/// Version of this crate, reported by `doctor` and `/health`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
