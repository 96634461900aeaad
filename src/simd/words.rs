//! Windows of 64-bit words with funnel shifts, lane alignment and the first free lane
//! (the stones scans, `kernels::keyscan::diagonal::window`).
//!
//! A window holds `LANES` consecutive 64-bit words of candidates (bit `j` of lane `i` is
//! candidate `64 (w + i) + j`); a set bit is a blocked candidate. The funnel shifts move
//! each lane by a few bits with the bits of its neighbour lane shifted in, so that a row
//! read at an offset lines up with the candidates. The top lane has no upper neighbour in
//! the window, so after [`Window::funnel_down`] only `LANES - 1` lanes are exact: a
//! window settles `LANES - 1` words.
//!
//! Two widths per backend ([`Words`]): the full window (seven exact words: the first and
//! later windows of a search) and the tail window (three exact words: the pairs whose
//! rows end within three words). The same types serve as [`Block`]s of eight and four
//! words, all exact, for the lexicographic scans, which funnel two loads lane by lane.
//!
//! | backend | full window | tail window |
//! |---|---|---|
//! | portable | two `wide::u64x4` | one `wide::u64x4` |
//! | avx2 | two `__m256i` (`vpsrlq`/`vpsllq`; neighbour lanes by `vpermq` and blends, or loaded one word off) | one `__m256i` (the same) |
//! | avx512 | one `__m512i` (`vpshrdvq`/`vpshldvq`, `valignq`) | one `__m256i` (the same, VL) |
//! | neon | four `uint64x2_t` (`ushl` by a count in a register, negative to shift right; neighbour lanes by `ext`; `cmeq`, `uzp1`, `addv` for the full lanes), tested under qemu-user, not timed (see `neon/words.rs`) | two `uint64x2_t` (the same) |
//!
//! # Safety of the loads
//!
//! A window can only be made by a load ([`Window::load_bytes`], [`Window::load_words`]),
//! and the loads are `unsafe`: their caller guarantees that the bytes read lie inside the
//! slice (checked by a debug assertion in every backend) and that the CPU has the
//! backend's instruction set. Kernels meet the second condition by running a backend's
//! code only inside the entry points of [`multiversion!`](crate::multiversion), which a
//! detected [`Simd`](super::Simd) token selects; the other operations, on windows already
//! loaded, are then safe.

use super::Backend;

/// The operations a window needs on its lanes of 64 candidates, at one width.
pub trait Window: Copy {
    /// Words (lanes) in the window; `LANES - 1` of them are exact after a funnel shift.
    const LANES: usize;

    /// The window at byte index `at` of `words`.
    ///
    /// # Safety
    ///
    /// Bytes `at .. at + 8 LANES` lie inside `words`, and the CPU has the instruction set
    /// of the backend the window type belongs to.
    unsafe fn load_bytes(words: &[u64], at: usize) -> Self;

    /// The window at word index `at` of `words`. Not `load_bytes(words, 8 * at)`: a word
    /// index lets the address use the scaled addressing mode, where the byte index took
    /// extra instructions and measured 1% slower on the tiles (AVX-512, Zen 4).
    ///
    /// # Safety
    ///
    /// Words `at .. at + LANES` lie inside `words`; the CPU as for [`Self::load_bytes`].
    unsafe fn load_words(words: &[u64], at: usize) -> Self;

    /// `a | b | c`.
    fn or3(a: Self, b: Self, c: Self) -> Self;

    /// `a | b`.
    fn or(a: Self, b: Self) -> Self;

    /// Each lane funnelled with its upper neighbour by `bits mod 8` bits: from a load at
    /// byte `floor(start / 8)`, the bits from `start` on. The top lane is inexact.
    fn funnel_down(self, bits: isize) -> Self;

    /// Each lane funnelled with its lower neighbour by `bits mod 64` bits, ones shifted
    /// in below lane 0.
    fn funnel_up_ones(self, bits: u32) -> Self;

    /// The window at word index `at` of `words`, funnelled up by `bits mod 64` with ones
    /// below lane 0: `load_words(words, at).funnel_up_ones(bits)`. A backend may instead
    /// load the lower neighbours from memory, one word before (see `avx2/words.rs`).
    ///
    /// # Safety
    ///
    /// As for [`Self::load_words`], and `at >= 1`: words `at - 1 .. at + LANES` lie inside
    /// `words` (what word `at - 1` holds does not matter).
    #[inline(always)]
    unsafe fn load_funnel_up_ones(words: &[u64], at: usize, bits: u32) -> Self {
        // SAFETY: the caller's guarantee covers the load.
        unsafe { Self::load_words(words, at) }.funnel_up_ones(bits)
    }

    /// Bit `i` set when exact lane `i` (`i < LANES - 1`) has a zero bit (a free
    /// candidate).
    fn open_lanes(self) -> u32;

    /// Lane `lane mod LANES`, by whichever move is cheapest on the backend: a permute
    /// where one register holds the window (`avx512`), a store and a forwarded load
    /// where it takes two (`avx2`).
    fn lane(self, lane: u32) -> u64;

    /// The first free candidate (a zero bit) in the exact lanes, lane 0 being word `w`.
    #[inline(always)]
    fn first_free(self, w: usize) -> Option<u32> {
        let open = self.open_lanes();
        let lane = open.trailing_zeros();
        // Computed whether or not a lane is open (lane 32 reads as some lane), so that the
        // caller can choose without a branch (see `keyscan::diagonal::window::partner`).
        let z = 64 * (w as u32 + lane) + (!self.lane(lane)).trailing_zeros();
        std::hint::select_unpredictable(open != 0, Some(z), None)
    }
}

/// A window read as a block of `LANES` independent words, every lane exact: the
/// lexicographic partner search (`kernels::keyscan::lexicographic::search`), which funnels each word
/// with the same word of a second load one word further on, instead of with its
/// neighbour lane.
pub trait Block: Window {
    /// Lane `j` holds the low 64 bits of `(hi_j : lo_j) >> shift`; `shift < 64`.
    fn funnel_pair(lo: Self, hi: Self, shift: u32) -> Self;

    /// Bit `j` set when lane `j`, any of the `LANES`, has a zero bit.
    fn open_words(self) -> u32;

    /// Lane 0 ORed with `bits`, the other lanes as they are.
    fn or_first_word(self, bits: u64) -> Self;
}

/// A backend's two windows.
pub trait Words: Backend {
    /// Seven exact words: the first and later windows of a search.
    type Full: Block;
    /// Three exact words: the tail window.
    type Tail: Block;
}

/// The bound the loads rely on, checked whenever debug assertions are on (the test
/// profile): `bytes` bytes from byte `at` inside `words`.
#[inline(always)]
pub(crate) fn assert_in_bounds(words: &[u64], at: usize, bytes: usize) {
    debug_assert!(at + bytes <= 8 * words.len(), "load of bytes {at}..+{bytes} past {} words", words.len());
}

#[cfg(test)]
mod tests {
    //! Every operation of every backend this CPU has, lane by lane against the plain
    //! definition (which the portable backend is checked against too).

    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::{Level, Simd};

    /// The lanes of a window, by the plain definition of each operation.
    fn lanes<W: Window>(w: W) -> Vec<u64> {
        (0..W::LANES as u32).map(|i| w.lane(i)).collect()
    }

    /// One backend's window type against the definitions, on random words.
    #[inline(always)]
    fn check_window<W: Window>(seed: u64) -> Result<(), String> {
        let mut rng = SplitMix64(seed);
        let n = W::LANES;
        for round in 0..200 {
            // Dense words (many all-ones lanes) in some rounds, so open_lanes sees both.
            let dense = round % 3;
            let words: Vec<u64> = (0..3 * n + 2)
                .map(|_| {
                    let w = (0..dense).fold(rng.next_u64(), |a, _| a | rng.next_u64());
                    if rng.below(4) == 0 { u64::MAX } else { w }
                })
                .collect();
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let word_at = |b: usize| u64::from_le_bytes(bytes[b..b + 8].try_into().unwrap());
            let at = rng.below((8 * (words.len() - n) + 1) as u64) as usize;
            let w_at = rng.below((words.len() - n + 1) as u64) as usize;
            // SAFETY: both loads lie inside `words` (the bounds just drawn); the CPU has
            // the backend's features (the caller runs this inside its entry point).
            let (by_bytes, by_words) = unsafe { (W::load_bytes(&words, at), W::load_words(&words, w_at)) };
            let expect_bytes: Vec<u64> = (0..n).map(|i| word_at(at + 8 * i)).collect();
            let expect_words = words[w_at..w_at + n].to_vec();
            if lanes(by_bytes) != expect_bytes || lanes(by_words) != expect_words {
                return Err(format!("loads at byte {at} / word {w_at}"));
            }
            let (a, b, c) = (by_bytes, by_words, by_bytes.funnel_up_ones(7));
            let (la, lb, lc) = (lanes(a), lanes(b), lanes(c));
            let or3: Vec<u64> = (0..n).map(|i| la[i] | lb[i] | lc[i]).collect();
            let or: Vec<u64> = (0..n).map(|i| la[i] | lb[i]).collect();
            if lanes(W::or3(a, b, c)) != or3 || lanes(W::or(a, b)) != or {
                return Err("or3 / or".into());
            }
            let bits = rng.next_u64() as isize >> (rng.below(50) + 8);
            let s = bits.rem_euclid(8) as u32;
            let down = lanes(a.funnel_down(bits));
            for i in 0..n - 1 {
                let expect = ((la[i + 1] as u128) << 64 | la[i] as u128) >> s;
                if down[i] != expect as u64 {
                    return Err(format!("funnel_down by {bits} lane {i}"));
                }
            }
            // The edge counts first (0 and 64 leave the neighbour out, 63 and 127 take all
            // but one of its bits): 200 random counts miss any one of them 4% of the time.
            let drawn = rng.next_u64() as u32;
            let up_bits = [0, 63, 64, 127, u32::MAX].get(round).copied().unwrap_or(drawn);
            let s = up_bits % 64;
            let up = lanes(b.funnel_up_ones(up_bits));
            for i in 0..n {
                let below = if i == 0 { u64::MAX } else { lb[i - 1] };
                let expect = ((lb[i] as u128) << 64 | below as u128) << s >> 64;
                if up[i] != expect as u64 {
                    return Err(format!("funnel_up_ones by {up_bits} lane {i}"));
                }
            }
            if w_at > 0 {
                // SAFETY: words `w_at - 1 .. w_at + n` lie inside `words`; the CPU as above.
                let loaded = unsafe { W::load_funnel_up_ones(&words, w_at, up_bits) };
                if lanes(loaded) != up {
                    return Err(format!("load_funnel_up_ones at word {w_at} by {up_bits}"));
                }
            }
            let open = (0..n - 1).filter(|&i| la[i] != u64::MAX).fold(0, |m, i| m | 1 << i);
            if a.open_lanes() != open {
                return Err(format!("open_lanes {:b} vs {open:b}", a.open_lanes()));
            }
            let first = (0..n - 1).find(|&i| la[i] != u64::MAX).map(|i| (64 * (5 + i) as u32) + la[i].trailing_ones());
            if a.first_free(5) != first {
                return Err(format!("first_free {:?} vs {first:?}", a.first_free(5)));
            }
            if (0..2 * n as u32).any(|i| a.lane(i) != la[i as usize % n]) {
                return Err("lane".into());
            }
        }
        Ok(())
    }

    /// One backend's block operations against the definitions, on random words.
    #[inline(always)]
    fn check_block<W: Block>(seed: u64) -> Result<(), String> {
        let mut rng = SplitMix64(seed);
        let n = W::LANES;
        for round in 0..200 {
            let words: Vec<u64> = (0..2 * n + 1)
                .map(|_| if rng.below(3) == 0 { u64::MAX } else { rng.next_u64() | rng.next_u64() })
                .collect();
            let at = rng.below((words.len() - n) as u64) as usize;
            // SAFETY: words `at .. at + n + 1` lie inside `words`; the CPU as above.
            let (lo, hi) = unsafe { (W::load_words(&words, at), W::load_words(&words, at + 1)) };
            let shift = if round < 64 { round } else { rng.below(64) as u32 };
            let pair = W::funnel_pair(lo, hi, shift);
            for j in 0..n {
                let expect = ((words[at + j + 1] as u128) << 64 | words[at + j] as u128) >> shift;
                if pair.lane(j as u32) != expect as u64 {
                    return Err(format!("funnel_pair by {shift} lane {j}"));
                }
            }
            let open = (0..n).filter(|&j| words[at + j] != u64::MAX).fold(0, |m, j| m | 1 << j);
            if lo.open_words() != open {
                return Err(format!("open_words {:b} vs {open:b}", lo.open_words()));
            }
            let bits = rng.next_u64() >> rng.below(64);
            let first = lo.or_first_word(bits);
            let expect: Vec<u64> = (0..n).map(|j| words[at + j] | if j == 0 { bits } else { 0 }).collect();
            if lanes(first) != expect {
                return Err(format!("or_first_word {bits:#x}"));
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn check_backend<B: Words>(seed: u64) -> Result<(), String> {
        check_window::<B::Full>(seed).map_err(|e| format!("full: {e}"))?;
        check_window::<B::Tail>(seed + 1).map_err(|e| format!("tail: {e}"))?;
        check_block::<B::Full>(seed + 2).map_err(|e| format!("full block: {e}"))?;
        check_block::<B::Tail>(seed + 3).map_err(|e| format!("tail block: {e}"))
    }

    crate::multiversion! {
        /// The checks on `simd`'s backend.
        fn check_on(seed: u64) -> Result<(), String> => check_backend;
    }

    #[test]
    fn every_backend_matches_the_definitions_lane_by_lane() {
        for simd in Simd::tested() {
            check_on(simd, 260).unwrap_or_else(|e| panic!("{simd}: {e}"));
        }
        assert!(Simd::tested().iter().any(|s| s.level() == Level::Portable));
    }

    #[test]
    fn windows_have_seven_and_three_exact_words() {
        fn widths<B: Words>() -> (usize, usize) {
            (B::Full::LANES, B::Tail::LANES)
        }
        assert_eq!(widths::<crate::simd::Portable>(), (8, 4));
        #[cfg(target_arch = "x86_64")]
        assert_eq!((widths::<crate::simd::Avx2>(), widths::<crate::simd::Avx512>()), ((8, 4), (8, 4)));
        #[cfg(target_arch = "aarch64")]
        assert_eq!(widths::<crate::simd::Neon>(), (8, 4));
    }
}
