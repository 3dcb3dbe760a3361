//! Prints Plonky3's security estimate for a grid of parameter sets (tuning aid).
use priv_stark_proof::{
    params::{PARAMETER_SET, ParameterSet},
    security::{security_level, security_reports},
};

fn main() {
    let (conj, proven) = security_reports(&PARAMETER_SET);
    println!("current: {:?}\n{conj:#?}\n{proven:#?}", security_level(&PARAMETER_SET));
    for log_blowup in [2, 3, 4, 5, 6] {
        for pow in [16, 20] {
            for arity in [1, 2, 3, 4] {
                // smallest query count reaching 128, then 120
                for target in [128, 120] {
                    let mut found = None;
                    for q in 8..120 {
                        let p = ParameterSet {
                            log_blowup,
                            num_queries: q,
                            query_pow_bits: pow,
                            max_log_arity: arity,
                            ..PARAMETER_SET
                        };
                        let level = security_level(&p);
                        if level.conjectured_bits >= target {
                            found = Some((q, level));
                            break;
                        }
                    }
                    println!(
                        "blowup 2^{log_blowup} pow {pow} arity 2^{arity} target {target}: {found:?}"
                    );
                }
            }
        }
    }
}
