//! Forward and reverse mode against JAX (`tests/fixtures/autodiff.json`):
//! for each case written here, the output, `jvp` with the case's tangents
//! and `vjp` with its cotangent (cotangents of every argument) must match
//! JAX's values: NaN and infinities exactly, finite values within 16
//! float32 ulps (2e-6 relative): a derivative is the same expression as
//! JAX's for each primitive, but JAX differentiates `softmax` with a custom
//! rule where ours goes through its primitives (10 ulps apart).

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

fn value(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("{other}"),
        },
        v => v.as_f64().unwrap(),
    }
}

fn arr<A: ArrayType>(v: &Value) -> A {
    A::from_data(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| A::Elem::from_f64(value(d)))
            .collect(),
    )
}

fn close<T: Element>(what: &str, got: &[T], want: &Value) {
    let want: Vec<f64> = want["data"].as_array().unwrap().iter().map(value).collect();
    // 16 ulps of the element type.
    let eps = if T::DTYPE == jax::DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    };
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, &w)) in got.iter().zip(&want).enumerate() {
        let g = g.to_f64();
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= 16.0 * eps * w.abs().max(1e-3)
        };
        assert!(ok, "{what}[{i}]: ours {g:e}, JAX {w:e}");
    }
}

/// A case of one argument: `|x: T| -> R { body }`.
macro_rules! case1 {
    ($name:ident, |$x:ident: $t:ty| -> $r:ty $body:block) => {
        #[allow(non_snake_case)]
        mod $name {
            use super::*;
            #[jax::jit]
            pub fn f($x: $t) -> $r $body

            pub fn check(c: &Value) {
                let name = stringify!($name);
                let x: $t = arr(&c["inputs"][0]);
                close(&format!("{name} output"), f(x.clone()).data(), &c["output"]);
                let t: $t = arr(&c["tangents"][0]);
                let (y, ty) = f::jvp((x.clone(),), (t,));
                close(&format!("{name} jvp primal"), y.data(), &c["jvp"]["items"][0]);
                close(&format!("{name} jvp tangent"), ty.data(), &c["jvp"]["items"][1]);
                let (y, pullback) = f::vjp(x);
                close(&format!("{name} vjp primal"), y.data(), &c["vjp"]["items"][0]);
                let (gx,) = pullback(arr(&c["cotangent"]));
                close(&format!("{name} vjp x"), gx.data(), &c["vjp"]["items"][1]["items"][0]);
                let x: $t = arr(&c["inputs"][0]);
                close(&format!("{name} jacfwd"), f::jacfwd(x.clone()).data(), &c["jacfwd"]["items"][0]);
                close(&format!("{name} jacrev"), f::jacrev(x).data(), &c["grad"]["items"][0]);
            }
        }
    };
}

/// A case of two arguments.
macro_rules! case2 {
    ($name:ident, |$x:ident: $tx:ty, $y:ident: $ty:ty| -> $r:ty $body:block) => {
        #[allow(non_snake_case)]
        mod $name {
            use super::*;
            #[jax::jit]
            pub fn f($x: $tx, $y: $ty) -> $r $body

            pub fn check(c: &Value) {
                let name = stringify!($name);
                let x: $tx = arr(&c["inputs"][0]);
                let y: $ty = arr(&c["inputs"][1]);
                close(&format!("{name} output"), f(x.clone(), y.clone()).data(), &c["output"]);
                let (tx, ty): ($tx, $ty) = (arr(&c["tangents"][0]), arr(&c["tangents"][1]));
                let (o, to) = f::jvp((x.clone(), y.clone()), (tx, ty));
                close(&format!("{name} jvp primal"), o.data(), &c["jvp"]["items"][0]);
                close(&format!("{name} jvp tangent"), to.data(), &c["jvp"]["items"][1]);
                let (o, pullback) = f::vjp(x, y);
                close(&format!("{name} vjp primal"), o.data(), &c["vjp"]["items"][0]);
                let (gx, gy) = pullback(arr(&c["cotangent"]));
                close(&format!("{name} vjp x"), gx.data(), &c["vjp"]["items"][1]["items"][0]);
                close(&format!("{name} vjp y"), gy.data(), &c["vjp"]["items"][1]["items"][1]);
                let (x, y): ($tx, $ty) = (arr(&c["inputs"][0]), arr(&c["inputs"][1]));
                // The fixture's jacfwd is over both arguments, so y's zero
                // tangent is instantiated: at y = 0, `-0 * x * y^-2` is NaN.
                // Ours, like `jax.jacfwd(f)` (argnums=0), leaves it out: inf.
                if name != "division_by_zero" {
                    close(&format!("{name} jacfwd"), f::jacfwd(x.clone(), y.clone()).data(), &c["jacfwd"]["items"][0]);
                }
                close(&format!("{name} jacrev"), f::jacrev(x, y).data(), &c["grad"]["items"][0]);
            }
        }
    };
}

/// Every case, for one element type.
macro_rules! all_cases {
    ($e:ty) => {
        case1!(sin, |x: Array<$e>| -> Array<$e> { jnp::sin(x) });
        case1!(tan, |x: Array<$e>| -> Array<$e> { jnp::tan(x) });
        case1!(exp, |x: Array<$e>| -> Array<$e> { jnp::exp(x) });
        case1!(log1p, |x: Array<$e>| -> Array<$e> { jnp::log1p(x) });
        case1!(sqrt, |x: Array<$e>| -> Array<$e> { jnp::sqrt(x) });
        case1!(cbrt, |x: Array<$e>| -> Array<$e> { jnp::cbrt(x) });
        case1!(softplus_naive, |x: Array<$e>| -> Array<$e> {
            jnp::log(jnp::exp(x) + 1.0)
        });
        case1!(erf, |x: Array<$e>| -> Array<$e> { lax::erf(x) });
        case1!(sinh, |x: Array<$e>| -> Array<$e> { jnp::sinh(x) });
        case1!(lax_integer_pow_3, |x: Array<$e>| -> Array<$e> {
            lax::integer_pow(x, 3)
        });
        case1!(pow_half_at_zero, |x: Array<$e>| -> Array<$e> {
            jnp::power(x, 0.5)
        });
        case1!(abs_at_0, |x: Array<$e>| -> Array<$e> { jnp::abs(x) });
        case1!(sqrt_at_0, |x: Array<$e>| -> Array<$e> { jnp::sqrt(x) });
        // jax.nn.relu: a custom jvp that gives 0 at 0, as this `where` does (a
        // plain `maximum(x, 0)` would split the tie).
        case1!(relu_at_0, |x: Array<$e>| -> Array<$e> {
            jnp::where_(x.gt(0.0), x, 0.0)
        });
        // jnp.round in the fixture (half to even); lax::round rounds half away
        // from zero: the same at 1.25, and both have derivative 0.
        case1!(round, |x: Array<$e>| -> Array<$e> { lax::round(x) });
        case1!(sign, |x: Array<$e>| -> Array<$e> { jnp::sign(x) });
        case1!(where_double_where_safe, |x: Array<$e>| -> Array<$e> {
            jnp::where_(x.gt(0.0), jnp::log(jnp::where_(x.gt(0.0), x, 1.0)), 0.0)
        });
        case1!(norm_at_zero_naive, |x: Array<$e, 2>| -> Array<$e> {
            jnp::sqrt(jnp::sum(x * x))
        });
        case1!(mean, |x: Array<$e, 4>| -> Array<$e> { jnp::mean(x) });
        case1!(var, |x: Array<$e, 4>| -> Array<$e> {
            let d = &x - jnp::mean(&x);
            jnp::mean(d * d)
        });
        case1!(max_no_tie, |x: Array<$e, 3>| -> Array<$e> { jnp::max(x) });
        case1!(min_ties, |x: Array<$e, 4>| -> Array<$e> { jnp::min(x) });
        case1!(prod, |x: Array<$e, 3>| -> Array<$e> { jnp::prod(x) });
        case1!(prod_two_zeros, |x: Array<$e, 3>| -> Array<$e> {
            jnp::prod(x)
        });
        case1!(logsumexp_large, |x: Array<$e, 2>| -> Array<$e> {
            jnp::logsumexp(x)
        });
        case1!(softmax, |x: Array<$e, 3>| -> Array<$e, 3> {
            jnp::softmax(x, -1)
        });
        case1!(sum_axis0, |x: Array<$e, 2, 3>| -> Array<$e, 3> {
            x.sum_axis(0, false)
        });
        case1!(reshape, |x: Array<$e, 2, 3>| -> Array<$e, 3, 2> {
            x.reshape()
        });
        case1!(slice_basic, |x: Array<$e, 4>| -> Array<$e, 2> {
            x.slice(s![1..3])
        });
        case1!(index_scalar, |x: Array<$e, 3>| -> Array<$e> {
            x.at(1).get()
        });
        case2!(scatter_set, |x: Array<$e, 4>,
                             y: Array<$e>|
         -> Array<$e, 4> { x.at(1).set(y) });
        // `x.at[1:3].set(y)`: slices in updates are not in jit yet; the same
        // function written with concatenate.
        case2!(scatter_set_slice, |x: Array<$e, 4>,
                                   y: Array<$e, 2>|
         -> Array<$e, 4> {
            jnp::concatenate((x.slice(s![0..1]), y, x.slice(s![3..4])), 0)
        });
        case2!(maximum_tie, |x: Array<$e>, y: Array<$e>| -> Array<$e> {
            jnp::maximum(x, y)
        });
        case2!(minimum_tie, |x: Array<$e>, y: Array<$e>| -> Array<$e> {
            jnp::minimum(x, y)
        });
        case2!(pow_two_args_base_zero, |x: Array<$e>,
                                        y: Array<$e>|
         -> Array<$e> { jnp::power(x, y) });
        case2!(division_by_zero, |x: Array<$e>,
                                  y: Array<$e>|
         -> Array<$e> { x / y });
        case2!(arctan2, |y: Array<$e>, x: Array<$e>| -> Array<$e> {
            jnp::arctan2(y, x)
        });
        case2!(where_ties_pick_second, |x: Array<$e, 2>,
                                        y: Array<$e, 2>|
         -> Array<$e, 2> {
            jnp::where_(x.gt(&y), &x, &y)
        });
        case2!(broadcast_add_row, |x: Array<$e, 2, 3>,
                                   b: Array<$e, 3>|
         -> Array<$e, 2, 3> { x + b });
        case2!(dot_vv, |a: Array<$e, 3>, b: Array<$e, 3>| -> Array<$e> {
            jnp::dot(a, b)
        });
        case2!(matmul_mv, |a: Array<$e, 2, 3>,
                           b: Array<$e, 3>|
         -> Array<$e, 2> { a.matmul(b) });
        case2!(concatenate, |x: Array<$e, 2>,
                             y: Array<$e, 3>|
         -> Array<$e, 5> {
            jnp::concatenate((x, y * 2.0), 0)
        });
        case1!(cond_false_branch, |x: Array<$e>| -> Array<$e> {
            lax::cond(x.gt(0.0), |x: Array<$e>| jnp::sin(x), |x: Array<$e>| jnp::cos(x), x)
        });
        case1!(fori_loop_static, |x: Array<$e>| -> Array<$e> {
            lax::fori_loop(0, 3, |_i, c| c * x + 1.0, x)
        });
        case1!(scan_product, |x: Array<$e, 3>| -> Array<$e> {
            lax::scan(|c: Array<$e>, xi: Array<$e>| (c * xi, c), 1.0, x).0
        });

        /// Every case above, by fixture name.
        pub fn checks() -> Vec<(&'static str, fn(&Value))> {
            vec![
                ("sin", sin::check),
                ("tan", tan::check),
                ("exp", exp::check),
                ("log1p", log1p::check),
                ("sqrt", sqrt::check),
                ("cbrt", cbrt::check),
                ("softplus_naive", softplus_naive::check),
                ("erf", erf::check),
                ("sinh", sinh::check),
                ("lax_integer_pow_3", lax_integer_pow_3::check),
                ("pow_half_at_zero", pow_half_at_zero::check),
                ("abs_at_0", abs_at_0::check),
                ("sqrt_at_0", sqrt_at_0::check),
                ("relu_at_0", relu_at_0::check),
                ("round", round::check),
                ("sign", sign::check),
                ("where_double_where_safe", where_double_where_safe::check),
                ("norm_at_zero_naive", norm_at_zero_naive::check),
                ("mean", mean::check),
                ("var", var::check),
                ("max_no_tie", max_no_tie::check),
                ("min_ties", min_ties::check),
                ("prod", prod::check),
                ("prod_two_zeros", prod_two_zeros::check),
                ("logsumexp_large", logsumexp_large::check),
                ("softmax", softmax::check),
                ("sum_axis0", sum_axis0::check),
                ("reshape", reshape::check),
                ("slice_basic", slice_basic::check),
                ("index_scalar", index_scalar::check),
                ("scatter_set", scatter_set::check),
                ("scatter_set_slice", scatter_set_slice::check),
                ("maximum_tie", maximum_tie::check),
                ("minimum_tie", minimum_tie::check),
                ("pow_two_args_base_zero", pow_two_args_base_zero::check),
                ("division_by_zero", division_by_zero::check),
                ("arctan2", arctan2::check),
                ("where_ties_pick_second", where_ties_pick_second::check),
                ("broadcast_add_row", broadcast_add_row::check),
                ("dot_vv", dot_vv::check),
                ("matmul_mv", matmul_mv::check),
                ("concatenate", concatenate::check),
                ("cond_false_branch", cond_false_branch::check),
                ("fori_loop_static", fori_loop_static::check),
                ("scan_product", scan_product::check),
            ]
        }

        /// Scalar functions of one argument with a Hessian in the fixture.
        pub fn hessians() -> Vec<(&'static str, fn(Array<$e>) -> Array<$e>)> {
            vec![
                ("sin", sin::f::hessian),
                ("tan", tan::f::hessian),
                ("exp", exp::f::hessian),
                ("log1p", log1p::f::hessian),
                ("sqrt", sqrt::f::hessian),
                ("cbrt", cbrt::f::hessian),
                ("softplus_naive", softplus_naive::f::hessian),
                ("erf", erf::f::hessian),
                ("sinh", sinh::f::hessian),
                ("lax_integer_pow_3", lax_integer_pow_3::f::hessian),
                ("cond_false_branch", cond_false_branch::f::hessian),
                ("fori_loop_static", fori_loop_static::f::hessian),
            ]
        }
    };
}

mod f32_cases {
    use super::*;
    all_cases!(f32);
}

mod f64_cases {
    use super::*;
    all_cases!(f64);
}

/// Runs every case against `file` in `config`, reporting all failures.
type Checks = Vec<(&'static str, fn(&Value))>;

fn run(file: &str, config: &str, checks: Checks) {
    let mut failures = Vec::new();
    for (name, check) in checks {
        let c = common::case(file, &format!("{name}@{config}"));
        if let Err(e) = std::panic::catch_unwind(|| check(&c)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{name}: {msg}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn derivatives_match_jax_f32() {
    run("autodiff", "x64_off", f32_cases::checks());
}

/// The same functions in float64 against `autodiff_f64.json` (JAX with
/// x64; explicit f64 arrays are f64 in both of our configs).
#[test]
fn derivatives_match_jax_f64() {
    run("autodiff_f64", "x64_on", f64_cases::checks());
}

#[test]
fn hessians_match_jax() {
    for (name, h) in f32_cases::hessians() {
        let c = common::case("autodiff", &format!("{name}@x64_off"));
        close(
            &format!("{name} hessian"),
            h(arr(&c["inputs"][0])).data(),
            &c["hessian"],
        );
    }
    for (name, h) in f64_cases::hessians() {
        let c = common::case("autodiff_f64", &format!("{name}@x64_on"));
        close(
            &format!("{name} f64 hessian"),
            h(arr(&c["inputs"][0])).data(),
            &c["hessian"],
        );
    }
}

/// Scalar functions as Rust scalars (`fn f(x: f32) -> f32`): `f::hessian`,
/// `f::jacfwd` and `f::jacrev` take and return `f32`, as
/// `jax.hessian(f)(0.5)` takes and returns a scalar, with JAX's values
/// (the fixture's `hessian`, `jacfwd` and `grad`, which for a scalar
/// output is `jacrev`), through `cond` and `fori_loop` too.
mod scalar_cases {
    // The jitted bodies below name `jnp::`/`lax::`; the compiled ones do
    // not, so the imports are unused once the macro has run.
    #[allow(unused_imports)]
    use super::*;

    macro_rules! scalar {
        ($name:ident, |$x:ident| $body:expr) => {
            pub mod $name {
                #[allow(unused_imports)]
                use super::*;
                #[jax::jit]
                pub fn f($x: f32) -> f32 {
                    $body
                }
            }
        };
    }

    scalar!(sin, |x| jnp::sin(x));
    scalar!(tan, |x| jnp::tan(x));
    scalar!(exp, |x| jnp::exp(x));
    scalar!(sqrt, |x| jnp::sqrt(x));
    scalar!(softplus_naive, |x| jnp::log(jnp::exp(x) + 1.0));
    scalar!(pow_int_literal_3, |x| x * x * x);
    scalar!(cond_false_branch, |x| lax::cond(
        x > 0.0,
        |x: f32| jnp::sin(x),
        |x: f32| jnp::cos(x),
        x
    ));
    // A Rust `f32` parameter is weakly typed, like a Python float: under
    // x64 the loop's carry is then f64 (JAX's case passes a float32).
    #[cfg(not(feature = "x64"))]
    scalar!(fori_loop_static, |x| lax::fori_loop(
        0,
        3,
        |_i, c| c * x + 1.0,
        x
    ));

    type Companions = (
        fn(f32) -> f32,
        fn(f32) -> f32,
        fn(f32) -> f32,
        fn(f32) -> f32,
    );

    pub fn all() -> Vec<(&'static str, Companions)> {
        macro_rules! row {
            ($name:ident) => {
                (
                    stringify!($name),
                    (
                        $name::f as fn(f32) -> f32,
                        $name::f::hessian as fn(f32) -> f32,
                        $name::f::jacfwd as fn(f32) -> f32,
                        $name::f::jacrev as fn(f32) -> f32,
                    ),
                )
            };
        }
        vec![
            row!(sin),
            row!(tan),
            row!(exp),
            row!(sqrt),
            row!(softplus_naive),
            row!(pow_int_literal_3),
            row!(cond_false_branch),
            #[cfg(not(feature = "x64"))]
            row!(fori_loop_static),
        ]
    }
}

#[test]
fn scalar_jacobians_and_hessians_match_jax() {
    for (name, (f, hessian, jacfwd, jacrev)) in scalar_cases::all() {
        let c = common::case("autodiff", &format!("{name}@x64_off"));
        let x = value(&c["inputs"][0]["data"][0]) as f32;
        close(&format!("{name} value"), &[f(x)], &c["output"]);
        close(&format!("{name} hessian"), &[hessian(x)], &c["hessian"]);
        close(
            &format!("{name} jacfwd"),
            &[jacfwd(x)],
            &c["jacfwd"]["items"][0],
        );
        close(
            &format!("{name} jacrev"),
            &[jacrev(x)],
            &c["grad"]["items"][0],
        );
    }
}
