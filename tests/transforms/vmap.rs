//! `jax::vmap` in jitted bodies: the outputs of JAX's `vmap` on the
//! fixtures' arguments (`tests/fixtures/vmap.json`), and the property that
//! defines batching: `vmap(f)(xs)` equals `f` applied to each lane, stacked
//! along the output axis (also under `grad` and `jvp`), on random inputs.

use crate::common;

use jax::prelude::*;
use jax::ArrayType;
use proptest::prelude::*;
use serde_json::Value;

fn arg<A: ArrayType<Elem = f32>>(case: &Value, k: usize) -> A {
    let v = &case["args"][k];
    A::from_data(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_f64().unwrap() as f32)
            .collect(),
    )
}

/// Within `ulps` units in the last place of JAX's value, element by element
/// (the same operations as JAX's, in the same order except inside sums and
/// contractions).
#[track_caller]
fn close<A: ArrayType<Elem = f32>>(got: &A, want: &Value, ulps: u32) {
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "shape");
    for (i, (g, w)) in got
        .data()
        .iter()
        .zip(want["data"].as_array().unwrap())
        .enumerate()
    {
        let w = w.as_f64().unwrap() as f32;
        let tol = ulps as f32 * f32::EPSILON * w.abs().max(f32::MIN_POSITIVE);
        assert!((g - w).abs() <= tol, "element {i}: got {g}, JAX {w}");
    }
}

#[jax::jit]
fn matvec_none_0(a: &Array<f32, 4, 3>, xs: &Array<f32, 5, 3>) -> Array<f32, 5, 4> {
    jax::vmap(jnp::dot, (None, 0))(a, xs)
}

#[jax::jit]
fn add_unbatched_vector(x: &Array<f32, 5, 3>, v: &Array<f32, 3>) -> Array<f32, 5, 3> {
    jax::vmap(|a, b| a + b, (0, None))(x, v)
}

#[jax::jit]
fn mixed_axes(x: &Array<f32, 3, 5>, y: &Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    jax::vmap(|a, b| a * b + 1.0, (1, 0))(x, y)
}

#[jax::jit]
fn out_axes_1(x: &Array<f32, 5, 3>) -> Array<f32, 3, 5> {
    jax::vmap(|a| jnp::sin(a) * 2.0, 0, 1)(x)
}

#[jax::jit]
fn softmax_rows(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|a| jnp::exp(a) / jnp::sum(jnp::exp(a)))(x)
}

#[jax::jit]
fn pairwise_distances(xs: &Array<f32, 4, 3>, ys: &Array<f32, 5, 3>) -> Array<f32, 4, 5> {
    jax::vmap(|a| jax::vmap(|b| jnp::sum(jnp::power(a - b, 2)))(ys))(xs)
}

#[jax::jit]
fn batched_gram(x: &Array<f32, 4, 3, 2>) -> Array<f32, 4, 2, 2> {
    jax::vmap(|a| a.t().matmul(a))(x)
}

#[jax::jit]
fn per_example_gradients(
    w: &Array<f32, 3, 2>,
    xs: &Array<f32, 6, 3>,
    ys: &Array<f32, 6, 2>,
) -> Array<f32, 6, 3, 2> {
    let loss = |w: Array<f32, 3, 2>, x: Array<f32, 3>, y: Array<f32, 2>| {
        jnp::sum(jnp::power(jnp::tanh(x.matmul(w)) - y, 2))
    };
    jax::vmap(jax::grad(loss), (None, 0, 0))(w, xs, ys)
}

#[jax::jit]
fn grad_of_vmapped_mean(w: &Array<f32, 3>, xs: &Array<f32, 5, 3>) -> Array<f32, 3> {
    jax::grad(|w: Array<f32, 3>| jnp::mean(jnp::power(jax::vmap(|x| jnp::dot(x, w))(xs), 2)))(w)
}

#[jax::jit]
fn reshape_lanes(x: &Array<f32, 4, 6>) -> Array<f32, 4, 3, 2> {
    jax::vmap(|a| {
        let r: Array<f32, 3, 2> = a.reshape();
        r * 2.0
    })(x)
}

#[test]
fn outputs_match_jax() {
    let c = common::case("vmap", "matvec_none_0");
    close(&matvec_none_0(&arg(&c, 0), &arg(&c, 1)), &c["output"], 4);
    let c = common::case("vmap", "add_unbatched_vector");
    common::assert_matches(
        &add_unbatched_vector(&arg(&c, 0), &arg(&c, 1)),
        &c["output"],
    );
    let c = common::case("vmap", "mixed_axes");
    common::assert_matches(&mixed_axes(&arg(&c, 0), &arg(&c, 1)), &c["output"]);
    let c = common::case("vmap", "out_axes_1");
    close(&out_axes_1(&arg(&c, 0)), &c["output"], 2);
    let c = common::case("vmap", "softmax_rows");
    close(&softmax_rows(&arg(&c, 0)), &c["output"], 4);
    let c = common::case("vmap", "pairwise_distances");
    close(
        &pairwise_distances(&arg(&c, 0), &arg(&c, 1)),
        &c["output"],
        4,
    );
    let c = common::case("vmap", "batched_gram");
    close(&batched_gram(&arg(&c, 0)), &c["output"], 4);
    let c = common::case("vmap", "per_example_gradients");
    close(
        &per_example_gradients(&arg(&c, 0), &arg(&c, 1), &arg(&c, 2)),
        &c["output"],
        16,
    );
    let c = common::case("vmap", "grad_of_vmapped_mean");
    close(
        &grad_of_vmapped_mean(&arg(&c, 0), &arg(&c, 1)),
        &c["output"],
        16,
    );
    let c = common::case("vmap", "reshape_lanes");
    common::assert_matches(&reshape_lanes(&arg(&c, 0)), &c["output"]);
}

// The property: batched equals lane by lane. Each `lane_*` is the
// function of one lane; each `batched_*` its vmap over some axis.

#[jax::jit]
fn lane_mix(x: &Array<f32, 3>, w: &Array<f32, 3, 2>) -> Array<f32, 2> {
    jnp::tanh(x.matmul(w)) * jnp::max(x, 0, false) + jnp::sum(jnp::exp(x))
}

#[jax::jit]
fn batched_mix_axis0(xs: &Array<f32, 4, 3>, w: &Array<f32, 3, 2>) -> Array<f32, 4, 2> {
    jax::vmap(
        |x, w| jnp::tanh(x.matmul(w)) * jnp::max(x, 0, false) + jnp::sum(jnp::exp(x)),
        (0, None),
    )(xs, w)
}

#[jax::jit]
fn batched_mix_axis1(xs: &Array<f32, 3, 4>, w: &Array<f32, 3, 2>) -> Array<f32, 2, 4> {
    jax::vmap(
        |x, w| jnp::tanh(x.matmul(w)) * jnp::max(x, 0, false) + jnp::sum(jnp::exp(x)),
        (1, None),
        1,
    )(xs, w)
}

#[jax::jit]
fn lane_grad(x: &Array<f32, 3>, w: &Array<f32, 3, 2>) -> Array<f32, 3, 2> {
    jax::grad(|w: Array<f32, 3, 2>| jnp::sum(jnp::tanh(x.matmul(w))))(w)
}

#[jax::jit]
fn batched_grad(xs: &Array<f32, 4, 3>, w: &Array<f32, 3, 2>) -> Array<f32, 4, 3, 2> {
    jax::vmap(
        |x, w| jax::grad(|w: Array<f32, 3, 2>| jnp::sum(jnp::tanh(x.matmul(w))))(w),
        (0, None),
    )(xs, w)
}

#[jax::jit]
fn lane_jvp(x: &Array<f32, 3>, t: &Array<f32, 3>) -> (Array<f32, 3>, Array<f32, 3>) {
    jax::jvp(|x: Array<f32, 3>| jnp::sin(x) * x, (x,), (t,))
}

#[jax::jit]
fn batched_jvp(
    xs: &Array<f32, 4, 3>,
    ts: &Array<f32, 4, 3>,
) -> (Array<f32, 4, 3>, Array<f32, 4, 3>) {
    jax::vmap(|x, t| jax::jvp(|x: Array<f32, 3>| jnp::sin(x) * x, (x,), (t,)))(xs, ts)
}

#[jax::jit]
fn lane_of_lanes(x: &Array<f32, 3>, y: &Array<f32, 3>) -> Array<f32> {
    jnp::sum(jnp::power(x - y, 2))
}

#[jax::jit]
fn nested(xs: &Array<f32, 4, 3>, ys: &Array<f32, 2, 3>) -> Array<f32, 4, 2> {
    jax::vmap(|x| jax::vmap(|y| jnp::sum(jnp::power(x - y, 2)))(ys))(xs)
}

fn row<const R: usize, const C: usize>(a: &Array<f32, R, C>, i: usize) -> Array<f32, C> {
    Array::from_data(a.data()[i * C..(i + 1) * C].to_vec())
}

fn col<const R: usize, const C: usize>(a: &Array<f32, R, C>, j: usize) -> Array<f32, R> {
    Array::from_data((0..R).map(|i| a.data()[i * C + j]).collect())
}

#[track_caller]
fn same(what: &str, batched: &[f32], lanes: &[f32]) {
    for (k, (b, l)) in batched.iter().zip(lanes).enumerate() {
        // A contraction may sum in another order in the batched program.
        let tol = 8.0 * f32::EPSILON * l.abs().max(1.0);
        assert!(
            (b - l).abs() <= tol || (b.is_nan() && l.is_nan()),
            "{what}[{k}]: batched {b}, lane {l}"
        );
    }
}

fn arrays<const N: usize>() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(-3.0f32..3.0, N)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn batched_is_lane_by_lane(xs in arrays::<12>(), ws in arrays::<6>(), ts in arrays::<12>(), ys in arrays::<6>()) {
        let x = Array::<f32, 4, 3>::from_data(xs.clone());
        let w = Array::<f32, 3, 2>::from_data(ws);
        let t = Array::<f32, 4, 3>::from_data(ts);
        let y = Array::<f32, 2, 3>::from_data(ys);
        let lanes: Vec<f32> = (0..4).flat_map(|i| lane_mix(&row(&x, i), &w).data().to_vec()).collect();
        same("axis 0", batched_mix_axis0(&x, &w).data(), &lanes);
        // Mapped along axis 1, out along axis 1.
        let xt: Array<f32, 3, 4> = Array::from_data((0..12).map(|k| xs[(k % 4) * 3 + k / 4]).collect());
        let b1 = batched_mix_axis1(&xt, &w);
        for i in 0..4 {
            same("axis 1", col(&b1, i).data(), lane_mix(&row(&x, i), &w).data());
        }
        let lanes: Vec<f32> = (0..4).flat_map(|i| lane_grad(&row(&x, i), &w).data().to_vec()).collect();
        same("grad", batched_grad(&x, &w).data(), &lanes);
        let (p, d) = batched_jvp(&x, &t);
        for i in 0..4 {
            let (lp, ld) = lane_jvp(&row(&x, i), &row(&t, i));
            same("jvp primal", row(&p, i).data(), lp.data());
            same("jvp tangent", row(&d, i).data(), ld.data());
        }
        let n = nested(&x, &y);
        for i in 0..4 {
            for j in 0..2 {
                same("nested", &[n.data()[i * 2 + j]], lane_of_lanes(&row(&x, i), &row(&y, j)).data());
            }
        }
    }
}

#[jax::jit]
mod private {
    use jax::prelude::*;

    /// Parameters as a pytree.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub w: Array<f32, 3, 2>,
        pub b: Array<f32, 2>,
    }

    pub fn loss_one(p: &Params, x: &Array<f32, 3>, y: &Array<f32, 2>) -> Array<f32> {
        jnp::sum(jnp::power(jnp::tanh(x.matmul(&p.w) + &p.b) - y, 2))
    }

    /// Each example's gradient of a struct of parameters, clipped to norm 1,
    /// as in differentially private SGD: the gradient is the same struct.
    pub fn clipped_grads(
        p: &Params,
        xs: &Array<f32, 5, 3>,
        ys: &Array<f32, 5, 2>,
    ) -> (Array<f32, 5, 3, 2>, Array<f32, 5, 2>) {
        let g = jax::vmap(
            |x, y| {
                let g = jax::grad(|p: Params| loss_one(&p, &x, &y))(p.clone());
                let norm = jnp::sqrt(jnp::sum(&g.w * &g.w) + jnp::sum(&g.b * &g.b));
                let scale = 1.0 / jnp::maximum(norm, 1.0);
                Params {
                    w: g.w * scale,
                    b: g.b * scale,
                }
            },
            (0, 0),
        )(xs, ys);
        (g.w, g.b)
    }
}

/// `jax::grad` of a struct inside a vmap: each lane's gradient is the
/// companion `loss_one::grad` of that example, then clipped.
#[test]
fn per_example_gradients_of_a_struct() {
    let p = private::Params {
        w: Array::from_fn(|i| (i as f32 - 2.5) * 0.3),
        b: Array::from([0.1, -0.2]),
    };
    let xs = Array::<f32, 5, 3>::from_fn(|i| (i as f32 * 0.37).sin());
    let ys = Array::<f32, 5, 2>::from_fn(|i| (i as f32 * 0.11).cos());
    let (gw, gb) = private::clipped_grads(&p, &xs, &ys);
    for i in 0..5 {
        let y: Array<f32, 2> = Array::from_data(ys.data()[i * 2..i * 2 + 2].to_vec());
        let g = private::loss_one::grad(&p, &row(&xs, i), &y);
        let norm =
            (g.w.data()
                .iter()
                .chain(g.b.data())
                .map(|v| v * v)
                .sum::<f32>())
            .sqrt();
        let scale = 1.0 / norm.max(1.0);
        let want: Vec<f32> = g.w.data().iter().map(|v| v * scale).collect();
        same("w", &gw.data()[i * 6..i * 6 + 6], &want);
        let want: Vec<f32> = g.b.data().iter().map(|v| v * scale).collect();
        same("b", &gb.data()[i * 2..i * 2 + 2], &want);
    }
}

#[jax::jit]
fn printed_lanes(xs: &Array<f32, 3>) -> Array<f32, 3> {
    jax::vmap(|x| {
        jax::debug::print!("x = {}", x);
        x * 2.0
    })(xs)
}

/// `jax.debug.print` under `vmap` prints once per lane, as JAX 0.10.2's
/// `jax.vmap(g)(jnp.arange(3.0))` prints `x = 0.0`, `x = 1.0`, `x = 2.0`.
#[test]
fn debug_print_per_lane() {
    let xs = Array::<f32, 3>::from([0.0, 1.0, 2.0]);
    let (y, printed) = jax::debug::capture_prints(|| printed_lanes(&xs));
    assert_eq!(y.to_vec(), [0.0, 2.0, 4.0]);
    assert_eq!(printed, "x = 0.0\nx = 1.0\nx = 2.0\n");
}

#[jax::jit]
mod clipped {
    use jax::prelude::*;

    /// sum(sin(x)) with its gradient clipped to [-0.5, 0.5].
    #[custom_vjp(clip_fwd, clip_bwd)]
    pub fn clip_gradient(x: Array<f32, 4>) -> Array<f32> {
        jnp::sum(jnp::sin(x))
    }

    pub fn clip_fwd(x: Array<f32, 4>) -> (Array<f32>, (Array<f32, 4>,)) {
        (clip_gradient(x.clone()), (jnp::cos(x),))
    }

    pub fn clip_bwd(res: (Array<f32, 4>,), g: Array<f32>) -> (Array<f32, 4>,) {
        let (c,) = res;
        (jnp::clip(c * g, -0.5, 0.5),)
    }

    /// The clipped gradient of each row: vmap keeps the custom rule.
    pub fn per_row(xs: Array<f32, 3, 4>) -> Array<f32, 3, 4> {
        jax::vmap(jax::grad(clip_gradient))(xs)
    }
}

#[test]
fn custom_vjp_rules_hold_per_lane() {
    let xs = Array::<f32, 3, 4>::from_fn(|i| i as f32 * 0.5 - 1.0);
    let got = clipped::per_row(xs.clone());
    for i in 0..3 {
        let want = clipped::clip_gradient::grad(row(&xs, i));
        assert_eq!(row(&got, i).to_vec(), want.to_vec(), "row {i}");
    }
}
