//! JAX's `jax.example_libraries.stax`: neural network layers as values,
//! combined by `serial` and `parallel`.
//!
//! A JAX layer is a pair `(init_fun, apply_fun)`; here it is one value, a
//! [`Layer`], whose methods are the two functions: `layer.init(key,
//! input_shape)` returns the output shape and the params, and
//! `layer.apply(&params, &inputs)` the outputs (`layer.apply_rng(..,
//! key)` for layers that draw, such as `Dropout`). JAX's
//!
//! ```python
//! init_random_params, predict = stax.serial(Dense(1024), Relu, Dense(10), LogSoftmax)
//! _, params = init_random_params(rng, (-1, 784))
//! preds = predict(params, inputs)
//! ```
//!
//! is
//!
//! ```
//! use jax::example_libraries::stax::{self, Dense, LogSoftmax, Relu};
//! use jax::{random, Array};
//!
//! type Params = (
//!     (Array<f32, 784, 1024>, Array<f32, 1024>),
//!     (),
//!     (Array<f32, 1024, 10>, Array<f32, 10>),
//!     (),
//! );
//! let net = stax::serial([Dense(1024), Relu, Dense(10), LogSoftmax]);
//! let (out_shape, params): (_, Params) = net.init(random::key(0), [-1, 784]);
//! assert_eq!(out_shape, stax::Shape::from([-1, 10]));
//! let inputs = Array::<f32, 8, 784>::ones();
//! let preds: Array<f32, 8, 10> = net.apply(&params, &inputs);
//! ```
//!
//! The params are a pytree of the layers' structure, as JAX's are: `(W, b)`
//! for `Dense` and `Conv`, `(beta, gamma)` for `BatchNorm`, `()` for a
//! layer without params, one entry per layer for `serial` and `parallel`;
//! their Rust type is the caller's (a tuple type, as above), checked
//! against the layer's structure. In a `#[jax::jit] mod` the macro
//! computes it from the model: `pub type Params = stax::params_of!(net,
//! [-1, 784]);` ([`params_of!`](params_of)). The same calls work inside
//! `#[jax::jit]`, where the layers are values known when the function
//! compiles, so a jitted step runs the model as JAX's `jit` does.
//!
//! Every `init` and `apply` is JAX's code (`jax_core::stax`): the same key
//! splits, the same initializers (`jax::nn::initializers`), the same
//! primitives, so the params are JAX's bits and the outputs JAX's values
//! (`tests/transforms/stax.rs`). JAX's optional keywords are builder
//! methods (`Conv(32, [3, 3]).padding("SAME")`, `BatchNorm().axis([0, 1])`,
//! `Dense(10).w_init(initializers::he_normal())`).

#![allow(non_snake_case, non_upper_case_globals)]

use jax_core::stax as core;

pub use jax_core::stax::Shape;

use crate::nn::initializers::Initializer;
use crate::optim::leaves::{leaves, run_unit};
use crate::random::Key;
use crate::tree::{DynArray, Pytree, TreeDef};

/// A layer: JAX's `(init_fun, apply_fun)` pair as one value.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer(core::Layer);

/// A pytree's structure as the layers see it: tuples, lists and structs
/// alike are sequences.
fn structure(d: &TreeDef) -> core::Tree<()> {
    match d {
        TreeDef::Leaf => core::Tree::Leaf(()),
        TreeDef::None => core::Tree::Seq(vec![]),
        TreeDef::Tuple(c) | TreeDef::List(c) | TreeDef::Node { children: c, .. } => {
            core::Tree::Seq(c.iter().map(structure).collect())
        }
    }
}

/// `P`'s default value with the leaves `outs`, in order.
#[track_caller]
fn fill<P: Pytree + Default>(what: &str, outs: Vec<DynArray>) -> P {
    let mut p = P::default();
    let n = leaves(&p).len();
    if n != outs.len() {
        panic!(
            "{what}: the type {} holds {n} arrays, the layer's {} ({})",
            std::any::type_name::<P>(),
            outs.len(),
            describe_shapes(&outs)
        );
    }
    let mut it = outs.into_iter();
    p.for_each_leaf_mut(&mut |l| {
        let v = it.next().expect("counted");
        if let Err(e) = l.assign(v) {
            panic!("{what}: {e}");
        }
    });
    p
}

fn describe_shapes(xs: &[DynArray]) -> String {
    xs.iter()
        .map(|x| format!("{}{:?}", x.dtype().name(), x.shape()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Layer {
    /// `init_fun(rng, input_shape)`: the output shape and the params, of
    /// the type the caller names. `-1` in the input shape is a size not
    /// known yet (the batch).
    ///
    /// # Panics
    /// If the layer does not take inputs of that shape (JAX's error), or
    /// if `P` is not of the params' structure and shapes.
    #[track_caller]
    pub fn init<P: Pytree + Default>(&self, key: Key, input_shape: impl Into<Shape>) -> (Shape, P) {
        let shape = input_shape.into();
        let out = core::output_shape(&self.0, &shape).unwrap_or_else(|e| panic!("{e}"));
        let want = self.0.params_structure();
        let got = structure(&P::default().def());
        if got != want {
            panic!(
                "{}'s params are structured {}, the type {} is {}",
                self.0.name(),
                want.describe(),
                std::any::type_name::<P>(),
                got.describe()
            );
        }
        let layer = &self.0;
        if leaves(&P::default()).is_empty() {
            // Nothing to draw (`Relu`, `Flatten`, a serial of them).
            return (out, P::default());
        }
        let k = DynArray::from_vec(vec![2], key.data.to_vec()).expect("two words");
        let outs = run_unit(
            "stax",
            &format!("init {layer:?} {shape}"),
            &[k],
            &|t, ins| {
                let (_, p) = core::init(t, layer, ins[0].clone(), &shape)?;
                let mut out = Vec::new();
                p.leaves(&mut out);
                Ok(out)
            },
        );
        (out, fill("init", outs))
    }

    /// `apply_fun(params, inputs)`: the outputs, of the type the caller
    /// names (an array, or a tuple of arrays after `FanOut` or `parallel`).
    ///
    /// # Panics
    /// If the params are not of the layer's structure, or the inputs'
    /// shapes do not suit the params (JAX's errors), or `Y` is not the
    /// outputs' type.
    #[track_caller]
    pub fn apply<P: Pytree, X: Pytree, Y: Pytree + Default>(&self, params: &P, inputs: &X) -> Y {
        self.run_apply(params, inputs, None)
    }

    /// `apply_fun(params, inputs, rng=key)`: as [`Layer::apply`], the
    /// layers that draw (`Dropout`) drawing from `key`, split as JAX
    /// splits it over `serial`'s and `parallel`'s layers.
    ///
    /// # Panics
    /// As [`Layer::apply`].
    #[track_caller]
    pub fn apply_rng<P: Pytree, X: Pytree, Y: Pytree + Default>(
        &self,
        params: &P,
        inputs: &X,
        key: Key,
    ) -> Y {
        self.run_apply(params, inputs, Some(key))
    }

    #[track_caller]
    fn run_apply<P: Pytree, X: Pytree, Y: Pytree + Default>(
        &self,
        params: &P,
        inputs: &X,
        key: Option<Key>,
    ) -> Y {
        let want = self.0.params_structure();
        let got = structure(&params.def());
        if got != want {
            panic!(
                "{}'s params are structured {}, got {}",
                self.0.name(),
                want.describe(),
                got.describe()
            );
        }
        let xs = structure(&inputs.def());
        let mut ins = leaves(params);
        let np = ins.len();
        ins.extend(leaves(inputs));
        if let Some(k) = key {
            ins.push(DynArray::from_vec(vec![2], k.data.to_vec()).expect("two words"));
        }
        let layer = &self.0;
        let rng = key.is_some();
        let statics = format!("apply {layer:?} {} {rng}", xs.describe());
        let outs = run_unit("stax", &statics, &ins, &|t, ins| {
            let mut it = ins.into_iter();
            let p = want.fill(&mut it.by_ref().take(np)).expect("counted");
            let x = xs.fill(&mut it).expect("counted");
            let r = if rng { it.next() } else { None };
            let y = core::apply(t, layer, &p, x, r)?;
            let mut out = Vec::new();
            y.leaves(&mut out);
            Ok(out)
        });
        fill("apply", outs)
    }

    /// The layer as `jax_core::stax` describes it.
    pub fn core(&self) -> &core::Layer {
        &self.0
    }

    #[track_caller]
    fn with(mut self, name: &str, v: core::Opt) -> Self {
        if let Err(e) = self.0.set(name, v) {
            panic!("{e}");
        }
        self
    }

    /// `W_init` of `Dense`, `Conv` and `GeneralConv`.
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn w_init(self, init: Initializer) -> Self {
        self.with("W_init", core::Opt::Init(init.0))
    }

    /// `b_init` of `Dense`, `Conv` and `GeneralConv`.
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn b_init(self, init: Initializer) -> Self {
        self.with("b_init", core::Opt::Init(init.0))
    }

    /// `strides` of the convolutions and the pooling layers.
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn strides<const N: usize>(self, strides: [usize; N]) -> Self {
        self.with("strides", core::Opt::Sizes(strides.to_vec()))
    }

    /// `padding` of the convolutions and the pooling layers: `"VALID"`
    /// (the default) or `"SAME"`.
    ///
    /// # Panics
    /// On another layer or another padding.
    #[track_caller]
    pub fn padding(self, padding: &str) -> Self {
        self.with("padding", core::Opt::Str(padding.into()))
    }

    /// `spec` of the pooling layers: the inputs' layout (`"NCHW"`), whose
    /// `N` and `C` axes the window leaves alone (default: the first and
    /// the last).
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn spec(self, spec: &str) -> Self {
        self.with("spec", core::Opt::Str(spec.into()))
    }

    /// `axis` of `BatchNorm` (the axes normalized over, default `[0, 1,
    /// 2]`) and `FanInConcat` (default -1).
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn axis<const N: usize>(self, axes: [i64; N]) -> Self {
        let concat = matches!(self.0, core::Layer::FanInConcat(_));
        let v = if concat && N == 1 {
            core::Opt::Num(axes[0] as f64)
        } else {
            if axes.iter().any(|&a| a < 0) {
                panic!("BatchNorm: stax counts the axes from the front, got {axes:?}");
            }
            core::Opt::Sizes(axes.iter().map(|&a| a as usize).collect())
        };
        self.with("axis", v)
    }

    /// `epsilon` of `BatchNorm` (default 1e-5).
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn epsilon(self, epsilon: f64) -> Self {
        self.with("epsilon", core::Opt::Num(epsilon))
    }

    /// `center` of `BatchNorm` (default `true`: a `beta` param).
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn center(self, center: bool) -> Self {
        self.with("center", core::Opt::Bool(center))
    }

    /// `scale` of `BatchNorm` (default `true`: a `gamma` param).
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn scale(self, scale: bool) -> Self {
        self.with("scale", core::Opt::Bool(scale))
    }

    /// `beta_init` of `BatchNorm` (default zeros).
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn beta_init(self, init: Initializer) -> Self {
        self.with("beta_init", core::Opt::Init(init.0))
    }

    /// `gamma_init` of `BatchNorm` (default ones).
    ///
    /// # Panics
    /// On another layer.
    #[track_caller]
    pub fn gamma_init(self, init: Initializer) -> Self {
        self.with("gamma_init", core::Opt::Init(init.0))
    }

    /// `mode` of `Dropout`: `"train"` (the default) or `"test"`.
    ///
    /// # Panics
    /// On another layer or another mode.
    #[track_caller]
    pub fn mode(self, mode: &str) -> Self {
        self.with("mode", core::Opt::Str(mode.into()))
    }
}

/// `Dense(out_dim)`: `inputs @ W + b`, `W` initialized by
/// `glorot_normal()`, `b` by `normal()`.
pub fn Dense(out_dim: usize) -> Layer {
    Layer(core::Layer::dense(out_dim))
}

/// `Conv(out_chan, filter_shape)`: a convolution of NHWC inputs by an
/// HWIO kernel plus a bias (`.strides(..)`, `.padding("SAME")`).
pub fn Conv<const N: usize>(out_chan: usize, filter_shape: [usize; N]) -> Layer {
    Layer(core::Layer::conv(out_chan, filter_shape.to_vec()))
}

/// `GeneralConv(dimension_numbers, out_chan, filter_shape)`: a convolution
/// in the layouts `(lhs, rhs, out)` (`("NCHW", "OIHW", "NCHW")`).
pub fn GeneralConv<const N: usize>(
    dimension_numbers: (&str, &str, &str),
    out_chan: usize,
    filter_shape: [usize; N],
) -> Layer {
    let (a, b, c) = dimension_numbers;
    Layer(core::Layer::general_conv(
        [a.into(), b.into(), c.into()],
        out_chan,
        filter_shape.to_vec(),
    ))
}

/// `BatchNorm()`: each input standardized over the batch axes (`axis`,
/// default `[0, 1, 2]`), then scaled by `gamma` and shifted by `beta`.
pub fn BatchNorm() -> Layer {
    Layer(core::Layer::batch_norm())
}

/// `MaxPool(window_shape)`: the largest element of each window.
pub fn MaxPool<const N: usize>(window_shape: [usize; N]) -> Layer {
    Layer(core::Layer::pool(
        core::PoolKind::Max,
        window_shape.to_vec(),
    ))
}

/// `SumPool(window_shape)`: the sum of each window.
pub fn SumPool<const N: usize>(window_shape: [usize; N]) -> Layer {
    Layer(core::Layer::pool(
        core::PoolKind::Sum,
        window_shape.to_vec(),
    ))
}

/// `AvgPool(window_shape)`: the mean of each window's input elements
/// (padding left out of the count).
pub fn AvgPool<const N: usize>(window_shape: [usize; N]) -> Layer {
    Layer(core::Layer::pool(
        core::PoolKind::Avg,
        window_shape.to_vec(),
    ))
}

/// `Dropout(rate)`: in `"train"` mode, each element kept with probability
/// `rate` (JAX's meaning) and scaled by `1 / rate`; needs
/// [`Layer::apply_rng`].
pub fn Dropout(rate: f64) -> Layer {
    Layer(core::Layer::Dropout { rate, train: true })
}

/// `FanOut(num)`: `num` copies of the input.
pub fn FanOut(num: usize) -> Layer {
    Layer(core::Layer::FanOut(num))
}

/// `FanInConcat()`: the inputs concatenated along `axis` (default -1).
pub fn FanInConcat() -> Layer {
    Layer(core::Layer::FanInConcat(-1))
}

/// `serial(*layers)`: the layers one after the other.
pub fn serial(layers: impl IntoIterator<Item = Layer>) -> Layer {
    Layer(core::Layer::Serial(
        layers.into_iter().map(|l| l.0).collect(),
    ))
}

/// `parallel(*layers)`: each layer on its own input (after `FanOut`).
pub fn parallel(layers: impl IntoIterator<Item = Layer>) -> Layer {
    Layer(core::Layer::Parallel(
        layers.into_iter().map(|l| l.0).collect(),
    ))
}

macro_rules! constant_layers {
    ($($(#[$doc:meta])* $name:ident = $layer:expr;)*) => {$(
        $(#[$doc])*
        pub const $name: Layer = Layer($layer);
    )*};
}

constant_layers! {
    /// `Tanh`: `jnp.tanh`.
    Tanh = core::Layer::Elementwise(core::Elementwise::Tanh);
    /// `Relu`: `jax.nn.relu`.
    Relu = core::Layer::Elementwise(core::Elementwise::Relu);
    /// `Exp`: `jnp.exp`.
    Exp = core::Layer::Elementwise(core::Elementwise::Exp);
    /// `LogSoftmax`: `jax.nn.log_softmax` over the last axis.
    LogSoftmax = core::Layer::Elementwise(core::Elementwise::LogSoftmax);
    /// `Softmax`: `jax.nn.softmax` over the last axis.
    Softmax = core::Layer::Elementwise(core::Elementwise::Softmax);
    /// `Softplus`: `jax.nn.softplus`.
    Softplus = core::Layer::Elementwise(core::Elementwise::Softplus);
    /// `Sigmoid`: `jax.nn.sigmoid`.
    Sigmoid = core::Layer::Elementwise(core::Elementwise::Sigmoid);
    /// `Elu`: `jax.nn.elu`.
    Elu = core::Layer::Elementwise(core::Elementwise::Elu);
    /// `LeakyRelu`: `jax.nn.leaky_relu`.
    LeakyRelu = core::Layer::Elementwise(core::Elementwise::LeakyRelu);
    /// `Selu`: `jax.nn.selu`.
    Selu = core::Layer::Elementwise(core::Elementwise::Selu);
    /// `Gelu`: `jax.nn.gelu` (its tanh approximation, JAX's default).
    Gelu = core::Layer::Elementwise(core::Elementwise::Gelu);
    /// `Flatten`: every axis but the first as one.
    Flatten = core::Layer::Flatten;
    /// `Identity`: the inputs as they are.
    Identity = core::Layer::Identity;
    /// `FanInSum`: the sum of the inputs.
    FanInSum = core::Layer::FanInSum;
}

/// Outside a `#[jax::jit] mod`, `params_of!` is an error saying where it
/// belongs (the mod's macro computes it).
#[doc(hidden)]
#[macro_export]
macro_rules! __stax_params_of {
    ($($t:tt)*) => {
        compile_error!(
            "`stax::params_of!(net, [-1, 784])` is computed by `#[jax::jit]`: write it in a type alias of a `#[jax::jit] mod` that defines `fn net() -> stax::Layer`"
        )
    };
}

/// `stax::params_of!(net, [-1, 784])`: the params type of a model, for a
/// type alias of a `#[jax::jit] mod` (`pub type Params =
/// stax::params_of!(net, [-1, 784]);`), where `net` is a function of the
/// mod that returns a [`Layer`] and the input shape is `init`'s. The
/// mod's macro builds the model when it compiles and writes the type out:
/// the nested tuples of arrays `net().init(key, [-1, 784])` returns.
pub use crate::__stax_params_of as params_of;
