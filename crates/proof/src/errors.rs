//! Every rejection of the proof crate as one enum variant with a stable snake_case code.
//!
//! The codes cross the binding boundary unchanged (the facilitator maps any verifier rejection
//! to `invalid_priv_stark_proof` and keeps the code for its logs); [`ProofError::CODES`] lists
//! them once so TypeScript can mirror the list character for character.

use core::fmt;

use priv_stark_core::CoreError;

/// An error of the spend prover or verifier. Each variant is one reason to reject an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProofError {
    /// This error occurs when a byte string (witness, public inputs, seed) has the wrong length.
    InvalidLength { what: &'static str, expected: usize, got: usize },
    /// This error occurs when an encoded field element is not below p.
    NonCanonicalElement { what: &'static str, index: usize },
    /// This error occurs when a prover seed is all zeros (the caller forgot its CSPRNG).
    InvalidSeed,
    /// This error occurs when the amount is 0 or not below 2^62.
    AmountOutOfRange { amount: u64 },
    /// This error occurs when the spent note's value is not below 2^62.
    ValueOutOfRange { value: u64 },
    /// This error occurs when the spent note holds less than the amount.
    InsufficientValue { value: u64, amount: u64 },
    /// This error occurs when the leaf index is not below 2^32.
    IndexOutOfRange { index: u64 },
    /// This error occurs when the witness leads to another root than the expected one.
    RootMismatch,
    /// This error occurs when the witness leads to another nullifier than the expected one.
    NullifierMismatch,
    /// This error occurs when the witness leads to another change commitment than expected.
    ChangeMismatch,
    /// This error occurs when the witness pays another amount than the expected one.
    AmountMismatch,
    /// This error occurs when the witness binds another payment context than the expected one.
    ContextMismatch,
    /// This error occurs when the trace built from a witness violates the AIR (a bug guard:
    /// the prover checks every constraint before proving).
    UnsatisfiedConstraints { failures: usize },
    /// This error occurs when the Plonky3 prover reports a failure.
    ProvingFailed,
    /// This error occurs when a proof is longer than [`crate::encoding::MAX_PROOF_BYTES`].
    ProofTooLarge { max: usize, got: usize },
    /// This error occurs when a proof is shorter than its header.
    ProofTooShort { got: usize },
    /// This error occurs when a proof does not start with the magic bytes.
    BadMagic,
    /// This error occurs when a proof has another format version than this crate's.
    UnsupportedVersion { expected: u8, got: u8 },
    /// This error occurs when a proof names a parameter set the verifier does not accept, or a
    /// verifier is configured with a set this crate does not know.
    UnsupportedParameterSet { got: u8 },
    /// This error occurs when the proof body cannot be decoded (truncated, malformed, or a
    /// field element not below p), or is not the one canonical encoding of what it decodes to
    /// (a padded varint, see [`crate::canonical`]).
    MalformedProof,
    /// This error occurs when bytes follow the decoded proof body.
    TrailingBytes { count: usize },
    /// This error occurs when the decoded proof does not have the fixed shape of a spend proof
    /// (trace height, widths, counts, lengths).
    InvalidProofShape { what: &'static str, expected: usize, got: usize },
    /// This error occurs when the STARK verifier rejects the proof; `check` names the first
    /// check that failed (a proof for other public inputs almost always fails the first
    /// proof-of-work check, since its transcript differs).
    InvalidProof { check: FailedCheck },
    /// This error occurs when a Rust panic was caught inside the prover or verifier.
    InternalPanic,
    /// This error occurs when a transition's inputs are not worth its outputs plus its exit
    /// amount.
    ValuesNotConserved,
    /// This error occurs when a transition output is neither 0 (a dummy) nor at least the
    /// minimum output value.
    OutputBelowMinimum { value: u64 },
    /// This error occurs when a transition's two nullifiers are equal (one note spent twice).
    NullifiersNotDistinct,
    /// This error occurs when the witness leads to other transition outputs or memo than the
    /// expected ones.
    OutputMismatch,
    /// This error occurs when a transition's first input has value 0: it must be a real note.
    FirstInputDummy,
}

impl ProofError {
    /// Every code this enum can produce, in a fixed order.
    pub const CODES: [&'static str; 29] = [
        "invalid_length",
        "non_canonical_element",
        "invalid_seed",
        "amount_out_of_range",
        "value_out_of_range",
        "insufficient_value",
        "index_out_of_range",
        "root_mismatch",
        "nullifier_mismatch",
        "change_mismatch",
        "amount_mismatch",
        "context_mismatch",
        "unsatisfied_constraints",
        "proving_failed",
        "proof_too_large",
        "proof_too_short",
        "bad_magic",
        "unsupported_version",
        "unsupported_parameter_set",
        "malformed_proof",
        "trailing_bytes",
        "invalid_proof_shape",
        "invalid_proof",
        "internal_panic",
        "values_not_conserved",
        "output_below_minimum",
        "nullifiers_not_distinct",
        "output_mismatch",
        "first_input_dummy",
    ];

    /// The stable snake_case code of this error.
    pub const fn code(&self) -> &'static str {
        match self {
            Self::InvalidLength { .. } => "invalid_length",
            Self::NonCanonicalElement { .. } => "non_canonical_element",
            Self::InvalidSeed => "invalid_seed",
            Self::AmountOutOfRange { .. } => "amount_out_of_range",
            Self::ValueOutOfRange { .. } => "value_out_of_range",
            Self::InsufficientValue { .. } => "insufficient_value",
            Self::IndexOutOfRange { .. } => "index_out_of_range",
            Self::RootMismatch => "root_mismatch",
            Self::NullifierMismatch => "nullifier_mismatch",
            Self::ChangeMismatch => "change_mismatch",
            Self::AmountMismatch => "amount_mismatch",
            Self::ContextMismatch => "context_mismatch",
            Self::UnsatisfiedConstraints { .. } => "unsatisfied_constraints",
            Self::ProvingFailed => "proving_failed",
            Self::ProofTooLarge { .. } => "proof_too_large",
            Self::ProofTooShort { .. } => "proof_too_short",
            Self::BadMagic => "bad_magic",
            Self::UnsupportedVersion { .. } => "unsupported_version",
            Self::UnsupportedParameterSet { .. } => "unsupported_parameter_set",
            Self::MalformedProof => "malformed_proof",
            Self::TrailingBytes { .. } => "trailing_bytes",
            Self::InvalidProofShape { .. } => "invalid_proof_shape",
            Self::InvalidProof { .. } => "invalid_proof",
            Self::InternalPanic => "internal_panic",
            Self::ValuesNotConserved => "values_not_conserved",
            Self::OutputBelowMinimum { .. } => "output_below_minimum",
            Self::NullifiersNotDistinct => "nullifiers_not_distinct",
            Self::OutputMismatch => "output_mismatch",
            Self::FirstInputDummy => "first_input_dummy",
        }
    }

    /// `true` for rejections of untrusted proof bytes or public inputs (the verifier's side),
    /// `false` for a refused witness or an internal fault on the prover's side.
    pub const fn is_verification_failure(&self) -> bool {
        matches!(
            self,
            Self::InvalidLength { .. }
                | Self::NonCanonicalElement { .. }
                | Self::AmountOutOfRange { .. }
                | Self::ProofTooLarge { .. }
                | Self::ProofTooShort { .. }
                | Self::BadMagic
                | Self::UnsupportedVersion { .. }
                | Self::UnsupportedParameterSet { .. }
                | Self::MalformedProof
                | Self::TrailingBytes { .. }
                | Self::InvalidProofShape { .. }
                | Self::InvalidProof { .. }
                | Self::NullifiersNotDistinct
        )
    }
}

/// The verifier check a proof failed, reported inside [`ProofError::InvalidProof`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailedCheck {
    /// A proof-of-work witness (query phase, or a zero-difficulty site holding a non-zero
    /// witness).
    ProofOfWork,
    /// The opening argument: Merkle paths, salts, FRI folding, the final polynomial.
    OpeningArgument,
    /// The AIR constraints at the out-of-domain point do not match the quotient.
    Constraints,
    /// Another check of Plonky3's verifier.
    Other,
}

impl fmt::Display for FailedCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ProofOfWork => "proof of work",
            Self::OpeningArgument => "opening argument",
            Self::Constraints => "constraints at the out-of-domain point",
            Self::Other => "transcript",
        })
    }
}

impl From<CoreError> for ProofError {
    fn from(error: CoreError) -> Self {
        match error {
            CoreError::InvalidLength { what, expected, got } => {
                Self::InvalidLength { what, expected, got }
            }
            CoreError::NonCanonicalElement { what, index } => {
                Self::NonCanonicalElement { what, index }
            }
            CoreError::IndexOutOfRange { index, .. } => Self::IndexOutOfRange { index },
            // The proof crate hands the core only canonical, range-checked values; anything
            // else reaching here is a bug, reported as an internal fault.
            _ => Self::InternalPanic,
        }
    }
}

impl fmt::Display for ProofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidLength { what, expected, got } => {
                write!(f, "{what}: expected {expected} bytes, got {got}")
            }
            Self::NonCanonicalElement { what, index } => {
                write!(f, "{what}: element {index} is not a canonical field element")
            }
            Self::InvalidSeed => write!(f, "the prover seed is all zeros"),
            Self::AmountOutOfRange { amount } => {
                write!(f, "amount {amount} is not in 1..2^62")
            }
            Self::ValueOutOfRange { value } => write!(f, "note value {value} is not below 2^62"),
            Self::InsufficientValue { value, amount } => {
                write!(f, "note value {value} is below the amount {amount}")
            }
            Self::IndexOutOfRange { index } => write!(f, "leaf index {index} is not below 2^32"),
            Self::RootMismatch => write!(f, "the witness does not lead to the expected root"),
            Self::NullifierMismatch => write!(f, "the witness has another nullifier"),
            Self::ChangeMismatch => write!(f, "the witness has another change commitment"),
            Self::AmountMismatch => write!(f, "the witness pays another amount"),
            Self::ContextMismatch => write!(f, "the witness binds another payment context"),
            Self::UnsatisfiedConstraints { failures } => {
                write!(f, "the trace violates {failures} constraint evaluations")
            }
            Self::ProvingFailed => write!(f, "the prover failed"),
            Self::ProofTooLarge { max, got } => {
                write!(f, "proof of {got} bytes exceeds the limit of {max}")
            }
            Self::ProofTooShort { got } => {
                write!(f, "proof of {got} bytes is shorter than its header")
            }
            Self::BadMagic => write!(f, "not a priv-stark proof of this statement"),
            Self::UnsupportedVersion { expected, got } => {
                write!(f, "proof format version {got} is not the supported version {expected}")
            }
            Self::UnsupportedParameterSet { got } => {
                write!(f, "parameter set {got} is not accepted")
            }
            Self::MalformedProof => {
                write!(f, "the proof body cannot be decoded or is not canonically encoded")
            }
            Self::TrailingBytes { count } => write!(f, "{count} bytes follow the proof body"),
            Self::InvalidProofShape { what, expected, got } => {
                write!(f, "proof shape: {what} is {got}, expected {expected}")
            }
            Self::InvalidProof { check } => write!(f, "the proof does not verify ({check})"),
            Self::InternalPanic => write!(f, "internal error"),
            Self::ValuesNotConserved => {
                write!(f, "the inputs are not worth the outputs plus the exit amount")
            }
            Self::OutputBelowMinimum { value } => {
                write!(f, "output value {value} is neither 0 nor at least the minimum output value")
            }
            Self::NullifiersNotDistinct => write!(f, "the transition spends one note twice"),
            Self::OutputMismatch => write!(f, "the witness has other outputs or another memo"),
            Self::FirstInputDummy => write!(f, "a transition's first input must be a real note"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ProofError {}

impl priv_stark_core::errors::ErrorCode for ProofError {
    fn error_code(&self) -> &'static str {
        self.code()
    }
}
