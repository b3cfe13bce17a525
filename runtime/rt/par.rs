//! Parallel loops and SIMD dispatch for generated code.
//!
//! Two things make the loops `#[jax::jit]` emits fast, and both live here so
//! generated code stays free of `unsafe` and of `cfg`s:
//!
//! - **SIMD dispatch.** A default rustc build targets SSE2 only. A loop body
//!   handed to [`dispatch`] (or to one of the loop drivers below) is compiled
//!   three times, for SSE2, AVX2+FMA and AVX-512F, and the copy the CPU
//!   supports is chosen at run time (detected once, cached in an atomic). This
//!   works because LLVM inlines the caller's closure, and the `#[inline(always)]`
//!   scalar operations it calls, into a `#[target_feature]` function, then
//!   vectorizes it there. Inlining is what the tests in `tests/numpy/par.rs` rely on; a body that
//!   is not inlined
//!   still runs correctly, only at SSE2 speed.
//! - **Threads.** [`for_each_chunk`], [`for_each_rows`] and [`reduce`] split a
//!   loop into fixed-size chunks run by the thread team (`team`), once the loop has at least two
//!   chunks' worth of work ([`GRAIN`] elements of cheap work each, measured on
//!   a 2-core machine). Reductions combine per-chunk partials left to right,
//!   and the chunking does not depend on the number of threads, so results are
//!   bit-identical for any thread count and any SIMD level.
//!
//! SIMD levels never change results: LLVM does not contract `a * b + c` into
//! an FMA without fast-math flags, an explicit `mul_add` is one correctly
//! rounded operation at every level (libm's `fmaf` at the baseline), and the
//! scalar operations are the same functions at every level.

use std::sync::atomic::{AtomicU8, Ordering};

use super::team;

/// A SIMD instruction-set level a loop body can be compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The target's baseline (SSE2 on x86_64; the only level elsewhere).
    Baseline,
    /// AVX2 and FMA (x86_64).
    Avx2,
    /// AVX-512F, plus AVX2 and FMA (x86_64).
    Avx512,
}

/// The cached level: 0 = not detected yet, otherwise `Level as u8 + 1`.
static LEVEL: AtomicU8 = AtomicU8::new(0);

impl Level {
    fn from_u8(v: u8) -> Level {
        match v {
            2 => Level::Avx2,
            3 => Level::Avx512,
            _ => Level::Baseline,
        }
    }

    /// The best level this CPU supports, ignoring `JAX_SIMD`.
    pub fn supported() -> Level {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Level::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Level::Avx2;
            }
        }
        Level::Baseline
    }

    /// The level loops run at: [`Level::supported`], lowered by the
    /// environment variable `JAX_SIMD` (`baseline`/`sse2`, `avx2`, `avx512`)
    /// if set. Detected on first use and cached.
    #[inline]
    pub fn current() -> Level {
        match LEVEL.load(Ordering::Relaxed) {
            0 => {
                let supported = Level::supported();
                let wanted = match std::env::var("JAX_SIMD").as_deref() {
                    Ok("baseline") | Ok("sse2") => Level::Baseline,
                    Ok("avx2") => Level::Avx2,
                    _ => Level::Avx512,
                };
                let level = supported.min(wanted);
                LEVEL.store(level as u8 + 1, Ordering::Relaxed);
                level
            }
            v => Level::from_u8(v),
        }
    }

    /// Makes loops run at `level` from now on, or at the best level below it
    /// this CPU supports (so this cannot enable unsupported instructions).
    /// For benchmarks comparing levels; results do not depend on the level.
    pub fn set(level: Level) {
        let level = level.min(Level::supported());
        LEVEL.store(level as u8 + 1, Ordering::Relaxed);
    }
}

/// Runs `f` compiled for the best SIMD level of this CPU (see the module docs).
///
/// ```
/// let xs = vec![1.0f32; 1000];
/// let s: f32 = jax::__rt::par::dispatch(|| xs.iter().map(|x| x * 2.0).sum());
/// assert_eq!(s, 2000.0);
/// ```
#[inline(always)]
pub fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    dispatch_at(Level::current(), f)
}

/// Runs `f` compiled for `level`, or for the best level below it this CPU
/// supports: asking for more than the CPU has is safe. For benchmarks and
/// tests that compare levels.
#[inline(always)]
pub fn dispatch_at<R>(level: Level, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        match level.min(Level::current()) {
            // SAFETY: `Level::current()` is at most `Level::supported()`,
            // which checked with `is_x86_feature_detected!` that this CPU has
            // AVX-512F, AVX2 and FMA, the features `x86::avx512` enables.
            Level::Avx512 => unsafe { x86::avx512(f) },
            // SAFETY: as above, the CPU was checked to have AVX2 and FMA.
            Level::Avx2 => unsafe { x86::avx2(f) },
            Level::Baseline => f(),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = level;
        f()
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    /// Calls `f` from a function compiled with AVX-512F: LLVM inlines `f`
    /// here (its features are a subset) and vectorizes it with zmm registers.
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX2 and FMA.
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    pub(super) unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    /// Calls `f` from a function compiled with AVX2 and FMA.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(super) unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// Elements of the cheapest work (one arithmetic operation each) per
/// parallel chunk; a loop runs on the calling thread unless it has at least
/// two chunks.
///
/// Measured on the 2-core machine (`threshold_sweep` in `tests/par.rs`, one
/// chunk vs two on a 2-thread pool, medians of interleaved runs): two threads
/// start paying once a loop holds about 50 µs of single-thread work. For
/// `x * a + b` (cost 2, in cache) that is between 2^17 elements (0.95x) and
/// 2^18 (1.1x, 2.1x with 16 chunks); for the `tanh` chain (libm `tanhf`,
/// about 50 times the cost) between 2^11 (0.98x) and 2^12 (1.2x). So two
/// chunks of `grain(2) = 2^17` elements start at 2^18.
pub const GRAIN: usize = 1 << 18;

/// Elements per partial of [`reduce`]: fixed, so a reduction's result does
/// not depend on the number of threads. Small enough to spread a 2^19
/// element reduction (where it goes parallel) over 32 tasks, large enough
/// that the partials (one per 64 KiB of f32) cost nothing to combine.
pub const REDUCE_CHUNK: usize = 1 << 14;

/// The chunk length for a loop doing about `cost` cheap operations per
/// element: count 1 per add, mul, compare, select or conversion, 4 per
/// division or square root, and 32 per transcendental (libm's `tanhf` costs
/// about 50 adds here; 32 stays on the safe side and still fits once
/// vectorized approximations make it cheaper). More expensive bodies split
/// into smaller chunks, so they go parallel at smaller sizes; chunks never get
/// smaller than 1024 elements.
#[inline]
pub const fn grain(cost: usize) -> usize {
    let c = if cost == 0 { 1 } else { cost };
    let g = GRAIN / c;
    if g < 1024 {
        1024
    } else {
        g
    }
}

/// Whether a loop of `chunks` chunks should run on the team's threads.
#[inline]
fn parallel(chunks: usize) -> bool {
    chunks >= 2 && team::threads() > 1
}

/// Fills `out` by calling `f(start, chunk)` on consecutive chunks of `grain`
/// elements (the last may be shorter), where `chunk` is `out[start..start +
/// chunk.len()]`. Runs on the team's threads when there are at least two chunks,
/// each chunk compiled for the best SIMD level.
///
/// `f` must write every element of its chunk: output buffers come from a
/// pool and hold stale values.
///
/// ```
/// let x: Vec<f32> = (0..10_000).map(|i| i as f32).collect();
/// let mut out = vec![0.0f32; x.len()];
/// jax::__rt::par::for_each_chunk(&mut out, 1024, |start, out| {
///     let x = &x[start..start + out.len()];
///     for i in 0..out.len() {
///         out[i] = x[i] * 2.0;
///     }
/// });
/// assert_eq!(out[9_999], 19_998.0);
/// ```
#[inline]
pub fn for_each_chunk<T, F>(out: &mut [T], grain: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    let grain = grain.max(1);
    let level = Level::current();
    if !parallel(out.len().div_ceil(grain)) {
        dispatch_at(level, || f(0, out));
        return;
    }
    team::for_chunks(out, grain, &|k, chunk| {
        dispatch_at(level, || f(k * grain, chunk))
    });
}

/// Runs one of three copies of the same loop body, each called from exactly
/// one place: `base` directly, `avx2` from an AVX2+FMA function, `avx512`
/// from an AVX-512 one. LLVM inlines a closure with a single caller however
/// large it is, so each copy is compiled for its level; one closure called
/// from three places is not inlined once it is large, and would run at the
/// baseline level everywhere. Generated code passes the same body three times.
#[inline(always)]
pub fn dispatch3<A, R>(
    level: Level,
    base: &impl Fn(A) -> R,
    avx2: &impl Fn(A) -> R,
    avx512: &impl Fn(A) -> R,
    arg: A,
) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        match level.min(Level::current()) {
            // SAFETY: `Level::current()` is at most `Level::supported()`,
            // which checked that this CPU has AVX-512F, AVX2 and FMA.
            Level::Avx512 => unsafe { x86::avx512(|| avx512(arg)) },
            // SAFETY: as above, the CPU was checked to have AVX2 and FMA.
            Level::Avx2 => unsafe { x86::avx2(|| avx2(arg)) },
            Level::Baseline => base(arg),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, avx2, avx512);
        base(arg)
    }
}

/// [`dispatch3`] with one body: what generated code of a debug build calls
/// (see [`__per_level`](crate::__per_level)).
#[inline(always)]
pub fn dispatch1<A, R>(body: &impl Fn(A) -> R, arg: A) -> R {
    body(arg)
}

/// [`for_each_chunk3`] with one body for every level (a debug build's
/// generated code, see [`__per_level`](crate::__per_level)): the same
/// chunks, so the same results.
#[inline]
pub fn for_each_chunk1<T, F>(out: &mut [T], grain: usize, f: F)
where
    T: Send,
    F: Fn((usize, &mut [T])) + Sync,
{
    for_each_chunk3(out, grain, &f, &f, &f)
}

/// [`for_each_rows3`] with one body for every level (see [`for_each_chunk1`]).
#[inline]
pub fn for_each_rows1<T, F>(out: &mut [T], row_len: usize, rows_per_chunk: usize, f: F)
where
    T: Send,
    F: Fn((usize, &mut [T])) + Sync,
{
    for_each_rows3(out, row_len, rows_per_chunk, &f, &f, &f)
}

/// [`reduce3`] with one chunk body for every level (see [`for_each_chunk1`]).
#[inline]
pub fn reduce1<T, F, C>(n: usize, chunk: usize, f: F, combine: C) -> T
where
    T: Send,
    F: Fn((usize, usize)) -> T + Sync,
    C: Fn(T, T) -> T,
{
    reduce3(n, chunk, &f, &f, &f, combine)
}

/// A loop body of generated code compiled once per SIMD level in an
/// optimized build, and once where `debug_assertions` is on (tests, `cargo
/// run`), where no copy would be vectorized: rustc type-checks and
/// borrow-checks every copy, so a debug build of many jitted functions
/// spends a third of its time less. Each form names the function it calls
/// with the body three times (`dispatch3`, `dispatch2`, `for_each_chunk3`,
/// `for_each_rows3`, `reduce3`, `multi::for_each_chunks3`); the debug build
/// calls its one-body form, which runs the same chunks in the same order, so
/// results do not change.
#[doc(hidden)]
#[macro_export]
macro_rules! __per_level {
    (dispatch3($level:expr, $body:expr, $arg:expr)) => {{
        #[cfg(not(debug_assertions))]
        let __r = $crate::__rt::par::dispatch3($level, &$body, &$body, &$body, $arg);
        #[cfg(debug_assertions)]
        let __r = $crate::__rt::par::dispatch1(&$body, $arg);
        __r
    }};
    (dispatch2($level:expr, $body:expr, $arg:expr)) => {{
        #[cfg(not(debug_assertions))]
        let __r = $crate::__rt::par::dispatch2($level, &$body, &$body, $arg);
        #[cfg(debug_assertions)]
        let __r = $crate::__rt::par::dispatch1(&$body, $arg);
        __r
    }};
    (for_each_chunk3($out:expr, $grain:expr, $body:expr)) => {{
        #[cfg(not(debug_assertions))]
        $crate::__rt::par::for_each_chunk3($out, $grain, $body, $body, $body);
        #[cfg(debug_assertions)]
        $crate::__rt::par::for_each_chunk1($out, $grain, $body);
    }};
    (for_each_rows3($out:expr, $row_len:expr, $rows:expr, $body:expr)) => {{
        #[cfg(not(debug_assertions))]
        $crate::__rt::par::for_each_rows3($out, $row_len, $rows, $body, $body, $body);
        #[cfg(debug_assertions)]
        $crate::__rt::par::for_each_rows1($out, $row_len, $rows, $body);
    }};
    (reduce3($n:expr, $chunk:expr, $body:expr, $combine:expr)) => {{
        #[cfg(not(debug_assertions))]
        let __r = $crate::__rt::par::reduce3($n, $chunk, $body, $body, $body, $combine);
        #[cfg(debug_assertions)]
        let __r = $crate::__rt::par::reduce1($n, $chunk, $body, $combine);
        __r
    }};
    (for_each_chunks3($outs:expr, $grain:expr, $body:expr)) => {{
        #[cfg(not(debug_assertions))]
        $crate::__rt::multi::for_each_chunks3($outs, $grain, $body, $body, $body);
        #[cfg(debug_assertions)]
        $crate::__rt::multi::for_each_chunks1($outs, $grain, $body);
    }};
}

/// [`dispatch3`] for loops too small for AVX-512 to pay over AVX2 but whose
/// fused multiply-adds would be library calls at the baseline level (a short
/// `tanh` loop): two copies, the AVX2+FMA one also serving AVX-512 CPUs.
#[inline(always)]
pub fn dispatch2<A, R>(level: Level, base: &impl Fn(A) -> R, avx2: &impl Fn(A) -> R, arg: A) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        match level.min(Level::current()) {
            // SAFETY: `Level::current()` is at most `Level::supported()`,
            // which checked that this CPU has AVX2 and FMA at these levels.
            Level::Avx512 | Level::Avx2 => unsafe { x86::avx2(|| avx2(arg)) },
            Level::Baseline => base(arg),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, avx2);
        base(arg)
    }
}

/// [`for_each_chunk`] with the body given once per SIMD level (see
/// `dispatch3`): what generated code calls.
#[inline]
pub fn for_each_chunk3<T, F0, F1, F2>(out: &mut [T], grain: usize, f0: F0, f1: F1, f2: F2)
where
    T: Send,
    F0: Fn((usize, &mut [T])) + Sync,
    F1: Fn((usize, &mut [T])) + Sync,
    F2: Fn((usize, &mut [T])) + Sync,
{
    let grain = grain.max(1);
    let level = Level::current();
    if !parallel(out.len().div_ceil(grain)) {
        dispatch3(level, &f0, &f1, &f2, (0, out));
        return;
    }
    team::for_chunks(out, grain, &|k, chunk| {
        dispatch3(level, &f0, &f1, &f2, (k * grain, chunk))
    });
}

/// [`for_each_rows`] with the body given once per SIMD level (see `dispatch3`).
#[inline]
pub fn for_each_rows3<T, F0, F1, F2>(
    out: &mut [T],
    row_len: usize,
    rows_per_chunk: usize,
    f0: F0,
    f1: F1,
    f2: F2,
) where
    T: Send,
    F0: Fn((usize, &mut [T])) + Sync,
    F1: Fn((usize, &mut [T])) + Sync,
    F2: Fn((usize, &mut [T])) + Sync,
{
    let rows_per_chunk = rows_per_chunk.max(1);
    let level = Level::current();
    let rows = out.len().checked_div(row_len).unwrap_or(0);
    if row_len == 0 || !parallel(rows.div_ceil(rows_per_chunk)) {
        dispatch3(level, &f0, &f1, &f2, (0, out));
        return;
    }
    team::for_chunks(out, rows_per_chunk * row_len, &|k, chunk| {
        dispatch3(level, &f0, &f1, &f2, (k * rows_per_chunk, chunk))
    });
}

/// [`reduce`] with the chunk body given once per SIMD level (see `dispatch3`).
#[inline]
pub fn reduce3<T, F0, F1, F2, C>(n: usize, chunk: usize, f0: F0, f1: F1, f2: F2, combine: C) -> T
where
    T: Send,
    F0: Fn((usize, usize)) -> T + Sync,
    F1: Fn((usize, usize)) -> T + Sync,
    F2: Fn((usize, usize)) -> T + Sync,
    C: Fn(T, T) -> T,
{
    let chunk = chunk.max(1);
    let level = Level::current();
    let chunks = n.div_ceil(chunk).max(1);
    let part = |k: usize| {
        let start = k * chunk;
        let end = (start + chunk).min(n);
        dispatch3(level, &f0, &f1, &f2, (start, end))
    };
    if chunks == 1 {
        return part(0);
    }
    let partials: Vec<T> = if chunks * chunk >= 2 * GRAIN && parallel(chunks) {
        team::map(chunks, &part)
    } else {
        (0..chunks).map(part).collect()
    };
    let mut it = partials.into_iter();
    let first = it.next().expect("at least one chunk");
    it.fold(first, combine)
}

/// Fills `out`, made of rows of `row_len` elements, by calling `f(first_row,
/// chunk)` on chunks of `rows_per_chunk` whole rows (the last may have
/// fewer). For loops whose outer index runs over rows (a softmax along the
/// last axis, a reduction of each row, where `row_len` is 1). Parallel and
/// dispatched as [`for_each_chunk`]; use [`rows_per_chunk`] to choose the
/// chunk size from the work per row.
///
/// ```
/// // Row sums of a 300 x 50 matrix.
/// let x = vec![1.0f32; 300 * 50];
/// let mut out = vec![0.0f32; 300];
/// jax::__rt::par::for_each_rows(&mut out, 1, 16, |row0, out| {
///     for r in 0..out.len() {
///         let row = &x[(row0 + r) * 50..(row0 + r + 1) * 50];
///         out[r] = row.iter().sum();
///     }
/// });
/// assert_eq!(out[299], 50.0);
/// ```
#[inline]
pub fn for_each_rows<T, F>(out: &mut [T], row_len: usize, rows_per_chunk: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    let rows_per_chunk = rows_per_chunk.max(1);
    let level = Level::current();
    let Some(rows) = out.len().checked_div(row_len) else {
        // Rows of nothing: nothing to split.
        dispatch_at(level, || f(0, out));
        return;
    };
    debug_assert_eq!(rows * row_len, out.len(), "out is not whole rows");
    if !parallel(rows.div_ceil(rows_per_chunk)) {
        dispatch_at(level, || f(0, out));
        return;
    }
    team::for_chunks(out, rows_per_chunk * row_len, &|k, chunk| {
        dispatch_at(level, || f(k * rows_per_chunk, chunk))
    });
}

/// Rows per chunk for [`for_each_rows`] when each row costs about
/// `work_per_row` cheap operations (for a row reduction of `C` elements with
/// `k` operations each, `C * k`).
#[inline]
pub const fn rows_per_chunk(work_per_row: usize) -> usize {
    let w = if work_per_row == 0 { 1 } else { work_per_row };
    let r = GRAIN / w;
    if r == 0 {
        1
    } else {
        r
    }
}

/// Reduces `0..n` to one value: `f(start, end)` computes the partial of
/// `start..end` for consecutive chunks of `chunk` elements (the last may be
/// shorter; `0..0` once if `n == 0`), and the partials are combined left to
/// right with `combine`. The chunks depend only on `n` and `chunk`, never on
/// the number of threads, so the result is bit-identical whether the chunks
/// run on one thread or several. Chunks run on the team's threads when there are
/// at least `GRAIN / chunk + 1` of them, each compiled for the best SIMD level.
///
/// Generated code passes [`REDUCE_CHUNK`] (a fixed constant) as `chunk`.
///
/// ```
/// let x: Vec<f32> = (0..100_000).map(|i| (i % 7) as f32).collect();
/// let s = jax::__rt::par::reduce(x.len(), 1 << 14, |a, b| x[a..b].iter().sum::<f32>(), |p, q| p + q);
/// assert_eq!(s as u64, (0..100_000u64).map(|i| i % 7).sum::<u64>());
/// ```
#[inline]
pub fn reduce<T, F, C>(n: usize, chunk: usize, f: F, combine: C) -> T
where
    T: Send,
    F: Fn(usize, usize) -> T + Sync,
    C: Fn(T, T) -> T,
{
    let chunk = chunk.max(1);
    let level = Level::current();
    let chunks = n.div_ceil(chunk).max(1);
    let part = |k: usize| {
        let start = k * chunk;
        let end = (start + chunk).min(n);
        dispatch_at(level, || f(start, end))
    };
    if chunks == 1 {
        return part(0);
    }
    // Worth threads once the whole loop is at least two grains of work.
    let partials: Vec<T> = if chunks * chunk >= 2 * GRAIN && parallel(chunks) {
        team::map(chunks, &part)
    } else {
        (0..chunks).map(part).collect()
    };
    let mut it = partials.into_iter();
    let first = it.next().expect("at least one chunk");
    it.fold(first, combine)
}

/// Lanes of [`fold_lanes`]: independent accumulators, enough for LLVM to
/// keep four AVX-512 (or eight AVX2) registers of `f32` partial sums in flight:
/// with 32 lanes, AVX-512 sums of squares ran 1.45x slower (3.54 vs 2.44 ms
/// over 16M f32, `cargo bench --bench workloads -- sumsq`), latency-bound.
pub const LANES: usize = 64;

/// Folds `value(0), ..., value(len - 1)` into [`LANES`] independent
/// accumulators (element `i` goes to lane `i % LANES`), then combines the
/// lanes pairwise (lane `k` with lane `k + LANES/2`, halving until one is
/// left). A fixed reassociation of the sequential fold, so it vectorizes
/// (floats do not reassociate by themselves) while its result depends only on
/// `len`, never on the SIMD level or thread count.
///
/// Meant for the body of a [`reduce`] chunk: `value` reads the chunk's
/// inputs at `i` (relative to the chunk start).
///
/// ```
/// use jax::__rt::par::fold_lanes;
/// let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
/// assert_eq!(fold_lanes(x.len(), 0.0, |i| x[i], |a, b| a + b), 499_500.0);
/// ```
#[inline(always)]
pub fn fold_lanes<T: Copy>(
    len: usize,
    identity: T,
    value: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
) -> T {
    let mut acc = [identity; LANES];
    let mut base = 0;
    // `base + LANES <= len` (not `base < len / LANES * LANES`) lets LLVM see
    // that every `value(base + l)` is in bounds, so the loop has no checks.
    while base + LANES <= len {
        // Rebuilt by value, not updated in place: LLVM then keeps the lanes
        // in registers. Updated in place they can stay on the stack, and the
        // store-to-load chain halved a sum of squares' speed.
        acc = std::array::from_fn(|l| combine(acc[l], value(base + l)));
        base += LANES;
    }
    for (l, i) in (base..len).enumerate() {
        acc[l] = combine(acc[l], value(i));
    }
    let mut width = LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] = combine(acc[l], acc[l + width]);
        }
        width /= 2;
    }
    acc[0]
}

/// Whether the CPU's vendor is AMD, asked once (`cpuid` leaf 0; in a
/// virtual machine `cpuid` exits to the host). The choices that hang on it
/// were measured on both vendors: software prefetch hints for streams
/// ([`streams_want_prefetch`], [`prefetch_row`]) and how the matrix product
/// packs B (`gemm::packs_b_ahead`).
pub fn cpu_is_amd() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    /// 0 not asked yet, 1 no, 2 yes.
    static AMD: AtomicU8 = AtomicU8::new(0);
    match AMD.load(Ordering::Relaxed) {
        0 => {
            let amd = vendor_is_amd();
            AMD.store(1 + u8::from(amd), Ordering::Relaxed);
            amd
        }
        v => v == 2,
    }
}

fn vendor_is_amd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // Leaf 0 exists on every x86_64 CPU; the vendor is EBX, EDX, ECX.
        #[allow(unused_unsafe)]
        // SAFETY: `cpuid` is always available on x86_64.
        let r = unsafe { std::arch::x86_64::__cpuid(0) };
        let mut vendor = [0u8; 12];
        vendor[..4].copy_from_slice(&r.ebx.to_le_bytes());
        vendor[4..8].copy_from_slice(&r.edx.to_le_bytes());
        vendor[8..].copy_from_slice(&r.ecx.to_le_bytes());
        &vendor == b"AuthenticAMD"
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The least work per element (in [`grain`]'s units: a transcendental)
/// for which a streaming loop asks for its reads ahead on AMD.
pub const AMD_PREFETCH_MIN_WORK: usize = 32;

/// Whether a loop streaming a large array, doing about `work` per element
/// ([`grain`]'s units), should ask for its reads ahead ([`prefetch_ahead`]).
/// On the Intel Xeon every such loop gained (`grad(sin(x) * x)` 2.0×,
/// `sum(x * x)` 1.17×). On AMD (Zen 4) only loops with a transcendental
/// per element did (`tanh` chain 1.07×, `grad(sin(x) * x)` 1.04×): the
/// hardware prefetcher keeps up with lighter ones, which ran faster
/// without the hints (`sum(x * x)` 1.31×, `x * a + b` 1.25×, triad 1.09×).
/// The emitted loops ask once per chunk.
#[inline]
pub fn streams_want_prefetch(work: usize) -> bool {
    work >= AMD_PREFETCH_MIN_WORK || !cpu_is_amd()
}

/// How far ahead of a flat loop's position [`prefetch_ahead`] reads. From
/// 1 to 16 KiB ahead the loops measured alike (`grad(sin(x) * x)` over 16M
/// f32 on an Intel Xeon: 25 ms without, 10 ms with); 2 KiB leaves the
/// prefetched lines little time to be evicted again.
pub const PREFETCH_BYTES: usize = 2048;

/// Asks the cache for `s[at..at + len]` moved [`PREFETCH_BYTES`] ahead: a
/// hint the flat loops give before each block, for machines whose hardware
/// prefetcher falls behind a loop that computes much per element. Addresses
/// past the slice are fine: a prefetch never faults and changes no value.
#[inline(always)]
pub fn prefetch_ahead<T>(s: &[T], at: usize, len: usize) {
    let size = std::mem::size_of::<T>();
    prefetch_bytes(s, at * size + PREFETCH_BYTES, len * size);
}

/// The most of a row program's next row [`prefetch_row`] asks for: rows of
/// a page or less start on a page the hardware prefetcher has not seen
/// (it stays within a page); in a longer row it takes over after the start.
pub const ROW_PREFETCH_BYTES: usize = 4096;

/// Asks the cache for the start of `s[at..at + len]` (at most
/// [`ROW_PREFETCH_BYTES`]): a row program's next row, requested before the
/// current one is computed. Past the slice (after the last row) is fine: a
/// prefetch never faults and changes no value. Not on AMD: on Zen 4 the
/// row programs ran faster without (softmax 1.13×, `sum(x, -1)` 1.09×),
/// while on the Intel Xeon they gained 1.04–1.14×.
#[inline(always)]
pub fn prefetch_row<T>(s: &[T], at: usize, len: usize) {
    if cpu_is_amd() {
        return;
    }
    let size = std::mem::size_of::<T>();
    prefetch_bytes(s, at * size, (len * size).min(ROW_PREFETCH_BYTES));
}

/// Prefetch hints for `bytes` bytes from `offset` bytes into `s`.
#[inline(always)]
fn prefetch_bytes<T>(s: &[T], offset: usize, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let from = (s.as_ptr() as *const i8).wrapping_add(offset);
        let mut line = 0;
        while line < bytes {
            // SAFETY: `_mm_prefetch` is a hint: it reads nothing into the
            // program and never faults, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(from.wrapping_add(line)) };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, offset, bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grain_shrinks_with_cost_but_not_below_the_floor() {
        assert_eq!(grain(1), GRAIN);
        assert_eq!(grain(0), GRAIN);
        assert!(grain(35) < grain(2));
        assert_eq!(grain(usize::MAX), 1024);
        assert_eq!(rows_per_chunk(usize::MAX), 1);
    }

    #[test]
    fn streams_skip_prefetch_hints_only_on_amd_and_only_when_light() {
        // The cached answer is the CPU's own, asked twice alike.
        assert_eq!(cpu_is_amd(), vendor_is_amd());
        assert_eq!(cpu_is_amd(), cpu_is_amd());
        assert!(streams_want_prefetch(AMD_PREFETCH_MIN_WORK));
        assert_eq!(streams_want_prefetch(1), !cpu_is_amd());
    }

    #[test]
    fn levels_are_ordered_and_current_is_supported() {
        assert!(Level::Baseline < Level::Avx2 && Level::Avx2 < Level::Avx512);
        assert!(Level::current() <= Level::supported());
    }

    #[test]
    fn fold_lanes_combines_lanes_in_the_documented_order() {
        // An order-sensitive combine makes any other order visible.
        let combine = |a: u64, b: u64| a.wrapping_mul(1_000_003).wrapping_add(b);
        let value = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9) ^ 7;
        for len in [0, 1, 5, LANES, LANES + 3, 10 * LANES + 17] {
            let mut lanes: Vec<u64> = (0..LANES)
                .map(|l| (l..len).step_by(LANES).fold(1, |a, i| combine(a, value(i))))
                .collect();
            while lanes.len() > 1 {
                let (lo, hi) = lanes.split_at(lanes.len() / 2);
                lanes = lo.iter().zip(hi).map(|(&a, &b)| combine(a, b)).collect();
            }
            assert_eq!(fold_lanes(len, 1, value, combine), lanes[0], "len {len}");
        }
    }
}
