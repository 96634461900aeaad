//! The SIMD layer: the one place in the crate that names instruction sets.
//!
//! Kernels are written once, generic over a [`Backend`] (a zero-sized type naming one
//! instruction set) and the vector traits of their family, and hold no
//! `cfg(target_feature)` and no intrinsics. [`multiversion!`] turns such a generic
//! function into a dispatcher that takes a [`Simd`] token and runs the instantiation for
//! its level inside an entry point compiled with that level's features
//! (`#[target_feature(enable = …)]`), so one binary built for baseline x86-64 runs AVX2
//! or AVX-512 code where the CPU has it. This is memchr's arrangement (one algorithm over
//! a vector trait, per-ISA instantiations chosen at run time) with BLAKE3's portable
//! backend beside the per-ISA ones, so the tests compare every backend in one run.
//!
//! | level | backend | feature set (named here only) |
//! |---|---|---|
//! | `portable` | [`Portable`]: `wide` at the build's baseline | none beyond the target's |
//! | `avx2` | `Avx2`: `std::arch` on 256-bit registers | AVX2, FMA, BMI1/2, LZCNT, POPCNT (x86-64-v3) |
//! | `avx2-vnni` | `Avx2Vnni`: `avx2` with AVX-VNNI's `vpdpwssd` on `ymm` for the pair dot products | the AVX2 set and AVX-VNNI |
//! | `avx512` | `Avx512`: `std::arch` on 512-bit registers | F, BW, DQ, VL, IFMA, VBMI2 and VNNI, with the AVX2 set |
//! | `neon` | `Neon`: `wide` (NEON on aarch64) and NEON intrinsics | NEON (aarch64 baseline) |
//!
//! Inside an entry point only code that is inlined into it is compiled with its
//! features: the generic kernels and every vector method they call are
//! `#[inline(always)]` (a generic helper that is not would be compiled at the baseline
//! and call each intrinsic out of line: correct, but slow).

pub mod dots;
mod level;
pub mod mont;
pub mod portable;
pub mod words;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
#[cfg(target_arch = "aarch64")]
pub mod neon;

pub use level::{Level, Simd, SimdError, build_target, cpu_features};

/// One instruction set, as a type: the vector traits of the kernel families are
/// implemented for it, and [`multiversion!`] instantiates kernels with it.
pub trait Backend: Copy + Default + Send + Sync + std::fmt::Debug + 'static {
    /// The level this backend implements.
    const LEVEL: Level;
}

/// The portable backend: `wide`'s types at the build's baseline instruction set.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl Backend for Portable {
    const LEVEL: Level = Level::Portable;
}

/// The AVX2 backend (x86-64-v3): sixteen 256-bit registers. With `VNNI` the pair dot
/// products use AVX-VNNI (Intel client cores from Alder Lake on, which lack AVX-512);
/// every other operation is the same code.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Avx2<const VNNI: bool = false>;

/// The `avx2-vnni` backend: [`Avx2`] with AVX-VNNI.
#[cfg(target_arch = "x86_64")]
pub type Avx2Vnni = Avx2<true>;

#[cfg(target_arch = "x86_64")]
impl<const VNNI: bool> Backend for Avx2<VNNI> {
    const LEVEL: Level = if VNNI { Level::Avx2Vnni } else { Level::Avx2 };
}

/// The AVX-512 backend: thirty-two 512-bit registers and mask registers.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Avx512;

#[cfg(target_arch = "x86_64")]
impl Backend for Avx512 {
    const LEVEL: Level = Level::Avx512;
}

/// The NEON backend (aarch64).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Neon;

#[cfg(target_arch = "aarch64")]
impl Backend for Neon {
    const LEVEL: Level = Level::Neon;
}

/// Defines a function that runs a generic kernel on the backend of a [`Simd`] token.
///
/// ```ignore
/// simd::multiversion! {
///     /// The doc of the dispatcher.
///     pub fn wht_simd(data: &mut [u32], p: u32) -> u64 => wht_simd_generic;
/// }
/// ```
///
/// defines `pub fn wht_simd(simd: Simd, data: &mut [u32], p: u32) -> u64`, which calls
/// `wht_simd_generic::<B>(data, p)` for the backend `B` of `simd.level()`, each inside an
/// entry point compiled with `B`'s features. The generic function (and everything it
/// calls that should use those features) must be `#[inline(always)]`; it may have lifetime
/// parameters, written `fn name<'a>(…)`, and `impl Trait` arguments.
#[macro_export]
macro_rules! multiversion {
    ($(#[$meta:meta])* $vis:vis fn $name:ident $(<$($lt:lifetime),* $(,)?>)? ($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)? => $generic:ident;) => {
        $(#[$meta])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name $(<$($lt),*>)? (simd: $crate::simd::Simd, $($arg: $ty),*) $(-> $ret)? {
            match simd.level() {
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Level::Avx512 => {
                    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512ifma,avx512vbmi2,avx512vnni,avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
                    #[allow(clippy::too_many_arguments)]
                    fn entry $(<$($lt),*>)? ($($arg: $ty),*) $(-> $ret)? {
                        $generic::<$crate::simd::Avx512>($($arg),*)
                    }
                    // SAFETY: a `Simd` token of level avx512 is only made after the CPU was
                    // detected to have every feature the entry point enables
                    // (`Level::is_detected`).
                    unsafe { entry($($arg),*) }
                }
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Level::Avx2Vnni => {
                    // In the library's tests, a token that emulates the level on a CPU
                    // without AVX-VNNI runs its code in an entry point with the AVX2 set
                    // only (`Simd::tested`).
                    #[cfg(test)]
                    {
                        if simd.is_emulated() {
                            #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
                            #[allow(clippy::too_many_arguments)]
                            fn emulated $(<$($lt),*>)? ($($arg: $ty),*) $(-> $ret)? {
                                $generic::<$crate::simd::Avx2Vnni>($($arg),*)
                            }
                            // SAFETY: an emulated token is only made on a CPU detected to
                            // have the avx2 set, and there the level's code never reaches
                            // AVX-VNNI's instruction (`simd::avx2::dots`).
                            return unsafe { emulated($($arg),*) };
                        }
                    }
                    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt,avxvnni")]
                    #[allow(clippy::too_many_arguments)]
                    fn entry $(<$($lt),*>)? ($($arg: $ty),*) $(-> $ret)? {
                        $generic::<$crate::simd::Avx2Vnni>($($arg),*)
                    }
                    // SAFETY: as above, for the avx2-vnni feature set.
                    unsafe { entry($($arg),*) }
                }
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Level::Avx2 => {
                    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
                    #[allow(clippy::too_many_arguments)]
                    fn entry $(<$($lt),*>)? ($($arg: $ty),*) $(-> $ret)? {
                        $generic::<$crate::simd::Avx2>($($arg),*)
                    }
                    // SAFETY: as above, for the avx2 feature set.
                    unsafe { entry($($arg),*) }
                }
                #[cfg(target_arch = "aarch64")]
                $crate::simd::Level::Neon => {
                    #[target_feature(enable = "neon")]
                    #[allow(clippy::too_many_arguments)]
                    fn entry $(<$($lt),*>)? ($($arg: $ty),*) $(-> $ret)? {
                        $generic::<$crate::simd::Neon>($($arg),*)
                    }
                    // SAFETY: NEON is part of every aarch64 target this crate builds for,
                    // and the token was detected besides.
                    unsafe { entry($($arg),*) }
                }
                _ => $generic::<$crate::simd::Portable>($($arg),*),
            }
        }
    };
}
pub use multiversion;

/// The feature lists of [`multiversion!`]'s entry points, for the test that checks the
/// macro enables exactly these and each level's detection checks every one of them.
pub const AVX512_FEATURES: &str =
    "avx512f,avx512bw,avx512dq,avx512vl,avx512ifma,avx512vbmi2,avx512vnni,avx2,fma,bmi1,bmi2,lzcnt,popcnt";
pub const AVX2_FEATURES: &str = "avx2,fma,bmi1,bmi2,lzcnt,popcnt";
pub const AVX2_VNNI_FEATURES: &str = "avx2,fma,bmi1,bmi2,lzcnt,popcnt,avxvnni";

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(always)]
    fn level_of<B: Backend>(x: u32) -> (Level, u32) {
        (B::LEVEL, x + 1)
    }

    multiversion! {
        /// Which backend ran, and a computed value.
        fn which(x: u32) -> (Level, u32) => level_of;
    }

    #[test]
    fn the_tests_emulate_avx2_vnni_where_the_cpu_lacks_it() {
        let tested = Simd::tested();
        let emulated: Vec<Simd> = tested.iter().copied().filter(|s| s.is_emulated()).collect();
        if Level::Avx2.is_detected() && !Level::Avx2Vnni.is_detected() {
            assert_eq!(emulated.len(), 1, "{tested:?}");
            assert_eq!(emulated[0].level(), Level::Avx2Vnni);
            assert_eq!(which(emulated[0], 41), (Level::Avx2Vnni, 42));
            assert_eq!(emulated[0].to_string(), "avx2-vnni (vpdpwssd emulated)");
        } else {
            assert!(emulated.is_empty(), "{tested:?}");
        }
        assert!(tested.windows(2).all(|w| w[0].level() < w[1].level()), "{tested:?}");
        assert!(Simd::available().iter().all(|s| tested.contains(s)));
    }

    #[test]
    fn every_detected_level_runs_its_own_backend() {
        for simd in Simd::tested() {
            assert_eq!(which(simd, 41), (simd.level(), 42));
        }
        assert!(Simd::available().contains(&Simd::portable()));
        assert_eq!(Simd::available().last().copied(), Some(Simd::best()));
    }

    /// The features `Level::is_detected` checks for the arm `arm` (e.g. `Level::Avx2`) of
    /// its source, with those of the AVX2 arm when the arm calls it.
    fn features_detected_by(detection: &str, arm: &str) -> Vec<String> {
        let start = detection.find(&format!("{arm} =>")).unwrap_or_else(|| panic!("no arm {arm}"));
        let body = &detection[start..];
        let body = &body[..body.find("#[cfg(").unwrap_or(body.len())];
        let mut features: Vec<String> = body
            .split("is_x86_feature_detected!(\"")
            .skip(1)
            .map(|rest| rest[..rest.find('"').expect("a closing quote")].to_string())
            .collect();
        if arm != "Level::Avx2" && body.contains("Level::Avx2.is_detected()") {
            features.extend(features_detected_by(detection, "Level::Avx2"));
        }
        features
    }

    #[test]
    fn the_macro_enables_what_detection_checks() {
        // The entry points' feature strings are the constants...
        let macro_text = include_str!("mod.rs");
        assert!(macro_text.contains(&format!("enable = \"{AVX512_FEATURES}\"")));
        assert!(macro_text.contains(&format!("enable = \"{AVX2_FEATURES}\"")));
        assert!(macro_text.contains(&format!("enable = \"{AVX2_VNNI_FEATURES}\"")));
        // ...and the detection of each level checks every feature its entry point enables:
        // the safety argument of the entry points rests on it.
        let level_text = include_str!("level.rs");
        let detection = &level_text[level_text.find("pub fn is_detected").expect("the detection")..];
        for (arm, enabled) in [
            ("Level::Avx2", AVX2_FEATURES),
            ("Level::Avx2Vnni", AVX2_VNNI_FEATURES),
            ("Level::Avx512", AVX512_FEATURES),
        ] {
            let checked = features_detected_by(detection, arm);
            for feature in enabled.split(',') {
                assert!(
                    checked.iter().any(|c| c == feature),
                    "{arm} enables {feature} but does not detect it: {checked:?}"
                );
            }
        }
    }
}
