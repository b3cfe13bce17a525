//! `jax::checkpoint(f)` (alias `jax::remat`) inside jitted bodies: the
//! same values and gradients as without it (and as real JAX's,
//! `tests/fixtures/checkpoint.json`), JAX's printed jaxpr, and the memory
//! it saves: reverse mode keeps only each checkpoint's inputs and
//! recomputes the rest, measured by this binary's counting allocator.

use crate::common;

use crate::counting::{peak_bytes, serial};

use jax::prelude::*;

/// The fixture's inputs: `(((i * (7 + 2 seed)) % 11) - 4) / 8`.
fn arr(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * (7 + 2 * seed)) % 11) as f32 * 0.125 - 0.5)
        .collect()
}

#[jax::jit]
fn two_layers(w1: &Array<f32, 4, 4>, w2: &Array<f32, 4, 4>, x: &Array<f32, 3, 4>) -> Array<f32> {
    let layer = |w, h| jnp::tanh(jnp::matmul(h, w)) * 0.5 + h;
    let h = jax::checkpoint(layer)(w1, x);
    let h = jax::remat(layer)(w2, h);
    jnp::sum(&h * &h)
}

#[jax::jit]
fn two_layers_plain(
    w1: &Array<f32, 4, 4>,
    w2: &Array<f32, 4, 4>,
    x: &Array<f32, 3, 4>,
) -> Array<f32> {
    let layer = |w, h| jnp::tanh(jnp::matmul(h, w)) * 0.5 + h;
    let h = layer(w1, x);
    let h = layer(w2, h);
    jnp::sum(&h * &h)
}

/// `jax::grad` inside a body, of a function calling checkpoint.
#[jax::jit]
fn two_layers_grad(
    w1: &Array<f32, 4, 4>,
    w2: &Array<f32, 4, 4>,
    x: &Array<f32, 3, 4>,
) -> Array<f32, 4, 4> {
    let loss = |w1, w2| {
        let layer = |w, h| jnp::tanh(jnp::matmul(h, w)) * 0.5 + h;
        let h = jax::checkpoint(layer)(w1, x);
        let h = jax::checkpoint(layer)(w2, h);
        jnp::sum(&h * &h)
    };
    jax::grad(loss)(w1, w2)
}

fn close(got: &[f32], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (*g as f64 - w).abs() <= 1e-5 * (1.0 + w.abs()),
            "{got:?} vs {want:?}"
        );
    }
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

#[test]
fn gradients_with_checkpoint_equal_those_without_and_jaxs() {
    let case = common::case("checkpoint", "two_layers");
    let w1 = Array::<f32, 4, 4>::from_vec(arr(16, 0)).unwrap();
    let w2 = Array::<f32, 4, 4>::from_vec(arr(16, 1)).unwrap();
    let x = Array::<f32, 3, 4>::from_vec(arr(12, 2)).unwrap();
    let v = two_layers(&w1, &w2, &x).item();
    assert_eq!(v, two_layers_plain(&w1, &w2, &x).item());
    close(&[v], &[case["value"].as_f64().unwrap()]);

    let g = two_layers::grad(&w1, &w2, &x);
    let g_plain = two_layers_plain::grad(&w1, &w2, &x);
    close(g.as_slice(), &floats(&case["grad_w1"]));
    close(g_plain.as_slice(), &floats(&case["grad_w1"]));
    let (_, pullback) = two_layers::vjp(&w1, &w2, &x);
    let (g1, g2, _) = pullback(Array::from(1.0f32));
    close(g1.as_slice(), &floats(&case["grad_w1"]));
    close(g2.as_slice(), &floats(&case["grad_w2"]));

    let h1 = two_layers_grad(&w1, &w2, &x);
    close(h1.as_slice(), &floats(&case["grad_w1"]));
}

#[jax::jit]
fn small(x: &Array<f32, 3>) -> Array<f32> {
    jnp::sum(jax::checkpoint(|y| jnp::sin(y) * y)(x))
}

#[test]
fn the_jaxpr_prints_as_jaxs_remat2() {
    let case = common::case("checkpoint", "small");
    assert_eq!(small::jaxpr().to_string(), case["jaxpr"].as_str().unwrap());
    let x = Array::<f32, 3>::from_vec(arr(3, 3)).unwrap();
    close(small::grad(&x).as_slice(), &floats(&case["grad"]));
}

/// Batching a checkpoint call: `vmap` of the body.
#[jax::jit]
fn batched(x: &Array<f32, 5, 3>) -> Array<f32, 5> {
    jax::vmap(|r| jnp::sum(jax::checkpoint(|y| jnp::sin(y) * y)(r)), 0, 0)(x)
}

#[test]
fn a_vmapped_checkpoint_computes_each_row() {
    let x = Array::<f32, 5, 3>::from_vec(arr(15, 4)).unwrap();
    let got = batched(&x).to_vec();
    let v = x.to_vec();
    for (r, g) in got.iter().enumerate() {
        let want: f32 = v[3 * r..3 * r + 3].iter().map(|y| y.sin() * y).sum();
        assert!((g - want).abs() < 1e-6, "row {r}: {g} vs {want}");
    }
}

const BATCH: usize = 64;
const WIDTH: usize = 64;

/// A 20-layer MLP (one weight shared by every layer, as an unrolled
/// recurrent network), each layer checkpointed.
#[jax::jit]
fn deep_checkpointed(w: &Array<f32, 64, 64>, x: &Array<f32, 64, 64>) -> Array<f32> {
    let layer = |w, h| {
        let z = jnp::matmul(h, w);
        jnp::tanh(z) * jax::nn::sigmoid(z) + h * 0.5
    };
    let mut h = x.clone();
    for _layer in 0..20 {
        h = jax::checkpoint(layer)(w, h);
    }
    jnp::mean(&h * &h)
}

/// The same network without checkpoints.
#[jax::jit]
fn deep_plain(w: &Array<f32, 64, 64>, x: &Array<f32, 64, 64>) -> Array<f32> {
    let layer = |w, h| {
        let z = jnp::matmul(h, w);
        jnp::tanh(z) * jax::nn::sigmoid(z) + h * 0.5
    };
    let mut h = x.clone();
    for _layer in 0..20 {
        h = layer(w, h);
    }
    jnp::mean(&h * &h)
}

#[test]
fn checkpointed_layers_lower_the_peak_memory_of_the_gradient() {
    let _serial = serial();
    let w = Array::<f32, WIDTH, WIDTH>::from_vec(arr(WIDTH * WIDTH, 5)).unwrap() * 0.2f32;
    let x = Array::<f32, BATCH, WIDTH>::from_vec(arr(BATCH * WIDTH, 6)).unwrap();
    let want = deep_plain::grad(&w, &x);
    let got = deep_checkpointed::grad(&w, &x);
    let (g, h) = (got.to_vec(), want.to_vec());
    for (a, b) in g.iter().zip(&h) {
        assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "{a} vs {b}");
    }
    // No pooled buffers: live bytes are what the program holds.
    let limit = jax::config::buffer_pool_limit();
    jax::config::set_buffer_pool_limit(0);
    let plain = peak_bytes(|| drop(deep_plain::grad(&w, &x)));
    let checkpointed = peak_bytes(|| drop(deep_checkpointed::grad(&w, &x)));
    jax::config::set_buffer_pool_limit(limit);
    let ratio = checkpointed as f64 / plain as f64;
    println!(
        "peak live bytes of the 20-layer gradient: {plain} without checkpoints, {checkpointed} with ({ratio:.2}x)"
    );
    assert!(ratio < 0.6, "{checkpointed} vs {plain}");
}

#[test]
fn forward_mode_through_checkpoint_equals_without() {
    let w1 = Array::<f32, 4, 4>::from_vec(arr(16, 0)).unwrap();
    let w2 = Array::<f32, 4, 4>::from_vec(arr(16, 1)).unwrap();
    let x = Array::<f32, 3, 4>::from_vec(arr(12, 2)).unwrap();
    let (t1, t2, tx) = (
        Array::<f32, 4, 4>::from_vec(arr(16, 7)).unwrap(),
        Array::<f32, 4, 4>::from_vec(arr(16, 8)).unwrap(),
        Array::<f32, 3, 4>::from_vec(arr(12, 9)).unwrap(),
    );
    let (y, ty) = two_layers::jvp((&w1, &w2, &x), (&t1, &t2, &tx));
    let (y0, ty0) = two_layers_plain::jvp((&w1, &w2, &x), (&t1, &t2, &tx));
    close(&[y.item()], &[y0.item() as f64]);
    close(&[ty.item()], &[ty0.item() as f64]);
}

/// Second derivatives: forward mode over the recomputing reverse mode.
#[jax::jit]
fn small_hessian(x: &Array<f32, 3>) -> Array<f32, 3, 3> {
    jax::hessian(|x| jnp::sum(jax::checkpoint(|y| jnp::sin(y) * y)(x)))(x)
}

#[test]
fn the_hessian_through_checkpoint_is_the_second_derivative() {
    let x = Array::<f32, 3>::from_vec(arr(3, 3)).unwrap();
    let h = small_hessian(&x).to_vec();
    let v = x.to_vec();
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j {
                2.0 * v[i].cos() - v[i] * v[i].sin()
            } else {
                0.0
            };
            assert!(
                (h[3 * i + j] - want).abs() < 1e-5,
                "{i},{j}: {} vs {want}",
                h[3 * i + j]
            );
        }
    }
}
