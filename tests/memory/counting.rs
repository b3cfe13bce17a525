//! The binary's global allocator: it forwards every call to `System` and
//! counts what the tests measure: every allocation, allocations by size
//! class (so "at least N bytes" for any power of two N), and the live and
//! peak bytes of large allocations. Tests read globals, so they take
//! [`serial`] and run one at a time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Allocations at least this large count in the live and peak bytes.
pub const TRACKED_BYTES: usize = 16 << 10;

/// Every allocation, of any size.
static ALL: AtomicUsize = AtomicUsize::new(0);
/// Allocations (and reallocations) by the bit length of their size: class
/// `c` holds sizes in `[2^(c-1), 2^c)`.
static BY_CLASS: [AtomicUsize; 65] = [const { AtomicUsize::new(0) }; 65];
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

fn allocated(bytes: usize) {
    ALL.fetch_add(1, Ordering::Relaxed);
    BY_CLASS[(usize::BITS - bytes.leading_zeros()) as usize].fetch_add(1, Ordering::Relaxed);
    if bytes >= TRACKED_BYTES {
        let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn freed(bytes: usize) {
    if bytes >= TRACKED_BYTES {
        LIVE.fetch_sub(bytes, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the same arguments, which
// upholds `GlobalAlloc`'s contract; the counters have no effect on memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (see the impl).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            allocated(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (see the impl).
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            allocated(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        freed(layout.size());
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged (see the impl).
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            freed(layout.size());
            allocated(new_size);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static SERIAL: Mutex<()> = Mutex::new(());

/// Held by each test while it measures: the counters are process-wide.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Allocations of at least `bytes` (a power of two) made while `f` runs.
pub fn allocations_of_at_least(bytes: usize, f: impl FnOnce()) -> usize {
    assert!(bytes.is_power_of_two(), "{bytes} is not a power of two");
    let from = (usize::BITS - bytes.leading_zeros()) as usize;
    let count = || -> usize {
        BY_CLASS[from..]
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .sum()
    };
    let before = count();
    f();
    count() - before
}

/// Allocations of any size made while `f` runs.
pub fn allocations(f: impl FnOnce()) -> usize {
    let before = ALL.load(Ordering::Relaxed);
    f();
    ALL.load(Ordering::Relaxed) - before
}

/// The peak of live bytes in allocations of at least [`TRACKED_BYTES`]
/// while `f` runs, above what was live before.
pub fn peak_bytes(f: impl FnOnce()) -> usize {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - base
}
