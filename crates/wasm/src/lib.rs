//! Thin WebAssembly binding of `priv-stark-core` with a raw C ABI, so no generator tool is
//! needed and browsers and Node load the module the same way (`src/core/wasm.ts`).
//!
//! Calling convention: JavaScript copies each argument into memory from `ps_alloc`, calls a
//! `ps_*` function with `(pointer, length)` pairs, frees the arguments, then reads the result
//! with `ps_result_ptr`/`ps_result_len`. The return value is 0 on success (the result holds the
//! output bytes) or 1 on a rejection (the result holds `"<code>: <message>"` in UTF-8). The
//! module is built with `panic = "abort"`: a panic traps, and the loader reports
//! `internal_panic` and instantiates a fresh module.

use std::{cell::RefCell, slice};

use priv_stark_core::{CoreError, errors::ErrorCode, wire};
use priv_stark_proof::{ProofError, wire as proof_wire};

thread_local! {
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn finish<E: ErrorCode>(result: Result<Vec<u8>, E>) -> u32 {
    let (status, bytes) = match result {
        Ok(bytes) => (0, bytes),
        Err(error) => (1, format!("{}: {error}", error.error_code()).into_bytes()),
    };
    RESULT.with(|slot| *slot.borrow_mut() = bytes);
    status
}

/// # Safety
/// `ptr..ptr+len` must be memory this module handed out with [`ps_alloc`] (or `len == 0`).
unsafe fn arg<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 { &[] } else { unsafe { slice::from_raw_parts(ptr, len) } }
}

/// # Safety
/// As [`arg`].
unsafe fn text_arg<'a>(ptr: *const u8, len: usize) -> Result<&'a str, CoreError> {
    core::str::from_utf8(unsafe { arg(ptr, len) })
        .map_err(|_| CoreError::InvalidEncoding { what: "text" })
}

/// Reserves `len` bytes for an argument.
#[unsafe(no_mangle)]
pub extern "C" fn ps_alloc(len: usize) -> *mut u8 {
    let mut buffer = Vec::<u8>::with_capacity(len.max(1));
    let ptr = buffer.as_mut_ptr();
    core::mem::forget(buffer);
    ptr
}

/// Releases memory from [`ps_alloc`].
///
/// # Safety
/// `ptr` and `len` must be exactly those of one earlier [`ps_alloc`] call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_free(ptr: *mut u8, len: usize) {
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len.max(1)) });
}

/// Address of the last result.
#[unsafe(no_mangle)]
pub extern "C" fn ps_result_ptr() -> *const u8 {
    RESULT.with(|slot| slot.borrow().as_ptr())
}

/// Length of the last result.
#[unsafe(no_mangle)]
pub extern "C" fn ps_result_len() -> usize {
    RESULT.with(|slot| slot.borrow().len())
}

/// Version of the core crate (result: UTF-8).
#[unsafe(no_mangle)]
pub extern "C" fn ps_version() -> u32 {
    finish::<CoreError>(Ok(priv_stark_core::VERSION.as_bytes().to_vec()))
}

/// `"release"` or `"debug"` (result: UTF-8).
#[unsafe(no_mangle)]
pub extern "C" fn ps_build_profile() -> u32 {
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    finish::<CoreError>(Ok(profile.as_bytes().to_vec()))
}

/// Every error code, newline-separated (result: UTF-8).
#[unsafe(no_mangle)]
pub extern "C" fn ps_error_codes() -> u32 {
    finish::<CoreError>(Ok(CoreError::CODES.join("\n").into_bytes()))
}

/// Every proof error code, newline-separated (result: UTF-8).
#[unsafe(no_mangle)]
pub extern "C" fn ps_proof_error_codes() -> u32 {
    finish::<CoreError>(Ok(ProofError::CODES.join("\n").into_bytes()))
}

/// See `wire::rpo_permute`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_rpo_permute(ptr: *const u8, len: usize) -> u32 {
    finish(wire::rpo_permute(unsafe { arg(ptr, len) }))
}

/// See `wire::hash_elements`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_hash_elements(domain: u32, ptr: *const u8, len: usize) -> u32 {
    finish(wire::hash_elements(domain, unsafe { arg(ptr, len) }))
}

/// See `wire::merge`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_merge(lp: *const u8, ll: usize, rp: *const u8, rl: usize) -> u32 {
    finish(wire::merge(unsafe { arg(lp, ll) }, unsafe { arg(rp, rl) }))
}

/// See `wire::merge_pairs`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_merge_pairs(ptr: *const u8, len: usize) -> u32 {
    finish(wire::merge_pairs(unsafe { arg(ptr, len) }))
}

/// See `wire::digest_from_hex` (argument: UTF-8).
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_digest_from_hex(ptr: *const u8, len: usize) -> u32 {
    finish(unsafe { text_arg(ptr, len) }.and_then(wire::digest_from_hex))
}

/// See `wire::digest_to_hex` (result: UTF-8).
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_digest_to_hex(ptr: *const u8, len: usize) -> u32 {
    finish(wire::digest_to_hex(unsafe { arg(ptr, len) }).map(String::into_bytes))
}

/// See `wire::frontier_empty`.
#[unsafe(no_mangle)]
pub extern "C" fn ps_frontier_empty() -> u32 {
    finish::<CoreError>(Ok(wire::frontier_empty()))
}

/// See `wire::frontier_append`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_frontier_append(
    fp: *const u8,
    fl: usize,
    lp: *const u8,
    ll: usize,
) -> u32 {
    finish(wire::frontier_append(unsafe { arg(fp, fl) }, unsafe { arg(lp, ll) }))
}

/// See `wire::tree_root`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_tree_root(ptr: *const u8, len: usize) -> u32 {
    finish(wire::tree_root(unsafe { arg(ptr, len) }))
}

/// See `wire::tree_path`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_tree_path(ptr: *const u8, len: usize, index: u32) -> u32 {
    finish(wire::tree_path(unsafe { arg(ptr, len) }, u64::from(index)))
}

/// See `wire::root_from_path`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_root_from_path(
    leaf_ptr: *const u8,
    leaf_len: usize,
    index: u32,
    path_ptr: *const u8,
    path_len: usize,
) -> u32 {
    let (leaf, path) = unsafe { (arg(leaf_ptr, leaf_len), arg(path_ptr, path_len)) };
    finish(wire::root_from_path(leaf, u64::from(index), path))
}

/// See `wire::address_encode` (result: UTF-8).
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_address_encode(ptr: *const u8, len: usize) -> u32 {
    finish(wire::address_encode(unsafe { arg(ptr, len) }).map(String::into_bytes))
}

/// See `wire::address_decode` (argument: UTF-8).
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_address_decode(ptr: *const u8, len: usize) -> u32 {
    finish(unsafe { text_arg(ptr, len) }.and_then(wire::address_decode))
}

/// See `wire::context_digest`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_context_digest(ptr: *const u8, len: usize) -> u32 {
    finish(wire::context_digest(unsafe { arg(ptr, len) }))
}

/// See `wire::deposit_matches`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_deposit_matches(
    pp: *const u8,
    pl: usize,
    dp: *const u8,
    dl: usize,
) -> u32 {
    finish(wire::deposit_matches(unsafe { arg(pp, pl) }, unsafe { arg(dp, dl) }))
}

/// See `priv_stark_proof::wire::public_inputs_of`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_spend_public_inputs(ptr: *const u8, len: usize) -> u32 {
    finish(proof_wire::public_inputs_of(unsafe { arg(ptr, len) }))
}

/// See `priv_stark_proof::wire::prove_spend`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_prove_spend(wp: *const u8, wl: usize, sp: *const u8, sl: usize) -> u32 {
    finish(proof_wire::prove_spend(unsafe { arg(wp, wl) }, unsafe { arg(sp, sl) }))
}

/// See `priv_stark_proof::wire::proof_reference`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_proof_reference(
    pp: *const u8,
    pl: usize,
    ip: *const u8,
    il: usize,
) -> u32 {
    let (proof, inputs) = unsafe { (arg(pp, pl), arg(ip, il)) };
    finish(proof_wire::proof_reference(proof, inputs))
}

/// See `priv_stark_proof::wire::verify_spend`; an empty result when the proof holds.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_verify_spend(
    pp: *const u8,
    pl: usize,
    ip: *const u8,
    il: usize,
) -> u32 {
    let (proof, inputs) = unsafe { (arg(pp, pl), arg(ip, il)) };
    finish(proof_wire::verify_spend(proof, inputs).map(|()| Vec::new()))
}

/// See `priv_stark_proof::wire::verify_spend_accepting` (accepted ids: one byte each); an empty
/// result when the proof holds.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_verify_spend_accepting(
    pp: *const u8,
    pl: usize,
    ip: *const u8,
    il: usize,
    ap: *const u8,
    al: usize,
) -> u32 {
    let (proof, inputs, accepted) = unsafe { (arg(pp, pl), arg(ip, il), arg(ap, al)) };
    finish(proof_wire::verify_spend_accepting(proof, inputs, accepted).map(|()| Vec::new()))
}

/// See `priv_stark_proof::wire::parameter_sets`.
#[unsafe(no_mangle)]
pub extern "C" fn ps_parameter_sets() -> u32 {
    finish::<ProofError>(Ok(proof_wire::parameter_sets()))
}

/// See `priv_stark_proof::wire::accept_parameter_sets`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_accept_parameter_sets(ptr: *const u8, len: usize) -> u32 {
    finish(proof_wire::accept_parameter_sets(unsafe { arg(ptr, len) }))
}

/// See `priv_stark_proof::wire::transition_public_inputs_of`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_transition_public_inputs(ptr: *const u8, len: usize) -> u32 {
    finish(proof_wire::transition_public_inputs_of(unsafe { arg(ptr, len) }))
}

/// See `priv_stark_proof::wire::prove_transition`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_prove_transition(
    wp: *const u8,
    wl: usize,
    sp: *const u8,
    sl: usize,
) -> u32 {
    finish(proof_wire::prove_transition(unsafe { arg(wp, wl) }, unsafe { arg(sp, sl) }))
}

/// See `priv_stark_proof::wire::prove_transition_in_set` (an id past a byte is refused as
/// unsupported).
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_prove_transition_in_set(
    wp: *const u8,
    wl: usize,
    sp: *const u8,
    sl: usize,
    set: u32,
) -> u32 {
    let set = u8::try_from(set).unwrap_or(u8::MAX);
    finish(proof_wire::prove_transition_in_set(unsafe { arg(wp, wl) }, unsafe { arg(sp, sl) }, set))
}

/// See `priv_stark_proof::wire::verify_transition`; an empty result when the proof holds.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_verify_transition(
    pp: *const u8,
    pl: usize,
    ip: *const u8,
    il: usize,
) -> u32 {
    let (proof, inputs) = unsafe { (arg(pp, pl), arg(ip, il)) };
    finish(proof_wire::verify_transition(proof, inputs).map(|()| Vec::new()))
}

/// See `priv_stark_proof::wire::verify_transition_accepting` (accepted ids: one byte each); an
/// empty result when the proof holds.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_verify_transition_accepting(
    pp: *const u8,
    pl: usize,
    ip: *const u8,
    il: usize,
    ap: *const u8,
    al: usize,
) -> u32 {
    let (proof, inputs, accepted) = unsafe { (arg(pp, pl), arg(ip, il), arg(ap, al)) };
    finish(proof_wire::verify_transition_accepting(proof, inputs, accepted).map(|()| Vec::new()))
}

/// See `priv_stark_proof::wire::transition_parameter_sets`.
#[unsafe(no_mangle)]
pub extern "C" fn ps_transition_parameter_sets() -> u32 {
    finish::<ProofError>(Ok(proof_wire::transition_parameter_sets()))
}

/// See `priv_stark_proof::wire::accept_transition_parameter_sets`.
///
/// # Safety
/// Arguments as in [`arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ps_accept_transition_parameter_sets(ptr: *const u8, len: usize) -> u32 {
    finish(proof_wire::accept_transition_parameter_sets(unsafe { arg(ptr, len) }))
}
