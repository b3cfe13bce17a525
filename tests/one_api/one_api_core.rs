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
pub(crate) fn check<A: ArrayType>(what: &str, jit: &A, eager: &A) {
    for (i, (j, e)) in jit.data().iter().zip(eager.data()).enumerate() {
        let (j, e) = (j.to_f64(), e.to_f64());
        let close =
            j == e || (j.is_nan() && e.is_nan()) || (j - e).abs() <= 1e-6 * e.abs().max(1.0);
        assert!(close, "{what}[{i}]: jit {j} vs eager {e}");
    }
}

pub(crate) struct Inputs {
    pub(crate) x: Array<f32, 2, 3>,
    pub(crate) y: Array<f32, 2, 3>,
    pub(crate) z: Array<f32, 2, 3>,
    pub(crate) c: Array<bool, 2, 3>,
    pub(crate) d: Array<bool, 2, 3>,
    pub(crate) n: Array<i32, 2, 3>,
    pub(crate) b: Array<f32, 3, 2>,
    pub(crate) w: Array<f32, 1, 3>,
}

pub(crate) fn inputs() -> Inputs {
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

#[test]
fn jitted_equals_eager() {
    let i = inputs();
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
}
