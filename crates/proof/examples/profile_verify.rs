//! Times the phases of one verification (tuning aid).
use std::time::Instant;

use p3_air::symbolic::AirLayout;
use priv_stark_proof::{
    air::SpendAir, builder::random_spend, config::build_config, encoding::HEADER_BYTES,
    params::PARAMETER_SET, prover::prove, shape::check_shape, transcript::transcript_prefix,
    verifier::decode_body,
};
use rand::{SeedableRng, rngs::StdRng};

fn main() {
    let mut rng = StdRng::seed_from_u64(1);
    let scenario = random_spend(&mut rng, 5_000_000, 1_250_000, 40).unwrap();
    let proof = prove(&scenario.witness, [3; 32]).unwrap();
    let public = scenario.public_inputs.to_field_elements();
    for _ in 0..3 {
        let t = Instant::now();
        let stark = decode_body(&proof.bytes[HEADER_BYTES..]).unwrap();
        let t_decode = t.elapsed();
        let t = Instant::now();
        check_shape(&stark, &PARAMETER_SET).unwrap();
        let t_shape = t.elapsed();
        let t = Instant::now();
        let air = SpendAir::new();
        let t_air = t.elapsed();
        let t = Instant::now();
        let config = build_config(&PARAMETER_SET, &transcript_prefix(&PARAMETER_SET), [0; 32]);
        let t_config = t.elapsed();
        let t = Instant::now();
        let (base, ext) = p3_air::symbolic::get_all_symbolic_constraints::<
            priv_stark_core::Felt,
            priv_stark_core::Felt,
            _,
        >(&air, AirLayout::from_air(&air));
        println!("build {:?} ({} + {} constraints)", t.elapsed(), base.len(), ext.len());
        let t = Instant::now();
        let _ = p3_uni_stark::get_log_num_quotient_chunks::<priv_stark_core::Felt, _>(
            &air,
            AirLayout::from_air(&air),
            512,
            1,
        );
        let t_symbolic = t.elapsed();
        let t = Instant::now();
        p3_uni_stark::verify(&config, &air, &stark, &public).unwrap();
        let t_verify = t.elapsed();
        println!(
            "decode {t_decode:?} shape {t_shape:?} air {t_air:?} config {t_config:?} symbolic {t_symbolic:?} p3 verify {t_verify:?}"
        );
    }
}
