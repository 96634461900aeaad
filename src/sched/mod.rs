//! The scheduler: the one place in the crate that spawns parallel work.
//!
//! Kernels never touch rayon directly. They describe their parallelism as a few coarse
//! shapes (disjoint chunks of a slice, independent jobs collected in order, a fork of two
//! closures), and the [`Scheduler`] runs them on its own thread pool, or inline when it
//! has one thread. See `README.md` in this folder for the design and the grain sizes.
//!
//! Determinism: every shape returns its results in job order, and the kernels only
//! combine them with exact (integer or modular) operations, so an answer never depends
//! on the number of threads.

mod progress;
pub use progress::Progress;

use rayon::prelude::*;
use std::num::NonZeroUsize;

/// Why a scheduler could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedError(pub String);

impl std::fmt::Display for SchedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The most threads a scheduler accepts; far above any machine this runs on, and low
/// enough that a typo like `--threads 100000` is refused instead of spawning them.
pub const MAX_THREADS: usize = 1024;

/// Owns the worker threads of one run.
pub struct Scheduler {
    /// `None` for a single thread: work runs inline on the caller, with no pool at all.
    pool: Option<rayon::ThreadPool>,
    threads: usize,
    /// Whether [`Scheduler::progress`] draws bars (off unless the CLI turns it on).
    show_progress: bool,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").field("threads", &self.threads).finish()
    }
}

impl Scheduler {
    /// A scheduler with `threads` workers (`None`: one per available core).
    pub fn new(threads: Option<usize>) -> Result<Self, SchedError> {
        let threads = match threads {
            Some(0) => return Err(SchedError("--threads must be at least 1".into())),
            Some(t) if t > MAX_THREADS => {
                return Err(SchedError(format!("--threads {t} is more than the limit of {MAX_THREADS}")));
            }
            Some(t) => t,
            None => Self::available_cores(),
        };
        if threads == 1 {
            return Ok(Self::sequential());
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("gamecount-{i}"))
            .build()
            .map_err(|e| SchedError(format!("cannot start {threads} threads: {e}")))?;
        Ok(Self { pool: Some(pool), threads, show_progress: false })
    }

    /// A scheduler that runs everything on the calling thread.
    pub fn sequential() -> Self {
        Self { pool: None, threads: 1, show_progress: false }
    }

    /// Turns progress bars on or off (off by default).
    pub fn with_progress(mut self, show: bool) -> Self {
        self.show_progress = show;
        self
    }

    /// A progress bar over `total` units of work labelled `label`; it draws on stderr only
    /// if progress is on and the run lasts longer than about a second.
    pub fn progress(&self, total: u64, label: &str) -> Progress {
        Progress::new(self.show_progress, total, label)
    }

    /// The number of cores the operating system lets this process use.
    pub fn available_cores() -> usize {
        std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Calls `f(chunk_index, chunk)` for each `chunk_len`-long piece of `data` (the last
    /// may be shorter). Each chunk is one job: pick `chunk_len` so a job is worth a
    /// thread hand-off (tens of microseconds of work at least).
    pub fn for_each_chunk<T, F>(&self, data: &mut [T], chunk_len: usize, f: F)
    where
        T: Send,
        F: Fn(usize, &mut [T]) + Sync + Send,
    {
        assert!(chunk_len > 0, "chunk_len must be positive");
        match &self.pool {
            None => data.chunks_mut(chunk_len).enumerate().for_each(|(i, c)| f(i, c)),
            Some(pool) => {
                pool.install(|| data.par_chunks_mut(chunk_len).with_max_len(1).enumerate().for_each(|(i, c)| f(i, c)))
            }
        }
    }

    /// Runs `f(0), ..., f(jobs - 1)` as independent jobs and returns the results in job
    /// order, whatever the thread count.
    pub fn map_collect<R, F>(&self, jobs: usize, f: F) -> Vec<R>
    where
        R: Send,
        F: Fn(usize) -> R + Sync + Send,
    {
        match &self.pool {
            None => (0..jobs).map(f).collect(),
            Some(pool) => pool.install(|| (0..jobs).into_par_iter().with_max_len(1).map(f).collect()),
        }
    }

    /// Runs two closures, in parallel when there is more than one thread.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        match &self.pool {
            None => (a(), b()),
            Some(pool) => pool.install(|| rayon::join(a, b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_zero_and_absurd_thread_counts() {
        assert!(Scheduler::new(Some(0)).is_err());
        assert!(Scheduler::new(Some(MAX_THREADS + 1)).is_err());
        assert_eq!(Scheduler::new(Some(1)).unwrap().threads(), 1);
    }

    #[test]
    fn shapes_give_the_same_results_for_any_thread_count() {
        for threads in [1, 2, 3, 8] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            let squares = sched.map_collect(100, |i| i * i);
            assert_eq!(squares, (0..100).map(|i| i * i).collect::<Vec<_>>());
            let mut data: Vec<usize> = (0..1000).collect();
            sched.for_each_chunk(&mut data, 64, |chunk, xs| {
                xs.iter_mut().for_each(|x| *x += chunk * 1_000_000);
            });
            assert!(data.iter().enumerate().all(|(i, &x)| x == i + (i / 64) * 1_000_000));
            assert_eq!(sched.join(|| 1, || 2), (1, 2));
        }
    }
}
