//! Keys, notes and nullifiers of the priv-stark/v1 statement, each one domain-separated hash.

use p3_field::PrimeCharacteristicRing;

use crate::{
    digest::{DIGEST_ELEMENTS, Digest},
    errors::CoreError,
    field::Felt,
    sponge::{Domain, hash_elements, hash_two},
};

/// Note values and amounts are below 2^62, so sums and differences of two stay far from p.
pub const VALUE_LIMIT: u64 = 1 << 62;

/// Checks `0 <= value < 2^62`.
///
/// # Errors
/// [`CoreError::ValueOutOfRange`].
pub const fn check_value(value: u64, what: &'static str) -> Result<u64, CoreError> {
    if value < VALUE_LIMIT { Ok(value) } else { Err(CoreError::ValueOutOfRange { what }) }
}

/// `owner = H_OWNER(sk)`; a spending key is four random field elements.
pub fn owner(spending_key: &Digest) -> Digest {
    hash_elements(Domain::Owner, &spending_key.0)
}

/// `pre = H_PRE(owner, rho)`.
pub fn precommitment(owner: &Digest, rho: &Digest) -> Digest {
    hash_two(Domain::Pre, owner, rho)
}

/// `cm = H_NOTE(v, pre)`.
///
/// # Errors
/// [`CoreError::ValueOutOfRange`] when `value >= 2^62`.
pub fn note_commitment(value: u64, precommitment: &Digest) -> Result<Digest, CoreError> {
    Ok(hash_elements(Domain::Note, &note_input(value, precommitment)?))
}

/// The input `H_NOTE` hashes: the value, then the precommitment.
///
/// # Errors
/// [`CoreError::ValueOutOfRange`] when `value >= 2^62`.
pub fn note_input(
    value: u64,
    precommitment: &Digest,
) -> Result<[Felt; 1 + DIGEST_ELEMENTS], CoreError> {
    let value = check_value(value, "note value")?;
    let mut input = [Felt::ZERO; 1 + DIGEST_ELEMENTS];
    input[0] = Felt::from_u64(value);
    input[1..].copy_from_slice(&precommitment.0);
    Ok(input)
}

/// `nf = H_NULLIFIER(sk, cm)`: position-independent, one per note.
pub fn nullifier(spending_key: &Digest, commitment: &Digest) -> Digest {
    hash_two(Domain::Nullifier, spending_key, commitment)
}

/// `rho = H_RECIPIENT_RHO(nf)`: the recipient note's randomness, public by design.
pub fn recipient_rho(nullifier: &Digest) -> Digest {
    hash_elements(Domain::RecipientRho, &nullifier.0)
}

/// `rho' = H_CHANGE_RHO(sk, nf)`: change notes are recoverable from the key and the public log.
pub fn change_rho(spending_key: &Digest, nullifier: &Digest) -> Digest {
    hash_two(Domain::ChangeRho, spending_key, nullifier)
}

/// `rho = H_DEPOSIT_RHO(sk, counter)`: the wallet's n-th deposit.
pub fn deposit_rho(spending_key: &Digest, counter: u32) -> Digest {
    let mut input = [Felt::ZERO; DIGEST_ELEMENTS + 1];
    input[..DIGEST_ELEMENTS].copy_from_slice(&spending_key.0);
    input[DIGEST_ELEMENTS] = Felt::from_u32(counter);
    hash_elements(Domain::DepositRho, &input)
}

/// `rho = H_TRANSITION_RHO_i(sk, nf₁)` of output `i ∈ {0, 1}` of a transition (merge, split or
/// exit) whose first input has nullifier `nf₁`: the outputs belong to the inputs' owner and are
/// recoverable from the key and the public log.
pub fn transition_rho(spending_key: &Digest, first_nullifier: &Digest, output: usize) -> Digest {
    let domain = if output == 0 { Domain::TransitionRho1 } else { Domain::TransitionRho2 };
    hash_two(domain, spending_key, first_nullifier)
}

/// `rho = H_REFUND_RHO(sk, nf₁)` of the refund note of an exit whose first input has nullifier
/// `nf₁`: the note `H_NOTE(exit, H_PRE(owner, rho))` the pool appends when the exit's payout fails,
/// recoverable from the key like every other note.
pub fn refund_rho(spending_key: &Digest, first_nullifier: &Digest) -> Digest {
    hash_two(Domain::RefundRho, spending_key, first_nullifier)
}

/// The two field elements that mask a transition's output values in its public memo:
/// `memo_i = v_i + pad_i` (mod p), with `pad = H_TRANSITION_MEMO(sk, nf₁)` lanes 0 and 1. Only the
/// key's holder can unmask them; to anyone else the memo is uniformly random.
pub fn transition_memo_pad(spending_key: &Digest, first_nullifier: &Digest) -> [Felt; 2] {
    let pad = hash_two(Domain::TransitionMemo, spending_key, first_nullifier);
    [pad.0[0], pad.0[1]]
}

/// The memo of output values `values` (each below 2^62).
pub fn transition_memo(
    spending_key: &Digest,
    first_nullifier: &Digest,
    values: [u64; 2],
) -> [Felt; 2] {
    let pad = transition_memo_pad(spending_key, first_nullifier);
    [Felt::from_u64(values[0]) + pad[0], Felt::from_u64(values[1]) + pad[1]]
}

/// Recovers a transition's outputs from the key: unmasks the memo and keeps each value whose note
/// `H_NOTE(v, H_PRE(owner, rho_i))` is the published output. `None` for an output that is not this
/// key's (or a memo that does not open it).
pub fn recover_transition_outputs(
    spending_key: &Digest,
    first_nullifier: &Digest,
    memo: [Felt; 2],
    outputs: [Digest; 2],
) -> [Option<u64>; 2] {
    use p3_field::PrimeField64;
    let pad = transition_memo_pad(spending_key, first_nullifier);
    let owner = owner(spending_key);
    core::array::from_fn(|i| {
        let value = (memo[i] - pad[i]).as_canonical_u64();
        let rho = transition_rho(spending_key, first_nullifier, i);
        let commitment = note_commitment(value, &precommitment(&owner, &rho)).ok()?;
        (commitment == outputs[i]).then_some(value)
    })
}
