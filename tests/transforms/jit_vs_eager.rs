//! Every primitive the compiler emits, jitted against the eager operations
//! on random inputs (NaN and infinities included) at two sizes. Elementwise
//! results use the same scalar kernels, so they must agree bit for bit;
//! reductions accumulate in another order, so they agree within a bound.
//! The sorting, cumulative, gather/scatter, dynamic-slice, einsum and `nn`
//! functions are checked the same way, on f32 and on i32 where they apply.

use jax::jnp::linalg::{NormAxis, NormOptions, NormOrd};
use jax::nn;
use jax::prelude::*;
use jax::DefaultInt;
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

// Sorting and cumulative functions: permutations and running scans in the
// same order as eagerly, so the results agree bit for bit.
#[jax::jit]
fn sorts(
    x: &Array<f32, 8, 3>,
) -> (
    Array<f32, 8, 3>,
    Array<DefaultInt, 8, 3>,
    Array<f32, 8, 3>,
    Array<f32, 8, 3>,
    Array<f32, 8, 3>,
) {
    (
        jnp::sort(x, 0),
        jnp::argsort(x, -1),
        jnp::cumsum(x, 0),
        jnp::cumprod(x, 1),
        jnp::cummax(x, 0),
    )
}

#[jax::jit]
fn int_sorts(
    x: &Array<i32, 8, 3>,
) -> (
    Array<i32, 8, 3>,
    Array<DefaultInt, 8, 3>,
    Array<i32, 8, 3>,
    Array<i32, 8, 3>,
    Array<i32, 8, 3>,
) {
    (
        jnp::sort(x, -1),
        jnp::argsort(x, 0),
        jnp::cumsum(x, 1),
        jnp::cumprod(x, 0),
        jnp::cummax(x, 1),
    )
}

// Gathers with indices in and out of bounds (`take` fills, `.get()` uses
// the indexing default), a scatter-add at `d`, whose 6 indices in -3..3
// repeat, and a dynamic slice whose starts are clamped into range.
#[jax::jit]
fn gathers(
    x: &Array<f32, 8, 3>,
    i: &Array<i32, 6>,
    d: &Array<i32, 6>,
    v: &Array<f32, 6, 3>,
    r: i32,
    c: i32,
) -> (
    Array<f32, 6, 3>,
    Array<f32, 8, 6>,
    Array<f32, 6, 3>,
    Array<f32, 8, 3>,
    Array<f32, 3, 2>,
) {
    let window: Array<f32, 3, 2> = lax::dynamic_slice(x, &[r, c]);
    (
        jnp::take(x, i, 0),
        jnp::take(x, i, 1),
        x.at(i).get(),
        x.at(d).add(v),
        window,
    )
}

#[jax::jit]
fn int_gathers(
    x: &Array<i32, 8, 3>,
    i: &Array<i32, 6>,
    d: &Array<i32, 6>,
    v: &Array<i32, 6, 3>,
    r: i32,
) -> (
    Array<i32, 6, 3>,
    Array<i32, 6, 3>,
    Array<i32, 8, 3>,
    Array<i32, 2, 3>,
) {
    let window: Array<i32, 2, 3> = lax::dynamic_slice(x, &[r, 0]);
    (jnp::take(x, i, 0), x.at(i).get(), x.at(d).add(v), window)
}

#[jax::jit]
fn einsums(x: &Array<f32, 8, 3>, y: &Array<f32, 3>) -> (Array<f32, 8>, Array<f32, 3, 3>) {
    (
        jnp::einsum("ij,j->i", (x, y)),
        jnp::einsum("ki,kj->ij", (x, x)),
    )
}

#[jax::jit]
fn activations(
    x: &Array<f32, 8, 3>,
    y: &Array<f32, 8, 3>,
) -> (
    Array<f32, 8, 3>,
    Array<f32, 8, 3>,
    Array<f32, 8, 3>,
    Array<f32, 8, 3>,
    Array<f32, 8, 3>,
) {
    (
        nn::relu(x),
        nn::softplus(x),
        nn::gelu(x, true),
        nn::gelu(x, false),
        jnp::logaddexp(x, y),
    )
}

/// Within the sum's bound of `scale`, or both non-finite where `jit`
/// accumulates in another order than the eager loop.
fn assert_close<A: ArrayType<Elem = f32>>(what: &str, jit: &A, eager: &A, scale: f32) {
    for (i, (&j, &e)) in jit.data().iter().zip(eager.data()).enumerate() {
        let ok = close(j, e, scale) || (!j.is_finite() && !e.is_finite() && !scale.is_finite());
        assert!(ok, "{what}[{i}]: jit {j} vs eager {e}");
    }
}

fn check_new_functions(
    x: &Array<f32, 8, 3>,
    y: &Array<f32, 3>,
    xi: &Array<i32, 8, 3>,
    i: &Array<i32, 6>,
    d: &Array<i32, 6>,
    (r, c): (i32, i32),
) {
    let (s, a, cs, cp, cm) = sorts(x);
    assert_same("sort", &s, &jnp::sort(x, 0));
    assert_eq!(a, jnp::argsort(x, -1), "argsort");
    assert_same("cumsum", &cs, &jnp::cumsum(x, 0));
    assert_same("cumprod", &cp, &jnp::cumprod(x, 1));
    assert_same("cummax", &cm, &jnp::cummax(x, 0));
    let (s, a, cs, cp, cm) = int_sorts(xi);
    assert_eq!(s, jnp::sort(xi, -1), "int sort");
    assert_eq!(a, jnp::argsort(xi, 0), "int argsort");
    assert_eq!(cs, jnp::cumsum(xi, 1), "int cumsum");
    assert_eq!(cp, jnp::cumprod(xi, 0), "int cumprod");
    assert_eq!(cm, jnp::cummax(xi, 1), "int cummax");

    let v: Array<f32, 6, 3> = array(&x.data()[3..]);
    let (t0, t1, g, add, ds) = gathers(x, i, d, &v, r, c);
    let e_t0: Array<f32, 6, 3> = jnp::take(x, i, 0);
    let e_t1: Array<f32, 8, 6> = jnp::take(x, i, 1);
    let e_ds: Array<f32, 3, 2> = lax::dynamic_slice(x, &[r, c]);
    assert_same("take axis 0", &t0, &e_t0);
    assert_same("take axis 1", &t1, &e_t1);
    assert_same("at.get", &g, &x.at(i).get());
    assert_same("at.add", &add, &x.at(d).add(&v));
    assert_same("dynamic_slice", &ds, &e_ds);
    let vi: Array<i32, 6, 3> = Array::from_vec(xi.data()[..18].to_vec()).unwrap();
    let (t0, g, add, ds) = int_gathers(xi, i, d, &vi, r);
    let e_t0: Array<i32, 6, 3> = jnp::take(xi, i, 0);
    let e_ds: Array<i32, 2, 3> = lax::dynamic_slice(xi, &[r, 0]);
    assert_eq!(t0, e_t0, "int take");
    assert_eq!(g, xi.at(i).get(), "int at.get");
    assert_eq!(add, xi.at(d).add(&vi), "int at.add");
    assert_eq!(ds, e_ds, "int dynamic_slice");

    let (mv, gram) = einsums(x, y);
    let e_mv: Array<f32, 8> = jnp::einsum("ij,j->i", (x, y));
    let e_gram: Array<f32, 3, 3> = jnp::einsum("ki,kj->ij", (x, x));
    let absum = |v: &[f32]| v.iter().map(|v| v.abs()).sum::<f32>();
    let scale = absum(x.data()) * absum(x.data()).max(absum(y.data()));
    assert_close("einsum ij,j->i", &mv, &e_mv, scale);
    assert_close("einsum ki,kj->ij", &gram, &e_gram, scale);

    let x2: Array<f32, 8, 3> = Array::from_vec(x.data().iter().rev().copied().collect()).unwrap();
    let (relu, sp, ga, ge, lae) = activations(x, &x2);
    assert_same("relu", &relu, &nn::relu(x));
    assert_same("softplus", &sp, &nn::softplus(x));
    assert_same("gelu approximate", &ga, &nn::gelu(x, true));
    assert_same("gelu", &ge, &nn::gelu(x, false));
    assert_same("logaddexp", &lae, &jnp::logaddexp(x, &x2));
}

/// The composites written once (`jax_core::nn`, `stats`, `numeric`, and
/// `jnp::where_`): an eager call runs the equations a jitted body traces,
/// so each pair agrees bit for bit (reductions within a bound: below).
macro_rules! one_text {
    ($($name:ident: |$x:ident, $y:ident| $e:expr;)*) => {
        $(
            #[jax::jit]
            fn $name($x: &Array<f32, 8, 3>, $y: &Array<f32, 8, 3>) -> Array<f32, 8, 3> {
                $e
            }
        )*

        fn check_one_text(x: &Array<f32, 8, 3>, y: &Array<f32, 8, 3>) {
            $(
                let eager: Array<f32, 8, 3> = {
                    let ($x, $y) = (x, y);
                    $e
                };
                assert_same(stringify!($name), &$name(x, y), &eager);
            )*
        }
    };
}

one_text! {
    relu6: |x, _y| nn::relu6(x);
    sigmoid: |x, _y| nn::sigmoid(x);
    log_sigmoid: |x, _y| nn::log_sigmoid(x);
    silu: |x, _y| nn::silu(x);
    selu: |x, _y| nn::selu(x);
    hard_tanh: |x, _y| nn::hard_tanh(x);
    elu: |x, _y| nn::elu(x, 0.5);
    leaky_relu: |x, _y| nn::leaky_relu(x, 0.01);
    celu: |x, _y| nn::celu(x, 2.0);
    logit: |x, _y| jax::scipy::special::logit(x);
    xlogy: |x, y| jax::scipy::special::xlogy(x, y);
    xlog1py: |x, y| jax::scipy::special::xlog1py(x, y);
    logaddexp2: |x, y| jnp::logaddexp2(x, y);
    remainder: |x, y| jnp::remainder(x, y);
    floor_divide: |x, y| jnp::floor_divide(x, y);
    log2: |x, _y| jnp::log2(x);
    log10: |x, _y| jnp::log10(x);
    trunc: |x, _y| jnp::trunc(x);
    isinf: |x, y| jnp::where_(jnp::isinf(x), y, x);
    isfinite: |x, y| jnp::where_(jnp::isfinite(x), y, x);
    norm_pdf: |x, _y| jax::scipy::stats::norm::pdf(x);
    norm_logpdf: |x, _y| jax::scipy::stats::norm::logpdf_with(x, 1.0, 2.0);
    norm_cdf: |x, _y| jax::scipy::stats::norm::cdf(x);
    norm_logcdf: |x, _y| jax::scipy::stats::norm::logcdf(x);
    norm_ppf: |x, _y| jax::scipy::stats::norm::ppf(nn::sigmoid(x));
}

/// `var` and `std` written once: along the first axis the eager and
/// jitted sums run in one order; along the last one the jitted row loop
/// folds in another, so they agree within a bound there.
#[jax::jit]
fn var_std(x: &Array<f32, 8, 3>) -> (Array<f32, 1, 3>, Array<f32, 8, 1>, Array<f32>) {
    (
        jnp::var_axis(x, 0, true),
        jnp::std_axis(x, 1, true),
        jnp::var(x),
    )
}

fn check_var_std(x: &Array<f32, 8, 3>) {
    let (v0, s1, v) = var_std(x);
    assert_same("var_axis 0", &v0, &jnp::var_axis(x, 0, true));
    let scale: f32 = x
        .as_slice()
        .iter()
        .map(|v| v.abs())
        .filter(|v| v.is_finite())
        .sum();
    assert_close("std_axis 1", &s1, &jnp::std_axis(x, 1, true), scale);
    assert_close("var", &v, &jnp::var(x), scale * scale);
}

/// `jax_core::indexing`'s and the arg-reductions' one texts: gathers,
/// masks and index choices, equal bit for bit.
#[jax::jit]
#[allow(clippy::type_complexity)]
fn indexing_fns(
    x: &Array<f32, 8, 3>,
    y: &Array<f32, 3>,
    j: &Array<i32, 8, 1>,
) -> (
    (
        Array<f32, 8, 1>,
        Array<f32, 8, 3>,
        Array<f32, 8, 3>,
        Array<f32>,
    ),
    (
        Array<f32, 3>,
        Array<f32, 2>,
        Array<f32, 4, 4>,
        Array<f32, 3>,
    ),
    (
        Array<DefaultInt, 3>,
        Array<DefaultInt>,
        Array<DefaultInt, 1, 3>,
        Array<DefaultInt, 8, 1>,
    ),
) {
    (
        (
            jnp::take_along_axis(x, j, 1),
            jnp::tril(x, 1),
            jnp::triu(x, -2),
            jnp::trace(x, 1, 0, 1),
        ),
        (
            jnp::diagonal(x, 0, 0, 1),
            jnp::diagonal(x, -6, 0, 1),
            jnp::diag(y, 1),
            jnp::diag(jnp::diag(y, -1), -1),
        ),
        (
            jnp::nanargmax_axis(x, 0, false),
            jnp::nanargmin(x),
            jnp::argmax_axis(x, 0, true),
            jnp::nanargmin_axis(x, 1, true),
        ),
    )
}

fn check_indexing(x: &Array<f32, 8, 3>, y: &Array<f32, 3>, j: &Array<i32, 8, 1>) {
    let ((ta, tl, tu, tr), (d0, d6, dg, dd), (nax, nin, ax, nix)) = indexing_fns(x, y, j);
    let e_ta: Array<f32, 8, 1> = jnp::take_along_axis(x, j, 1);
    assert_same("take_along_axis", &ta, &e_ta);
    assert_same("tril", &tl, &jnp::tril(x, 1));
    assert_same("triu", &tu, &jnp::triu(x, -2));
    let e_tr: Array<f32> = jnp::trace(x, 1, 0, 1);
    let scale: f32 = x
        .as_slice()
        .iter()
        .map(|v| v.abs())
        .filter(|v| v.is_finite())
        .sum();
    assert_close("trace", &tr, &e_tr, scale);
    let e_d0: Array<f32, 3> = jnp::diagonal(x, 0, 0, 1);
    let e_d6: Array<f32, 2> = jnp::diagonal(x, -6, 0, 1);
    let e_dg: Array<f32, 4, 4> = jnp::diag(y, 1);
    let e_m: Array<f32, 4, 4> = jnp::diag(y, -1);
    let e_dd: Array<f32, 3> = jnp::diag(&e_m, -1);
    assert_same("diagonal", &d0, &e_d0);
    assert_same("diagonal -6", &d6, &e_d6);
    assert_same("diag", &dg, &e_dg);
    assert_same("diag of diag", &dd, &e_dd);
    let e_nax: Array<DefaultInt, 3> = jnp::nanargmax_axis(x, 0, false);
    let e_ax: Array<DefaultInt, 1, 3> = jnp::argmax_axis(x, 0, true);
    let e_nix: Array<DefaultInt, 8, 1> = jnp::nanargmin_axis(x, 1, true);
    assert_eq!(nax, e_nax, "nanargmax_axis");
    assert_eq!(nin, jnp::nanargmin(x), "nanargmin");
    assert_eq!(ax, e_ax, "argmax_axis keepdims");
    assert_eq!(nix, e_nix, "nanargmin_axis keepdims");
}

/// `jax_core::manip`'s one texts: moves and copies, equal bit for bit.
#[jax::jit]
#[allow(clippy::type_complexity)]
fn manip_fns(
    x: &Array<f32, 8, 3>,
    y: &Array<f32, 3>,
    z: &Array<f32, 8>,
) -> (
    (
        Array<f32, 8, 3>,
        Array<f32, 8, 6>,
        Array<f32, 48>,
        Array<f32, 2, 16, 3>,
    ),
    (
        Array<f32, 9, 5>,
        Array<f32, 3, 3>,
        Array<f32, 8, 3>,
        Array<f32, 8, 3>,
    ),
    (Array<f32, 9, 3>, Array<f32, 6>),
) {
    (
        (
            jnp::roll(x, -4, 0),
            jnp::repeat(x, 2, Some(1)),
            jnp::repeat(x, 2, None),
            jnp::tile(x, &[2, 2, 1]),
        ),
        (
            jnp::pad(x, &[(1, 0), (0, 2)]),
            jnp::outer(y, y),
            jnp::meshgrid(y, z).0,
            jnp::meshgrid(y, z).1,
        ),
        (jnp::vstack((x, y)), jnp::hstack((y, y))),
    )
}

fn check_manip(x: &Array<f32, 8, 3>, y: &Array<f32, 3>) {
    let z: Array<f32, 8> = Array::from_vec(x.data()[..8].to_vec()).unwrap();
    let ((ro, r1, rn, ti), (pa, ou, m0, m1), (vs, hs)) = manip_fns(x, y, &z);
    assert_same("roll", &ro, &jnp::roll(x, -4, 0));
    let e_r1: Array<f32, 8, 6> = jnp::repeat(x, 2, Some(1));
    let e_rn: Array<f32, 48> = jnp::repeat(x, 2, None);
    let e_ti: Array<f32, 2, 16, 3> = jnp::tile(x, &[2, 2, 1]);
    let e_pa: Array<f32, 9, 5> = jnp::pad(x, &[(1, 0), (0, 2)]);
    assert_same("repeat axis 1", &r1, &e_r1);
    assert_same("repeat flat", &rn, &e_rn);
    assert_same("tile", &ti, &e_ti);
    assert_same("pad", &pa, &e_pa);
    assert_same("outer", &ou, &jnp::outer(y, y));
    let (e_m0, e_m1) = jnp::meshgrid(y, &z);
    assert_same("meshgrid x", &m0, &e_m0);
    assert_same("meshgrid y", &m1, &e_m1);
    let e_vs: Array<f32, 9, 3> = jnp::vstack((x, y));
    let e_hs: Array<f32, 6> = jnp::hstack((y, y));
    assert_same("vstack", &vs, &e_vs);
    assert_same("hstack", &hs, &e_hs);
}

/// `jax_core::sorting`'s one texts on the sort kernel: equal bit for bit.
#[jax::jit]
#[allow(clippy::type_complexity)]
fn sorting_fns(
    x: &Array<f32, 8, 3>,
    y: &Array<f32, 3>,
) -> (
    (Array<f32>, Array<f32, 3>, Array<f32, 8, 1>, Array<f32>),
    (
        Array<f32, 6, 3>,
        Array<f32, 8, 1>,
        Array<i32, 3>,
        Array<i32, 3>,
    ),
) {
    let sorted = jnp::sort(jnp::ravel(x), 0);
    (
        (
            jnp::median(x),
            jnp::median_axis(x, 0, false),
            jnp::quantile_axis(x, 0.3, 1, true),
            jnp::percentile(x, 90.0),
        ),
        (
            jnp::diff(x, 2, 0),
            jnp::diff(x, 2, 1),
            jnp::searchsorted(&sorted, y, "left"),
            jnp::searchsorted(&sorted, y, "right"),
        ),
    )
}

fn check_sorting(x: &Array<f32, 8, 3>, y: &Array<f32, 3>) {
    let ((me, ma, qa, pe), (d0, d1, sl, sr)) = sorting_fns(x, y);
    assert_same("median", &me, &jnp::median(x));
    let e_ma: Array<f32, 3> = jnp::median_axis(x, 0, false);
    let e_qa: Array<f32, 8, 1> = jnp::quantile_axis(x, 0.3, 1, true);
    assert_same("median_axis", &ma, &e_ma);
    assert_same("quantile_axis", &qa, &e_qa);
    assert_same("percentile", &pe, &jnp::percentile(x, 90.0));
    let e_d0: Array<f32, 6, 3> = jnp::diff(x, 2, 0);
    let e_d1: Array<f32, 8, 1> = jnp::diff(x, 2, 1);
    assert_same("diff axis 0", &d0, &e_d0);
    assert_same("diff axis 1", &d1, &e_d1);
    let flat: Array<f32, 24> = jnp::ravel(x);
    let sorted = jnp::sort(&flat, 0);
    assert_eq!(
        sl,
        jnp::searchsorted(&sorted, y, "left"),
        "searchsorted left"
    );
    assert_eq!(
        sr,
        jnp::searchsorted(&sorted, y, "right"),
        "searchsorted right"
    );
}

/// `jax_core::linalg`'s compositions (norms, `pinv`, `matrix_rank`,
/// `lstsq`) written once: the singular values come from one kernel, the
/// products and sums run in the jitted loops' order or the eager gemm's,
/// so they agree within a bound relative to the matrix's conditioning.
#[jax::jit]
#[allow(clippy::type_complexity)]
fn linalg_fns(
    a: &Array<f32, 8, 3>,
    b: &Array<f32, 8, 3>,
) -> (
    Array<f32>,
    Array<f32>,
    Array<f32, 3>,
    Array<f32, 1, 1>,
    Array<f32, 3, 8>,
    Array<DefaultInt>,
    Array<f32, 3, 3>,
) {
    let (x, _, _, _): (
        Array<f32, 3, 3>,
        Array<f32, 3>,
        Array<DefaultInt>,
        Array<f32, 3>,
    ) = jnp::linalg::lstsq(a, b);
    (
        jnp::linalg::norm(a),
        jnp::linalg::norm_with(
            a,
            NormOptions {
                ord: NormOrd::Nuc,
                ..Default::default()
            },
        ),
        jnp::linalg::norm_with(
            a,
            NormOptions {
                ord: NormOrd::P(3.0),
                axis: NormAxis::Vector(0),
                keepdims: false,
            },
        ),
        jnp::linalg::norm_with(
            a,
            NormOptions {
                ord: NormOrd::Inf,
                axis: NormAxis::Matrix(1, 0),
                keepdims: true,
            },
        ),
        jnp::linalg::pinv(a),
        jnp::linalg::matrix_rank(a),
        x,
    )
}

fn check_linalg(a: &Array<f32, 8, 3>, b: &Array<f32, 8, 3>) {
    let (fro, nuc, p3, inf, p, rank, x) = linalg_fns(a, b);
    let s: Array<f32, 3> = jnp::linalg::svdvals(a);
    let s = s.to_vec();
    let size: f32 = a.as_slice().iter().map(|v| v.abs()).sum();
    assert_close("norm", &fro, &jnp::linalg::norm(a), size * size);
    let e_nuc: Array<f32> = jnp::linalg::norm_with(
        a,
        NormOptions {
            ord: NormOrd::Nuc,
            ..Default::default()
        },
    );
    assert_close("norm nuc", &nuc, &e_nuc, size);
    let e_p3: Array<f32, 3> = jnp::linalg::norm_with(
        a,
        NormOptions {
            ord: NormOrd::P(3.0),
            axis: NormAxis::Vector(0),
            keepdims: false,
        },
    );
    assert_close("norm p=3", &p3, &e_p3, size * size * size);
    let e_inf: Array<f32, 1, 1> = jnp::linalg::norm_with(
        a,
        NormOptions {
            ord: NormOrd::Inf,
            axis: NormAxis::Matrix(1, 0),
            keepdims: true,
        },
    );
    assert_close("norm inf", &inf, &e_inf, size);
    assert_eq!(rank, jnp::linalg::matrix_rank(a), "matrix_rank");
    // Well-conditioned matrices only: elsewhere a rounding of the products
    // moves the pseudo-inverse by up to the condition number.
    if s[2] > 1e-2 * s[0] {
        let scale = s[0] / (s[2] * s[2]) * 100.0;
        let e_p: Array<f32, 3, 8> = jnp::linalg::pinv(a);
        assert_close("pinv", &p, &e_p, scale);
        let (e_x, _, _, _): (
            Array<f32, 3, 3>,
            Array<f32, 3>,
            Array<DefaultInt>,
            Array<f32, 3>,
        ) = jnp::linalg::lstsq(a, b);
        let bsize: f32 = b.as_slice().iter().map(|v| v.abs()).sum();
        assert_close("lstsq x", &x, &e_x, scale * bsize);
    }
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

    #[test]
    fn new_functions_jit_agree_with_eager(
        data in prop::collection::vec(floats(), 24),
        bias in prop::collection::vec(floats(), 3),
        ints in prop::collection::vec(-50i32..50, 24),
        idx in prop::collection::vec(-11i32..11, 6),
        dup in prop::collection::vec(-3i32..3, 6),
        starts in (-10i32..10, -4i32..4),
    ) {
        let y: Array<f32, 3> = array::<3, 1>(&bias).reshape();
        let x: Array<f32, 8, 3> = array(&data);
        let xi: Array<i32, 8, 3> = Array::from_vec(ints).unwrap();
        let i: Array<i32, 6> = Array::from_vec(idx).unwrap();
        let d: Array<i32, 6> = Array::from_vec(dup).unwrap();
        check_new_functions(&x, &y, &xi, &i, &d, starts);
    }

    #[test]
    fn one_text_jit_agrees_with_eager_bit_for_bit(
        a in prop::collection::vec(floats(), 24),
        b in prop::collection::vec(floats(), 24),
    ) {
        check_one_text(&array(&a), &array(&b));
        check_var_std(&array(&a));
    }

    #[test]
    fn indexing_jit_agrees_with_eager(
        data in prop::collection::vec(floats(), 24),
        bias in prop::collection::vec(floats(), 3),
        idx in prop::collection::vec(-5i32..5, 8),
    ) {
        let y: Array<f32, 3> = array::<3, 1>(&bias).reshape();
        let j: Array<i32, 8, 1> = Array::from_vec(idx).unwrap();
        check_indexing(&array(&data), &y, &j);
        check_manip(&array(&data), &y);
        check_sorting(&array(&data), &y);
    }

    #[test]
    fn linalg_jit_agrees_with_eager(
        a in prop::collection::vec(-10.0f32..10.0, 24),
        b in prop::collection::vec(-10.0f32..10.0, 24),
    ) {
        check_linalg(&array(&a), &array(&b));
    }
}
