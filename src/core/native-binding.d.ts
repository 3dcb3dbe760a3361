/**
 * Checks a list of parameter-set ids to accept (one byte each); returns it normalised (newest
 * first, each once).
 */
export declare function acceptParameterSets(ids: Uint8Array): Buffer

/**
 * Checks a list of transition parameter-set ids to accept (one byte each); returns it normalised
 * (newest first, each once).
 */
export declare function acceptTransitionParameterSets(ids: Uint8Array): Buffer

/** Owner digest of a shielded address. */
export declare function addressDecode(address: string): Buffer

/** Shielded address of an owner digest. */
export declare function addressEncode(owner: Uint8Array): string

/** `"release"` or `"debug"`. */
export declare function buildProfile(): string

/** `ctx` of a packed payment context. */
export declare function contextDigest(packed: Uint8Array): Buffer

/**
 * The deposits (amount u64 LE + commitment, 40 bytes each) that pay one of the concatenated
 * precommitments: (deposit, precommitment) index pairs, u32 little-endian.
 */
export declare function depositMatches(precommitments: Uint8Array, deposits: Uint8Array): Buffer

/** [`deposit_matches`] off the JavaScript thread. */
export declare function depositMatchesAsync(precommitments: Uint8Array, deposits: Uint8Array): Promise<Buffer>

/** Digest bytes from the wire (hex) form. */
export declare function digestFromHex(text: string): Buffer

/** Wire (hex) form of digest bytes. */
export declare function digestToHex(digest: Uint8Array): string

/** Every error code the core can report. */
export declare function errorCodes(): Array<string>

/** Appends concatenated leaves to an encoded frontier. */
export declare function frontierAppend(frontier: Uint8Array, leaves: Uint8Array): Buffer

/** [`frontier_append`] off the JavaScript thread. */
export declare function frontierAppendAsync(frontier: Uint8Array, leaves: Uint8Array): Promise<Buffer>

/** Encoded frontier of the empty tree. */
export declare function frontierEmpty(): Buffer

/** Hash of encoded elements in a domain. */
export declare function hashElements(domain: number, input: Uint8Array): Buffer

/** `H_NODE(left, right)`. */
export declare function merge(left: Uint8Array, right: Uint8Array): Buffer

/** `H_NODE` of each pair of concatenated digests. */
export declare function mergePairs(nodes: Uint8Array): Buffer

/**
 * Every parameter set a verifier can accept, newest first, as 8-byte records (see
 * `priv_stark_proof::wire::parameter_sets`).
 */
export declare function parameterSets(): Buffer

/** Every error code the spend prover and verifier can report. */
export declare function proofErrorCodes(): Array<string>

/** The proof's reference (32 bytes) and the parameter-set id of its header (1 byte). */
export declare function proofReference(proof: Uint8Array, publicInputs: Uint8Array): Buffer

/** Proves an encoded witness with a 32-byte seed from a CSPRNG. */
export declare function proveSpend(witness: Uint8Array, seed: Uint8Array): Buffer

/** [`prove_spend`] off the JavaScript thread. */
export declare function proveSpendAsync(witness: Uint8Array, seed: Uint8Array): Promise<Buffer>

/**
 * Proves an encoded transition witness with a 32-byte seed from a CSPRNG, under transition
 * parameter set `set` (absent: the newest, the one this release proves).
 */
export declare function proveTransition(witness: Uint8Array, seed: Uint8Array, set?: number | undefined | null): Buffer

/** [`prove_transition`] off the JavaScript thread. */
export declare function proveTransitionAsync(witness: Uint8Array, seed: Uint8Array, set?: number | undefined | null): Promise<Buffer>

/** Root reached from a leaf along a path. */
export declare function rootFromPath(leaf: Uint8Array, index: number, path: Uint8Array): Buffer

/** RPO permutation of 12 encoded elements (96 bytes). */
export declare function rpoPermute(state: Uint8Array): Buffer

/** Public inputs (136 bytes) of an encoded witness. */
export declare function spendPublicInputs(witness: Uint8Array): Buffer

/**
 * Every transition parameter set a verifier can accept, newest first, as 8-byte records (see
 * `priv_stark_proof::wire::transition_parameter_sets`).
 */
export declare function transitionParameterSets(): Buffer

/** Public inputs (248 bytes) of an encoded transition witness. */
export declare function transitionPublicInputs(witness: Uint8Array): Buffer

/** Authentication path of a leaf, computed from all leaves. */
export declare function treePath(leaves: Uint8Array, index: number): Buffer

/** [`tree_path`] off the JavaScript thread. */
export declare function treePathAsync(leaves: Uint8Array, index: number): Promise<Buffer>

/** Root of the tree of concatenated leaves. */
export declare function treeRoot(leaves: Uint8Array): Buffer

/** [`tree_root`] off the JavaScript thread. */
export declare function treeRootAsync(leaves: Uint8Array): Promise<Buffer>

/**
 * Verifies a proof against encoded public inputs; returns an empty buffer when it holds.
 * `accepted` lists the parameter-set ids to accept (one byte each); absent, the default sets.
 */
export declare function verifySpend(proof: Uint8Array, publicInputs: Uint8Array, accepted?: Uint8Array | undefined | null): Buffer

/** [`verify_spend`] off the JavaScript thread. */
export declare function verifySpendAsync(proof: Uint8Array, publicInputs: Uint8Array, accepted?: Uint8Array | undefined | null): Promise<Buffer>

/**
 * Verifies a transition proof against encoded public inputs, accepting the transition sets listed
 * in `accepted` (one byte per id; every transition set when absent); an empty buffer when it
 * holds.
 */
export declare function verifyTransition(proof: Uint8Array, publicInputs: Uint8Array, accepted?: Uint8Array | undefined | null): Buffer

/** [`verify_transition`] off the JavaScript thread. */
export declare function verifyTransitionAsync(proof: Uint8Array, publicInputs: Uint8Array, accepted?: Uint8Array | undefined | null): Promise<Buffer>

/** Version of the core crate. */
export declare function version(): string
