//! This machine's limits, measured with the project's own code: what the kernels are
//! compared against in results/README.md.
//!
//! Each figure is the best of several passes (the machine is shared: the best pass is
//! the one least disturbed), for 1 thread and for all threads.

use crate::{Provenance, csv_field};
use gamecount::arith::Montgomery32;
use gamecount::sched::Scheduler;
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use wide::u32x16;

/// Bytes of the streaming array: well past the L3 this VM behaves as having (≲ 20 MiB).
const STREAM_BYTES: usize = 512 << 20;
/// Passes per figure.
const PASSES: usize = 5;
const P: u32 = 1_000_000_007;

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
            let mut x: [u32; 8] = std::array::from_fn(|i| mont.to_form(i as u32 + 2 + t as u32));
            let y = mont.to_form(123_456_789);
            for _ in 0..STEPS {
                for v in &mut x {
                    *v = mont.mul(*v, y);
                }
            }
            x.iter().fold(0u32, |a, &b| a ^ b)
        });
        black_box(sums);
    });
    (threads * STEPS * 8) as f64 / seconds / 1e9
}

/// Runs the measurements and writes the CSV.
pub fn run(out: &Path) -> Result<(), String> {
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
        if all == 1 {
            break;
        }
    }
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    let mut file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    writeln!(file, "quantity,threads,value,unit,how,machine,date,commit").map_err(|e| e.to_string())?;
    for (quantity, threads, value, unit, how) in rows {
        writeln!(
            file,
            "{},{threads},{value:.3},{unit},{},{},{},{}",
            csv_field(&quantity),
            csv_field(&how),
            csv_field(&provenance.machine),
            provenance.date,
            provenance.commit
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}
