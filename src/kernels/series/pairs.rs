//! Sixteen `i32` lanes, each read either as one value or as a pair of signed 16-bit
//! words, with a pairwise dot product that multiplies 32 word pairs and adds them two by
//! two into 16 lanes: the vectors of [`super::catalan_words`], which keeps one Walsh
//! character per lane and, in each lane, two consecutive coefficients `(v_i, v_{i+1})`
//! as its two words; a dot product of such rows then adds two convolution terms per
//! character at once.
//!
//! The types are the backends' ([`crate::simd::dots`]): one `vpdpwssd` per dot product
//! with AVX-512 VNNI, `vpmaddwd` + `vpaddd` on two registers with AVX2, `pmaddwd` on
//! four at the SSE2 baseline (`wide`), the same through `wide` on NEON.

pub use crate::simd::dots::{DoubleVec, PAIR_LANES, PairRow, PairVec};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::dots::Dots;
    use crate::simd::{Simd, multiversion};

    fn random_lanes(rng: &mut SplitMix64) -> [i32; PAIR_LANES] {
        // Edge words first (0, ±1, i16::MIN, i16::MAX), then random bits.
        const EDGES: [i32; 6] = [0, 1, -1, 0x7FFF, -0x8000, 0x7FFF_8000];
        std::array::from_fn(|l| if l < EDGES.len() { EDGES[l] } else { rng.next_u64() as i32 })
    }

    #[inline(always)]
    fn operations_generic<B: Dots>(_unit: ()) {
        type Pairs<B> = <B as Dots>::Pairs;
        let mut rng = SplitMix64(0x9A125);
        let word = |v: i32, high: bool| (if high { v >> 16 } else { v }) as i16 as i32;
        for _ in 0..200 {
            let (acc, a, b) = (random_lanes(&mut rng), random_lanes(&mut rng), random_lanes(&mut rng));
            let (va, vb, vacc) = (Pairs::<B>::from_array(a), Pairs::<B>::from_array(b), Pairs::<B>::from_array(acc));
            let dot = vacc.dot_add(va, vb).to_array();
            let swapped = va.swap_words().to_array();
            let sum = (va + vb).to_array();
            let product = (va * vb).to_array();
            let diff = (va - vb).to_array();
            let word_sum = va.add_words(vb).to_array();
            let word_diff = va.sub_words(vb).to_array();
            let low_only = va.low_word_only().to_array();
            let low_value = va.low_word_value().to_array();
            let packed = Pairs::<B>::pack(va, vb).to_array();
            let between = Pairs::<B>::between(va, vb).to_array();
            for l in 0..PAIR_LANES {
                let products =
                    (word(a[l], false) * word(b[l], false)) as i64 + (word(a[l], true) * word(b[l], true)) as i64;
                assert_eq!(dot[l], (acc[l] as i64 + products) as i32, "dot lane {l}");
                assert_eq!(swapped[l], a[l].rotate_left(16));
                assert_eq!(sum[l], a[l].wrapping_add(b[l]));
                assert_eq!(diff[l], a[l].wrapping_sub(b[l]));
                assert_eq!(product[l], a[l].wrapping_mul(b[l]));
                for high in [false, true] {
                    assert_eq!(
                        word(word_sum[l], high),
                        (word(a[l], high) as i16).wrapping_add(word(b[l], high) as i16) as i32
                    );
                    assert_eq!(
                        word(word_diff[l], high),
                        (word(a[l], high) as i16).wrapping_sub(word(b[l], high) as i16) as i32
                    );
                }
                assert_eq!(low_only[l], a[l] & 0xFFFF);
                assert_eq!(low_value[l], word(a[l], false));
                assert_eq!((word(packed[l], false), word(packed[l], true)), (word(a[l], false), word(b[l], false)));
                assert_eq!((word(between[l], false), word(between[l], true)), (word(a[l], true), word(b[l], false)));
            }
        }
        assert_eq!(Pairs::<B>::splat(-7).to_array(), [-7; PAIR_LANES]);
        let big = Pairs::<B>::splat(i32::MAX);
        assert_eq!(big.sum_lanes(), i32::MAX.wrapping_mul(PAIR_LANES as i32));
    }

    multiversion! {
        fn operations(unit: ()) => operations_generic;
    }

    #[test]
    fn every_operation_matches_its_scalar_twin_lane_by_lane() {
        for simd in Simd::tested() {
            operations(simd, ());
        }
    }

    #[inline(always)]
    fn doubles_generic<B: Dots>(_unit: ()) {
        type Pairs<B> = <B as Dots>::Pairs;
        type Doubles<B> = <B as Dots>::Doubles;
        let mut rng = SplitMix64(0xD0B);
        for _ in 0..200 {
            // Integers up to 2^52 in size (edges first), and i32 lanes for the conversions.
            let int = |rng: &mut SplitMix64, bits: u32| {
                (rng.next_u64() >> (64 - bits)) as i64 as f64 - (1u64 << (bits - 1)) as f64
            };
            let edges = [0.0, 1.0, -1.0, 2f64.powi(52), -(2f64.powi(52)), 0.5, -2.5, 3.5];
            let values = |rng: &mut SplitMix64| -> [f64; PAIR_LANES] {
                std::array::from_fn(|l| if l < edges.len() { edges[l] } else { int(rng, 52) })
            };
            let (a, b, c) = (values(&mut rng), values(&mut rng), values(&mut rng));
            let (va, vb, vc) = (Doubles::<B>::from_array(a), Doubles::<B>::from_array(b), Doubles::<B>::from_array(c));
            let scale = Doubles::<B>::splat(1.0 / 3.0);
            for l in 0..PAIR_LANES {
                assert_eq!((va + vb).to_array()[l], a[l] + b[l]);
                assert_eq!((va - vb).to_array()[l], a[l] - b[l]);
                assert_eq!((va * scale).to_array()[l], a[l] * (1.0 / 3.0));
                assert_eq!(va.mul_add(scale, vc).to_array()[l], a[l].mul_add(1.0 / 3.0, c[l]));
                assert_eq!(va.neg_mul_add(scale, vc).to_array()[l], (-a[l]).mul_add(1.0 / 3.0, c[l]));
                assert_eq!(va.round().to_array()[l], a[l].round_ties_even());
            }
            let small = random_lanes(&mut rng);
            let converted = Pairs::<B>::from_array(small).to_doubles();
            assert_eq!(converted.to_array(), small.map(f64::from));
            assert_eq!(Pairs::<B>::from_doubles(converted).to_array(), small);
            assert_eq!(converted.sum(), small.iter().map(|&v| v as f64).sum::<f64>());
        }
        assert_eq!(Pairs::<B>::zero().to_array(), [0; PAIR_LANES]);
    }

    multiversion! {
        fn doubles(unit: ()) => doubles_generic;
    }

    #[test]
    fn doubles_match_scalar_f64_lane_by_lane() {
        for simd in Simd::tested() {
            doubles(simd, ());
        }
    }
}
