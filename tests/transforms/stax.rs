//! `jax::example_libraries::stax`, eagerly and inside `#[jax::jit]`,
//! against JAX's `jax.example_libraries.stax` (tests/fixtures/stax.json,
//! made by tests/fixtures/gen/stax.py): for each model, `init_fun` on
//! `random.key(0)` called eagerly (the params and the output shape), the
//! jitted `apply_fun` on inputs drawn from `random.key(1)`, and the jitted
//! gradient of `sum(y * y)` over the outputs with respect to the params.
//!
//! The params are JAX's bits: the key splits and the initializers'
//! draws are JAX's, and each draw is scaled by one rounded multiplication,
//! as JAX's eager calls do. The outputs and gradients are XLA's compiled
//! code on JAX's side: its matrix products and convolutions sum in another
//! order and it fuses multiply-adds, so they are compared within
//! `TOL` of each array's largest magnitude (measured: at most 2.6e-7 on
//! the outputs and 6.8e-7 on the gradients).

use jax::example_libraries::stax::{
    self, AvgPool, BatchNorm, Conv, Dense, Dropout, Elu, Exp, FanInConcat, FanOut, Flatten, Gelu,
    GeneralConv, Identity, Layer, LeakyRelu, MaxPool, Relu, Selu, Sigmoid, Softmax, Softplus,
};
use jax::tree::{DynArray, Pytree};
use jax::{random, Array};
use serde_json::Value;

use crate::common;

/// Relative to each array's largest magnitude.
const TOL: f32 = 5e-6;

fn case(id: &str) -> Value {
    common::case("stax", id)
}

/// The arrays of an encoded tree, in order.
fn fixture_leaves(v: &Value, out: &mut Vec<Value>) {
    match v.get("pytree") {
        Some(_) => v["items"]
            .as_array()
            .unwrap()
            .iter()
            .for_each(|i| fixture_leaves(i, out)),
        None => out.push(v.clone()),
    }
}

/// `got`'s leaves against the fixture's: shapes equal, values bit for bit
/// (`tol == 0`) or within `tol` of each array's largest magnitude.
#[track_caller]
fn check_tree<P: Pytree>(what: &str, got: &P, want: &Value, tol: f32) {
    check_tree_with_zeros(what, got, want, tol, &[]);
}

/// As [`check_tree`], the leaves `zeros` being zero in exact arithmetic
/// (the gradient of a bias a `BatchNorm` follows: the normalization
/// subtracts it again): both sides hold rounding noise, checked within
/// `tol` of the tree's largest magnitude.
#[track_caller]
fn check_tree_with_zeros<P: Pytree>(what: &str, got: &P, want: &Value, tol: f32, zeros: &[usize]) {
    let got: Vec<DynArray> = jax::tree::leaves(got);
    let mut want_leaves = Vec::new();
    fixture_leaves(want, &mut want_leaves);
    assert_eq!(got.len(), want_leaves.len(), "{what}: number of arrays");
    let tree_max = want_leaves
        .iter()
        .flat_map(|w| w["data"].as_array().unwrap().iter())
        .fold(0f32, |m, v| m.max(v.as_f64().unwrap().abs() as f32));
    for (k, (g, w)) in got.iter().zip(&want_leaves).enumerate() {
        let shape: Vec<usize> = w["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(g.shape(), &shape[..], "{what}: array {k}'s shape");
        let g = g.to_vec::<f32>().unwrap();
        let bits: Vec<u32> = w["bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u32::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
            .collect();
        let scale = if zeros.contains(&k) {
            let noise = |x: f32| x.abs() <= tol * tree_max;
            assert!(
                g.iter().all(|&x| noise(x)) && bits.iter().all(|&b| noise(f32::from_bits(b))),
                "{what}: array {k} is zero up to rounding, got {g:?}"
            );
            continue;
        } else {
            bits.iter()
                .fold(0f32, |m, &b| m.max(f32::from_bits(b).abs()))
        };
        for (i, (&x, &b)) in g.iter().zip(&bits).enumerate() {
            let y = f32::from_bits(b);
            if tol == 0.0 {
                assert_eq!(
                    x.to_bits(),
                    b,
                    "{what}: array {k}, element {i}: {x} against JAX's {y}"
                );
            } else {
                assert!(
                    (x - y).abs() <= tol * scale,
                    "{what}: array {k}, element {i}: {x} against JAX's {y}"
                );
            }
        }
    }
}

/// The output shape `init` returned against JAX's.
#[track_caller]
fn check_shape(got: &stax::Shape, want: &Value) {
    fn of(v: &Value) -> stax::Shape {
        let items = v.as_array().unwrap();
        if items.iter().all(Value::is_i64) {
            stax::Shape::Array(items.iter().map(|d| d.as_i64().unwrap()).collect())
        } else {
            stax::Shape::List(items.iter().map(of).collect())
        }
    }
    assert_eq!(got, &of(want), "output shape");
}

fn input<A: jax::ArrayType>(c: &Value) -> A {
    common::array_arg(&c["x"])
}

/// JAX's models, as the generator builds them.
mod models {
    use super::*;

    pub use super::jitted::{cnn, dropout, fan, mlp, vae_encoder};

    pub fn elementwise() -> Layer {
        stax::serial([
            stax::serial([Dense(12), Elu, Dense(12), LeakyRelu, Dense(12), Selu]),
            stax::serial([Dense(12), Gelu, Dense(12), Sigmoid, Dense(12), Softplus]),
            stax::serial([Dense(12), Exp, Identity, Dense(6), Softmax]),
        ])
    }

    pub fn cnn_nchw() -> Layer {
        stax::serial([
            GeneralConv(("NCHW", "OIHW", "NCHW"), 4, [3, 3])
                .strides([1, 1])
                .padding("SAME"),
            BatchNorm().axis([0, 2, 3]),
            Relu,
            MaxPool([2, 2]).spec("NCHW"),
            AvgPool([3, 3]).strides([2, 2]).padding("SAME").spec("NCHW"),
            Flatten,
            Dense(3),
        ])
    }

    pub fn batchnorm_options() -> Layer {
        stax::serial([
            Dense(6),
            BatchNorm().axis([0]).center(false),
            Dense(6),
            BatchNorm().axis([0]).scale(false).epsilon(1e-3),
            Dense(2),
        ])
    }

    pub fn fan_concat_axis() -> Layer {
        stax::serial([
            Dense(4),
            FanOut(2),
            stax::parallel([Dense(3), Dense(2)]),
            FanInConcat().axis([1]),
        ])
    }

    pub fn dropout_test_mode() -> Layer {
        stax::serial([Dense(16), Dropout(0.8).mode("test"), Relu, Dense(4)])
    }
}

/// The params' types, as a user writes them (the jitted mod's, and the
/// models only the eager tests run).
use jitted::{CnnParams, DropoutParams, FanParams, MlpParams, VaeParams, D};
pub type ElementwiseParams = (
    (D<5, 12>, (), D<12, 12>, (), D<12, 12>, ()),
    (D<12, 12>, (), D<12, 12>, (), D<12, 12>, ()),
    (D<12, 12>, (), (), D<12, 6>, ()),
);
pub type CnnNchwParams = (
    (Array<f32, 4, 3, 3, 3>, Array<f32, 1, 4, 1, 1>),
    (Array<f32, 4>, Array<f32, 4>),
    (),
    (),
    (),
    (),
    D<64, 3>,
);
pub type BatchNormParams = (
    D<4, 6>,
    ((), Array<f32, 6>),
    D<6, 6>,
    (Array<f32, 6>, ()),
    D<6, 2>,
);
pub type FanConcatParams = (D<5, 4>, (), (D<4, 3>, D<4, 2>), ());

/// `init` against JAX's params (bit for bit) and output shape, then
/// `apply` against JAX's outputs: eagerly.
macro_rules! eager_case {
    ($name:ident, $params:ty, [$($d:literal),+], $x:ty, $y:ty $(, rng $k:literal)?) => {
        #[test]
        fn $name() {
            let c = case(stringify!($name));
            let shape: Vec<i64> = c["input_shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_i64().unwrap())
                .collect();
            assert_eq!(shape, [$($d),+]);
            let net = models::$name();
            let (out, params): (_, $params) = net.init(random::key(0), [$($d),+]);
            check_shape(&out, &c["out_shape"]);
            check_tree("params", &params, &c["params"], 0.0);
            let x: $x = input(&c);
            let y: $y = eager_case!(@apply net, params, x $(, $k)?);
            check_tree("outputs", &y, &c["y"], TOL);
        }
    };
    (@apply $net:ident, $p:ident, $x:ident) => { $net.apply(&$p, &$x) };
    (@apply $net:ident, $p:ident, $x:ident, $k:literal) => { $net.apply_rng(&$p, &$x, random::key($k)) };
}

mod eager {
    use super::*;

    eager_case!(mlp, MlpParams, [-1, 20], Array<f32, 4, 20>, Array<f32, 4, 10>);
    eager_case!(elementwise, ElementwiseParams, [-1, 5], Array<f32, 3, 5>, Array<f32, 3, 6>);
    eager_case!(cnn, CnnParams, [-1, 12, 12, 3], Array<f32, 2, 12, 12, 3>, Array<f32, 2, 10>);
    eager_case!(cnn_nchw, CnnNchwParams, [-1, 3, 8, 8], Array<f32, 2, 3, 8, 8>, Array<f32, 2, 3>);
    eager_case!(batchnorm_options, BatchNormParams, [-1, 4], Array<f32, 5, 4>, Array<f32, 5, 2>);
    eager_case!(fan, FanParams, [-1, 6], Array<f32, 3, 6>, Array<f32, 3, 14>);
    eager_case!(fan_concat_axis, FanConcatParams, [-1, 5], Array<f32, 2, 5>, Array<f32, 2, 5>);
    eager_case!(
        vae_encoder,
        VaeParams,
        [-1, 64],
        Array<f32, 4, 64>,
        (Array<f32, 4, 10>, Array<f32, 4, 10>)
    );
    eager_case!(dropout, DropoutParams, [-1, 6], Array<f32, 5, 6>, Array<f32, 5, 4>, rng 3);
    eager_case!(
        dropout_test_mode,
        DropoutParams,
        [-1, 6],
        Array<f32, 5, 6>,
        Array<f32, 5, 4>,
        rng 3
    );
}

/// JAX's `init_fun`'s output shapes of single layers.
#[test]
fn init_shapes_are_jaxs() {
    let c = case("init_shapes");
    let s = &c["shapes"];
    let key = random::key(0);
    let (flat, ()) = Flatten.init(key, [-1, 2, 3, 4]);
    check_shape(&flat, &s["flatten"]);
    let two = stax::Shape::List(vec![[-1, 3].into(), [-1, 4].into()]);
    let (cat, ()) = FanInConcat().init(key, two);
    check_shape(&cat, &s["concat"]);
    let conv = Conv(5, [2, 3]).strides([1, 2]);
    let (out, _): (_, (Array<f32, 2, 3, 2, 5>, Array<f32, 1, 1, 1, 5>)) =
        conv.init(key, [7, 9, 11, 2]);
    check_shape(&out, &s["conv"]);
}

/// A params type of another structure is named in the panic.
#[test]
#[should_panic(expected = "params are structured ((*, *), ())")]
fn params_of_another_structure_panic() {
    let net = stax::serial([Dense(3), Relu]);
    let _: (_, (D<2, 3>,)) = net.init(random::key(0), [-1, 2]);
}

/// Dropout in training mode needs a key, as JAX's does.
#[test]
#[should_panic(expected = "requires apply_fun to be called with a PRNG key")]
fn dropout_without_a_key_panics() {
    let net = models::dropout();
    let (_, p): (_, DropoutParams) = net.init(random::key(0), [-1, 6]);
    let _: Array<f32, 5, 4> = net.apply(&p, &Array::<f32, 5, 6>::ones());
}

/// An option of another layer is named in the panic.
#[test]
#[should_panic(expected = "Relu has no option `padding`")]
fn option_of_another_layer_panics() {
    let _ = Relu.padding("SAME");
}

#[jax::jit]
mod jitted {
    use jax::example_libraries::stax::{
        self, AvgPool, BatchNorm, Conv, Dense, Dropout, FanOut, Flatten, Identity, LogSoftmax,
        MaxPool, Relu, Softplus, SumPool, Tanh,
    };
    use jax::prelude::*;
    use jax::random::Key;

    pub type D<const I: usize, const O: usize> = (Array<f32, I, O>, Array<f32, O>);
    pub type MlpParams = (D<20, 32>, (), D<32, 16>, (), D<16, 10>, ());
    pub type CnnParams = (
        (Array<f32, 3, 3, 3, 8>, Array<f32, 1, 1, 1, 8>),
        (Array<f32, 8>, Array<f32, 8>),
        (),
        (),
        (Array<f32, 3, 3, 8, 6>, Array<f32, 1, 1, 1, 6>),
        ((), ()),
        (),
        D<6, 10>,
        (),
    );
    pub type FanParams = (
        D<6, 8>,
        (),
        (D<8, 5>, (D<8, 5>, ())),
        (),
        (),
        ((), D<5, 4>, ()),
        (),
    );
    pub type VaeParams = (
        D<64, 32>,
        (),
        D<32, 32>,
        (),
        (),
        (D<32, 10>, (D<32, 10>, ())),
    );
    pub type DropoutParams = (D<6, 16>, (), (), D<16, 4>);

    /// The models, as JAX's examples build them at the top of a module.
    pub fn mlp() -> stax::Layer {
        stax::serial([Dense(32), Relu, Dense(16), Tanh, Dense(10), LogSoftmax])
    }

    pub fn cnn() -> stax::Layer {
        stax::serial([
            Conv(8, [3, 3]).padding("SAME"),
            BatchNorm(),
            Relu,
            MaxPool([2, 2]).strides([2, 2]),
            Conv(6, [3, 3]).strides([2, 2]),
            stax::serial([AvgPool([2, 2]).padding("SAME"), SumPool([2, 2])]),
            Flatten,
            Dense(10),
            LogSoftmax,
        ])
    }

    pub fn fan() -> stax::Layer {
        stax::serial([
            Dense(8),
            FanOut(2),
            stax::parallel([Dense(5), stax::serial([Dense(5), Softplus])]),
            stax::FanInSum,
            FanOut(3),
            stax::parallel([Identity, Dense(4), Relu]),
            stax::FanInConcat(),
        ])
    }

    pub fn vae_encoder() -> stax::Layer {
        stax::serial([
            Dense(32),
            Relu,
            Dense(32),
            Relu,
            FanOut(2),
            stax::parallel([Dense(10), stax::serial([Dense(10), Softplus])]),
        ])
    }

    pub fn mlp_apply(p: MlpParams, x: &Array<f32, 4, 20>) -> Array<f32, 4, 10> {
        mlp().apply(&p, x)
    }

    pub fn mlp_loss(p: MlpParams, x: &Array<f32, 4, 20>) -> Array<f32> {
        let y = mlp_apply(p, x);
        jnp::sum(&y * &y)
    }

    pub fn mlp_grad(p: MlpParams, x: &Array<f32, 4, 20>) -> MlpParams {
        jax::grad(mlp_loss)(p, x)
    }

    /// `init` traced: the params from a traced key.
    pub fn mlp_init(key: Key) -> MlpParams {
        let (_, p) = mlp().init(key, [-1, 20]);
        p
    }

    pub fn cnn_apply(p: CnnParams, x: &Array<f32, 2, 12, 12, 3>) -> Array<f32, 2, 10> {
        cnn().apply(&p, x)
    }

    pub fn cnn_loss(p: CnnParams, x: &Array<f32, 2, 12, 12, 3>) -> Array<f32> {
        let y = cnn_apply(p, x);
        jnp::sum(&y * &y)
    }

    pub fn cnn_grad(p: CnnParams, x: &Array<f32, 2, 12, 12, 3>) -> CnnParams {
        jax::grad(cnn_loss)(p, x)
    }

    pub fn fan_loss(p: FanParams, x: &Array<f32, 3, 6>) -> Array<f32> {
        let y: Array<f32, 3, 14> = fan().apply(&p, x);
        jnp::sum(&y * &y)
    }

    pub fn fan_grad(p: FanParams, x: &Array<f32, 3, 6>) -> FanParams {
        jax::grad(fan_loss)(p, x)
    }

    /// Two outputs, as the VAE's encoder gives its mean and variance.
    pub fn vae_apply(
        p: VaeParams,
        x: &Array<f32, 4, 64>,
    ) -> (Array<f32, 4, 10>, Array<f32, 4, 10>) {
        vae_encoder().apply(&p, x)
    }

    pub fn vae_loss(p: VaeParams, x: &Array<f32, 4, 64>) -> Array<f32> {
        let (mu, var) = vae_apply(p, x);
        jnp::sum(&mu * &mu) + jnp::sum(&var * &var)
    }

    pub fn vae_grad(p: VaeParams, x: &Array<f32, 4, 64>) -> VaeParams {
        jax::grad(vae_loss)(p, x)
    }

    pub fn dropout() -> stax::Layer {
        stax::serial([Dense(16), Dropout(0.8), Relu, Dense(4)])
    }

    /// Dropout draws from the key `apply_rng` is given, split over the
    /// layers as JAX splits it.
    pub fn dropout_apply(p: DropoutParams, x: &Array<f32, 5, 6>, key: Key) -> Array<f32, 5, 4> {
        dropout().apply_rng(&p, x, key)
    }
}

#[test]
fn jitted_mlp_matches_jax() {
    let c = case("mlp");
    let p: MlpParams = jitted::mlp_init(random::key(0));
    check_tree("jitted init", &p, &c["params"], 0.0);
    let x: Array<f32, 4, 20> = input(&c);
    let y = jitted::mlp_apply(p.clone(), &x);
    check_tree("jitted outputs", &y, &c["y"], TOL);
    let g = jitted::mlp_grad(p, &x);
    check_tree("jitted grad", &g, &c["grad"], TOL);
}

/// Convolutions, batch norm and the three poolings, and their gradients.
#[test]
fn jitted_cnn_matches_jax() {
    let c = case("cnn");
    let (_, p): (_, CnnParams) = models::cnn().init(random::key(0), [-1, 12, 12, 3]);
    let x: Array<f32, 2, 12, 12, 3> = input(&c);
    check_tree(
        "jitted outputs",
        &jitted::cnn_apply(p.clone(), &x),
        &c["y"],
        TOL,
    );
    let g = jitted::cnn_grad(p, &x);
    check_tree_with_zeros("jitted grad", &g, &c["grad"], TOL, &[1]);
}

/// `FanOut`, `parallel`, `FanInSum`, `FanInConcat`: their gradients.
#[test]
fn jitted_fan_matches_jax() {
    let c = case("fan");
    let (_, p): (_, FanParams) = models::fan().init(random::key(0), [-1, 6]);
    let x: Array<f32, 3, 6> = input(&c);
    check_tree("jitted grad", &jitted::fan_grad(p, &x), &c["grad"], TOL);
}

/// A tuple of outputs, and its gradient.
#[test]
fn jitted_vae_encoder_matches_jax() {
    let c = case("vae_encoder");
    let (_, p): (_, VaeParams) = models::vae_encoder().init(random::key(0), [-1, 64]);
    let x: Array<f32, 4, 64> = input(&c);
    check_tree(
        "jitted outputs",
        &jitted::vae_apply(p.clone(), &x),
        &c["y"],
        TOL,
    );
    check_tree("jitted grad", &jitted::vae_grad(p, &x), &c["grad"], TOL);
}

/// Dropout's mask is JAX's draw.
#[test]
fn jitted_dropout_matches_jax() {
    let c = case("dropout");
    let (_, p): (_, DropoutParams) = models::dropout().init(random::key(0), [-1, 6]);
    let x: Array<f32, 5, 6> = input(&c);
    let y = jitted::dropout_apply(p, &x, random::key(3));
    check_tree("jitted outputs", &y, &c["y"], TOL);
}

/// A standalone jitted function (not a mod) naming stax's layers by their
/// imports: the imports are used (no warning), as `rustc` sees them.
mod standalone {
    use jax::example_libraries::stax::{self, Dense, Relu};
    use jax::nn::initializers;
    use jax::prelude::*;
    use jax::random::Key;

    #[jax::jit]
    pub fn apply(
        p: ((Array<f32, 2, 3>, Array<f32, 3>), ()),
        x: &Array<f32, 4, 2>,
    ) -> Array<f32, 4, 3> {
        stax::serial([Dense(3), Relu]).apply(&p, x)
    }

    #[jax::jit]
    pub fn draw(key: Key) -> Array<f32, 2, 3> {
        initializers::lecun_normal().init(key)
    }
}

#[test]
fn standalone_functions_match_eager() {
    let net = stax::serial([Dense(3), Relu]);
    let (_, p): (_, (D<2, 3>, ())) = net.init(random::key(0), [-1, 2]);
    let x = Array::<f32, 4, 2>::from([[1.0, -1.0], [0.5, 2.0], [-3.0, 0.0], [0.25, 0.75]]);
    let eager: Array<f32, 4, 3> = net.apply(&p, &x);
    assert_eq!(standalone::apply(p, &x).to_vec(), eager.to_vec());
    let w: Array<f32, 2, 3> = jax::nn::initializers::lecun_normal().init(random::key(5));
    assert_eq!(standalone::draw(random::key(5)).to_vec(), w.to_vec());
}

/// `stax::params_of!`: the params type computed from the model when the
/// mod compiles.
#[jax::jit]
mod computed {
    use jax::example_libraries::stax::{self, Conv, Dense, Flatten, Relu};
    use jax::prelude::*;

    pub const OUT: usize = 5;

    pub fn net() -> stax::Layer {
        stax::serial([Conv(2, [3, 3]).padding("SAME"), Relu, Flatten, Dense(OUT)])
    }

    pub type Params = stax::params_of!(net, [-1, 6, 6, 1]);

    pub fn predict(p: Params, x: &Array<f32, 2, 6, 6, 1>) -> Array<f32, 2, OUT> {
        net().apply(&p, x)
    }
}

#[test]
fn params_of_is_the_params_type() {
    type Written = (
        (Array<f32, 3, 3, 1, 2>, Array<f32, 1, 1, 1, 2>),
        (),
        (),
        (Array<f32, 72, 5>, Array<f32, 5>),
    );
    let (_, p): (_, Written) = computed::net().init(random::key(0), [-1, 6, 6, 1]);
    let same: computed::Params = p.clone();
    let x: Array<f32, 2, 6, 6, 1> = random::normal(random::key(1));
    let eager: Array<f32, 2, 5> = computed::net().apply(&p, &x);
    assert_eq!(computed::predict(same, &x).to_vec(), eager.to_vec());
}
