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
mod wavefront;
pub use progress::Progress;

use crate::simd::Simd;
use rayon::prelude::*;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

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
///
/// The threads are started on the first parallel shape, not when the scheduler is
/// built: a run whose kernel turns out to be sequential (small sizes) then never has
/// idle workers starting up beside it (about 0.3 ms beside a 3 ms kernel in a fresh
/// process on the Zen 4, `gamecount-lab ladder`; docs/design/stones.md).
pub struct Scheduler {
    /// Built on first use; stays empty for one thread, whose work runs inline. Holds
    /// `None` if the threads could not be started: the work then runs inline too (the
    /// answer is the same, see the module docs) after one warning on stderr.
    pool: OnceLock<Option<rayon::ThreadPool>>,
    threads: usize,
    /// Whether [`Scheduler::progress`] draws bars (off unless the CLI turns it on).
    show_progress: bool,
    /// The instruction set the kernels of this run use: part of the run's context, like
    /// its threads, so that every worker runs the same backend.
    simd: Simd,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").field("threads", &self.threads).field("simd", &self.simd).finish()
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
        Ok(Self { pool: OnceLock::new(), threads, show_progress: false, simd: Simd::best() })
    }

    /// A scheduler that runs everything on the calling thread.
    pub fn sequential() -> Self {
        Self { pool: OnceLock::new(), threads: 1, show_progress: false, simd: Simd::best() }
    }

    /// The worker pool, started on first use; `None` for one thread.
    fn pool(&self) -> Option<&rayon::ThreadPool> {
        if self.threads == 1 {
            return None;
        }
        self.pool
            .get_or_init(|| {
                let threads = self.threads;
                let built = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("gamecount-{i}"))
                    .start_handler(move |i| pin_worker(i, threads))
                    .build();
                built
                    .map_err(|e| {
                        // One write for the whole line (stderr is unbuffered).
                        let line = format!("warning: cannot start {} threads ({e}); running on one\n", self.threads);
                        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
                    })
                    .ok()
            })
            .as_ref()
    }

    /// Runs the kernels on `simd`'s backend (default: the best this CPU has).
    pub fn with_simd(mut self, simd: Simd) -> Self {
        self.simd = simd;
        self
    }

    /// The instruction set this run's kernels use.
    pub fn simd(&self) -> Simd {
        self.simd
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

    /// The number of cores the operating system lets this process use, asked once: each
    /// question is a score of system calls (the cgroup's quota files, the affinity mask),
    /// and a run asks it from the header, the scheduler and the time estimate.
    pub fn available_cores() -> usize {
        static CORES: OnceLock<usize> = OnceLock::new();
        *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, NonZeroUsize::get))
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
        match self.pool() {
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
        match self.pool() {
            None => (0..jobs).map(f).collect(),
            Some(pool) => pool.install(|| (0..jobs).into_par_iter().with_max_len(1).map(f).collect()),
        }
    }

    /// Runs `tile(state, i, j)` for every tile `first <= i <= last`, `i <= j < columns`
    /// of an upper-triangular grid, each after its predecessors `(i - 1, j)` (rows before
    /// `first` count as done) and `(i, j - 1)`, on every worker, each worker with its own
    /// `state()`; returns the results with their tiles, in no particular order. Ready
    /// tiles run lowest row first. Waiters spin, then yield, and never park.
    pub fn wavefront<S, R>(
        &self,
        (first, last): (u32, u32),
        columns: u32,
        state: impl Fn() -> S + Sync + Send,
        tile: impl Fn(&mut S, u32, u32) -> R + Sync + Send,
    ) -> Vec<(u32, u32, R)>
    where
        R: Send,
    {
        let frontier = wavefront::Frontier::new(first, last, columns);
        let per_worker = self.map_collect(self.threads(), |_| {
            let mut state = state();
            let mut mine = Vec::new();
            while let Some((i, j)) = frontier.take() {
                let out = tile(&mut state, i, j);
                frontier.finish(i, j);
                mine.push((i, j, out));
            }
            mine
        });
        per_worker.into_iter().flatten().collect()
    }

    /// Runs two closures, in parallel when there is more than one thread.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        match self.pool() {
            None => (a(), b()),
            Some(pool) => pool.install(|| rayon::join(a, b)),
        }
    }

    /// Runs `f(round, worker, workers)` on every worker thread at once, for each round in
    /// `0..rounds`; no worker starts a round before all have finished the previous one.
    ///
    /// For computations whose rounds depend on each other but whose synchronisation is
    /// too frequent for a fork-join per round (a tile of a DP lasts about 100 µs). The
    /// workers wait for each other at a barrier that spins, then yields, but never
    /// parks: a parked thread can take a scheduler tick (~4 ms) to wake on this machine.
    /// Use it for few rounds of substantial work: waiting workers keep their cores busy.
    ///
    /// With one thread the rounds run inline. Writes made in one round are visible to
    /// every worker in the next (the barrier orders them). A panic in `f` is re-raised
    /// on the caller, and the other workers leave at the next barrier.
    pub fn lockstep<F>(&self, rounds: usize, f: F)
    where
        F: Fn(usize, usize, usize) + Sync + Send,
    {
        match self.pool() {
            None => (0..rounds).for_each(|round| f(round, 0, 1)),
            Some(pool) => {
                let barrier = SpinBarrier::new(pool.current_num_threads());
                // broadcast runs the closure once on every worker, each on its own thread,
                // so all participants of the barrier are live at the same time.
                pool.broadcast(|ctx| {
                    let poison = PoisonOnUnwind(&barrier);
                    for round in 0..rounds {
                        f(round, ctx.index(), ctx.num_threads());
                        barrier.wait();
                    }
                    std::mem::forget(poison);
                });
            }
        }
    }
}

/// Returns once `ready()` holds: spins on it, then yields between tries, and never
/// parks (a parked thread can take a scheduler tick, ~4 ms here, to wake). For a worker
/// waiting on another's progress inside [`Scheduler::join`] or
/// [`Scheduler::lockstep`]; the other must be running, or `ready` must turn true on
/// its own.
pub fn wait_until(mut ready: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        if spins < SpinBarrier::SPINS_BEFORE_YIELD {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// `mutex` locked, if it is free or frees within `wait`: spins meanwhile, and reads the
/// clock only when it is busy. For a worker that would rather do another's work itself
/// than wait long for it (poisoned: `None`).
pub fn lock_within<T>(mutex: &Mutex<T>, wait: Duration) -> Option<MutexGuard<'_, T>> {
    let mut deadline = None;
    loop {
        match mutex.try_lock() {
            Ok(guard) => return Some(guard),
            Err(TryLockError::WouldBlock) => {
                let now = Instant::now();
                if now >= *deadline.get_or_insert(now + wait) {
                    return None;
                }
                std::hint::spin_loop();
            }
            Err(TryLockError::Poisoned(_)) => return None,
        }
    }
}

/// Pins worker `index` of `threads` to a core of its own, when the process may use at
/// least `threads` cores; otherwise (more threads than cores) leaves placement to the
/// operating system. Placement never changes a result, only when work runs.
///
/// Why: a parallel shape wakes its parked workers from the calling thread, and Linux
/// often queues two of them on the same core; the idle core only pulls one over at its
/// next balancing tick (4 ms on a HZ=250 kernel), so a "slow wake-up" is mostly two
/// workers sharing one core. Pinned, the parallel WHT at 2^24 on 2 threads no longer has
/// runs at the pace of one thread (`cargo bench --bench wht`, `parallel`: median 12.2 ->
/// 8.2 ms on the Zen 4; `README.md` in this folder).
///
/// `GAMECOUNT_PIN=0` in the environment turns it off: on a machine where other programs
/// hold cores, a pinned worker cannot move away from a busy one.
fn pin_worker(index: usize, threads: usize) {
    if std::env::var_os("GAMECOUNT_PIN").is_some_and(|v| v == "0") {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is a plain bit array, for which all zeros is the empty set.
        let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `allowed` is a valid, writable `cpu_set_t` of `size` bytes; pid 0 is
        // the calling thread.
        if unsafe { libc::sched_getaffinity(0, size, &mut allowed) } != 0 {
            return;
        }
        let max = libc::CPU_SETSIZE as usize;
        // SAFETY (`CPU_ISSET`): `c < CPU_SETSIZE`, the capacity of the set.
        let mut cpus = (0..max).filter(|&c| unsafe { libc::CPU_ISSET(c, &allowed) });
        if cpus.clone().count() < threads {
            return;
        }
        let Some(cpu) = cpus.nth(index) else { return };
        // SAFETY: as above, all zeros is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `cpu < CPU_SETSIZE`; `set` is a valid `cpu_set_t` of `size` bytes. A
        // failure leaves the thread unpinned, which is only slower.
        unsafe {
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, size, &set);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (index, threads);
}

/// A barrier for a fixed set of threads that spins, then yields, and never parks.
struct SpinBarrier {
    parties: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

impl SpinBarrier {
    /// Spins before each yield: about 100 µs of `pause` instructions (~140 cycles each
    /// on Ice Lake), longer than the usual imbalance between the workers of a round,
    /// short enough not to starve a descheduled partner when threads outnumber cores.
    const SPINS_BEFORE_YIELD: u32 = 1 << 11;

    fn new(parties: usize) -> Self {
        Self {
            parties,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Returns once all parties have called `wait` for this generation.
    ///
    /// # Panics
    /// If another party panicked (so that no thread waits forever for it).
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        // AcqRel: this thread's writes are released to the last arriver, which acquires
        // them all and releases them again with the generation bump below.
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.parties {
            // Nobody can arrive for the next generation before seeing the bump.
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            assert!(!self.poisoned.load(Ordering::Relaxed), "another worker of a lockstep computation panicked");
            if spins < Self::SPINS_BEFORE_YIELD {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Marks the barrier poisoned when a worker unwinds, so that the others stop waiting.
struct PoisonOnUnwind<'a>(&'a SpinBarrier);

impl Drop for PoisonOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.poisoned.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cores the calling thread may run on.
    #[cfg(target_os = "linux")]
    fn allowed_cores() -> Vec<usize> {
        // SAFETY: as in `pin_worker`: an all-zero `cpu_set_t` is the empty set, the
        // pointer is to a valid set of the size passed, and `c < CPU_SETSIZE`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
            (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lock_is_taken_when_free_and_given_up_after_the_wait_when_held() {
        let mutex = Mutex::new(7);
        assert_eq!(lock_within(&mutex, Duration::ZERO).map(|guard| *guard), Some(7));
        let held = mutex.lock().unwrap();
        let start = Instant::now();
        assert!(lock_within(&mutex, Duration::from_micros(200)).is_none());
        assert!(start.elapsed() >= Duration::from_micros(200));
        drop(held);
        assert!(lock_within(&mutex, Duration::from_micros(200)).is_some());
    }

    #[test]
    fn a_pinned_worker_runs_on_its_own_core_and_too_many_threads_stay_free() {
        let cores = std::thread::spawn(allowed_cores).join().unwrap();
        let pinned_enabled = std::env::var_os("GAMECOUNT_PIN").is_none_or(|v| v != "0");
        // Worker `i` of as many threads as cores gets the i-th allowed core alone.
        let last = cores.len() - 1;
        let pinned = std::thread::spawn(move || {
            pin_worker(last, last + 1);
            allowed_cores()
        });
        let expected = if pinned_enabled { vec![cores[last]] } else { cores.clone() };
        assert_eq!(pinned.join().unwrap(), expected);
        // With more threads than cores, placement is left alone.
        let free = std::thread::spawn(move || {
            pin_worker(0, last + 2);
            allowed_cores()
        });
        assert_eq!(free.join().unwrap(), cores);
    }

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

    #[test]
    fn lockstep_rounds_see_every_write_of_the_previous_round() {
        // Each round, every worker adds the sum of all workers' previous values to its
        // own slot: a missed barrier or a stale read changes the result.
        for threads in [1, 2, 3, 8] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            let slots: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(1)).collect();
            let shadow: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(1)).collect();
            let rounds = 50;
            sched.lockstep(rounds, |round, worker, workers| {
                assert_eq!(workers, threads);
                let (read, write) = if round % 2 == 0 { (&slots, &shadow) } else { (&shadow, &slots) };
                let total: usize = read.iter().map(|s| s.load(Ordering::Relaxed)).sum();
                write[worker].store((read[worker].load(Ordering::Relaxed) + total) % 1_000_003, Ordering::Relaxed);
            });
            let mut expected = vec![1usize; threads];
            for _ in 0..rounds {
                let total: usize = expected.iter().sum();
                expected = expected.iter().map(|&v| (v + total) % 1_000_003).collect();
            }
            let result = if rounds % 2 == 0 { &slots } else { &shadow };
            let got: Vec<usize> = result.iter().map(|s| s.load(Ordering::Relaxed)).collect();
            assert_eq!(got, expected, "{threads} threads");
        }
    }

    #[test]
    fn a_panicking_lockstep_worker_does_not_hang_the_others() {
        let sched = Scheduler::new(Some(2)).unwrap();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sched.lockstep(10, |round, worker, _| assert!(!(round == 3 && worker == 1), "planned failure"));
        }));
        assert!(outcome.is_err());
    }
}
