//! `jax::nn`, `jnp::logaddexp`, `jax::scipy::special` and
//! `jax::scipy::stats::norm` against real JAX (`tests/fixtures/nn.json`,
//! from `tests/fixtures/gen/nn.py`): values eagerly and in `#[jax::jit]` on
//! grids with the special points, and gradients in jit (`f::grad`), where
//! JAX's derivative conventions show (`relu'(0) = 0`, `softplus` at large
//! `x`, `logaddexp` at infinities, `xlogy` at 0).

use crate::common;

use jax::nn;
use jax::prelude::*;
use jax::scipy::special;
use jax::scipy::stats::norm;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| f32::from_bits(b.as_u64().unwrap() as u32))
        .collect()
}

fn case(name: &str) -> Value {
    common::case("nn", name)
}

/// Within `ulps` units in the last place (NaN matches NaN, infinities and
/// zeros match exactly, up to the sign of zero), or within `abs`: XLA's CPU
/// backend flushes subnormal results to zero (`sigmoid(-100)` is 0 in JAX)
/// and fuses multiply-adds (`logaddexp2(-1, -1)` is -1e-8 in JAX, not 0),
/// which shows only where a result is tiny.
fn near(got: f32, want: f32, ulps: u32, abs: f32) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if got == want || (got - want).abs() <= abs {
        return true;
    }
    if !want.is_finite() || !got.is_finite() {
        return false;
    }
    // Below the smallest normal XLA flushes to zero.
    if want.abs() < f32::MIN_POSITIVE && got.abs() < f32::MIN_POSITIVE {
        return true;
    }
    let key = |v: f32| {
        let b = v.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    (key(got) - key(want)).unsigned_abs() <= ulps as u64
}

#[track_caller]
fn check(what: &str, x: &[f32], got: &[f32], want: &[f32], ulps: u32) {
    check_abs(what, x, got, want, ulps, 1e-35)
}

#[track_caller]
fn check_abs(what: &str, x: &[f32], got: &[f32], want: &[f32], ulps: u32, abs: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let bad: Vec<String> = x
        .iter()
        .zip(got.iter().zip(want))
        .filter(|(_, (g, w))| !near(**g, **w, ulps, abs))
        .map(|(x, (g, w))| format!("at {x}: got {g:e}, JAX {w:e}"))
        .collect();
    assert!(bad.is_empty(), "{what}:\n  {}", bad.join("\n  "));
}

/// One jitted scalar function per fixture name, with its eager twin.
macro_rules! scalar_fns {
    ($($name:ident: |$x:ident| $jit:expr, $eager:expr;)*) => {
        $(
            #[jax::jit]
            fn $name($x: Array<f32>) -> Array<f32> {
                $jit
            }
        )*
        /// (fixture name, eager, jitted, jitted gradient)
        #[allow(clippy::type_complexity)]
        fn unary_fns() -> Vec<(&'static str, fn(Array<f32>) -> Array<f32>, fn(Array<f32>) -> Array<f32>, fn(Array<f32>) -> Array<f32>)> {
            vec![$((stringify!($name), $eager, $name, $name::grad)),*]
        }
    };
}

scalar_fns! {
    relu: |x| nn::relu(x), |x| nn::relu(x);
    relu6: |x| nn::relu6(x), |x| nn::relu6(x);
    sigmoid: |x| nn::sigmoid(x), |x| nn::sigmoid(x);
    log_sigmoid: |x| nn::log_sigmoid(x), |x| nn::log_sigmoid(x);
    softplus: |x| nn::softplus(x), |x| nn::softplus(x);
    silu: |x| nn::silu(x), |x| nn::silu(x);
    gelu_tanh: |x| nn::gelu(x, true), |x| nn::gelu(x, true);
    gelu_erf: |x| nn::gelu(x, false), |x| nn::gelu(x, false);
    elu: |x| nn::elu(x, 0.5), |x| nn::elu(x, 0.5);
    leaky_relu: |x| nn::leaky_relu(x, 0.01), |x| nn::leaky_relu(x, 0.01);
    celu: |x| nn::celu(x, 2.0), |x| nn::celu(x, 2.0);
    selu: |x| nn::selu(x), |x| nn::selu(x);
    hard_tanh: |x| nn::hard_tanh(x), |x| nn::hard_tanh(x);
    erf: |x| special::erf(x), |x| special::erf(x);
    erfc: |x| special::erfc(x), |x| special::erfc(x);
    expit: |x| special::expit(x), |x| special::expit(x);
    logit: |x| special::logit(x), |x| special::logit(x);
    erfinv: |x| special::erfinv(x), |x| special::erfinv(x);
    norm_pdf: |x| norm::pdf(x), |x| norm::pdf(x);
    norm_logpdf: |x| norm::logpdf(x), |x| norm::logpdf(x);
    norm_cdf: |x| norm::cdf(x), |x| norm::cdf(x);
    norm_pdf_with: |x| norm::pdf_with(x, 1.0, 2.0), |x| norm::pdf_with(x, 1.0, 2.0);
    norm_logpdf_with: |x| norm::logpdf_with(x, -1.0, 0.5), |x| norm::logpdf_with(x, -1.0, 0.5);
    norm_cdf_with: |x| norm::cdf_with(x, 1.0, 3.0), |x| norm::cdf_with(x, 1.0, 3.0);
    norm_logcdf: |x| norm::logcdf(x), |x| norm::logcdf(x);
    norm_logcdf_with: |x| norm::logcdf_with(x, 1.0, 3.0), |x| norm::logcdf_with(x, 1.0, 3.0);
    norm_ppf: |x| norm::ppf(x), |x| norm::ppf(x);
    norm_ppf_with: |x| norm::ppf_with(x, 1.0, 2.0), |x| norm::ppf_with(x, 1.0, 2.0);
}

/// Ulps allowed per function: erfinv is computed differently from XLA's
/// polynomial (Newton steps in f64), and erfc is libm's, so they round
/// differently in the tails; XLA's CPU
/// backend fuses `x + 0.044715 x³` (gelu's tanh form) and `max + alpha
/// expm1(..)` (celu) into FMAs, which the jitted loops do not.
fn ulps(name: &str) -> u32 {
    match name {
        "erfinv" | "gelu_erf" | "erfc" => 16,
        "gelu_tanh" | "celu" => 32,
        // ndtr's tails are erfc's deep tail, where libm's erfcf and XLA's
        // f32 erfc are ~60 ulps apart (2.4899754e-25 vs 2.4899561e-25).
        "norm_cdf" | "norm_cdf_with" | "norm_logcdf" | "norm_logcdf_with" => 128,
        _ => 4,
    }
}

#[test]
fn unary_values_and_gradients_match_jax() {
    for (name, eager, jit, grad) in unary_fns() {
        let c = case(name);
        let (x, want) = (floats(&c["x"]), floats(&c["y"]));
        let scalar = |f: fn(Array<f32>) -> Array<f32>| -> Vec<f32> {
            x.iter().map(|&v| f(Array::from(v)).item()).collect()
        };
        check(
            &format!("{name} eager"),
            &x,
            &scalar(eager),
            &want,
            ulps(name),
        );
        check(&format!("{name} jit"), &x, &scalar(jit), &want, ulps(name));
        let (gx, gwant) = (floats(&c["gx"]), floats(&c["grad"]));
        let got: Vec<f32> = gx.iter().map(|&v| grad(Array::from(v)).item()).collect();
        // gelu's tanh form computes 1 + tanh(..) near -1 in its tail: one
        // ulp of tanh there is 1e-4 of the gradient (JAX's own f32 gradient
        // is 2e-5 from the exact one at -3.5).
        let abs = if name == "gelu_tanh" { 1e-6 } else { 1e-35 };
        // erfinv' = √π/2 exp(erfinv(x)²) turns erfinv's ulps near 1 into ~100.
        let gulps = if name == "erfinv" {
            128
        } else {
            ulps(name) + 4
        };
        check_abs(&format!("{name} grad"), &gx, &got, &gwant, gulps, abs);
    }
}

/// The fixture's gradient of `name` at `x`.
fn jax_grad_at(name: &str, x: f32) -> f32 {
    let c = case(name);
    let (gx, g) = (floats(&c["gx"]), floats(&c["grad"]));
    let i = gx.iter().position(|v| v.to_bits() == x.to_bits()).unwrap();
    g[i]
}

#[test]
fn special_points_of_the_derivatives_are_jax_conventions() {
    // relu'(0) is JAX's custom_jvp value (0), not max's tie rule (1/2).
    let want = jax_grad_at("relu", 0.0);
    assert_eq!(relu::grad(Array::from(0.0f32)).item(), want);
    assert_ne!(want, 0.5);
    assert_eq!(
        relu6::grad(Array::from(6.0f32)).item(),
        jax_grad_at("relu6", 6.0)
    );
    // softplus' = sigmoid, finite at large |x|.
    for x in [100.0f32, -100.0, 30.0] {
        let got = softplus::grad(Array::from(x)).item();
        assert!(
            near(got, jax_grad_at("softplus", x), 2, 1e-35),
            "softplus'({x}) = {got}"
        );
    }
}

#[jax::jit]
fn gammaln_jit(x: Array<f32>) -> Array<f32> {
    special::gammaln(x)
}

#[jax::jit]
fn digamma_jit(x: Array<f32>) -> Array<f32> {
    special::digamma(x)
}

#[test]
fn gamma_functions_match_jax() {
    for name in ["gammaln", "digamma"] {
        let c = case(name);
        let (x, want) = (floats(&c["x"]), floats(&c["y"]));
        let (eager, jit): (Vec<f32>, Vec<f32>) = if name == "gammaln" {
            (
                x.iter()
                    .map(|&v| special::gammaln(Array::from(v)).item())
                    .collect(),
                x.iter()
                    .map(|&v| gammaln_jit(Array::from(v)).item())
                    .collect(),
            )
        } else {
            (
                x.iter()
                    .map(|&v| special::digamma(Array::from(v)).item())
                    .collect(),
                x.iter()
                    .map(|&v| digamma_jit(Array::from(v)).item())
                    .collect(),
            )
        };
        check(&format!("{name} eager"), &x, &eager, &want, 4);
        check(&format!("{name} jit"), &x, &jit, &want, 4);
    }
    // gammaln' = digamma.
    let c = case("gammaln");
    let (gx, gwant) = (floats(&c["gx"]), floats(&c["grad"]));
    let got: Vec<f32> = gx
        .iter()
        .map(|&v| gammaln_jit::grad(Array::from(v)).item())
        .collect();
    check("gammaln grad", &gx, &got, &gwant, 8);
}

#[jax::jit(argnums = (0, 1))]
fn logaddexp_jit(x: Array<f32>, y: Array<f32>) -> Array<f32> {
    jnp::logaddexp(x, y)
}
#[jax::jit(argnums = (0, 1))]
fn logaddexp2_jit(x: Array<f32>, y: Array<f32>) -> Array<f32> {
    jnp::logaddexp2(x, y)
}
#[jax::jit(argnums = (0, 1))]
fn xlogy_jit(x: Array<f32>, y: Array<f32>) -> Array<f32> {
    special::xlogy(x, y)
}
#[jax::jit(argnums = (0, 1))]
fn xlog1py_jit(x: Array<f32>, y: Array<f32>) -> Array<f32> {
    special::xlog1py(x, y)
}

type Binary = fn(Array<f32>, Array<f32>) -> Array<f32>;
type BinaryGrad = fn(Array<f32>, Array<f32>) -> (Array<f32>, Array<f32>);

#[test]
fn binary_values_and_gradients_match_jax() {
    let fns: [(&str, Binary, Binary, BinaryGrad); 4] = [
        (
            "logaddexp",
            |x, y| jnp::logaddexp(x, y),
            logaddexp_jit,
            logaddexp_jit::grad,
        ),
        (
            "logaddexp2",
            |x, y| jnp::logaddexp2(x, y),
            logaddexp2_jit,
            logaddexp2_jit::grad,
        ),
        (
            "xlogy",
            |x, y| special::xlogy(x, y),
            xlogy_jit,
            xlogy_jit::grad,
        ),
        (
            "xlog1py",
            |x, y| special::xlog1py(x, y),
            xlog1py_jit,
            xlog1py_jit::grad,
        ),
    ];
    for (name, eager, jit, grads) in fns {
        let c = case(name);
        let (x, y, want) = (floats(&c["x"]), floats(&c["y"]), floats(&c["out"]));
        let pairs = |f: Binary| -> Vec<f32> {
            x.iter()
                .zip(&y)
                .map(|(&a, &b)| f(Array::from(a), Array::from(b)).item())
                .collect()
        };
        check_abs(&format!("{name} eager"), &x, &pairs(eager), &want, 4, 1e-6);
        check_abs(&format!("{name} jit"), &x, &pairs(jit), &want, 4, 1e-6);
        let (gx, gy) = (floats(&c["gx"]), floats(&c["gy"]));
        let (wx, wy) = (floats(&c["grad_x"]), floats(&c["grad_y"]));
        let got: Vec<(f32, f32)> = gx
            .iter()
            .zip(&gy)
            .map(|(&a, &b)| {
                let (p, q) = grads(Array::from(a), Array::from(b));
                (p.item(), q.item())
            })
            .collect();
        let (px, py): (Vec<f32>, Vec<f32>) = got.into_iter().unzip();
        // XLA computes exp2 as exp(x ln 2), a few ulps from the exact power.
        let ulps = if name == "logaddexp2" { 64 } else { 8 };
        check_abs(&format!("{name} d/dx"), &gx, &px, &wx, ulps, 1e-6);
        check_abs(&format!("{name} d/dy"), &gy, &py, &wy, ulps, 1e-6);
    }
}

#[jax::jit]
fn softmax_jit(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::softmax(x, -1)
}
#[jax::jit]
fn log_softmax_jit(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::log_softmax(x, 0)
}
#[jax::jit]
fn standardize_jit(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::standardize(x, -1, 1e-5)
}
#[jax::jit]
fn glu_jit(x: &Array<f32, 2, 6>) -> Array<f32, 2, 3> {
    nn::glu(x, -1)
}
#[jax::jit]
fn logsumexp_jit(x: &Array<f32, 2, 6>) -> Array<f32, 2> {
    nn::logsumexp(x, 1, false)
}

// Scalar objectives `sum(f(x) * t)` for the gradients the fixture holds.
#[jax::jit]
fn softmax_obj(x: &Array<f32, 2, 6>, t: &Array<f32, 2, 6>) -> Array<f32> {
    (nn::softmax(x, -1) * t).sum()
}
#[jax::jit]
fn log_softmax_obj(x: &Array<f32, 2, 6>, t: &Array<f32, 2, 6>) -> Array<f32> {
    (nn::log_softmax(x, 0) * t).sum()
}
#[jax::jit]
fn standardize_obj(x: &Array<f32, 2, 6>, t: &Array<f32, 2, 6>) -> Array<f32> {
    (nn::standardize(x, -1, 1e-5) * t).sum()
}
#[jax::jit]
fn glu_obj(x: &Array<f32, 2, 6>, t: &Array<f32, 2, 3>) -> Array<f32> {
    (nn::glu(x, -1) * t).sum()
}
#[jax::jit]
fn logsumexp_obj(x: &Array<f32, 2, 6>) -> Array<f32> {
    nn::logsumexp(x, 1, false).sum()
}

#[test]
fn axis_functions_match_jax() {
    let arr = |v: &Value| Array::<f32, 2, 6>::from_vec(floats(v)).unwrap();
    let c = case("softmax");
    let (x, t) = (arr(&c["x"]), arr(&c["t"]));
    let t3: Array<f32, 2, 3> = (&t).at(s![.., 0..3]).get();
    let xs = x.to_vec();
    for name in ["softmax", "log_softmax", "standardize", "glu", "logsumexp"] {
        let c = case(name);
        let want = floats(&c["y"]);
        let (eager, jit): (Vec<f32>, Vec<f32>) = match name {
            "softmax" => (nn::softmax(&x, -1).to_vec(), softmax_jit(&x).to_vec()),
            "log_softmax" => (
                nn::log_softmax(&x, 0).to_vec(),
                log_softmax_jit(&x).to_vec(),
            ),
            "standardize" => (
                nn::standardize(&x, -1, 1e-5).to_vec(),
                standardize_jit(&x).to_vec(),
            ),
            "glu" => {
                let e: Array<f32, 2, 3> = nn::glu(&x, -1);
                (e.to_vec(), glu_jit(&x).to_vec())
            }
            _ => {
                let e: Array<f32, 2> = nn::logsumexp(&x, 1, false);
                (e.to_vec(), logsumexp_jit(&x).to_vec())
            }
        };
        check(&format!("{name} eager"), &xs, &eager, &want, 4);
        check(&format!("{name} jit"), &xs, &jit, &want, 4);
        let g = match name {
            "softmax" => softmax_obj::grad(&x, &t).to_vec(),
            "log_softmax" => log_softmax_obj::grad(&x, &t).to_vec(),
            "standardize" => standardize_obj::grad(&x, &t).to_vec(),
            "glu" => glu_obj::grad(&x, &t3).to_vec(),
            _ => logsumexp_obj::grad(&x).to_vec(),
        };
        check(&format!("{name} grad"), &xs, &g, &floats(&c["grad"]), 16);
    }
}

#[jax::jit]
fn softmax_jvp_fn(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::softmax(x, -1)
}

#[test]
fn softmax_jvp_matches_jax() {
    let c = case("softmax");
    let x = Array::<f32, 2, 6>::from_vec(floats(&c["x"])).unwrap();
    let t = Array::<f32, 2, 6>::from_vec(floats(&c["t"])).unwrap();
    let (_, jt) = softmax_jvp_fn::jvp((&x,), (&t,));
    check(
        "softmax jvp",
        &x.to_vec(),
        &jt.to_vec(),
        &floats(&c["jvp"]),
        16,
    );
}

#[jax::jit]
fn one_hot_jit(l: &Array<i32, 5>) -> Array<f32, 5, 3> {
    nn::one_hot(l, 3)
}

#[test]
fn one_hot_matches_jax() {
    let c = case("one_hot");
    let labels: Vec<i32> = c["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap() as i32)
        .collect();
    let l = Array::<i32, 5>::from_vec(labels).unwrap();
    let want = floats(&c["y"]);
    let eager: Array<f32, 5, 3> = nn::one_hot(&l, 3);
    assert_eq!(eager.to_vec(), want);
    assert_eq!(one_hot_jit(&l).to_vec(), want);
}

#[jax::jit]
fn relu2(x: Array<f32>, _y: Array<f32>) -> Array<f32> {
    nn::relu(x)
}
#[jax::jit]
fn softplus2(x: Array<f32>, _y: Array<f32>) -> Array<f32> {
    nn::softplus(x)
}

#[test]
fn jvps_at_special_points_match_jax() {
    type Jvp = fn((Array<f32>, Array<f32>), (Array<f32>, Array<f32>)) -> (Array<f32>, Array<f32>);
    let fns: [(&str, Jvp); 5] = [
        ("relu", |p, t| relu2::jvp(p, t)),
        ("softplus", |p, t| softplus2::jvp(p, t)),
        ("logaddexp", |p, t| logaddexp_jit::jvp(p, t)),
        ("xlogy", |p, t| xlogy_jit::jvp(p, t)),
        ("xlog1py", |p, t| xlog1py_jit::jvp(p, t)),
    ];
    let cases: Vec<Value> = common::cases("nn")
        .into_iter()
        .filter(|c| c["kind"] == "jvp")
        .collect();
    assert_eq!(cases.len(), 8);
    for c in cases {
        let name = c["fn"].as_str().unwrap();
        let f = fns.iter().find(|(n, _)| *n == name).unwrap().1;
        let one = |k: &str| Array::from(floats(&c[k])[0]);
        let (out, t) = f((one("x"), one("y")), (one("tx"), one("ty")));
        let what = c["name"].as_str().unwrap();
        check(what, &floats(&c["x"]), &[out.item()], &floats(&c["out"]), 4);
        check(
            what,
            &floats(&c["x"]),
            &[t.item()],
            &floats(&c["tangent"]),
            4,
        );
    }
}

// Eager softmax, log_softmax and standardize run the one text as a unit
// (`runtime/eager/unit.rs`): row by row, by blocks of rows, or whole, by
// shape, axis and dtype. Each way gives the jitted function's bits.
#[jax::jit]
fn units_rows(
    x: &Array<f32, 300, 100>,
) -> (
    Array<f32, 300, 100>,
    Array<f32, 300, 100>,
    Array<f32, 300, 100>,
) {
    (
        nn::softmax(x, -1),
        nn::log_softmax(x, 1),
        nn::standardize(x, -1, 1e-5),
    )
}
#[jax::jit]
fn units_middle(x: &Array<f32, 40, 50, 9>) -> (Array<f32, 40, 50, 9>, Array<f32, 40, 50, 9>) {
    (nn::softmax(x, 1), nn::standardize(x, -2, 1e-3))
}
#[jax::jit]
fn units_first(x: &Array<f64, 70, 3>) -> (Array<f64, 70, 3>, Array<f64, 70, 3>) {
    (nn::log_softmax(x, 0), nn::standardize(x, 0, 1e-5))
}
#[jax::jit]
fn units_f64_rows(x: &Array<f64, 33, 1000>) -> Array<f64, 33, 1000> {
    nn::softmax(x, -1)
}

#[test]
fn eager_units_give_the_jitted_bits() {
    fn same<A: ArrayType>(name: &str, a: &A, b: &A)
    where
        A::Elem: Element,
    {
        let bits = |x: &A| {
            x.data()
                .iter()
                .map(|v| common::element_bits(*v))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(a), bits(b), "{name}: eager and jit differ");
    }
    use jax::random;
    let k = random::key(7);
    let x = random::normal::<Array<f32, 300, 100>>(k) * 4.0;
    let (s, l, z) = units_rows(&x);
    same("softmax rows", &s, &nn::softmax(&x, -1));
    same("log_softmax rows", &l, &nn::log_softmax(&x, 1));
    same("standardize rows", &z, &nn::standardize(&x, -1, 1e-5));
    let x = random::normal::<Array<f32, 40, 50, 9>>(random::fold_in(k, 1)) * 3.0;
    let (s, z) = units_middle(&x);
    same("softmax middle axis", &s, &nn::softmax(&x, 1));
    same(
        "standardize middle axis",
        &z,
        &nn::standardize(&x, -2, 1e-3),
    );
    let x: Array<f64, 70, 3> = random::normal(random::fold_in(k, 2));
    let (l, z) = units_first(&x);
    same("log_softmax first axis", &l, &nn::log_softmax(&x, 0));
    same("standardize first axis", &z, &nn::standardize(&x, 0, 1e-5));
    let x = random::normal::<Array<f64, 33, 1000>>(random::fold_in(k, 3)) * 10.0;
    same(
        "softmax f64 rows",
        &units_f64_rows(&x),
        &nn::softmax(&x, -1),
    );
}
