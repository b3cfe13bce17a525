//! One API, continued from `one_api_core.rs`: `jnp`'s functions of one
//! array (exponentials, trigonometry, rounding, signs, predicates), each
//! jitted and compared with its eager twin bit for bit.

use jax::prelude::*;

use super::one_api_core::{check, inputs};

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

#[test]
fn unary_jitted_equals_eager() {
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
}
