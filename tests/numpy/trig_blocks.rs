//! Flat loops calling `sin` and `cos` run in blocks whose first pass skips
//! the reduction of huge arguments (`backend/emit/sincos.rs`); a block with
//! such an argument is computed again exactly. Every result must be the bits
//! of the elementwise `jax::math` functions, wherever the huge, infinite and
//! NaN arguments fall: first, inside or last in a block, in the tail.

use jax::prelude::*;

#[jax::jit]
fn grad_like_f32(x: &Array<f32, 1000>) -> Array<f32, 1000> {
    jnp::cos(x) * x + jnp::sin(x)
}

#[jax::jit]
fn sin_f64(x: &Array<f64, 300>) -> Array<f64, 300> {
    jnp::sin(x) * 2.0
}

#[jax::jit]
fn both_f64(x: &Array<f64, 300>) -> (Array<f64, 300>, Array<f64, 300>) {
    (jnp::sin(x), jnp::cos(x) + 1.0)
}

/// Ordinary arguments with special ones planted at block edges and inside.
fn arguments(n: usize) -> Vec<f64> {
    let mut x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 20.0).collect();
    let specials = [
        1e9,
        -3e12,
        4.2e8,
        1e30,
        f64::INFINITY,
        f64::NAN,
        -0.0,
        1e-40,
    ];
    for (k, &at) in [0, 63, 64, 100, 127, 200, n - 5, n - 1].iter().enumerate() {
        x[at] = specials[k % specials.len()];
    }
    x
}

#[test]
fn f32_blocks_with_huge_arguments_match_elementwise() {
    let x: Vec<f32> = arguments(1000).iter().map(|&v| v as f32).collect();
    let got = grad_like_f32(&Array::from_vec(x.clone()).unwrap()).to_vec();
    for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
        let (s, c) = (jax::math::sin_f32(v), jax::math::cos_f32(v));
        let want = c * v + s;
        assert!(
            g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
            "x[{i}] = {v}: got {g}, want {want}"
        );
    }
}

#[test]
fn f64_blocks_with_huge_arguments_match_elementwise() {
    let x = arguments(300);
    let got = sin_f64(&Array::from_vec(x.clone()).unwrap()).to_vec();
    let (s, c) = both_f64(&Array::from_vec(x.clone()).unwrap());
    let (s, c) = (s.to_vec(), c.to_vec());
    for (i, &v) in x.iter().enumerate() {
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let want = jax::math::sin_f64(v);
        assert!(
            same(got[i], want * 2.0),
            "sin(x[{i}] = {v}) * 2: got {}",
            got[i]
        );
        assert!(same(s[i], want), "sin(x[{i}] = {v}): got {}", s[i]);
        assert!(
            same(c[i], jax::math::cos_f64(v) + 1.0),
            "cos(x[{i}] = {v}) + 1: got {}",
            c[i]
        );
    }
}
