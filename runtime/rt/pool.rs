//! A pool of large output buffers.
//!
//! A fresh 64 MiB buffer costs its page faults (about 16 ms on the machine
//! this was measured on) every time: the allocator maps new zero pages for
//! it and unmaps them when it is freed. Jitted functions called in a loop
//! make one such buffer per call, so [`Array`](crate::Array)'s storage gives
//! its `Vec` back here when its last reference drops, and
//! [`buffer`](super::buffer) takes from here first.
//!
//! Buffers are kept per element type (a `TypeId`, so each free list holds real
//! `Vec<T>`s: no casts, no `unsafe`) and per size class (the power of two
//! below the capacity in bytes); a buffer serves any request of its class
//! that fits its capacity. A reused buffer holds stale but initialized
//! values: callers overwrite it completely. Each class keeps at most
//! [`PER_CLASS`] buffers and the pool at most [`limit`] bytes
//! ([`DEFAULT_LIMIT`], or `JAX_BUFFER_POOL_BYTES`, or
//! [`config::set_buffer_pool_limit`](crate::config::set_buffer_pool_limit)),
//! making room for a returned buffer by freeing those it has held longest;
//! buffers smaller than [`MIN_BYTES`] are left to the allocator, which is
//! fast for them. [`crate::clear_caches`] frees the pooled buffers.

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::element::Element;

/// Buffers smaller than this many bytes are not pooled.
pub const MIN_BYTES: usize = 64 << 10;

/// At most this many free buffers per element type and size class: a
/// training step gives back every activation and gradient of one size at
/// their last use, and takes them again the next step ([`limit`] bounds
/// the bytes).
pub const PER_CLASS: usize = 32;

/// The default [`limit`]: 256 MiB, four 64 MiB outputs.
pub const DEFAULT_LIMIT: usize = 256 << 20;

/// [`limit`], or `UNSET` before the environment is read.
static LIMIT: AtomicUsize = AtomicUsize::new(UNSET);
const UNSET: usize = usize::MAX;

/// At most this many bytes of free buffers in the pool, all types together:
/// `JAX_BUFFER_POOL_BYTES` (a number of bytes; 0 turns pooling off) if set
/// when first read, else [`DEFAULT_LIMIT`], until [`set_limit`].
pub fn limit() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        UNSET => {
            let from_env = match std::env::var("JAX_BUFFER_POOL_BYTES") {
                Ok(v) => v.trim().parse::<usize>().unwrap_or_else(|_| {
                    eprintln!(
                        "JAX_BUFFER_POOL_BYTES={v:?} is not a number of bytes; the buffer pool keeps at most {DEFAULT_LIMIT} bytes"
                    );
                    DEFAULT_LIMIT
                }),
                Err(_) => DEFAULT_LIMIT,
            };
            // A `set_limit` that raced ahead wins.
            let _ = LIMIT.compare_exchange(
                UNSET,
                from_env.min(UNSET - 1),
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            LIMIT.load(Ordering::Relaxed)
        }
        n => n,
    }
}

/// Sets [`limit`]; if the pool holds more, its buffers are freed.
pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes.min(UNSET - 1), Ordering::Relaxed);
    if pooled_bytes() > bytes {
        clear();
    }
}

/// Size classes: `2^k` bytes for `k < CLASSES`.
const CLASSES: usize = usize::BITS as usize;

/// The free lists of one element type, one per size class; each buffer
/// with the stamp of its return (see [`STAMP`]).
struct Typed<T> {
    classes: Vec<Vec<(u64, Vec<T>)>>,
}

/// What the pool needs of a `Typed<T>` without knowing `T`.
trait Entry: Send {
    fn as_any(&mut self) -> &mut dyn Any;
    fn bytes(&self) -> usize;
    /// The stamp of the longest-held buffer, if any.
    fn oldest(&self) -> Option<u64>;
    /// Removes the longest-held buffer: it, to be dropped outside the
    /// lock, and its bytes.
    fn evict_oldest(&mut self) -> Option<(Box<dyn Any + Send>, usize)>;
}

impl<T: Element> Entry for Typed<T> {
    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
    fn bytes(&self) -> usize {
        let caps: usize = self
            .classes
            .iter()
            .flatten()
            .map(|(_, v)| v.capacity())
            .sum();
        caps * std::mem::size_of::<T>()
    }
    fn oldest(&self) -> Option<u64> {
        self.classes.iter().flatten().map(|(s, _)| *s).min()
    }
    fn evict_oldest(&mut self) -> Option<(Box<dyn Any + Send>, usize)> {
        let stamp = self.oldest()?;
        let list = self
            .classes
            .iter_mut()
            .find(|l| l.iter().any(|(s, _)| *s == stamp))?;
        let k = list.iter().position(|(s, _)| *s == stamp)?;
        let (_, v) = list.swap_remove(k);
        let bytes = v.capacity() * std::mem::size_of::<T>();
        Some((Box::new(v), bytes))
    }
}

type Pool = Vec<(TypeId, Box<dyn Entry>)>;

/// One entry per element type that has been pooled: its `TypeId` and its
/// boxed `Typed<T>`. A handful of types at most, so a linear search.
static POOL: Mutex<Pool> = Mutex::new(Vec::new());

/// Bytes of free buffers in the pool (capacities).
static POOLED: AtomicUsize = AtomicUsize::new(0);

/// Counts returns: a buffer's stamp orders it among the pooled ones.
static STAMP: AtomicU64 = AtomicU64::new(0);

fn class_of(bytes: usize) -> usize {
    (usize::BITS - 1 - bytes.leading_zeros()) as usize
}

fn lock() -> std::sync::MutexGuard<'static, Pool> {
    // A panic while the lock was held leaves only free lists behind, which
    // are valid in any state: ignore poisoning.
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The free lists of `T` in the locked pool.
fn typed<T: Element>(pool: &mut Pool) -> &mut Typed<T> {
    let id = TypeId::of::<T>();
    let k = match pool.iter().position(|(t, _)| *t == id) {
        Some(k) => k,
        None => {
            let typed: Typed<T> = Typed {
                classes: (0..CLASSES).map(|_| Vec::new()).collect(),
            };
            pool.push((id, Box::new(typed)));
            pool.len() - 1
        }
    };
    pool[k]
        .1
        .as_any()
        .downcast_mut::<Typed<T>>()
        .expect("the entry of TypeId T holds a Typed<T>")
}

/// A pooled buffer of exactly `n` elements with stale contents, or `None`
/// if the pool has none that fits (or `n` is too small to be pooled).
pub fn take<T: Element>(n: usize) -> Option<Vec<T>> {
    let bytes = n.checked_mul(std::mem::size_of::<T>())?;
    if bytes < MIN_BYTES {
        return None;
    }
    let class = class_of(bytes);
    let (_, mut v) = {
        let mut pool = lock();
        let list = &mut typed::<T>(&mut pool).classes[class];
        let k = list.iter().rposition(|(_, v)| v.capacity() >= n)?;
        list.swap_remove(k)
    };
    POOLED.fetch_sub(v.capacity() * std::mem::size_of::<T>(), Ordering::Relaxed);
    // Same class, so at most twice the length: keep the old (initialized)
    // values, and fill only elements the old length did not have.
    if v.len() >= n {
        v.truncate(n);
    } else {
        v.resize(n, T::ZERO);
    }
    Some(v)
}

/// Buffers of at least this many bytes are backed by transparent huge
/// pages where the kernel offers them on request.
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// A new buffer of `n` zeros from the allocator. One of at least
/// [`HUGE_PAGE_MIN_BYTES`] asks Linux for 2 MiB pages before its first
/// write: a fresh 1 GB output otherwise costs 262,144 page faults, each
/// charged and zeroed apart (70 % of the per-example gradients' time).
pub fn fresh<T: Element>(n: usize) -> Vec<T> {
    let v = vec![T::ZERO; n];
    let bytes = n * std::mem::size_of::<T>();
    if bytes >= HUGE_PAGE_MIN_BYTES {
        advise_huge_pages(v.as_ptr() as usize, bytes);
    }
    v
}

/// `madvise(MADV_HUGEPAGE)` over the 2 MiB-aligned part of a range. Only
/// advice: the range stays valid whatever the kernel makes of it.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    const HUGE: usize = 2 << 20;
    let first = start.div_ceil(HUGE) * HUGE;
    let end = (start + bytes) / HUGE * HUGE;
    if end > first {
        // SAFETY: the range lies inside a live allocation of ours; the
        // advice changes how its pages are backed, never their contents.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _bytes: usize) {}

/// Gives a buffer back to the pool, or frees it if it is small or its
/// class's list is full. When the pool would exceed [`limit`], the buffers
/// it has held longest are freed first: the one just returned is the one a
/// loop of calls takes next, and stale buffers of another size or type
/// must not keep it out.
pub fn put<T: Element>(v: Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < MIN_BYTES || bytes > limit() {
        return;
    }
    let class = class_of(bytes);
    let stamp = STAMP.fetch_add(1, Ordering::Relaxed);
    let mut evicted: Vec<Box<dyn Any + Send>> = Vec::new();
    let rejected = {
        let mut pool = lock();
        if typed::<T>(&mut pool).classes[class].len() >= PER_CLASS {
            Some(v)
        } else {
            while POOLED.load(Ordering::Relaxed) + bytes > limit() {
                let oldest = pool
                    .iter()
                    .enumerate()
                    .filter_map(|(k, (_, e))| e.oldest().map(|s| (s, k)))
                    .min();
                let Some((b, freed)) = oldest.and_then(|(_, k)| pool[k].1.evict_oldest()) else {
                    break;
                };
                POOLED.fetch_sub(freed, Ordering::Relaxed);
                evicted.push(b);
            }
            if POOLED.load(Ordering::Relaxed) + bytes > limit() {
                Some(v)
            } else {
                POOLED.fetch_add(bytes, Ordering::Relaxed);
                typed::<T>(&mut pool).classes[class].push((stamp, v));
                None
            }
        }
    };
    // Freed outside the lock: unmapping a large buffer takes a while.
    drop(rejected);
    drop(evicted);
}

thread_local! {
    /// Small buffers given back by loops (a replaced carry, a stored row):
    /// the next step's outputs take them instead of asking the allocator
    /// for zeroed memory. Floats, and the indices of positions in a loop.
    static RECYCLED_F32: std::cell::RefCell<Vec<Vec<f32>>> =
        const { std::cell::RefCell::new(Vec::new()) };
    static RECYCLED_F64: std::cell::RefCell<Vec<Vec<f64>>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// A loop's index buffers: a scatter's or gather's indices at a
    /// traced position (`x.at[t].set(row)`), made every step.
    static RECYCLED_I32: std::cell::RefCell<Vec<Vec<i32>>> =
        const { std::cell::RefCell::new(Vec::new()) };
    static RECYCLED_I64: std::cell::RefCell<Vec<Vec<i64>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// At most this many recycled buffers per element type and thread.
const RECYCLED_PER_TYPE: usize = 8;

/// Runs `f` on this thread's recycled buffers of `T`, if `T` has them.
#[inline]
fn with_recycled<T: Element, R>(f: impl FnOnce(&mut Vec<Vec<T>>) -> R) -> Option<R> {
    // A `Vec`, not a slice: `f` pushes onto the list.
    #[allow(clippy::ptr_arg)]
    fn typed<U: 'static, T: 'static, R>(
        list: &mut Vec<Vec<U>>,
        f: impl FnOnce(&mut Vec<Vec<T>>) -> R,
    ) -> Option<R> {
        (list as &mut dyn Any).downcast_mut::<Vec<Vec<T>>>().map(f)
    }
    match T::DTYPE {
        crate::element::DType::F32 => RECYCLED_F32.with(|r| typed(&mut r.borrow_mut(), f)),
        crate::element::DType::F64 => RECYCLED_F64.with(|r| typed(&mut r.borrow_mut(), f)),
        crate::element::DType::I32 => RECYCLED_I32.with(|r| typed(&mut r.borrow_mut(), f)),
        crate::element::DType::I64 => RECYCLED_I64.with(|r| typed(&mut r.borrow_mut(), f)),
        _ => None,
    }
}

/// Takes back a buffer a loop no longer needs: large ones go to the pool,
/// small ones to this thread's recycled buffers. A full list makes room by
/// dropping its first buffer of another length: buffers an earlier loop
/// left must not keep out the ones this loop's steps take (else every step
/// allocates: three times a step in the RNN gradient after the
/// linear-algebra benchmarks had filled the list with 512-float rows). A
/// list full of this length already lets the new buffer go.
pub fn recycle<T: Element>(v: Vec<T>) {
    if v.capacity() * std::mem::size_of::<T>() >= MIN_BYTES {
        return put(v);
    }
    with_recycled(|list| {
        if list.len() >= RECYCLED_PER_TYPE {
            match list.iter().position(|b| b.len() != v.len()) {
                Some(stale) => drop(list.remove(stale)),
                None => return,
            }
        }
        list.push(v);
    });
}

/// Frees this thread's recycled small buffers.
pub fn clear_recycled() {
    RECYCLED_F32.with(|r| r.borrow_mut().clear());
    RECYCLED_F64.with(|r| r.borrow_mut().clear());
    RECYCLED_I32.with(|r| r.borrow_mut().clear());
    RECYCLED_I64.with(|r| r.borrow_mut().clear());
}

/// A recycled small buffer of exactly `n` elements (stale contents).
pub fn take_recycled<T: Element>(n: usize) -> Option<Vec<T>> {
    with_recycled(|list| {
        let k = list.iter().rposition(|v| v.len() == n)?;
        Some(list.swap_remove(k))
    })
    .flatten()
}

/// Bytes of free buffers the pool holds.
pub fn pooled_bytes() -> usize {
    POOLED.load(Ordering::Relaxed)
}

/// Frees every pooled buffer, for example after a phase that used very large
/// arrays (the public form is [`crate::clear_caches`]).
pub fn clear() {
    let taken = std::mem::take(&mut *lock());
    // Subtract only what was taken: a concurrent `put` may already count a
    // buffer it has not inserted yet.
    let freed: usize = taken.iter().map(|(_, t)| t.bytes()).sum();
    POOLED.fetch_sub(freed, Ordering::Relaxed);
    // Freed outside the lock.
    drop(taken);
}

#[cfg(test)]
mod tests {
    use super::*;

    // These tests use element types (u16, i16, i64) no other test in this binary
    // pools, so tests running in parallel do not take each other's buffers.

    #[test]
    fn a_full_recycled_list_drops_a_buffer_of_another_length_for_the_new_one() {
        // Thread-local: no other test shares this thread's list.
        clear_recycled();
        for _ in 0..RECYCLED_PER_TYPE {
            recycle(vec![0f32; 3]);
        }
        let mut row = vec![0f32; 64];
        row[0] = 7.0;
        recycle(row);
        let taken = take_recycled::<f32>(64).expect("the new buffer stays");
        assert_eq!(taken[0], 7.0);
        // One stale buffer made room; the other seven are still there.
        let stale = std::iter::from_fn(|| take_recycled::<f32>(3)).count();
        assert_eq!(stale, RECYCLED_PER_TYPE - 1);
        // Full of one length, the list keeps what it has.
        for i in 0..=RECYCLED_PER_TYPE {
            recycle(vec![i as f32; 3]);
        }
        let kept: Vec<f32> = std::iter::from_fn(|| take_recycled::<f32>(3))
            .map(|b| b[0])
            .collect();
        assert_eq!(kept.len(), RECYCLED_PER_TYPE);
        assert!(!kept.contains(&(RECYCLED_PER_TYPE as f32)));
        clear_recycled();
    }

    #[test]
    fn a_returned_buffer_is_reused_with_the_requested_length() {
        // 1.5 * MIN_BYTES bytes of u16, with room for 100 more elements.
        let n = 3 * MIN_BYTES / 4;
        let mut v = Vec::with_capacity(n + 100);
        v.resize(n, 7u16);
        v[0] = 9;
        let ptr = v.as_ptr();
        put(v);
        let w = take::<u16>(n - 10).expect("pooled");
        assert_eq!(w.as_ptr(), ptr);
        assert_eq!(w.len(), n - 10);
        assert_eq!(w[0], 9, "stale contents are kept, not zeroed");
        // Longer than the old length but within the capacity: the new tail
        // is initialized (to zero), the old part kept.
        put(w);
        let w = take::<u16>(n + 5).expect("fits the capacity");
        assert_eq!(w.as_ptr(), ptr);
        assert_eq!(
            (w.len(), w[0], w[n - 11], w[n - 10], w[n + 4]),
            (n + 5, 9, 7, 0, 0)
        );
        // Beyond the capacity: not served.
        put(w);
        assert!(take::<u16>(n + 101).is_none());
    }

    #[test]
    fn small_buffers_and_other_types_are_not_pooled() {
        put(vec![1i16; 16]);
        assert!(take::<i16>(16).is_none());
        put(vec![1i16; MIN_BYTES]);
        // Same bytes, another type: never handed out as the wrong type.
        assert!(take::<i8>(2 * MIN_BYTES).is_none());
        let w = take::<i16>(MIN_BYTES).expect("same type and size");
        assert_eq!(w.len(), MIN_BYTES);
    }

    #[test]
    fn each_class_keeps_a_bounded_number_of_buffers() {
        let n = 3 * MIN_BYTES / 8;
        let vs: Vec<Vec<i64>> = (0..PER_CLASS + 3).map(|_| vec![0i64; n]).collect();
        for v in vs {
            put(v);
        }
        let mut got = 0;
        while take::<i64>(n).is_some() {
            got += 1;
        }
        assert_eq!(got, PER_CLASS);
    }

    #[test]
    fn a_large_fresh_buffer_is_zeroed_and_asks_for_huge_pages() {
        let n = HUGE_PAGE_MIN_BYTES; // of u16: twice the threshold
        let v = fresh::<u16>(n);
        assert_eq!(v.len(), n);
        assert!(v.iter().all(|&x| x == 0));
        // Where the kernel has transparent huge pages, the mapping holding
        // the buffer's aligned middle carries the advice (`hg`).
        if !cfg!(target_os = "linux")
            || !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists()
        {
            return;
        }
        let middle = (v.as_ptr() as usize).div_ceil(2 << 20) * (2 << 20);
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut inside = false;
        let mut flags = None;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&middle);
                continue;
            }
            if inside && let Some(f) = line.strip_prefix("VmFlags:") {
                flags = Some(f.to_string());
            }
        }
        let flags = flags.expect("the buffer's mapping is listed");
        assert!(
            flags.split_whitespace().any(|f| f == "hg"),
            "VmFlags: {flags}"
        );
    }

    #[test]
    fn classes_are_powers_of_two() {
        assert_eq!(class_of(1), 0);
        assert_eq!(class_of(MIN_BYTES), 16);
        assert_eq!(class_of(2 * MIN_BYTES - 1), 16);
    }
}
