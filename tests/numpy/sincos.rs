//! `sincos` (one argument reduction for both `sin` and `cos`) gives the same
//! bits as `sin` and `cos` separately, and jitted code that evaluates both of
//! one value (the derivative of `sin(x) * x`, whose loop uses `sincos`)
//! gives the same values as eager code.

use jax::math::{cos_f32, cos_f64, sin_f32, sin_f64, sincos_f32, sincos_f64};
use jax::prelude::*;

/// f32 inputs: a stride over all bit patterns (every exponent, both signs,
/// subnormals, NaN payloads), plus the special and extreme values.
fn f32_sample() -> Vec<f32> {
    let mut xs: Vec<f32> = (0..=u32::MAX).step_by(4093).map(f32::from_bits).collect();
    xs.extend([
        0.0,
        -0.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        421657428.0, // where the f32 reduction switches to its large path
        -421657428.0,
        1e30,
        std::f32::consts::FRAC_PI_4,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
    ]);
    // Around multiples of pi/2, where the quadrant changes.
    for k in -1000..1000 {
        let x = k as f32 * std::f32::consts::FRAC_PI_2;
        xs.extend([
            x,
            f32::from_bits(x.to_bits() + 1),
            f32::from_bits(x.to_bits().wrapping_sub(1)),
        ]);
    }
    xs
}

#[test]
fn sincos_f32_is_bitwise_sin_and_cos() {
    let xs = f32_sample();
    assert!(xs.len() > 1_000_000);
    for x in xs {
        let (s, c) = sincos_f32(x);
        assert_eq!(
            s.to_bits(),
            sin_f32(x).to_bits(),
            "sin {x:e} ({:#x})",
            x.to_bits()
        );
        assert_eq!(
            c.to_bits(),
            cos_f32(x).to_bits(),
            "cos {x:e} ({:#x})",
            x.to_bits()
        );
    }
}

#[test]
fn sincos_f64_is_bitwise_sin_and_cos() {
    // A stride over the bit patterns (odd, so every exponent and both signs
    // are hit), and values around the huge-argument switch.
    let mut xs: Vec<f64> = (0..1u64 << 20)
        .map(|i| f64::from_bits(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .collect();
    xs.extend([
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::MIN_POSITIVE,
        1e-300,
        -1e-301,
        1647098.9,
        1647099.0,
        -1647099.5,
        1e22,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ]);
    for x in xs {
        let (s, c) = sincos_f64(x);
        assert_eq!(s.to_bits(), sin_f64(x).to_bits(), "sin {x:e}");
        assert_eq!(c.to_bits(), cos_f64(x).to_bits(), "cos {x:e}");
    }
}

#[test]
fn the_kernel_of_each_float_type_matches_sin_and_cos() {
    use jax::__rt::ops;
    for x in [0.3f32, -7.5, 1e5, 3e38, -0.0] {
        let (s, c) = ops::sincos(x);
        assert_eq!(
            (s.to_bits(), c.to_bits()),
            (ops::sin(x).to_bits(), ops::cos(x).to_bits())
        );
        let h = jax::f16::from_f32(x.clamp(-6e4, 6e4));
        let (s, c) = ops::sincos(h);
        assert_eq!(
            (s.to_bits(), c.to_bits()),
            (ops::sin(h).to_bits(), ops::cos(h).to_bits())
        );
        let b = jax::bf16::from_f32(x);
        let (s, c) = ops::sincos(b);
        assert_eq!(
            (s.to_bits(), c.to_bits()),
            (ops::sin(b).to_bits(), ops::cos(b).to_bits())
        );
    }
}

const N: usize = 4099;

/// Both of one value in one fused loop: the emitted loop calls `sincos`.
#[jax::jit]
fn sin_x_plus_cos(x: &Array<f32, N>) -> Array<f32, N> {
    jnp::sin(x) * x + jnp::cos(x)
}

#[jax::jit]
fn sum_sin_times_x(x: &Array<f32, N>) -> Array<f32> {
    jnp::sum(jnp::sin(x) * x)
}

fn inputs() -> Vec<f32> {
    let mut v: Vec<f32> = (0..N)
        .map(|i| ((i as f32) * 0.37 - 700.0) * if i % 3 == 0 { 1e3 } else { 1.0 })
        .collect();
    v[0] = 0.0;
    v[1] = -0.0;
    v[2] = f32::from_bits(5);
    v[3] = 1e30;
    v[4] = f32::NAN;
    v[5] = f32::INFINITY;
    v
}

fn same_bits(a: &[f32], b: &[f32]) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            "{i}: {x} vs {y}"
        );
    }
}

#[test]
fn jitted_sin_and_cos_of_one_value_match_eager() {
    let x = Array::<f32, N>::from_vec(inputs()).unwrap();
    let jit = sin_x_plus_cos(&x);
    let eager = jnp::sin(&x) * &x + jnp::cos(&x);
    same_bits(jit.as_slice(), eager.as_slice());
}

#[test]
fn gradient_of_sin_times_x_is_cos_times_x_plus_sin() {
    let x = Array::<f32, N>::from_vec(inputs()).unwrap();
    let g = sum_sin_times_x::grad(&x);
    // d/dx sin(x) x = cos(x) x + sin(x); the derivative's operation order
    // may differ, so compare within rounding.
    for (i, (&gi, &xi)) in g.as_slice().iter().zip(x.as_slice()).enumerate() {
        let want = cos_f32(xi) * xi + sin_f32(xi);
        if want.is_nan() {
            assert!(gi.is_nan(), "{i}");
        } else {
            let tol = 2.0 * f32::EPSILON * (xi.abs() + 1.0);
            assert!((gi - want).abs() <= tol, "{i}: x {xi}: {gi} vs {want}");
        }
    }
}
