//! Allocations of jitted code, counted by a global allocator (the binary's
//! own, `counting.rs`): a fused chain of elementwise ops allocates one output
//! buffer, and none once the buffer pool is warm.
//!
//! The page-fault measurement behind the pool's numbers is ignored;
//! run it with `cargo test --release --test memory -- --ignored alloc:: --nocapture`.

use crate::counting::{allocations, allocations_of_at_least, serial};

use jax::prelude::*;

const N: usize = 1 << 20;
const OUT_BYTES: usize = N * 4;

/// Ten elementwise operations, fused by `#[jax::jit]` into one loop.
#[jax::jit]
fn chain10(x: &Array<f32, N>) -> Array<f32, N> {
    let y = x * 1.5 + 0.5;
    let y = jnp::tanh(y) * 2.0 - x;
    let y = jnp::exp(y * 0.1) + jnp::abs(x);
    jnp::maximum(y, 0.25)
}

#[test]
fn a_fused_chain_allocates_one_buffer_cold_and_none_warm() {
    let _serial = serial();
    assert_eq!(chain10::jaxpr().to_string().matches(" = ").count(), 10);
    let x = Array::<f32, N>::from_fn(|i| (i % 1000) as f32 / 100.0 - 5.0);
    let want = chain10(&x).to_vec();

    jax::clear_caches();
    let cold = allocations_of_at_least(OUT_BYTES / 2, || drop(chain10(&x)));
    assert_eq!(cold, 1, "one output buffer, no temporaries");

    // The dropped result went back to the pool: no new buffers from now on.
    let warm = allocations_of_at_least(OUT_BYTES / 2, || {
        for _ in 0..20 {
            let y = chain10(&x);
            assert!(y.as_slice() == want.as_slice());
        }
    });
    assert_eq!(warm, 0);

    // A result still alive is not reused: the next call needs its own buffer.
    let kept = chain10(&x);
    let second = allocations_of_at_least(OUT_BYTES / 2, || drop(chain10(&x)));
    assert_eq!(second, 1);
    assert!(kept.as_slice() == want.as_slice());
}

#[test]
fn a_shared_buffer_is_pooled_only_when_the_last_clone_drops() {
    let _serial = serial();
    let x = Array::<f32, N>::from_fn(|i| i as f32);
    jax::clear_caches();
    let y = chain10(&x);
    let z = y.clone();
    drop(y);
    // `z` still holds the buffer, so this call allocates.
    assert_eq!(
        allocations_of_at_least(OUT_BYTES / 2, || drop(chain10(&x))),
        1
    );
    drop(z);
    // Now two buffers are pooled, and two live results need no allocation.
    assert_eq!(
        allocations_of_at_least(OUT_BYTES / 2, || {
            let a = chain10(&x);
            let b = chain10(&x);
            assert!(a == b);
        }),
        0
    );
}

/// 8192 steps of `h = tanh(W h + x_t)`: its gradient stacks two residuals of
/// 8192×64 f32 (2 MiB each) and reads both last in the matrix product that
/// sums `W`'s cotangent after the reversed loop (`transform/scan_sums.rs`).
#[jax::jit]
fn rnn_loss(w: &Array<f32, 64, 64>, xs: &Array<f32, 8192, 64>, h: &Array<f32, 64>) -> Array<f32> {
    let (h, _) = lax::scan(
        |h: Array<f32, 64>, x: Array<f32, 64>| (jnp::tanh(w.matmul(&h) + x), 0.0),
        h.clone(),
        xs.clone(),
    );
    jnp::sum(h)
}

/// `rnn_loss`'s `W`, inputs and initial state.
fn rnn_inputs() -> (Array<f32, 64, 64>, Array<f32, 8192, 64>, Array<f32, 64>) {
    let w = Array::<f32, 64, 64>::from_fn(|i| ((i * 7919) % 61) as f32 / 61.0 - 0.5) / 8.0f32;
    let xs = Array::<f32, 8192, 64>::from_fn(|i| ((i * 104729) % 97) as f32 / 97.0 - 0.5);
    let h = Array::<f32, 64>::from_fn(|i| (i % 5) as f32 / 5.0);
    (w, xs, h)
}

/// Buffers whose last reader is the program's last operation go back to the
/// pool too: a warm call of the RNN gradient takes every large buffer from
/// it instead of faulting in fresh pages.
#[test]
fn buffers_read_last_by_the_final_operation_are_pooled() {
    let _serial = serial();
    let (w, xs, h) = rnn_inputs();
    jax::clear_caches();
    let want = rnn_loss::grad(&w, &xs, &h);
    let second = allocations_of_at_least(OUT_BYTES / 2, || drop(rnn_loss::grad(&w, &xs, &h)));
    assert_eq!(
        second, 0,
        "the first call's stacked residuals serve the second"
    );
    let warm = allocations_of_at_least(OUT_BYTES / 2, || {
        for _ in 0..3 {
            assert!(rnn_loss::grad(&w, &xs, &h) == want);
        }
    });
    assert_eq!(warm, 0);
}

/// A loop's per-step buffers come from the thread's recycled ones even when
/// earlier code left that list full of buffers of another length (eight of
/// 512 floats, as the linear-algebra benchmarks leave it): a warm call of
/// the RNN gradient then allocates a bounded number of times, not a few per
/// step.
#[test]
fn a_recycled_list_full_of_another_length_does_not_make_each_step_allocate() {
    let _serial = serial();
    let (w, xs, h) = rnn_inputs();
    jax::clear_caches();
    for _ in 0..8 {
        jax::__rt::recycle(vec![0f32; 512]);
    }
    let want = rnn_loss::grad(&w, &xs, &h);
    let allocations = allocations(|| assert!(rnn_loss::grad(&w, &xs, &h) == want));
    assert!(
        allocations < 100,
        "{allocations} allocations in one call of an 8192-step loop's gradient"
    );
}

/// `jax::clear_caches` empties the pool, which holds at most its limit
/// (256 MiB unless `JAX_BUFFER_POOL_BYTES` says otherwise); a limit below
/// one buffer turns pooling off.
#[test]
fn the_pool_is_bounded_and_clear_caches_empties_it() {
    let _serial = serial();
    let default = jax::config::buffer_pool_limit();
    if std::env::var_os("JAX_BUFFER_POOL_BYTES").is_none() {
        assert_eq!(default, 256 << 20);
    }
    let x = Array::<f32, N>::from_fn(|i| i as f32);
    drop(chain10(&x));
    assert!(jax::config::pooled_bytes() >= OUT_BYTES);
    jax::clear_caches();
    assert_eq!(jax::config::pooled_bytes(), 0);
    assert_eq!(
        allocations_of_at_least(OUT_BYTES / 2, || drop(chain10(&x))),
        1
    );
    assert_eq!(
        allocations_of_at_least(OUT_BYTES / 2, || drop(chain10(&x))),
        0
    );

    // Lowering the limit below what the pool holds frees it; below one
    // buffer nothing is pooled, so every call allocates.
    jax::config::set_buffer_pool_limit(OUT_BYTES - 1);
    assert_eq!(jax::config::buffer_pool_limit(), OUT_BYTES - 1);
    assert_eq!(jax::config::pooled_bytes(), 0);
    assert_eq!(
        allocations_of_at_least(OUT_BYTES / 2, || (0..3).for_each(|_| drop(chain10(&x)))),
        3
    );
    assert_eq!(jax::config::pooled_bytes(), 0);

    jax::config::set_buffer_pool_limit(default);
    assert_eq!(
        allocations_of_at_least(OUT_BYTES / 2, || (0..3).for_each(|_| drop(chain10(&x)))),
        1
    );
}

/// Minor page faults of this process so far (Linux `getrusage`).
#[cfg(target_os = "linux")]
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Field 10 (minflt), counting after the parenthesized command name.
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    after
        .split(' ')
        .nth(7)
        .expect("minflt")
        .parse()
        .expect("number")
}

/// Median time and page faults per call of a 64 MiB elementwise jitted
/// function, with a cold pool every call (as without the pool) and with
/// the pool warm, in one process.
#[cfg(target_os = "linux")]
#[test]
#[ignore]
fn measure_pool_page_faults() {
    const M: usize = 1 << 24;
    #[jax::jit]
    fn axpb(x: &Array<f32, M>) -> Array<f32, M> {
        x * 0.75 - 3.0
    }
    let _serial = serial();
    let x = Array::<f32, M>::from_fn(|i| i as f32);
    let run = |cold: bool| {
        let mut times = Vec::new();
        let mut faults = Vec::new();
        drop(axpb(&x));
        for _ in 0..21 {
            if cold {
                jax::clear_caches();
            }
            let f0 = minor_faults();
            let t = std::time::Instant::now();
            let y = axpb(&x);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            faults.push(minor_faults() - f0);
            std::hint::black_box(&y);
            drop(y);
        }
        times.sort_by(f64::total_cmp);
        faults.sort();
        (times[10], faults[10])
    };
    for _ in 0..2 {
        let (t_cold, f_cold) = run(true);
        let (t_warm, f_warm) = run(false);
        println!(
            "64 MiB x*a+b: fresh buffer {t_cold:.2} ms, {f_cold} faults | pooled {t_warm:.2} ms, {f_warm} faults | {:.2}x",
            t_cold / t_warm
        );
    }
}
