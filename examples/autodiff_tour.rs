//! The second seed's chapter on derivatives, in Rust: the derivative of
//! `sin` by hand, numerically and automatically; `jvp` and `vjp` of `x²` at
//! 2; forward against reverse mode on a function with many inputs and one
//! output, and one with one input and many outputs; full 256×256 Jacobians
//! and a Hessian; a jaxpr.
//!
//! Run with `cargo run --release --example autodiff_tour`.

use std::time::Instant;

use jax::prelude::*;

#[jax::jit]
fn my_function(x: Array<f32>) -> Array<f32> {
    jnp::sin(x)
}

#[jax::jit]
fn func(x: Array<f32>) -> Array<f32> {
    &x * &x
}

/// Many inputs, one output: reverse mode gets the whole gradient in one
/// pass; forward mode needs a directional derivative per input (one pass of
/// 256 batched lanes, as JAX's `jacfwd` is the jvp `vmap`ped over the
/// basis).
#[jax::jit]
fn many_to_one(x: &Array<f32, 256>) -> Array<f32> {
    jnp::sum(jnp::sin(x) * x)
}

/// One input, many outputs: forward mode gets the whole Jacobian column in
/// one pass; reverse mode needs a pullback per output (batched, as
/// `jacrev` is the pullback `vmap`ped over the output's basis).
#[jax::jit]
fn one_to_many(t: &Array<f32, 1>) -> Array<f32, 256> {
    let k: Array<f32, 256> = Array::<f32, 256>::arange() * 0.01;
    jnp::sin(k * t)
}

/// Many inputs, many outputs: a dense 256×256 Jacobian (every output
/// reads every input through the sum).
#[jax::jit]
fn many_to_many(x: &Array<f32, 256>) -> Array<f32, 256> {
    jnp::sin(x) * jnp::sum(x * x)
}

/// Median time of `runs` calls of `f`, in microseconds.
fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

/// The largest elementwise difference of two arrays' elements.
fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn main() {
    // d/dx sin(x) at 1: by hand, numerically, automatically.
    let x = 1.0f32;
    let by_hand = x.cos();
    let h = 1e-3f32;
    let numeric = (x + h).sin() - (x - h).sin();
    let numeric = numeric / (2.0 * h);
    let automatic = my_function::grad(Array::from(x)).item();
    println!(
        "d/dx sin(x) at 1: by hand {by_hand}, central difference {numeric}, jax::grad {automatic}"
    );

    // x² at 2: grad, jvp (forward), vjp (reverse), all 4.
    let two = Array::from(2.0f32);
    println!("grad(x²)(2) = {}", func::grad(two.clone()));
    let (y, t) = func::jvp((two.clone(),), (Array::from(1.0f32),));
    println!("jvp(x², (2,), (1,)) = ({y}, {t})");
    let (y, pullback) = func::vjp(two);
    let (ct,) = pullback(Array::from(1.0f32));
    println!("vjp(x², 2): y = {y}, pullback(1) = {ct}");

    // Forward against reverse mode.
    let x: Array<f32, 256> = Array::<f32, 256>::arange() * 0.01;
    let rev = many_to_one::grad(&x);
    let fwd: Array<f32, 256> = many_to_one::jacfwd(&x);
    // Both modes compute the same derivative, in another order.
    assert!(largest_difference(&rev.to_vec(), &fwd.to_vec()) < 1e-5);
    let t_rev = time(101, || drop(many_to_one::grad(&x)));
    let t_fwd = time(101, || drop(many_to_one::jacfwd(&x)));
    println!("256 inputs -> 1 output: reverse (grad) {t_rev:.1} µs, forward (jacfwd, 256 lanes) {t_fwd:.1} µs");
    let t1 = Array::<f32, 1>::from([0.5]);
    let fwd: Array<f32, 256, 1> = one_to_many::jacfwd(&t1);
    let rev: Array<f32, 256, 1> = one_to_many::jacrev(&t1);
    assert!(largest_difference(&fwd.to_vec(), &rev.to_vec()) < 1e-5);
    let t_fwd = time(101, || drop(one_to_many::jacfwd(&t1)));
    let t_rev = time(101, || drop(one_to_many::jacrev(&t1)));
    println!("1 input -> 256 outputs: forward (jacfwd) {t_fwd:.1} µs, reverse (jacrev, 256 lanes) {t_rev:.1} µs");

    // Full 256×256 Jacobians and a Hessian: JAX computes each as one
    // batched pass (vmap of jvp or vjp over the identity basis).
    let x: Array<f32, 256> = Array::<f32, 256>::arange() * 0.01;
    let fwd: Array<f32, 256, 256> = many_to_many::jacfwd(&x);
    let rev: Array<f32, 256, 256> = many_to_many::jacrev(&x);
    assert!(largest_difference(&fwd.to_vec(), &rev.to_vec()) < 1e-3);
    let hess: Array<f32, 256, 256> = many_to_one::hessian(&x);
    assert!(hess.to_vec().iter().all(|v| v.is_finite()));
    let t_fwd = time(21, || drop(many_to_many::jacfwd(&x)));
    let t_rev = time(21, || drop(many_to_many::jacrev(&x)));
    let t_hess = time(21, || drop(many_to_one::hessian(&x)));
    println!("256 inputs -> 256 outputs: jacfwd {t_fwd:.1} µs, jacrev {t_rev:.1} µs; hessian of 256 -> 1: {t_hess:.1} µs");

    println!("jaxpr of func:\n{}", func::jaxpr());
}
