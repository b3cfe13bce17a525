//! One API (tests/one_api.rs) for the complex-part functions on real arrays
//! (complex operands are in tests/one_api_cx_jit.rs): jitted code must agree
//! with the eager calls bit for bit. The jaxpr is JAX's for real
//! operands: `real`/`conj` are the operand, `imag` zeros, `angle` atan2(0, x).

use crate::common;

use jax::prelude::*;

#[jax::jit]
fn real_f32(x: &Array<f32, 4>) -> Array<f32, 4> {
    jnp::real(x)
}

#[jax::jit]
fn real_i32(x: &Array<i32, 4>) -> Array<i32, 4> {
    jnp::real(x)
}

#[jax::jit]
fn imag_f32(x: &Array<f32, 4>) -> Array<f32, 4> {
    jnp::imag(x)
}

#[jax::jit]
fn imag_i32(x: &Array<i32, 4>) -> Array<i32, 4> {
    jnp::imag(x)
}

#[jax::jit]
fn conj_f32(x: &Array<f32, 4>) -> Array<f32, 4> {
    jnp::conj(x)
}

#[jax::jit]
fn conjugate_i32(x: &Array<i32, 4>) -> Array<i32, 4> {
    jnp::conjugate(x)
}

#[jax::jit]
fn angle_f32(x: &Array<f32, 4>) -> Array<f32, 4> {
    jnp::angle(x)
}

fn bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

#[test]
fn parts_of_real_arrays_agree_with_eager() {
    let x = Array::<f32, 4>::from([-1.5, 0.0, -0.0, 2.25]);
    let n = Array::<i32, 4>::from([-3, 0, 7, i32::MIN]);
    assert_eq!(bits(real_f32(&x).to_vec()), bits(jnp::real(&x).to_vec()));
    assert_eq!(real_i32(&n).to_vec(), jnp::real(&n).to_vec());
    assert_eq!(bits(imag_f32(&x).to_vec()), bits(jnp::imag(&x).to_vec()));
    assert_eq!(imag_i32(&n).to_vec(), jnp::imag(&n).to_vec());
    assert_eq!(bits(conj_f32(&x).to_vec()), bits(jnp::conj(&x).to_vec()));
    assert_eq!(conjugate_i32(&n).to_vec(), jnp::conjugate(&n).to_vec());
    assert_eq!(bits(angle_f32(&x).to_vec()), bits(jnp::angle(&x).to_vec()));
    // atan2(0, x): pi for negative x (and -0.0), 0 otherwise.
    assert_eq!(angle_f32(&x).to_vec()[0], std::f32::consts::PI);
}

#[test]
fn jaxprs_are_jax_s_for_real_operands() {
    let want = |id: &str| {
        common::case("complex", id)["jaxpr"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(real_f32::jaxpr().to_string(), want("jaxpr_real"));
    assert_eq!(imag_f32::jaxpr().to_string(), want("jaxpr_imag"));
    assert_eq!(conj_f32::jaxpr().to_string(), want("jaxpr_conj"));
    assert_eq!(angle_f32::jaxpr().to_string(), want("jaxpr_angle"));
}
