//! The closed form's terms in sixteen runs, one per lane, on the SIMD layer.
//!
//! The scalar loop of [`super::closed_form`] is a chain: each of its three products per
//! term waits on the one before, about 20 cycles a term. Here the terms are cut into
//! sixteen runs of equal length and lane `i` walks run `i` on its own, with its own
//! difference tables of the ratio's numerator `N(t)` and denominator `D(t)` and its own
//! `(term, sum, den)` relative to the term before the run. Sixteen chains then advance
//! by one vector product each, and the caller joins the runs' fractions in order
//! (docs/theory/coins.md §7, "Runs in lanes").

use crate::arith::{LANES, ModLanes, Montgomery32};
use crate::simd::mont::{Block, Mont};

/// Levels of a difference table of a polynomial of degree 8: `Δ^0 ..= Δ^8`.
pub const LEVELS: usize = 9;

/// Factors of each side of the ratio: `N(t)` and `D(t)` are products of eight.
pub const FACTORS: usize = 8;

/// One factor of the ratio, `base + slope·t` at term `t`, modulo `p`.
#[derive(Clone, Copy, Debug)]
pub struct LinearFactor {
    /// The factor at `t = 0`, a residue below `p`.
    pub base: u32,
    /// Its change per term (`±5` or `±3` for the two-coin ratio).
    pub slope: i8,
}

/// The difference tables at each lane's first point: `tables[k]` holds `Δ^k` of every
/// lane's polynomial, residues below `p`, built from its values at that point and the
/// eight after it (`values[j]`, lane by lane).
fn difference_tables(mut values: [Block; LEVELS], p: u32) -> [Block; LEVELS] {
    for k in 1..LEVELS {
        for s in (k..LEVELS).rev() {
            let below = values[s - 1];
            for (hi, lo) in values[s].iter_mut().zip(below) {
                *hi = if *hi >= lo { *hi - lo } else { *hi + (p - lo) };
            }
        }
    }
    values
}

crate::multiversion! {
    /// The difference tables of `N` (`[0]`) and `D` (`[1]`) with lane `i` at term
    /// `starts[i]` (each below `p`), each side the product of its eight `factors`. The
    /// values are Montgomery products of plain residues, so every value of both sides
    /// carries the same factor `2^-224`, which cancels in the ratio `N/D`.
    pub fn run_tables(mont: &Montgomery32, factors: &[[LinearFactor; FACTORS]; 2], starts: &Block) -> [[Block; LEVELS]; 2] => run_tables_generic;
}

#[inline(always)]
fn run_tables_generic<B: Mont>(
    mont: &Montgomery32,
    factors: &[[LinearFactor; FACTORS]; 2],
    starts: &Block,
) -> [[Block; LEVELS]; 2] {
    let lanes = ModLanes::<B>::from_scalar(*mont);
    let p = mont.modulus();
    let t = B::load(starts);
    let mut tables = [[[0; LANES]; LEVELS]; 2];
    for (side, values) in factors.iter().zip(tables.iter_mut()) {
        // Each factor at the lane's start, base ± |slope|·t by additions (|slope| <= 5),
        // and its step per term as a residue.
        let mut at = [B::splat(0); FACTORS];
        let mut step = [B::splat(0); FACTORS];
        for (f, factor) in side.iter().enumerate() {
            let mut multiple = B::splat(0);
            for _ in 0..factor.slope.unsigned_abs() {
                multiple = lanes.add(multiple, t);
            }
            let base = B::splat(factor.base);
            let magnitude = factor.slope.unsigned_abs() as u32 % p;
            if factor.slope >= 0 {
                at[f] = lanes.add(base, multiple);
                step[f] = B::splat(magnitude);
            } else {
                at[f] = lanes.sub(base, multiple);
                step[f] = B::splat((p - magnitude) % p);
            }
        }
        for value in values.iter_mut() {
            let mut product = at[0];
            for &factor in &at[1..] {
                product = lanes.mul(product, factor);
            }
            B::store(value, product);
            for f in 0..FACTORS {
                at[f] = lanes.add(at[f], step[f]);
            }
        }
        *values = difference_tables(*values, p);
    }
    tables
}

/// Sixteen runs after `steps` terms each: per lane, `term / den` is the run's last term
/// and `sum / den` the sum of its terms, both relative to the term before the run, and
/// `tables` are the lane's difference tables, now at the term after the run.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    pub term: Block,
    pub sum: Block,
    pub den: Block,
    pub tables: [[Block; LEVELS]; 2],
}

crate::multiversion! {
    /// Every lane walks `steps` terms from its difference `tables` ([`run_tables`]):
    /// `term·N`, `sum·D + term` and `den·D` per term, Montgomery products of plain
    /// residues, so `term`, `sum` and `den` of one lane carry the same scale.
    pub fn walk_runs(mont: &Montgomery32, tables: &[[Block; LEVELS]; 2], steps: u64) -> Runs => walk_runs_generic;
}

#[inline(always)]
fn walk_runs_generic<B: Mont>(mont: &Montgomery32, tables: &[[Block; LEVELS]; 2], steps: u64) -> Runs {
    let lanes = ModLanes::<B>::from_scalar(*mont);
    let mut num = [B::splat(0); LEVELS];
    let mut den_ratio = [B::splat(0); LEVELS];
    for k in 0..LEVELS {
        num[k] = B::load(&tables[0][k]);
        den_ratio[k] = B::load(&tables[1][k]);
    }
    // A Montgomery modulus is odd and at least 3, so 1 is a residue.
    let (mut term, mut sum, mut den) = (B::splat(1), B::splat(0), B::splat(1));
    for _ in 0..steps {
        term = lanes.mul(term, num[0]);
        sum = lanes.add(lanes.mul(sum, den_ratio[0]), term);
        den = lanes.mul(den, den_ratio[0]);
        // Δ^k(t + 1) = Δ^k(t) + Δ^(k+1)(t), in increasing k so that each reads the old
        // level above it; Δ^8 is constant.
        for k in 0..LEVELS - 1 {
            num[k] = lanes.add(num[k], num[k + 1]);
            den_ratio[k] = lanes.add(den_ratio[k], den_ratio[k + 1]);
        }
    }
    let mut runs = Runs { term: [0; LANES], sum: [0; LANES], den: [0; LANES], tables: [[[0; LANES]; LEVELS]; 2] };
    B::store(&mut runs.term, term);
    B::store(&mut runs.sum, sum);
    B::store(&mut runs.den, den);
    for k in 0..LEVELS {
        B::store(&mut runs.tables[0][k], num[k]);
        B::store(&mut runs.tables[1][k], den_ratio[k]);
    }
    runs
}

crate::multiversion! {
    /// `C(top, k)` as a fraction `(Π_{i<k} (top - i), Π_{i<k} (i + 1))` modulo `p`, for
    /// `k <= top < p`: sixteen lanes each multiply every sixteenth factor, then the lanes
    /// are multiplied together. The two products are two independent chains of `k/16`
    /// vector products instead of two of `k` scalar ones, and numerator and denominator
    /// take the same Montgomery products, so their scales are equal.
    pub fn binomial_fraction_lanes(mont: &Montgomery32, top: u32, k: u32) -> (u32, u32) => binomial_fraction_lanes_generic;
}

#[inline(always)]
fn binomial_fraction_lanes_generic<B: Mont>(mont: &Montgomery32, top: u32, k: u32) -> (u32, u32) {
    debug_assert!(k <= top && top < mont.modulus());
    let lanes = ModLanes::<B>::from_scalar(*mont);
    let one = B::splat(1);
    let (mut num, mut den) = (one, one);
    let full = k as usize / LANES;
    // Factors of block j, lane i: top - (16j + i) and 16j + i + 1, in [1, top] while
    // 16j + i < k (the lanes past k wrap, and the last block replaces them by 1).
    let mut down = B::load(&std::array::from_fn(|i| top.wrapping_sub(i as u32)));
    let mut up = B::load(&std::array::from_fn(|i| i as u32 + 1));
    let sixteen = B::splat(LANES as u32);
    for _ in 0..full {
        num = lanes.mul(num, down);
        den = lanes.mul(den, up);
        down = B::sub(down, sixteen);
        up = B::add(up, sixteen);
    }
    // The last, partial block: factors of 1 past k, in both.
    let used = k as usize % LANES;
    let (mut last_down, mut last_up) = (B::to_array(down), B::to_array(up));
    for lane in used..LANES {
        (last_down[lane], last_up[lane]) = (1, 1);
    }
    num = lanes.mul(num, B::load(&last_down));
    den = lanes.mul(den, B::load(&last_up));
    let fold = |v: Block| v.iter().skip(1).fold(v[0], |acc, &x| mont.mul(acc, x));
    (fold(B::to_array(num)), fold(B::to_array(den)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::inv_mod;
    use crate::simd::Simd;

    /// `C(top, k) mod p` by Pascal's triangle.
    fn pascal(top: usize, k: usize, p: u64) -> u64 {
        let mut row = vec![1u64];
        for _ in 0..top {
            let mut next = vec![1u64; row.len() + 1];
            for i in 1..row.len() {
                next[i] = (row[i - 1] + row[i]) % p;
            }
            row = next;
        }
        row[k] % p
    }

    #[test]
    fn binomial_fractions_are_binomials_on_every_backend() {
        // Every k around the block edges (0, 15, 16, 17, ..), up to a full top.
        for p in [3u32, 101, 10_007, 989_898_989, 2_147_483_647] {
            let mont = Montgomery32::new(p as u64).expect("an odd prime below 2^31");
            for simd in Simd::tested() {
                for top in [0u32, 1, 2, 15, 16, 17, 40, 100].into_iter().filter(|&t| t < p) {
                    for k in 0..=top {
                        let (num, den) = binomial_fraction_lanes(simd, &mont, top, k);
                        let inverse = inv_mod(den as u64, p as u64).expect("den is a unit");
                        let got = num as u64 * inverse % p as u64;
                        assert_eq!(got, pascal(top as usize, k as usize, p as u64), "C({top}, {k}) mod {p} on {simd}");
                    }
                }
            }
        }
    }

    /// Two sides of eight linear factors with every slope the ratio uses and bases near
    /// 0 and near `p`, so that the factors cross 0 and `p` within a few terms.
    fn test_factors(p: u32) -> [[LinearFactor; FACTORS]; 2] {
        let slopes = [-5i8, -5, -3, 3, 5, 5, -3, 3];
        let bases = [4i64, 0, 2, -1, -7, 11, 1, -2];
        let side = |shift: i64| {
            std::array::from_fn(|f| LinearFactor {
                base: (bases[f] + shift).rem_euclid(p as i64) as u32,
                slope: slopes[f],
            })
        };
        [side(0), side(5)]
    }

    /// `Π factors` at term `t`, with the same Montgomery products as the lanes.
    fn side_value(mont: &Montgomery32, side: &[LinearFactor; FACTORS], t: u64) -> u32 {
        let p = mont.modulus() as i64;
        let at = |f: &LinearFactor| (f.base as i64 + f.slope as i64 * t as i64).rem_euclid(p) as u32;
        side[1..].iter().fold(at(&side[0]), |acc, f| mont.mul(acc, at(f)))
    }

    #[test]
    fn run_tables_step_each_lane_through_its_products() {
        // Lane i starts at its own term; stepping its tables by the differences must give
        // the product of its factors at every later term, for a small and a large prime.
        for p in [7u32, 101, 1_000_003, 2_147_483_647] {
            let mont = Montgomery32::new(p as u64).expect("an odd prime below 2^31");
            let factors = test_factors(p);
            let starts: Block = std::array::from_fn(|i| (i as u32 * 13 + i as u32 % 3) % p);
            for simd in Simd::tested() {
                let tables = run_tables(simd, &mont, &factors, &starts);
                for (side, mut table) in factors.iter().zip(tables) {
                    for step in 0..40u64 {
                        for lane in 0..LANES {
                            let want = side_value(&mont, side, starts[lane] as u64 + step);
                            assert_eq!(table[0][lane], want, "p = {p}, lane {lane}, step {step} on {simd}");
                        }
                        for k in 0..LEVELS - 1 {
                            let above = table[k + 1];
                            for (value, add) in table[k].iter_mut().zip(above) {
                                *value = ((*value as u64 + add as u64) % p as u64) as u32;
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn walked_runs_match_the_scalar_chain_lane_by_lane() {
        // Every lane's (term, sum, den) after `steps` terms equals the scalar loop over the
        // same ratios, and its tables stand at the term after its run.
        for p in [3u32, 101, 989_898_989, 2_147_483_647] {
            let mont = Montgomery32::new(p as u64).expect("an odd prime below 2^31");
            let factors = test_factors(p);
            for steps in [0u64, 1, 2, 9, 40] {
                let starts: Block = std::array::from_fn(|i| (i as u64 * steps % p as u64) as u32);
                for simd in Simd::tested() {
                    let tables = run_tables(simd, &mont, &factors, &starts);
                    let runs = walk_runs(simd, &mont, &tables, steps);
                    let after = run_tables(
                        simd,
                        &mont,
                        &factors,
                        &std::array::from_fn(|i| ((starts[i] as u64 + steps) % p as u64) as u32),
                    );
                    for lane in 0..LANES {
                        let (mut term, mut sum, mut den) = (1u32, 0u32, 1u32);
                        for t in starts[lane] as u64..starts[lane] as u64 + steps {
                            let (n, d) = (side_value(&mont, &factors[0], t), side_value(&mont, &factors[1], t));
                            term = mont.mul(term, n);
                            sum = mont.add(mont.mul(sum, d), term);
                            den = mont.mul(den, d);
                        }
                        let got = (runs.term[lane], runs.sum[lane], runs.den[lane]);
                        assert_eq!(got, (term, sum, den), "p = {p}, {steps} steps, lane {lane} on {simd}");
                        for (walked, fresh) in runs.tables.iter().flatten().zip(after.iter().flatten()) {
                            assert_eq!(walked[lane], fresh[lane], "p = {p}, {steps} steps, lane {lane} on {simd}");
                        }
                    }
                }
            }
        }
    }
}
