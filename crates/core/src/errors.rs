//! Every rejection of the core as one enum variant with a stable snake_case code.
//!
//! The codes cross the binding boundary unchanged and become reasons in TypeScript; the list in
//! [`CoreError::CODES`] is mirrored character for character by `src/core/codes.ts`.

use core::fmt;

/// An error with a stable snake_case code, as the bindings report it (`"<code>: <message>"`).
pub trait ErrorCode: fmt::Display {
    /// The stable code.
    fn error_code(&self) -> &'static str;
}

impl ErrorCode for CoreError {
    fn error_code(&self) -> &'static str {
        self.code()
    }
}

/// An error of the core. Each variant is one reason to reject an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoreError {
    /// This error occurs when a byte or element string has the wrong length.
    InvalidLength { what: &'static str, expected: usize, got: usize },
    /// This error occurs when a field element is not below p = 2^64 - 2^32 + 1.
    NonCanonicalElement { what: &'static str, index: usize },
    /// This error occurs when a digest string is not `0x` followed by 64 lowercase hex digits.
    InvalidHex { what: &'static str },
    /// This error occurs when a domain tag number names no domain.
    UnknownDomain { tag: u32 },
    /// This error occurs when packed text is not valid UTF-8.
    InvalidEncoding { what: &'static str },
    /// This error occurs when a note value or an amount is outside its range.
    ValueOutOfRange { what: &'static str },
    /// This error occurs when a string of the payment context is longer than its maximum.
    FieldTooLong { what: &'static str, max: usize, got: usize },
    /// This error occurs when the tree already holds 2^32 leaves.
    TreeFull,
    /// This error occurs when a leaf index is not below the number of leaves.
    IndexOutOfRange { index: u64, size: u64 },
    /// This error occurs when a shielded address has a wrong prefix, character, case, length or
    /// checksum.
    InvalidAddress,
    /// This error occurs when a Rust panic was caught at a binding boundary.
    InternalPanic,
}

impl CoreError {
    /// Every code this enum can produce, in a fixed order.
    pub const CODES: [&'static str; 11] = [
        "invalid_length",
        "non_canonical_element",
        "invalid_hex",
        "invalid_encoding",
        "unknown_domain",
        "value_out_of_range",
        "field_too_long",
        "tree_full",
        "index_out_of_range",
        "invalid_address",
        "internal_panic",
    ];

    /// The stable snake_case code of this error.
    pub const fn code(&self) -> &'static str {
        match self {
            Self::InvalidLength { .. } => "invalid_length",
            Self::NonCanonicalElement { .. } => "non_canonical_element",
            Self::InvalidHex { .. } => "invalid_hex",
            Self::InvalidEncoding { .. } => "invalid_encoding",
            Self::UnknownDomain { .. } => "unknown_domain",
            Self::ValueOutOfRange { .. } => "value_out_of_range",
            Self::FieldTooLong { .. } => "field_too_long",
            Self::TreeFull => "tree_full",
            Self::IndexOutOfRange { .. } => "index_out_of_range",
            Self::InvalidAddress => "invalid_address",
            Self::InternalPanic => "internal_panic",
        }
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidLength { what, expected, got } => {
                write!(f, "{what}: expected length {expected}, got {got}")
            }
            Self::NonCanonicalElement { what, index } => {
                write!(f, "{what}: element {index} is not a canonical field element")
            }
            Self::InvalidHex { what } => {
                write!(f, "{what}: expected 0x followed by 64 lowercase hex digits")
            }
            Self::InvalidEncoding { what } => write!(f, "{what}: invalid UTF-8"),
            Self::UnknownDomain { tag } => write!(f, "unknown domain tag {tag}"),
            Self::ValueOutOfRange { what } => write!(f, "{what} is out of range"),
            Self::FieldTooLong { what, max, got } => {
                write!(f, "{what}: at most {max} bytes, got {got}")
            }
            Self::TreeFull => write!(f, "the tree is full"),
            Self::IndexOutOfRange { index, size } => {
                write!(f, "leaf index {index} is out of range for {size} leaves")
            }
            Self::InvalidAddress => write!(f, "not a pstark shielded address"),
            Self::InternalPanic => write!(f, "internal error"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CoreError {}
