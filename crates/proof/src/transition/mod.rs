//! The transition statement: merge, split and exit of notes, proven by their owner and verified
//! by the pool node (never by the facilitator, whose surface stays the three payment endpoints).
//!
//! One AIR at fixed arity, two inputs and two outputs, serves all three: a merge spends two notes
//! into one output and a dummy, a split one note (and a dummy input) into two outputs, an exit
//! pays `exit` out of the pool and keeps the change in one output. Dummies cost the same rows as
//! real notes and publish the same number of nullifiers and commitments, so the kind of
//! transition and its counts do not show; only an exit's amount and destination do. See
//! [`statement`] for the relation and [`layout`] for the trace.
//!
//! Its proofs are separate from spend proofs in every way a verifier checks: their own magic
//! (`"PSTR"`), their own parameter sets ([`TRANSITION_SETS`]: 17, proved, and 16, still verified),
//! their own transcript label and AIR digest. A spend proof handed to the transition verifier (or the reverse) is
//! refused at the header, and could not verify under the other transcript anyway.

pub mod accepted;
pub mod air;
pub mod encoding;
pub mod layout;
pub mod proof;
pub mod statement;
pub mod trace;

pub use accepted::AcceptedTransitionSets;
pub use layout::Revision;
pub use proof::{
    TRANSITION_PARAMETER_SET, TRANSITION_SECURITY, TRANSITION_SET_16, TRANSITION_SET_17,
    TRANSITION_SETS, TransitionSet, prove_transition, prove_transition_against,
    prove_transition_in, transition_air_digest, transition_security_level, transition_set,
    transition_transcript_prefix, verify_transition, verify_transition_accepting,
};
pub use statement::{
    TransitionInput, TransitionPublicInputs, TransitionWitness, check_public_rules,
};
