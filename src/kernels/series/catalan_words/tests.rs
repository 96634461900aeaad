//! The kernel's parts against their plain forms (the window sums, the runs of rows, the
//! choice of `x`'s path) and the whole kernel against `catalan`, on every backend.

use super::rows::{Plane, Rows, Run, SumRows};
use super::t_series::{BLOCKED_FROM, UNREDUCED_BELOW};
use super::windows::{karatsuba_dots, sliding_dots};
use super::*;
use crate::kernels::SplitMix64;
use crate::kernels::series::check::check_characters;
use crate::kernels::series::series_catalan;

#[inline(always)]
fn karatsuba_case_generic<B: Dots>(_unit: ()) {
    let mut rng = SplitMix64(0x4A2A);
    let word = |rng: &mut SplitMix64| (rng.below(2 * 1536 + 1) as i32 - 1536) & 0xFFFF;
    let rows: Vec<PairRow> =
        (0..64).map(|_| PairRow(std::array::from_fn(|_| word(&mut rng) | (word(&mut rng) << 16)))).collect();
    let other: Vec<PairRow> = rows.iter().rev().copied().collect();
    let (plane, second) = (Plane { rows: &rows, mask: usize::MAX }, Plane { rows: &other, mask: usize::MAX });
    let summed = SumRows(plane, second);
    for steps in [0, 1, 2, 3, 7, 8, 21] {
        let base = 2 * steps + 8;
        let (mut fast, mut plain) = ([B::Pairs::zero(); 8], [B::Pairs::zero(); 8]);
        karatsuba_dots(&mut fast, steps, base, (plane, 3), plane);
        sliding_dots(&mut plain, steps, base, (plane, 3), plane);
        assert_eq!(fast.map(B::Pairs::to_array), plain.map(B::Pairs::to_array), "{}: steps {steps}", B::LEVEL);
        karatsuba_dots(&mut fast, steps, base, (summed, 3), summed);
        sliding_dots(&mut plain, steps, base, (summed, 3), summed);
        assert_eq!(fast.map(B::Pairs::to_array), plain.map(B::Pairs::to_array), "{}: summed, steps {steps}", B::LEVEL);
    }
}

crate::simd::multiversion! {
    fn karatsuba_case(unit: ()) => karatsuba_case_generic;
}

/// The blocked Karatsuba sums against the plain ones, at the largest words the
/// callers allow (limbs up to ±1536, their sums and differences up to ±3072), on
/// every parity of steps and on stored and summed planes, on every backend.
#[test]
fn karatsuba_dots_match_the_plain_sums() {
    for simd in Simd::tested() {
        karatsuba_case(simd, ());
    }
}

#[inline(always)]
fn kernel_run_generic<B: Dots>(
    rational: &RationalLanes,
    ring: &WordRing,
    m: usize,
    path: XPath,
    rows: &mut [PairRow],
) -> Vec<u64> {
    let layout = Layout::for_vectors::<B::Pairs>(rational.order(), m, path);
    run_kernel::<B::Pairs>(ring, rational, m, path, layout, rows)
}

crate::simd::multiversion! {
    /// The kernel with `x` on `path`, whichever path the backend would choose.
    fn kernel_run(rational: &RationalLanes, ring: &WordRing, m: usize, path: XPath, rows: &mut [PairRow]) -> Vec<u64>
        => kernel_run_generic;
}

#[inline(always)]
fn layout_generic<B: Dots>(order: usize, m: usize, path: XPath) -> Layout {
    Layout::for_vectors::<B::Pairs>(order, m, path)
}

crate::simd::multiversion! {
    /// The layout the kernel uses on `simd`'s backend with `x` on `path`.
    fn layout_on(order: usize, m: usize, path: XPath) -> Layout => layout_generic;
}

#[inline(always)]
fn path_generic<B: Dots>(ring: &WordRing, rational: &RationalLanes) -> XPath {
    XPath::for_vectors::<B::Pairs>(ring, rational)
}

crate::simd::multiversion! {
    /// The path of `x` the kernel chooses on `simd`'s backend.
    fn path_on(ring: &WordRing, rational: &RationalLanes) -> XPath => path_generic;
}

/// `f64` lanes for `x` exactly where a dot product is several instructions and a
/// fused multiply-add one (AVX2 without VNNI; every aarch64 level), and there for the
/// instance's modulus; never where the sums could pass `2^53`.
#[test]
fn x_runs_in_doubles_where_a_dot_product_is_two_instructions() {
    let characters = crate::games::kayles::character_signs();
    let rational = RationalLanes::shared(&characters).filter(fits_words).unwrap();
    let ring = WordRing::new(8 * 1_000_000_000).unwrap();
    let doubles: &[&str] = if cfg!(target_arch = "aarch64") { &["neon", "portable"] } else { &["avx2"] };
    for simd in Simd::tested() {
        let expected = if doubles.contains(&simd.name()) { XPath::Doubles } else { XPath::Words };
        assert_eq!(path_on(simd, &ring, &rational), expected, "{simd}");
    }
    // A recurrence as heavy as the words take (Σ|den_i| just below 2^20): its sums
    // fit below 2^53 for N = 8·10^9 (2^20·(N/2 + 2) < 2^52), not for the largest N of
    // the words' range (2^36·2^20).
    let widest = WordRing::new((1 << 16) * ((1 << 21) - 1)).unwrap();
    let mut heavy = rational.clone();
    for (i, row) in heavy.den.to_mut().iter_mut().enumerate().skip(1) {
        *row = [if i <= 64 { DEN_LIMIT } else { 0 }; LANES16];
    }
    assert!(fits_words(&heavy));
    let fits = XDoubles::<<crate::simd::Portable as Dots>::Pairs>::fits;
    assert!(fits(&ring, &rational) && fits(&ring, &heavy));
    assert!(!fits(&widest, &heavy));
}

/// The word path itself (no fallback) against `catalan`, on the sizes where its
/// structure changes: the direct small outputs, the first blocks, a partial last
/// block, an `x` ring that wraps several times, more than one chunk of `CHUNK_STEPS`
/// (m > 2·(LOW + 2·CHUNK_STEPS)), and outputs from `UNREDUCED_BELOW` on; once with the
/// scratch rows dirty; on every backend.
#[test]
fn words_match_catalan_on_every_path() {
    let mut rng = SplitMix64(0x3C0);
    let chunked = 2 * (LOW + 2 * CHUNK_STEPS) + 3 * R + 5;
    let mut characters = check_characters(60, &mut rng);
    characters.extend(crate::games::kayles::character_signs().into_iter().take(16 - characters.len()));
    let blocked_from = BLOCKED_FROM;
    for (m, moduli) in [
        (0usize, &[16 * 1_000_000_000u64, 6][..]),
        (1, &[16 * 1_000_000_000]),
        (blocked_from - 1, &[16 * 1_000_000_000, 2 * 3]),
        // The first block alone, partial and whole; the first block with blocked steps.
        (blocked_from, &[16 * 1_000_000_000, 2 * 3]),
        (blocked_from + 1, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1)]),
        (blocked_from + R - 1, &[16 * 1_000_000_000, 2 * 1953125]),
        (blocked_from + R, &[16 * 1_000_000_000, 2 * 3]),
        (blocked_from + 2 * R + 1, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1)]),
        (blocked_from + 3 * R - 1, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1), 16]),
        (blocked_from + 3 * R + 3, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1), 2 * 1953125]),
        (chunked, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1)]),
        // The last blocks of i32 sums (t_block_words), then partial sums reduced
        // before the Karatsuba recombination.
        (UNREDUCED_BELOW - 2, &[2 * (1 << 16) * ((1 << 21) - 1), 16 * 1_000_000_000]),
        (UNREDUCED_BELOW + 3 * R, &[2 * (1 << 16) * ((1 << 21) - 1), 16 * 1_000_000_000, 2 * 1953125]),
    ] {
        for &modulus in moduli {
            let ring = WordRing::new(modulus / 2).unwrap();
            let rational = RationalLanes::shared(&characters).filter(fits_words).unwrap();
            let expected = series_catalan(Simd::portable(), &characters, m, modulus);
            let paths: &[XPath] = if XDoubles::<<crate::simd::Portable as Dots>::Pairs>::fits(&ring, &rational) {
                &[XPath::Words, XPath::Doubles]
            } else {
                &[XPath::Words]
            };
            for (simd, &path) in Simd::tested().into_iter().flat_map(|s| paths.iter().map(move |p| (s, p))) {
                let layout = layout_on(simd, rational.order(), m, path);
                let rows = layout.rows;
                let got = kernel_run(simd, &rational, &ring, m, path, &mut vec![PairRow::ZERO; rows]);
                assert_eq!(
                    c_sum_from_t_sum(got, characters.len(), modulus),
                    expected,
                    "{simd}, {path:?}: m={m} M'={modulus}"
                );
                // Dirty rows: only x's rows must start at zero (Scratch::with zeroes
                // everything; this checks that T never reads a row it did not write).
                let mut dirty = vec![PairRow([0x5A5A_A5A5u32 as i32; PAIR_LANES]); rows];
                dirty[..layout.zeroed()].fill(PairRow::ZERO);
                let got = kernel_run(simd, &rational, &ring, m, path, &mut dirty);
                assert_eq!(
                    c_sum_from_t_sum(got, characters.len(), modulus),
                    expected,
                    "{simd}, {path:?}: dirty, m={m}"
                );
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Random moduli of the words' range (`M'/2 = 2^a·q`), random characters (sixteen
    /// lanes and fewer), against the reference.
    #[test]
    fn words_match_the_reference_on_their_moduli(
        m in 0usize..110,
        two_bits in 0u32..=16,
        odd_half in 0u64..(1 << 20),
        characters in 1usize..=16,
        seed in proptest::prelude::any::<u64>(),
    ) {
        let modulus = 2 * ((2 * odd_half + 1) << two_bits);
        let mut rng = SplitMix64(seed);
        let batch: Vec<BlockSigns> = (0..characters)
            .map(|i| {
                let (preperiod, period) = (i * 7 % 23, 1 + i * 5 % 37);
                let head = (0..preperiod + period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
                BlockSigns::new(head, preperiod, period)
            })
            .collect();
        let mut expected = vec![0u64; m + 1];
        for signs in &batch {
            let c = crate::kernels::series::series_reference(&signs.materialize(2 * m + 2), m, modulus);
            for (e, c) in expected.iter_mut().zip(c) {
                *e = ((*e as u128 + c as u128) % modulus as u128) as u64;
            }
        }
        for simd in Simd::tested() {
            proptest::prop_assert_eq!(series_catalan_words(simd, &batch, m, modulus), expected.clone(), "{}", simd);
        }
    }
}

/// A ring's rows are stored twice, so every run of up to a ring's rows, wrapping or
/// not, reads what the masked reads give; a run past the stored rows is refused.
#[test]
fn runs_of_a_ring_read_the_same_rows_as_the_masked_plane() {
    const RING: usize = 8;
    let mut rows = vec![PairRow::ZERO; 3 * 2 * RING];
    let mut planes = Planes::new(&mut rows, 2 * RING, RING, Ring::Mirrored(RING));
    type Pairs = <crate::simd::Portable as Dots>::Pairs;
    let mut prev = [Pairs::zero(); 3];
    for j in 0..5 * RING {
        let value: [Pairs; 3] = std::array::from_fn(|p| Pairs::splat((100 * p + j) as i32));
        planes.store(j, prev, value);
        prev = value;
    }
    let plane = planes.plane(1);
    for lo in 0..3 * RING {
        for hi in lo..=lo + RING {
            let run = plane.run(lo, hi).expect("a run of at most a ring");
            for e in lo..hi {
                let (a, b): (Pairs, Pairs) = (run.even(e - lo), plane.even(e));
                assert_eq!(a.to_array(), b.to_array(), "run {lo}..{hi}, row {e}");
            }
        }
        assert!(plane.run(lo, lo + 2 * RING + 1).is_none());
    }
    // A plane that is not a ring: runs end with its rows.
    let flat = Plane { rows: &rows[..RING], mask: usize::MAX };
    assert!(flat.run(2, RING).is_some() && flat.run(2, RING + 1).is_none());
}

/// The check before the unchecked loads of [`window_part`]: a run accepts the ranges
/// inside its slice and refuses every other, and the unchecked load reads what the
/// checked one does.
#[test]
fn a_run_checks_the_rows_its_unchecked_loads_read() {
    type Pairs = <crate::simd::Portable as Dots>::Pairs;
    let rows: Vec<PairRow> = (0..6)
        .map(|i| {
            let mut row = PairRow::ZERO;
            Pairs::splat(i).store(&mut row);
            row
        })
        .collect();
    let run = Run(&rows[1..5]);
    let refused = |lo: Option<usize>, hi: usize| std::panic::catch_unwind(|| run.assert_rows(lo, hi)).is_err();
    for (lo, hi) in [(0, 0), (0, 4), (2, 3), (4, 4)] {
        assert!(!refused(Some(lo), hi), "{lo}..{hi}");
    }
    for (lo, hi) in [(None, 2), (Some(0), 5), (Some(3), 2), (Some(5), 5)] {
        assert!(refused(lo, hi), "{lo:?}..{hi}");
    }
    for e in 0..4 {
        // SAFETY: rows 0..4 of the run were accepted above.
        let unchecked = unsafe { run.even_part_unchecked::<Pairs>(e, 0) };
        let (a, b) = (Pairs::zero().with_part(0, unchecked), Pairs::zero().with_part(0, run.even_part::<Pairs>(e, 0)));
        assert_eq!(a.to_array(), b.to_array(), "row {e}");
    }
}
