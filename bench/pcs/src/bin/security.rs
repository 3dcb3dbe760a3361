//! The security of every accepted parameter set (spend 3 and 2, transition 17 and 16) recomputed
//! with p3-security 0.9.0-rc.2, from the estimator's inputs the product computes for each set's
//! own AIR (`cargo run -p priv-stark-proof --example measure -- security-inputs`, one JSON line
//! per set on standard input), beside the bits p3-security 0.8 gives them. Grinding is reported
//! apart: the same figures with every proof-of-work site at zero.
//!
//! Prints one JSON line per set.

use std::io::BufRead;

use p3_security::{
    GrindingSites, InstanceShape, StarkAirParams,
    fri::FriRegime,
    stark::{conjectured_security_report, proven_security_report},
};
use serde_json::{Value, json};

/// The figures of one configuration: conjectured, proven list-decoding (Johnson bound) and
/// proven unique-decoding bits, floored as the product reports them.
fn bits(
    ldt: &FriRegime,
    air: &StarkAirParams,
    shape: &InstanceShape,
    grinding: &GrindingSites,
) -> Value {
    let conjectured = conjectured_security_report(ldt, air, shape, &[], grinding).security_bits();
    let proven = proven_security_report(ldt, air, shape, &[], grinding);
    json!({
        "conjectured": conjectured.floor(),
        "provenListDecoding": proven.ldr.as_ref().map(|r| r.security_bits().floor()),
        "provenUniqueDecoding": proven.udr.security_bits().floor(),
        "binding": proven.ldr.as_ref().map(|r| r.binding().label),
    })
}

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        if !line.starts_with('{') {
            continue;
        }
        let input: Value = serde_json::from_str(&line).expect("a JSON line");
        let n = |key: &str| -> usize {
            usize::try_from(input[key].as_u64().unwrap_or_else(|| panic!("{key}"))).expect(key)
        };
        let ldt = FriRegime {
            log_blowup: n("logBlowup"),
            num_queries: n("numQueries"),
            log_final_poly_len: n("logFinalPolyLen"),
            max_log_arity: n("maxLogArity"),
            commit_pow_bits: n("commitPowBits"),
            query_pow_bits: n("queryPowBits"),
        };
        let air = StarkAirParams {
            num_constraints: n("numConstraints"),
            max_constraint_degree: n("maxConstraintDegree"),
            num_quotient_chunks: n("numQuotientChunks"),
            max_combo: n("maxCombo"),
        };
        let shape = InstanceShape {
            log_trace_length: n("logTraceLength"),
            modulus_bits: n("modulusBits"),
            collision_resistance: n("collisionResistance"),
            num_batched_functions: n("numBatchedFunctions"),
        };
        let grinding = GrindingSites {
            out_of_domain: n("outOfDomainPowBits"),
            batch_combination: n("batchPowBits"),
            lookup_challenge: 0,
        };
        let without = FriRegime { commit_pow_bits: 0, query_pow_bits: 0, ..ldt };
        println!(
            "{}",
            json!({
                "statement": input["statement"],
                "set": input["set"],
                "bits08": input["bits08"],
                "bits09": bits(&ldt, &air, &shape, &grinding),
                "bits09WithoutGrinding": bits(&without, &air, &shape, &GrindingSites::NONE),
                "grindingBits": input["queryPowBits"],
            })
        );
    }
}
