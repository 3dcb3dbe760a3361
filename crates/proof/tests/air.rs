//! AIR-level soundness: the honest trace satisfies every constraint, its hash outputs are the
//! core's digests, and no initial sponge lane, register, bit or range value is free: changing any
//! of them (and recomputing the affected permutation so the rounds still hold) violates a
//! wiring constraint exactly where the statement pins it.

use crate::common;

use p3_air::check_all_constraints;
use p3_field::{PrimeCharacteristicRing, PrimeField64};
use p3_matrix::dense::RowMajorMatrix;
use priv_stark_core::{Domain, Felt, rpo::STATE_WIDTH, sponge::hash_elements};
use priv_stark_proof::{
    air::SpendAir,
    layout::{
        COL_ACC, COL_BIT, COL_KEY, COL_REG, NUM_HASHES, P_CONTEXT, P_MERKLE, P_NULLIFIER, P_PRE,
        RANGE_START, TRACE_ROWS, TRACE_WIDTH, input_row, output_row,
    },
    rpo_air::{CYCLE, HASH_WIDTH, MDS_INVERSE_FIRST_ROW, circulant, permutation_rows},
    statement::{PublicInputs, SpendValues, SpendWitness},
    trace::build_trace,
};

fn honest() -> (SpendWitness, SpendValues, RowMajorMatrix<Felt>, [Felt; 17]) {
    let scenario = common::scenario(3);
    let values = scenario.witness.derive().unwrap();
    let trace = build_trace(&scenario.witness, &values);
    let public = scenario.public_inputs.to_field_elements();
    (scenario.witness, values, trace, public)
}

fn failures_at(trace: &RowMajorMatrix<Felt>, public: &[Felt], rows: &[usize]) -> usize {
    let report = check_all_constraints(&SpendAir::new(), trace, public, None);
    report.failures.iter().filter(|failure| rows.contains(&failure.row)).count()
}

fn total_failures(trace: &RowMajorMatrix<Felt>, public: &[Felt]) -> usize {
    check_all_constraints(&SpendAir::new(), trace, public, None).failures.len()
}

/// Replaces the input state of permutation `p` and recomputes its 8 rows.
fn replace_input(trace: &mut RowMajorMatrix<Felt>, p: usize, edit: impl FnOnce(&mut [Felt; 12])) {
    let start = input_row(p) * TRACE_WIDTH;
    let mut input: [Felt; STATE_WIDTH] = core::array::from_fn(|i| trace.values[start + i]);
    edit(&mut input);
    let mut rows = [[Felt::ZERO; HASH_WIDTH]; CYCLE];
    let _output = permutation_rows(&input, &mut rows);
    for (r, row) in rows.iter().enumerate() {
        let offset = (input_row(p) + r) * TRACE_WIDTH;
        trace.values[offset..offset + HASH_WIDTH].copy_from_slice(row);
    }
}

#[test]
fn mds_inverse_is_the_inverse() {
    for i in 0..STATE_WIDTH {
        for j in 0..STATE_WIDTH {
            let entry = (0..STATE_WIDTH).fold(Felt::ZERO, |acc, k| {
                acc + Felt::from_u64(circulant(&priv_stark_core::rpo::MDS_FIRST_ROW, i, k))
                    * Felt::from_u64(circulant(&MDS_INVERSE_FIRST_ROW, k, j))
            });
            assert_eq!(entry, Felt::from_bool(i == j), "({i}, {j})");
        }
    }
}

#[test]
fn honest_traces_satisfy_the_air() {
    for seed in [3, 4, 5] {
        let scenario = common::scenario(seed);
        let values = scenario.witness.derive().unwrap();
        let trace = build_trace(&scenario.witness, &values);
        let public = scenario.public_inputs.to_field_elements();
        assert_eq!(total_failures(&trace, &public), 0);
        // Must-fail twin: the same trace against another statement's public values.
        let other = common::scenario(seed + 10).public_inputs.to_field_elements();
        assert!(total_failures(&trace, &other) > 0);
    }
}

#[test]
fn trace_outputs_are_the_core_digests() {
    let (_, values, trace, _) = honest();
    let digest_at = |p: usize| -> [Felt; 4] {
        let start = output_row(p) * TRACE_WIDTH;
        core::array::from_fn(|i| trace.values[start + i])
    };
    assert_eq!(digest_at(0), values.owner.0);
    assert_eq!(digest_at(1), values.change_rho.0);
    assert_eq!(digest_at(2), values.change_precommitment.0);
    assert_eq!(digest_at(3), values.change.0);
    assert_eq!(digest_at(4), values.precommitment.0);
    assert_eq!(digest_at(5), values.commitment.0);
    for level in 0..32 {
        assert_eq!(digest_at(P_MERKLE + level), values.nodes[level].0);
    }
    assert_eq!(digest_at(P_NULLIFIER), values.nullifier.0);
}

/// Lanes a prover may choose: `rho` and each Merkle sibling (on the side given by the bit), and
/// every lane of the padding permutations but the pinned `ctx`.
fn is_witness_lane(witness: &SpendWitness, p: usize, lane: usize) -> bool {
    match p {
        P_PRE => (4..8).contains(&lane),
        merkle if (P_MERKLE..P_MERKLE + 32).contains(&merkle) => {
            let bit = (witness.index >> (merkle - P_MERKLE)) & 1;
            if bit == 0 { (4..8).contains(&lane) } else { lane < 4 }
        }
        _ => false,
    }
}

#[test]
fn no_initial_sponge_lane_is_free() {
    let (witness, _, trace, public) = honest();
    for p in 0..NUM_HASHES {
        for lane in 0..STATE_WIDTH {
            let mut forged = trace.clone();
            replace_input(&mut forged, p, |state| state[lane] += Felt::ONE);
            let rows = [input_row(p) - usize::from(p > 0), input_row(p)];
            let found = failures_at(&forged, &public, &rows);
            if is_witness_lane(&witness, p, lane) {
                assert_eq!(found, 0, "witness lane {lane} of permutation {p} is pinned");
            } else {
                assert!(found > 0, "lane {lane} of permutation {p} is free");
            }
        }
    }
    // The padding permutation carrying ctx: lanes 0..4 pinned, the rest free.
    for lane in 0..STATE_WIDTH {
        let mut forged = trace.clone();
        replace_input(&mut forged, P_CONTEXT, |state| state[lane] += Felt::ONE);
        let found = failures_at(&forged, &public, &[input_row(P_CONTEXT)]);
        assert_eq!(found > 0, lane < 4, "ctx lane {lane}");
    }
}

#[test]
fn registers_bits_and_accumulator_are_constrained() {
    let (_, _, trace, public) = honest();
    let cell = |row: usize, column: usize| row * TRACE_WIDTH + column;
    let rows = [0, 7, 20, 46, 47, 200, 304, TRACE_ROWS - 1];
    for &row in &rows {
        for column in [COL_KEY, COL_KEY + 3, COL_REG, COL_REG + 2, COL_ACC] {
            let mut forged = trace.clone();
            forged.values[cell(row, column)] += Felt::ONE;
            assert!(total_failures(&forged, &public) > 0, "row {row} column {column}");
        }
    }
    // A non-binary bit anywhere.
    for row in [0, input_row(P_MERKLE + 5), 330, 400] {
        let mut forged = trace.clone();
        forged.values[cell(row, COL_BIT)] = Felt::TWO;
        assert!(total_failures(&forged, &public) > 0, "bit at row {row}");
    }
    // Flipping a Merkle path bit without swapping the halves.
    let mut forged = trace.clone();
    let row = input_row(P_MERKLE + 7);
    forged.values[cell(row, COL_BIT)] = Felt::ONE - forged.values[cell(row, COL_BIT)];
    assert!(failures_at(&forged, &public, &[row - 1]) > 0);
}

/// A change value that wraps around (v < amount) cannot pass the 62-bit range check, even with
/// every hash computed consistently.
#[test]
fn wrapped_change_value_violates_the_range_check() {
    let scenario = common::scenario(6);
    let mut witness = scenario.witness.clone();
    witness.amount = witness.value + 1000;
    let wrapped = Felt::from_u64(witness.value) - Felt::from_u64(witness.amount);
    let mut values = SpendWitness { amount: 1, ..witness.clone() }.derive().unwrap();
    values.change_value = wrapped.as_canonical_u64();
    let mut input = [Felt::ZERO; 5];
    input[0] = wrapped;
    input[1..].copy_from_slice(&values.change_precommitment.0);
    values.change = hash_elements(Domain::Note, &input);
    // The nullifier and change branch do not depend on the amount: recompute only the change.
    let trace = build_trace(&witness, &values);
    let public = PublicInputs::new(
        values.root(),
        values.nullifier,
        values.change,
        witness.amount,
        witness.context,
    )
    .unwrap()
    .to_field_elements();
    let report = check_all_constraints(&SpendAir::new(), &trace, &public, None);
    assert!(!report.failures.is_empty());
    // Only the range check fails: the window or the final `acc = 0`.
    assert!(report.failures.iter().all(|f| f.row >= RANGE_START), "{:?}", report.failures);
}

/// End to end: a prover that skips the witness checks and proves the wrapped-value trace with
/// Plonky3 directly gets a proof the verifier rejects. (Plonky3's prover asserts the constraints
/// in debug builds, so this runs in release: `cargo test --release -p priv-stark-proof`.)
#[test]
#[cfg_attr(debug_assertions, ignore = "Plonky3's debug prover refuses the forged trace")]
fn forged_trace_proof_is_rejected() {
    use priv_stark_proof::{
        config::build_config, encoding::proof_header, params::PARAMETER_SET,
        transcript::transcript_prefix, verifier::verify,
    };
    let scenario = common::scenario(6);
    let mut witness = scenario.witness.clone();
    witness.amount = witness.value + 1000;
    let wrapped = Felt::from_u64(witness.value) - Felt::from_u64(witness.amount);
    let mut values = SpendWitness { amount: 1, ..witness.clone() }.derive().unwrap();
    values.change_value = wrapped.as_canonical_u64();
    let mut input = [Felt::ZERO; 5];
    input[0] = wrapped;
    input[1..].copy_from_slice(&values.change_precommitment.0);
    values.change = hash_elements(Domain::Note, &input);
    let trace = build_trace(&witness, &values);
    let public = PublicInputs::new(
        values.root(),
        values.nullifier,
        values.change,
        witness.amount,
        witness.context,
    )
    .unwrap();
    let config = build_config(&PARAMETER_SET, &transcript_prefix(&PARAMETER_SET), [9; 32]);
    let proof =
        p3_uni_stark::prove(&config, SpendAir::shared(), trace, &public.to_field_elements())
            .expect("Plonky3's release prover does not check the trace");
    let mut bytes = proof_header(PARAMETER_SET.id).to_vec();
    bytes.extend(postcard::to_allocvec(&proof).unwrap());
    assert_eq!(verify(&bytes, &public).unwrap_err().code(), "invalid_proof");
}

/// Every one of the 17 public values is pinned by a constraint, not only absorbed into the
/// transcript: changing any one of them alone violates the AIR.
#[test]
fn every_public_value_is_pinned_by_a_constraint() {
    let (_, _, trace, public) = honest();
    for index in 0..public.len() {
        let mut other = public;
        other[index] += Felt::ONE;
        assert!(total_failures(&trace, &other) > 0, "public value {index} is not pinned");
    }
}
