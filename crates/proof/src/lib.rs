//! The priv-stark/v1 spend proof (work in progress).
#![no_std]
