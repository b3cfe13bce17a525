//! One API (tests/one_api.rs): each function of `jnp::` and `lax::` that
//! works in `#[jax::jit]` today, called in a jitted function and in an eager
//! twin with the same body, compared on the same inputs (bit for bit for
//! elementwise results; reductions may round in another order).
//!
//! Each jitted function here is written out (no macro), so that
//! `tests/one_api.rs` sees its calls.

use jax::prelude::*;

/// Jitted and eager agree: the same values, or within a few ulps where the
/// order of accumulation differs.
fn check<A: ArrayType>(what: &str, jit: &A, eager: &A) {
    for (i, (j, e)) in jit.data().iter().zip(eager.data()).enumerate() {
        let (j, e) = (j.to_f64(), e.to_f64());
        let close =
            j == e || (j.is_nan() && e.is_nan()) || (j - e).abs() <= 1e-6 * e.abs().max(1.0);
        assert!(close, "{what}[{i}]: jit {j} vs eager {e}");
    }
}

struct Inputs {
    x: Array<f32, 2, 3>,
    y: Array<f32, 2, 3>,
    z: Array<f32, 2, 3>,
    c: Array<bool, 2, 3>,
    d: Array<bool, 2, 3>,
    n: Array<i32, 2, 3>,
    b: Array<f32, 3, 2>,
    w: Array<f32, 1, 3>,
}

fn inputs() -> Inputs {
    Inputs {
        x: Array::from([[0.3, 0.55, 0.9], [0.1, 0.72, 0.45]]),
        y: Array::from([[0.6, 0.25, 0.95], [0.8, 0.15, 0.5]]),
        z: Array::from([[1.5, 2.0, 1.25], [3.0, 1.75, 2.5]]),
        c: Array::from([[true, false, true], [false, false, true]]),
        d: Array::from([[true, true, false], [false, true, true]]),
        n: Array::from([[3, -7, 0], [12, 5, -1]]),
        b: Array::from([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]]),
        w: Array::from([[0.2, 0.4, 0.8]]),
    }
}

#[jax::jit]
fn jit_jnp_exp(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::exp(x)
}

fn eager_jnp_exp(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::exp(x)
}

#[jax::jit]
fn jit_jnp_exp2(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::exp2(x)
}

fn eager_jnp_exp2(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::exp2(x)
}

#[jax::jit]
fn jit_jnp_log(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::log(x)
}

fn eager_jnp_log(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::log(x)
}

#[jax::jit]
fn jit_jnp_log1p(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::log1p(x)
}

fn eager_jnp_log1p(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::log1p(x)
}

#[jax::jit]
fn jit_jnp_expm1(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::expm1(x)
}

fn eager_jnp_expm1(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::expm1(x)
}

#[jax::jit]
fn jit_jnp_sin(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sin(x)
}

fn eager_jnp_sin(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sin(x)
}

#[jax::jit]
fn jit_jnp_cos(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::cos(x)
}

fn eager_jnp_cos(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::cos(x)
}

#[jax::jit]
fn jit_jnp_tan(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::tan(x)
}

fn eager_jnp_tan(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::tan(x)
}

#[jax::jit]
fn jit_jnp_tanh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::tanh(x)
}

fn eager_jnp_tanh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::tanh(x)
}

#[jax::jit]
fn jit_jnp_sinh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sinh(x)
}

fn eager_jnp_sinh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sinh(x)
}

#[jax::jit]
fn jit_jnp_cosh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::cosh(x)
}

fn eager_jnp_cosh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::cosh(x)
}

#[jax::jit]
fn jit_jnp_arcsin(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arcsin(x)
}

fn eager_jnp_arcsin(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arcsin(x)
}

#[jax::jit]
fn jit_jnp_arccos(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arccos(x)
}

fn eager_jnp_arccos(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arccos(x)
}

#[jax::jit]
fn jit_jnp_arctan(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arctan(x)
}

fn eager_jnp_arctan(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arctan(x)
}

#[jax::jit]
fn jit_jnp_arcsinh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arcsinh(x)
}

fn eager_jnp_arcsinh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arcsinh(x)
}

#[jax::jit]
fn jit_jnp_arctanh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arctanh(x)
}

fn eager_jnp_arctanh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arctanh(x)
}

#[jax::jit]
fn jit_jnp_sqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sqrt(x)
}

fn eager_jnp_sqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sqrt(x)
}

#[jax::jit]
fn jit_jnp_rsqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::rsqrt(x)
}

fn eager_jnp_rsqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::rsqrt(x)
}

#[jax::jit]
fn jit_jnp_cbrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::cbrt(x)
}

fn eager_jnp_cbrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::cbrt(x)
}

#[jax::jit]
fn jit_jnp_logistic(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::logistic(x)
}

fn eager_jnp_logistic(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::logistic(x)
}

#[jax::jit]
fn jit_jnp_sigmoid(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sigmoid(x)
}

fn eager_jnp_sigmoid(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sigmoid(x)
}

#[jax::jit]
fn jit_jnp_erf(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::erf(x)
}

fn eager_jnp_erf(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::erf(x)
}

#[jax::jit]
fn jit_jnp_erfc(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::erfc(x)
}

fn eager_jnp_erfc(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::erfc(x)
}

#[jax::jit]
fn jit_jnp_erf_inv(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::erf_inv(x)
}

fn eager_jnp_erf_inv(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::erf_inv(x)
}

#[jax::jit]
fn jit_jnp_floor(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::floor(x)
}

fn eager_jnp_floor(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::floor(x)
}

#[jax::jit]
fn jit_jnp_ceil(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::ceil(x)
}

fn eager_jnp_ceil(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::ceil(x)
}

#[jax::jit]
fn jit_jnp_round(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::round(x)
}

fn eager_jnp_round(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::round(x)
}

#[jax::jit]
fn jit_jnp_reciprocal(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::reciprocal(x)
}

fn eager_jnp_reciprocal(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::reciprocal(x)
}

#[jax::jit]
fn jit_jnp_arccosh(z: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arccosh(z)
}

fn eager_jnp_arccosh(z: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arccosh(z)
}

#[jax::jit]
fn jit_jnp_abs(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::abs(x)
}

fn eager_jnp_abs(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::abs(x)
}

#[jax::jit]
fn jit_jnp_sign(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sign(x)
}

fn eager_jnp_sign(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::sign(x)
}

#[jax::jit]
fn jit_jnp_negative(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::negative(x)
}

fn eager_jnp_negative(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::negative(x)
}

#[jax::jit]
fn jit_jnp_square(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::square(x)
}

fn eager_jnp_square(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::square(x)
}

#[jax::jit]
fn jit_jnp_logical_not(c: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_not(c)
}

fn eager_jnp_logical_not(c: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_not(c)
}

#[jax::jit]
fn jit_jnp_isnan(x: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::isnan(x)
}

fn eager_jnp_isnan(x: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::isnan(x)
}

#[jax::jit]
fn jit_jnp_add(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::add(x, y)
}

fn eager_jnp_add(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::add(x, y)
}

#[jax::jit]
fn jit_jnp_subtract(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::subtract(x, y)
}

fn eager_jnp_subtract(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::subtract(x, y)
}

#[jax::jit]
fn jit_jnp_multiply(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::multiply(x, y)
}

fn eager_jnp_multiply(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::multiply(x, y)
}

#[jax::jit]
fn jit_jnp_divide(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::divide(x, y)
}

fn eager_jnp_divide(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::divide(x, y)
}

#[jax::jit]
fn jit_jnp_maximum(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::maximum(x, y)
}

fn eager_jnp_maximum(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::maximum(x, y)
}

#[jax::jit]
fn jit_jnp_minimum(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::minimum(x, y)
}

fn eager_jnp_minimum(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::minimum(x, y)
}

#[jax::jit]
fn jit_jnp_arctan2(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arctan2(x, y)
}

fn eager_jnp_arctan2(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::arctan2(x, y)
}

#[jax::jit]
fn jit_jnp_power(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::power(x, y)
}

fn eager_jnp_power(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::power(x, y)
}

#[jax::jit]
fn jit_jnp_less(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::less(x, y)
}

fn eager_jnp_less(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::less(x, y)
}

#[jax::jit]
fn jit_jnp_less_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::less_equal(x, y)
}

fn eager_jnp_less_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::less_equal(x, y)
}

#[jax::jit]
fn jit_jnp_greater(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::greater(x, y)
}

fn eager_jnp_greater(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::greater(x, y)
}

#[jax::jit]
fn jit_jnp_greater_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::greater_equal(x, y)
}

fn eager_jnp_greater_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::greater_equal(x, y)
}

#[jax::jit]
fn jit_jnp_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::equal(x, y)
}

fn eager_jnp_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::equal(x, y)
}

#[jax::jit]
fn jit_jnp_not_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::not_equal(x, y)
}

fn eager_jnp_not_equal(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::not_equal(x, y)
}

#[jax::jit]
fn jit_jnp_logical_and(c: &Array<bool, 2, 3>, d: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_and(c, d)
}

fn eager_jnp_logical_and(c: &Array<bool, 2, 3>, d: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_and(c, d)
}

#[jax::jit]
fn jit_jnp_logical_or(c: &Array<bool, 2, 3>, d: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_or(c, d)
}

fn eager_jnp_logical_or(c: &Array<bool, 2, 3>, d: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_or(c, d)
}

#[jax::jit]
fn jit_jnp_logical_xor(c: &Array<bool, 2, 3>, d: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_xor(c, d)
}

fn eager_jnp_logical_xor(c: &Array<bool, 2, 3>, d: &Array<bool, 2, 3>) -> Array<bool, 2, 3> {
    jnp::logical_xor(c, d)
}

#[jax::jit]
fn jit_jnp_where_(
    c: &Array<bool, 2, 3>,
    x: &Array<f32, 2, 3>,
    y: &Array<f32, 2, 3>,
) -> Array<f32, 2, 3> {
    jnp::where_(c, x, y)
}

fn eager_jnp_where_(
    c: &Array<bool, 2, 3>,
    x: &Array<f32, 2, 3>,
    y: &Array<f32, 2, 3>,
) -> Array<f32, 2, 3> {
    jnp::where_(c, x, y)
}

#[jax::jit]
fn jit_jnp_clip(
    x: &Array<f32, 2, 3>,
    y: &Array<f32, 2, 3>,
    z: &Array<f32, 2, 3>,
) -> Array<f32, 2, 3> {
    jnp::clip(x, y, z)
}

fn eager_jnp_clip(
    x: &Array<f32, 2, 3>,
    y: &Array<f32, 2, 3>,
    z: &Array<f32, 2, 3>,
) -> Array<f32, 2, 3> {
    jnp::clip(x, y, z)
}

#[jax::jit]
fn jit_jnp_sum(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::sum(x)
}

fn eager_jnp_sum(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::sum(x)
}

#[jax::jit]
fn jit_jnp_prod(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::prod(x)
}

fn eager_jnp_prod(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::prod(x)
}

#[jax::jit]
fn jit_jnp_max(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::max(x)
}

fn eager_jnp_max(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::max(x)
}

#[jax::jit]
fn jit_jnp_min(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::min(x)
}

fn eager_jnp_min(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::min(x)
}

#[jax::jit]
fn jit_jnp_mean(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::mean(x)
}

fn eager_jnp_mean(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::mean(x)
}

#[jax::jit]
fn jit_jnp_logsumexp(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::logsumexp(x)
}

fn eager_jnp_logsumexp(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::logsumexp(x)
}

#[jax::jit]
fn jit_jnp_polyval(w: &Array<f32, 1, 3>, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::polyval(w, x)
}

fn eager_jnp_polyval(w: &Array<f32, 1, 3>, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::polyval(w, x)
}

#[jax::jit]
fn jit_jnp_any(c: &Array<bool, 2, 3>) -> Array<bool> {
    jnp::any(c)
}

fn eager_jnp_any(c: &Array<bool, 2, 3>) -> Array<bool> {
    jnp::any(c)
}

#[jax::jit]
fn jit_jnp_all(c: &Array<bool, 2, 3>) -> Array<bool> {
    jnp::all(c)
}

fn eager_jnp_all(c: &Array<bool, 2, 3>) -> Array<bool> {
    jnp::all(c)
}

#[jax::jit]
fn jit_jnp_sum_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::sum_axis(x, 1, false)
}

fn eager_jnp_sum_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::sum_axis(x, 1, false)
}

#[jax::jit]
fn jit_jnp_prod_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::prod_axis(x, 1, false)
}

fn eager_jnp_prod_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::prod_axis(x, 1, false)
}

#[jax::jit]
fn jit_jnp_max_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::max_axis(x, 1, false)
}

fn eager_jnp_max_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::max_axis(x, 1, false)
}

#[jax::jit]
fn jit_jnp_min_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::min_axis(x, 1, false)
}

fn eager_jnp_min_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::min_axis(x, 1, false)
}

#[jax::jit]
fn jit_jnp_mean_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::mean_axis(x, 1, false)
}

fn eager_jnp_mean_axis(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::mean_axis(x, 1, false)
}

#[jax::jit]
fn jit_jnp_any_axis(c: &Array<bool, 2, 3>) -> Array<bool, 1, 3> {
    jnp::any_axis(c, 0, true)
}

fn eager_jnp_any_axis(c: &Array<bool, 2, 3>) -> Array<bool, 1, 3> {
    jnp::any_axis(c, 0, true)
}

#[jax::jit]
fn jit_jnp_all_axis(c: &Array<bool, 2, 3>) -> Array<bool, 1, 3> {
    jnp::all_axis(c, 0, true)
}

fn eager_jnp_all_axis(c: &Array<bool, 2, 3>) -> Array<bool, 1, 3> {
    jnp::all_axis(c, 0, true)
}

#[jax::jit]
fn jit_jnp_argmax(x: &Array<f32, 2, 3>) -> Array<DefaultInt> {
    jnp::argmax(x)
}

fn eager_jnp_argmax(x: &Array<f32, 2, 3>) -> Array<DefaultInt> {
    jnp::argmax(x)
}

#[jax::jit]
fn jit_jnp_argmin(x: &Array<f32, 2, 3>) -> Array<DefaultInt> {
    jnp::argmin(x)
}

fn eager_jnp_argmin(x: &Array<f32, 2, 3>) -> Array<DefaultInt> {
    jnp::argmin(x)
}

#[jax::jit]
fn jit_jnp_softmax(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::softmax(x, -1)
}

fn eager_jnp_softmax(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::softmax(x, -1)
}

#[jax::jit]
fn jit_jnp_log_softmax(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::log_softmax(x, -1)
}

fn eager_jnp_log_softmax(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::log_softmax(x, -1)
}

#[jax::jit]
fn jit_jnp_matmul(x: &Array<f32, 2, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 2, 2> {
    jnp::matmul(x, b)
}

fn eager_jnp_matmul(x: &Array<f32, 2, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 2, 2> {
    jnp::matmul(x, b)
}

#[jax::jit]
fn jit_jnp_dot(x: &Array<f32, 2, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 2, 2> {
    jnp::dot(x, b)
}

fn eager_jnp_dot(x: &Array<f32, 2, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 2, 2> {
    jnp::dot(x, b)
}

#[jax::jit]
fn jit_jnp_transpose(x: &Array<f32, 2, 3>) -> Array<f32, 3, 2> {
    jnp::transpose(x)
}

fn eager_jnp_transpose(x: &Array<f32, 2, 3>) -> Array<f32, 3, 2> {
    jnp::transpose(x)
}

#[jax::jit]
fn jit_jnp_reshape(x: &Array<f32, 2, 3>) -> Array<f32, 3, 2> {
    jnp::reshape(x)
}

fn eager_jnp_reshape(x: &Array<f32, 2, 3>) -> Array<f32, 3, 2> {
    jnp::reshape(x)
}

#[jax::jit]
fn jit_jnp_ravel(x: &Array<f32, 2, 3>) -> Array<f32, 6> {
    jnp::ravel(x)
}

fn eager_jnp_ravel(x: &Array<f32, 2, 3>) -> Array<f32, 6> {
    jnp::ravel(x)
}

#[jax::jit]
fn jit_jnp_broadcast_to(x: &Array<f32, 2, 3>) -> Array<f32, 4, 2, 3> {
    jnp::broadcast_to(x)
}

fn eager_jnp_broadcast_to(x: &Array<f32, 2, 3>) -> Array<f32, 4, 2, 3> {
    jnp::broadcast_to(x)
}

#[jax::jit]
fn jit_jnp_expand_dims(x: &Array<f32, 2, 3>) -> Array<f32, 2, 1, 3> {
    jnp::expand_dims(x, 1)
}

fn eager_jnp_expand_dims(x: &Array<f32, 2, 3>) -> Array<f32, 2, 1, 3> {
    jnp::expand_dims(x, 1)
}

#[jax::jit]
fn jit_jnp_squeeze(w: &Array<f32, 1, 3>) -> Array<f32, 3> {
    jnp::squeeze(w)
}

fn eager_jnp_squeeze(w: &Array<f32, 1, 3>) -> Array<f32, 3> {
    jnp::squeeze(w)
}

#[jax::jit]
fn jit_jnp_concatenate(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 4, 3> {
    jnp::concatenate((x, y), 0)
}

fn eager_jnp_concatenate(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 4, 3> {
    jnp::concatenate((x, y), 0)
}

#[jax::jit]
fn jit_jnp_stack(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 2, 3> {
    jnp::stack((x, y), 0)
}

fn eager_jnp_stack(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 2, 3> {
    jnp::stack((x, y), 0)
}

#[jax::jit]
fn jit_lax_abs(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::abs(x)
}

fn eager_lax_abs(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::abs(x)
}

#[jax::jit]
fn jit_lax_ceil(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::ceil(x)
}

fn eager_lax_ceil(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::ceil(x)
}

#[jax::jit]
fn jit_lax_cos(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::cos(x)
}

fn eager_lax_cos(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::cos(x)
}

#[jax::jit]
fn jit_lax_erf(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::erf(x)
}

fn eager_lax_erf(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::erf(x)
}

#[jax::jit]
fn jit_lax_exp(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::exp(x)
}

fn eager_lax_exp(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::exp(x)
}

#[jax::jit]
fn jit_lax_expm1(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::expm1(x)
}

fn eager_lax_expm1(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::expm1(x)
}

#[jax::jit]
fn jit_lax_floor(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::floor(x)
}

fn eager_lax_floor(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::floor(x)
}

#[jax::jit]
fn jit_lax_log(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::log(x)
}

fn eager_lax_log(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::log(x)
}

#[jax::jit]
fn jit_lax_log1p(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::log1p(x)
}

fn eager_lax_log1p(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::log1p(x)
}

#[jax::jit]
fn jit_lax_logistic(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::logistic(x)
}

fn eager_lax_logistic(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::logistic(x)
}

#[jax::jit]
fn jit_lax_sign(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::sign(x)
}

fn eager_lax_sign(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::sign(x)
}

#[jax::jit]
fn jit_lax_sin(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::sin(x)
}

fn eager_lax_sin(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::sin(x)
}

#[jax::jit]
fn jit_lax_sqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::sqrt(x)
}

fn eager_lax_sqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::sqrt(x)
}

#[jax::jit]
fn jit_lax_rsqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::rsqrt(x)
}

fn eager_lax_rsqrt(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::rsqrt(x)
}

#[jax::jit]
fn jit_lax_tanh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::tanh(x)
}

fn eager_lax_tanh(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::tanh(x)
}

#[jax::jit]
fn jit_lax_neg(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::neg(x)
}

fn eager_lax_neg(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::neg(x)
}

#[jax::jit]
fn jit_lax_bitwise_not(n: &Array<i32, 2, 3>) -> Array<i32, 2, 3> {
    lax::bitwise_not(n)
}

fn eager_lax_bitwise_not(n: &Array<i32, 2, 3>) -> Array<i32, 2, 3> {
    lax::bitwise_not(n)
}

#[jax::jit]
fn jit_lax_integer_pow(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::integer_pow(x, 3)
}

fn eager_lax_integer_pow(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::integer_pow(x, 3)
}

#[jax::jit]
fn jit_lax_round(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::round(x, lax::RoundingMethod::ToNearestEven)
}

fn eager_lax_round(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::round(x, lax::RoundingMethod::ToNearestEven)
}

#[jax::jit]
fn jit_lax_pow(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::pow(x, y)
}

fn eager_lax_pow(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::pow(x, y)
}

#[jax::jit]
fn jit_lax_select(
    c: &Array<bool, 2, 3>,
    x: &Array<f32, 2, 3>,
    y: &Array<f32, 2, 3>,
) -> Array<f32, 2, 3> {
    lax::select(c, x, y)
}

fn eager_lax_select(
    c: &Array<bool, 2, 3>,
    x: &Array<f32, 2, 3>,
    y: &Array<f32, 2, 3>,
) -> Array<f32, 2, 3> {
    lax::select(c, x, y)
}

#[jax::jit]
fn jit_lax_argmax(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2> {
    lax::argmax(x, 1)
}

fn eager_lax_argmax(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2> {
    lax::argmax(x, 1)
}

#[jax::jit]
fn jit_lax_argmin(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2> {
    lax::argmin(x, 1)
}

fn eager_lax_argmin(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2> {
    lax::argmin(x, 1)
}

#[jax::jit]
fn jit_lax_dot(x: &Array<f32, 2, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 2, 2> {
    lax::dot(x, b)
}

fn eager_lax_dot(x: &Array<f32, 2, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 2, 2> {
    lax::dot(x, b)
}

#[jax::jit]
fn jit_lax_concatenate(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 6> {
    lax::concatenate((x, y), 1)
}

fn eager_lax_concatenate(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 2, 6> {
    lax::concatenate((x, y), 1)
}

#[jax::jit]
fn jit_lax_transpose(x: &Array<f32, 2, 3>) -> Array<f32, 3, 2> {
    lax::transpose(x, &[1, 0])
}

fn eager_lax_transpose(x: &Array<f32, 2, 3>) -> Array<f32, 3, 2> {
    lax::transpose(x, &[1, 0])
}

#[jax::jit]
fn jit_lax_reshape(x: &Array<f32, 2, 3>) -> Array<f32, 6> {
    lax::reshape(x)
}

fn eager_lax_reshape(x: &Array<f32, 2, 3>) -> Array<f32, 6> {
    lax::reshape(x)
}

#[jax::jit]
fn jit_lax_squeeze(w: &Array<f32, 1, 3>) -> Array<f32, 3> {
    lax::squeeze(w, &[0])
}

fn eager_lax_squeeze(w: &Array<f32, 1, 3>) -> Array<f32, 3> {
    lax::squeeze(w, &[0])
}

#[jax::jit]
fn jit_lax_expand_dims(x: &Array<f32, 2, 3>) -> Array<f32, 1, 2, 3> {
    lax::expand_dims(x, &[0])
}

fn eager_lax_expand_dims(x: &Array<f32, 2, 3>) -> Array<f32, 1, 2, 3> {
    lax::expand_dims(x, &[0])
}

#[test]
fn jitted_equals_eager() {
    let i = inputs();
    check("jnp::exp", &jit_jnp_exp(&i.x), &eager_jnp_exp(&i.x));
    check("jnp::exp2", &jit_jnp_exp2(&i.x), &eager_jnp_exp2(&i.x));
    check("jnp::log", &jit_jnp_log(&i.x), &eager_jnp_log(&i.x));
    check("jnp::log1p", &jit_jnp_log1p(&i.x), &eager_jnp_log1p(&i.x));
    check("jnp::expm1", &jit_jnp_expm1(&i.x), &eager_jnp_expm1(&i.x));
    check("jnp::sin", &jit_jnp_sin(&i.x), &eager_jnp_sin(&i.x));
    check("jnp::cos", &jit_jnp_cos(&i.x), &eager_jnp_cos(&i.x));
    check("jnp::tan", &jit_jnp_tan(&i.x), &eager_jnp_tan(&i.x));
    check("jnp::tanh", &jit_jnp_tanh(&i.x), &eager_jnp_tanh(&i.x));
    check("jnp::sinh", &jit_jnp_sinh(&i.x), &eager_jnp_sinh(&i.x));
    check("jnp::cosh", &jit_jnp_cosh(&i.x), &eager_jnp_cosh(&i.x));
    check(
        "jnp::arcsin",
        &jit_jnp_arcsin(&i.x),
        &eager_jnp_arcsin(&i.x),
    );
    check(
        "jnp::arccos",
        &jit_jnp_arccos(&i.x),
        &eager_jnp_arccos(&i.x),
    );
    check(
        "jnp::arctan",
        &jit_jnp_arctan(&i.x),
        &eager_jnp_arctan(&i.x),
    );
    check(
        "jnp::arcsinh",
        &jit_jnp_arcsinh(&i.x),
        &eager_jnp_arcsinh(&i.x),
    );
    check(
        "jnp::arctanh",
        &jit_jnp_arctanh(&i.x),
        &eager_jnp_arctanh(&i.x),
    );
    check("jnp::sqrt", &jit_jnp_sqrt(&i.x), &eager_jnp_sqrt(&i.x));
    check("jnp::rsqrt", &jit_jnp_rsqrt(&i.x), &eager_jnp_rsqrt(&i.x));
    check("jnp::cbrt", &jit_jnp_cbrt(&i.x), &eager_jnp_cbrt(&i.x));
    check(
        "jnp::logistic",
        &jit_jnp_logistic(&i.x),
        &eager_jnp_logistic(&i.x),
    );
    check(
        "jnp::sigmoid",
        &jit_jnp_sigmoid(&i.x),
        &eager_jnp_sigmoid(&i.x),
    );
    check("jnp::erf", &jit_jnp_erf(&i.x), &eager_jnp_erf(&i.x));
    check("jnp::erfc", &jit_jnp_erfc(&i.x), &eager_jnp_erfc(&i.x));
    check(
        "jnp::erf_inv",
        &jit_jnp_erf_inv(&i.x),
        &eager_jnp_erf_inv(&i.x),
    );
    check("jnp::floor", &jit_jnp_floor(&i.x), &eager_jnp_floor(&i.x));
    check("jnp::ceil", &jit_jnp_ceil(&i.x), &eager_jnp_ceil(&i.x));
    check("jnp::round", &jit_jnp_round(&i.x), &eager_jnp_round(&i.x));
    check(
        "jnp::reciprocal",
        &jit_jnp_reciprocal(&i.x),
        &eager_jnp_reciprocal(&i.x),
    );
    check(
        "jnp::arccosh",
        &jit_jnp_arccosh(&i.z),
        &eager_jnp_arccosh(&i.z),
    );
    check("jnp::abs", &jit_jnp_abs(&i.x), &eager_jnp_abs(&i.x));
    check("jnp::sign", &jit_jnp_sign(&i.x), &eager_jnp_sign(&i.x));
    check(
        "jnp::negative",
        &jit_jnp_negative(&i.x),
        &eager_jnp_negative(&i.x),
    );
    check(
        "jnp::square",
        &jit_jnp_square(&i.x),
        &eager_jnp_square(&i.x),
    );
    check(
        "jnp::logical_not",
        &jit_jnp_logical_not(&i.c),
        &eager_jnp_logical_not(&i.c),
    );
    check("jnp::isnan", &jit_jnp_isnan(&i.x), &eager_jnp_isnan(&i.x));
    check(
        "jnp::add",
        &jit_jnp_add(&i.x, &i.y),
        &eager_jnp_add(&i.x, &i.y),
    );
    check(
        "jnp::subtract",
        &jit_jnp_subtract(&i.x, &i.y),
        &eager_jnp_subtract(&i.x, &i.y),
    );
    check(
        "jnp::multiply",
        &jit_jnp_multiply(&i.x, &i.y),
        &eager_jnp_multiply(&i.x, &i.y),
    );
    check(
        "jnp::divide",
        &jit_jnp_divide(&i.x, &i.y),
        &eager_jnp_divide(&i.x, &i.y),
    );
    check(
        "jnp::maximum",
        &jit_jnp_maximum(&i.x, &i.y),
        &eager_jnp_maximum(&i.x, &i.y),
    );
    check(
        "jnp::minimum",
        &jit_jnp_minimum(&i.x, &i.y),
        &eager_jnp_minimum(&i.x, &i.y),
    );
    check(
        "jnp::arctan2",
        &jit_jnp_arctan2(&i.x, &i.y),
        &eager_jnp_arctan2(&i.x, &i.y),
    );
    check(
        "jnp::power",
        &jit_jnp_power(&i.x, &i.y),
        &eager_jnp_power(&i.x, &i.y),
    );
    check(
        "jnp::less",
        &jit_jnp_less(&i.x, &i.y),
        &eager_jnp_less(&i.x, &i.y),
    );
    check(
        "jnp::less_equal",
        &jit_jnp_less_equal(&i.x, &i.y),
        &eager_jnp_less_equal(&i.x, &i.y),
    );
    check(
        "jnp::greater",
        &jit_jnp_greater(&i.x, &i.y),
        &eager_jnp_greater(&i.x, &i.y),
    );
    check(
        "jnp::greater_equal",
        &jit_jnp_greater_equal(&i.x, &i.y),
        &eager_jnp_greater_equal(&i.x, &i.y),
    );
    check(
        "jnp::equal",
        &jit_jnp_equal(&i.x, &i.y),
        &eager_jnp_equal(&i.x, &i.y),
    );
    check(
        "jnp::not_equal",
        &jit_jnp_not_equal(&i.x, &i.y),
        &eager_jnp_not_equal(&i.x, &i.y),
    );
    check(
        "jnp::logical_and",
        &jit_jnp_logical_and(&i.c, &i.d),
        &eager_jnp_logical_and(&i.c, &i.d),
    );
    check(
        "jnp::logical_or",
        &jit_jnp_logical_or(&i.c, &i.d),
        &eager_jnp_logical_or(&i.c, &i.d),
    );
    check(
        "jnp::logical_xor",
        &jit_jnp_logical_xor(&i.c, &i.d),
        &eager_jnp_logical_xor(&i.c, &i.d),
    );
    check(
        "jnp::where_",
        &jit_jnp_where_(&i.c, &i.x, &i.y),
        &eager_jnp_where_(&i.c, &i.x, &i.y),
    );
    check(
        "jnp::clip",
        &jit_jnp_clip(&i.x, &i.y, &i.z),
        &eager_jnp_clip(&i.x, &i.y, &i.z),
    );
    check("jnp::sum", &jit_jnp_sum(&i.x), &eager_jnp_sum(&i.x));
    check("jnp::prod", &jit_jnp_prod(&i.x), &eager_jnp_prod(&i.x));
    check("jnp::max", &jit_jnp_max(&i.x), &eager_jnp_max(&i.x));
    check("jnp::min", &jit_jnp_min(&i.x), &eager_jnp_min(&i.x));
    check("jnp::mean", &jit_jnp_mean(&i.x), &eager_jnp_mean(&i.x));
    check(
        "jnp::logsumexp",
        &jit_jnp_logsumexp(&i.x),
        &eager_jnp_logsumexp(&i.x),
    );
    check(
        "jnp::polyval",
        &jit_jnp_polyval(&i.w, &i.x),
        &eager_jnp_polyval(&i.w, &i.x),
    );
    check("jnp::any", &jit_jnp_any(&i.c), &eager_jnp_any(&i.c));
    check("jnp::all", &jit_jnp_all(&i.c), &eager_jnp_all(&i.c));
    check(
        "jnp::sum_axis",
        &jit_jnp_sum_axis(&i.x),
        &eager_jnp_sum_axis(&i.x),
    );
    check(
        "jnp::prod_axis",
        &jit_jnp_prod_axis(&i.x),
        &eager_jnp_prod_axis(&i.x),
    );
    check(
        "jnp::max_axis",
        &jit_jnp_max_axis(&i.x),
        &eager_jnp_max_axis(&i.x),
    );
    check(
        "jnp::min_axis",
        &jit_jnp_min_axis(&i.x),
        &eager_jnp_min_axis(&i.x),
    );
    check(
        "jnp::mean_axis",
        &jit_jnp_mean_axis(&i.x),
        &eager_jnp_mean_axis(&i.x),
    );
    check(
        "jnp::any_axis",
        &jit_jnp_any_axis(&i.c),
        &eager_jnp_any_axis(&i.c),
    );
    check(
        "jnp::all_axis",
        &jit_jnp_all_axis(&i.c),
        &eager_jnp_all_axis(&i.c),
    );
    check(
        "jnp::argmax",
        &jit_jnp_argmax(&i.x),
        &eager_jnp_argmax(&i.x),
    );
    check(
        "jnp::argmin",
        &jit_jnp_argmin(&i.x),
        &eager_jnp_argmin(&i.x),
    );
    check(
        "jnp::softmax",
        &jit_jnp_softmax(&i.x),
        &eager_jnp_softmax(&i.x),
    );
    check(
        "jnp::log_softmax",
        &jit_jnp_log_softmax(&i.x),
        &eager_jnp_log_softmax(&i.x),
    );
    check(
        "jnp::matmul",
        &jit_jnp_matmul(&i.x, &i.b),
        &eager_jnp_matmul(&i.x, &i.b),
    );
    check(
        "jnp::dot",
        &jit_jnp_dot(&i.x, &i.b),
        &eager_jnp_dot(&i.x, &i.b),
    );
    check(
        "jnp::transpose",
        &jit_jnp_transpose(&i.x),
        &eager_jnp_transpose(&i.x),
    );
    check(
        "jnp::reshape",
        &jit_jnp_reshape(&i.x),
        &eager_jnp_reshape(&i.x),
    );
    check("jnp::ravel", &jit_jnp_ravel(&i.x), &eager_jnp_ravel(&i.x));
    check(
        "jnp::broadcast_to",
        &jit_jnp_broadcast_to(&i.x),
        &eager_jnp_broadcast_to(&i.x),
    );
    check(
        "jnp::expand_dims",
        &jit_jnp_expand_dims(&i.x),
        &eager_jnp_expand_dims(&i.x),
    );
    check(
        "jnp::squeeze",
        &jit_jnp_squeeze(&i.w),
        &eager_jnp_squeeze(&i.w),
    );
    check(
        "jnp::concatenate",
        &jit_jnp_concatenate(&i.x, &i.y),
        &eager_jnp_concatenate(&i.x, &i.y),
    );
    check(
        "jnp::stack",
        &jit_jnp_stack(&i.x, &i.y),
        &eager_jnp_stack(&i.x, &i.y),
    );
    check("lax::abs", &jit_lax_abs(&i.x), &eager_lax_abs(&i.x));
    check("lax::ceil", &jit_lax_ceil(&i.x), &eager_lax_ceil(&i.x));
    check("lax::cos", &jit_lax_cos(&i.x), &eager_lax_cos(&i.x));
    check("lax::erf", &jit_lax_erf(&i.x), &eager_lax_erf(&i.x));
    check("lax::exp", &jit_lax_exp(&i.x), &eager_lax_exp(&i.x));
    check("lax::expm1", &jit_lax_expm1(&i.x), &eager_lax_expm1(&i.x));
    check("lax::floor", &jit_lax_floor(&i.x), &eager_lax_floor(&i.x));
    check("lax::log", &jit_lax_log(&i.x), &eager_lax_log(&i.x));
    check("lax::log1p", &jit_lax_log1p(&i.x), &eager_lax_log1p(&i.x));
    check(
        "lax::logistic",
        &jit_lax_logistic(&i.x),
        &eager_lax_logistic(&i.x),
    );
    check("lax::sign", &jit_lax_sign(&i.x), &eager_lax_sign(&i.x));
    check("lax::sin", &jit_lax_sin(&i.x), &eager_lax_sin(&i.x));
    check("lax::sqrt", &jit_lax_sqrt(&i.x), &eager_lax_sqrt(&i.x));
    check("lax::rsqrt", &jit_lax_rsqrt(&i.x), &eager_lax_rsqrt(&i.x));
    check("lax::tanh", &jit_lax_tanh(&i.x), &eager_lax_tanh(&i.x));
    check("lax::neg", &jit_lax_neg(&i.x), &eager_lax_neg(&i.x));
    check(
        "lax::bitwise_not",
        &jit_lax_bitwise_not(&i.n),
        &eager_lax_bitwise_not(&i.n),
    );
    check(
        "lax::integer_pow",
        &jit_lax_integer_pow(&i.x),
        &eager_lax_integer_pow(&i.x),
    );
    check("lax::round", &jit_lax_round(&i.x), &eager_lax_round(&i.x));
    check(
        "lax::pow",
        &jit_lax_pow(&i.x, &i.y),
        &eager_lax_pow(&i.x, &i.y),
    );
    check(
        "lax::select",
        &jit_lax_select(&i.c, &i.x, &i.y),
        &eager_lax_select(&i.c, &i.x, &i.y),
    );
    check(
        "lax::argmax",
        &jit_lax_argmax(&i.x),
        &eager_lax_argmax(&i.x),
    );
    check(
        "lax::argmin",
        &jit_lax_argmin(&i.x),
        &eager_lax_argmin(&i.x),
    );
    check(
        "lax::dot",
        &jit_lax_dot(&i.x, &i.b),
        &eager_lax_dot(&i.x, &i.b),
    );
    check(
        "lax::concatenate",
        &jit_lax_concatenate(&i.x, &i.y),
        &eager_lax_concatenate(&i.x, &i.y),
    );
    check(
        "lax::transpose",
        &jit_lax_transpose(&i.x),
        &eager_lax_transpose(&i.x),
    );
    check(
        "lax::reshape",
        &jit_lax_reshape(&i.x),
        &eager_lax_reshape(&i.x),
    );
    check(
        "lax::squeeze",
        &jit_lax_squeeze(&i.w),
        &eager_lax_squeeze(&i.w),
    );
    check(
        "lax::expand_dims",
        &jit_lax_expand_dims(&i.x),
        &eager_lax_expand_dims(&i.x),
    );
}

// Control flow: the jitted closures are typed as jit bodies take them; the
// eager twins are the same programs written for the eager functions.

#[jax::jit]
fn jit_lax_cond(p: Array<f32>, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::cond(
        p.gt(0.0),
        |x: Array<f32, 2, 3>| jnp::sin(x),
        |x: Array<f32, 2, 3>| jnp::cos(x),
        x.clone(),
    )
}

fn eager_lax_cond(p: Array<f32>, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::cond(
        p.item() > 0.0,
        |x: Array<f32, 2, 3>| jnp::sin(x),
        |x: Array<f32, 2, 3>| jnp::cos(x),
        x.clone(),
    )
}

#[jax::jit]
fn jit_lax_switch(i: i32, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::switch(
        i,
        [
            |x: Array<f32, 2, 3>| jnp::sin(x),
            |x: Array<f32, 2, 3>| jnp::exp(x),
        ],
        x.clone(),
    )
}

fn eager_lax_switch(i: i32, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    let branches: [&dyn Fn(Array<f32, 2, 3>) -> Array<f32, 2, 3>; 2] =
        [&|x| jnp::sin(x), &|x| jnp::exp(x)];
    lax::switch(i as i64, &branches, x.clone())
}

#[jax::jit]
fn jit_lax_fori_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::fori_loop(0, 3, |_i, c: Array<f32, 2, 3>| jnp::sin(c) + x, x.clone())
}

fn eager_lax_fori_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::fori_loop(0, 3, |_i, c: Array<f32, 2, 3>| jnp::sin(c) + x, x.clone())
}

#[jax::jit]
fn jit_lax_while_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    let (_, y) = lax::while_loop(
        |c: (Array<DefaultInt>, Array<f32, 2, 3>)| c.0.lt(4),
        |(i, y)| (i + 1, jnp::sqrt(y) + x),
        (0, x.clone()),
    );
    y
}

fn eager_lax_while_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    let (_, y) = lax::while_loop(
        |c: &(i32, Array<f32, 2, 3>)| c.0 < 4,
        |(i, y)| (i + 1, jnp::sqrt(y) + x),
        (0, x.clone()),
    );
    y
}

#[jax::jit]
fn jit_lax_scan(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        jnp::zeros_like(x.at(0).get::<Array<f32, 3>>()),
        x.clone(),
    )
}

fn eager_lax_scan(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        Array::<f32, 3>::zeros(),
        x.clone(),
    )
}

#[jax::jit]
fn jit_lax_scan_with(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan_with(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        jnp::zeros_like(x.at(0).get::<Array<f32, 3>>()),
        x.clone(),
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    )
}

fn eager_lax_scan_with(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan_with(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        Array::<f32, 3>::zeros(),
        x.clone(),
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    )
}

#[test]
fn control_flow_jitted_equals_eager() {
    let i = inputs();
    for p in [1.0f32, -1.0] {
        let p = Array::from(p);
        check(
            "lax::cond",
            &jit_lax_cond(p.clone(), &i.x),
            &eager_lax_cond(p, &i.x),
        );
    }
    for k in [0, 1, 5] {
        check(
            "lax::switch",
            &jit_lax_switch(k, &i.x),
            &eager_lax_switch(k, &i.x),
        );
    }
    check(
        "lax::fori_loop",
        &jit_lax_fori_loop(&i.x),
        &eager_lax_fori_loop(&i.x),
    );
    check(
        "lax::while_loop",
        &jit_lax_while_loop(&i.x),
        &eager_lax_while_loop(&i.x),
    );
    let (jc, jy) = jit_lax_scan(&i.x);
    let (ec, ey) = eager_lax_scan(&i.x);
    check("lax::scan carry", &jc, &ec);
    check("lax::scan ys", &jy, &ey);
    let (jc, jy) = jit_lax_scan_with(&i.x);
    let (ec, ey) = eager_lax_scan_with(&i.x);
    check("lax::scan_with carry", &jc, &ec);
    check("lax::scan_with ys", &jy, &ey);
}

// Eager spellings brought to jit on this branch (compiler/src/frontend/lib/lax/dot.rs).

#[jax::jit]
fn jit_jnp_argmax_axis(x: &Array<f32, 2, 3>) -> (Array<DefaultInt, 2>, Array<DefaultInt, 1, 3>) {
    (jnp::argmax_axis(x, 1, false), jnp::argmax_axis(x, 0, true))
}

fn eager_jnp_argmax_axis(x: &Array<f32, 2, 3>) -> (Array<DefaultInt, 2>, Array<DefaultInt, 1, 3>) {
    (jnp::argmax_axis(x, 1, false), jnp::argmax_axis(x, 0, true))
}

#[jax::jit]
fn jit_jnp_argmin_axis(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2, 1> {
    jnp::argmin_axis(x, -1, true)
}

fn eager_jnp_argmin_axis(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2, 1> {
    jnp::argmin_axis(x, -1, true)
}

#[jax::jit]
fn jit_lax_reductions(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f32, 3>, Array<i32, 2>, Array<f32>, Array<i32, 3>) {
    (
        lax::reduce_sum(x, &[0]),
        lax::reduce_prod(n, &[1]),
        lax::reduce_max(x, &[0, 1]),
        lax::reduce_min(n, &[0]),
    )
}

fn eager_lax_reductions(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f32, 3>, Array<i32, 2>, Array<f32>, Array<i32, 3>) {
    (
        lax::reduce_sum(x, &[0]),
        lax::reduce_prod(n, &[1]),
        lax::reduce_max(x, &[0, 1]),
        lax::reduce_min(n, &[0]),
    )
}

#[jax::jit]
fn jit_lax_broadcast_in_dim(w: &Array<f32, 1, 3>) -> Array<f32, 2, 1, 3> {
    lax::broadcast_in_dim(w, &[1, 2])
}

fn eager_lax_broadcast_in_dim(w: &Array<f32, 1, 3>) -> Array<f32, 2, 1, 3> {
    lax::broadcast_in_dim(w, &[1, 2])
}

#[jax::jit]
fn jit_lax_convert_element_type(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f64, 2, 3>, Array<f32, 2, 3>) {
    (
        lax::convert_element_type::<f64, _>(x),
        lax::convert_element_type::<f32, _>(n),
    )
}

fn eager_lax_convert_element_type(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f64, 2, 3>, Array<f32, 2, 3>) {
    (
        lax::convert_element_type::<f64, _>(x),
        lax::convert_element_type::<f32, _>(n),
    )
}

#[jax::jit]
fn jit_lax_dot_general(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 3, 3> {
    lax::dot_general(x, y, ((&[0], &[0]), (&[], &[])))
}

fn eager_lax_dot_general(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 3, 3> {
    lax::dot_general(x, y, ((&[0], &[0]), (&[], &[])))
}

#[jax::jit]
fn jit_batch_matmul(
    a: &Array<f32, 2, 1, 3>,
    b: &Array<f32, 2, 3, 2>,
) -> (Array<f32, 2, 1, 2>, Array<f32, 2, 1, 2>) {
    (jnp::batch_matmul(a, b), lax::batch_matmul(a, b))
}

fn eager_batch_matmul(
    a: &Array<f32, 2, 1, 3>,
    b: &Array<f32, 2, 3, 2>,
) -> (Array<f32, 2, 1, 2>, Array<f32, 2, 1, 2>) {
    (jnp::batch_matmul(a, b), lax::batch_matmul(a, b))
}

#[test]
fn eager_spellings_jitted_equals_eager() {
    let i = inputs();
    let (a, b) = jit_jnp_argmax_axis(&i.x);
    let (c, d) = eager_jnp_argmax_axis(&i.x);
    check("jnp::argmax_axis", &a, &c);
    check("jnp::argmax_axis keepdims", &b, &d);
    check(
        "jnp::argmin_axis",
        &jit_jnp_argmin_axis(&i.x),
        &eager_jnp_argmin_axis(&i.x),
    );
    let (a, b, c, d) = jit_lax_reductions(&i.x, &i.n);
    let (e, f, g, h) = eager_lax_reductions(&i.x, &i.n);
    check("lax::reduce_sum", &a, &e);
    check("lax::reduce_prod", &b, &f);
    check("lax::reduce_max", &c, &g);
    check("lax::reduce_min", &d, &h);
    check(
        "lax::broadcast_in_dim",
        &jit_lax_broadcast_in_dim(&i.w),
        &eager_lax_broadcast_in_dim(&i.w),
    );
    let (a, b) = jit_lax_convert_element_type(&i.x, &i.n);
    let (c, d) = eager_lax_convert_element_type(&i.x, &i.n);
    check("lax::convert_element_type f64", &a, &c);
    check("lax::convert_element_type f32", &b, &d);
    check(
        "lax::dot_general",
        &jit_lax_dot_general(&i.x, &i.y),
        &eager_lax_dot_general(&i.x, &i.y),
    );
    let a = Array::<f32, 2, 1, 3>::from([[[1.0, 2.0, 3.0]], [[-1.0, 0.5, 2.0]]]);
    let b = Array::<f32, 6, 2>::arange().reshape::<Array<f32, 2, 3, 2>>();
    let (j1, j2) = jit_batch_matmul(&a, &b);
    let (e1, e2) = eager_batch_matmul(&a, &b);
    check("jnp::batch_matmul", &j1, &e1);
    check("lax::batch_matmul", &j2, &e2);
}

#[jax::jit]
fn jit_lax_slice(x: &Array<f32, 2, 3>) -> (Array<f32, 1, 2>, Array<f32, 2, 2>) {
    (
        lax::slice(x, &[1, 0], &[2, 2], None),
        lax::slice(x, &[0, 0], &[2, 3], Some(&[1, 2])),
    )
}

fn eager_lax_slice(x: &Array<f32, 2, 3>) -> (Array<f32, 1, 2>, Array<f32, 2, 2>) {
    (
        lax::slice(x, &[1, 0], &[2, 2], None),
        lax::slice(x, &[0, 0], &[2, 3], Some(&[1, 2])),
    )
}

#[test]
fn lax_slice_jitted_equals_eager() {
    let i = inputs();
    let (a, b) = jit_lax_slice(&i.x);
    let (c, d) = eager_lax_slice(&i.x);
    check("lax::slice", &a, &c);
    check("lax::slice strided", &b, &d);
}
