//! The team of threads that runs the parallel loops of generated code and
//! of the matmul kernel.
//!
//! A parallel region is `tasks` numbered tasks. The calling thread runs
//! tasks itself while the team's workers (one fewer than
//! `rayon::current_num_threads()`, so `RAYON_NUM_THREADS` sets both) claim
//! the others from a shared counter. Between regions a worker spins for
//! [`SPIN`] before it sleeps, so the regions of one call, and calls made
//! in a loop, find it awake. Waking a sleeping thread costs tens of
//! microseconds on a virtual machine (a halted virtual CPU takes an
//! interrupt through the hypervisor): a rayon region entered from outside
//! its pool pays two such wake-ups, 29 µs back to back and over 100 µs
//! after an idle millisecond on a 2-core EPYC, more than a whole small
//! matmul takes on one thread.
//!
//! One region runs at a time. A region opened while another runs (from a
//! task, or from another user thread), or from a rayon task, runs its tasks
//! on its own thread, in order. Which thread runs a task never changes what it computes: callers
//! split their work into tasks that depend on the sizes alone.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a worker waits for the next region, spinning, before it sleeps.
/// The regions of one jitted call follow each other within microseconds; a
/// training loop's calls within a millisecond or two.
pub const SPIN: Duration = Duration::from_millis(2);

/// The task function of the open region, its lifetime erased: it is read
/// only between the region's opening and closing (see [`Team::run`]).
type TaskFn = *const (dyn Fn(usize) + Sync);

struct Team {
    workers: usize,
    /// Odd while a region is open; each opening and closing adds one.
    generation: AtomicUsize,
    /// Set by the thread that owns the team for one region.
    busy: AtomicBool,
    /// The open region's task function and task count.
    job: UnsafeCell<(TaskFn, usize)>,
    /// The next task to claim, and the number finished.
    next: AtomicUsize,
    done: AtomicUsize,
    /// Workers between reading `generation` and leaving the region: the
    /// caller waits for none before the task function goes out of scope.
    inside: AtomicUsize,
    /// A task's panic, resumed on the calling thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Sleeping workers and what wakes them.
    sleepers: AtomicUsize,
    bed: Mutex<()>,
    alarm: Condvar,
}

// SAFETY: `job` is written only by the thread holding `busy` while no region
// is open and no worker is `inside`, and read only by workers inside an open
// region (the protocol in `run` and `work`); the task function is `Sync`.
unsafe impl Sync for Team {}

thread_local! {
    static ON_WORKER: Cell<bool> = const { Cell::new(false) };
    /// Set by [`Threads::install`] with one thread.
    static ALONE: Cell<bool> = const { Cell::new(false) };
}

/// A thread count for the regions a closure opens, as rayon's
/// `ThreadPool::install` sets one for its pool: tests and benchmarks compare
/// one thread with the team this way. One thread runs every region on the
/// calling thread; more uses the team as it is (its size is fixed when it
/// starts, from `RAYON_NUM_THREADS` or the CPU count).
///
/// ```
/// use jax::__rt::team::{self, Threads};
/// let on = |k: usize| Threads::new(k).install(|| {
///     let id = std::sync::Mutex::new(std::collections::HashSet::new());
///     team::run(64, &|_| {
///         std::thread::sleep(std::time::Duration::from_micros(200));
///         id.lock().unwrap().insert(std::thread::current().id());
///     });
///     id.into_inner().unwrap().len()
/// });
/// assert_eq!(on(1), 1);
/// assert_eq!(on(2), team::threads().min(2));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Threads(usize);

impl Threads {
    /// `threads` (at least 1).
    pub fn new(threads: usize) -> Threads {
        Threads(threads.max(1))
    }

    /// Runs `f` on this thread with this thread count.
    pub fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                ALONE.with(|a| a.set(self.0));
            }
        }
        let _restore = Restore(ALONE.with(|a| a.replace(self.0 == 1)));
        f()
    }
}

fn team() -> &'static Team {
    static TEAM: OnceLock<&'static Team> = OnceLock::new();
    TEAM.get_or_init(|| {
        let workers = rayon::current_num_threads().saturating_sub(1);
        let t: &'static Team = Box::leak(Box::new(Team {
            workers,
            generation: AtomicUsize::new(0),
            busy: AtomicBool::new(false),
            job: UnsafeCell::new((std::ptr::null::<fn(usize)>() as TaskFn, 0)),
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            inside: AtomicUsize::new(0),
            panic: Mutex::new(None),
            sleepers: AtomicUsize::new(0),
            bed: Mutex::new(()),
            alarm: Condvar::new(),
        }));
        for i in 0..workers {
            let spawned = std::thread::Builder::new()
                .name(format!("jax-team-{i}"))
                .spawn(move || t.work());
            if spawned.is_err() {
                // Fewer workers only means fewer helpers: tasks still all run.
                break;
            }
        }
        t
    })
}

/// The number of threads a region can use (the caller and the workers).
pub fn threads() -> usize {
    team().workers + 1
}

/// Runs `f(0)`, ..., `f(tasks - 1)`, each exactly once, on the calling
/// thread and the team's workers, and returns when all have finished. A
/// panicking task's panic is resumed here once the others are done.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let sum = AtomicUsize::new(0);
/// jax::__rt::team::run(100, &|k| {
///     sum.fetch_add(k, Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 4950);
/// ```
pub fn run(tasks: usize, f: &(dyn Fn(usize) + Sync)) {
    if tasks == 0 {
        return;
    }
    let t = team();
    let inline = tasks == 1
        || t.workers == 0
        || ON_WORKER.with(Cell::get)
        || ALONE.with(Cell::get)
        // A rayon task (a device's thread, a batch of factorizations) is
        // already one of several running at once.
        || rayon::current_thread_index().is_some()
        || t.busy
            .compare_exchange(false, true, SeqCst, SeqCst)
            .is_err();
    if inline {
        (0..tasks).for_each(f);
        return;
    }
    t.run(tasks, f);
}

impl Team {
    /// `run` on the team, with `busy` held.
    fn run(&self, tasks: usize, f: &(dyn Fn(usize) + Sync)) {
        // SAFETY: no region is open and no worker is inside (the previous
        // `run` waited for that), so nothing reads `job` now. The erased
        // lifetime is sound because this function does not return before
        // every worker has left the region it opens.
        unsafe {
            let erased: TaskFn = std::mem::transmute::<&(dyn Fn(usize) + Sync), TaskFn>(f);
            *self.job.get() = (erased, tasks);
        }
        self.next.store(0, SeqCst);
        self.done.store(0, SeqCst);
        self.generation.fetch_add(1, SeqCst);
        if self.sleepers.load(SeqCst) > 0 {
            let _bed = self.bed.lock().unwrap_or_else(|e| e.into_inner());
            self.alarm.notify_all();
        }
        self.claim(f, tasks);
        let mut spins = 0u32;
        while self.done.load(SeqCst) < tasks {
            pause(&mut spins);
        }
        // Close the region, then wait out the workers that entered it.
        self.generation.fetch_add(1, SeqCst);
        while self.inside.load(SeqCst) > 0 {
            pause(&mut spins);
        }
        let caught = self.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.busy.store(false, SeqCst);
        if let Some(p) = caught {
            panic::resume_unwind(p);
        }
    }

    /// Claims and runs tasks until none is left.
    fn claim(&self, f: &(dyn Fn(usize) + Sync), tasks: usize) {
        loop {
            let k = self.next.fetch_add(1, SeqCst);
            if k >= tasks {
                return;
            }
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| f(k))) {
                let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(p);
            }
            self.done.fetch_add(1, SeqCst);
        }
    }

    /// A worker: joins each region it sees open, spins [`SPIN`] after it,
    /// then sleeps until the next.
    fn work(&self) {
        ON_WORKER.with(|w| w.set(true));
        let mut seen = 0usize;
        let mut idle_since = Instant::now();
        let mut spins = 0u32;
        loop {
            let g = self.generation.load(SeqCst);
            if g % 2 == 1 && g != seen {
                seen = g;
                self.inside.fetch_add(1, SeqCst);
                // Still the same open region: the caller waits for us to
                // leave before `job` changes or its function goes away.
                if self.generation.load(SeqCst) == g {
                    // SAFETY: see `Sync for Team` and `Team::run`.
                    let (f, tasks) = unsafe { *self.job.get() };
                    // SAFETY: the region is open, so its function is alive.
                    self.claim(unsafe { &*f }, tasks);
                }
                self.inside.fetch_sub(1, SeqCst);
                idle_since = Instant::now();
                spins = 0;
                continue;
            }
            if idle_since.elapsed() < SPIN {
                pause(&mut spins);
                continue;
            }
            let bed = self.bed.lock().unwrap_or_else(|e| e.into_inner());
            self.sleepers.fetch_add(1, SeqCst);
            let g = self.generation.load(SeqCst);
            if g.is_multiple_of(2) || g == seen {
                drop(self.alarm.wait(bed).unwrap_or_else(|e| e.into_inner()));
            } else {
                drop(bed);
            }
            self.sleepers.fetch_sub(1, SeqCst);
            idle_since = Instant::now();
        }
    }
}

/// One step of a wait: a spin hint, and every 64th step a yield, so a
/// waiting thread gives its core to any other thread that wants it.
#[inline]
fn pause(spins: &mut u32) {
    *spins = spins.wrapping_add(1);
    if spins.is_multiple_of(64) {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// A raw pointer that tasks on other threads may use: each task touches a
/// part of the pointee no other task touches. The one such wrapper of the
/// runtime (the parallel drivers, the gemm's blocks of C, the batched
/// factorizations' matrices).
#[derive(Clone, Copy)]
pub(crate) struct SendPtr<T>(pub *mut T);
// SAFETY: used only to hand disjoint parts of one buffer to tasks (see the
// users in `par`, `gemm` and `linalg`); `T: Send` is what moving them
// across needs.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as for `Send`: tasks sharing it touch disjoint parts.
unsafe impl<T: Send> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer to `x`'s elements.
    pub(crate) fn new(x: &mut [T]) -> SendPtr<T> {
        SendPtr(x.as_mut_ptr())
    }

    /// The pointer `i` elements on (a method, so closures capture the
    /// wrapper rather than its raw pointer field).
    ///
    /// # Safety
    /// As [`pointer::add`]: `i` elements on must stay inside the pointee.
    pub(crate) unsafe fn at(&self, i: usize) -> *mut T {
        // SAFETY: the caller keeps `i` inside the pointee (above).
        unsafe { self.0.add(i) }
    }

    /// The `len` elements from `at`: the caller's disjoint part.
    ///
    /// # Safety
    /// `at + len` within the buffer, and no two live parts overlapping.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn part(&self, at: usize, len: usize) -> &mut [T] {
        // SAFETY: the caller keeps the part inside the buffer and unshared.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(at), len) }
    }
}

/// Runs `f(k, chunk)` for the consecutive chunks of `len` elements of
/// `out` (the last may be shorter) as a region's tasks.
pub(crate) fn for_chunks<T: Send>(out: &mut [T], len: usize, f: &(dyn Fn(usize, &mut [T]) + Sync)) {
    let n = out.len();
    let len = len.max(1);
    let base = SendPtr::new(out);
    run(n.div_ceil(len), &|k| {
        let start = k * len;
        let end = (start + len).min(n);
        // SAFETY: `start..end` is inside `out`, and the tasks' ranges do
        // not overlap; `out` is borrowed mutably for the whole region.
        let chunk = unsafe { std::slice::from_raw_parts_mut(base.at(start), end - start) };
        f(k, chunk);
    });
}

/// `f(0)`, ..., `f(tasks - 1)` as a region's tasks, collected in order.
pub(crate) fn map<R: Send>(tasks: usize, f: &(dyn Fn(usize) -> R + Sync)) -> Vec<R> {
    let mut slots: Vec<Option<R>> = (0..tasks).map(|_| None).collect();
    for_chunks(&mut slots, 1, &|k, slot| slot[0] = Some(f(k)));
    slots
        .into_iter()
        .map(|r| r.expect("every task ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_task_runs_once_in_nested_and_concurrent_regions() {
        let hits: Vec<AtomicU64> = (0..1000).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for _ in 0..50 {
                        run(10, &|k| {
                            // A region inside a task runs inline.
                            run(100, &|j| {
                                hits[k * 100 + j].fetch_add(1, SeqCst);
                            });
                        });
                    }
                });
            }
        });
        assert!(hits.iter().all(|h| h.load(SeqCst) == 150));
    }

    #[test]
    fn a_panicking_task_panics_the_caller_and_the_team_recovers() {
        let r = std::panic::catch_unwind(|| {
            run(8, &|k| {
                if k == 5 {
                    panic!("task five");
                }
            })
        });
        let msg = r.expect_err("the panic reaches the caller");
        assert_eq!(msg.downcast_ref::<&str>(), Some(&"task five"));
        let v = map(64, &|k| k * 2);
        assert_eq!(v, (0..64).map(|k| k * 2).collect::<Vec<_>>());
    }
}
