//! `#[jax::jit]` on an inline module: structs as pytrees, consts, helper
//! functions inlined, methods on the structs.

use jax::prelude::*;

#[jax::jit]
mod model {
    use jax::prelude::*;

    pub const HIDDEN: usize = 4;
    const SCALE: f32 = 0.5;

    /// The parameters of a one-layer model: a pytree.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub w: Array<f32, 3, HIDDEN>,
        pub b: Array<f32, HIDDEN>,
    }

    fn layer(p: &Params, x: &Array<f32, 2, 3>) -> Array<f32, 2, HIDDEN> {
        jnp::tanh(x.matmul(&p.w) + &p.b)
    }

    pub fn predict(p: &Params, x: &Array<f32, 2, 3>) -> Array<f32, 2, HIDDEN> {
        layer(p, x) * SCALE
    }

    /// A step that returns updated parameters: the same struct type.
    pub fn scaled(p: &Params, s: f32) -> Params {
        Params {
            b: p.b.clone() * s,
            w: p.w.clone() * s,
        }
    }

    impl Params {
        pub fn loss(&self, x: &Array<f32, 2, 3>) -> Array<f32> {
            let y = predict(self, x);
            jnp::mean(y * y)
        }
    }
}

use model::Params;

fn params() -> Params {
    Params {
        w: Array::from_fn(|i| (i as f32 - 5.0) * 0.1),
        b: Array::from([0.1, -0.2, 0.3, 0.0]),
    }
}

fn eager_predict(p: &Params, x: &Array<f32, 2, 3>) -> Array<f32, 2, 4> {
    let h: Array<f32, 2, 4> = x.matmul(&p.w);
    jnp::tanh(h + &p.b) * 0.5
}

#[test]
fn helper_functions_and_consts_are_inlined() {
    let p = params();
    let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]);
    assert_eq!(model::predict(&p, &x), eager_predict(&p, &x));
    let text = model::predict::jaxpr().to_string();
    assert!(text.contains("tanh"), "{text}");
    assert!(
        text.contains("mul f 0.5:f32[]") || text.contains("0.5:f32[]"),
        "{text}"
    );
}

#[test]
fn structs_come_back_as_structs() {
    let p = params();
    let q = model::scaled(&p, 2.0);
    assert_eq!(q.w.to_vec(), (p.w.clone() * 2.0).to_vec());
    assert_eq!(q.b.to_vec(), (p.b.clone() * 2.0).to_vec());
}

#[test]
fn methods_compile_with_their_jaxpr() {
    let p = params();
    let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]);
    let y = eager_predict(&p, &x);
    let want = jnp::mean(&y * &y);
    let got = p.loss(&x);
    assert!(
        (got.item() - want.item()).abs() <= 1e-6 * want.item().abs(),
        "{got:?} vs {want:?}"
    );
    assert!(Params::loss_jaxpr().to_string().contains("reduce_sum"));
}
