//! Which instruction set runs: the levels, their detection (once per process) and the
//! [`Simd`] token that proves a level is available.

use std::sync::OnceLock;

/// An instruction-set level, from the most portable to the widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// `wide` at the build's baseline (SSE2 on x86-64, NEON on aarch64).
    Portable,
    /// AVX2 with FMA and BMI2 (x86-64-v3).
    Avx2,
    /// AVX2 with AVX-VNNI, the 256-bit `vpdpwssd` (Intel cores from Alder Lake on).
    Avx2Vnni,
    /// AVX-512 F/BW/DQ/VL with IFMA, VBMI2 and VNNI (Ice Lake, Zen 4 and later).
    Avx512,
    /// NEON intrinsics (aarch64).
    Neon,
}

impl Level {
    /// Every level, in the order `--simd` lists them.
    pub const ALL: [Level; 5] = [Level::Portable, Level::Avx2, Level::Avx2Vnni, Level::Avx512, Level::Neon];

    /// The name `--simd`, the header and the JSON field `simd` use.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Avx2 => "avx2",
            Level::Avx2Vnni => "avx2-vnni",
            Level::Avx512 => "avx512",
            Level::Neon => "neon",
        }
    }

    /// Whether this CPU can run the level's code (detected at run time, not the build's
    /// target features).
    pub fn is_detected(self) -> bool {
        match self {
            Level::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                    && std::arch::is_x86_feature_detected!("bmi1")
                    && std::arch::is_x86_feature_detected!("bmi2")
                    && std::arch::is_x86_feature_detected!("lzcnt")
                    && std::arch::is_x86_feature_detected!("popcnt")
            }
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Vnni => Level::Avx2.is_detected() && std::arch::is_x86_feature_detected!("avxvnni"),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => {
                Level::Avx2.is_detected()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512ifma")
                    && std::arch::is_x86_feature_detected!("avx512vbmi2")
                    && std::arch::is_x86_feature_detected!("avx512vnni")
            }
            #[cfg(target_arch = "aarch64")]
            Level::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A level this CPU has: the only way to run a [`multiversion!`](crate::multiversion)
/// kernel. It can only be made by detection, so holding one proves the instructions of
/// its level exist (the safety argument of every entry point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Simd {
    level: Level,
    /// In the library's own tests only: the `avx2-vnni` level's code run on a CPU that
    /// has the AVX2 set but not AVX-VNNI ([`Simd::tested`]).
    #[cfg(test)]
    emulated: bool,
}

/// A `--simd` or `GAMECOUNT_SIMD` value that names no level, or one this CPU lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimdError(pub String);

impl std::fmt::Display for SimdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimdError {}

impl Simd {
    /// The portable level, available everywhere.
    pub const fn portable() -> Self {
        Self::of(Level::Portable)
    }

    /// `level`, if this CPU has it.
    pub fn new(level: Level) -> Option<Self> {
        level.is_detected().then_some(Self::of(level))
    }

    /// The token of `level`, unchecked: every caller checks the level first.
    const fn of(level: Level) -> Self {
        Self {
            level,
            #[cfg(test)]
            emulated: false,
        }
    }

    /// Whether this token runs the `avx2-vnni` level's code with its `vpdpwssd` emulated
    /// on a CPU without AVX-VNNI, which only the library's tests do ([`Simd::tested`]);
    /// always false elsewhere.
    pub const fn is_emulated(self) -> bool {
        #[cfg(test)]
        return self.emulated;
        #[cfg(not(test))]
        false
    }

    /// The widest level this CPU has, detected once per process.
    pub fn best() -> Self {
        static BEST: OnceLock<Simd> = OnceLock::new();
        *BEST.get_or_init(|| *Self::available().last().expect("portable is always available"))
    }

    /// Every level this CPU has, the portable one first and the best last.
    pub fn available() -> Vec<Self> {
        Level::ALL.into_iter().filter_map(Self::new).collect()
    }

    /// Every level the checks of the kernels run: [`Simd::available`], and in the library's
    /// own tests, on a CPU with the AVX2 set but not AVX-VNNI, the `avx2-vnni` level
    /// besides. Its kernels then run in the AVX2 entry point, with AVX-VNNI's `vpdpwssd`
    /// replaced by `vpmaddwd` + `vpaddd`, which give the same wrapping sum
    /// (`simd::avx2::dots`). So the level's own arrangement of the kernels (which sums are
    /// fused, which path `x` takes) is checked against the reference on every AVX2
    /// machine, where the instruction itself can only run on a CPU that has it.
    pub fn tested() -> Vec<Self> {
        #[allow(unused_mut)]
        let mut levels = Self::available();
        #[cfg(test)]
        if Level::Avx2.is_detected() && !Level::Avx2Vnni.is_detected() {
            let at = levels.iter().position(|s| s.level > Level::Avx2Vnni).unwrap_or(levels.len());
            levels.insert(at, Self { level: Level::Avx2Vnni, emulated: true });
        }
        levels
    }

    /// The level a user asked for: `auto` (or nothing) is [`Simd::best`]; a named level
    /// must be one this CPU has. An empty name is refused: `--simd ''` is more likely a
    /// script's unset variable than a wish for `auto`.
    pub fn parse(name: Option<&str>) -> Result<Self, SimdError> {
        let names = || Level::ALL.map(Level::name).join(", ");
        let Some(name) = name.map(str::trim).filter(|n| *n != "auto") else {
            return Ok(Self::best());
        };
        if name.is_empty() {
            return Err(SimdError(format!("empty SIMD level; levels: auto, {}", names())));
        }
        let level = Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| SimdError(format!("unknown SIMD level '{name}'; levels: auto, {}", names())))?;
        Self::new(level).ok_or_else(|| {
            let have: Vec<&str> = Self::available().iter().map(|s| s.level.name()).collect();
            SimdError(format!("this CPU cannot run SIMD level {level}; it has: {}", have.join(", ")))
        })
    }

    /// The level `GAMECOUNT_SIMD` names, else `flag`'s, else the best: the flag wins over
    /// the environment.
    pub fn from_flag_or_env(flag: Option<&str>) -> Result<Self, SimdError> {
        match flag {
            Some(name) => Self::parse(Some(name)),
            None => match std::env::var("GAMECOUNT_SIMD") {
                // Set but empty is taken as unset, as shells make it easy to clear a variable
                // that way.
                Ok(name) if name.trim().is_empty() => Ok(Self::best()),
                Ok(name) => Self::parse(Some(&name)).map_err(|e| SimdError(format!("GAMECOUNT_SIMD: {e}"))),
                Err(_) => Ok(Self::best()),
            },
        }
    }

    /// The level.
    pub const fn level(self) -> Level {
        self.level
    }

    /// The level's name.
    pub const fn name(self) -> &'static str {
        self.level.name()
    }
}

impl std::fmt::Display for Simd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())?;
        if self.is_emulated() { f.write_str(" (vpdpwssd emulated)") } else { Ok(()) }
    }
}

/// The SIMD-relevant features this CPU has (detected at run time), e.g.
/// `"avx512f avx512vl avx512vbmi2 avx512vnni avx2 fma"`, or `"neon"` on aarch64.
pub fn cpu_features() -> String {
    let mut active: Vec<&str> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let features: [(&str, bool); 11] = [
            ("avx512f", has!("avx512f")),
            ("avx512bw", has!("avx512bw")),
            ("avx512dq", has!("avx512dq")),
            ("avx512vl", has!("avx512vl")),
            ("avx512ifma", has!("avx512ifma")),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_takes_auto_and_detected_levels_and_refuses_the_rest() {
        assert_eq!(Simd::parse(None), Ok(Simd::best()));
        assert_eq!(Simd::parse(Some("auto")), Ok(Simd::best()));
        assert_eq!(Simd::parse(Some("portable")), Ok(Simd::portable()));
        for level in Level::ALL {
            let parsed = Simd::parse(Some(level.name()));
            assert_eq!(parsed.is_ok(), level.is_detected(), "{level}");
            if let Err(e) = parsed {
                assert!(e.0.contains("cannot run") && e.0.contains("portable"), "{e}");
            }
        }
        let e = Simd::parse(Some("sse9")).unwrap_err();
        assert!(e.0.contains("unknown SIMD level 'sse9'") && e.0.contains("avx512"), "{e}");
        for empty in ["", " "] {
            let e = Simd::parse(Some(empty)).unwrap_err();
            assert!(e.0.contains("empty SIMD level") && e.0.contains("portable"), "{e}");
        }
    }

    #[test]
    fn detection_is_ordered_and_consistent() {
        #[cfg(target_arch = "x86_64")]
        if Level::Avx512.is_detected() || Level::Avx2Vnni.is_detected() {
            assert!(Level::Avx2.is_detected());
        }
        assert!(Simd::available().windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Simd::new(Level::Portable), Some(Simd::portable()));
    }
}
