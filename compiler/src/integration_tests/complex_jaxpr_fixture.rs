//! Printed jaxprs of complex functions in jitted code: complex literals
//! (`(1+2j):c64[]`, `1j:c64[]`), `conj[input_dtype=complex64]`, `real`,
//! `imag`, `complex`, and `abs` of complex with a real result, against
//! `jax.make_jaxpr` (tests/fixtures/complex_jit.json, made by
//! tests/fixtures/gen/complex_jit.py).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "jaxpr_arith",
        "fn f(a: Array<Complex<f32>, 3>, b: Array<Complex<f32>, 3>) -> Array<Complex<f32>, 3> {
            jnp::exp(&a * &b - &b / &a) * jnp::conj(&a) + jnp::sqrt(&a) * Complex::new(1.0, 2.0)
        }",
    ),
    (
        "jaxpr_parts",
        "fn f(a: Array<jax::Complex<f32>, 3>, b: Array<jax::Complex<f32>, 3>) -> Array<f32, 3> {
            jnp::abs(&a) + jnp::real(&b) - jnp::imag(&a) + jnp::angle(&b)
        }",
    ),
    (
        "jaxpr_lax_complex",
        "fn f(x: Array<f32, 3>) -> Array<Complex<f32>, 3> { lax::complex(&x, &x * 2.0) }",
    ),
    (
        "jaxpr_lit_1j",
        "fn f(a: Array<num_complex::Complex<f32>, 3>, b: Array<Complex<f32>, 3>) -> Array<Complex<f32>, 3> {
            a * Complex::new(0.0, 1.0) + b
        }",
    ),
];

#[test]
fn complex_functions_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("complex_jit", "jaxpr", CASES);
}
