//! The second seed's chapter on derivatives, in Rust: the derivative of
//! `sin` by hand, numerically and automatically; `jvp` and `vjp` of `x²` at
//! 2; forward against reverse mode on a function with many inputs and one
//! output, and one with one input and many outputs; a jaxpr.
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
/// pass; forward mode needs one pass per input.
#[jax::jit]
fn many_to_one(x: &Array<f32, 256>) -> Array<f32> {
    jnp::sum(jnp::sin(x) * x)
}

/// One input, many outputs: forward mode gets the whole Jacobian column in
/// one pass; reverse mode needs one pass per output.
#[jax::jit]
fn one_to_many(t: &Array<f32, 1>) -> Array<f32, 256> {
    let k: Array<f32, 256> = Array::<f32, 256>::arange() * 0.01;
    jnp::sin(k * t)
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
    println!("256 inputs -> 1 output: reverse (grad) {t_rev:.1} µs, forward (jacfwd, 256 passes) {t_fwd:.1} µs");
    let t1 = Array::<f32, 1>::from([0.5]);
    let fwd: Array<f32, 256, 1> = one_to_many::jacfwd(&t1);
    let rev: Array<f32, 256, 1> = one_to_many::jacrev(&t1);
    assert!(largest_difference(&fwd.to_vec(), &rev.to_vec()) < 1e-5);
    let t_fwd = time(101, || drop(one_to_many::jacfwd(&t1)));
    let t_rev = time(101, || drop(one_to_many::jacrev(&t1)));
    println!("1 input -> 256 outputs: forward (jacfwd) {t_fwd:.1} µs, reverse (jacrev, 256 passes) {t_rev:.1} µs");

    println!("jaxpr of func:\n{}", func::jaxpr());
}
