//! Builds the transition trace from a witness, with the core's hash functions as the only source
//! of truth (as [`crate::trace`] does for the spend trace).

use alloc::vec;

use p3_field::{Field, PrimeCharacteristicRing};
use p3_matrix::dense::RowMajorMatrix;
use priv_stark_core::{
    Digest, Felt,
    rpo::{STATE_WIDTH, State},
    tree::DEPTH,
};

use super::{
    layout::{
        COL_BIT, COL_INV, COL_KEY, COL_OWNER, COL_REAL, COL_REG, COL_VIN, COL_VOUT,
        MIN_OUTPUT_VALUE, P_CONTEXT, P_MEMO, P_OWNER, P_REFUND_NOTE, P_REFUND_PRE, P_REFUND_RHO,
        RANGE_BITS, Revision, TRACE_ROWS, hash_kind, input_row, output_row, p_input_merkle,
        p_input_note, p_input_nullifier, p_input_pre, p_output_note, p_output_pre, p_output_rho,
        window_column,
    },
    statement::{TransitionValues, TransitionWitness},
};
use crate::{
    rpo_air::{CYCLE, HASH_WIDTH, permutation_rows},
    trace::{hash_input_of, note, pair},
};

fn hash_input(p: usize, rate: [Felt; 8]) -> State {
    hash_input_of(hash_kind(p), rate)
}

/// The permutation inputs of the 128 cycles.
fn permutation_inputs(
    revision: Revision,
    witness: &TransitionWitness,
    values: &TransitionValues,
) -> [State; TRACE_ROWS / CYCLE] {
    let sk = &witness.spending_key;
    let mut inputs = [[Felt::ZERO; STATE_WIDTH]; TRACE_ROWS / CYCLE];
    inputs[P_OWNER] = hash_input(P_OWNER, pair(sk, &Digest::ZERO));
    for (i, (input, derived)) in witness.inputs.iter().zip(&values.inputs).enumerate() {
        inputs[p_input_pre(i)] = hash_input(p_input_pre(i), pair(&values.owner, &input.rho));
        inputs[p_input_note(i)] =
            hash_input(p_input_note(i), note(input.value, &derived.precommitment));
        let mut current = derived.commitment;
        for (level, sibling) in input.path.iter().enumerate() {
            let rate = if (input.index >> level) & 1 == 0 {
                pair(&current, sibling)
            } else {
                pair(sibling, &current)
            };
            inputs[p_input_merkle(i) + level] = hash_input(p_input_merkle(i) + level, rate);
            current = derived.nodes[level];
        }
        inputs[p_input_nullifier(i)] =
            hash_input(p_input_nullifier(i), pair(sk, &derived.commitment));
    }
    let first = values.inputs[0].nullifier;
    for (j, output) in values.outputs.iter().enumerate() {
        inputs[p_output_rho(j)] = hash_input(p_output_rho(j), pair(sk, &first));
        inputs[p_output_pre(j)] = hash_input(p_output_pre(j), pair(&values.owner, &output.rho));
        inputs[p_output_note(j)] =
            hash_input(p_output_note(j), note(witness.outputs[j], &output.precommitment));
    }
    inputs[P_REFUND_RHO] = hash_input(P_REFUND_RHO, pair(sk, &first));
    inputs[P_REFUND_PRE] = hash_input(P_REFUND_PRE, pair(&values.owner, &values.refund.rho));
    inputs[P_REFUND_NOTE] =
        hash_input(P_REFUND_NOTE, note(witness.exit, &values.refund.precommitment));
    inputs[P_CONTEXT][..4].copy_from_slice(&witness.context.0);
    if revision == Revision::Two {
        inputs[P_MEMO] = hash_input(P_MEMO, pair(sk, &first));
    }
    inputs
}

/// The trace of `witness` for the AIR of `revision`, whose values `values` come from
/// [`TransitionWitness::derive`].
pub fn build_trace(
    revision: Revision,
    witness: &TransitionWitness,
    values: &TransitionValues,
) -> RowMajorMatrix<Felt> {
    let width = revision.width();
    let mut trace = vec![Felt::ZERO; TRACE_ROWS * width];
    for (p, input) in permutation_inputs(revision, witness, values).iter().enumerate() {
        let mut rows = [[Felt::ZERO; HASH_WIDTH]; CYCLE];
        // The output is in `rows`; the prover's constraint check compares it with the pins.
        let _output = permutation_rows(input, &mut rows);
        for (r, row) in rows.iter().enumerate() {
            let start = (input_row(p) + r) * width;
            trace[start..start + HASH_WIDTH].copy_from_slice(row);
        }
    }

    let real = witness.outputs.map(|value| u64::from(value != 0));
    // What each range window accumulates: `w_j − d_j·MIN`, then (revision two) `w_j`.
    let ranged: [u64; 4] = core::array::from_fn(|k| {
        if k < 2 { witness.outputs[k] - real[k] * MIN_OUTPUT_VALUE } else { witness.outputs[k - 2] }
    });
    let second_load = output_row(p_input_note(1));
    // `derive` refused a first input of 0; the inverse is only read on the first row.
    let inverse = Felt::from_u64(witness.inputs[0].value).try_inverse().unwrap_or(Felt::ZERO);
    for row in 0..TRACE_ROWS {
        let cells = &mut trace[row * width..(row + 1) * width];
        cells[COL_KEY..COL_KEY + 4].copy_from_slice(&witness.spending_key.0);
        cells[COL_OWNER..COL_OWNER + 4].copy_from_slice(&values.owner.0);
        cells[COL_INV] = inverse;
        let reg = if row < second_load {
            &values.inputs[0].commitment
        } else {
            &values.inputs[1].commitment
        };
        cells[COL_REG..COL_REG + 4].copy_from_slice(&reg.0);
        for j in 0..2 {
            cells[COL_VIN + j] = Felt::from_u64(witness.inputs[j].value);
            cells[COL_VOUT + j] = Felt::from_u64(witness.outputs[j]);
            cells[COL_REAL + j] = Felt::from_u64(real[j]);
        }
        for (k, &value) in ranged.iter().enumerate().take(revision.num_windows()) {
            let start = revision.window_start(k);
            let shift = row.saturating_sub(start).min(RANGE_BITS);
            cells[window_column(k)] = Felt::from_u64(value >> shift);
            if (start..start + RANGE_BITS).contains(&row) {
                cells[COL_BIT] = Felt::from_u64((value >> (row - start)) & 1);
            }
        }
    }
    for (i, input) in witness.inputs.iter().enumerate() {
        for level in 0..DEPTH {
            let row = input_row(p_input_merkle(i) + level);
            trace[row * width + COL_BIT] = Felt::from_u64((input.index >> level) & 1);
        }
    }
    RowMajorMatrix::new(trace, width)
}
