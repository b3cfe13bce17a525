//! Every primitive the compiler emits, jitted against the eager operations
//! on random inputs (NaN and infinities included) at two sizes. Elementwise
//! results use the same scalar kernels, so they must agree bit for bit;
//! reductions accumulate in another order, so they agree within a bound.

use jax::prelude::*;
use proptest::prelude::*;

/// Bits equal, or both NaN.
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn assert_same<A: ArrayType<Elem = f32>>(what: &str, jit: &A, eager: &A) {
    for (i, (&j, &e)) in jit.data().iter().zip(eager.data()).enumerate() {
        assert!(same(j, e), "{what}[{i}]: jit {j} vs eager {e}");
    }
}

fn floats() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -100.0f32..100.0,
        1 => prop::num::f32::ANY,
        1 => prop::sample::select(vec![0.0, -0.0, 1.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-40]),
    ]
}

macro_rules! unary_cases {
    ($($name:ident => $f:ident),* $(,)?) => {
        $(
            #[jax::jit]
            fn $name<const N: usize>(x: &Array<f32, N, 3>) -> Array<f32, N, 3> {
                jnp::$f(x)
            }
        )*

        fn check_unary<const N: usize>(x: &Array<f32, N, 3>) {
            $(
                let eager: Array<f32, N, 3> = jnp::$f(x);
                assert_same(stringify!($f), &$name(x), &eager);
            )*
        }
    };
}

unary_cases! {
    u_exp => exp, u_log => log, u_log1p => log1p, u_expm1 => expm1, u_sin => sin, u_cos => cos,
    u_tan => tan, u_tanh => tanh, u_sinh => sinh, u_cosh => cosh, u_arcsin => arcsin,
    u_arccos => arccos, u_arctan => arctan, u_arcsinh => arcsinh, u_arccosh => arccosh,
    u_arctanh => arctanh, u_sqrt => sqrt, u_rsqrt => rsqrt, u_cbrt => cbrt, u_sigmoid => sigmoid,
    u_erf => erf, u_erfc => erfc, u_erf_inv => erf_inv, u_floor => floor, u_ceil => ceil,
    u_abs => abs, u_sign => sign, u_negative => negative, u_square => square, u_exp2 => exp2,
}

macro_rules! binary_cases {
    ($($name:ident => $f:ident),* $(,)?) => {
        $(
            #[jax::jit]
            fn $name<const N: usize>(x: &Array<f32, N, 3>, y: &Array<f32, 3>) -> Array<f32, N, 3> {
                jnp::$f(x, y)
            }
        )*

        fn check_binary<const N: usize>(x: &Array<f32, N, 3>, y: &Array<f32, 3>) {
            $(
                let eager: Array<f32, N, 3> = jnp::$f(x, y);
                assert_same(stringify!($f), &$name(x, y), &eager);
            )*
        }
    };
}

binary_cases! {
    b_add => add, b_subtract => subtract, b_multiply => multiply, b_divide => divide,
    b_maximum => maximum, b_minimum => minimum, b_arctan2 => arctan2, b_power => power,
}

#[jax::jit]
fn comparisons<const N: usize>(
    x: &Array<f32, N, 3>,
    y: &Array<f32, 3>,
) -> (Array<bool, N, 3>, Array<bool, N, 3>, Array<bool, N, 3>) {
    (
        jnp::less(x, y),
        jnp::greater_equal(x, y),
        jnp::not_equal(x, y),
    )
}

#[jax::jit]
fn select_and_clip<const N: usize>(
    x: &Array<f32, N, 3>,
    y: &Array<f32, 3>,
) -> (Array<f32, N, 3>, Array<f32, N, 3>) {
    (jnp::where_(jnp::less(x, y), x, y), jnp::clip(x, -1.0, 2.0))
}

#[jax::jit]
fn reductions<const N: usize>(x: &Array<f32, N, 3>) -> (Array<f32>, Array<f32, 3>, Array<f32, N>) {
    (
        jnp::sum(x),
        jnp::max_axis(x, 0, false),
        jnp::min_axis(x, 1, false),
    )
}

// The mean divides by the element count, a number the compiler needs: no symbols.
#[jax::jit]
fn mean8(x: &Array<f32, 8, 3>) -> Array<f32> {
    jnp::mean(x)
}

fn close(a: f32, b: f32, scale: f32) -> bool {
    same(a, b) || (a - b).abs() <= 1e-5 * scale.max(1.0)
}

fn check_rest<const N: usize>(x: &Array<f32, N, 3>, y: &Array<f32, 3>) {
    let (lt, ge, ne) = comparisons(x, y);
    let (e_lt, e_ge, e_ne): (Array<bool, N, 3>, Array<bool, N, 3>, Array<bool, N, 3>) = (
        jnp::less(x, y),
        jnp::greater_equal(x, y),
        jnp::not_equal(x, y),
    );
    assert_eq!((lt, ge, ne), (e_lt.clone(), e_ge, e_ne));
    let (w, c) = select_and_clip(x, y);
    let e_w: Array<f32, N, 3> = jnp::where_(e_lt, x, y);
    assert_same("where_", &w, &e_w);
    assert_same("clip", &c, &jnp::clip(x, -1.0, 2.0));
    let (s, mx, mn) = reductions(x);
    let scale: f32 = x
        .as_slice()
        .iter()
        .map(|v| v.abs())
        .filter(|v| v.is_finite())
        .sum();
    assert!(
        close(s.item(), jnp::sum(x).item(), scale),
        "sum {s:?} vs {:?}",
        jnp::sum(x)
    );
    let e_mx: Array<f32, 3> = jnp::max_axis(x, 0, false);
    let e_mn: Array<f32, N> = jnp::min_axis(x, 1, false);
    assert_same("max", &mx, &e_mx);
    assert_same("min", &mn, &e_mn);
}

fn array<const R: usize, const C: usize>(v: &[f32]) -> Array<f32, R, C> {
    Array::from_vec(v[..R * C].to_vec()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn jit_agrees_with_eager(data in prop::collection::vec(floats(), 24), bias in prop::collection::vec(floats(), 3)) {
        let y: Array<f32, 3> = array::<3, 1>(&bias).reshape();
        let x1: Array<f32, 1, 3> = array(&data);
        let x8: Array<f32, 8, 3> = array(&data);
        check_unary(&x1);
        check_unary(&x8);
        check_binary(&x1, &y);
        check_binary(&x8, &y);
        check_rest(&x1, &y);
        check_rest(&x8, &y);
        let scale: f32 = x8.as_slice().iter().map(|v| v.abs()).filter(|v| v.is_finite()).sum();
        prop_assert!(close(mean8(&x8).item(), jnp::mean(&x8).item(), scale));
    }
}
