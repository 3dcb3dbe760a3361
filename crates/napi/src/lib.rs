//! Thin N-API binding of `priv-stark-core`: moves bytes between JavaScript and the core's `wire`
//! entry points and maps errors. No protocol logic lives here.
//!
//! Errors reach JavaScript as `Error` objects whose message starts with the core's stable code
//! (`"invalid_hex: …"`); the TypeScript facade turns them into typed errors. Panics are caught
//! here as a second line of defence and reported as `internal_panic`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use napi::{Env, Status, Task, bindgen_prelude::*};
use napi_derive::napi;
use priv_stark_core::{CoreError, errors::ErrorCode, wire};
use priv_stark_proof::{ProofError, wire as proof_wire};

/// The addon's own allocations (not Node's) go through mimalloc: see `Cargo.toml`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs a core call, turning a panic into an `internal_panic` error.
fn guarded<T, E: ErrorCode>(call: impl FnOnce() -> core::result::Result<T, E>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(to_js_error(&error)),
        Err(_) => Err(to_js_error(&CoreError::InternalPanic)),
    }
}

/// The one mapping from a core or proof error to a JavaScript error.
fn to_js_error(error: &dyn ErrorCode) -> Error {
    let status = match error.error_code() {
        "internal_panic" => Status::GenericFailure,
        _ => Status::InvalidArg,
    };
    Error::new(status, format!("{}: {error}", error.error_code()))
}

fn bytes(result: Result<Vec<u8>>) -> Result<Buffer> {
    result.map(Buffer::from)
}

/// Version of the core crate.
#[napi]
pub fn version() -> String {
    priv_stark_core::VERSION.to_string()
}

/// `"release"` or `"debug"`.
#[napi]
pub fn build_profile() -> String {
    if cfg!(debug_assertions) { "debug" } else { "release" }.to_string()
}

/// Every error code the core can report.
#[napi]
pub fn error_codes() -> Vec<String> {
    CoreError::CODES.iter().map(|code| (*code).to_string()).collect()
}

/// Every error code the spend prover and verifier can report.
#[napi]
pub fn proof_error_codes() -> Vec<String> {
    ProofError::CODES.iter().map(|code| (*code).to_string()).collect()
}

/// RPO permutation of 12 encoded elements (96 bytes).
#[napi]
pub fn rpo_permute(state: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::rpo_permute(&state)))
}

/// Hash of encoded elements in a domain.
#[napi]
pub fn hash_elements(domain: u32, input: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::hash_elements(domain, &input)))
}

/// `H_NODE(left, right)`.
#[napi]
pub fn merge(left: Uint8Array, right: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::merge(&left, &right)))
}

/// `H_NODE` of each pair of concatenated digests.
#[napi]
pub fn merge_pairs(nodes: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::merge_pairs(&nodes)))
}

/// Digest bytes from the wire (hex) form.
#[napi]
pub fn digest_from_hex(text: String) -> Result<Buffer> {
    bytes(guarded(|| wire::digest_from_hex(&text)))
}

/// Wire (hex) form of digest bytes.
#[napi]
pub fn digest_to_hex(digest: Uint8Array) -> Result<String> {
    guarded(|| wire::digest_to_hex(&digest))
}

/// Encoded frontier of the empty tree.
#[napi]
pub fn frontier_empty() -> Buffer {
    wire::frontier_empty().into()
}

/// Appends concatenated leaves to an encoded frontier.
#[napi]
pub fn frontier_append(frontier: Uint8Array, leaves: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::frontier_append(&frontier, &leaves)))
}

/// Root of the tree of concatenated leaves.
#[napi]
pub fn tree_root(leaves: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::tree_root(&leaves)))
}

/// Authentication path of a leaf, computed from all leaves.
#[napi]
pub fn tree_path(leaves: Uint8Array, index: u32) -> Result<Buffer> {
    bytes(guarded(|| wire::tree_path(&leaves, u64::from(index))))
}

/// Root reached from a leaf along a path.
#[napi]
pub fn root_from_path(leaf: Uint8Array, index: u32, path: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::root_from_path(&leaf, u64::from(index), &path)))
}

/// Shielded address of an owner digest.
#[napi]
pub fn address_encode(owner: Uint8Array) -> Result<String> {
    guarded(|| wire::address_encode(&owner))
}

/// Owner digest of a shielded address.
#[napi]
pub fn address_decode(address: String) -> Result<Buffer> {
    bytes(guarded(|| wire::address_decode(&address)))
}

/// `ctx` of a packed payment context.
#[napi]
pub fn context_digest(packed: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::context_digest(&packed)))
}

// ASYNC VARIANTS (libuv thread pool, off the JavaScript thread)
// ================================================================================================

/// A core call run on the libuv thread pool; the inputs are copied before it leaves.
pub struct WireTask {
    job: Option<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>>,
}

impl WireTask {
    fn new<E: ErrorCode + 'static>(
        job: impl FnOnce() -> core::result::Result<Vec<u8>, E> + Send + 'static,
    ) -> AsyncTask<Self> {
        AsyncTask::new(Self { job: Some(Box::new(move || guarded(job))) })
    }
}

impl Task for WireTask {
    type Output = Vec<u8>;
    type JsValue = Buffer;

    fn compute(&mut self) -> Result<Self::Output> {
        let job = self.job.take().ok_or_else(|| to_js_error(&CoreError::InternalPanic))?;
        job()
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output.into())
    }
}

/// [`frontier_append`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn frontier_append_async(frontier: Uint8Array, leaves: Uint8Array) -> AsyncTask<WireTask> {
    let (frontier, leaves) = (frontier.to_vec(), leaves.to_vec());
    WireTask::new(move || wire::frontier_append(&frontier, &leaves))
}

/// [`tree_root`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn tree_root_async(leaves: Uint8Array) -> AsyncTask<WireTask> {
    let leaves = leaves.to_vec();
    WireTask::new(move || wire::tree_root(&leaves))
}

/// [`tree_path`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn tree_path_async(leaves: Uint8Array, index: u32) -> AsyncTask<WireTask> {
    let leaves = leaves.to_vec();
    WireTask::new(move || wire::tree_path(&leaves, u64::from(index)))
}

// DEPOSIT MATCHING (wallet recovery)
// ================================================================================================

/// The deposits (amount u64 LE + commitment, 40 bytes each) that pay one of the concatenated
/// precommitments: (deposit, precommitment) index pairs, u32 little-endian.
#[napi]
pub fn deposit_matches(precommitments: Uint8Array, deposits: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| wire::deposit_matches(&precommitments, &deposits)))
}

/// [`deposit_matches`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn deposit_matches_async(
    precommitments: Uint8Array,
    deposits: Uint8Array,
) -> AsyncTask<WireTask> {
    let (precommitments, deposits) = (precommitments.to_vec(), deposits.to_vec());
    WireTask::new(move || wire::deposit_matches(&precommitments, &deposits))
}

// SPEND PROOFS
// ================================================================================================

/// Public inputs (136 bytes) of an encoded witness.
#[napi]
pub fn spend_public_inputs(witness: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| proof_wire::public_inputs_of(&witness)))
}

/// Proves an encoded witness with a 32-byte seed from a CSPRNG.
#[napi]
pub fn prove_spend(witness: Uint8Array, seed: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| proof_wire::prove_spend(&witness, &seed)))
}

/// [`prove_spend`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn prove_spend_async(witness: Uint8Array, seed: Uint8Array) -> AsyncTask<WireTask> {
    let (witness, seed) = (witness.to_vec(), seed.to_vec());
    WireTask::new(move || proof_wire::prove_spend(&witness, &seed))
}

/// The proof's reference (32 bytes) and the parameter-set id of its header (1 byte).
#[napi]
pub fn proof_reference(proof: Uint8Array, public_inputs: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| proof_wire::proof_reference(&proof, &public_inputs)))
}

/// Verifies a proof against encoded public inputs; returns an empty buffer when it holds.
/// `accepted` lists the parameter-set ids to accept (one byte each); absent, the default sets.
#[napi]
pub fn verify_spend(
    proof: Uint8Array,
    public_inputs: Uint8Array,
    accepted: Option<Uint8Array>,
) -> Result<Buffer> {
    bytes(guarded(|| verify(&proof, &public_inputs, accepted.as_deref())))
}

/// [`verify_spend`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn verify_spend_async(
    proof: Uint8Array,
    public_inputs: Uint8Array,
    accepted: Option<Uint8Array>,
) -> AsyncTask<WireTask> {
    let (proof, public_inputs) = (proof.to_vec(), public_inputs.to_vec());
    let accepted = accepted.map(|ids| ids.to_vec());
    WireTask::new(move || verify(&proof, &public_inputs, accepted.as_deref()))
}

fn verify(
    proof: &[u8],
    public_inputs: &[u8],
    accepted: Option<&[u8]>,
) -> core::result::Result<Vec<u8>, ProofError> {
    match accepted {
        Some(ids) => proof_wire::verify_spend_accepting(proof, public_inputs, ids),
        None => proof_wire::verify_spend(proof, public_inputs),
    }
    .map(|()| Vec::new())
}

/// Every parameter set a verifier can accept, newest first, as 8-byte records (see
/// `priv_stark_proof::wire::parameter_sets`).
#[napi]
pub fn parameter_sets() -> Buffer {
    proof_wire::parameter_sets().into()
}

/// Checks a list of parameter-set ids to accept (one byte each); returns it normalised (newest
/// first, each once).
#[napi]
pub fn accept_parameter_sets(ids: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| proof_wire::accept_parameter_sets(&ids)))
}

// TRANSITIONS (merge, split, exit)
// ================================================================================================

/// Public inputs (248 bytes) of an encoded transition witness.
#[napi]
pub fn transition_public_inputs(witness: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| proof_wire::transition_public_inputs_of(&witness)))
}

/// Proves an encoded transition witness with a 32-byte seed from a CSPRNG, under transition
/// parameter set `set` (absent: the newest, the one this release proves).
#[napi]
pub fn prove_transition(witness: Uint8Array, seed: Uint8Array, set: Option<u32>) -> Result<Buffer> {
    bytes(guarded(|| prove_transition_with(&witness, &seed, set)))
}

fn prove_transition_with(
    witness: &[u8],
    seed: &[u8],
    set: Option<u32>,
) -> core::result::Result<Vec<u8>, ProofError> {
    match set {
        // An id past a byte is no set: u8::MAX is refused as unsupported.
        Some(set) => {
            proof_wire::prove_transition_in_set(witness, seed, u8::try_from(set).unwrap_or(u8::MAX))
        }
        None => proof_wire::prove_transition(witness, seed),
    }
}

/// Verifies a transition proof against encoded public inputs, accepting the transition sets listed
/// in `accepted` (one byte per id; every transition set when absent); an empty buffer when it
/// holds.
#[napi]
pub fn verify_transition(
    proof: Uint8Array,
    public_inputs: Uint8Array,
    accepted: Option<Uint8Array>,
) -> Result<Buffer> {
    bytes(guarded(|| verify_transition_with(&proof, &public_inputs, accepted.as_deref())))
}

fn verify_transition_with(
    proof: &[u8],
    public_inputs: &[u8],
    accepted: Option<&[u8]>,
) -> core::result::Result<Vec<u8>, ProofError> {
    match accepted {
        Some(ids) => proof_wire::verify_transition_accepting(proof, public_inputs, ids),
        None => proof_wire::verify_transition(proof, public_inputs),
    }
    .map(|()| Vec::new())
}

/// Every transition parameter set a verifier can accept, newest first, as 8-byte records (see
/// `priv_stark_proof::wire::transition_parameter_sets`).
#[napi]
pub fn transition_parameter_sets() -> Buffer {
    proof_wire::transition_parameter_sets().into()
}

/// Checks a list of transition parameter-set ids to accept (one byte each); returns it normalised
/// (newest first, each once).
#[napi]
pub fn accept_transition_parameter_sets(ids: Uint8Array) -> Result<Buffer> {
    bytes(guarded(|| proof_wire::accept_transition_parameter_sets(&ids)))
}

/// [`prove_transition`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn prove_transition_async(
    witness: Uint8Array,
    seed: Uint8Array,
    set: Option<u32>,
) -> AsyncTask<WireTask> {
    let (witness, seed) = (witness.to_vec(), seed.to_vec());
    WireTask::new(move || prove_transition_with(&witness, &seed, set))
}

/// [`verify_transition`] off the JavaScript thread.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn verify_transition_async(
    proof: Uint8Array,
    public_inputs: Uint8Array,
    accepted: Option<Uint8Array>,
) -> AsyncTask<WireTask> {
    let (proof, public_inputs) = (proof.to_vec(), public_inputs.to_vec());
    let accepted = accepted.map(|ids| ids.to_vec());
    WireTask::new(move || verify_transition_with(&proof, &public_inputs, accepted.as_deref()))
}
