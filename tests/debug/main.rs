//! `jax_debug_nans` and `jax_debug_infs`: each NaN traced back to the
//! operation that made it, on the calling thread and on worker threads.
//! A binary of its own, since the flags are process-wide; each test holds
//! [`flags`] while it runs, so one test's flags never reach another's.

#[path = "../support/common/mod.rs"]
#[allow(unused_macros)]
mod common;

mod nans;
mod threads;

static FLAGS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Held by every test of this binary: the debug flags are process-wide.
fn flags() -> std::sync::MutexGuard<'static, ()> {
    FLAGS.lock().unwrap_or_else(|e| e.into_inner())
}
