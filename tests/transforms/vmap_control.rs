//! `jax::vmap` over control flow inside `#[jax::jit]` (`lax::cond`,
//! `switch`, `while_loop`, `fori_loop`, `scan`), run and compared with the
//! values JAX computes (tests/fixtures/vmap_control.json, made by
//! tests/fixtures/gen/vmap_control.py; the printed jaxprs are compared in
//! compiler/tests/vmap_control_fixture.rs). Floats agree to a few ulps
//! (transcendentals are not XLA's), integers exactly.

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

fn case(name: &str) -> Value {
    common::case("vmap_control", name)
}

/// The fixture's argument `k`.
fn arg<A: ArrayType>(c: &Value, k: usize) -> A {
    let data = c["args"][k]["data"].as_array().unwrap();
    A::from_data(
        data.iter()
            .map(|v| A::Elem::from_f64(v.as_f64().unwrap()))
            .collect(),
    )
}

/// `got` against a fixture array: dtype, shape, and every element within
/// `tol` relative (exactly, for integers).
#[track_caller]
fn close<A: ArrayType>(got: &A, want: &Value, tol: f64) {
    let dtype = <A::Elem as Element>::DTYPE;
    assert_eq!(dtype.name(), want["dtype"].as_str().unwrap(), "dtype");
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "shape");
    let data = want["data"].as_array().unwrap();
    for (i, (g, w)) in got.data().iter().zip(data).enumerate() {
        let (g, w) = (g.to_f64(), A::Elem::from_f64(w.as_f64().unwrap()).to_f64());
        let tol = if dtype.is_float() {
            tol * w.abs().max(1.0)
        } else {
            0.0
        };
        assert!((g - w).abs() <= tol, "element {i}: got {g}, expected {w}");
    }
}

#[jax::jit]
fn cond_unbatched_pred(p: Array<f32>, x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    jax::vmap(
        |p, x| lax::cond(p.gt(0.0), |x| jnp::sin(x) * 2.0, |x| x * x, x),
        (None, 0),
    )(p, x)
}

#[jax::jit]
fn cond_batched_pred(x: Array<f32, 5>) -> Array<f32, 5> {
    jax::vmap(|x| lax::cond(x.gt(0.25), |x| jnp::sin(x), |x| -x, x))(x)
}

#[jax::jit]
fn cond_batched_pred_vector_lanes(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    jax::vmap(|x| lax::cond(jnp::sum(x).gt(1.0), |x| x * 2.0, |x| jnp::exp(x), x))(x)
}

#[jax::jit]
fn switch_unbatched_index(i: Array<i32>, x: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(
        |i, x| lax::switch(i, [|x| x * 2.0, |x| x + 10.0, |x| -x], x),
        (None, 0),
    )(i, x)
}

#[jax::jit]
fn switch_batched_index(i: Array<i32, 4>, x: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|i, x| lax::switch(i, [|x| x * 2.0, |x| x + 10.0, |x| -x], x))(i, x)
}

#[jax::jit]
fn while_batched_pred_newton(a: Array<f32, 5>) -> (Array<f32, 5>, Array<i32, 5>) {
    jax::vmap(|a| {
        lax::while_loop(
            |c: (Array<f32>, Array<i32>)| jnp::abs(c.0 * c.0 - a).gt(0.0009765625),
            |(x, n)| (0.5 * (x + a / x), n + 1),
            (a, 0),
        )
    })(a)
}

#[jax::jit]
fn while_batched_pred_halvings(x: Array<f32, 6>) -> Array<i32, 6> {
    jax::vmap(|x| {
        let (_, n) = lax::while_loop(
            |c: (Array<f32>, Array<i32>)| c.0.gt(1.0),
            |(x, n)| (x * 0.5, n + 1),
            (x, 0),
        );
        n
    })(x)
}

#[jax::jit]
fn while_unbatched_pred(n: Array<i32>, x: Array<f32, 5, 2>) -> Array<f32, 5, 2> {
    jax::vmap(
        |n, x| lax::fori_loop(0, n, |_i, c| c * 0.5 + 1.0, x),
        (None, 0),
    )(n, x)
}

/// The inner loop's predicate has a lane per `x`; the outer `vmap`
/// batches only the carry the body scales by `y`, on the axis after the
/// predicate's.
#[jax::jit]
fn while_nested_vmap_lane_predicate(
    y: Array<f32, 3>,
    xs: Array<i32, 4>,
) -> (Array<f32, 3, 4>, Array<i32, 3, 4>) {
    jax::vmap(
        |y, xs| {
            jax::vmap(|x| {
                lax::while_loop(
                    |c: (Array<f32>, Array<i32>)| c.1.lt(x),
                    |(v, n)| (v * y, n + 1),
                    (1.0, 0),
                )
            })(xs)
        },
        (0, None),
    )(y, xs)
}

#[jax::jit]
fn fori_loop_static(x: Array<f32, 4, 2>) -> Array<f32, 4, 2> {
    jax::vmap(|x| lax::fori_loop(0, 3, |_i, c| c * 0.5 + x, x))(x)
}

#[jax::jit]
fn scan_cumsum(xs: Array<f32, 4, 6>) -> (Array<f32, 4>, Array<f32, 4, 6>) {
    jax::vmap(|xs| lax::scan(|c, x| (c + x, c + x), 0.0, xs))(xs)
}

#[jax::jit]
fn scan_batched_carry_unbatched_xs(
    h: Array<f32, 4, 3>,
    xs: Array<f32, 6, 3>,
) -> (Array<f32, 4, 3>, (Array<f32, 4, 6>, Array<f32, 4, 6, 3>)) {
    jax::vmap(
        |h, xs| {
            lax::scan(
                |h, x| (jnp::tanh(h * 0.875 + x), (jnp::sum(h), x * 2.0)),
                h,
                xs,
            )
        },
        (0, None),
    )(h, xs)
}

#[jax::jit]
fn scan_xs_on_axis_1(xs: Array<f32, 6, 4>) -> (Array<f32, 4>, Array<f32, 4, 6>) {
    jax::vmap(|xs| lax::scan(|c, x| (c * x, c), 1.0, xs), 1)(xs)
}

#[test]
fn vmapped_cond_and_switch_match_jax() {
    let c = case("cond_unbatched_pred");
    close(
        &cond_unbatched_pred(arg(&c, 0), arg(&c, 1)),
        &c["output"],
        1e-6,
    );
    // The other branch, for the shared predicate.
    let x: Array<f32, 5, 3> = arg(&c, 1);
    let other = cond_unbatched_pred(Array::from(-1.0f32), x.clone());
    assert_eq!(other.to_vec(), (&x * &x).to_vec());
    let c = case("cond_batched_pred");
    close(&cond_batched_pred(arg(&c, 0)), &c["output"], 1e-6);
    let c = case("cond_batched_pred_vector_lanes");
    close(
        &cond_batched_pred_vector_lanes(arg(&c, 0)),
        &c["output"],
        1e-6,
    );
    let c = case("switch_unbatched_index");
    close(
        &switch_unbatched_index(arg(&c, 0), arg(&c, 1)),
        &c["output"],
        0.0,
    );
    let c = case("switch_batched_index");
    close(
        &switch_batched_index(arg(&c, 0), arg(&c, 1)),
        &c["output"],
        0.0,
    );
}

#[test]
fn vmapped_while_loops_match_jax() {
    let c = case("while_batched_pred_newton");
    let (x, n) = while_batched_pred_newton(arg(&c, 0));
    close(&x, &c["output"]["items"][0], 1e-6);
    close(&n, &c["output"]["items"][1], 0.0);
    let c = case("while_batched_pred_halvings");
    close(&while_batched_pred_halvings(arg(&c, 0)), &c["output"], 0.0);
    let c = case("while_unbatched_pred");
    close(
        &while_unbatched_pred(arg(&c, 0), arg(&c, 1)),
        &c["output"],
        0.0,
    );
    let c = case("while_nested_vmap_lane_predicate");
    let (v, n) = while_nested_vmap_lane_predicate(arg(&c, 0), arg(&c, 1));
    close(&v, &c["output"]["items"][0], 0.0);
    close(&n, &c["output"]["items"][1], 0.0);
    let c = case("fori_loop_static");
    close(&fori_loop_static(arg(&c, 0)), &c["output"], 0.0);
}

#[test]
fn vmapped_scans_match_jax() {
    let c = case("scan_cumsum");
    let (s, ys) = scan_cumsum(arg(&c, 0));
    close(&s, &c["output"]["items"][0], 1e-6);
    close(&ys, &c["output"]["items"][1], 1e-6);
    let c = case("scan_batched_carry_unbatched_xs");
    let (h, (sums, doubled)) = scan_batched_carry_unbatched_xs(arg(&c, 0), arg(&c, 1));
    close(&h, &c["output"]["items"][0], 1e-6);
    close(&sums, &c["output"]["items"][1]["items"][0], 1e-6);
    close(&doubled, &c["output"]["items"][1]["items"][1], 0.0);
    let c = case("scan_xs_on_axis_1");
    let (p, ys) = scan_xs_on_axis_1(arg(&c, 0));
    close(&p, &c["output"]["items"][0], 1e-6);
    close(&ys, &c["output"]["items"][1], 1e-6);
}

/// Reverse mode through a vmapped scan: the batched scan is linearized
/// and transposed like any scan.
#[jax::jit]
fn grad_of_vmapped_scan(
    w: Array<f32, 3>,
    hs: Array<f32, 4, 3>,
    xs: Array<f32, 5, 3>,
) -> Array<f32, 3> {
    jax::grad(|w: Array<f32, 3>| {
        jnp::sum(jax::vmap(|h: Array<f32, 3>| {
            let (h, _) = lax::scan(|c, x| (jnp::tanh(c * w + x), c), h, xs);
            jnp::sum(h)
        })(hs))
    })(w)
}

/// The same loss as a function of `w`, for its own `::grad` companion.
#[jax::jit]
fn vmapped_scan_loss(w: Array<f32, 3>, hs: Array<f32, 4, 3>, xs: Array<f32, 5, 3>) -> Array<f32> {
    jnp::sum(jax::vmap(|h: Array<f32, 3>| {
        let (h, _) = lax::scan(|c, x| (jnp::tanh(c * w + x), c), h, xs);
        jnp::sum(h)
    })(hs))
}

#[test]
fn grad_through_a_vmapped_scan_matches_jax() {
    let c = case("grad_of_vmapped_scan");
    let (w, hs, xs): (Array<f32, 3>, Array<f32, 4, 3>, Array<f32, 5, 3>) =
        (arg(&c, 0), arg(&c, 1), arg(&c, 2));
    close(
        &grad_of_vmapped_scan(w.clone(), hs.clone(), xs.clone()),
        &c["output"],
        1e-5,
    );
    let gw = vmapped_scan_loss::grad(w, hs, xs);
    close(&gw, &c["output"], 1e-5);
}
