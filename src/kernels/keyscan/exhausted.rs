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
//! How much it settles (a model of the strip scan, counted; results/notes.md, stop 29):
//! at `L = 1000`, 74 169 of the 139 071 open pairs without a partner, at `L = 3000`
//! 707 165 of 1 244 274, most of which would read several windows. No other single row
//! settles more than a few per cent at 1000. The scan of `diagonal.rs` settles exactly
//! these counts, and in debug builds checks that every pair it settles fails its search.
//!
//! The same `f_x` bounds every partner from below, `z >= y + f_x`: a search that finds
//! nothing in its first window continues from there instead of from the next word
//! (`window::partner_from`).
//!
//! Keeping `f_x` up to date costs about as much at `L = 1000` as the searches it saves
//! (warm, one thread: 1–2% faster); the gain grows with `L`, where the failing searches
//! read more windows: 12% at 3000 and 15% at `10^4` for the settled pairs alone, and at
//! `10^4` another 14% for the bound (fresh processes, one thread; results/notes.md,
//! stop 29). A second bound of the same kind, from the `K3` row of `y - x`, made no
//! difference at 3000 and `10^4`, and was left out.
//!
//! # Why `f_x` is followed through one mark only
//!
//! A losing triple `(x, y, z)` sets three `k2t` bits: `z - y` in row `x`, `z - x` in row
//! `y`, `y - x` in row `z`. Only the first is checked against `f_x` (one comparison per
//! triple); the other two can take `f_x` of a pile of the strip unseen, and `f_x` then
//! lags until that row's next own mark reaches it. Counted at `L = 1000`, following all
//! three (three comparisons per triple) would settle 81 096 pairs instead of 74 169. A
//! lagging `f_x` is never larger than the true one, so it settles fewer pairs, never a
//! wrong one.

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

    /// After the marks of anti-diagonal `t`, given its losing triples as `(x, z)`: when
    /// the mark `K2(z - y, x)` took bit `f_x`, `f_x` moves on past the bits now set.
    /// After the marks' loop, not inside it: there the extra live values cost more.
    #[inline(always)]
    pub fn after_diagonal(&mut self, found: &[(u32, u32)], t: u32, first_clear: impl Fn(u32, u32) -> u32) {
        for &(x, z) in found {
            let i = ((x - self.x0) & 63) as usize;
            if self.floor[i] == z - (t - x) {
                self.advance(i, t + 1, &first_clear);
            }
        }
    }

    /// Reads `f_x` of pile `x0 + i` again, from its last value on (one triple in twelve
    /// at `L = 1000`).
    #[cold]
    #[inline(never)]
    fn advance(&mut self, i: usize, t_next: u32, first_clear: &impl Fn(u32, u32) -> u32) {
        self.floor[i] = first_clear(self.x0 + i as u32, self.floor[i]);
        self.schedule(i, t_next);
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

    /// A mark that takes `f_x` moves it on, and the pile's exhaustion comes earlier; a
    /// mark elsewhere in the row changes nothing until `f_x` is reached.
    #[test]
    fn a_mark_on_the_floor_moves_it_on() {
        let limit = 200;
        let mut row = [u64::MAX >> 54, 0, 0, 0]; // bits 0..=9: f = 10
        let mut piles = ExhaustedPiles::new(limit);
        piles.start(7, 7, 14, |_, from| first_clear(&row, from, limit));
        // From t = L + x + 1 - f = 198.
        assert_eq!(piles.on_diagonal(150), 0);
        // The triple (7, 150, 161) marks bit 11: not f, nothing moves.
        row[0] |= 1 << 11;
        piles.after_diagonal(&[(7, 161)], 157, |_, from| first_clear(&row, from, limit));
        assert_eq!(piles.from[0], 198);
        // (7, 151, 161) marks bit 10 = f: f moves to 12, exhaustion to 196.
        row[0] |= 1 << 10;
        piles.after_diagonal(&[(7, 161)], 158, |_, from| first_clear(&row, from, limit));
        assert_eq!((piles.floor[0], piles.from[0]), (12, 196));
        assert_eq!(piles.on_diagonal(195), 0);
        assert_eq!(piles.on_diagonal(196), 1);
        // Every bit up to L - y taken at once: exhausted from the next anti-diagonal.
        let mut piles = ExhaustedPiles::new(limit);
        row = [u64::MAX >> 54, 0, 0, 0];
        piles.start(7, 7, 14, |_, from| first_clear(&row, from, limit));
        assert_eq!(piles.on_diagonal(100), 0);
        row = [u64::MAX, u64::MAX, 0, 0];
        piles.after_diagonal(&[(7, 103)], 100, |_, from| first_clear(&row, from, limit));
        assert_eq!(piles.on_diagonal(101), 1, "f = 128 > L - 94");
    }
}
