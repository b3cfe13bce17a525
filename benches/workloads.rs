//! The workloads of README's performance table, compiled with `#[jax::jit]`.
//!
//! `cargo bench --bench workloads` prints one JSON line per workload with the
//! median time of many calls after warm-up; `benches/compare.py` runs this
//! and the same workloads in JAX, and prints both with their ratio.

use std::hint::black_box;
use std::time::{Duration, Instant};

use jax::prelude::*;

const M1: usize = 1 << 20;
const M16: usize = 1 << 24;

#[jax::jit]
fn tanh_chain_1m(x: &Array<f32, M1>) -> Array<f32, M1> {
    jnp::tanh(x * 1.5 + 0.5) * 2.0
}

#[jax::jit]
fn tanh_chain_16m(x: &Array<f32, M16>) -> Array<f32, M16> {
    jnp::tanh(x * 1.5 + 0.5) * 2.0
}

#[jax::jit]
fn axpb_16m(x: &Array<f32, M16>, a: f32, b: f32) -> Array<f32, M16> {
    x * a + b
}

#[jax::jit]
fn sumsq_16m(x: &Array<f32, M16>) -> Array<f32> {
    jnp::sum(x * x)
}

#[jax::jit]
fn triad_16m(x: &Array<f32, M16>, y: &Array<f32, M16>) -> Array<f32, M16> {
    x + y * 1.5
}

#[jax::jit]
fn matmul_1024(a: &Array<f32, 1024, 1024>, b: &Array<f32, 1024, 1024>) -> Array<f32, 1024, 1024> {
    a.matmul(b)
}

#[jax::jit]
fn matmul_256_784_512(a: &Array<f32, 256, 784>, b: &Array<f32, 784, 512>) -> Array<f32, 256, 512> {
    a.matmul(b)
}

#[jax::jit]
fn mlp_forward(
    x: &Array<f32, 256, 784>,
    w1: &Array<f32, 784, 512>,
    b1: &Array<f32, 512>,
    w2: &Array<f32, 512, 10>,
    b2: &Array<f32, 10>,
) -> Array<f32, 256, 10> {
    let h = jnp::tanh(x.matmul(w1) + b1);
    h.matmul(w2) + b2
}

/// Median seconds per call of `f`, after warm-up, over at least `min_samples`
/// samples and about `budget` of time.
fn median_time(mut f: impl FnMut(), min_samples: usize, budget: Duration) -> f64 {
    for _ in 0..3 {
        f();
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < min_samples || (start.elapsed() < budget && samples.len() < 1000) {
        let t = Instant::now();
        f();
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

fn report(name: &str, secs: f64) {
    println!("{{\"name\": \"{name}\", \"median_ms\": {:.6}}}", secs * 1e3);
}

/// A fixed, cheap pseudo-random fill in [-1, 1) (xorshift).
fn random_vec(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect()
}

fn random<const N: usize>(seed: u32) -> Array<f32, N> {
    Array::from_vec(random_vec(N, seed)).unwrap()
}

fn random2<const R: usize, const C: usize>(seed: u32) -> Array<f32, R, C> {
    Array::from_vec(random_vec(R * C, seed)).unwrap()
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let budget = Duration::from_secs(2);

    if run("tanh_chain_1m") {
        let x = random::<M1>(1);
        report(
            "tanh_chain_1m",
            median_time(|| drop(black_box(tanh_chain_1m(&x))), 20, budget),
        );
    }
    if run("tanh_chain_16m") {
        let x = random::<M16>(2);
        report(
            "tanh_chain_16m",
            median_time(|| drop(black_box(tanh_chain_16m(&x))), 10, budget),
        );
    }
    if run("axpb_16m") {
        let x = random::<M16>(3);
        report(
            "axpb_16m",
            median_time(|| drop(black_box(axpb_16m(&x, 1.5, 0.5))), 10, budget),
        );
    }
    if run("sumsq_16m") {
        let x = random::<M16>(4);
        report(
            "sumsq_16m",
            median_time(|| drop(black_box(sumsq_16m(&x))), 10, budget),
        );
    }
    if run("triad_16m") {
        let (x, y) = (random::<M16>(5), random::<M16>(6));
        report(
            "triad_16m",
            median_time(|| drop(black_box(triad_16m(&x, &y))), 10, budget),
        );
    }
    if run("matmul_1024") {
        let (a, b) = (random2::<1024, 1024>(7), random2::<1024, 1024>(8));
        report(
            "matmul_1024",
            median_time(|| drop(black_box(matmul_1024(&a, &b))), 5, budget),
        );
    }
    if run("matmul_256_784_512") {
        let (a, b) = (random2::<256, 784>(9), random2::<784, 512>(10));
        report(
            "matmul_256_784_512",
            median_time(|| drop(black_box(matmul_256_784_512(&a, &b))), 10, budget),
        );
    }
    if run("mlp_forward") {
        let x = random2::<256, 784>(11);
        let w1 = random2::<784, 512>(12);
        let b1 = random::<512>(13);
        let w2 = random2::<512, 10>(14);
        let b2 = random::<10>(15);
        report(
            "mlp_forward",
            median_time(
                || drop(black_box(mlp_forward(&x, &w1, &b1, &w2, &b2))),
                10,
                budget,
            ),
        );
    }
}
