//! Pairs proved to have no partner without a search: a pile whose small differences
//! are all taken.
//!
//! The key `K2(z - y, x)` of a candidate `(x, y, z)` is bit `z - y` of row `x` of the
//! transposed table `k2t` (`tables.rs`). Let `f_x` be the least clear bit of that row.
//! If `y + f_x > L`, the bits `0..=L - y` are all set: every candidate `z` in `y..=L`
//! shares this one key with an earlier losing triple, so the pair `(x, y)` has no
//! partner, and its search, which reads the same row, would find none. Rows only gain
//! bits, so `f_x` never decreases; once a pair `(x, y)` of a strip is settled this way,
//! so is every later pair `(x, y' > y)`. Pile `x` is *exhausted* from anti-diagonal
//! `t = L + x + 1 - f_x` on (`t - x + f_x > L`).
//!
//! How much it settles: at `L = 1000`, 76 377 of the 139 071 open pairs without a
//! partner, at `L = 3000` 715 137 of 1 244 274, most of which would read several
//! windows. Of the other five rows only `k3[y - x]` often blocks a whole range alone,
//! but its threshold belongs to the pair's difference, not to a pile of the strip. In
//! debug builds the scan checks that every pair it settles fails its search.
//!
//! What it buys: about 10% of the one-thread scan at `L = 1000` (`cargo bench --bench
//! keyscan`, `diagonal`), about a third at `3·10^4`, where a failing search reads every
//! window up to `L` (`scripts/bench.sh --problem stones`). The figures and the variants
//! rejected are in docs/design/stones.md.
//!
//! The same `f_x` bounds every partner from below, `z >= y + f_x`: a search that finds
//! nothing in its first window continues from there instead of from the next word
//! (`window::partner_from`).
//!
//! # Reading `f_x` once every 64 anti-diagonals
//!
//! `f_x` is read for all the piles when a strip (or tile) starts, then, before each
//! anti-diagonal `t`, again for the one pile `x0 + t mod 64`, from its last value on.
//! A value read earlier is never larger than the current one, so it settles fewer pairs,
//! never a wrong one, and a pile is seen exhausted at most 64 anti-diagonals late. That
//! costs one read per anti-diagonal. Following the marks instead (checking, after each
//! losing triple, whether its mark in row `x` took `f_x`) costs a comparison per triple,
//! and settles fewer pairs, since it misses the marks of rows `y` and `z`: the reads are
//! about 10% faster at `L = 1000` (`cargo bench --bench keyscan`, `diagonal`). Reading
//! more piles per anti-diagonal settles little more.

/// The least `b >= from` whose bit is clear in `row` (bit `b` in word `b / 64`), or
/// `limit + 1` when the bits `from..=limit` are all set.
pub fn first_clear(row: &[u64], from: u32, limit: u32) -> u32 {
    let words = &row[..=limit as usize >> 6];
    let mut w = from as usize >> 6;
    if w >= words.len() {
        return limit + 1;
    }
    let mut clear = !words[w] & (u64::MAX << (from & 63));
    while clear == 0 {
        w += 1;
        match words.get(w) {
            Some(word) => clear = !word,
            None => return limit + 1,
        }
    }
    (64 * w as u32 + clear.trailing_zeros()).min(limit + 1)
}

/// Which of the (at most 64) piles `x0, x0 + 1, ..` of a strip or tile are exhausted,
/// anti-diagonal by anti-diagonal.
#[derive(Clone, Debug)]
pub struct ExhaustedPiles {
    limit: u32,
    /// The first pile.
    x0: u32,
    /// `f_x` of pile `x0 + i`, as last read (`L + 1` for a slot without a pile).
    floor: [u32; 64],
    /// The anti-diagonal from which pile `x0 + i` is exhausted, given `floor[i]`.
    from: [u32; 64],
    /// Bit `i`: pile `x0 + i` is exhausted on the current anti-diagonal.
    exhausted: u64,
    /// No pile outside `exhausted` becomes exhausted before this anti-diagonal.
    next: u32,
}

impl ExhaustedPiles {
    /// An empty schedule for a scan up to `limit`.
    pub fn new(limit: u32) -> Self {
        Self { limit, x0: 0, floor: [limit + 1; 64], from: [u32::MAX; 64], exhausted: 0, next: u32::MAX }
    }

    /// Starts on the piles `x0 ..= x_last` (at most 64), whose first anti-diagonal is
    /// `t0`; `first_clear(x, from)` reads the `k2t` row of pile `x` as [`first_clear`].
    pub fn start(&mut self, x0: u32, x_last: u32, t0: u32, first_clear: impl Fn(u32, u32) -> u32) {
        debug_assert!(x_last >= x0 && x_last - x0 < 64 && x_last <= self.limit);
        self.x0 = x0;
        self.exhausted = 0;
        self.next = u32::MAX;
        self.floor = [self.limit + 1; 64];
        self.from = [u32::MAX; 64];
        for x in x0..=x_last {
            let i = (x - x0) as usize;
            self.floor[i] = first_clear(x, 0);
            self.schedule(i, t0);
        }
    }

    /// The exhausted piles on anti-diagonal `t` (bit `i`: pile `x0 + i`). Called for
    /// anti-diagonals in increasing order.
    #[inline(always)]
    pub fn on_diagonal(&mut self, t: u32) -> u64 {
        if t >= self.next {
            self.catch_up(t);
        }
        self.exhausted
    }

    /// A lower bound for the partner of the pair `(x, y)`, `x` one of the piles: `y +
    /// f_x`, since every `z` below it shares `K2(z - y, x)` with a losing triple.
    #[inline(always)]
    pub fn least_partner(&self, x: u32, y: u32) -> u32 {
        y + self.floor[((x - self.x0) & 63) as usize]
    }

    /// Adds the piles exhausted from `t` on and finds the next such anti-diagonal: at
    /// most once per pile, plus once per `f_x` that moved.
    #[cold]
    #[inline(never)]
    fn catch_up(&mut self, t: u32) {
        self.next = u32::MAX;
        for (i, &from) in self.from.iter().enumerate() {
            if from <= t {
                self.exhausted |= 1 << i;
            } else {
                self.next = self.next.min(from);
            }
        }
    }

    /// Before anti-diagonal `t`: reads `f_x` again for one pile, `x0 + t mod 64`, from
    /// its last value on, so that each pile is read once every 64 anti-diagonals.
    #[inline(always)]
    pub fn refresh(&mut self, t: u32, first_clear: impl Fn(u32, u32) -> u32) {
        let i = (t & 63) as usize;
        if self.floor[i] <= self.limit {
            self.floor[i] = first_clear(self.x0 + i as u32, self.floor[i]);
            self.schedule(i, t);
        }
    }

    /// Records from when pile `x0 + i` is exhausted, given `floor[i]`, as seen before
    /// anti-diagonal `t_now`.
    fn schedule(&mut self, i: usize, t_now: u32) {
        let x = self.x0 + i as u32;
        let from = self.limit + x + 1 - self.floor[i].min(self.limit + 1);
        self.from[i] = from;
        if from <= t_now {
            self.exhausted |= 1 << i;
        } else {
            self.next = self.next.min(from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_clear_finds_the_least_clear_bit_up_to_the_limit() {
        let row = [u64::MAX, 0b1011, 0, u64::MAX, u64::MAX];
        assert_eq!(first_clear(&row, 0, 200), 66);
        assert_eq!(first_clear(&row, 66, 200), 66);
        assert_eq!(first_clear(&row, 67, 200), 68);
        assert_eq!(first_clear(&row, 65, 63), 64, "past the limit: limit + 1");
        assert_eq!(first_clear(&row, 0, 63), 64, "bits 0..=63 all set");
        assert_eq!(first_clear(&row, 192, 255), 256, "bits 192..=255 all set");
        assert_eq!(first_clear(&row, 192, 300), 301, "words past the limit's are not read");
        assert_eq!(first_clear(&row, 1000, 300), 301);
        assert_eq!(first_clear(&[0], 0, 0), 0);
        assert_eq!(first_clear(&[1], 0, 0), 1);
    }

    /// The schedule against its definition: pile `x` is exhausted on `t` exactly when
    /// `t - x + f_x > L`, for the `f_x` it was last given.
    #[test]
    fn piles_are_exhausted_from_the_anti_diagonal_their_floor_implies() {
        let limit = 100;
        // k2t rows of piles 10..=14, bits set 0..k for k = 0, 5, 50, 95, 101.
        let set_below = [0u32, 5, 50, 95, 101];
        let rows: Vec<Vec<u64>> = set_below
            .iter()
            .map(|&k| (0..4).map(|w| (0..64).filter(|b| 64 * w + b < k).fold(0u64, |a, b| a | 1 << b)).collect())
            .collect();
        let read = |x: u32, from: u32| first_clear(&rows[(x - 10) as usize], from, limit);
        let mut piles = ExhaustedPiles::new(limit);
        piles.start(10, 14, 20, read);
        for t in 20..=limit + 14 {
            let expected = (10..=14u32)
                .filter(|&x| t - x + set_below[(x - 10) as usize].min(limit + 1) > limit)
                .fold(0u64, |m, x| m | 1 << (x - 10));
            assert_eq!(piles.on_diagonal(t), expected, "t = {t}");
        }
    }

    /// A refresh reads `f_x` of the pile whose turn it is (`t mod 64`) and moves its
    /// exhaustion earlier when marks took it; a mark above `f_x` changes nothing.
    #[test]
    fn a_refresh_moves_the_floor_on() {
        let limit = 200;
        let mut row = [u64::MAX >> 54, 0, 0, 0]; // bits 0..=9: f = 10
        let mut piles = ExhaustedPiles::new(limit);
        piles.start(7, 7, 14, |_, from| first_clear(&row, from, limit));
        // Exhausted from t = L + x + 1 - f = 198.
        assert_eq!(piles.from[0], 198);
        row[0] |= 1 << 11;
        piles.refresh(128, |_, from| first_clear(&row, from, limit));
        assert_eq!((piles.floor[0], piles.from[0]), (10, 198), "bit 11 is above f");
        row[0] |= 1 << 10;
        piles.refresh(129, |_, from| first_clear(&row, from, limit));
        assert_eq!(piles.floor[0], 10, "t = 129 is the turn of slot 1, which has no pile");
        piles.refresh(192, |_, from| first_clear(&row, from, limit));
        assert_eq!((piles.floor[0], piles.from[0]), (12, 196));
        assert_eq!(piles.on_diagonal(195), 0);
        assert_eq!(piles.on_diagonal(196), 1);
        // Every bit up to L - y taken at once: exhausted from the refresh's anti-diagonal.
        let mut piles = ExhaustedPiles::new(limit);
        row = [u64::MAX >> 54, 0, 0, 0];
        piles.start(7, 7, 14, |_, from| first_clear(&row, from, limit));
        row = [u64::MAX, u64::MAX, 0, 0];
        piles.refresh(64, |_, from| first_clear(&row, from, limit));
        assert_eq!((piles.floor[0], piles.from[0]), (128, 80));
        assert_eq!(piles.on_diagonal(79), 0);
        assert_eq!(piles.on_diagonal(80), 1, "f = 128 > L - 73");
    }
}
