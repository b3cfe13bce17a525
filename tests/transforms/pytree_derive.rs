//! `#[derive(jax::Pytree)]`: structs defined outside a `#[jax::jit] mod`,
//! in a plain module, taken and returned by jitted functions and their
//! companions (`f::grad` returns the struct), and pytrees eagerly
//! (`jax::tree::Pytree`); the same struct inside a jit mod gives the same
//! numbers.

use jax::prelude::*;
use jax::tree::Pytree;

mod model {
    use jax::prelude::*;

    #[derive(Clone, Debug, jax::Pytree)]
    pub struct Layer {
        pub w: Array<f32, 3, 2>,
        pub b: Array<f32, 2>,
    }

    /// Nested: a struct, a Rust array of structs, a tuple.
    #[derive(Clone, Debug, jax::Pytree)]
    pub struct Params {
        pub layer: Layer,
        pub extra: [Layer; 2],
        pub pair: (Array<f32>, Array<f32, 2>),
    }
}

use model::{Layer, Params};

#[jax::jit]
fn predict(p: &Params, x: &Array<f32, 4, 3>) -> Array<f32, 4, 2> {
    let h = jnp::tanh(x.matmul(&p.layer.w) + &p.layer.b);
    let mut out = h * &p.pair.1 + &p.pair.0;
    for l in &p.extra {
        out = out + jnp::sin(x.matmul(&l.w) + &l.b);
    }
    out
}

#[jax::jit]
fn loss(p: &Params, x: &Array<f32, 4, 3>) -> Array<f32> {
    let h = jnp::tanh(x.matmul(&p.layer.w) + &p.layer.b);
    let mut out = h * &p.pair.1 + &p.pair.0;
    for l in &p.extra {
        out = out + jnp::sin(x.matmul(&l.w) + &l.b);
    }
    jnp::mean(out * out)
}

/// One SGD step, in one jitted function: the gradient of a struct defined
/// elsewhere, taken inside the body.
#[jax::jit]
fn sgd_step(p: Params, x: &Array<f32, 4, 3>) -> Params {
    let g = jax::grad(|q: Params| {
        let h = jnp::tanh(x.matmul(&q.layer.w) + &q.layer.b);
        let mut out = h * &q.pair.1 + &q.pair.0;
        for l in &q.extra {
            out = out + jnp::sin(x.matmul(&l.w) + &l.b);
        }
        jnp::mean(out * out)
    })(p);
    let step = |a: Layer, b: Layer| Layer {
        w: a.w - 0.1 * b.w,
        b: a.b - 0.1 * b.b,
    };
    Params {
        layer: step(p.layer, g.layer),
        extra: [step(p.extra[0], g.extra[0]), step(p.extra[1], g.extra[1])],
        pair: (p.pair.0 - 0.1 * g.pair.0, p.pair.1 - 0.1 * g.pair.1),
    }
}

/// The same model with its structs in a jit mod: the reference.
#[jax::jit]
mod reference {
    use jax::prelude::*;

    #[derive(Clone, Debug)]
    pub struct Layer {
        pub w: Array<f32, 3, 2>,
        pub b: Array<f32, 2>,
    }

    #[derive(Clone, Debug)]
    pub struct Params {
        pub layer: Layer,
        pub extra: [Layer; 2],
        pub pair: (Array<f32>, Array<f32, 2>),
    }

    pub fn layer_loss(l: &Layer, x: &Array<f32, 4, 3>) -> Array<f32> {
        jnp::sum(jnp::tanh(x.matmul(&l.w) + &l.b))
    }

    pub fn loss(p: &Params, x: &Array<f32, 4, 3>) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&p.layer.w) + &p.layer.b);
        let mut out = h * &p.pair.1 + &p.pair.0;
        for l in &p.extra {
            out = out + jnp::sin(x.matmul(&l.w) + &l.b);
        }
        jnp::mean(out * out)
    }
}

fn filled<A: ArrayType<Elem = f32>>(seed: usize) -> A {
    let n: usize = A::SHAPE.iter().product();
    A::from_data(
        (0..n)
            .map(|i| ((i * 7 + seed) % 11) as f32 * 0.1 - 0.5)
            .collect(),
    )
}

fn params() -> Params {
    let layer = |s| Layer {
        w: filled(s),
        b: filled(s + 1),
    };
    Params {
        layer: layer(0),
        extra: [layer(2), layer(4)],
        pair: (filled(6), filled(7)),
    }
}

fn as_reference(p: &Params) -> reference::Params {
    let layer = |l: &Layer| reference::Layer {
        w: l.w.clone(),
        b: l.b.clone(),
    };
    reference::Params {
        layer: layer(&p.layer),
        extra: [layer(&p.extra[0]), layer(&p.extra[1])],
        pair: p.pair.clone(),
    }
}

fn leaves(t: &impl Pytree) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    t.for_each_leaf(&mut |l| out.push(l.to_dyn().to_vec_f64()));
    out
}

#[test]
fn a_derived_struct_in_signatures_and_companions() {
    let (p, x) = (params(), filled::<Array<f32, 4, 3>>(3));
    let r = as_reference(&p);
    assert_eq!(loss(&p, &x), reference::loss(&r, &x));
    let y = predict(&p, &x);
    assert!((jnp::mean(&y * &y).item() - loss(&p, &x).item()).abs() < 1e-6);
    let g: Params = loss::grad(&p, &x);
    let want = reference::loss::grad(&r, &x);
    assert_eq!(leaves(&g), leaves(&want));
    assert!(leaves(&g).iter().flatten().any(|v| *v != 0.0));
}

#[test]
fn a_training_step_in_one_jitted_function() {
    let (p, x) = (params(), filled::<Array<f32, 4, 3>>(3));
    let g = reference::loss::grad(&as_reference(&p), &x);
    let stepped = sgd_step(p.clone(), &x);
    let want: Vec<Vec<f64>> = leaves(&p)
        .iter()
        .zip(leaves(&g))
        .map(|(a, b)| {
            a.iter()
                .zip(b)
                .map(|(a, b)| (*a as f32 - 0.1 * b as f32) as f64)
                .collect()
        })
        .collect();
    for (got, want) in leaves(&stepped).iter().zip(&want) {
        for (a, b) in got.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
    }
    assert!(loss(&stepped, &x).item() < loss(&p, &x).item());
}

#[test]
fn derived_and_jit_mod_structs_are_eager_pytrees() {
    let p = params();
    // Fields in declaration order, as JAX flattens a dataclass.
    let shapes: Vec<Vec<usize>> = {
        let mut s = Vec::new();
        p.for_each_leaf(&mut |l| s.push(l.shape().to_vec()));
        s
    };
    assert_eq!(
        shapes,
        [
            vec![3, 2],
            vec![2],
            vec![3, 2],
            vec![2],
            vec![3, 2],
            vec![2],
            vec![],
            vec![2]
        ]
    );
    assert_eq!(p.def(), as_reference(&p).def());
    assert_eq!(p.def().num_leaves(), 8);
    assert_eq!(leaves(&p), leaves(&as_reference(&p)));
}

/// A derived struct beside the jitted function, in the same module.
#[derive(Clone, Debug, jax::Pytree)]
pub struct Local {
    pub a: Array<f32, 3>,
    pub b: (Array<f32, 3>, Array<f32>),
}

#[jax::jit]
fn local_loss(p: &Local) -> Array<f32> {
    jnp::sum(jnp::sin(&p.a) * &p.b.0) + p.b.1
}

/// The struct named by its path, without importing it.
#[jax::jit]
fn by_path(l: &model::Layer, x: &Array<f32, 4, 3>) -> model::Layer {
    let g = jax::grad(|l: model::Layer| jnp::sum(jnp::tanh(x.matmul(&l.w) + &l.b)))(l);
    model::Layer {
        w: l.w - g.w,
        b: l.b - g.b,
    }
}

#[test]
fn structs_beside_the_function_or_named_by_path() {
    let p = Local {
        a: filled(1),
        b: (filled(2), filled(3)),
    };
    let g: Local = local_loss::grad(&p);
    // d/da sum(sin(a) * c) = cos(a) * c; d/db.1 = 1.
    let want: Vec<f32> =
        p.a.to_vec()
            .iter()
            .zip(p.b.0.to_vec())
            .map(|(a, c)| a.cos() * c)
            .collect();
    for (g, w) in g.a.to_vec().iter().zip(&want) {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
    assert_eq!(g.b.1.item(), 1.0);
    let layer = params().layer;
    let x = filled::<Array<f32, 4, 3>>(3);
    let stepped = by_path(&layer, &x);
    let r = reference::Layer {
        w: layer.w.clone(),
        b: layer.b.clone(),
    };
    let g = reference::layer_loss::grad(&r, &x);
    for (got, (w, g)) in stepped
        .w
        .to_vec()
        .iter()
        .zip(layer.w.to_vec().iter().zip(g.w.to_vec()))
    {
        assert!((got - (w - g)).abs() < 1e-6, "{got} vs {}", w - g);
    }
    for (got, (b, g)) in stepped
        .b
        .to_vec()
        .iter()
        .zip(layer.b.to_vec().iter().zip(g.b.to_vec()))
    {
        assert!((got - (b - g)).abs() < 1e-6, "{got} vs {}", b - g);
    }
    assert_ne!(stepped.w, layer.w);
}
