//! Dawson's Kayles (the octal game 0.07): the Grundy value of a row of `L` counters from
//! which a move removes two neighbours (docs/theory/kayles.md §3–4). In partisan Kayles
//! these are the values of the alternating blocks, where both players may knock over a
//! mixed pair.
//!
//! The values are eventually periodic (period 34 after the last irregular value at
//! `L = 52`). [`DawsonValues::certified`] computes a finite table by the mex rule, finds
//! the preperiod and period in it, and proves the periodicity with the Guy–Smith
//! theorem, so `g(L)` for any `L` costs a table look-up instead of an O(L^2) mex table.

use crate::kernels::grundy::Rules;
use crate::kernels::grundy::naive::fill_small_values;

/// The most tokens one move removes in Dawson's Kayles (code `0.07`: exactly two).
const REMOVED: usize = 2;

/// `g(0..=max_len)` by the mex rule `g(L) = mex { g(i) ^ g(L-2-i) : 0 <= i <= L-2 }`.
/// O(L^2); every value is below 16 (the largest is 9).
pub fn dawson_values(max_len: usize) -> Vec<u8> {
    let mut g = vec![0u8; max_len + 1];
    fill_dawson_values(&mut g);
    g
}

/// Dawson's Kayles as move rules: two tokens removed, leaving nothing, one heap or two.
pub const RULES: Rules = Rules { whole: 1 << REMOVED, take: 1 << REMOVED, split: 1 << REMOVED, unequal: false };

/// `g(0..g.len())` into `g`, by the mex rule of the Grundy family (the crate's one mex,
/// [`fill_small_values`]). A `const fn`, so that the compiler can build the certified
/// table ([`CERTIFIED`]) with the same code the tests run.
pub const fn fill_dawson_values(g: &mut [u8]) {
    fill_small_values(&RULES, g);
}

/// The certified Dawson values, evaluated by the compiler (why: [`super::tables`]). A
/// failed certificate is a failed build; [`DawsonValues::compute`] runs the same code at
/// run time for the tests.
pub static CERTIFIED: DawsonValues = DawsonValues::compute();

/// The Dawson values for every `L`, as a certified eventually periodic sequence:
/// `g(L) = table[L]` for `L < preperiod + period`, and `g(L + period) = g(L)` for every
/// `L >= preperiod`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DawsonValues {
    /// `g(0 .. preperiod + period)`, then zeros.
    table: [u8; DawsonValues::SEARCH_LEN + 1],
    preperiod: usize,
    period: usize,
}

impl DawsonValues {
    /// How far the mex table is computed when looking for the period: `g(0..=175)`, exactly
    /// the certification range `2·preperiod + 2·period + 2 = 176` of the true values (a
    /// longer table would certify nothing more).
    const SEARCH_LEN: usize = 175;

    /// The certified values ([`CERTIFIED`], built at compile time).
    pub fn certified() -> &'static Self {
        &CERTIFIED
    }

    /// Computes the first values by mex, finds the shortest (preperiod, period) that
    /// the table shows, and certifies it with the Guy–Smith periodicity theorem.
    ///
    /// # Panics
    /// If no period is found and certified within the search table (this would mean
    /// the mex rule above is wrong, since the true sequence has period 34). At compile
    /// time, for [`CERTIFIED`], that is a build error.
    pub const fn compute() -> Self {
        let mut g = [0u8; Self::SEARCH_LEN + 1];
        fill_dawson_values(&mut g);
        // The theorem below needs the periodicity checked on `[n0, 2·n0 + p + t)`, which
        // uses values up to `2·n0 + 2p + t - 1`: the pairs (n0, p) that fit the table.
        // Take the pair with the least n0 + p (then the least p) that the table shows:
        // for a period p that is the least n0 past the last disagreement g(n) != g(n+p).
        let mut best: Option<(usize, usize)> = None;
        let mut period = 1;
        while period < Self::SEARCH_LEN / 2 {
            let mut preperiod = g.len() - period;
            while preperiod > 0 && g[preperiod - 1] == g[preperiod - 1 + period] {
                preperiod -= 1;
            }
            let fits = 2 * preperiod + 2 * period + REMOVED <= g.len();
            let better = match best {
                Some((n0, p)) => preperiod + period < n0 + p,
                None => true,
            };
            if fits && better {
                best = Some((preperiod, period));
            }
            period += 1;
        }
        let Some((preperiod, period)) = best else {
            panic!("Dawson's Kayles: no period found within the search table");
        };
        if !guy_smith_holds(&g, preperiod, period) {
            panic!("Dawson's Kayles: the period found fails the Guy-Smith certificate");
        }
        // Keep g(0 .. preperiod + period) only.
        let mut n = preperiod + period;
        while n < g.len() {
            g[n] = 0;
            n += 1;
        }
        Self { table: g, preperiod, period }
    }

    /// `g(len)` for any `len`.
    #[inline]
    pub const fn value(&self, len: u64) -> u8 {
        let len = if len < (self.preperiod + self.period) as u64 {
            len as usize
        } else {
            self.preperiod + ((len - self.preperiod as u64) % self.period as u64) as usize
        };
        self.table[len]
    }

    /// `g(0 .. preperiod + period)`: the values that describe all others.
    pub fn table(&self) -> &[u8] {
        &self.table[..self.preperiod + self.period]
    }

    /// The first `L` from which the values repeat.
    pub const fn preperiod(&self) -> usize {
        self.preperiod
    }

    /// The period.
    pub const fn period(&self) -> usize {
        self.period
    }

    /// The largest value the sequence ever takes (it is the largest of the table).
    pub const fn max_value(&self) -> u8 {
        // The zeros past the table change nothing: the maximum is at least g(0) = 0.
        let (mut max, mut i) = (0, 0);
        while i < self.table.len() {
            if self.table[i] > max {
                max = self.table[i];
            }
            i += 1;
        }
        max
    }
}

/// Whether `g(n + p) = g(n)` on the range `n0 <= n < 2·n0 + p + t` that the Guy–Smith
/// periodicity theorem asks for, with `t = 2` for Dawson's Kayles.
///
/// The theorem (Guy and Smith, 1956; Winning Ways ch. 4), for an octal game whose moves
/// remove at most `t` tokens from one heap and leave at most two heaps: if
/// `g(n + p) = g(n)` for every `n` with `n0 <= n < 2·n0 + p + t`, then it holds for every
/// `n >= n0`. The proof for 0.07 is short, and it is why this finite check suffices:
/// take the least `n >= 2·n0 + p + t` with `g(n + p) != g(n)`. A move from `n + p` leaves
/// heaps `i <= j` with `i + j = n + p - 2`, so `j >= (n + p - 2) / 2 >= n0 + p`; then
/// `j - p >= n0` and `j < n + p`, so `g(j) = g(j - p)` (minimality of `n`), and the
/// options of `n + p`, `g(i) ^ g(j)`, are exactly the options `g(i) ^ g(j - p)` of `n`
/// (heaps `i`, `j - p`, which sum to `n - 2`). Equal option sets have equal mex: a
/// contradiction.
const fn guy_smith_holds(g: &[u8], preperiod: usize, period: usize) -> bool {
    let mut n = preperiod;
    while n < 2 * preperiod + period + REMOVED {
        if g[n + period] != g[n] {
            return false;
        }
        n += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_values_match_the_theory_table() {
        // The values, maximum and period of docs/theory/kayles.md §4.
        let expected = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3];
        assert_eq!(dawson_values(20), expected);
        let g = dawson_values(1000);
        assert_eq!(*g.iter().max().unwrap(), 9);
        assert_eq!(g.iter().position(|&v| v == 9), Some(86));
        // Period 34 from L = 53 on (the last irregular value is at L = 52).
        assert!((53..=1000 - 34).all(|l| g[l] == g[l + 34]));
        assert_ne!(g[52], g[52 + 34]);
    }

    #[test]
    fn certified_period_extends_the_mex_table() {
        let certified = DawsonValues::certified();
        assert_eq!(*certified, DawsonValues::compute(), "build time and run time disagree");
        assert_eq!((certified.preperiod(), certified.period()), (53, 34));
        assert_eq!(certified.max_value(), 9);
        // The plain mex table, far past the range the certificate looked at.
        let g = dawson_values(4000);
        for (len, &value) in g.iter().enumerate() {
            assert_eq!(certified.value(len as u64), value, "L = {len}");
        }
        // Far out, the value is the one a period earlier.
        let far = 1u64 << 40;
        assert_eq!(certified.value(far), certified.value(far - 34 * 1000));
    }

    #[test]
    fn the_values_and_period_agree_with_the_octal_game_0_07() {
        use crate::games::octal::{Certificate, Game, Period, certify};
        let game = Game::parse("0.07", crate::games::ProblemId::Grundy).unwrap();
        assert_eq!(game.rules, RULES);
        let g: Vec<u16> = dawson_values(400).iter().map(|&v| v as u16).collect();
        let certified = DawsonValues::certified();
        let expected = Period { preperiod: certified.preperiod(), period: certified.period() };
        assert_eq!(certify(&g, REMOVED), Certificate::Certified(expected));
    }

    #[test]
    fn the_certificate_rejects_a_wrong_period() {
        let g = dawson_values(400);
        assert!(guy_smith_holds(&g, 53, 34));
        assert!(!guy_smith_holds(&g, 52, 34), "L = 52 is irregular");
        assert!(!guy_smith_holds(&g, 53, 17));
    }
}
