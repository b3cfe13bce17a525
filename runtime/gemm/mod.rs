//! The f32/f64 matrix product behind every `dot_general`: packed
//! microkernels for AVX-512F and AVX2+FMA (chosen by the SIMD level of
//! [`crate::__rt::par`]), cache blocking, threads of the runtime's team (`__rt::team`), and an epilogue
//! hook that sees each finished block of C while it is still in cache.
//! `matrixmultiply` is the fallback at the baseline level (`JAX_SIMD=baseline`
//! or a CPU without AVX2) and off x86_64.
//!
//! Blocking (the loops of GotoBLAS/BLIS): for each `NC` columns of C, for each
//! `KC` slice of k, one packed `KC × NC` panel of B is shared by every `MC`
//! row block; within a row block each `KC × NR` micro-panel of B stays in
//! cache (L2 for f32's 512 × 32: a longer k slice measured 3–5 % faster than
//! an L1-sized one, fewer passes over C) while the `MR`-row micro-panels of
//! A stream past it.
//!
//! B's micro-panels are packed during the first row block, each just before
//! its first use, and the kernels computing with one prefetch the source of
//! the next (`kernels::Prefetch`), so reading B from memory overlaps the
//! arithmetic. A row-major B's full micro-panels are packed by the first
//! tile's kernel itself, which reads the rows from B and writes the panel
//! as it multiplies. For the MLP's 128 × 1024 · 1024 × 1024 this took the
//! packing's share of the time from ~15 % to ~2 % (AMD Zen 5, B read from
//! L3). On other CPUs a wide row-major B is instead packed one whole panel
//! at a time, row by row, before its first row block (`packs_b_ahead`).
//! `KC` is fixed per
//! kernel, never derived from the thread count, so each element of C is the
//! same sum in the same order (partial sums over `KC` slices added in order)
//! however the work is split: results are identical for any number of
//! threads.

use std::cell::Cell;
use std::marker::PhantomData;

use crate::__rt::par::Level;

mod kernels;
mod pack;

use crate::__rt::team::SendPtr;
use kernels::{KernelFn, Prefetch};

/// One finished block of C handed to an epilogue: rows `r0..r0+rows` and
/// columns `c0..c0+cols` of the row-major `m×n` output. Blocks given to
/// different threads never share an element.
pub struct Tile<'a, T> {
    /// C's element `(r0, c0)`.
    ptr: *mut T,
    ldc: usize,
    r0: usize,
    c0: usize,
    rows: usize,
    cols: usize,
    _c: PhantomData<&'a mut T>,
}

impl<'a, T> Tile<'a, T> {
    /// The whole row-major matrix `c` (`cols` columns) as one block whose
    /// first row is row `r0` of a larger C.
    pub(crate) fn whole(c: &'a mut [T], r0: usize, cols: usize) -> Self {
        Tile {
            ptr: c.as_mut_ptr(),
            ldc: cols,
            r0,
            c0: 0,
            rows: c.len().checked_div(cols).unwrap_or(0),
            cols,
            _c: PhantomData,
        }
    }

    /// The same block, numbered as rows `dr` further down a larger C.
    pub(crate) fn shifted(mut self, dr: usize) -> Self {
        self.r0 += dr;
        self
    }

    /// The block's first row in C.
    pub fn r0(&self) -> usize {
        self.r0
    }
    /// The block's first column in C.
    pub fn c0(&self) -> usize {
        self.c0
    }
    /// The block's number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// The block's number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Row `i` (`0..rows`) of the block: `cols` contiguous elements of C's
    /// row `r0 + i`.
    pub fn row_mut(&mut self, i: usize) -> &mut [T] {
        assert!(i < self.rows, "Tile::row_mut: row {i} of {}", self.rows);
        // SAFETY: a Tile is only made (in `tile`) for a block inside C that
        // no other Tile or thread touches while it lives; row i < rows holds
        // `cols` elements from its start.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.ldc), self.cols) }
    }
}

/// The epilogue: called exactly once per element of C, after that element's
/// whole sum over k is written, while the block is still in cache.
pub type Epilogue<'e, T> = &'e (dyn Fn(Tile<'_, T>) + Sync);

/// C = A·B (row-major `m×n`, written into `c`, len `m*n`, stale contents
/// never read), then `epilogue` over every block. A and B given by (row,
/// column) strides.
///
/// ```
/// use jax::gemm::sgemm_into;
/// let a = [1.0f32, 2.0, 3.0, 4.0]; // [[1, 2], [3, 4]]
/// let mut c = [0.0f32; 4];
/// sgemm_into(2, 2, 2, &a, 2, 1, &a, 1, 2, &mut c, None); // A·Aᵀ
/// assert_eq!(c, [5.0, 11.0, 11.0, 25.0]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn sgemm_into(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    ars: usize,
    acs: usize,
    b: &[f32],
    brs: usize,
    bcs: usize,
    c: &mut [f32],
    epilogue: Option<Epilogue<'_, f32>>,
) {
    sgemm_into_at(
        Level::current(),
        m,
        k,
        n,
        a,
        ars,
        acs,
        b,
        brs,
        bcs,
        c,
        epilogue,
    )
}

/// [`sgemm_into`] for `f64`.
#[allow(clippy::too_many_arguments)]
pub fn dgemm_into(
    m: usize,
    k: usize,
    n: usize,
    a: &[f64],
    ars: usize,
    acs: usize,
    b: &[f64],
    brs: usize,
    bcs: usize,
    c: &mut [f64],
    epilogue: Option<Epilogue<'_, f64>>,
) {
    dgemm_into_at(
        Level::current(),
        m,
        k,
        n,
        a,
        ars,
        acs,
        b,
        brs,
        bcs,
        c,
        epilogue,
    )
}

/// [`sgemm_into`] at SIMD level `level` (lowered to what the CPU supports):
/// for tests and benchmarks comparing the kernels.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn sgemm_into_at(
    level: Level,
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    ars: usize,
    acs: usize,
    b: &[f32],
    brs: usize,
    bcs: usize,
    c: &mut [f32],
    epilogue: Option<Epilogue<'_, f32>>,
) {
    let p = Problem {
        m,
        k,
        n,
        a,
        ars,
        acs,
        b,
        brs,
        bcs,
    };
    match micro_f32(level.min(Level::supported())) {
        Some(micro) => run(&micro, &p, c, epilogue),
        None => fallback(&p, c, epilogue, |p, c| {
            // SAFETY: see `fallback`.
            unsafe { mm_call(p, c, matrixmultiply::sgemm) }
        }),
    }
}

/// [`dgemm_into`] at SIMD level `level`: see [`sgemm_into_at`].
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn dgemm_into_at(
    level: Level,
    m: usize,
    k: usize,
    n: usize,
    a: &[f64],
    ars: usize,
    acs: usize,
    b: &[f64],
    brs: usize,
    bcs: usize,
    c: &mut [f64],
    epilogue: Option<Epilogue<'_, f64>>,
) {
    let p = Problem {
        m,
        k,
        n,
        a,
        ars,
        acs,
        b,
        brs,
        bcs,
    };
    match micro_f64(level.min(Level::supported())) {
        Some(micro) => run(&micro, &p, c, epilogue),
        None => fallback(&p, c, epilogue, |p, c| {
            // SAFETY: see `fallback`.
            unsafe { mm_call(p, c, matrixmultiply::dgemm) }
        }),
    }
}

/// The floats the kernels run on.
pub(crate) trait Real: Copy + Send + Sync + 'static + std::ops::Add<Output = Self> {
    const ZERO: Self;
}
impl Real for f32 {
    const ZERO: f32 = 0.0;
}
impl Real for f64 {
    const ZERO: f64 = 0.0;
}

/// A product's operands.
struct Problem<'a, T> {
    m: usize,
    k: usize,
    n: usize,
    a: &'a [T],
    ars: usize,
    acs: usize,
    b: &'a [T],
    brs: usize,
    bcs: usize,
}

impl<T> Problem<'_, T> {
    /// B's element (row `r`, column `c`), as a pointer: callers stay inside
    /// the bounds `check` verified.
    fn b_at(&self, r: usize, c: usize) -> *const T {
        self.b.as_ptr().wrapping_add(r * self.brs + c * self.bcs)
    }
}

/// A microkernel and the block sizes that suit it.
struct Micro<T> {
    mr: usize,
    nr: usize,
    /// Length of the k slices: fixed per kernel (see the module docs).
    kc: usize,
    mc: usize,
    nc: usize,
    kernel: KernelFn<T>,
    pack_a: pack::PackFn<T>,
    pack_b: pack::PackFn<T>,
}

/// The largest `MR · NR` of any kernel (the scratch tile for edge blocks).
const MAX_TILE: usize = 12 * 32;

fn micro_f32(level: Level) -> Option<Micro<f32>> {
    #[cfg(target_arch = "x86_64")]
    {
        match level {
            Level::Avx512 => Some(Micro {
                mr: 12,
                nr: 32,
                kc: 512,
                mc: 144,
                nc: 2048,
                kernel: kernels::s_avx512,
                pack_a: pack::s_avx512::pack_a,
                pack_b: pack::s_avx512::pack_b,
            }),
            Level::Avx2 => Some(Micro {
                mr: 6,
                nr: 16,
                kc: 512,
                mc: 144,
                nc: 2048,
                kernel: kernels::s_avx2,
                pack_a: pack::s_avx2::pack_a,
                pack_b: pack::s_avx2::pack_b,
            }),
            Level::Baseline => None,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = level;
        None
    }
}

fn micro_f64(level: Level) -> Option<Micro<f64>> {
    #[cfg(target_arch = "x86_64")]
    {
        match level {
            Level::Avx512 => Some(Micro {
                mr: 12,
                nr: 16,
                kc: 256,
                mc: 96,
                nc: 2048,
                kernel: kernels::d_avx512,
                pack_a: pack::pack_a,
                pack_b: pack::pack_b,
            }),
            Level::Avx2 => Some(Micro {
                mr: 6,
                nr: 8,
                kc: 256,
                mc: 96,
                nc: 2048,
                kernel: kernels::d_avx2,
                pack_a: pack::pack_a,
                pack_b: pack::pack_b,
            }),
            Level::Baseline => None,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = level;
        None
    }
}

/// Products with fewer multiply-adds stay on the calling thread.
const PARALLEL_WORK: usize = 1 << 20;

/// Checks the operands' extents: the last elements the strides reach must
/// be inside the slices, and C must be `m × n`.
fn check<T>(p: &Problem<'_, T>, c: &[T]) {
    assert_eq!(c.len(), p.m * p.n, "gemm: output length");
    if p.m > 0 && p.n > 0 && p.k > 0 {
        assert!(
            (p.m - 1) * p.ars + (p.k - 1) * p.acs < p.a.len(),
            "gemm: lhs too short for its strides"
        );
        assert!(
            (p.k - 1) * p.brs + (p.n - 1) * p.bcs < p.b.len(),
            "gemm: rhs too short for its strides"
        );
    }
}

/// The number of blocks of rows and of columns to split C into for
/// `threads` threads: the grid whose duplicated packing (A once per column
/// block, B once per row block) is smallest, with blocks at least one tile.
fn grid(m: usize, n: usize, mr: usize, nr: usize, threads: usize) -> (usize, usize) {
    let mut best = (1, 1);
    let mut best_cost = usize::MAX;
    for tr in 1..=threads {
        if !threads.is_multiple_of(tr) {
            continue;
        }
        let tc = threads / tr;
        if m < tr * mr || n < tc * nr {
            continue;
        }
        let cost = tc * m + tr * n;
        if cost < best_cost {
            best = (tr, tc);
            best_cost = cost;
        }
    }
    best
}

fn run<T: Real>(micro: &Micro<T>, p: &Problem<'_, T>, c: &mut [T], epi: Option<Epilogue<'_, T>>) {
    check(p, c);
    let (m, k, n) = (p.m, p.k, p.n);
    if m == 0 || n == 0 {
        return;
    }
    let cp = SendPtr(c.as_mut_ptr());
    if k == 0 {
        c.fill(T::ZERO);
        if let Some(e) = epi {
            e(tile(cp.0, n, 0, 0, m, n));
        }
        return;
    }
    // Whatever the thread count, so the bits do not depend on it.
    if m * n * k >= PARALLEL_WORK && deep(m, k, n) {
        return run_split_k(micro, p, c, epi);
    }
    let threads = crate::__rt::team::threads();
    let (tr, tc) = if threads > 1 && m * n * k >= PARALLEL_WORK {
        grid(m, n, micro.mr, micro.nr, threads)
    } else {
        (1, 1)
    };
    // `check` bounds every index the strides reach; each task writes only
    // rows `i0..i1` × columns `j0..j1` of C, blocks that do not overlap,
    // and C outlives the tasks.
    if tr * tc == 1 {
        // SAFETY: one task, the whole of C (see above).
        unsafe { block(micro, p, cp, 0, m, 0, n, epi) };
        return;
    }
    // Block edges on whole tiles, so only the last block has edge tiles.
    let rows = m.div_ceil(tr).next_multiple_of(micro.mr);
    let cols = n.div_ceil(tc).next_multiple_of(micro.nr);
    let (tr, tc) = (m.div_ceil(rows), n.div_ceil(cols));
    crate::__rt::team::run(tr * tc, &|t| {
        let (i0, j0) = ((t / tc) * rows, (t % tc) * cols);
        let (i1, j1) = ((i0 + rows).min(m), (j0 + cols).min(n));
        // SAFETY: task `t` alone writes its block of C (see above).
        unsafe { block(micro, p, cp, i0, i1, j0, j1, epi) };
    });
}

/// A product whose C is small against its depth (the weight gradient
/// `Σ_t x_t h_tᵀ` of a scan: 64×10,000×64): split into blocks of C, each
/// thread would pack most of A and B for a few tiles of work.
fn deep(m: usize, k: usize, n: usize) -> bool {
    m * n <= DEEP_MAX_OUTPUT && k >= 8 * m.max(n)
}

/// The largest C (in elements) that [`run_split_k`] sums in parts.
const DEEP_MAX_OUTPUT: usize = 256 * 256;

/// Depth per part of [`run_split_k`]: its parts depend on the sizes alone,
/// never on the thread count, so the result does not either.
const DEEP_PART: usize = 2048;

/// C as the sum of products over consecutive ranges of the depth, each a
/// task writing its own partial C (the first straight into `c`), added in
/// order; the epilogue runs on the sum.
fn run_split_k<T: Real>(
    micro: &Micro<T>,
    p: &Problem<'_, T>,
    c: &mut [T],
    epi: Option<Epilogue<'_, T>>,
) {
    let (m, k, n) = (p.m, p.k, p.n);
    let parts = k.div_ceil(DEEP_PART).clamp(2, 8);
    let depth = k.div_ceil(parts);
    let parts = k.div_ceil(depth);
    let mut partials = vec![T::ZERO; (parts - 1) * m * n];
    let cp = SendPtr(c.as_mut_ptr());
    let pp = SendPtr(partials.as_mut_ptr());
    crate::__rt::team::run(parts, &|t| {
        let (k0, k1) = (t * depth, ((t + 1) * depth).min(k));
        let part = Problem {
            m,
            k: k1 - k0,
            n,
            a: &p.a[k0 * p.acs..],
            ars: p.ars,
            acs: p.acs,
            b: &p.b[k0 * p.brs..],
            brs: p.brs,
            bcs: p.bcs,
        };
        // SAFETY: task 0 writes `c`, task t > 0 the t-th m×n block of
        // `partials`; the parts' reads stay inside A and B (`check`
        // bounded the whole depth).
        let (cp, pp) = (&cp, &pp); // whole, not their raw-pointer fields
        let out = if t == 0 {
            SendPtr(cp.0)
        } else {
            // SAFETY: block `t - 1` of `partials`, which holds `parts - 1`.
            SendPtr(unsafe { pp.0.add((t - 1) * m * n) })
        };
        // SAFETY: `out` is this task's own m×n block (see above).
        unsafe { block(micro, &part, out, 0, m, 0, n, None) };
    });
    for part in partials.chunks_exact(m * n) {
        for (x, &y) in c.iter_mut().zip(part) {
            *x = *x + y;
        }
    }
    if let Some(e) = epi {
        e(tile(cp.0, n, 0, 0, m, n));
    }
}

fn tile<'a, T>(
    c: *mut T,
    ldc: usize,
    r0: usize,
    c0: usize,
    rows: usize,
    cols: usize,
) -> Tile<'a, T> {
    Tile {
        // SAFETY: (r0, c0) is inside C (callers pass blocks inside it).
        ptr: unsafe { c.add(r0 * ldc + c0) },
        ldc,
        r0,
        c0,
        rows,
        cols,
        _c: PhantomData,
    }
}

/// 64-byte aligned storage for packed panels.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

thread_local! {
    /// Each thread's packing buffers, reused across calls (taken out while
    /// in use, so an epilogue that calls gemm again gets its own).
    static SCRATCH: Cell<Vec<Line>> = const { Cell::new(Vec::new()) };
}

/// Rows `i0..i1` × columns `j0..j1` of C, on this thread.
///
/// # Safety
/// The operands satisfy `check`; no other thread touches this block of C.
#[allow(clippy::too_many_arguments)]
unsafe fn block<T: Real>(
    micro: &Micro<T>,
    p: &Problem<'_, T>,
    c: SendPtr<T>,
    i0: usize,
    i1: usize,
    j0: usize,
    j1: usize,
    epi: Option<Epilogue<'_, T>>,
) {
    let Micro {
        mr,
        nr,
        kc,
        mc,
        nc,
        kernel,
        pack_a,
        pack_b,
    } = *micro;
    let (k, ldc) = (p.k, p.n);
    // Row-major B wide enough that a micro-panel holds a small part of
    // each row (see `packs_b_ahead`).
    let ahead = p.bcs == 1 && (j1 - j0) >= AHEAD_MIN_PANELS * nr && packs_b_ahead();
    let kc_max = kc.min(k);
    let mc_max = mc.min(i1 - i0).next_multiple_of(mr);
    let nc_max = nc.min(j1 - j0).next_multiple_of(nr);
    let a_len = mc_max * kc_max;
    let b_len = nc_max * kc_max;
    let size = std::mem::size_of::<T>();
    let lines = (a_len * size).div_ceil(64) + (b_len * size).div_ceil(64);
    let mut scratch = SCRATCH.take();
    if scratch.len() < lines {
        scratch = vec![Line([0; 64]); lines];
    }
    let apack = scratch.as_mut_ptr().cast::<T>();
    // SAFETY: B's panel starts on the line after A's, both inside `scratch`.
    let bpack = unsafe {
        scratch
            .as_mut_ptr()
            .add((a_len * size).div_ceil(64))
            .cast::<T>()
    };
    let mut edge = [T::ZERO; MAX_TILE];
    let (a, c) = (p.a.as_ptr(), c.0);
    // SAFETY: `check` bounds the operands' reads; the packed buffers hold
    // the sizes computed above; tiles are written inside this block only.
    unsafe {
        for jc in (j0..j1).step_by(nc) {
            let ncb = nc.min(j1 - jc);
            for pc in (0..k).step_by(kc) {
                let kcb = kc.min(k - pc);
                for ic in (i0..i1).step_by(mc) {
                    let mcb = mc.min(i1 - ic);
                    pack_a(
                        apack,
                        a.add(ic * p.ars + pc * p.acs),
                        p.ars,
                        p.acs,
                        mcb,
                        kcb,
                        mr,
                    );
                    // B's panels are packed during the first row block: all
                    // at once, reading B row by row, where that is faster
                    // (`packs_b_ahead`); otherwise each just before its
                    // first use, while the previous one's kernels prefetch
                    // its source.
                    let first = ic == i0;
                    if first && ahead {
                        pack_b(bpack, p.b_at(pc, jc), p.brs, p.bcs, kcb, ncb, nr);
                    }
                    let first = first && !ahead;
                    for jr in (0..ncb).step_by(nr) {
                        let nrb = nr.min(ncb - jr);
                        let bp = bpack.add(jr * kcb);
                        // A whole panel of a row-major B is packed by its
                        // first tile's kernel; others here.
                        let src = if first && p.bcs == 1 && nrb == nr {
                            p.b_at(pc, jc + jr)
                        } else {
                            if first {
                                pack_b(bp, p.b_at(pc, jc + jr), p.brs, p.bcs, kcb, nrb, nr);
                            }
                            std::ptr::null()
                        };
                        let next = if first {
                            next_panel(micro, p, j1, (jc, pc, jr))
                        } else {
                            None
                        };
                        for (t, ir) in (0..mcb).step_by(mr).enumerate() {
                            let mrb = mr.min(mcb - ir);
                            let ap = apack.add(ir * kcb);
                            let ct = c.add((ic + ir) * ldc + jc + jr);
                            let pf = next.map_or(Prefetch::NONE, |n| n.part(t * kcb));
                            let src = if t == 0 { src } else { std::ptr::null() };
                            if mrb == mr && nrb == nr {
                                kernel(kcb, ap, bp, ct, ldc, pc > 0, src, p.brs, pf);
                            } else {
                                // An edge tile: computed whole into a scratch
                                // tile, then its valid part added or copied.
                                kernel(kcb, ap, bp, edge.as_mut_ptr(), nr, false, src, p.brs, pf);
                                for i in 0..mrb {
                                    for j in 0..nrb {
                                        let x = edge[i * nr + j];
                                        let o = ct.add(i * ldc + j);
                                        *o = if pc > 0 { *o + x } else { x };
                                    }
                                }
                            }
                        }
                    }
                    if pc + kcb == k
                        && let Some(e) = epi
                    {
                        e(tile(c, ldc, ic, jc, mcb, ncb));
                    }
                }
            }
        }
    }
    SCRATCH.set(scratch);
}

/// The fewest micro-panels per row of B's block for which `block` packs B
/// ahead: with fewer (a convolution's 5·5·32 × 64 kernel, the 64 columns
/// of a scan's weight gradient) the in-kernel packing reads most of each
/// row anyway, and measured 3–6 % faster.
const AHEAD_MIN_PANELS: usize = 8;

/// Whether `block` packs each `kc × nc` panel of B in one pass before its
/// first row block, rather than micro-panel by micro-panel inside the
/// first row block's kernels. The in-kernel packing reads two lines of
/// each of `kc` rows per micro-panel, a new page per row; AMD Zen 5 hides
/// that behind the arithmetic (the packing's share of the MLP's
/// 128 × 1024 · 1024 × 1024 fell from ~15 % to ~2 %), but on the Intel
/// Xeon those kernels ran 3–5× slower than the others and the one pass,
/// whose sequential reads the hardware prefetches, was 11–18 % faster on
/// the MLP's batch-128 products. On AMD Zen 4 packing ahead measured
/// 1–4 % slower, as on Zen 5. So: in the kernels on AMD, ahead elsewhere.
fn packs_b_ahead() -> bool {
    use std::sync::atomic::Ordering;
    match PACKS_B_AHEAD.load(Ordering::Relaxed) {
        0 => {
            let ahead = !crate::__rt::par::cpu_is_amd();
            // A `set_packs_b_ahead` that raced ahead keeps its choice.
            let _ = PACKS_B_AHEAD.compare_exchange(
                0,
                1 + u8::from(ahead),
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            PACKS_B_AHEAD.load(Ordering::Relaxed) == 2
        }
        v => v == 2,
    }
}

/// Makes `block` pack B ahead (`true`) or inside the kernels (`false`) from
/// now on, whatever the CPU: for tests and benchmarks of both paths, which
/// give the same bits.
#[doc(hidden)]
pub fn set_packs_b_ahead(ahead: bool) {
    PACKS_B_AHEAD.store(1 + u8::from(ahead), std::sync::atomic::Ordering::Relaxed);
}

/// [`packs_b_ahead`]'s answer: 0 not asked yet, 1 no, 2 yes.
static PACKS_B_AHEAD: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The memory of one panel of B still to be packed, as rows of whole
/// cache lines.
#[derive(Clone, Copy)]
struct PanelSource {
    /// The first row's first line (64-byte aligned).
    start: *const i8,
    stride: usize,
    lines: usize,
    rows: usize,
}

impl PanelSource {
    /// The part a kernel call prefetches when `skip` lines of the panel are
    /// left to the calls before it (one line per step of its k loop).
    fn part(self, skip: usize) -> Prefetch {
        let row = skip / self.lines;
        if row >= self.rows {
            return Prefetch::NONE;
        }
        Prefetch {
            start: self.start.wrapping_add(row * self.stride),
            stride: self.stride,
            lines: self.lines,
            line: skip % self.lines,
            rows: self.rows - row,
        }
    }
}

/// The source of the panel of B packed after the one at (column block
/// `jc`, k slice `pc`, panel column `jr`) in `block`'s loops over columns
/// up to `j1`; `None` after the last, or when B's strides make neither its
/// rows nor its columns contiguous.
fn next_panel<T>(
    micro: &Micro<T>,
    p: &Problem<'_, T>,
    j1: usize,
    (jc, pc, jr): (usize, usize, usize),
) -> Option<PanelSource> {
    let ncb = micro.nc.min(j1 - jc);
    let (jc, pc, jr) = if jr + micro.nr < ncb {
        (jc, pc, jr + micro.nr)
    } else if pc + micro.kc < p.k {
        (jc, pc + micro.kc, 0)
    } else if jc + micro.nc < j1 {
        (jc + micro.nc, 0, 0)
    } else {
        return None;
    };
    let kcb = micro.kc.min(p.k - pc);
    let nrb = micro.nr.min(micro.nc.min(j1 - jc) - jr);
    let size = std::mem::size_of::<T>();
    // Rows of the panel in memory: B's rows (a row-major B) or its columns.
    let (rows, len, stride) = if p.bcs == 1 {
        (kcb, nrb, p.brs)
    } else if p.brs == 1 {
        (nrb, kcb, p.bcs)
    } else {
        return None;
    };
    let addr = p.b_at(pc, jc + jr) as usize;
    let skew = addr % 64;
    // A row starting `skew` bytes into a line; rows a stride apart that is
    // not a whole number of lines start at other offsets, so they may reach
    // one line further.
    let extra = usize::from(!(stride * size).is_multiple_of(64));
    Some(PanelSource {
        start: (addr - skew) as *const i8,
        stride: stride * size,
        lines: (skew + len * size).div_ceil(64) + extra,
        rows,
    })
}

/// One `matrixmultiply` call: `C = A·B` for the rows and columns of `c`.
///
/// # Safety
/// The operands satisfy `check`.
#[allow(clippy::type_complexity)]
unsafe fn mm_call<T>(
    p: &Problem<'_, T>,
    c: &mut [T],
    f: unsafe fn(
        usize,
        usize,
        usize,
        T,
        *const T,
        isize,
        isize,
        *const T,
        isize,
        isize,
        T,
        *mut T,
        isize,
        isize,
    ),
) where
    T: From<f32>,
{
    // SAFETY: `check` bounds every index the strides reach; beta = 0, so C's
    // stale contents are not read.
    unsafe {
        f(
            p.m,
            p.k,
            p.n,
            T::from(1.0),
            p.a.as_ptr(),
            p.ars as isize,
            p.acs as isize,
            p.b.as_ptr(),
            p.brs as isize,
            p.bcs as isize,
            T::from(0.0),
            c.as_mut_ptr(),
            p.n as isize,
            1,
        )
    }
}

/// The baseline path: `matrixmultiply` over blocks of rows of C on the team's
/// threads, then the epilogue over each block.
fn fallback<T: Real>(
    p: &Problem<'_, T>,
    c: &mut [T],
    epi: Option<Epilogue<'_, T>>,
    call: impl Fn(&Problem<'_, T>, &mut [T]) + Sync,
) {
    check(p, c);
    let (m, k, n) = (p.m, p.k, p.n);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.fill(T::ZERO);
    }
    let threads = crate::__rt::team::threads();
    let rows = if threads > 1 && m * n * k >= PARALLEL_WORK {
        m.div_ceil(threads)
    } else {
        m
    };
    crate::__rt::team::for_chunks(c, rows * n, &|blk, cblk| {
        let r0 = blk * rows;
        let mr = cblk.len() / n;
        if k > 0 {
            let sub = Problem {
                m: mr,
                a: &p.a[r0 * p.ars..],
                ..*p
            };
            call(&sub, cblk);
        }
        if let Some(e) = epi {
            e(tile(cblk.as_mut_ptr(), n, 0, 0, mr, n).at(r0));
        }
    });
}

impl<T> Tile<'_, T> {
    /// The same block, numbered as starting at row `r0` of C.
    fn at(mut self, r0: usize) -> Self {
        self.r0 = r0;
        self
    }
}
