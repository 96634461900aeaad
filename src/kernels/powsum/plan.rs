//! How the power sums raise every value to one exponent: by factors of the exponent.
//!
//! `x^(a·b) = (x^a)^b`, so with `e = f_1·f_2·…·f_k` the power is `k` square-and-multiply
//! runs, each over the bits of one factor and starting from the result of the one before.
//! A run over `f` costs `bits(f) - 1` squarings and `ones(f) - 1` multiplications, and
//! the same two registers per vector as a single run over `e` (the accumulator and the
//! base it multiplies by). Splitting pays when the factors have fewer one bits than `e`:
//! `10^7 = 2^7·5^7` takes 28 products by seven runs over 5 (and seven squarings) against
//! 30 by its bits (docs/theory/cards.md §10.2).

use std::collections::HashMap;

/// Odd divisors up to this bound are tried as factors, and a larger prime factor stays
/// inside a cofactor. A plan is made once per power sum: 2 µs for `10^7`, about 0.15 ms
/// for the most composite exponents below 2^31 (Zen 4), which have a few hundred
/// quotients to try.
const FACTOR_LIMIT: u32 = 1 << 10;

/// The products one square-and-multiply run over the bits of `f >= 1` costs.
pub const fn binary_products(f: u32) -> u32 {
    (31 - f.leading_zeros()) + f.count_ones() - 1
}

/// An exponent `e >= 1` as the factors its power is computed by, chosen to take the
/// fewest Montgomery products among the splits into odd factors up to 2^10 and a
/// cofactor.
///
/// The runs are flattened into one sequence of steps for the kernels' single loop: step
/// `i` squares, then multiplies by the base if bit `i` of `multiply` is set; bit `i` of
/// `rebase` makes the accumulator the base before step `i` (a new factor's run begins).
/// A loop nested over the factors cost the AVX2 power sum a fifth more instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PowerPlan {
    exponent: u32,
    factors: [u32; 32],
    len: usize,
    /// At most 31 steps: the squarings of all runs multiply the exponent by `2^steps`.
    steps: u32,
    multiply: u32,
    rebase: u32,
}

impl PowerPlan {
    /// The plan for `x^e`.
    ///
    /// # Panics
    /// If `e` is 0 or not below 2^32 (a reduced exponent is below the prime, see
    /// [`super::reduced_exponent`]).
    pub fn new(e: u64) -> Self {
        let exponent = u32::try_from(e).ok().filter(|&e| e >= 1).expect("power plan: exponent in 1..2^32");
        let divisors: Vec<u32> =
            (3..=FACTOR_LIMIT.min(exponent)).step_by(2).filter(|&d| exponent.is_multiple_of(d)).collect();
        let mut best = Splits { divisors: &divisors, known: HashMap::new() };
        let mut plan = PowerPlan { exponent, factors: [0; 32], len: 0, steps: 0, multiply: 0, rebase: 0 };
        let mut rest = exponent;
        loop {
            let (_, factor) = best.of(rest);
            // Every factor but the last is at least 3, so at most 21 of them fit in 2^32.
            plan.factors[plan.len] = factor;
            plan.len += 1;
            if factor == rest {
                break;
            }
            rest /= factor;
        }
        for (k, &factor) in plan.factors[..plan.len].iter().enumerate() {
            if k > 0 {
                plan.rebase |= 1 << plan.steps;
            }
            for bit in (0..31 - factor.leading_zeros()).rev() {
                plan.multiply |= (factor >> bit & 1) << plan.steps;
                plan.steps += 1;
            }
        }
        plan
    }

    /// The steps of the flattened runs: one squaring each.
    #[inline(always)]
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Whether step `i` multiplies by the base after its squaring.
    #[inline(always)]
    pub fn multiplies(&self, i: u32) -> bool {
        self.multiply >> i & 1 == 1
    }

    /// Whether the accumulator becomes the base before step `i`.
    #[inline(always)]
    pub fn rebases(&self, i: u32) -> bool {
        self.rebase >> i & 1 == 1
    }

    /// The plan for `x^s mod p`, `s >= 1`, `p` prime: for the exponent reduced by
    /// Fermat's theorem ([`super::reduced_exponent`]), below `p`.
    pub fn for_power_mod(s: u64, p: u32) -> Self {
        Self::new(super::reduced_exponent(s, p))
    }

    /// The exponent `e`.
    pub fn exponent(&self) -> u64 {
        self.exponent as u64
    }

    /// The factors, in the order the runs take them; their product is the exponent.
    pub fn factors(&self) -> &[u32] {
        &self.factors[..self.len]
    }

    /// The Montgomery products of one power by this plan.
    pub fn products(&self) -> u32 {
        self.factors().iter().map(|&f| binary_products(f)).sum()
    }
}

/// The cheapest first factor of each quotient met, by memoized search: each quotient is
/// tried once against the small divisors (for `3·5·…·29 < 2^32`, 512 quotients).
struct Splits<'a> {
    divisors: &'a [u32],
    /// `n -> (products, first factor)` for each `n` solved.
    known: HashMap<u32, (u32, u32)>,
}

impl Splits<'_> {
    /// `(products, first factor)` of the cheapest split of `n`: `n` itself by its bits,
    /// or a small odd divisor `d < n` and the cheapest split of `n / d`.
    fn of(&mut self, n: u32) -> (u32, u32) {
        if let Some(&known) = self.known.get(&n) {
            return known;
        }
        let divisors = self.divisors;
        let mut best = (binary_products(n), n);
        for &d in divisors.iter().filter(|&&d| d < n && n.is_multiple_of(d)) {
            let products = binary_products(d) + self.of(n / d).0;
            if products < best.0 {
                best = (products, d);
            }
        }
        self.known.insert(n, best);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fewest products over every split of each `n < len` into factors `>= 2`, by
    /// exhaustive search over all divisors: the plan may only miss splits with two
    /// factors above [`FACTOR_LIMIT`].
    fn fewest_products(len: u32) -> Vec<u32> {
        let mut fewest = vec![0; len as usize];
        for n in 1..len {
            fewest[n as usize] = (2..n)
                .filter(|d| n % d == 0)
                .map(|d| binary_products(d) + fewest[(n / d) as usize])
                .fold(binary_products(n), u32::min);
        }
        fewest
    }

    #[test]
    fn factors_multiply_to_the_exponent_and_cost_what_the_plan_says() {
        for e in (1..=5000u64).chain([10_000_000, 1_000_000_006, 2_147_483_646, 3_234_846_615, u32::MAX as u64]) {
            let plan = PowerPlan::new(e);
            assert_eq!(plan.factors().iter().map(|&f| f as u64).product::<u64>(), e, "e={e}");
            assert!(plan.factors().iter().all(|&f| f >= 1), "e={e}");
            assert_eq!(plan.products(), plan.factors().iter().map(|&f| binary_products(f)).sum::<u32>());
            assert!(plan.products() <= binary_products(e as u32), "e={e}: no worse than the bits");
        }
    }

    #[test]
    fn the_steps_replay_the_exponent() {
        // Exponents of the accumulator and the base, stepped as the kernels step them.
        for e in (1..=5000u64).chain([10_000_000, 1_000_000_006, 2_147_483_646, u32::MAX as u64]) {
            let plan = PowerPlan::new(e);
            let (mut acc, mut base, mut products) = (1u64, 1u64, 0);
            for i in 0..plan.steps() {
                if plan.rebases(i) {
                    base = acc;
                }
                acc *= 2;
                products += 1;
                if plan.multiplies(i) {
                    acc += base;
                    products += 1;
                }
            }
            assert_eq!((acc, products), (e, plan.products()), "e={e}");
        }
    }

    #[test]
    fn plans_are_the_cheapest_splits_of_small_exponents() {
        let fewest = fewest_products(3001);
        for e in 1..=3000u32 {
            assert_eq!(PowerPlan::new(e as u64).products(), fewest[e as usize], "e={e}");
        }
    }

    #[test]
    fn known_plans() {
        // 10^7 by its bits: 23 squarings and 7 multiplications.
        assert_eq!(binary_products(10_000_000), 30);
        assert_eq!(PowerPlan::new(10_000_000).products(), 28);
        assert_eq!(PowerPlan::new(1).factors(), &[1]);
        assert_eq!(PowerPlan::new(1).products(), 0);
        // A prime exponent has one factor, itself.
        assert_eq!(PowerPlan::new(1_000_003).factors(), &[1_000_003]);
    }

    #[test]
    #[should_panic(expected = "exponent in 1..2^32")]
    fn zero_is_refused() {
        PowerPlan::new(0);
    }
}
