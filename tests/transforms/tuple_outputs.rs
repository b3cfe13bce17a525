//! Derivative companions of functions returning pytrees: `f::jvp`,
//! `f::vjp`, `f::jacfwd` and `f::jacrev` of a tuple with a scalar, a nested
//! tuple, a `[T; N]`, a struct, float and integer outputs together, scalars;
//! `f::grad` with `has_aux` and a tuple aux; and an imported program with two
//! outputs. Against JAX (`tests/fixtures/gen/tuple_outputs.py`); each tree
//! is the list of its leaves in JAX's order.

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

#[jax::jit]
mod f {
    use jax::prelude::*;

    #[derive(Clone, Debug)]
    pub struct Stats {
        pub a: Array<f32, 3>,
        pub b: Array<f32>,
    }

    pub fn two(x: &Array<f32, 3>, w: &Array<f32, 3>) -> (Array<f32, 3>, Array<f32>) {
        (jnp::sin(x) * w, jnp::sum(x * x * w))
    }

    pub fn nested(x: &Array<f32, 2, 3>) -> (Array<f32, 2>, (Array<f32, 3>, Array<f32, 2, 3>)) {
        (
            jnp::sum_axis(jnp::tanh(x), 1, false),
            (jnp::sum_axis(x * x, 0, false), jnp::exp(x) * 0.5),
        )
    }

    pub fn listed(x: &Array<f32, 2>) -> [Array<f32, 2>; 2] {
        [x * x, jnp::sin(x)]
    }

    pub fn stats(x: &Array<f32, 3>) -> Stats {
        Stats {
            a: jnp::cos(x) * x,
            b: jnp::sum(jnp::sin(x)),
        }
    }

    pub fn mixed(x: &Array<f32, 3>) -> (Array<f32, 3>, Array<i32>) {
        (jnp::sin(x) * 2.0, jnp::argmax(x).astype::<i32>())
    }

    /// 150 equations: its Jacobians loop over the basis calling `jvp` and
    /// `__pullback` (past the batched ones' budget).
    pub fn long(x: &Array<f32, 4>, w: &Array<f32, 4>) -> (Array<f32, 4>, Array<f32>) {
        let mut h = x * 1.0;
        for i in 0..50 {
            let _ = i;
            h = jnp::tanh(&h * w + x);
        }
        (jnp::sin(&h), jnp::sum(h))
    }

    pub fn polar(t: f32) -> (f32, f32) {
        (jnp::sin(t) * 2.0, jnp::cos(t) * t)
    }
}

#[jax::jit(has_aux)]
fn loss_aux(x: &Array<f32, 3>) -> (Array<f32>, (Array<f32, 3>, Array<i32>)) {
    let y = jnp::tanh(x);
    (
        jnp::sum(&y * &y),
        (&y * 3.0, jnp::argmin(x).astype::<i32>()),
    )
}

/// `f::two` read from the jaxpr JAX printed for it.
#[jax::jit(import = "../fixtures/tuple_outputs/two.jaxpr")]
fn two_imported(x: &Array<f32, 3>, w: &Array<f32, 3>) -> (Array<f32, 3>, Array<f32>);

fn case(name: &str) -> Value {
    common::case("tuple_outputs", name)
}

/// A fixture leaf as an array of type `A`.
fn arg<A: ArrayType>(v: &Value) -> A {
    common::array_arg(v)
}

/// Asserts that `got` is JAX's leaf: dtype and shape exactly, values within
/// a few ulps (derivatives' roundings may differ from XLA's).
#[track_caller]
fn close<A: ArrayType>(what: &str, got: &A, want: &Value) {
    assert_eq!(
        <A::Elem as Element>::DTYPE.name(),
        want["dtype"].as_str().unwrap(),
        "{what}: dtype"
    );
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "{what}: shape");
    let data = want["data"].as_array().unwrap();
    assert_eq!(got.data().len(), data.len(), "{what}: size");
    for (i, (g, w)) in got.data().iter().zip(data).enumerate() {
        let (g, w) = (g.to_f64(), w.as_f64().unwrap());
        assert!(
            (g - w).abs() <= 1e-6 + 2e-6 * w.abs(),
            "{what}[{i}]: got {g}, JAX {w}"
        );
    }
}

/// A scalar leaf against JAX's.
#[track_caller]
fn close_scalar(what: &str, got: f32, want: &Value) {
    assert_eq!(want["shape"].as_array().unwrap().len(), 0, "{what}: shape");
    let w = want["data"][0].as_f64().unwrap();
    let g = got as f64;
    assert!(
        (g - w).abs() <= 1e-6 + 2e-6 * w.abs(),
        "{what}: got {g}, JAX {w}"
    );
}

#[test]
fn two_outputs_with_a_scalar() {
    let c = case("two");
    let (x, w): (Array<f32, 3>, Array<f32, 3>) = (arg(&c["args"][0]), arg(&c["args"][1]));
    let (tx, tw): (Array<f32, 3>, Array<f32, 3>) = (arg(&c["tangents"][0]), arg(&c["tangents"][1]));

    let ((a, b), (ta, tb)) = f::two::jvp((&x, &w), (&tx, &tw));
    close("two", &a, &c["out"][0]);
    close("two", &b, &c["out"][1]);
    close("two jvp", &ta, &c["jvp"][0]);
    close("two jvp", &tb, &c["jvp"][1]);

    let ((a, b), pullback) = f::two::vjp(&x, &w);
    close("two vjp value", &a, &c["out"][0]);
    close("two vjp value", &b, &c["out"][1]);
    let (cx, cw) = pullback((arg(&c["cts"][0]), arg(&c["cts"][1])));
    close("two vjp x", &cx, &c["vjp"][0]);
    close("two vjp w", &cw, &c["vjp"][1]);

    let (ja, jb): (Array<f32, 3, 3>, Array<f32, 3>) = f::two::jacfwd(&x, &w);
    close("two jacfwd", &ja, &c["jacfwd"][0]);
    close("two jacfwd", &jb, &c["jacfwd"][1]);
    let (ja, jb): (Array<f32, 3, 3>, Array<f32, 3>) = f::two::jacrev(&x, &w);
    close("two jacrev", &ja, &c["jacrev"][0]);
    close("two jacrev", &jb, &c["jacrev"][1]);
}

#[test]
fn an_imported_program_with_two_outputs() {
    let c = case("two");
    let (x, w): (Array<f32, 3>, Array<f32, 3>) = (arg(&c["args"][0]), arg(&c["args"][1]));
    let (tx, tw): (Array<f32, 3>, Array<f32, 3>) = (arg(&c["tangents"][0]), arg(&c["tangents"][1]));

    let ((a, b), (ta, tb)) = two_imported::jvp((&x, &w), (&tx, &tw));
    close("imported", &a, &c["out"][0]);
    close("imported", &b, &c["out"][1]);
    close("imported jvp", &ta, &c["jvp"][0]);
    close("imported jvp", &tb, &c["jvp"][1]);

    let (_, pullback) = two_imported::vjp(&x, &w);
    let (cx, cw) = pullback((arg(&c["cts"][0]), arg(&c["cts"][1])));
    close("imported vjp x", &cx, &c["vjp"][0]);
    close("imported vjp w", &cw, &c["vjp"][1]);

    let (ja, jb) = two_imported::jacfwd(&x, &w);
    close("imported jacfwd", &ja, &c["jacfwd"][0]);
    close("imported jacfwd", &jb, &c["jacfwd"][1]);
    let (ja, jb) = two_imported::jacrev(&x, &w);
    close("imported jacrev", &ja, &c["jacrev"][0]);
    close("imported jacrev", &jb, &c["jacrev"][1]);
}

#[test]
fn a_nested_tuple() {
    let c = case("nested");
    let x: Array<f32, 2, 3> = arg(&c["args"][0]);
    let t: Array<f32, 2, 3> = arg(&c["tangents"][0]);

    let ((a, (b, d)), (ta, (tb, td))) = f::nested::jvp((&x,), (&t,));
    close("nested", &a, &c["out"][0]);
    close("nested", &b, &c["out"][1]);
    close("nested", &d, &c["out"][2]);
    close("nested jvp", &ta, &c["jvp"][0]);
    close("nested jvp", &tb, &c["jvp"][1]);
    close("nested jvp", &td, &c["jvp"][2]);

    let (_, pullback) = f::nested::vjp(&x);
    let (cx,) = pullback((arg(&c["cts"][0]), (arg(&c["cts"][1]), arg(&c["cts"][2]))));
    close("nested vjp", &cx, &c["vjp"][0]);

    let (ja, (jb, jd)): (
        Array<f32, 2, 2, 3>,
        (Array<f32, 3, 2, 3>, Array<f32, 2, 3, 2, 3>),
    ) = f::nested::jacfwd(&x);
    close("nested jacfwd", &ja, &c["jacfwd"][0]);
    close("nested jacfwd", &jb, &c["jacfwd"][1]);
    close("nested jacfwd", &jd, &c["jacfwd"][2]);
    let (ja, (jb, jd)) = f::nested::jacrev(&x);
    close("nested jacrev", &ja, &c["jacrev"][0]);
    close("nested jacrev", &jb, &c["jacrev"][1]);
    close("nested jacrev", &jd, &c["jacrev"][2]);
}

#[test]
fn a_rust_array_of_outputs() {
    let c = case("listed");
    let x: Array<f32, 2> = arg(&c["args"][0]);
    let t: Array<f32, 2> = arg(&c["tangents"][0]);

    let ([a, b], [ta, tb]) = f::listed::jvp((&x,), (&t,));
    close("listed", &a, &c["out"][0]);
    close("listed", &b, &c["out"][1]);
    close("listed jvp", &ta, &c["jvp"][0]);
    close("listed jvp", &tb, &c["jvp"][1]);

    let (_, pullback) = f::listed::vjp(&x);
    let (cx,) = pullback([arg(&c["cts"][0]), arg(&c["cts"][1])]);
    close("listed vjp", &cx, &c["vjp"][0]);

    let [ja, jb]: [Array<f32, 2, 2>; 2] = f::listed::jacfwd(&x);
    close("listed jacfwd", &ja, &c["jacfwd"][0]);
    close("listed jacfwd", &jb, &c["jacfwd"][1]);
    let [ja, jb] = f::listed::jacrev(&x);
    close("listed jacrev", &ja, &c["jacrev"][0]);
    close("listed jacrev", &jb, &c["jacrev"][1]);
}

#[test]
fn a_struct_output() {
    let c = case("stats");
    let x: Array<f32, 3> = arg(&c["args"][0]);
    let t: Array<f32, 3> = arg(&c["tangents"][0]);

    let (s, ts) = f::stats::jvp((&x,), (&t,));
    close("stats.a", &s.a, &c["out"][0]);
    close("stats.b", &s.b, &c["out"][1]);
    close("stats jvp .a", &ts.a, &c["jvp"][0]);
    close("stats jvp .b", &ts.b, &c["jvp"][1]);

    let (_, pullback) = f::stats::vjp(&x);
    let (cx,) = pullback(f::Stats {
        a: arg(&c["cts"][0]),
        b: arg(&c["cts"][1]),
    });
    close("stats vjp", &cx, &c["vjp"][0]);
}

/// An integer output beside a float one: its tangent is JAX's float0,
/// zeros here (as an integer argument's cotangent), its cotangent is
/// ignored, and jacfwd gives its Jacobian as JAX does, int32 zeros.
#[test]
fn float_and_integer_outputs() {
    let c = case("mixed");
    let x: Array<f32, 3> = arg(&c["args"][0]);
    let t: Array<f32, 3> = arg(&c["tangents"][0]);

    let ((a, i), (ta, ti)) = f::mixed::jvp((&x,), (&t,));
    close("mixed", &a, &c["out"][0]);
    close("mixed", &i, &c["out"][1]);
    close("mixed jvp", &ta, &c["jvp"][0]);
    close("mixed jvp (float0 as zeros)", &ti, &c["jvp"][1]);

    let (_, pullback) = f::mixed::vjp(&x);
    let (cx,) = pullback((arg(&c["cts"][0]), Array::<i32>::from(7)));
    close("mixed vjp", &cx, &c["vjp"][0]);

    let (ja, ji): (Array<f32, 3, 3>, Array<i32, 3>) = f::mixed::jacfwd(&x);
    close("mixed jacfwd", &ja, &c["jacfwd"][0]);
    close("mixed jacfwd", &ji, &c["jacfwd"][1]);
}

#[test]
fn scalar_outputs_of_a_scalar() {
    let c = case("polar");
    let t0 = c["args"][0]["data"][0].as_f64().unwrap() as f32;
    let dt = c["tangents"][0]["data"][0].as_f64().unwrap() as f32;

    let ((a, b), (ta, tb)) = f::polar::jvp((t0,), (dt,));
    close_scalar("polar", a, &c["out"][0]);
    close_scalar("polar", b, &c["out"][1]);
    close_scalar("polar jvp", ta, &c["jvp"][0]);
    close_scalar("polar jvp", tb, &c["jvp"][1]);

    let (_, pullback) = f::polar::vjp(t0);
    let ct = |k: usize| c["cts"][k]["data"][0].as_f64().unwrap() as f32;
    let (ct0,) = pullback((ct(0), ct(1)));
    close_scalar("polar vjp", ct0, &c["vjp"][0]);

    let (ja, jb): (f32, f32) = f::polar::jacfwd(t0);
    close_scalar("polar jacfwd", ja, &c["jacfwd"][0]);
    close_scalar("polar jacfwd", jb, &c["jacfwd"][1]);
    let (ja, jb): (f32, f32) = f::polar::jacrev(t0);
    close_scalar("polar jacrev", ja, &c["jacrev"][0]);
    close_scalar("polar jacrev", jb, &c["jacrev"][1]);
}

/// `has_aux` with a tuple aux holding an integer: `grad` gives
/// `(gradient, aux)`, `value_and_grad` `((value, aux), gradient)`, `jvp`
/// `(output, tangent, aux)` and `vjp` `(output, pullback, aux)`, as JAX.
#[test]
fn has_aux_with_a_tuple_aux() {
    let c = case("loss_aux");
    let x: Array<f32, 3> = arg(&c["args"][0]);

    let (g, (y, k)) = loss_aux::grad(&x);
    close("grad", &g, &c["grad"][0]);
    close("aux", &y, &c["aux"][0]);
    close("aux", &k, &c["aux"][1]);

    let ((v, (y, k)), g) = loss_aux::value_and_grad(&x);
    close("value", &v, &c["value"][0]);
    close("value_and_grad", &g, &c["value_and_grad"][0]);
    close("aux", &y, &c["aux2"][0]);
    close("aux", &k, &c["aux2"][1]);

    // `jax.jvp(.., has_aux=True)`: `(output, tangent, aux)`.
    let t: Array<f32, 3> = arg(&c["tangents"][0]);
    let (v, tv, (y, k)) = loss_aux::jvp((&x,), (&t,));
    close("jvp value", &v, &c["jvp"][0]);
    close("jvp tangent", &tv, &c["jvp"][1]);
    close("jvp aux", &y, &c["jvp_aux"][0]);
    close("jvp aux", &k, &c["jvp_aux"][1]);

    // `jax.vjp(.., has_aux=True)`: `(output, pullback, aux)`.
    let (v, pullback, (y, k)) = loss_aux::vjp(&x);
    close("vjp value", &v, &c["vjp"][0]);
    close("vjp aux", &y, &c["vjp_aux"][0]);
    close("vjp aux", &k, &c["vjp_aux"][1]);
    let (cx,) = pullback(arg(&c["ct"][0]));
    close("vjp cotangent", &cx, &c["vjp"][1]);
}

/// A long program's Jacobians, made of one `jvp` per argument element and
/// one `__pullback` per output element of each output.
#[test]
fn jacobians_of_a_long_program_loop_over_the_basis() {
    let c = case("long");
    // Past the batched Jacobians' budget of 128 equations.
    let eqns = f::long::jaxpr().to_string().matches(" = ").count();
    assert!(eqns > 128, "{eqns} equations");
    let (x, w): (Array<f32, 4>, Array<f32, 4>) = (arg(&c["args"][0]), arg(&c["args"][1]));
    let (a, b) = f::long(&x, &w);
    close("long", &a, &c["out"][0]);
    close("long", &b, &c["out"][1]);
    let (ja, jb): (Array<f32, 4, 4>, Array<f32, 4>) = f::long::jacfwd(&x, &w);
    close("long jacfwd", &ja, &c["jacfwd"][0]);
    close("long jacfwd", &jb, &c["jacfwd"][1]);
    let (ja, jb) = f::long::jacrev(&x, &w);
    close("long jacrev", &ja, &c["jacrev"][0]);
    close("long jacrev", &jb, &c["jacrev"][1]);
}
