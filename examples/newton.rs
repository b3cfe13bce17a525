//! Newton's method with `f::hessian` on the Rosenbrock function, from the
//! classic start (-1.2, 1), to its minimum at (1, 1).
//!
//! Run with `cargo run --release --example newton`.

use jax::prelude::*;

/// `(1 - x)² + 100 (y - x²)²`.
#[jax::jit]
fn rosenbrock(p: Array<f64, 2>) -> Array<f64> {
    let x = p.at(0).get();
    let y = p.at(1).get();
    let a = 1.0 - &x;
    let b = y - &x * &x;
    &a * &a + &b * &b * 100.0
}

fn main() {
    let mut p = Array::<f64, 2>::from([-1.2, 1.0]);
    println!("iter  x                   y                   f(x, y)");
    for k in 0..20 {
        let f = rosenbrock(p.clone()).item();
        println!(
            "{k:>4}  {:<18.15}  {:<18.15}  {f:.3e}",
            p.to_vec()[0],
            p.to_vec()[1]
        );
        let g = rosenbrock::grad(p.clone()).to_vec();
        if g[0].hypot(g[1]) < 1e-12 {
            break;
        }
        // The Newton step solves H d = g; H is 2×2, so by its inverse.
        let h = rosenbrock::hessian(p.clone()).to_vec();
        let det = h[0] * h[3] - h[1] * h[2];
        let d = [
            (h[3] * g[0] - h[1] * g[1]) / det,
            (h[0] * g[1] - h[2] * g[0]) / det,
        ];
        p = Array::from([p.to_vec()[0] - d[0], p.to_vec()[1] - d[1]]);
    }
    let v = p.to_vec();
    assert!(
        (v[0] - 1.0).abs() < 1e-9 && (v[1] - 1.0).abs() < 1e-9,
        "{v:?}"
    );
    println!("converged to ({}, {})", v[0], v[1]);
}
