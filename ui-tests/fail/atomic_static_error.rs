// Global state: an atomic counter.
use jax::prelude::*;

#[allow(dead_code)]
static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    x
}

fn main() {}
