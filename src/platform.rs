//! What the binary was compiled for: `wide` picks its instruction set at compile time,
//! so every figure the CLI or a bench prints says which features were active.

/// The SIMD-relevant target features this build was compiled with, e.g.
/// `"avx512f avx512bw avx512dq avx512vl avx512ifma avx512vnni avx512vbmi2 avx2 fma sse4.2"`, or `"sse2"` for a
/// portable x86-64 build.
pub fn target_features() -> String {
    let features: [(&str, bool); 10] = [
        ("avx512f", cfg!(target_feature = "avx512f")),
        ("avx512bw", cfg!(target_feature = "avx512bw")),
        ("avx512dq", cfg!(target_feature = "avx512dq")),
        ("avx512vl", cfg!(target_feature = "avx512vl")),
        ("avx512ifma", cfg!(target_feature = "avx512ifma")),
        ("avx512vnni", cfg!(target_feature = "avx512vnni")),
        ("avx512vbmi2", cfg!(target_feature = "avx512vbmi2")),
        ("avx2", cfg!(target_feature = "avx2")),
        ("fma", cfg!(target_feature = "fma")),
        ("sse4.2", cfg!(target_feature = "sse4.2")),
    ];
    let active: Vec<&str> = features.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
    if active.is_empty() {
        if cfg!(target_feature = "sse2") { "sse2".into() } else { "none".into() }
    } else {
        active.join(" ")
    }
}

/// The widest SIMD level `wide` uses in this build: `avx512`, `avx2`, `sse` or `scalar`.
pub fn simd_level() -> &'static str {
    if cfg!(target_feature = "avx512f") {
        "avx512"
    } else if cfg!(target_feature = "avx2") {
        "avx2"
    } else if cfg!(target_feature = "sse2") {
        "sse"
    } else {
        "scalar"
    }
}

/// One header line for the CLI and the benches.
pub fn header() -> String {
    format!(
        "gamecount {} · simd {} ({}) · {} cores available",
        env!("CARGO_PKG_VERSION"),
        simd_level(),
        target_features(),
        crate::sched::Scheduler::available_cores()
    )
}
