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

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

/// The dispatch thread's queue.
fn queue() -> &'static Mutex<mpsc::Sender<Job>> {
    static QUEUE: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("jax-dispatch".into())
            .spawn(move || {
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
/// returns at once.
pub fn dispatch<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Pending<T> {
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
