//! Builds the spend trace from a witness, with the core's hash functions as the only source of
//! truth: every permutation input is assembled from already-derived values, and the output of
//! each statement permutation is checked against the core's digest.

use alloc::vec;

use p3_field::PrimeCharacteristicRing;
use p3_matrix::dense::RowMajorMatrix;
use priv_stark_core::{
    Digest, Felt,
    rpo::{STATE_WIDTH, State},
    sponge::{DOMAIN_LANE, LENGTH_LANE, initial_state},
    tree::DEPTH,
};

use crate::{
    layout::{
        COL_ACC, COL_BIT, COL_KEY, COL_REG, NUM_HASHES, P_CHANGE_NOTE, P_CHANGE_PRE, P_CHANGE_RHO,
        P_CONTEXT, P_MERKLE, P_NOTE, P_NULLIFIER, P_OWNER, P_PRE, RANGE_BITS, RANGE_START,
        TRACE_ROWS, TRACE_WIDTH, hash_kind, input_row, output_row,
    },
    rpo_air::{CYCLE, HASH_WIDTH, permutation_rows},
    statement::{SpendValues, SpendWitness},
};

fn hash_input(p: usize, rate: [Felt; 8]) -> State {
    hash_input_of(hash_kind(p), rate)
}

/// The initial state of a hash of `kind` (its length and domain) with rate lanes `rate`.
pub(crate) fn hash_input_of(kind: (usize, priv_stark_core::Domain), rate: [Felt; 8]) -> State {
    let (len, domain) = kind;
    let mut state = initial_state(domain, len);
    debug_assert_eq!(state[LENGTH_LANE], Felt::from_usize(len));
    debug_assert_eq!(state[DOMAIN_LANE], domain.tag());
    state[..8].copy_from_slice(&rate);
    state
}

/// Rate lanes holding two digests.
pub(crate) fn pair(left: &Digest, right: &Digest) -> [Felt; 8] {
    let mut rate = [Felt::ZERO; 8];
    rate[..4].copy_from_slice(&left.0);
    rate[4..].copy_from_slice(&right.0);
    rate
}

/// Rate lanes of a note hash: the value, then the precommitment.
pub(crate) fn note(value: u64, precommitment: &Digest) -> [Felt; 8] {
    let mut rate = [Felt::ZERO; 8];
    rate[0] = Felt::from_u64(value);
    rate[1..5].copy_from_slice(&precommitment.0);
    rate
}

/// The permutation inputs of the 64 cycles.
fn permutation_inputs(witness: &SpendWitness, values: &SpendValues) -> [State; TRACE_ROWS / CYCLE] {
    let sk = &witness.spending_key;
    let mut inputs = [[Felt::ZERO; STATE_WIDTH]; TRACE_ROWS / CYCLE];
    inputs[P_OWNER] = hash_input(P_OWNER, pair(sk, &Digest::ZERO));
    inputs[P_CHANGE_RHO] = hash_input(P_CHANGE_RHO, pair(sk, &values.nullifier));
    inputs[P_CHANGE_PRE] = hash_input(P_CHANGE_PRE, pair(&values.owner, &values.change_rho));
    inputs[P_CHANGE_NOTE] =
        hash_input(P_CHANGE_NOTE, note(values.change_value, &values.change_precommitment));
    inputs[P_PRE] = hash_input(P_PRE, pair(&values.owner, &witness.rho));
    inputs[P_NOTE] = hash_input(P_NOTE, note(witness.value, &values.precommitment));
    let mut current = values.commitment;
    for (level, sibling) in witness.path.iter().enumerate() {
        let rate = if (witness.index >> level) & 1 == 0 {
            pair(&current, sibling)
        } else {
            pair(sibling, &current)
        };
        inputs[P_MERKLE + level] = hash_input(P_MERKLE + level, rate);
        current = values.nodes[level];
    }
    inputs[P_NULLIFIER] = hash_input(P_NULLIFIER, pair(sk, &values.commitment));
    inputs[P_CONTEXT][..4].copy_from_slice(&witness.context.0);
    inputs
}

/// The trace of `witness`, whose values `values` come from [`SpendWitness::derive`].
pub fn build_trace(witness: &SpendWitness, values: &SpendValues) -> RowMajorMatrix<Felt> {
    let mut trace = vec![Felt::ZERO; TRACE_ROWS * TRACE_WIDTH];
    let inputs = permutation_inputs(witness, values);
    for (p, input) in inputs.iter().enumerate() {
        let mut rows = [[Felt::ZERO; HASH_WIDTH]; CYCLE];
        let output = permutation_rows(input, &mut rows);
        if p < NUM_HASHES {
            debug_assert_eq!(&output[..4], &expected_output(p, values).0[..]);
        }
        for (r, row) in rows.iter().enumerate() {
            let start = (input_row(p) + r) * TRACE_WIDTH;
            trace[start..start + HASH_WIDTH].copy_from_slice(row);
        }
    }

    let change_value = values.change_value;
    for row in 0..TRACE_ROWS {
        let cells = &mut trace[row * TRACE_WIDTH..(row + 1) * TRACE_WIDTH];
        cells[COL_KEY..COL_KEY + 4].copy_from_slice(&witness.spending_key.0);
        let reg = if row < output_row(P_NOTE) { &values.owner } else { &values.commitment };
        cells[COL_REG..COL_REG + 4].copy_from_slice(&reg.0);
        let shift = row.saturating_sub(RANGE_START).min(RANGE_BITS);
        cells[COL_ACC] = Felt::from_u64(change_value >> shift);
        if (RANGE_START..RANGE_START + RANGE_BITS).contains(&row) {
            cells[COL_BIT] = Felt::from_u64((change_value >> (row - RANGE_START)) & 1);
        }
    }
    for level in 0..DEPTH {
        let row = input_row(P_MERKLE + level);
        trace[row * TRACE_WIDTH + COL_BIT] = Felt::from_u64((witness.index >> level) & 1);
    }
    RowMajorMatrix::new(trace, TRACE_WIDTH)
}

/// The digest the core computes for statement permutation `p` (a debug cross-check).
fn expected_output(p: usize, values: &SpendValues) -> Digest {
    match p {
        P_OWNER => values.owner,
        P_CHANGE_RHO => values.change_rho,
        P_CHANGE_PRE => values.change_precommitment,
        P_CHANGE_NOTE => values.change,
        P_PRE => values.precommitment,
        P_NOTE => values.commitment,
        P_NULLIFIER => values.nullifier,
        merkle => values.nodes[merkle - P_MERKLE],
    }
}
