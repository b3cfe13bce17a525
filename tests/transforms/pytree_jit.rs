//! Pytrees through the transformations inside jitted bodies: `jax::grad`
//! with `argnums` and `has_aux`, `jax::vjp`, `jax::jvp`, `jax::jacfwd` and
//! `jax::jacrev` of a model whose parameters are nested structs, a tuple,
//! and a Rust array of structs (`[Layer; 2]`), against real JAX
//! (`tests/fixtures/gen/pytree_jit.py`: the same model as dataclasses).

use crate::common;

use jax::prelude::*;
use serde_json::Value;

#[jax::jit]
mod model {
    use jax::prelude::*;

    #[derive(Clone, Debug)]
    pub struct Layer {
        pub w: Array<f32, 3, 3>,
        pub b: Array<f32, 3>,
    }

    #[derive(Clone, Debug)]
    pub struct Head {
        pub w: Array<f32, 3, 2>,
    }

    /// Nested pytrees: a Rust array of structs, a struct, an array.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub layers: [Layer; 2],
        pub head: Head,
        pub scale: Array<f32, 2>,
    }

    pub fn forward(p: &Params, x: &Array<f32, 5, 3>) -> Array<f32, 5, 2> {
        let mut h = x * 1.0;
        for layer in &p.layers {
            h = jnp::tanh(h.matmul(&layer.w) + &layer.b);
        }
        h.matmul(&p.head.w) * &p.scale
    }

    pub fn loss(p: &Params, x: &Array<f32, 5, 3>, y: &Array<f32, 5, 2>) -> Array<f32> {
        let e = forward(p, x) - y;
        jnp::mean(e * e)
    }

    fn loss_aux(
        p: &Params,
        x: &Array<f32, 5, 3>,
        y: &Array<f32, 5, 2>,
    ) -> (Array<f32>, Array<f32, 5, 2>) {
        let out = forward(p, x);
        let e = out - y;
        (jnp::mean(e * e), out)
    }

    pub fn grad_in_body(p: &Params, x: &Array<f32, 5, 3>, y: &Array<f32, 5, 2>) -> Params {
        jax::grad(loss)(p, x, y)
    }

    pub fn value_and_grad_argnums(
        p: &Params,
        x: &Array<f32, 5, 3>,
        y: &Array<f32, 5, 2>,
    ) -> (Array<f32>, (Params, Array<f32, 5, 3>)) {
        jax::value_and_grad(loss, argnums = (0, 1))(p, x, y)
    }

    pub fn grad_argnums_1(
        p: &Params,
        x: &Array<f32, 5, 3>,
        y: &Array<f32, 5, 2>,
    ) -> Array<f32, 5, 3> {
        jax::grad(loss, argnums = 1)(p, x, y)
    }

    pub fn value_and_grad_has_aux(
        p: &Params,
        x: &Array<f32, 5, 3>,
        y: &Array<f32, 5, 2>,
    ) -> ((Array<f32>, Array<f32, 5, 2>), Params) {
        jax::value_and_grad(loss_aux, has_aux = true)(p, x, y)
    }

    pub fn grad_has_aux(
        p: &Params,
        x: &Array<f32, 5, 3>,
        y: &Array<f32, 5, 2>,
    ) -> (Params, Array<f32, 5, 2>) {
        jax::grad(loss_aux, has_aux = true)(p, x, y)
    }

    pub fn vjp_in_body(
        p: &Params,
        x: &Array<f32, 5, 3>,
        ct: &Array<f32, 5, 2>,
    ) -> (Array<f32, 5, 2>, Params, Array<f32, 5, 3>) {
        let (y, pullback) = jax::vjp(forward, p, x);
        let (cp, cx) = pullback(ct);
        (y, cp, cx)
    }

    pub fn vjp_tuple_out(
        p: &Params,
        x: &Array<f32, 5, 3>,
        ct: &Array<f32, 5, 2>,
    ) -> (Array<f32, 5, 2>, Array<f32, 2>, Params) {
        let (y, pullback) = jax::vjp(|q: Params| (forward(&q, x), q.scale * 2.0), p);
        let (cp,) = pullback((ct, p.scale));
        (y.0, y.1, cp)
    }

    pub fn jvp_in_body(
        p: &Params,
        t: &Params,
        x: &Array<f32, 5, 3>,
    ) -> (Array<f32, 5, 2>, Array<f32, 5, 2>) {
        jax::jvp(|q: Params| forward(&q, x), (p,), (t,))
    }

    /// The Jacobian of a struct is a struct of Jacobians: each leaf the
    /// output's shape, then the leaf's.
    pub fn jacfwd_in_body(
        p: &Params,
        x: &Array<f32, 5, 3>,
    ) -> (
        Array<f32, 2, 3, 3>,
        Array<f32, 2, 3>,
        Array<f32, 2, 3, 3>,
        Array<f32, 2, 3>,
        Array<f32, 2, 3, 2>,
        Array<f32, 2, 2>,
    ) {
        let j = jax::jacfwd(|q: Params| forward(&q, x).at(1).get())(p);
        (
            j.layers[0].w,
            j.layers[0].b,
            j.layers[1].w,
            j.layers[1].b,
            j.head.w,
            j.scale,
        )
    }

    pub fn jacrev_in_body(
        p: &Params,
        x: &Array<f32, 5, 3>,
    ) -> (
        Array<f32, 2, 3, 3>,
        Array<f32, 2, 3>,
        Array<f32, 2, 3, 3>,
        Array<f32, 2, 3>,
        Array<f32, 2, 3, 2>,
        Array<f32, 2, 2>,
    ) {
        let j = jax::jacrev(|q: Params| forward(&q, x).at(1).get())(p);
        (
            j.layers[0].w,
            j.layers[0].b,
            j.layers[1].w,
            j.layers[1].b,
            j.head.w,
            j.scale,
        )
    }

    /// A Rust array of structs as a parameter; `layers_loss::grad` returns one.
    pub fn layers_loss(layers: &[Layer; 2], x: &Array<f32, 5, 3>) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&layers[0].w) + &layers[0].b);
        jnp::sum(jnp::tanh(h.matmul(&layers[1].w) + &layers[1].b))
    }

    pub fn grad_tuple(
        w: &Array<f32, 3, 3>,
        b: &Array<f32, 3>,
        x: &Array<f32, 5, 3>,
    ) -> (Array<f32, 3, 3>, Array<f32, 3>) {
        let f = |ab: (Array<f32, 3, 3>, Array<f32, 3>), x: Array<f32, 5, 3>| {
            jnp::sum(jnp::sin(x.matmul(&ab.0)) * &ab.1)
        };
        jax::grad(f)((w, b), x)
    }
}

use model::{Head, Layer, Params};

fn leaf<A: ArrayType>(tree: &Value, path: &str) -> A {
    common::array_arg(&tree[path])
}

fn params(tree: &Value) -> Params {
    let layer = |k: usize| Layer {
        w: leaf(tree, &format!("layers.{k}.w")),
        b: leaf(tree, &format!("layers.{k}.b")),
    };
    Params {
        layers: [layer(0), layer(1)],
        head: Head {
            w: leaf(tree, "head.w"),
        },
        scale: leaf(tree, "scale"),
    }
}

fn inputs() -> (
    Params,
    Params,
    Array<f32, 5, 3>,
    Array<f32, 5, 2>,
    Array<f32, 5, 2>,
) {
    let c = common::case("pytree_jit", "inputs");
    (
        params(&c["params"]),
        params(&c["tangent"]),
        leaf(&c["x"], "_"),
        leaf(&c["y"], "_"),
        leaf(&c["ct"], "_"),
    )
}

/// `got` against a fixture array: same shape, values within float32 noise
/// (the operations are JAX's, their order of rounding may differ).
#[track_caller]
fn close<A: ArrayType<Elem = f32>>(got: &A, want: &Value, what: &str) {
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "{what}: shape");
    for (i, (g, w)) in got
        .data()
        .iter()
        .zip(want["data"].as_array().unwrap())
        .enumerate()
    {
        let w = w.as_f64().unwrap() as f32;
        assert!(
            (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
            "{what}[{i}]: got {g}, JAX {w}"
        );
    }
}

#[track_caller]
fn close_params(got: &Params, want: &Value) {
    for k in 0..2 {
        close(
            &got.layers[k].w,
            &want[format!("layers.{k}.w")],
            &format!("layers.{k}.w"),
        );
        close(
            &got.layers[k].b,
            &want[format!("layers.{k}.b")],
            &format!("layers.{k}.b"),
        );
    }
    close(&got.head.w, &want["head.w"], "head.w");
    close(&got.scale, &want["scale"], "scale");
}

#[test]
fn grad_of_a_nested_struct_in_a_body() {
    let (p, _, x, y, _) = inputs();
    let want = common::case("pytree_jit", "grad");
    close_params(&model::grad_in_body(&p, &x, &y), &want["out"]);
    // The companion of the loss gives the same tree.
    close_params(&model::loss::grad(&p, &x, &y), &want["out"]);
}

#[test]
fn value_and_grad_with_argnums() {
    let (p, _, x, y, _) = inputs();
    let want = common::case("pytree_jit", "value_and_grad_argnums");
    let (v, (gp, gx)) = model::value_and_grad_argnums(&p, &x, &y);
    close(&v, &want["value"]["_"], "value");
    close_params(&gp, &want["grad_params"]);
    close(&gx, &want["grad_x"]["_"], "grad_x");
    let g1 = model::grad_argnums_1(&p, &x, &y);
    close(
        &g1,
        &common::case("pytree_jit", "grad_argnums_1")["out"]["_"],
        "grad x",
    );
}

#[test]
fn has_aux_returns_the_aux_output() {
    let (p, _, x, y, _) = inputs();
    let want = common::case("pytree_jit", "value_and_grad_has_aux");
    let ((v, aux), g) = model::value_and_grad_has_aux(&p, &x, &y);
    close(&v, &want["value"]["_"], "value");
    close(&aux, &want["aux"]["_"], "aux");
    close_params(&g, &want["grad"]);
    let (g2, aux2) = model::grad_has_aux(&p, &x, &y);
    close_params(&g2, &want["grad"]);
    close(&aux2, &want["aux"]["_"], "aux");
}

#[test]
fn vjp_pulls_back_to_the_same_trees() {
    let (p, _, x, _, ct) = inputs();
    let want = common::case("pytree_jit", "vjp");
    let (y, cp, cx) = model::vjp_in_body(&p, &x, &ct);
    close(&y, &want["out"]["_"], "out");
    close_params(&cp, &want["ct_params"]);
    close(&cx, &want["ct_x"]["_"], "ct_x");
    let want = common::case("pytree_jit", "vjp_tuple_out");
    let (y0, y1, cp) = model::vjp_tuple_out(&p, &x, &ct);
    close(&y0, &want["out0"]["_"], "out0");
    close(&y1, &want["out1"]["_"], "out1");
    close_params(&cp, &want["ct_params"]);
}

#[test]
fn jvp_takes_tangent_trees() {
    let (p, t, x, _, _) = inputs();
    let want = common::case("pytree_jit", "jvp");
    let (y, ty) = model::jvp_in_body(&p, &t, &x);
    close(&y, &want["out"]["_"], "out");
    close(&ty, &want["tangent_out"]["_"], "tangent_out");
}

#[test]
fn jacobians_of_a_struct_are_trees_of_jacobians() {
    let (p, _, x, _, _) = inputs();
    for (name, j) in [
        ("jacfwd", model::jacfwd_in_body(&p, &x)),
        ("jacrev", model::jacrev_in_body(&p, &x)),
    ] {
        let want = &common::case("pytree_jit", name)["out"];
        close(&j.0, &want["layers.0.w"], name);
        close(&j.1, &want["layers.0.b"], name);
        close(&j.2, &want["layers.1.w"], name);
        close(&j.3, &want["layers.1.b"], name);
        close(&j.4, &want["head.w"], name);
        close(&j.5, &want["scale"], name);
    }
}

#[test]
fn rust_arrays_of_structs_in_signatures_and_companions() {
    let (p, _, x, _, _) = inputs();
    // The same loss as a closure differentiated in a body would give; here
    // compare the companion's gradient with the vjp of the jitted function.
    let g: [Layer; 2] = model::layers_loss::grad(&p.layers, &x);
    let (v, pullback) = model::layers_loss::vjp(&p.layers, &x);
    assert_eq!(v, model::layers_loss(&p.layers, &x));
    let (cl, _) = pullback(Array::from(1.0f32));
    for k in 0..2 {
        assert_eq!(g[k].w, cl[k].w);
        assert_eq!(g[k].b, cl[k].b);
    }
    assert!(g[0].w.data().iter().any(|v| *v != 0.0));
}

#[test]
fn grad_of_a_tuple_argument() {
    let (p, _, x, _, _) = inputs();
    let want = &common::case("pytree_jit", "grad_tuple")["out"];
    let (gw, gb) = model::grad_tuple(&p.layers[0].w, &p.layers[0].b, &x);
    close(&gw, &want["0"], "w");
    close(&gb, &want["1"], "b");
}
