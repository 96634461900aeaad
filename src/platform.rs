//! What runs: the instruction-set level the kernels use (chosen at run time, see
//! [`crate::simd`]), the CPU's features, and the features the build itself targets.

use crate::simd::Simd;

/// The SIMD-relevant features this CPU has (detected at run time), e.g.
/// `"avx512f avx512vl avx512vbmi2 avx512vnni avx2 fma"`, or `"neon"` on aarch64.
pub fn cpu_features() -> String {
    let mut active: Vec<&str> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let features: [(&str, bool); 10] = [
            ("avx512f", has!("avx512f")),
            ("avx512bw", has!("avx512bw")),
            ("avx512dq", has!("avx512dq")),
            ("avx512vl", has!("avx512vl")),
            ("avx512vbmi2", has!("avx512vbmi2")),
            ("avx512vnni", has!("avx512vnni")),
            ("avxvnni", has!("avxvnni")),
            ("avx2", has!("avx2")),
            ("fma", has!("fma")),
            ("bmi2", has!("bmi2")),
        ];
        active.extend(features.iter().filter(|(_, on)| *on).map(|(name, _)| *name));
    }
    #[cfg(target_arch = "aarch64")]
    if std::arch::is_aarch64_feature_detected!("neon") {
        active.push("neon");
    }
    if active.is_empty() { "baseline".into() } else { active.join(" ") }
}

/// The baseline the build targets (what code outside the SIMD layer's entry points may
/// use): `x86-64` (SSE2), `x86-64-v3`, `x86-64-v4` or `aarch64`.
pub fn build_target() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "aarch64"
    } else if cfg!(target_feature = "avx512f") {
        "x86-64-v4"
    } else if cfg!(target_feature = "avx2") {
        "x86-64-v3"
    } else if cfg!(target_arch = "x86_64") {
        "x86-64"
    } else {
        std::env::consts::ARCH
    }
}

/// One header line for the CLI and the benches: the level that runs, what the CPU has
/// and what the build targets.
pub fn header(simd: Simd) -> String {
    format!(
        "gamecount {} · simd {} (cpu: {}; build: {}) · {} cores available",
        env!("CARGO_PKG_VERSION"),
        simd.name(),
        cpu_features(),
        build_target(),
        crate::sched::Scheduler::available_cores()
    )
}
