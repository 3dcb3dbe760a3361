//! Which deposits of the public log pay a wallet's deposit tickets: a deposit event shows only
//! its amount and commitment, so a wallet restored from its key tries `H_NOTE(amount, pre)` for
//! every precommitment it may have handed out. Done here in one call for a page of events, with
//! the commitments computed once per distinct amount (deposits repeat round amounts), so a wallet
//! never pays a binding call per hash.

use alloc::{collections::BTreeMap, vec::Vec};

use crate::{
    digest::Digest,
    errors::CoreError,
    notes::note_input,
    sponge::{Domain, hash_blocks},
};

/// One deposit of the log: its amount and its commitment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deposit {
    pub amount: u64,
    pub commitment: Digest,
}

/// A deposit that pays a precommitment: the indexes of both in the lists given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepositMatch {
    pub deposit: usize,
    pub precommitment: usize,
}

/// The deposits whose commitment is `H_NOTE(amount, pre)` for one of `precommitments`, in the
/// deposits' order (a deposit matching several precommitments — which needs a hash collision —
/// is listed once per match). Costs one hash per distinct amount and precommitment.
///
/// # Errors
/// [`CoreError::ValueOutOfRange`] when an amount is not below 2^62 (the pool refuses such a
/// deposit, so no log holds one).
pub fn deposit_matches(
    precommitments: &[Digest],
    deposits: &[Deposit],
) -> Result<Vec<DepositMatch>, CoreError> {
    let mut by_amount: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, deposit) in deposits.iter().enumerate() {
        by_amount.entry(deposit.amount).or_default().push(i);
    }
    // Every (amount, precommitment) input first, so the hashes run together.
    let mut inputs = Vec::with_capacity(by_amount.len() * precommitments.len());
    for amount in by_amount.keys() {
        for pre in precommitments {
            inputs.push(note_input(*amount, pre)?);
        }
    }
    let commitments = hash_blocks(Domain::Note, &inputs);
    let mut matches = Vec::new();
    for (members, commitments) in
        by_amount.values().zip(commitments.chunks(precommitments.len().max(1)))
    {
        for &i in members {
            for (p, commitment) in commitments.iter().enumerate() {
                if *commitment == deposits[i].commitment {
                    matches.push(DepositMatch { deposit: i, precommitment: p });
                }
            }
        }
    }
    matches.sort_unstable_by_key(|m| (m.deposit, m.precommitment));
    Ok(matches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notes::{deposit_rho, note_commitment, owner, precommitment};

    fn pre(counter: u32) -> Digest {
        let sk = Digest::ZERO;
        precommitment(&owner(&sk), &deposit_rho(&sk, counter))
    }

    #[test]
    fn finds_each_deposit_of_a_precommitment_and_nothing_else() {
        let pres = [pre(0), pre(1), pre(2)];
        let other = pre(9);
        let deposits = [
            Deposit { amount: 5, commitment: note_commitment(5, &other).unwrap() },
            Deposit { amount: 7, commitment: note_commitment(7, &pres[2]).unwrap() },
            Deposit { amount: 5, commitment: note_commitment(5, &pres[0]).unwrap() },
            // The right precommitment under another amount is not this deposit.
            Deposit { amount: 6, commitment: note_commitment(5, &pres[1]).unwrap() },
            Deposit { amount: 5, commitment: note_commitment(5, &pres[1]).unwrap() },
        ];
        let found = deposit_matches(&pres, &deposits).unwrap();
        assert_eq!(
            found,
            [
                DepositMatch { deposit: 1, precommitment: 2 },
                DepositMatch { deposit: 2, precommitment: 0 },
                DepositMatch { deposit: 4, precommitment: 1 },
            ]
        );
        assert!(deposit_matches(&[], &deposits).unwrap().is_empty());
        assert!(deposit_matches(&pres, &[]).unwrap().is_empty());
    }

    #[test]
    fn refuses_an_amount_no_pool_accepts() {
        let deposits = [Deposit { amount: 1 << 62, commitment: Digest::ZERO }];
        assert!(matches!(
            deposit_matches(&[pre(0)], &deposits),
            Err(CoreError::ValueOutOfRange { .. })
        ));
    }
}
