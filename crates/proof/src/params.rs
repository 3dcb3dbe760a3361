//! The parameter sets this crate proves and verifies with.
//!
//! A proof names its parameter set in its header. The prover uses [`PARAMETER_SET`] (set 3); the
//! verifier accepts a configured list of the [`KNOWN_SETS`] ([`crate::verifier::AcceptedSets`]),
//! by default set 3 and, for a deprecation window, set 2, so a prover cannot weaken the proof by
//! choosing its own blowup, query count or grinding, and payments proven before an upgrade still
//! verify after it. Changing any number is a new parameter set with a new [`ParameterSet::id`].

/// FRI and zero-knowledge parameters of one proof system instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParameterSet {
    /// Identifier written in the proof header.
    pub id: u8,
    /// log2 of the FRI blowup factor.
    pub log_blowup: usize,
    /// log2 of the length of the final FRI polynomial.
    pub log_final_poly_len: usize,
    /// log2 of the maximum FRI folding arity.
    pub max_log_arity: usize,
    /// Number of FRI queries.
    pub num_queries: usize,
    /// Grinding bits before the query indices are drawn.
    pub query_pow_bits: usize,
    /// Grinding bits before each FRI folding challenge.
    pub commit_pow_bits: usize,
    /// Grinding bits before the challenge batching the openings.
    pub batch_pow_bits: usize,
    /// Grinding bits before the out-of-domain point.
    pub ood_pow_bits: usize,
    /// Random codewords of the hiding PCS (at least the extension degree, 3).
    pub num_random_codewords: usize,
    /// Height of the Merkle caps (0 = a single root).
    pub cap_height: usize,
    /// How the transcript names the AIR.
    pub air_binding: AirBinding,
}

/// How a parameter set's transcript prefix names the constraint system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AirBinding {
    /// A version number bumped by hand (sets 1 and 2, kept so that their proofs still verify).
    Version(u32),
    /// [`crate::air_digest::air_digest`], computed from the constraints and periodic columns.
    Digest,
}

/// Conjectured and proven soundness of a parameter set, in bits, as Plonky3's estimator
/// computes it for the spend AIR ([`crate::security::security_level`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecurityLevel {
    /// Conjectured ("random words", eprint 2025/2010 §1.5).
    pub conjectured_bits: usize,
    /// Proven, unique-decoding regime.
    pub proven_unique_decoding_bits: usize,
    /// Proven, list-decoding regime (Johnson bound).
    pub proven_list_decoding_bits: usize,
}

/// Set 2 (issue 10): blowup 32, 23 queries, 16 bits of query grinding, FRI arity 8 down to a
/// final polynomial of 128 coefficients, 3 random codewords, single Merkle roots; the AIR named
/// by version 1. 128 conjectured bits, 73 proven (list decoding), 37 (unique decoding).
/// Accepted by default during the deprecation window after set 3.
pub const PARAMETER_SET_2: ParameterSet = ParameterSet {
    id: 2,
    log_blowup: 5,
    log_final_poly_len: 7,
    max_log_arity: 3,
    num_queries: 23,
    query_pow_bits: 16,
    commit_pow_bits: 0,
    batch_pow_bits: 0,
    ood_pow_bits: 0,
    num_random_codewords: 3,
    cap_height: 0,
    air_binding: AirBinding::Version(1),
};

/// Set 3 (issue 15), the one the prover uses: set 2 with 33 queries and 18 bits of query
/// grinding, the AIR named by its digest. 128 conjectured bits, 100 proven (list decoding), 49
/// (unique decoding); `docs/proof.md` §7 has the levers measured to choose it.
pub const PARAMETER_SET_3: ParameterSet = ParameterSet {
    id: 3,
    num_queries: 33,
    query_pow_bits: 18,
    air_binding: AirBinding::Digest,
    ..PARAMETER_SET_2
};

/// The parameter set of the proofs this crate makes.
pub const PARAMETER_SET: ParameterSet = PARAMETER_SET_3;

/// The first parameter set (blowup 64, 19 queries), retired: not a known set, so no verifier
/// accepts it; kept for measurements.
pub const PARAMETER_SET_1: ParameterSet =
    ParameterSet { id: 1, log_blowup: 6, num_queries: 19, ..PARAMETER_SET_2 };

/// A parameter set a verifier may be configured to accept, with its security level
/// (`tests/security.rs` checks each figure against the estimator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownSet {
    /// The parameters.
    pub params: ParameterSet,
    /// Plonky3's estimate for the spend AIR.
    pub security: SecurityLevel,
    /// Whether the default verifier configuration accepts it.
    pub accepted_by_default: bool,
}

/// Every parameter set a verifier can accept, newest first.
pub const KNOWN_SETS: [KnownSet; 2] = [
    KnownSet {
        params: PARAMETER_SET_3,
        security: SecurityLevel {
            conjectured_bits: 128,
            proven_unique_decoding_bits: 49,
            proven_list_decoding_bits: 100,
        },
        accepted_by_default: true,
    },
    KnownSet {
        params: PARAMETER_SET_2,
        security: SecurityLevel {
            conjectured_bits: 128,
            proven_unique_decoding_bits: 37,
            proven_list_decoding_bits: 73,
        },
        accepted_by_default: true,
    },
];

/// The known set with this id.
pub fn known_set(id: u8) -> Option<&'static KnownSet> {
    KNOWN_SETS.iter().find(|known| known.params.id == id)
}
