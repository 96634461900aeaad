//! A rough time estimate of a run, so one that will take long says so on stderr before
//! it starts (with the estimate) instead of starting silently on a path of minutes.
//!
//! The rates are this project's 2-core VM's (README, results/), within a factor of two
//! or three: enough to tell seconds from hours. Only the costly shapes are modelled; the
//! rest is taken as quick.

use super::output;
use crate::games::{Request, coins, kayles, stones};
use crate::sched::Scheduler;

/// Runs estimated to take at least this long are announced.
const ANNOUNCE_FROM_SECONDS: f64 = 2.0;

/// Stones limits beyond this are always announced (the tables outgrow the caches, and
/// the time grows as L² or faster).
const STONES_ANNOUNCE_ABOVE: u32 = 10_000;

/// Seconds `request` is expected to take on `threads` threads, and the shape that costs,
/// for the costly shapes only.
pub fn seconds(request: &Request, threads: usize) -> Option<(f64, String)> {
    // Threads beyond the cores take turns; two workers give about 1.6 times one here.
    let parallel = 1.0 + 0.6 * (threads.min(Scheduler::available_cores()).max(1) - 1) as f64;
    match request {
        Request::Kayles(p, k) => {
            let n = p.pins as f64;
            let (rate, shape) = match k {
                // 8 s at 10^5 pins; catalan-words 147 ms at 6·10^4.
                kayles::KaylesKernel::Reference => (4e-9, "O(N²)"),
                kayles::KaylesKernel::Catalan => (8e-10, "O(N²)"),
                kayles::KaylesKernel::CatalanWords => (4e-11, "O(N²)"),
                kayles::KaylesKernel::Newton => return Some((1.2e-6 * n, format!("newton over {} pins", p.pins))),
            };
            Some((rate * n * n / parallel, format!("{k}, {shape} over {} pins", p.pins)))
        }
        Request::Stones(p, k) => {
            let l = p.limit as f64;
            if *k == stones::StonesKernel::Naive {
                return Some((2e-9 * l * l * l / 6.0, format!("naive, O(L³) at L = {}", p.limit)));
            }
            // 1.14 s at L = 10^4 on one thread, growing as L².
            let parallel = if matches!(k, stones::StonesKernel::DiagonalTiles | stones::StonesKernel::Wavefront) {
                parallel
            } else {
                1.0
            };
            Some((1.14e-8 * l * l / parallel, format!("{k} at L = {}", p.limit)))
        }
        Request::Coins(p, k) => {
            let (n, h) = (p.stacks as f64, p.height as i32);
            let stacks = 2f64.powi(h);
            // The largest stack value, scaled by 2^(H-1), bounds the band: H·2^(H-1).
            let reach = p.height as f64 * 2f64.powi(h - 1);
            let dp_work = n * n * reach * stacks;
            let (rate, shape) = match k {
                // 4.4 s for F(9898) at height 2 (dp-scalar); 49 ms (dp-simd).
                coins::CoinsKernel::DpScalar => (2.8e-9, "O(N²·4^(H-1)) DP"),
                coins::CoinsKernel::DpSimd => (5e-11, "O(N²·4^(H-1)) DP"),
                coins::CoinsKernel::DpParallel => (5e-11 / parallel, "O(N²·4^(H-1)) DP"),
                // 2.6 s at 200 stacks of height 10; 0.18 s for the values alone at 12.
                coins::CoinsKernel::Recurrence => {
                    let s = 1.2e-8 * (n + 1.0) * stacks * stacks;
                    return Some((s, format!("recurrence, O(N·4^H) at height {}", p.height)));
                }
                coins::CoinsKernel::ClosedForm => return Some((5e-9 * n, "closed-form, O(N)".into())),
            };
            // Tall stacks cost before the first layer too: their values, O(4^H).
            Some((rate * dp_work + 1.2e-8 * stacks * stacks, format!("{k}, {shape} over {} stacks", p.stacks)))
        }
        Request::Cards(..) => None,
    }
}

/// Whether a run of `request` is announced: a long estimate, or stones past 10^4.
fn announced(request: &Request, estimate: f64) -> bool {
    let big_stones = matches!(request, Request::Stones(p, _) if p.limit > STONES_ANNOUNCE_ABOVE);
    estimate >= ANNOUNCE_FROM_SECONDS || big_stones
}

/// `"about 3 min"` and the like.
pub fn format_seconds(seconds: f64) -> String {
    match seconds {
        s if s < 90.0 => format!("about {:.0} s", s.max(1.0)),
        s if s < 90.0 * 60.0 => format!("about {:.0} min", s / 60.0),
        s if s < 48.0 * 3600.0 => format!("about {:.0} h", s / 3600.0),
        s => format!("about {:.0} days", s / 86400.0),
    }
}

/// Says on stderr, before the work, that a long run is starting and how long it should
/// take; `progress`: whether the run draws progress bars.
pub fn announce(request: &Request, sched: &Scheduler, progress: bool) {
    let Some((estimate, shape)) = seconds(request, sched.threads()) else { return };
    if !announced(request, estimate) {
        return;
    }
    output::note(&format!(
        "note: {}: this run should take {} ({shape}, {} threads){}",
        request.problem(),
        format_seconds(estimate),
        sched.threads(),
        if progress { "; progress below" } else { "; a progress bar shows on a terminal" }
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ProblemId, coins::CoinsParams, stones::StonesParams};

    fn estimate(request: &Request) -> f64 {
        seconds(request, 2).map_or(0.0, |(s, _)| s)
    }

    #[test]
    fn long_shapes_are_announced_and_the_instances_are_not() {
        for problem in ProblemId::ALL {
            let request = Request::instance(problem, 2);
            assert!(!announced(&request, estimate(&request)), "{problem}");
        }
        let coins = |n, h, k| Request::Coins(CoinsParams::new(n, h, 989_898_989).unwrap(), k);
        for request in [
            coins(1, 16, coins::CoinsKernel::Recurrence),
            coins(20, 12, coins::CoinsKernel::Recurrence),
            coins(100_000, 2, coins::CoinsKernel::DpParallel),
            coins(10_000, 2, coins::CoinsKernel::DpScalar),
            Request::Stones(StonesParams::new(10_001).unwrap(), stones::StonesKernel::Diagonal),
        ] {
            assert!(announced(&request, estimate(&request)), "{request:?}");
        }
        assert_eq!(format_seconds(30.0), "about 30 s");
        assert_eq!(format_seconds(600.0), "about 10 min");
        assert_eq!(format_seconds(7200.0), "about 2 h");
    }
}
