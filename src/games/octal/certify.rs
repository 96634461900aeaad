//! The Guy–Smith certificate of a table (docs/theory/octal.md §3): the least period a
//! table `G(0..=N)` proves, with its least preperiod.
//!
//! For each `p` the run of agreement `G(x) = G(x + p)` is followed down from the end of
//! the table; its start is the least `e` for `p`. Almost every run is a few heaps long,
//! and a run shorter than [`LANE_STEPS`] can neither certify (the window needs a run of
//! about `N/2`) nor make a candidate unless `p < LANE_STEPS / 2`. So the first
//! `LANE_STEPS` heaps of the runs of a block of consecutive periods are followed together,
//! one heap of every run per pass over a contiguous slice, in lanes the compiler
//! vectorises; only the runs still going afterwards are followed one by one. That turns
//! a branch per heap (mispredicted about once per period) into a few passes of
//! straight-line compares: §3, "Finding the certificate".

/// A certified period: `G(n + period) = G(n)` for every `n >= preperiod`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// The least `e` from which the values repeat with `period`.
    pub preperiod: usize,
    /// The least period the table certifies.
    pub period: usize,
}

/// What a table says about periodicity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Certificate {
    /// The least period certified within the table, with its least preperiod.
    Certified(Period),
    /// No period certified; the least `p` whose repeats cover at least two periods at
    /// the end of the table, with the table length its certificate would need.
    Candidate { period: Period, heaps_needed: u64 },
    /// Nothing periodic in sight.
    None,
}

/// Heaps of every run followed in the lanes before the runs still going are followed
/// one at a time. A run of a table that is not periodic with that `p` survives 8 heaps
/// with probability about `q^8`, `q` the chance that two values agree (`q^8` < 1% for
/// `q` < 0.55): the few survivors cost less than more passes (16 or 32 steps took 1.5
/// and 2.5 times as long on 0.354 at `N = 10^6`).
const LANE_STEPS: usize = 8;
/// Periods whose runs are followed together: their lanes and the slice of the table
/// they read stay in L1 (4096 was a little faster than 1024 and 16384).
const PERIOD_BLOCK: usize = 1 << 12;
/// Runs still going are followed down this many heaps per slice compare.
const RUN_CHUNK: usize = 64;

/// The certificate (docs/theory/octal.md §3) for the values `g = G(0..=N)` of an octal
/// game removing at most `k` tokens: the least `p` with some `e` such that
/// `G(n + p) = G(n)` for `e <= n < 2 max(e, 1) + p + k`, within the table
/// (`2 max(e, 1) + 2p + k - 1 <= N`), and the least such `e`.
///
/// A run that spans more than a period also covers every multiple of `p`, so the
/// multiples start their scans below it, which keeps the whole search near-linear even
/// when the period has many multiples in the table.
pub fn certify(g: &[u16], k: usize) -> Certificate {
    certify_in_blocks(g, k, PERIOD_BLOCK)
}

fn certify_in_blocks(g: &[u16], k: usize, period_block: usize) -> Certificate {
    let Some(n) = g.len().checked_sub(1) else { return Certificate::None };
    // Periods p with 2 + 2p + k <= N + 1 fit a window in the table.
    let Some(last_p) = (n + 1).checked_sub(2 + k).map(|room| room / 2) else { return Certificate::None };
    // Known run starts of multiples of long runs: G(x) = G(x + p) for x >= hints[p]
    // (`NO_HINT`: none). Indexed by `p`, grown to the largest multiple hinted: a hash
    // map's lookup per `p` cost more than the scans themselves. Starts fit in 32 bits
    // (`MAX_HEAPS`).
    const NO_HINT: u32 = u32::MAX;
    debug_assert!(n < NO_HINT as usize);
    let mut hints: Vec<u32> = Vec::new();
    let mut candidate: Option<Period> = None;
    let mut lanes = vec![0u16; period_block.min(last_p)];
    let mut first = 1;
    while first <= last_p {
        let end = (first + period_block).min(last_p + 1);
        // `lanes[i]`: how many heaps (at most LANE_STEPS) the run of p = end - 1 - i
        // keeps; `None` for tables too short for the lanes. From 2 LANE_STEPS heaps on a
        // capped run is far from the window, and top + 1 >= LANE_STEPS for every p keeps
        // the lanes' heaps inside the table.
        let short_runs = (n >= 2 * LANE_STEPS && n + 1 - end >= LANE_STEPS).then(|| {
            let lanes = &mut lanes[..end - first];
            follow_runs_in_lanes(g, end, lanes);
            &*lanes
        });
        for p in first..end {
            let top = n - p; // the largest x with x + p in the table
            let run = short_runs.map(|lanes| lanes[end - 1 - p] as usize);
            if let Some(run) = run
                && run < LANE_STEPS
                && 2 * p > run
            {
                // A run this short neither reaches the window (it needs about N/2
                // heaps) nor spans two periods: nothing to record for this p.
                debug_assert!(2 * (top + 1 - run).max(1) + 2 * p + k - 1 > n);
                continue;
            }
            let start = match run {
                Some(run) if run < LANE_STEPS => top + 1 - run,
                _ => {
                    let known = run.unwrap_or(0);
                    let hint = hints.get(p).map_or(NO_HINT as usize, |&h| h as usize);
                    run_start(g, p, hint.min(top + 1 - known))
                }
            };
            let needed = 2 * start.max(1) + 2 * p + k - 1;
            if needed <= n {
                return Certificate::Certified(Period { preperiod: start, period: p });
            }
            if top + 1 - start >= 2 * p {
                candidate.get_or_insert(Period { preperiod: start, period: p });
                // A hint helps a multiple m only when it reaches below its top, N - m.
                for multiple in (2 * p..=last_p.min(n - start)).step_by(p) {
                    if hints.len() <= multiple {
                        hints.resize(multiple + 1, NO_HINT);
                    }
                    hints[multiple] = hints[multiple].min(start as u32);
                }
            }
        }
        first = end;
    }
    match candidate {
        Some(period) => Certificate::Candidate {
            period,
            heaps_needed: (2 * period.preperiod.max(1) + 2 * period.period + k - 1) as u64,
        },
        None => Certificate::None,
    }
}

/// Follows the runs of agreement of the periods `end - lanes.len() .. end` down from the
/// end of `g`, at most [`LANE_STEPS`] heaps each: `lanes[i]` becomes the length of the
/// run of `p = end - 1 - i`, capped there. Needs `g.len() - end >= LANE_STEPS`.
fn follow_runs_in_lanes(g: &[u16], end: usize, lanes: &mut [u16]) {
    let n = g.len() - 1;
    lanes.fill(0);
    for step in 0..LANE_STEPS {
        // Heap x = n - step against x - p: for lane i that is g[n - step - (end - 1) + i],
        // one contiguous slice for the whole block. A lane still going has run == step.
        let value = g[n - step];
        let low = n - step - (end - 1);
        let partners = &g[low..low + lanes.len()];
        let alive = step as u16;
        // Lanes as wide as the values, so that the compares vectorise without packing.
        for (run, &partner) in lanes.iter_mut().zip(partners) {
            *run += u16::from(*run == alive) & u16::from(partner == value);
        }
    }
}

/// The start of the run of `G(x) = G(x + p)` that reaches down to `from` (every `x` in
/// `from..=N - p` agrees): slices of [`RUN_CHUNK`] heaps while they agree, then heap by
/// heap.
fn run_start(g: &[u16], p: usize, mut from: usize) -> usize {
    while from >= RUN_CHUNK && g[from - RUN_CHUNK..from] == g[from - RUN_CHUNK + p..from + p] {
        from -= RUN_CHUNK;
    }
    while from > 0 && g[from - 1] == g[from - 1 + p] {
        from -= 1;
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    /// The certificate by its definition, one heap at a time.
    fn certify_heap_by_heap(g: &[u16], k: usize) -> Certificate {
        let n = g.len() - 1;
        let mut candidate = None;
        let mut p = 1;
        while 2 + 2 * p + k <= n + 1 {
            let mut start = n - p + 1;
            while start > 0 && g[start - 1] == g[start - 1 + p] {
                start -= 1;
            }
            if 2 * start.max(1) + 2 * p + k - 1 <= n {
                return Certificate::Certified(Period { preperiod: start, period: p });
            }
            if n - p + 1 - start >= 2 * p && candidate.is_none() {
                candidate = Some(Period { preperiod: start, period: p });
            }
            p += 1;
        }
        match candidate {
            Some(period) => Certificate::Candidate {
                period,
                heaps_needed: (2 * period.preperiod.max(1) + 2 * period.period + k - 1) as u64,
            },
            None => Certificate::None,
        }
    }

    /// `len` values: `alphabet` values at random up to `preperiod`, then a random block
    /// of `period` values repeated, with a few values changed (`noise` per 1000).
    fn table(seed: u64, len: usize, alphabet: u64, preperiod: usize, period: usize, noise: u64) -> Vec<u16> {
        let mut rng = SplitMix64(seed);
        let mut next = |range| rng.below(range) as u16;
        let block: Vec<u16> = (0..period).map(|_| next(alphabet)).collect();
        (0..len)
            .map(|x| {
                let v = if x < preperiod { next(alphabet) } else { block[(x - preperiod) % period] };
                if u64::from(next(1000)) < noise { next(alphabet) } else { v }
            })
            .collect()
    }

    #[test]
    fn lanes_and_slices_find_the_certificate_of_the_definition() {
        let mut cases = 0;
        for seed in 1..40u64 {
            let mut rng = SplitMix64(seed * 7919);
            let mut pick = |range| rng.below(range);
            let len = [1, 2, 3, 40, 65, 67, 100, 130, 300, 1000, 3000][seed as usize % 11] + pick(50) as usize;
            let alphabet = [1, 2, 3, 5, 24][pick(5) as usize];
            let period = 1 + pick(len as u64 / 3 + 1) as usize;
            let preperiod = pick(len as u64 / 2 + 1) as usize;
            let noise = [0, 0, 1, 20][pick(4) as usize];
            let g = table(seed, len, alphabet, preperiod, period, noise);
            for k in [1, 2, 3, 7] {
                // Blocks of a few periods, so that short tables cross block ends too.
                for block in [1, 5, 64, PERIOD_BLOCK] {
                    for cut in [len, len * 3 / 4, len / 2] {
                        let g = &g[..cut.max(1)];
                        assert_eq!(
                            certify_in_blocks(g, k, block),
                            certify_heap_by_heap(g, k),
                            "seed {seed}, {} values of {alphabet}, period {period} from {preperiod}, noise \
                             {noise}, k {k}, block {block}",
                            g.len()
                        );
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 1000);
        assert_eq!(certify(&[], 1), Certificate::None);
    }

    #[test]
    fn long_runs_and_their_multiples_are_followed_exactly() {
        // Periods with many multiples in the table (the hints), a period long enough for
        // the slices, and a table of one value (every run survives the lanes).
        for (seed, period, preperiod) in [(3, 7, 500), (4, 1, 9000), (5, 2, 0), (6, 700, 1234), (7, 3000, 100)] {
            let g = table(seed, 20_000, 4, preperiod, period, 0);
            for cut in [20_000, 15_001, 9_999, 5_000] {
                assert_eq!(certify(&g[..cut], 2), certify_heap_by_heap(&g[..cut], 2), "period {period}, {cut} values");
            }
        }
        // Every start of a long run modulo the slices' width, and every distance from
        // the end: values before the preperiod that appear nowhere else, so that the
        // run of the period starts exactly there.
        for period in [150, 151, 233] {
            for preperiod in 0..3 * RUN_CHUNK {
                let mut g = table(preperiod as u64 + 11, 2000, 3, preperiod, period, 0);
                g[..preperiod].iter_mut().enumerate().for_each(|(x, v)| *v = 100 + x as u16);
                let certified = Certificate::Certified(Period { preperiod, period });
                assert_eq!(certify(&g, 1), certified, "preperiod {preperiod}");
                assert_eq!(certify_heap_by_heap(&g, 1), certified);
            }
        }
        let flat = vec![5u16; 10_000];
        assert_eq!(certify(&flat, 3), Certificate::Certified(Period { preperiod: 0, period: 1 }));
        assert_eq!(certify(&flat, 3), certify_heap_by_heap(&flat, 3));
    }
}
