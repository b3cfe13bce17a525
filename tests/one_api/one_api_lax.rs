//! One API, continued from `one_api_core.rs`: the `lax::` functions that
//! work in `#[jax::jit]`, each jitted and compared with its eager twin on
//! the same inputs.

use jax::prelude::*;

use super::one_api_core::{check, inputs};

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
fn lax_jitted_equals_eager() {
    let i = inputs();
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
