//! The hot kernels, one folder per family.
//!
//! Each family has a *reference*, the oracle its tests compare every variant with (plain
//! code straight from the definition, never the fastest); a *plain variant*, the
//! baseline its benches measure speed-ups against (often the reference itself); and its
//! faster variants, each in a file of its own. One `…Variant` enum lists them for the
//! CLI, the tests and the benches, and one cross-check (`check.rs`) runs any variant
//! against the reference. Each family's module docs name its two.
//!
//! | family | used by | what it computes |
//! |---|---|---|
//! | [`wht`] | cards | in-place Walsh–Hadamard transform mod p |
//! | [`powsum`] | cards | `Σ x_t^s mod p` with one shared exponent |
//! | [`nimber_freq`] | cards | how many one-suit card sets have each nimber |
//! | [`keyscan`] | stones | the losing-triple scan over the seven key tables |
//! | [`banded_dp`] | coins | the constant term of `P(x)^n` by a banded DP |
//! | [`coin_formulas`] | coins | the same constant term by O(n) formulas (prime moduli) |
//! | [`series`] | kayles | the balanced-row power series of the Walsh characters |
//! | [`ntt`] | kayles | power-series products modulo any N by multi-prime NTT and CRT |
//! | [`grundy`] | octal | Grundy values of take-and-break games: mex tables, sparse space |

pub mod banded_dp;
pub mod coin_formulas;
pub mod grundy;
pub mod keyscan;
pub mod nimber_freq;
pub mod ntt;
pub mod powsum;
pub mod series;
pub mod wht;

/// Declares a kernel-variant enum: the variants with their command-line names, `ALL`,
/// `name()`, `Display` and `FromStr` (which lists the valid names when it fails).
macro_rules! variant_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident {
            $( $(#[$vmeta:meta])* $Variant:ident => $label:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $Name {
            $( $(#[$vmeta])* $Variant ),+
        }

        impl $Name {
            /// Every variant, in the order the CLI lists them.
            pub const ALL: &'static [$Name] = &[$($Name::$Variant),+];

            /// The name used on the command line, in benches and in reports.
            pub const fn name(self) -> &'static str {
                match self { $($Name::$Variant => $label),+ }
            }

            /// The names of all variants, comma-separated.
            pub fn names() -> String {
                Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $Name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $Name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name() == s)
                    .ok_or_else(|| format!("unknown kernel '{s}' (known: {})", Self::names()))
            }
        }
    };
}
pub(crate) use variant_enum;

/// A small deterministic generator (SplitMix64) for test and bench inputs, so that a
/// failing cross-check can be replayed from its seed.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `[0, bound)` (bound > 0), with negligible bias for bounds below 2^32.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }
}
