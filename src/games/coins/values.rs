//! Values of coin stacks: Blue-Red Hackenbush strings, for any height
//! (docs/theory/coins.md §3–4).
//!
//! A stack is a string of edges from the ground up; Gary (Left, positive) may cut gold
//! edges, Sally (Right, negative) silver ones, and a cut removes everything above. The
//! value is given by the sign-expansion rule: the first run of `r` edges of one colour
//! is worth `±r`; after the first change of colour, the `j`-th further edge adds
//! `±1/2^j` (plus for gold). A stack of `H` coins therefore has a value in
//! `2^-(H-1)·Z`, never 0 (the run is worth at least 1, the tail less than 1), and
//! different stacks of one height have different values (the expansion is unique).
//!
//! Scaled by `2^(H-1)`, the `2^H` stacks of height `H` give the symmetric step set of
//! the DP: `2^(H-1)` positive offsets of multiplicity 1, the largest `H·2^(H-1)`.

use crate::kernels::banded_dp::StepSet;

/// The most coins per stack accepted: the largest scaled value, `16·2^15`, and the
/// step count, `2^15` offsets, stay far inside `u32`.
pub const MAX_HEIGHT: u64 = 16;

/// The value of a stack (coins from the bottom, `true` for gold) times `2^(h-1)`, where
/// `h >= 1` is its number of coins.
pub fn scaled_value(coins: &[bool]) -> i64 {
    let h = coins.len();
    assert!((1..=63).contains(&h), "a stack of {h} coins");
    let sign = |gold: bool| if gold { 1 } else { -1 };
    let unit = 1i64 << (h - 1);
    let run = coins.iter().take_while(|&&c| c == coins[0]).count();
    let tail: i64 = coins[run..].iter().enumerate().map(|(j, &c)| sign(c) * (unit >> (j + 1))).sum();
    sign(coins[0]) * run as i64 * unit + tail
}

/// The DP step set of stacks of exactly `height` coins: each positive scaled value with
/// the number of stacks that have it (the negative ones are the colour swaps).
pub fn step_set(height: u32) -> StepSet {
    assert!((1..=MAX_HEIGHT as u32).contains(&height), "height {height}");
    let h = height as usize;
    let mut counts = std::collections::BTreeMap::<u32, u64>::new();
    for bits in 0..1u32 << h {
        let value = scaled_value(&(0..h).map(|i| bits >> i & 1 == 1).collect::<Vec<_>>());
        if value > 0 {
            *counts.entry(value as u32).or_default() += 1;
        }
    }
    StepSet::new(counts.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::super::brute::{GameTable, Outcome};
    use super::*;

    #[test]
    fn two_coin_stacks_have_the_values_worked_by_hand() {
        // GG = 2, GS = 1/2, SG = -1/2, SS = -2, doubled (docs/theory/coins.md §3–4).
        assert_eq!(scaled_value(&[true, true]), 4);
        assert_eq!(scaled_value(&[true, false]), 1);
        assert_eq!(scaled_value(&[false, true]), -1);
        assert_eq!(scaled_value(&[false, false]), -4);
        assert_eq!(step_set(2), StepSet::two_coin_stacks());
        assert_eq!(step_set(1), StepSet::new(vec![(1, 1)]));
        // Height 3: 3, 3/2, 3/4, 1/4 (GGG, GGS, GSG, GSS) times 4.
        assert_eq!(step_set(3), StepSet::new(vec![(1, 1), (3, 1), (6, 1), (12, 1)]));
    }

    #[test]
    fn step_sets_have_distinct_values_and_the_expected_reach() {
        for h in 1..=12u32 {
            let steps = step_set(h);
            assert_eq!(steps.steps().len(), 1 << (h - 1), "height {h}");
            assert!(steps.steps().iter().all(|&(_, c)| c == 1));
            assert_eq!(steps.max_offset(), h << (h - 1));
        }
    }

    /// The rule against the real game: for every sum of up to three stacks of at most
    /// `height` coins (empty ones included, so single stacks and pairs too), minimax with
    /// both starters gives the outcome that the sign of the summed values predicts.
    #[test]
    fn values_predict_every_outcome_of_up_to_three_stacks() {
        for height in 1..=4usize {
            let table = GameTable::solve(3, height);
            let common = |s: &[bool]| if s.is_empty() { 0 } else { scaled_value(s) << (height - s.len()) };
            let stacks = table.stacks();
            let mut seen = [0usize; 3];
            for x in stacks {
                for y in stacks {
                    for z in stacks {
                        let total = common(x) + common(y) + common(z);
                        let expected = match total.signum() {
                            1 => Outcome::Gary,
                            -1 => Outcome::Sally,
                            _ => Outcome::Second,
                        };
                        assert_eq!(table.outcome(&[x, y, z]), expected, "{x:?} + {y:?} + {z:?}: {total}");
                        seen[(total.signum() + 1) as usize] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&c| c > 0), "height {height}: {seen:?}");
        }
    }
}
