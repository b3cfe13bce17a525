//! Asynchronous dispatch, as JAX's: a jitted call handed to [`dispatch`]
//! as a closure returns at once with a [`Pending`] result while the
//! computation runs; the host goes on (loading the next batch, logging)
//! and [`Pending::block_until_ready`] waits for the value. The closure
//! owns what it reads (`move`; an `Array` clone shares its buffer), so the
//! computation may outlive the caller's borrows.
//!
//! (A closure rather than an `f::dispatch` companion: a companion module
//! cannot name a function defined inside another function's body, and the
//! closure also dispatches several calls, or a whole training step, as one
//! computation.)
//!
//! Dispatched computations run one after another, in dispatch order, on
//! one dispatch thread (JAX's device stream): a later one sees the results
//! of earlier ones only through values it was given, as in JAX. Inside,
//! each computation still uses every thread of its device. A computation
//! that panics re-raises its panic in `block_until_ready`.
//!
//! A `dispatch` made inside a dispatched computation (a step that
//! dispatches its own parts) runs at once, on the dispatch thread, as part
//! of the computation that made it, and its [`Pending`] is already ready:
//! queued behind the computation that waits for it, it would never run.
//! The order is kept: the nested computation runs after everything
//! dispatched before its enclosing one, and before everything dispatched
//! after. A panic in it re-raises where its `block_until_ready` is called,
//! and the queue goes on. Waiting inside a dispatched computation for a
//! result dispatched *after* it (handed over through a channel, say)
//! cannot finish, since that result runs only once the waiting one
//! returns: `block_until_ready` panics there with a message saying so,
//! rather than hanging every later dispatch.
//!
//! ```
//! use jax::prelude::*;
//!
//! #[jax::jit]
//! fn step(x: &Array<f32, 1000>) -> Array<f32, 1000> {
//!     jnp::tanh(x * 2.0)
//! }
//!
//! let x = Array::<f32, 1000>::full(0.5);
//! let input = x.clone(); // shares x's buffer
//! let pending = jax::dispatch(move || step(&input)); // returns at once
//! let host_work: f32 = (0..1000).map(|i| i as f32).sum(); // overlaps
//! let y = pending.block_until_ready();
//! assert_eq!(y.to_vec()[0], 1.0f32.tanh());
//! assert_eq!(host_work, 499_500.0);
//! ```

use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

thread_local! {
    /// Whether this thread is the dispatch thread.
    static ON_DISPATCH_THREAD: Cell<bool> = const { Cell::new(false) };
}

fn on_dispatch_thread() -> bool {
    ON_DISPATCH_THREAD.with(Cell::get)
}

/// The dispatch thread's queue.
fn queue() -> &'static Mutex<mpsc::Sender<Job>> {
    static QUEUE: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("jax-dispatch".into())
            .spawn(move || {
                ON_DISPATCH_THREAD.with(|on| on.set(true));
                for job in rx {
                    job();
                }
            })
            .expect("the dispatch thread starts");
        Mutex::new(tx)
    })
}

type Slot<T> = Arc<(Mutex<Option<std::thread::Result<T>>>, Condvar)>;

/// A dispatched computation's result, ready or not.
#[must_use = "a dispatched result is read with `block_until_ready`"]
pub struct Pending<T> {
    slot: Slot<T>,
}

impl<T> Pending<T> {
    /// Waits for the computation and returns its result (JAX's
    /// `block_until_ready`). Re-raises its panic, if it panicked.
    pub fn block_until_ready(self) -> T {
        let (lock, ready) = &*self.slot;
        let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(result) = guard.take() {
                return result.unwrap_or_else(|e| resume_unwind(e));
            }
            if on_dispatch_thread() {
                // Only a result dispatched after the running computation
                // is not ready here (nested ones ran inline): it is queued
                // behind the computation that would wait for it.
                drop(guard);
                panic!(
                    "block_until_ready inside a dispatched computation waits for a result \
                     dispatched after that computation, which runs only once it returns: \
                     read that result outside the dispatched closure, or dispatch it from \
                     inside the closure (a nested dispatch runs at once)"
                );
            }
            guard = ready.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether the result is computed (`block_until_ready` would not wait).
    pub fn is_ready(&self) -> bool {
        self.slot
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }
}

/// Runs `f` on the dispatch thread, after what was dispatched before;
/// returns at once. Called inside a dispatched computation, runs `f` there
/// and then returns, its result ready (see the module documentation).
pub fn dispatch<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Pending<T> {
    if on_dispatch_thread() {
        let result = catch_unwind(AssertUnwindSafe(f));
        return Pending {
            slot: Arc::new((Mutex::new(Some(result)), Condvar::new())),
        };
    }
    let slot: Slot<T> = Arc::new((Mutex::new(None), Condvar::new()));
    let done = slot.clone();
    let job: Job = Box::new(move || {
        let result = catch_unwind(AssertUnwindSafe(f));
        let (lock, ready) = &*done;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        ready.notify_all();
    });
    queue()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job)
        .expect("the dispatch thread runs for the whole process");
    Pending { slot }
}
