//! This machine's limits, measured with the project's own code: what the kernels are
//! compared against in results/README.md.
//!
//! Each figure is the best of several passes (the machine is shared: the best pass is
//! the one least disturbed), for 1 thread and for all threads; last, on one thread, the
//! first write to fresh pages (`first_touch.rs`).

use crate::first_touch::{PageKind, first_touch_micros};
use crate::{Provenance, csv_field};
use gamecount::arith::{ModLanes, Montgomery32};
use gamecount::simd::dots::{Dots, PAIR_LANES, PairVec, RingVec};

use gamecount::files::{AtomicFile, Writer};
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;
use gamecount::simd::mont::Mont;
use std::fmt::Write;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;
use wide::u32x16;

/// Bytes of the streaming array: well past the L3 this VM behaves as having (≲ 20 MiB).
const STREAM_BYTES: usize = 512 << 20;
/// Passes per figure.
const PASSES: usize = 5;
const P: u32 = 1_000_000_007;

/// A value for lane `lane` of chain `chain` from `seed`, below `2^30`: every lane of every
/// chain starts from its own value, so the compiler can neither compute one lane or one
/// register of a vector for all (identical halves of a two-register vector were computed
/// once) nor one chain for several.
fn lane_seed(seed: u64, chain: usize, lane: usize) -> u32 {
    let x = (seed + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((chain as u64) << 32 | lane as u64);
    (x.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 34) as u32
}

/// Best time of `PASSES` runs of `f`.
fn best_of(mut f: impl FnMut()) -> f64 {
    (0..PASSES)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Chunk length for the streaming passes: big jobs, a few per thread.
fn chunk_len(len: usize, threads: usize) -> usize {
    len.div_ceil(4 * threads).next_multiple_of(16)
}

/// GB/s reading the array once (a vector sum).
fn read_bandwidth(data: &mut [u32], sched: &Scheduler) -> f64 {
    let chunk = chunk_len(data.len(), sched.threads());
    let seconds = best_of(|| {
        sched.for_each_chunk(data, chunk, |_, part| {
            let mut acc = u32x16::ZERO;
            for block in part.chunks_exact(16) {
                acc += u32x16::new(block.try_into().unwrap());
            }
            black_box(acc);
        });
    });
    (data.len() * 4) as f64 / seconds / 1e9
}

/// GB/s (bytes read plus bytes written) for one in-place update pass, as a butterfly
/// level that streams from DRAM does.
fn update_bandwidth(data: &mut [u32], sched: &Scheduler) -> f64 {
    let chunk = chunk_len(data.len(), sched.threads());
    let seconds = best_of(|| {
        sched.for_each_chunk(data, chunk, |_, part| {
            for block in part.chunks_exact_mut(16) {
                let v = u32x16::new((&*block).try_into().unwrap()) + u32x16::splat(1);
                block.copy_from_slice(v.as_array());
            }
        });
    });
    (data.len() * 8) as f64 / seconds / 1e9
}

/// Scalar Montgomery products per second (8 independent chains per thread, so the
/// multiplier's latency is hidden and throughput is measured).
fn scalar_montgomery_rate(sched: &Scheduler) -> f64 {
    let mont = Montgomery32::new(P as u64).unwrap();
    const STEPS: usize = 20_000_000;
    let threads = sched.threads();
    let seconds = best_of(|| {
        let sums = sched.map_collect(threads, |t| {
            // Eight chains in locals (not an array the compiler might keep in memory).
            let seed = t as u32;
            let (mut a, mut b, mut c, mut d) = (seed + 2, seed + 3, seed + 4, seed + 5);
            let (mut e, mut f, mut g, mut h) = (seed + 6, seed + 7, seed + 8, seed + 9);
            let y = black_box(mont.to_form(123_456_789));
            for _ in 0..STEPS {
                a = mont.mul(a, y);
                b = mont.mul(b, y);
                c = mont.mul(c, y);
                d = mont.mul(d, y);
                e = mont.mul(e, y);
                f = mont.mul(f, y);
                g = mont.mul(g, y);
                h = mont.mul(h, y);
            }
            a ^ b ^ c ^ d ^ e ^ f ^ g ^ h
        });
        black_box(sums);
    });
    (threads * STEPS * 8) as f64 / seconds / 1e9
}

/// Products per second of 16-lane Montgomery multiplication (`ModLanes::mul_lazy`, values
/// kept in `[0, 2p)`, the power sums' product) on the scheduler's SIMD backend (the AVX2
/// REDC on an AVX2 machine, not the portable emulation), counting each lane as one
/// product; as many independent vectors per thread as the backend's power sums use.
/// Each vector is squared, as in the power sums' exponent loop (21 of its 28 products for
/// `s = 10^7`): a product by one constant would let the compiler fold the constant into
/// `p^-1` and save a multiply the power sums cannot.
fn lane_montgomery_rate(sched: &Scheduler) -> f64 {
    const STEPS: usize = 4_000_000;
    let threads = sched.threads();
    let simd = sched.simd();
    let seconds = best_of(|| {
        // Each worker enters the backend itself (a closure runs at the baseline).
        let sums = sched.map_collect(threads, |t| lane_chains(simd, STEPS, t as u32, false));
        black_box(sums);
    });
    (threads * STEPS * 8 * 16) as f64 / seconds / 1e9
}

/// Additions per second of 16-lane modular addition (`ModLanes::add`: add, subtract,
/// min) on the scheduler's backend, each lane one addition; 8 independent vectors per
/// thread. The unit of the Walsh–Hadamard butterflies and of the coin DP's cell updates.
fn lane_add_rate(sched: &Scheduler) -> f64 {
    const STEPS: usize = 8_000_000;
    let threads = sched.threads();
    let simd = sched.simd();
    let seconds = best_of(|| {
        let sums = sched.map_collect(threads, |t| lane_chains(simd, STEPS, t as u32, true));
        black_box(sums);
    });
    (threads * STEPS * 8 * 16) as f64 / seconds / 1e9
}

gamecount::multiversion! {
    /// Eight independent chains of `steps` lane products (or additions) by one constant.
    fn lane_chains(steps: usize, seed: u32, additions: bool) -> u32 => lane_chains_generic;
}

#[inline(always)]
fn lane_chains_generic<B: Mont>(steps: usize, seed: u32, additions: bool) -> u32 {
    // As many independent vectors as the backend's power sums keep in flight (its
    // register file decides: 8 with 32 registers, 4 with 16), the same total work.
    match B::POW_GROUP {
        4 => chains::<B, 4>(2 * steps, seed, additions),
        _ => chains::<B, 8>(steps, seed, additions),
    }
}

/// `G` chains of `steps` lazy squarings (the power sums' product: inputs and results
/// below `2p`) or additions of a constant, every lane of every chain from its own start
/// ([`lane_seed`]). The links are written out, as in `kernels::powsum::simd`: a loop over
/// an array of accumulators kept them in memory.
#[inline(always)]
fn chains<B: Mont, const G: usize>(steps: usize, seed: u32, additions: bool) -> u32 {
    let lanes = ModLanes::<B>::new(P).unwrap();
    let start = |chain: usize| std::array::from_fn(|lane| lane_seed(seed as u64, chain, lane) % P);
    let mut x: [B::V; G] = std::array::from_fn(|i| B::load(black_box(&start(i))));
    let y = B::load(black_box(&start(G)));
    macro_rules! run {
        (square, $($i:tt)*) => {
            for _ in 0..steps {
                $(x[$i] = lanes.mul_lazy(x[$i], x[$i]);)*
            }
        };
        (add, $($i:tt)*) => {
            for _ in 0..steps {
                $(x[$i] = lanes.add(x[$i], y);)*
            }
        };
    }
    match (G, additions) {
        (4, false) => run!(square, 0 1 2 3),
        (4, true) => run!(add, 0 1 2 3),
        (_, false) => run!(square, 0 1 2 3 4 5 6 7),
        (_, true) => run!(add, 0 1 2 3 4 5 6 7),
    }
    // Every lane of the result is used: folding lane 0 alone let the compiler drop the
    // other register of each two-register vector.
    x.iter().fold(0u32, |a, &v| B::to_array(v).iter().fold(a, |a, &l| a ^ l))
}

/// 64-bit lane multiply-adds per second (`acc += a·b` with 32-bit operands, `vpmuludq`
/// and `vpaddq`: eight lanes per 512-bit and four per 256-bit instruction), each lane one
/// multiply-add; six vectors of eight lanes per thread, on the scheduler's backend. The unit of
/// the kayles convolutions.
fn lane_mac64_rate(sched: &Scheduler) -> f64 {
    const STEPS: usize = 8_000_000;
    let threads = sched.threads();
    let simd = sched.simd();
    let seconds = best_of(|| {
        let sums = sched.map_collect(threads, |t| mac64_chains(simd, STEPS, t as u64));
        black_box(sums);
    });
    (threads * STEPS * 6 * 8) as f64 / seconds / 1e9
}

gamecount::multiversion! {
    /// Six chains of eight lanes, `steps` multiply-adds each.
    fn mac64_chains(steps: usize, seed: u64) -> u64 => mac64_chains_generic;
}

/// Six independent chains of the backend's eight-lane `u64` vectors (`RingVec`): 12 of
/// AVX2's 16 registers, so nothing spills, and enough products in flight to cover the
/// multiplier's latency. (Plain `u64` arrays were vectorised across the wrong axis under
/// AVX-512, with gathers and scatters.)
#[inline(always)]
fn mac64_chains_generic<B: Dots>(steps: usize, seed: u64) -> u64 {
    let ring = |chain: usize| {
        let lanes = std::array::from_fn(|lane| lane_seed(seed, chain, lane) as u64);
        <B::Ring as RingVec>::load(black_box(&gamecount::simd::dots::Lanes(lanes)))
    };
    // Every lane of every chain distinct ([`lane_seed`]).
    let (b, a) = (ring(6), ring(7));
    let mut acc: [B::Ring; 6] = std::array::from_fn(ring);
    // Each accumulator feeds its own next product (acc <- low32(acc)·b + a), so nothing
    // can be hoisted out of the loop.
    for _ in 0..steps {
        acc[0] = acc[0].mul_low32(b).add(a);
        acc[1] = acc[1].mul_low32(b).add(a);
        acc[2] = acc[2].mul_low32(b).add(a);
        acc[3] = acc[3].mul_low32(b).add(a);
        acc[4] = acc[4].mul_low32(b).add(a);
        acc[5] = acc[5].mul_low32(b).add(a);
    }
    acc.iter().fold(0, |s, v| s ^ v.store().0.iter().fold(0, |t, &w| t ^ w))
}

/// 16-bit word products per second with the pairwise dot product of the backend's pair
/// vectors (`vpdpwssd` under AVX-512 VNNI and AVX-VNNI, `vpmaddwd` + `vpaddd` under AVX2),
/// independent accumulators per thread: the unit of `catalan-words`.
fn word_dot_rate(sched: &Scheduler) -> f64 {
    const STEPS: usize = 8_000_000;
    let threads = sched.threads();
    let simd = sched.simd();
    let seconds = best_of(|| {
        let sums = sched.map_collect(threads, |t| dot_chains(simd, STEPS, t as i32));
        black_box(sums);
    });
    (threads * STEPS * DOT_CHAINS * 2 * PAIR_LANES) as f64 / seconds / 1e9
}

/// Independent accumulators of [`word_dot_rate`]: six vectors and the multiplier are 14 of
/// AVX2's 16 `ymm` (eight would spill), and six chains cover the latency of `vpdpwssd`
/// (5 cycles at one a cycle) and of `vpmaddwd` + `vpaddd` (6 cycles, twelve `ymm` chains
/// at two a cycle).
const DOT_CHAINS: usize = 6;

gamecount::multiversion! {
    /// Six chains of `steps` pairwise dot products.
    fn dot_chains(steps: usize, seed: i32) -> i32 => dot_chains_generic;
}

/// Each chain multiplies its own accumulator by a fixed vector, `acc <- acc + dot(acc, b)`:
/// with both operands fixed, `vpmaddwd` would be computed once outside the loop and only
/// the `vpaddd` timed. Every lane of every chain starts from its own value.
#[inline(always)]
fn dot_chains_generic<B: Dots>(steps: usize, seed: i32) -> i32 {
    let pairs = |chain: usize| {
        let lanes = std::array::from_fn(|lane| lane_seed(seed as u64, chain, lane) as i32);
        B::Pairs::load(black_box(&gamecount::simd::dots::PairRow(lanes)))
    };
    let b = pairs(DOT_CHAINS);
    let mut acc: [B::Pairs; DOT_CHAINS] = std::array::from_fn(pairs);
    for _ in 0..steps {
        for acc in acc.iter_mut() {
            *acc = acc.dot_add(*acc, b);
        }
    }
    acc.iter().fold(0i32, |s, v| s ^ v.sum_lanes())
}

/// Scalar 64-bit loads per second from a table that sits in L1 (4 KiB, summed by four
/// independent accumulators): the unit of the stone scan's row reads.
fn l1_load_rate(sched: &Scheduler) -> f64 {
    const WORDS: usize = 512;
    const SWEEPS: usize = 200_000;
    let threads = sched.threads();
    let seconds = best_of(|| {
        let sums = sched.map_collect(threads, |t| {
            let table: Vec<u64> = (0..WORDS as u64).map(|i| i ^ t as u64).collect();
            let table = black_box(table);
            let mut acc = [0u64; 4];
            for _ in 0..SWEEPS {
                for chunk in black_box(&table[..]).chunks_exact(4) {
                    for (a, &w) in acc.iter_mut().zip(chunk) {
                        *a ^= w;
                    }
                }
            }
            acc.iter().fold(0, |s, &v| s ^ v)
        });
        black_box(sums);
    });
    (threads * SWEEPS * WORDS) as f64 / seconds / 1e9
}

/// Runs the measurements and writes the CSV.
pub fn run(out: &Path) -> Result<(), String> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // Created before the measurements, so that an unwritable `out` is refused at once;
    // renamed over `out` only when every row is written.
    let mut file = AtomicFile::create_as(out, Writer::Tool("roofline"), "--out").map_err(|e| e.to_string())?;
    let provenance = Provenance::here();
    let mut rows: Vec<(String, usize, f64, &str, String)> = Vec::new();
    let all = Scheduler::available_cores();
    let mut data = vec![1u32; STREAM_BYTES / 4];
    for threads in [1, all] {
        let sched = Scheduler::new(Some(threads)).map_err(|e| e.to_string())?;
        let read = read_bandwidth(&mut data, &sched);
        eprintln!("DRAM read, {threads} threads: {read:.1} GB/s");
        rows.push(("DRAM read".into(), threads, read, "GB/s", format!("u32x16 sum over {} MiB", STREAM_BYTES >> 20)));
        let update = update_bandwidth(&mut data, &sched);
        eprintln!("DRAM in-place read+write, {threads} threads: {update:.1} GB/s");
        rows.push((
            "DRAM in-place read+write".into(),
            threads,
            update,
            "GB/s",
            format!("u32x16 x += 1 over {} MiB, bytes read + written", STREAM_BYTES >> 20),
        ));
        let mont = scalar_montgomery_rate(&sched);
        eprintln!("scalar Montgomery products, {threads} threads: {mont:.2} G/s");
        rows.push((
            "modmul scalar Montgomery p=1e9+7".into(),
            threads,
            mont,
            "G/s",
            "8 independent chains per thread".into(),
        ));
        // The vector rates once per backend this CPU has, best first (the report's bounds
        // take the first row of a quantity: the backend the kernels run by default).
        for simd in Simd::available().into_iter().rev() {
            let sched = Scheduler::new(Some(threads)).map_err(|e| e.to_string())?.with_simd(simd);
            let lane_mont = lane_montgomery_rate(&sched);
            eprintln!("16-lane Montgomery products, {simd}, {threads} threads: {lane_mont:.2} G/s");
            rows.push((
                format!("modmul u32x16 Montgomery lazy p=1e9+7 [{simd}]"),
                threads,
                lane_mont,
                "G/s",
                format!("ModLanes::mul_lazy squarings on {simd}, POW_GROUP independent vectors per thread, per lane"),
            ));
            let lane_add = lane_add_rate(&sched);
            eprintln!("16-lane modular additions, {simd}, {threads} threads: {lane_add:.2} G/s");
            rows.push((
                format!("modadd u32x16 p=1e9+7 [{simd}]"),
                threads,
                lane_add,
                "G/s",
                format!("ModLanes::add on {simd}, POW_GROUP independent vectors per thread, per lane"),
            ));
            let mac = lane_mac64_rate(&sched);
            eprintln!("64-bit lane multiply-adds, {simd}, {threads} threads: {mac:.2} G/s");
            rows.push((
                format!("mac u64x8 (32x32->64 multiply-add) [{simd}]"),
                threads,
                mac,
                "G/s",
                format!("RingVec::mul_low32 + add on {simd}, 6 independent vectors per thread, per lane"),
            ));
            let dots = word_dot_rate(&sched);
            eprintln!("16-bit word products (pairwise dot), {simd}, {threads} threads: {dots:.2} G/s");
            rows.push((
                format!("word dot i16 pairs [{simd}]"),
                threads,
                dots,
                "G/s",
                format!("Pairs::dot_add on {simd}, {DOT_CHAINS} independent vectors per thread, per word product"),
            ));
        }
        let loads = l1_load_rate(&sched);
        eprintln!("L1 reads, {threads} threads: {loads:.2} G words/s");
        rows.push((
            "L1 reads (u64 words)".into(),
            threads,
            loads,
            "G/s",
            "xor-sum of a 4 KiB table (the compiler may use vector loads), per word".into(),
        ));
        if all == 1 {
            break;
        }
    }
    // Per page, so one thread: each fault is the kernel's work on the faulting thread.
    // The fastest sample is the figure (as elsewhere, the least disturbed); the median
    // and the slowest go into the description, because here the slow tail is the story:
    // a huge page the host must back first can take milliseconds.
    for (kind, batches, per_batch) in [(PageKind::Huge, 16, 1), (PageKind::Small, 16, 128)] {
        let quantity = format!("first write to a fresh {} page", kind.label());
        match first_touch_micros(kind, batches, per_batch) {
            Ok(micros) => {
                let (fastest, median, slowest) = (micros[0], crate::median(&micros), micros[micros.len() - 1]);
                eprintln!("{quantity}: fastest {fastest:.1} µs, median {median:.1} µs, slowest {slowest:.1} µs");
                let samples = if per_batch == 1 {
                    format!("{batches} pages each timed alone")
                } else {
                    format!("{batches} batches of {per_batch} pages, mean per page")
                };
                let how = format!(
                    "{}; {samples}; the fastest (median {median:.1} µs, slowest {slowest:.1} µs)",
                    kind.advice_name()
                );
                rows.push((quantity, 1, fastest, "µs", how));
            }
            Err(why) => eprintln!("{quantity}: not measured ({why})"),
        }
    }
    let mut text = String::from("quantity,threads,value,unit,how,machine,date,commit\n");
    for (quantity, threads, value, unit, how) in rows {
        let _ = writeln!(
            text,
            "{},{threads},{value:.3},{unit},{},{},{},{}",
            csv_field(&quantity),
            csv_field(&how),
            csv_field(&provenance.machine),
            provenance.date,
            provenance.commit
        );
    }
    file.push_bytes(text.as_bytes());
    file.commit().map_err(|e| e.to_string())
}
