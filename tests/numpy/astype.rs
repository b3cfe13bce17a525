//! `astype` against JAX: XLA's saturating float-to-int conversion, NaN to 0,
//! wrapping int-to-int, and `!= 0` to bool (the `astype_*` seed cases).

use crate::common;
use common::{assert_matches, seed_output};
use jax::{Array, ArrayType};

#[test]
fn float_to_uint8_saturates() {
    let x = Array::<f32, 4>::from([254.0, 255.0, 256.0, 257.0]);
    assert_matches(
        &x.astype::<u8>(),
        &seed_output("astype_uint8_saturates_jax"),
    );
    assert_matches(
        &x.astype::<u8>(),
        &seed_output("astype_uint8_saturates_jax_x64"),
    );
}

#[test]
fn float_to_int8_saturates_both_ways() {
    let x = Array::<f32, 6>::from([-129.0, -128.5, 127.5, 128.0, 1e10, -1e10]);
    assert_matches(
        &x.astype::<i8>(),
        &seed_output("astype_int8_from_float_jax"),
    );
}

#[test]
fn nan_and_inf_to_int32() {
    let x = Array::<f32, 5>::from([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.9, -2.9]);
    assert_matches(
        &x.astype::<i32>(),
        &seed_output("astype_int32_from_nan_inf_jax"),
    );
}

#[test]
fn negative_float_to_uint8_is_zero() {
    let x = Array::<f32, 3>::from([-1.0, -0.5, 0.5]);
    assert_matches(
        &x.astype::<u8>(),
        &seed_output("astype_uint8_from_negative_jax"),
    );
}

#[test]
fn int_to_uint8_wraps() {
    let x = Array::<i32, 5>::from([254, 255, 256, 257, -1]);
    assert_matches(
        &x.astype::<u8>(),
        &seed_output("astype_int_to_uint8_wraps_jax"),
    );
}

#[test]
fn float_to_bool_is_nonzero() {
    let x = Array::<f32, 4>::from([0.0, -0.0, 0.1, f32::NAN]);
    assert_matches(
        &x.astype::<bool>(),
        &seed_output("astype_float_to_bool_jax"),
    );
}

#[test]
fn astype_drops_weak_type() {
    // jnp.asarray(1.0).astype(jnp.float32) is strongly typed.
    let case = common::case("promotion", "op:astype_weak_loses_weak@x64_on");
    let x = Array::<f64>::from(1.0).set_weak(true);
    assert!(x.weak_type());
    let y = x.astype::<f32>();
    assert_matches(&y, &case["result"]["value"]);
}
