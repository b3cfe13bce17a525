//! Donation: an `Array` argument taken by value (also inside a by-value
//! struct) whose buffer no one else holds is reused by the jitted function
//! for a result of the same dtype and size, or given to the buffer pool, so
//! a training step `fn step(p: Params, x: &Array) -> Params` makes no large
//! allocation once warm. Counted by this test binary's global allocator.

use crate::counting::{allocations_of_at_least, serial};

use jax::prelude::*;

/// Allocations at least this large are counted: the pool's smallest buffer,
/// so every activation, weight and gradient of the model below.
const LARGE_BYTES: usize = 64 << 10;

#[jax::jit]
mod net {
    use jax::prelude::*;

    /// A batch of 128: the gemm kernels pack into per-thread scratch
    /// reused across calls, so a warm step allocates nothing large.
    pub const BATCH: usize = 128;
    /// 2^18 elements (1 MiB) per weight: large enough that every weight,
    /// activation and gradient is counted, small enough for a debug build.
    pub const WIDTH: usize = 512;

    /// A two-layer autoencoder's parameters.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, WIDTH, WIDTH>,
        pub b1: Array<f32, WIDTH>,
        pub w2: Array<f32, WIDTH, WIDTH>,
        pub b2: Array<f32, WIDTH>,
    }

    pub fn loss(p: &Params, x: &Array<f32, BATCH, WIDTH>) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        let y = h.matmul(&p.w2) + &p.b2;
        let d = y - x;
        jnp::mean(&d * &d)
    }

    /// One SGD step: the parameters are taken by value, so donated.
    pub fn step(p: Params, x: &Array<f32, BATCH, WIDTH>) -> Params {
        let g = jax::grad(loss)(&p, x);
        Params {
            w1: p.w1 - 0.01 * g.w1,
            b1: p.b1 - 0.01 * g.b1,
            w2: p.w2 - 0.01 * g.w2,
            b2: p.b2 - 0.01 * g.b2,
        }
    }

    /// The same step with the parameters borrowed: nothing to donate.
    pub fn step_borrowed(p: &Params, x: &Array<f32, BATCH, WIDTH>) -> Params {
        let g = jax::grad(loss)(p, x);
        Params {
            w1: &p.w1 - 0.01 * g.w1,
            b1: &p.b1 - 0.01 * g.b1,
            w2: &p.w2 - 0.01 * g.w2,
            b2: &p.b2 - 0.01 * g.b2,
        }
    }
}

use net::{Params, BATCH, WIDTH};

fn init() -> (Params, Array<f32, BATCH, WIDTH>) {
    let wave =
        |n: usize, s: f32| (0..n).map(move |i| ((i * 7919 % 1013) as f32 / 1013.0 - 0.5) * s);
    let p = Params {
        w1: Array::from_vec(wave(WIDTH * WIDTH, 0.1).collect()).unwrap(),
        b1: Array::from_vec(wave(WIDTH, 0.01).collect()).unwrap(),
        w2: Array::from_vec(wave(WIDTH * WIDTH, 0.1).rev().collect()).unwrap(),
        b2: Array::full(0.0),
    };
    let x = Array::from_vec(wave(BATCH * WIDTH, 2.0).collect()).unwrap();
    (p, x)
}

#[test]
fn a_training_step_with_donated_params_allocates_nothing_when_warm() {
    let _serial = serial();
    let (p0, x) = init();
    // The borrowed step is the reference: donation changes no value.
    let mut want = p0.clone();
    for _ in 0..10 {
        want = net::step_borrowed(&want, &x);
    }
    jax::clear_caches();
    let mut p = Some(p0);
    let mut per_step = Vec::new();
    for _ in 0..10 {
        per_step.push(allocations_of_at_least(LARGE_BYTES, || {
            let donated = p.take().expect("the last step's parameters");
            p = Some(net::step(donated, &x));
        }));
    }
    let p = p.expect("the parameters");
    println!("large allocations per donated step: {per_step:?}");
    assert_eq!(p.w1, want.w1);
    assert_eq!(p.b1, want.b1);
    assert_eq!(p.w2, want.w2);
    assert_eq!(p.b2, want.b2);
    assert_eq!(
        &per_step[2..],
        &[0; 8],
        "steps 3..10 allocate nothing large"
    );

    let mut q = want.clone();
    let mut borrowed = Vec::new();
    for _ in 0..10 {
        borrowed.push(allocations_of_at_least(LARGE_BYTES, || {
            q = net::step_borrowed(&q, &x)
        }));
    }
    println!("large allocations per borrowed step: {borrowed:?}");
}

#[test]
fn donated_params_are_updated_in_their_own_buffers() {
    let _serial = serial();
    let (p, x) = init();
    let want = net::step_borrowed(&p, &x);
    let (w1, w2) = (p.w1.as_slice().as_ptr(), p.w2.as_slice().as_ptr());
    let got = net::step(p, &x);
    assert_eq!(
        got.w1.as_slice().as_ptr(),
        w1,
        "w1 - lr * g.w1 written over w1"
    );
    assert_eq!(got.w2.as_slice().as_ptr(), w2);
    assert_eq!(got.w1, want.w1);
    assert_eq!(got.b1, want.b1);
    assert_eq!(got.w2, want.w2);
    assert_eq!(got.b2, want.b2);
}

#[test]
fn a_shared_argument_is_not_written_over() {
    let _serial = serial();
    let (p, x) = init();
    let kept = p.clone();
    let before = (kept.w1.to_vec(), kept.b1.to_vec(), kept.w2.to_vec());
    let want = net::step_borrowed(&p, &x);
    let got = net::step(p, &x);
    // The caller's clone keeps its values and its buffer.
    assert!(kept.w1.as_slice() == before.0.as_slice());
    assert!(kept.b1.as_slice() == before.1.as_slice());
    assert!(kept.w2.as_slice() == before.2.as_slice());
    assert_ne!(got.w1.as_slice().as_ptr(), kept.w1.as_slice().as_ptr());
    assert_eq!(got.w1, want.w1);
    assert_eq!(got.w2, want.w2);
}

const N: usize = 1 << 20;

/// `x` by value: the result is written over it.
#[jax::jit]
fn scale_add(x: Array<f32, N>, y: &Array<f32, N>) -> Array<f32, N> {
    jnp::tanh(x * 2.0 + y)
}

/// The same with `x` borrowed.
#[jax::jit]
fn scale_add_borrowed(x: &Array<f32, N>, y: &Array<f32, N>) -> Array<f32, N> {
    jnp::tanh(x * 2.0 + y)
}

#[test]
fn a_donated_array_needs_no_buffer_even_with_a_cold_pool() {
    let _serial = serial();
    let x = Array::<f32, N>::from_fn(|i| (i % 97) as f32 / 97.0);
    let y = Array::<f32, N>::from_fn(|i| (i % 13) as f32 / 13.0);
    let want = scale_add_borrowed(&x, &y);
    jax::clear_caches();
    assert_eq!(
        allocations_of_at_least(LARGE_BYTES, || drop(scale_add_borrowed(&x, &y))),
        1
    );
    jax::clear_caches();
    let mut got = None;
    assert_eq!(
        allocations_of_at_least(LARGE_BYTES, || got = Some(scale_add(x, &y))),
        0
    );
    assert_eq!(got.expect("called"), want);

    // Shared: the clone is copied (one buffer), never written over.
    let x = Array::<f32, N>::from_fn(|i| (i % 97) as f32 / 97.0);
    let kept = x.clone();
    jax::clear_caches();
    let mut got = None;
    assert_eq!(
        allocations_of_at_least(LARGE_BYTES, || got = Some(scale_add(x, &y))),
        1
    );
    assert_eq!(got.expect("called"), want);
    assert!(kept
        .as_slice()
        .iter()
        .enumerate()
        .all(|(i, &v)| v == (i % 97) as f32 / 97.0));
}
