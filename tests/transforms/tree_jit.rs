//! `jax::tree::map`, `tree::leaves` and `tree::reduce` inside `#[jax::jit]`
//! bodies (unrolled over the leaves when the macro traces) against the eager
//! `jax::tree` functions on the same trees.

use jax::prelude::*;
use jax::tree;

#[jax::jit]
mod model {
    use jax::prelude::*;

    #[derive(Clone, Debug)]
    pub struct Params {
        pub w: Array<f32, 2, 3>,
        pub b: Array<f32, 3>,
        pub s: Array<f32>,
    }

    /// One SGD step on a struct, a tuple and a list of trees at once.
    pub fn sgd(p: &Params, g: &Params) -> Params {
        tree::map(|p, g| p - 0.01 * g, p, g)
    }

    /// Three trees: a momentum-like update.
    pub fn momentum(p: &Params, m: &Params, g: &Params) -> Params {
        jax::tree::map(|p, m, g| p - 0.1 * (0.9 * m + g), p, m, g)
    }

    /// Nested tuples and lists of arrays.
    pub fn nested(
        a: &Array<f32, 2>,
        b: &Array<f32, 2, 2>,
        c: &Array<f32>,
    ) -> (Array<f32, 2>, Array<f32, 2, 2>, Array<f32>) {
        let t = (a.clone(), [b.clone(), b.clone()], (c.clone(),));
        let u = tree::map(|x| jnp::sin(x) * 2.0, &t);
        let (x, [y, z], (w,)) = u;
        (x, y + z, w)
    }

    /// The sum of squares of every leaf (a squared global norm).
    pub fn sum_sq(p: &Params) -> Array<f32> {
        tree::reduce(|acc, x| acc + jnp::sum(x * x), p, 0.0)
    }

    /// The norm of the leaves' norms (DP-SGD's clipping norm): a `tree::map`
    /// to scalars, their `tree::leaves` stacked as one vector.
    pub fn leaf_norms(p: &Params) -> (Array<f32, 3>, Array<f32>) {
        let norms = tree::map(|g| jnp::linalg::norm(jnp::ravel(g)), p);
        let stacked = jnp::stack(tree::leaves(&norms), 0);
        let total = jnp::linalg::norm(&stacked);
        (stacked, total)
    }

    /// The leaves in flattening order.
    pub fn first_leaf_sum(p: &Params) -> Array<f32> {
        let ls = tree::leaves(p);
        let [w, b, s] = ls;
        jnp::sum(w) + 10.0 * jnp::sum(b) + 100.0 * s
    }
}

use model::Params;

/// The eager side sees `Params` as the tuple of its fields (the same leaves
/// in the same order), so this test does not depend on the struct's own
/// `Pytree` impl.
fn leaves_of(p: &Params) -> Vec<jax::tree::DynArray> {
    tree::leaves(&(p.w.clone(), p.b.clone(), p.s.clone()))
}

type Tuple = (Array<f32, 2, 3>, Array<f32, 3>, Array<f32>);

fn tuple(p: &Params) -> Tuple {
    (p.w.clone(), p.b.clone(), p.s.clone())
}

fn params(shift: f32) -> Params {
    Params {
        w: Array::from_fn(|i| (i as f32 * 7.0 % 11.0) * 0.25 + shift),
        b: Array::from_fn(|i| i as f32 - shift),
        s: Array::from(shift * 3.0),
    }
}

fn assert_same(a: &Params, b: &Tuple) {
    assert_eq!(leaves_of(a), tree::leaves(b));
}

#[test]
fn map_in_jit_equals_eager() {
    let (p, g) = (params(0.5), params(-1.25));
    let eager = tree::map2(|p, g| p - 0.01 * g, &tuple(&p), &tuple(&g)).unwrap();
    assert_same(&model::sgd(&p, &g), &eager);
    let m = params(2.0);
    let eager = tree::map3(
        |p, m, g| p - 0.1 * (0.9 * m + g),
        &tuple(&p),
        &tuple(&m),
        &tuple(&g),
    )
    .unwrap();
    assert_same(&model::momentum(&p, &m, &g), &eager);
}

#[test]
fn map_over_nested_tuples_and_lists() {
    let a = Array::<f32, 2>::from([0.5, -1.0]);
    let b = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
    let c = Array::<f32>::from(0.25);
    let (x, y, w) = model::nested(&a, &b, &c);
    let t = (a.clone(), [b.clone(), b.clone()], (c.clone(),));
    let e = tree::map(
        |x| {
            let v: Vec<f64> = x
                .to_vec::<f32>()
                .unwrap()
                .iter()
                .map(|&v| (jnp::sin(Array::from(v)) * 2.0).item() as f64)
                .collect();
            jax::tree::DynArray::from_f64(x.dtype(), x.shape().to_vec(), &v).unwrap()
        },
        &t,
    )
    .unwrap();
    assert_eq!(x, e.0);
    assert_eq!(y, &e.1[0] + &e.1[1]);
    assert_eq!(w, e.2 .0);
}

#[test]
fn reduce_and_leaves_in_jit_equal_eager() {
    let p = params(0.75);
    let eager = tree::reduce(|acc, x| acc + (&x * &x).sum(), &tuple(&p), 0.0f32);
    let jitted = model::sum_sq(&p);
    assert!(
        (jitted.item() - eager.to_vec::<f32>().unwrap()[0]).abs() <= 1e-5 * jitted.item().abs()
    );
    let l = leaves_of(&p);
    let want = l[0].sum().to_vec_f64()[0]
        + 10.0 * l[1].sum().to_vec_f64()[0]
        + 100.0 * l[2].to_vec_f64()[0];
    assert!((model::first_leaf_sum(&p).item() as f64 - want).abs() < 1e-4);
    let (stacked, total) = model::leaf_norms(&p);
    let norms: Vec<f32> = [p.w.to_vec(), p.b.to_vec(), p.s.to_vec()]
        .iter()
        .map(|v| v.iter().map(|x| x * x).sum::<f32>().sqrt())
        .collect();
    for (g, w) in stacked.to_vec().iter().zip(&norms) {
        assert!((g - w).abs() <= 1e-6 * w.max(1.0), "{g} against {w}");
    }
    let want_total = norms.iter().map(|n| n * n).sum::<f32>().sqrt();
    assert!((total.item() - want_total).abs() <= 1e-6 * want_total);
}
