//! `jax.example_libraries.stax`, written once over [`Lax`]: a [`Layer`]
//! describes a layer with its options (known when a function compiles),
//! [`init`] is its `init_fun` (the output shape and the params for an
//! input shape and a key) and [`apply`] its `apply_fun` (the outputs for
//! params and inputs), each JAX's code in JAX's order: the same key splits,
//! the same initializers (`crate::initializers`), the same primitives.
//!
//! Params and activations are [`Tree`]s: an array, or a sequence of trees
//! (JAX's tuples and lists; `()` for a layer without params). A shape is a
//! [`Shape`], an array's (`-1` for an unknown batch size) or a list of them.

use jax_dtypes::conv::{ConvSpec, Padding, WindowSpec};

use crate::initializers::{self, Init};
use crate::ir::{Aval, Dim, Scalar};
use crate::jnp::{self, Res};
use crate::lax::Lax;
use crate::prims;
use crate::random;

mod apply;
mod init;
mod shape;

pub use apply::apply;
pub use init::init;
pub use shape::output_shape;
use shape::*;

/// A tree of values: params, or a layer's inputs and outputs.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree<V> {
    Leaf(V),
    /// A tuple or list of trees; `Seq(vec![])` is `()`.
    Seq(Vec<Tree<V>>),
}

impl<V> Tree<V> {
    /// The leaves in order.
    pub fn leaves(self, out: &mut Vec<V>) {
        match self {
            Tree::Leaf(v) => out.push(v),
            Tree::Seq(items) => items.into_iter().for_each(|t| t.leaves(out)),
        }
    }

    /// The structure, the leaves taken out.
    pub fn structure(&self) -> Tree<()> {
        match self {
            Tree::Leaf(_) => Tree::Leaf(()),
            Tree::Seq(items) => Tree::Seq(items.iter().map(Tree::structure).collect()),
        }
    }
}

impl Tree<()> {
    /// The tree of this structure with `leaves` in order; `None` if they
    /// run out.
    pub fn fill<V>(&self, leaves: &mut impl Iterator<Item = V>) -> Option<Tree<V>> {
        Some(match self {
            Tree::Leaf(()) => Tree::Leaf(leaves.next()?),
            Tree::Seq(items) => Tree::Seq(
                items
                    .iter()
                    .map(|t| t.fill(leaves))
                    .collect::<Option<_>>()?,
            ),
        })
    }

    /// As Python prints the structure: `*` for a leaf, `(..)` for a tuple.
    pub fn describe(&self) -> String {
        match self {
            Tree::Leaf(()) => "*".into(),
            Tree::Seq(items) if items.len() == 1 => format!("({},)", items[0].describe()),
            Tree::Seq(items) => format!(
                "({})",
                items
                    .iter()
                    .map(Tree::describe)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A shape as `init_fun` takes and returns it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// An array's sizes; `-1` (or any negative size) is unknown, as JAX's
    /// batch size `(-1, 784)`.
    Array(Vec<i64>),
    /// Several arrays' shapes (`FanOut`'s result, `parallel`'s input).
    List(Vec<Shape>),
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shape::Array(d) if d.len() == 1 => write!(f, "({},)", d[0]),
            Shape::Array(d) => write!(
                f,
                "({})",
                d.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            ),
            Shape::List(s) => write!(
                f,
                "[{}]",
                s.iter()
                    .map(Shape::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl<const N: usize> From<[i64; N]> for Shape {
    fn from(d: [i64; N]) -> Shape {
        Shape::Array(d.to_vec())
    }
}

impl From<&[i64]> for Shape {
    fn from(d: &[i64]) -> Shape {
        Shape::Array(d.to_vec())
    }
}

impl From<Vec<i64>> for Shape {
    fn from(d: Vec<i64>) -> Shape {
        Shape::Array(d)
    }
}

impl From<Vec<Shape>> for Shape {
    fn from(s: Vec<Shape>) -> Shape {
        Shape::List(s)
    }
}

/// The elementwise layers, each `elementwise(fun, **kwargs)` in JAX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elementwise {
    Tanh,
    Relu,
    Exp,
    LogSoftmax,
    Softmax,
    Softplus,
    Sigmoid,
    Elu,
    LeakyRelu,
    Selu,
    Gelu,
}

/// The windowed reductions of the pooling layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolKind {
    Max,
    Sum,
    Avg,
}

/// A layer of `stax` with its options.
#[derive(Clone, Debug, PartialEq)]
pub enum Layer {
    /// `Dense(out_dim, W_init=glorot_normal(), b_init=normal())`.
    Dense {
        out_dim: usize,
        w_init: Init,
        b_init: Init,
    },
    /// `GeneralConv(dimension_numbers, out_chan, filter_shape, strides,
    /// padding, W_init, b_init)`; `Conv` is its NHWC/HWIO/NHWC case. A
    /// missing `w_init` is `glorot_normal` over the kernel's `I` and `O`
    /// axes.
    GeneralConv {
        specs: [String; 3],
        out_chan: usize,
        filter_shape: Vec<usize>,
        strides: Option<Vec<usize>>,
        padding: String,
        w_init: Option<Init>,
        b_init: Init,
    },
    /// `BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,
    /// beta_init=zeros, gamma_init=ones)`.
    BatchNorm {
        axis: Vec<i64>,
        epsilon: f64,
        center: bool,
        scale: bool,
        beta_init: Init,
        gamma_init: Init,
    },
    Elementwise(Elementwise),
    /// `MaxPool`, `SumPool`, `AvgPool(window_shape, strides=None,
    /// padding='VALID', spec=None)`.
    Pool {
        kind: PoolKind,
        window_shape: Vec<usize>,
        strides: Option<Vec<usize>>,
        padding: String,
        spec: Option<String>,
    },
    Flatten,
    Identity,
    /// `Dropout(rate, mode='train')`: `rate` is the probability to keep.
    Dropout {
        rate: f64,
        train: bool,
    },
    FanOut(usize),
    FanInSum,
    FanInConcat(i64),
    Serial(Vec<Layer>),
    Parallel(Vec<Layer>),
}

impl Layer {
    /// `Dense(out_dim)` with JAX's initializers.
    pub fn dense(out_dim: usize) -> Layer {
        Layer::Dense {
            out_dim,
            w_init: Init::family("glorot_normal").expect("a family"),
            b_init: Init::normal(1e-2),
        }
    }

    /// `GeneralConv(dimension_numbers, out_chan, filter_shape)` with
    /// JAX's defaults (`strides` of 1, `'VALID'`, glorot normal weights,
    /// `normal(1e-6)` biases).
    pub fn general_conv(specs: [String; 3], out_chan: usize, filter_shape: Vec<usize>) -> Layer {
        Layer::GeneralConv {
            specs,
            out_chan,
            filter_shape,
            strides: None,
            padding: "VALID".into(),
            w_init: None,
            b_init: Init::normal(1e-6),
        }
    }

    /// `Conv(out_chan, filter_shape)`: NHWC inputs, HWIO kernels.
    pub fn conv(out_chan: usize, filter_shape: Vec<usize>) -> Layer {
        let specs = ["NHWC", "HWIO", "NHWC"].map(String::from);
        Layer::general_conv(specs, out_chan, filter_shape)
    }

    /// `BatchNorm()` with JAX's defaults.
    pub fn batch_norm() -> Layer {
        Layer::BatchNorm {
            axis: vec![0, 1, 2],
            epsilon: 1e-5,
            center: true,
            scale: true,
            beta_init: Init::zeros(),
            gamma_init: Init::ones(),
        }
    }

    /// A pooling layer of `window_shape` with JAX's defaults.
    pub fn pool(kind: PoolKind, window_shape: Vec<usize>) -> Layer {
        Layer::Pool {
            kind,
            window_shape,
            strides: None,
            padding: "VALID".into(),
            spec: None,
        }
    }

    /// JAX's name of the layer, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Layer::Dense { .. } => "Dense",
            Layer::GeneralConv { .. } => "GeneralConv",
            Layer::BatchNorm { .. } => "BatchNorm",
            Layer::Elementwise(e) => match e {
                Elementwise::Tanh => "Tanh",
                Elementwise::Relu => "Relu",
                Elementwise::Exp => "Exp",
                Elementwise::LogSoftmax => "LogSoftmax",
                Elementwise::Softmax => "Softmax",
                Elementwise::Softplus => "Softplus",
                Elementwise::Sigmoid => "Sigmoid",
                Elementwise::Elu => "Elu",
                Elementwise::LeakyRelu => "LeakyRelu",
                Elementwise::Selu => "Selu",
                Elementwise::Gelu => "Gelu",
            },
            Layer::Pool { kind, .. } => match kind {
                PoolKind::Max => "MaxPool",
                PoolKind::Sum => "SumPool",
                PoolKind::Avg => "AvgPool",
            },
            Layer::Flatten => "Flatten",
            Layer::Identity => "Identity",
            Layer::Dropout { .. } => "Dropout",
            Layer::FanOut(_) => "FanOut",
            Layer::FanInSum => "FanInSum",
            Layer::FanInConcat(_) => "FanInConcat",
            Layer::Serial(_) => "serial",
            Layer::Parallel(_) => "parallel",
        }
    }

    /// The structure of the layer's params: `(W, b)` for `Dense`, `()` for
    /// a layer without params, one entry per layer for `serial` and
    /// `parallel`.
    pub fn params_structure(&self) -> Tree<()> {
        let leaves = |n: usize| Tree::Seq(vec![Tree::Leaf(()); n]);
        match self {
            Layer::Dense { .. } | Layer::GeneralConv { .. } => leaves(2),
            // `()` in place of a missing beta or gamma.
            Layer::BatchNorm { center, scale, .. } => Tree::Seq(
                [*center, *scale]
                    .iter()
                    .map(|&on| {
                        if on {
                            Tree::Leaf(())
                        } else {
                            Tree::Seq(vec![])
                        }
                    })
                    .collect(),
            ),
            Layer::Serial(ls) | Layer::Parallel(ls) => {
                Tree::Seq(ls.iter().map(Layer::params_structure).collect())
            }
            _ => Tree::Seq(vec![]),
        }
    }

    /// Sets an option by JAX's keyword name; `Err` names the options the
    /// layer has. Numbers, lists of numbers and strings come as [`Opt`].
    pub fn set(&mut self, name: &str, v: Opt) -> Result<(), String> {
        let layer = self.name();
        let bad = |what: &str| Err(format!("`{name}` of {layer} is {what}"));
        match (&mut *self, name) {
            (Layer::Dense { w_init, .. }, "W_init" | "w_init") => match v {
                Opt::Init(i) => *w_init = i,
                _ => return bad("an initializer"),
            },
            (Layer::Dense { b_init, .. }, "b_init") => match v {
                Opt::Init(i) => *b_init = i,
                _ => return bad("an initializer"),
            },
            (Layer::GeneralConv { w_init, .. }, "W_init" | "w_init") => match v {
                Opt::Init(i) => *w_init = Some(i),
                _ => return bad("an initializer"),
            },
            (Layer::GeneralConv { b_init, .. }, "b_init") => match v {
                Opt::Init(i) => *b_init = i,
                _ => return bad("an initializer"),
            },
            (Layer::GeneralConv { strides, .. } | Layer::Pool { strides, .. }, "strides") => {
                match v {
                    Opt::Sizes(s) => *strides = Some(s),
                    _ => return bad("a list of sizes"),
                }
            }
            (Layer::GeneralConv { padding, .. } | Layer::Pool { padding, .. }, "padding") => {
                match v {
                    Opt::Str(s) => {
                        Padding::parse(&s)?;
                        *padding = s
                    }
                    _ => return bad("\"VALID\" or \"SAME\""),
                }
            }
            (Layer::Pool { spec, .. }, "spec") => match v {
                Opt::Str(s) => *spec = Some(s),
                _ => return bad("a layout string such as \"NCHW\""),
            },
            (Layer::BatchNorm { axis, .. }, "axis") => match v {
                Opt::Sizes(s) => *axis = s.into_iter().map(|a| a as i64).collect(),
                Opt::Num(a) => *axis = vec![a as i64],
                _ => return bad("an axis or a list of axes"),
            },
            (Layer::BatchNorm { epsilon, .. }, "epsilon") => match v {
                Opt::Num(e) => *epsilon = e,
                _ => return bad("a number"),
            },
            (Layer::BatchNorm { center, .. }, "center") => match v {
                Opt::Bool(b) => *center = b,
                _ => return bad("a bool"),
            },
            (Layer::BatchNorm { scale, .. }, "scale") => match v {
                Opt::Bool(b) => *scale = b,
                _ => return bad("a bool"),
            },
            (Layer::BatchNorm { beta_init, .. }, "beta_init") => match v {
                Opt::Init(i) => *beta_init = i,
                _ => return bad("an initializer"),
            },
            (Layer::BatchNorm { gamma_init, .. }, "gamma_init") => match v {
                Opt::Init(i) => *gamma_init = i,
                _ => return bad("an initializer"),
            },
            (Layer::Dropout { train, .. }, "mode") => match v {
                Opt::Str(s) if s == "train" => *train = true,
                Opt::Str(s) if s == "test" => *train = false,
                _ => return bad("\"train\" or \"test\""),
            },
            (Layer::FanInConcat(axis), "axis") => match v {
                Opt::Num(a) => *axis = a as i64,
                _ => return bad("an axis"),
            },
            _ => {
                let names = match self {
                    Layer::Dense { .. } => "`W_init`, `b_init`",
                    Layer::GeneralConv { .. } => "`strides`, `padding`, `W_init`, `b_init`",
                    Layer::BatchNorm { .. } => {
                        "`axis`, `epsilon`, `center`, `scale`, `beta_init`, `gamma_init`"
                    }
                    Layer::Pool { .. } => "`strides`, `padding`, `spec`",
                    Layer::Dropout { .. } => "`mode`",
                    Layer::FanInConcat(_) => "`axis`",
                    _ => "none",
                };
                return Err(format!(
                    "{} has no option `{name}` (its options: {names})",
                    self.name()
                ));
            }
        }
        Ok(())
    }
}

/// An option's value, as [`Layer::set`] takes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Opt {
    Num(f64),
    Bool(bool),
    Sizes(Vec<usize>),
    Str(String),
    Init(Init),
}

/// The sizes of an array shape; an error for a list of shapes.
pub(super) fn array_shape<'s>(layer: &str, s: &'s Shape) -> Result<&'s [i64], String> {
    match s {
        Shape::Array(d) => Ok(d),
        Shape::List(_) => Err(format!(
            "{layer} takes one input, got several ({s}): combine them first (`FanInSum`, `FanInConcat`)"
        )),
    }
}

/// A size that must be known to make params (not `-1`).
pub(super) fn known(layer: &str, d: i64, what: &str) -> Result<usize, String> {
    usize::try_from(d).map_err(|_| {
        format!("{layer}: the input's {what} must be known to make the params, got {d}")
    })
}
