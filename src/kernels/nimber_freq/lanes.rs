//! Frequencies in sixteen lanes, with factorial tables built chunk by chunk.
//!
//! For each `k >= 0`, with `R = N - k - 2` and `j = R - k = N - 2k - 2`, the linear
//! variant's recurrence (docs/theory/cards.md §8) needs four binomials:
//!
//! ```text
//! C(R, k-2), C(R, k-3), C(R, k), C(R+1, k)      each R!·b!^-1·(R-b)!^-1
//! A_k = (A_{k-1} + 2·C(R, k-2) + C(R, k-3)) / 2      A_{-1} = 0 (so A_0 = A_1 = 0)
//! E_k = 2^R     + C(R, k)   - A_k                    = F(2k)    for k >= 1
//! O_k = 2^(R+1) + C(R+1, k) - (2·A_k - C(R, k-2))    = F(2k-1)  for k >= 1
//! ```
//!
//! (`E_0` is `2^(N-2) + 1`; the true `F(0)` is one more, and is written separately.)
//! The first three binomials come from the tables below; `C(R+1, k)` comes from Pascal's
//! rule and the next `k`'s first two (see `Plan::main_loop`), except at a run's end.
//!
//! Chunks. Chunk `c` writes outputs `[32mc, 32m(c+1))`: the pairs `F(2k), F(2k+1)` for
//! `k0 = 16mc <= k < k0 + 16m`, that is `E_k` and `O_(k+1)`. Lane `i` walks its own run
//! `k = k0 + i·m + t`, `t = 0..=m` (one step more than its share, for its last `O`), so
//! every lane's tables are contiguous runs of factorials, one product per vector step:
//!
//! ```text
//! IA[u] = (k0 + i·m - 3 + u)!^-1        u < m + 4      (k-3 ..= k), built downwards
//! FB[u] = (N - k0 - i·m - m - 2 + u)!   u < m + 2      (R, R+1), built upwards
//! IC[u] = (N - 2k0 - 2i·m - 2m - 2 + u)!^-1  u < 2m + 4 (j ..= j+3), built downwards
//! ```
//!
//! Each lane's first entry comes from a sparse table of factorials at every multiple of
//! `2^checkpoint_log` (plus at most that many products); downward tables start from one
//! inverse per lane, all lanes at once by Fermat (`x^(p-2)`). A downward table passing
//! below 0 turns into zeros (`(-1)!^-1 = 0!^-1·0`), which is the convention
//! `C(a, b) = 0` for `b < 0` or `b > a`, so the edges `k <= 2` and `k ≈ N/2` need no
//! special case. Memory is `O(m)` per thread plus `4N / 2^checkpoint_log` bytes of
//! checkpoints, instead of the `8N` bytes of full factorial tables (8 GB at `N = 10^9`).
//!
//! Representation. `FB` holds `x!·R^2` (`R = 2^32`) and the inverse tables plain residues,
//! so two Montgomery products give a plain binomial: `REDC(REDC(x!R^2·a)·b) = x!·a·b`.
//! Everything after that is plain residues, and halving needs no product at all.
//!
//! The recurrence. Each lane runs `A` from 0. Afterwards the true incoming values follow
//! lane to lane, `A_in(i+1) = A_(m-1)(i) + A_in(i)·2^-m`, and the true `A` at step `t` is
//! the lane's own plus `δ_t = A_in·2^-(t+1)`: it is subtracted from `E` (and `2·δ_t` from
//! `O`) while a 16×16 transpose turns lane order back into natural order. Chunks start at
//! multiples of `32m` values, so every row of the transpose is one aligned 64-byte line,
//! written with a streaming store.

use std::any::Any;
use std::sync::{Mutex, PoisonError};

use crate::arith::{LANES, ModLanes, Montgomery32, pow_mod};
use crate::sched::{Progress, Scheduler};
use crate::simd::Simd;
use crate::simd::mont::{Block, Mont};

/// Below this many cards the [`super::linear`] variant runs instead: the last chunk may
/// pad up to 128 values of `k` past `N/2`, and their tables must stay inside `[0, N]`.
pub const MIN_CARDS: usize = 512;

/// Chunk shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Vector steps per chunk, `m` (a multiple of 8): a chunk writes `32·m` outputs.
    pub steps: usize,
    /// log2 of the spacing of the factorial checkpoints.
    pub checkpoint_log: u32,
}

impl Geometry {
    /// 1024 steps: a chunk's tables and outputs take about 400 KiB, inside the L2 of one
    /// core, and its start-up (4·127 products for the lane start values, three lane
    /// inversions) stays under 5% of its ~12·1024 products. Chunks of 2^15 outputs also
    /// tile the transform's blocks exactly.
    pub const DEFAULT: Geometry = Geometry { steps: 1024, checkpoint_log: 7 };

    /// Bytes of the checkpoint table for `n` cards.
    pub fn checkpoint_bytes(&self, n: usize) -> u64 {
        4 * ((n >> self.checkpoint_log) as u64 + 1)
    }

    /// Outputs per (full) chunk.
    pub fn chunk_len(&self) -> usize {
        2 * LANES * self.steps
    }
}

/// Everything the chunks share: the modulus, `N`, the checkpoints and a few constants.
pub struct Plan {
    n: usize,
    geometry: Geometry,
    mont: Montgomery32,
    /// `checkpoints[c] = (c·2^checkpoint_log)! mod p`, plain, for `c·2^checkpoint_log <= N`.
    checkpoints: Vec<u32>,
    /// `R^3 mod p`: a plain `x!` times it in one product is `x!·R^2`.
    r3: u32,
    /// `2^-1 mod p`.
    half: u32,
    /// Chunk buffers that finished jobs handed back, for the next job to take: a run then
    /// allocates and zeroes one per worker, not one per job (16 jobs of 400 KiB at the
    /// default geometry; callgrind, AVX2: C(10^6, 10^7) 100.3 M -> 94.4 M instructions,
    /// C(10^7, 10^7) 1252.9 M -> 1246.9 M). Boxed as `Any` because the backend is chosen
    /// inside each job.
    spare: Mutex<Vec<Box<dyn Any + Send>>>,
}

/// One chunk's reusable buffers, in the vectors of backend `B`.
struct Scratch<B: Mont> {
    ia: Vec<B::V>,
    fb: Vec<B::V>,
    ic: Vec<B::V>,
    /// The rows of the transpose before it: `E_t` at `2t`, `O_(t+1)` at `2t + 1`.
    rows: Vec<B::V>,
}

impl<B: Mont> Scratch<B> {
    /// Buffers for chunks of `geometry.steps` steps.
    #[inline(always)]
    fn new(geometry: &Geometry) -> Self {
        let m = geometry.steps;
        let zero = B::splat(0);
        Self { ia: vec![zero; m + 4], fb: vec![zero; m + 2], ic: vec![zero; 2 * m + 4], rows: vec![zero; 2 * m] }
    }
}

crate::multiversion! {
    /// Runs chunks `first, first + 1, ..` over `out` (which starts at chunk `first`'s
    /// first output), the first from `a_in`, reporting each chunk's outputs to
    /// `progress`; returns the `A` after the last, as `Plan::chunk_on`. One job of the
    /// parallel variant (the closure that runs it calls this entry point: closures do
    /// not inherit target features).
    pub fn run_chunks(plan: &Plan, first: usize, a_in: u32, out: &mut [u32], progress: &Progress) -> u32 => run_chunks_generic;
}

#[inline(always)]
fn run_chunks_generic<B: Mont>(plan: &Plan, first: usize, a_in: u32, out: &mut [u32], progress: &Progress) -> u32 {
    let lanes = ModLanes::<B>::from_scalar(plan.mont);
    let mut scratch = plan.take_scratch::<B>();
    let mut a = a_in;
    for (i, chunk) in out.chunks_mut(plan.geometry.chunk_len()).enumerate() {
        a = plan.chunk_on(&lanes, first + i, a, chunk, &mut scratch);
        progress.inc(chunk.len() as u64);
    }
    plan.give_back(scratch);
    a
}

crate::multiversion! {
    /// [`block_products_generic`] as one job of [`Plan::new`].
    fn block_products(mont: &Montgomery32, first: usize, log: u32, out: &mut [u32]) => block_products_generic;
}

impl Plan {
    /// The shared data for `n >= MIN_CARDS` cards modulo the prime `p` (`n < p < 2^31`):
    /// the checkpoints are block products in lanes, spread over the scheduler (on its
    /// backend), then one running product.
    pub fn new(n: usize, p: u32, geometry: Geometry, sched: &Scheduler) -> Self {
        assert!(n >= MIN_CARDS && (n as u64) < p as u64, "lane frequencies need {MIN_CARDS} <= n < p");
        assert!(geometry.steps >= 8 && geometry.steps.is_multiple_of(8), "steps must be a positive multiple of 8");
        let mont = Montgomery32::new(p as u64).expect("the caller checked p");
        let log = geometry.checkpoint_log;
        let mut blocks = vec![0u32; n >> log];
        let simd = sched.simd();
        // 2^12 blocks (2^19 products at the default spacing) per job.
        sched.for_each_chunk(&mut blocks, 1 << 12, |job, out| block_products(simd, &mont, job << 12, log, out));
        let mut checkpoints = Vec::with_capacity(blocks.len() + 1);
        checkpoints.push(1);
        for &block in &blocks {
            // plain · form = plain.
            let last = *checkpoints.last().expect("not empty");
            checkpoints.push(mont.mul(last, block));
        }
        // R mod p is the form of 1; the product of the forms of r and r is r·r·R = R^3.
        let r = mont.one();
        let r3 = mont.mul(mont.to_form(r), mont.to_form(r));
        Self { n, geometry, mont, checkpoints, r3, half: p.div_ceil(2), spare: Mutex::new(Vec::new()) }
    }

    /// A chunk buffer: one a finished job handed back, or a new one. What a reused buffer
    /// holds does not matter: every entry a chunk reads, it has written first (the tables
    /// in `build_tables`, the rows in `main_loop`).
    fn take_scratch<B: Mont>(&self) -> Scratch<B> {
        let spare = self.spare.lock().unwrap_or_else(PoisonError::into_inner).pop();
        match spare.map(|s| s.downcast::<Scratch<B>>()) {
            Some(Ok(scratch)) => *scratch,
            // None left, or one of another backend (not within one run): a new one.
            _ => Scratch::new(&self.geometry),
        }
    }

    /// Hands a chunk buffer back for the next job.
    fn give_back<B: Mont>(&self, scratch: Scratch<B>) {
        self.spare.lock().unwrap_or_else(PoisonError::into_inner).push(Box::new(scratch));
    }

    /// The scalar Montgomery constants.
    pub fn mont(&self) -> &Montgomery32 {
        &self.mont
    }

    /// The modulus.
    pub fn modulus(&self) -> u32 {
        self.mont.modulus()
    }

    /// `2^-e mod p`.
    pub fn half_pow(&self, e: u64) -> u32 {
        let mont = self.mont();
        mont.from_form(mont.pow(mont.to_form(self.half), e))
    }

    /// `F(0) = 2^(N-2) + 2`.
    pub fn first(&self) -> u32 {
        let p = self.modulus() as u64;
        ((pow_mod(2, self.n as u64 - 2, p) + 2) % p) as u32
    }

    /// The number of chunks: `ceil(N / 32m)`.
    pub fn chunks(&self) -> usize {
        self.n.div_ceil(self.geometry.chunk_len())
    }

    /// Steps of chunk `c`: the full `m`, or for the last chunk enough multiples of 8 to
    /// cover its outputs (padding at most 128 values of `k` past `N/2`).
    pub fn steps_of(&self, c: usize) -> usize {
        let left = self.n - c * self.geometry.chunk_len();
        self.geometry.steps.min(left.div_ceil(2 * LANES).next_multiple_of(8))
    }

    /// Chunk `c`: writes `F(v)` for `32mc <= v < min(N, 32m(c+1))` into `out` (exactly that
    /// range, except `F(0)`), given the true `a_in = A_(k0-1)` (`k0 = 16mc`); returns `A` at
    /// `k0 + 16m - 1`, the next chunk's `a_in`.
    #[inline(always)]
    fn chunk_on<B: Mont>(
        &self,
        lanes: &ModLanes<B>,
        c: usize,
        a_in: u32,
        out: &mut [u32],
        scratch: &mut Scratch<B>,
    ) -> u32 {
        let m = self.steps_of(c);
        let k0 = c * self.geometry.chunk_len() / 2;
        debug_assert_eq!(out.len(), (self.n - 2 * k0).min(2 * LANES * m));
        if lanes.lazy_ok() {
            self.build_tables::<B, true>(lanes, k0, m, scratch);
        } else {
            self.build_tables::<B, false>(lanes, k0, m, scratch);
        }
        let a_last = self.main_loop(lanes, k0, m, scratch);
        // A_in of each lane, lane by lane: A_in(i+1) = A_(m-1)(i) + A_in(i)·2^-m.
        let mont = self.mont();
        let shift = mont.to_form(self.half_pow(m as u64));
        let lasts = B::to_array(a_last);
        let mut incoming = [0u32; LANES];
        incoming[0] = a_in;
        for i in 1..LANES {
            incoming[i] = mont.add(lasts[i - 1], mont.mul(incoming[i - 1], shift));
        }
        let chunk_end = mont.add(lasts[LANES - 1], mont.mul(incoming[LANES - 1], shift));
        self.correct_and_transpose(lanes, m, B::load(&incoming), out, scratch);
        chunk_end
    }

    /// Fills the three tables of a chunk (see the module documentation).
    ///
    /// Each entry is one product away from its neighbour: a dependent chain whose latency
    /// (about 18 cycles a product) is far above its throughput (about 7). So the tables
    /// grow together in one loop, IC as two halves from two start values: four independent
    /// chains per step.
    ///
    /// IC's chain starts one below its top, at `(top-1)!^-1`, because the top of lane 0 in
    /// chunk 0 is `N + 1`, past the checkpoints and possibly `p` itself; the top entry is
    /// `(top-1)!^-1·top^-1`, which there is only ever multiplied by `(k-3)!^-1 = 0`.
    ///
    /// With `LAZY` (`p < 2^30`) the chains' products are lazy and the entries below `2p`
    /// rather than `p`: every entry only ever enters a product, and a product of two
    /// values below `2p` is below `4p^2 < p·2^32`, inside the REDC's range.
    #[inline(always)]
    fn build_tables<B: Mont, const LAZY: bool>(
        &self,
        lanes: &ModLanes<B>,
        k0: usize,
        m: usize,
        scratch: &mut Scratch<B>,
    ) {
        let n = self.n as i64;
        let (k0, m_i) = (k0 as i64, m as i64);
        let start = |i: usize| k0 + i as i64 * m_i;
        // Top of IA, bottom of FB, top of IC, below it, and top of IC's lower half.
        let ia_top: [i64; LANES] = std::array::from_fn(|i| start(i) + m_i);
        let fb_bottom: [i64; LANES] = std::array::from_fn(|i| n - start(i) - m_i - 2);
        let ic_top: [i64; LANES] = std::array::from_fn(|i| n - 2 * start(i) + 1);
        let ic_below: [i64; LANES] = std::array::from_fn(|i| ic_top[i] - 1);
        let ic_mid: [i64; LANES] = std::array::from_fn(|i| ic_top[i] - m_i - 3);
        let [ia_fact, fb_fact, below_fact, mid_fact] =
            self.factorials(lanes, [&ia_top, &fb_bottom, &ic_below, &ic_mid]);
        // Inverses by Fermat, x^(p-2), as Montgomery forms, all four through one loop
        // (zeros, for padding lanes, stay zero).
        let [ia_inv, below_inv, mid_inv, top_inv] = lanes.pow(
            [lanes.to_form(ia_fact), lanes.to_form(below_fact), lanes.to_form(mid_fact), self.forms_of(lanes, &ic_top)],
            self.modulus() as u64 - 2,
        );

        let (ia, fb, ic) = (&mut scratch.ia[..m + 4], &mut scratch.fb[..m + 2], &mut scratch.ic[..2 * m + 4]);
        let one = B::splat(self.mont().one());
        // The factor of each step as a Montgomery form: downwards (x-1)!^-1 = x!^-1·x,
        // upwards x!R^2 = (x-1)!R^2·x. Lanes whose IC top is negative are padding: a zero
        // start keeps their whole table zero.
        let (mut xa, mut xb) = (self.forms_of(lanes, &ia_top), lanes.add(self.forms_of(lanes, &fb_bottom), one));
        let (mut xh, mut xl) = (self.forms_of(lanes, &ic_below), self.forms_of(lanes, &ic_mid));
        ia[m + 3] = lanes.from_form(ia_inv);
        fb[0] = lanes.mul(fb_fact, B::splat(self.r3));
        ic[2 * m + 2] = lanes.from_form(below_inv);
        ic[2 * m + 3] = lanes.mul(ic[2 * m + 2], top_inv);
        ic[m] = lanes.from_form(mid_inv);
        for s in 0..m {
            ia[m + 2 - s] = lanes.mul_as::<LAZY>(ia[m + 3 - s], xa);
            fb[s + 1] = lanes.mul_as::<LAZY>(fb[s], xb);
            ic[2 * m + 1 - s] = lanes.mul_as::<LAZY>(ic[2 * m + 2 - s], xh);
            ic[m - 1 - s] = lanes.mul_as::<LAZY>(ic[m - s], xl);
            xa = lanes.sub(xa, one);
            xb = lanes.add(xb, one);
            xh = lanes.sub(xh, one);
            xl = lanes.sub(xl, one);
        }
        fb[m + 1] = lanes.mul_as::<LAZY>(fb[m], xb);
        ic[m + 1] = lanes.mul_as::<LAZY>(ic[m + 2], xh);
        for u in [3, 2, 1] {
            ia[u - 1] = lanes.mul_as::<LAZY>(ia[u], xa);
            xa = lanes.sub(xa, one);
        }
    }

    /// The per-lane recurrence over steps `0..=m`; returns each lane's `A` at step `m - 1`
    /// (as if it had started from 0) and leaves uncorrected outputs in `scratch.rows`.
    ///
    /// `C(R+1, k)` of step `t` is not built from factorials: by Pascal's rule twice it is
    /// `C(R, k) + C(R-1, k-1) + C(R-1, k-2)`, and the last two are `C(R', k'-2)` and
    /// `C(R', k'-3)` of step `t + 1` (`R' = R - 1`, `k' = k + 1`), which that step builds
    /// for `A` anyway (docs/theory/cards.md §8). So each odd output is written one step
    /// late, from a partial sum carried over, and a step costs six products, not eight;
    /// only the last step's `C(R+1, k)` comes from factorials.
    ///
    /// The first product of each binomial is left unreduced (below `2p`): both its inputs
    /// are table entries, below `2p` with `p < 2^30` and below `p` otherwise, so their
    /// product is below `p·2^32`, and so is the second product's (`4p^2` or `2p^2`).
    #[inline(always)]
    fn main_loop<B: Mont>(&self, lanes: &ModLanes<B>, k0: usize, m: usize, scratch: &mut Scratch<B>) -> B::V {
        // m is at most Geometry::steps, far from overflowing 2m + 4: stated, so that the
        // compiler can drop the bounds checks of the loop's indices.
        assert!(m <= u32::MAX as usize);
        let (ia, fb, ic) = (&scratch.ia[..m + 4], &scratch.fb[..m + 2], &scratch.ic[..2 * m + 4]);
        let rows = &mut scratch.rows[..2 * m];
        // 2^R at t = 0 in lane i: R = N - k0 - i·m - 2.
        let mont = self.mont();
        let base = mont.from_form(mont.pow(mont.to_form(2), (self.n - k0 - 2) as u64));
        let step = mont.to_form(self.half_pow(m as u64));
        let mut lane_pow = [base; LANES];
        for i in 1..LANES {
            lane_pow[i] = mont.mul(lane_pow[i - 1], step);
        }
        let mut power = B::load(&lane_pow);
        // 2^(R+1): the power of the step before, carried instead of doubled each step.
        let mut twice_power = lanes.double(power);
        let mut a = B::splat(0);
        let mut a_last = a;
        // The odd output of the step before, all but its `C(R-1, k-1) + C(R-1, k-2)`.
        let mut odd_partial = B::splat(0);
        for t in 0..m + 1 {
            let f_r = fb[m - t];
            let (i_k, i_k2, i_k3) = (ia[t + 3], ia[t + 1], ia[t]);
            let u = 2 * (m - t);
            let (i_j, i_j2, i_j3) = (ic[u], ic[u + 2], ic[u + 3]);
            let c_k2 = lanes.mul(lanes.mul_unreduced(f_r, i_k2), i_j2); // C(R, k-2)
            let c_k3 = lanes.mul(lanes.mul_unreduced(f_r, i_k3), i_j3); // C(R, k-3)
            let pascal = lanes.add(c_k2, c_k3);
            if t >= 2 {
                rows[2 * t - 3] = lanes.add(odd_partial, pascal);
            }
            // O_t = 2^(R+1) + C(R+1, k) - (2·A_t - C(R, k-2)), and 2·A_t - C(R, k-2) is
            // A_(t-1) + C(R, k-2) + C(R, k-3), the sum A_t halves less one term.
            let b = lanes.add(a, pascal);
            a = lanes.half(lanes.add(b, c_k2));
            let odd_base = lanes.sub(twice_power, b);
            if t < m {
                let c_k = lanes.mul(lanes.mul_unreduced(f_r, i_k), i_j); // C(R, k)
                rows[2 * t] = lanes.sub(lanes.add(power, c_k), a);
                odd_partial = lanes.add(odd_base, c_k);
            } else {
                let c1_k = lanes.mul(lanes.mul_unreduced(fb[m - t + 1], i_k), ic[u + 1]); // C(R+1, k)
                rows[2 * t - 1] = lanes.add(odd_base, c1_k);
            }
            if t + 1 == m {
                a_last = a;
            }
            twice_power = power;
            power = lanes.half(power);
        }
        a_last
    }

    /// Adds each lane's incoming `A` (`δ_t = A_in·2^-(t+1)` off `E_t`, `2·δ_t` off `O_t`)
    /// and writes the outputs in natural order, eight steps (16 vectors) at a time through
    /// a 16×16 transpose: row `i` holds lane `i`'s 16 outputs from `2·(i·m + t0)`.
    #[inline(always)]
    fn correct_and_transpose<B: Mont>(
        &self,
        lanes: &ModLanes<B>,
        m: usize,
        incoming: B::V,
        out: &mut [u32],
        scratch: &Scratch<B>,
    ) {
        let mut delta = lanes.half(incoming);
        // m is a multiple of 8 (`steps_of`): the rows are whole blocks of eight steps.
        for (t0, eight) in (0..m).step_by(8).zip(scratch.rows[..2 * m].chunks_exact(LANES)) {
            // Every entry is written below; any start value that is not all zeros keeps the
            // compiler from clearing the block with a 1 KiB memset every eight steps.
            let mut block = [delta; LANES];
            for q in 0..8 {
                // E_t less δ_t, and O_(t+1) less 2·δ_(t+1), which is δ_t again.
                block[2 * q] = lanes.sub(eight[2 * q], delta);
                block[2 * q + 1] = lanes.sub(eight[2 * q + 1], delta);
                delta = lanes.half(delta);
            }
            B::transpose(&mut block);
            for (i, row) in block.iter().enumerate() {
                let at = 2 * (i * m + t0);
                if at + LANES <= out.len() {
                    B::stream_store((&mut out[at..at + LANES]).try_into().expect("16 values"), *row);
                } else if at < out.len() {
                    let len = out.len() - at;
                    out[at..].copy_from_slice(&B::to_array(*row)[..len]);
                } else {
                    break;
                }
            }
        }
        B::store_fence();
    }

    /// `x!` (plain) in each lane for `0 <= x <= N`, and 0 where `x < 0`: a checkpoint, times
    /// the at most `2^checkpoint_log - 1` factors above it; `G` independent vectors at once.
    #[inline(always)]
    fn factorials<B: Mont, const G: usize>(&self, lanes: &ModLanes<B>, xs: [&[i64; LANES]; G]) -> [B::V; G] {
        let log = self.geometry.checkpoint_log;
        let one = B::splat(self.mont().one());
        let mut acc = [B::splat(0); G];
        for (a, x) in acc.iter_mut().zip(xs) {
            let starts: Block =
                std::array::from_fn(|i| if x[i] < 0 { 0 } else { self.checkpoints[(x[i] as usize) >> log] });
            *a = B::load(&starts);
        }
        // y runs over c·2^log + 1 ..= x in each lane; lanes with fewer factors keep acc.
        let mut counts = [B::splat(0); G];
        let mut y = [B::splat(0); G];
        for g in 0..G {
            let bases: [i64; LANES] = std::array::from_fn(|i| xs[g][i].max(0) >> log << log);
            counts[g] = B::load(&std::array::from_fn(|i| (xs[g][i].max(0) - bases[i]) as u32));
            y[g] = lanes.add(self.forms_of(lanes, &bases), one);
        }
        for u in 0..(1u32 << log) - 1 {
            for g in 0..G {
                let active = B::gt(counts[g], B::splat(u));
                acc[g] = B::select(active, lanes.mul(acc[g], y[g]), acc[g]);
                y[g] = lanes.add(y[g], one);
            }
        }
        acc
    }

    /// The Montgomery forms of `x mod p` for integers `x` (negative ones included).
    #[inline(always)]
    fn forms_of<B: Mont>(&self, lanes: &ModLanes<B>, xs: &[i64; LANES]) -> B::V {
        let p = self.modulus() as i64;
        lanes.to_form(B::load(&std::array::from_fn(|i| xs[i].rem_euclid(p) as u32)))
    }
}

/// Montgomery forms of the products `(b·2^log, (b+1)·2^log]` for `b = first ..` into
/// `out`: sixteen blocks per vector and four vectors at a time (independent product
/// chains), one product per factor.
#[inline(always)]
fn block_products_generic<B: Mont>(mont: &Montgomery32, first: usize, log: u32, out: &mut [u32]) {
    const G: usize = 4;
    let lanes = ModLanes::<B>::from_scalar(*mont);
    let one = B::splat(mont.one());
    let width = 1usize << log;
    for (group, out) in out.chunks_mut(G * LANES).enumerate() {
        let base = first + group * G * LANES;
        // Lane l of vector g multiplies b·2^log + 1 ..= (b + 1)·2^log, b = base + 16g + l.
        let mut y = [B::splat(0); G];
        for (g, yg) in y.iter_mut().enumerate() {
            let starts: Block =
                std::array::from_fn(|l| (((base + LANES * g + l) * width + 1) as u64 % mont.modulus() as u64) as u32);
            *yg = lanes.to_form(B::load(&starts));
        }
        let mut acc = [one; G];
        for _ in 0..width {
            for g in 0..G {
                acc[g] = lanes.mul(acc[g], y[g]);
                y[g] = lanes.add(y[g], one);
            }
        }
        let mut values = [[0u32; LANES]; G];
        for (v, &a) in values.iter_mut().zip(&acc) {
            B::store(v, a);
        }
        out.copy_from_slice(&values.as_flattened()[..out.len()]);
    }
}

/// Writes `F_n(v) mod p` for `v < n` into `out` with the lane chunks run in order on one
/// thread and `simd`'s backend, zeros after.
pub fn nimber_freq_lanes(simd: Simd, n: usize, p: u32, out: &mut [u32]) {
    nimber_freq_lanes_with(simd, n, p, out, Geometry::DEFAULT);
}

/// [`nimber_freq_lanes`] with an explicit chunk geometry.
pub fn nimber_freq_lanes_with(simd: Simd, n: usize, p: u32, out: &mut [u32], geometry: Geometry) {
    if n < MIN_CARDS {
        return super::nimber_freq_linear(n, p, out);
    }
    let plan = Plan::new(n, p, geometry, &Scheduler::sequential().with_simd(simd));
    out[n..].fill(0);
    run_chunks(simd, &plan, 0, 0, &mut out[..n], &Progress::hidden());
    out[0] = plan.first();
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::simd::Portable;
    use wide::u32x16;

    #[test]
    fn transpose_transposes() {
        let mut t: [u32x16; LANES] =
            std::array::from_fn(|r| u32x16::from(std::array::from_fn::<u32, LANES, _>(|c| (16 * r + c) as u32)));
        Portable::transpose(&mut t);
        for (r, row) in t.iter().enumerate() {
            assert_eq!(row.to_array(), std::array::from_fn::<u32, LANES, _>(|c| (16 * c + r) as u32));
        }
    }

    #[test]
    fn a_handed_back_buffer_is_reused_and_a_foreign_one_dropped() {
        let plan = Plan::new(5000, 1_000_000_007, Geometry { steps: 8, checkpoint_log: 4 }, &Scheduler::sequential());
        let first = plan.take_scratch::<Portable>();
        let rows = first.rows.as_ptr();
        plan.give_back(first);
        let again = plan.take_scratch::<Portable>();
        assert_eq!(again.rows.as_ptr(), rows, "the spare buffer was not reused");
        // A spare of another type (another backend's buffer) is dropped, not taken.
        plan.spare.lock().unwrap().push(Box::new(0u8));
        let fresh = plan.take_scratch::<Portable>();
        assert_eq!(fresh.rows.len(), 2 * 8);
        assert!(plan.spare.lock().unwrap().is_empty(), "the mismatched spare is dropped");
        plan.give_back(again);
        plan.give_back(fresh);
        assert_eq!(plan.spare.lock().unwrap().len(), 2);
    }

    #[test]
    fn checkpoints_and_lane_factorials_are_factorials() {
        let p = 1_000_000_007u32;
        let plan = Plan::new(5000, p, Geometry { steps: 8, checkpoint_log: 4 }, &Scheduler::new(Some(3)).unwrap());
        let mut fact = 1u64;
        for x in 0..=5000u64 {
            if x > 0 {
                fact = fact * x % p as u64;
            }
            if x % 16 == 0 {
                assert_eq!(plan.checkpoints[(x / 16) as usize] as u64, fact, "{x}!");
            }
        }
        let xs: [i64; LANES] = std::array::from_fn(|i| [-3, 0, 1, 15, 16, 17, 4999, 5000][i % 8] + (i / 8) as i64);
        let lanes = ModLanes::<Portable>::from_scalar(plan.mont);
        let [got] = plan.factorials(&lanes, [&xs]);
        let got = got.to_array();
        for i in 0..LANES {
            let expected = if xs[i] < 0 { 0 } else { (1..=xs[i] as u64).fold(1, |f, y| f * y % p as u64) as u32 };
            assert_eq!(got[i], expected, "{}!", xs[i]);
        }
    }
}
