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
fn array_shape<'s>(layer: &str, s: &'s Shape) -> Result<&'s [i64], String> {
    match s {
        Shape::Array(d) => Ok(d),
        Shape::List(_) => Err(format!(
            "{layer} takes one input, got several ({s}): combine them first (`FanInSum`, `FanInConcat`)"
        )),
    }
}

/// A size that must be known to make params (not `-1`).
fn known(layer: &str, d: i64, what: &str) -> Result<usize, String> {
    usize::try_from(d).map_err(|_| {
        format!("{layer}: the input's {what} must be known to make the params, got {d}")
    })
}

/// A key split in two, `random.split(rng)`.
fn split2<L: Lax>(l: &mut L, key: L::V) -> Res<L, (L::V, L::V)> {
    let keys = random::split_words(l, key, 2)?;
    Ok((
        random::key_at(l, keys.clone(), 0)?,
        random::key_at(l, keys, 1)?,
    ))
}

/// A convolution's kernel shape for an input shape (`init_fun`'s
/// `kernel_shape`), its strides, padding and the checked result.
fn conv_plan(layer: &Layer, s: &[i64]) -> Result<(Vec<usize>, ConvSpec), String> {
    let Layer::GeneralConv {
        specs: [lhs, rhs, out],
        out_chan,
        filter_shape,
        strides,
        padding,
        ..
    } = layer
    else {
        unreachable!("a convolution")
    };
    if s.len() != lhs.len() {
        return Err(format!(
            "GeneralConv: an input of shape {} for the layout {lhs}",
            Shape::Array(s.to_vec())
        ));
    }
    let chan = lhs
        .find('C')
        .ok_or_else(|| format!("GeneralConv: the input layout {lhs} has no 'C'"))?;
    let n_in = known("GeneralConv", s[chan], "channel count")?;
    let mut filters = filter_shape.iter();
    let mut kernel = Vec::new();
    for c in rhs.chars() {
        kernel.push(match c {
            'O' => *out_chan,
            'I' => n_in,
            _ => *filters.next().ok_or_else(|| {
                format!("GeneralConv: filter_shape {filter_shape:?} has fewer sizes than the kernel layout {rhs} has spatial axes")
            })?,
        });
    }
    let ones = vec![1; filter_shape.len()];
    let strides = strides.clone().unwrap_or(ones);
    let pad = Padding::parse(padding)?;
    // The batch size may be unknown: the shape rule runs with 1 in its
    // place.
    let lhs_sizes: Vec<usize> = s.iter().map(|&d| d.max(1) as usize).collect();
    let spec = ConvSpec::new(
        &lhs_sizes,
        &kernel,
        &strides,
        &pad,
        None,
        None,
        Some((lhs.as_str(), rhs.as_str(), out.as_str())),
        1,
        1,
    )
    .map_err(|e| format!("GeneralConv: {e}"))?;
    Ok((kernel, spec))
}

/// The output shape `init_fun(rng, input_shape)` returns.
pub fn output_shape(layer: &Layer, input_shape: &Shape) -> Result<Shape, String> {
    let name = layer.name();
    match layer {
        Layer::Dense { out_dim, .. } => {
            let s = array_shape(name, input_shape)?;
            if s.is_empty() {
                return Err("Dense needs inputs of rank 1 or more".into());
            }
            let mut out = s.to_vec();
            *out.last_mut().unwrap() = *out_dim as i64;
            Ok(Shape::Array(out))
        }
        Layer::GeneralConv { specs, .. } => {
            let s = array_shape(name, input_shape)?;
            let (_, spec) = conv_plan(layer, s)?;
            let mut out: Vec<i64> = spec.out_shape.iter().map(|&d| d as i64).collect();
            // The result keeps the input's batch size, known or not.
            out[specs[2].find('N').expect("a checked layout")] =
                s[specs[0].find('N').expect("a checked layout")];
            Ok(Shape::Array(out))
        }
        Layer::BatchNorm { axis, .. } => {
            let s = array_shape(name, input_shape)?;
            batch_norm_axes(axis, s.len())?;
            Ok(input_shape.clone())
        }
        Layer::Elementwise(_) | Layer::Identity | Layer::Dropout { .. } => Ok(input_shape.clone()),
        Layer::Pool {
            window_shape,
            strides,
            padding,
            spec,
            ..
        } => {
            let s = array_shape(name, input_shape)?;
            let (window, strides) =
                pool_window(window_shape, strides.as_deref(), spec.as_deref(), s.len())?;
            let sizes: Vec<usize> = s.iter().map(|&d| d.max(1) as usize).collect();
            let pads = Padding::parse(padding)?.pads(&sizes, &window, &strides);
            let mut out = Vec::new();
            // JAX's `reduce_window_shape_tuple`: `max(0, (padded - window)
            // // stride + 1)` on every axis, an unknown size (-1) included,
            // which makes it 0.
            for (k, &d) in s.iter().enumerate() {
                let padded = d + pads[k].0 + pads[k].1;
                let q = (padded - window[k] as i64).div_euclid(strides[k] as i64) + 1;
                out.push(q.max(0));
            }
            Ok(Shape::Array(out))
        }
        Layer::Flatten => {
            let s = array_shape(name, input_shape)?;
            let Some((&first, rest)) = s.split_first() else {
                return Err("Flatten needs inputs of rank 1 or more".into());
            };
            Ok(Shape::Array(vec![first, rest.iter().product()]))
        }
        Layer::FanOut(n) => Ok(Shape::List(vec![input_shape.clone(); *n])),
        Layer::FanInSum => match input_shape {
            Shape::List(s) if !s.is_empty() => Ok(s[0].clone()),
            _ => Err(format!(
                "FanInSum takes several inputs (after `FanOut` and `parallel`), got {input_shape}"
            )),
        },
        Layer::FanInConcat(axis) => {
            let Shape::List(s) = input_shape else {
                return Err(format!(
                    "FanInConcat takes several inputs (after `FanOut` and `parallel`), got {input_shape}"
                ));
            };
            let shapes = s
                .iter()
                .map(|x| array_shape(name, x).map(<[i64]>::to_vec))
                .collect::<Result<Vec<_>, _>>()?;
            let Some(first) = shapes.first() else {
                return Err("FanInConcat takes one input or more".into());
            };
            let ax = axis.rem_euclid(first.len().max(1) as i64) as usize;
            let mut out = first.clone();
            out[ax] = shapes.iter().map(|s| s[ax]).sum();
            Ok(Shape::Array(out))
        }
        Layer::Serial(layers) => layers
            .iter()
            .try_fold(input_shape.clone(), |s, layer| output_shape(layer, &s)),
        Layer::Parallel(layers) => {
            let shapes = parallel_inputs(layers.len(), input_shape)?;
            Ok(Shape::List(
                layers
                    .iter()
                    .zip(shapes)
                    .map(|(layer, s)| output_shape(layer, s))
                    .collect::<Result<_, _>>()?,
            ))
        }
    }
}

/// `parallel`'s input shapes, one per layer.
fn parallel_inputs(n: usize, input_shape: &Shape) -> Result<&[Shape], String> {
    match input_shape {
        Shape::List(s) if s.len() == n => Ok(s),
        Shape::List(s) => Err(format!(
            "parallel of {n} layers takes {n} inputs, got {}",
            s.len()
        )),
        _ => Err(format!(
            "parallel takes one input per layer (after `FanOut`), got {input_shape}"
        )),
    }
}

/// `init_fun(rng, input_shape)`: the output shape and the params.
pub fn init<L: Lax>(
    l: &mut L,
    layer: &Layer,
    key: L::V,
    input_shape: &Shape,
) -> Res<L, (Shape, Tree<L::V>)> {
    let out = output_shape(layer, input_shape).map_err(|e| l.error(e))?;
    let params = init_params(l, layer, key, input_shape)?;
    Ok((out, params))
}

/// The params `init_fun` draws, its checks passed ([`output_shape`]).
fn init_params<L: Lax>(
    l: &mut L,
    layer: &Layer,
    key: L::V,
    input_shape: &Shape,
) -> Res<L, Tree<L::V>> {
    let name = layer.name();
    let unit = || Tree::Seq(vec![]);
    let sizes = |l: &L| array_shape(name, input_shape).map_err(|e| l.error(e));
    match layer {
        Layer::Dense {
            out_dim,
            w_init,
            b_init,
        } => {
            let s = sizes(l)?;
            let last = *s.last().expect("checked");
            let n_in = known(name, last, "last size").map_err(|e| l.error(e))?;
            let (k1, k2) = split2(l, key)?;
            let w = initializers::init(l, w_init, k1, &[n_in, *out_dim])?;
            let b = initializers::init(l, b_init, k2, &[*out_dim])?;
            Ok(Tree::Seq(vec![Tree::Leaf(w), Tree::Leaf(b)]))
        }
        Layer::GeneralConv {
            specs: [_, rhs, out],
            out_chan,
            w_init,
            b_init,
            ..
        } => {
            let s = sizes(l)?;
            let (kernel, _) = conv_plan(layer, s).map_err(|e| l.error(e))?;
            let bias: Vec<usize> = out
                .chars()
                .map(|c| if c == 'C' { *out_chan } else { 1 })
                .collect();
            let w_init = match w_init {
                Some(i) => i.clone(),
                None => {
                    let mut i = Init::family("glorot_normal").expect("a family");
                    i.set("in_axis", rhs.find('I').expect("checked") as f64);
                    i.set("out_axis", rhs.find('O').expect("checked") as f64);
                    i
                }
            };
            let (k1, k2) = split2(l, key)?;
            let w = initializers::init(l, &w_init, k1, &kernel)?;
            let b = initializers::init(l, b_init, k2, &bias)?;
            Ok(Tree::Seq(vec![Tree::Leaf(w), Tree::Leaf(b)]))
        }
        Layer::BatchNorm {
            axis,
            center,
            scale,
            beta_init,
            gamma_init,
            ..
        } => {
            let s = sizes(l)?;
            let axes = batch_norm_axes(axis, s.len()).map_err(|e| l.error(e))?;
            let shape = s
                .iter()
                .enumerate()
                .filter(|(i, _)| !axes.contains(i))
                .map(|(_, &d)| known(name, d, "non-normalized sizes"))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| l.error(e))?;
            let (k1, k2) = split2(l, key)?;
            let beta = if *center {
                Tree::Leaf(initializers::init(l, beta_init, k1, &shape)?)
            } else {
                unit()
            };
            let gamma = if *scale {
                Tree::Leaf(initializers::init(l, gamma_init, k2, &shape)?)
            } else {
                unit()
            };
            Ok(Tree::Seq(vec![beta, gamma]))
        }
        Layer::Serial(layers) => {
            let mut shape = input_shape.clone();
            let mut key = key;
            let mut params = Vec::new();
            for layer in layers {
                let (next, layer_key) = split2(l, key)?;
                key = next;
                let (s, p) = init(l, layer, layer_key, &shape)?;
                shape = s;
                params.push(p);
            }
            Ok(Tree::Seq(params))
        }
        Layer::Parallel(layers) => {
            let shapes = parallel_inputs(layers.len(), input_shape).map_err(|e| l.error(e))?;
            let keys = random::split_words(l, key, layers.len())?;
            let mut params = Vec::new();
            for (i, (layer, shape)) in layers.iter().zip(shapes).enumerate() {
                let k = random::key_at(l, keys.clone(), i)?;
                params.push(init_params(l, layer, k, shape)?);
            }
            Ok(Tree::Seq(params))
        }
        _ => Ok(unit()),
    }
}

/// BatchNorm's axes, checked (JAX counts them from the front only).
fn batch_norm_axes(axis: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    axis.iter()
        .map(|&a| {
            usize::try_from(a)
                .ok()
                .filter(|&a| a < rank)
                .ok_or_else(|| {
                    format!(
                        "BatchNorm: axis {a} for inputs of rank {rank}; stax counts the axes from the front (0 to {})",
                        rank.saturating_sub(1)
                    )
                })
        })
        .collect()
}

/// A pooling layer's window and strides over all axes: 1 on the batch and
/// feature axes (`spec`'s `N` and `C`, else the first and the last).
fn pool_window(
    window_shape: &[usize],
    strides: Option<&[usize]>,
    spec: Option<&str>,
    rank: usize,
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let n = window_shape.len();
    let ones = vec![1; n];
    let strides = strides.unwrap_or(&ones);
    if strides.len() != n {
        return Err(format!(
            "pooling: strides {strides:?} need one entry per window axis ({n})"
        ));
    }
    if rank != n + 2 {
        return Err(format!(
            "pooling: a window of {n} axes needs inputs of rank {} (batch, spatial.., features), got rank {rank}",
            n + 2
        ));
    }
    let mut non_spatial = match spec {
        None => vec![0, n + 1],
        Some(s) => {
            let (Some(b), Some(c)) = (s.find('N'), s.find('C')) else {
                return Err(format!("pooling: the layout {s} needs 'N' and 'C'"));
            };
            vec![b, c]
        }
    };
    non_spatial.sort_unstable();
    let (mut w, mut st) = (window_shape.to_vec(), strides.to_vec());
    for i in non_spatial {
        w.insert(i.min(w.len()), 1);
        st.insert(i.min(st.len()), 1);
    }
    Ok((w, st))
}

/// A params tree of the layer's structure, or JAX's unpacking error.
fn unpack<'t, L: Lax>(l: &L, layer: &str, p: &'t Tree<L::V>, n: usize) -> Res<L, &'t [Tree<L::V>]> {
    match p {
        Tree::Seq(items) if items.len() == n => Ok(items),
        _ => Err(l.error(format!(
            "{layer}'s params are a tuple of {n} (what its init returns), got {}",
            p.structure().describe()
        ))),
    }
}

fn leaf<L: Lax>(l: &L, layer: &str, t: &Tree<L::V>) -> Res<L, L::V> {
    match t {
        Tree::Leaf(v) => Ok(v.clone()),
        t => Err(l.error(format!(
            "{layer}: expected an array, got {}",
            t.structure().describe()
        ))),
    }
}

/// `apply_fun(params, inputs, rng=rng)`: the outputs.
pub fn apply<L: Lax>(
    l: &mut L,
    layer: &Layer,
    params: &Tree<L::V>,
    inputs: Tree<L::V>,
    rng: Option<L::V>,
) -> Res<L, Tree<L::V>> {
    let name = layer.name();
    let one = |l: &L, t: Tree<L::V>| leaf(l, name, &t);
    match layer {
        Layer::Dense { .. } => {
            let p = unpack(l, name, params, 2)?;
            let (w, b) = (leaf(l, name, &p[0])?, leaf(l, name, &p[1])?);
            let x = one(l, inputs)?;
            // `jnp.dot(inputs, W) + b`: the inputs' last axis against W's
            // first.
            let (xa, wa) = (l.aval(&x), l.aval(&w));
            if xa.rank() == 0 || wa.rank() != 2 || xa.shape.last() != wa.shape.first() {
                return Err(l.error(format!(
                    "Dense: inputs {xa} do not fit the weights {wa} (the inputs' last size must be the weights' first)"
                )));
            }
            let xs = jnp::promote(l, vec![x, w])?;
            let preferred = l.aval(&xs[0]).dtype;
            let y = l.dot_general(
                xs[0].clone(),
                xs[1].clone(),
                (vec![xa.rank() - 1], vec![0]),
                (vec![], vec![]),
                preferred,
            )?;
            Ok(Tree::Leaf(jnp::binary(l, &prims::ADD, y, b)?))
        }
        Layer::GeneralConv {
            specs,
            filter_shape,
            strides,
            padding,
            ..
        } => {
            let p = unpack(l, name, params, 2)?;
            let (w, b) = (leaf(l, name, &p[0])?, leaf(l, name, &p[1])?);
            let x = one(l, inputs)?;
            let sizes = |l: &L, v: &L::V| sizes_or_one(&l.aval(v));
            let ones = vec![1; filter_shape.len()];
            let strides = strides.clone().unwrap_or(ones);
            let pad = Padding::parse(padding).map_err(|e| l.error(e))?;
            let [a, r, o] = specs;
            let spec = ConvSpec::new(
                &sizes(l, &x),
                &sizes(l, &w),
                &strides,
                &pad,
                None,
                None,
                Some((a.as_str(), r.as_str(), o.as_str())),
                1,
                1,
            )
            .map_err(|e| l.error(format!("GeneralConv: {e}")))?;
            let xs = jnp::promote(l, vec![x, w])?;
            let params = crate::ir::primitive::Params::Conv(crate::ir::primitive::ConvParams {
                window_strides: spec.window_strides,
                padding: spec.padding,
                lhs_dilation: spec.lhs_dilation,
                rhs_dilation: spec.rhs_dilation,
                specs: [spec.lhs_perm, spec.rhs_perm, spec.out_perm],
                feature_group_count: 1,
                batch_group_count: 1,
            });
            let y = l.bind(&prims::CONV_GENERAL_DILATED, params, xs)?;
            Ok(Tree::Leaf(jnp::binary(l, &prims::ADD, y, b)?))
        }
        Layer::BatchNorm {
            axis,
            epsilon,
            center,
            scale,
            ..
        } => {
            let p = unpack(l, name, params, 2)?;
            let x = one(l, inputs)?;
            let rank = l.aval(&x).rank();
            let axes = batch_norm_axes(axis, rank).map_err(|e| l.error(e))?;
            let eps = jnp::weak_literal(l, Scalar::Float(*epsilon));
            let z = jnp::standardize(l, x, axes.clone(), eps)?;
            // `gamma[ed]`, `beta[ed]`: a size-1 axis at each normalized axis.
            let expand = |l: &mut L, v: L::V| -> Res<L, L::V> {
                let a = l.aval(&v);
                let kept: Vec<usize> = (0..rank).filter(|i| !axes.contains(i)).collect();
                if a.rank() != kept.len() {
                    return Err(l.error(format!(
                        "BatchNorm: params {a} for inputs of rank {rank} normalized over {axes:?}"
                    )));
                }
                let mut shape = vec![Dim::Lit(1); rank];
                for (k, &i) in kept.iter().enumerate() {
                    shape[i] = a.shape[k].clone();
                }
                l.broadcast_in_dim(v, shape, kept)
            };
            let mut y = z;
            if *scale {
                let g = leaf(l, name, &p[1])?;
                let g = expand(l, g)?;
                y = jnp::binary(l, &prims::MUL, g, y)?;
            }
            if *center {
                let b = leaf(l, name, &p[0])?;
                let b = expand(l, b)?;
                y = jnp::binary(l, &prims::ADD, y, b)?;
            }
            Ok(Tree::Leaf(y))
        }
        Layer::Elementwise(e) => {
            let x = one(l, inputs)?;
            let float = |l: &mut L, v: f64| jnp::weak_literal(l, Scalar::Float(v));
            let last = l.aval(&x).rank().saturating_sub(1);
            let y = match e {
                Elementwise::Tanh => jnp::unary_inexact(l, &prims::TANH, x)?,
                Elementwise::Relu => crate::nn::relu(l, x)?,
                Elementwise::Exp => jnp::unary_inexact(l, &prims::EXP, x)?,
                Elementwise::LogSoftmax => jnp::softmax(l, x, last, true)?,
                Elementwise::Softmax => jnp::softmax(l, x, last, false)?,
                Elementwise::Softplus => crate::nn::softplus(l, x)?,
                Elementwise::Sigmoid => crate::nn::sigmoid(l, x)?,
                Elementwise::Elu => {
                    let alpha = float(l, 1.0);
                    crate::nn::elu(l, x, alpha)?
                }
                Elementwise::LeakyRelu => {
                    let slope = float(l, 0.01);
                    crate::nn::leaky_relu(l, x, slope)?
                }
                Elementwise::Selu => crate::nn::selu(l, x)?,
                Elementwise::Gelu => crate::nn::gelu(l, x, true)?,
            };
            Ok(Tree::Leaf(y))
        }
        Layer::Pool {
            kind,
            window_shape,
            strides,
            padding,
            spec,
        } => {
            let x = one(l, inputs)?;
            let a = l.aval(&x);
            let sizes = sizes_or_one(&a);
            let (window, st) = pool_window(
                window_shape,
                strides.as_deref(),
                spec.as_deref(),
                sizes.len(),
            )
            .map_err(|e| l.error(format!("{name}: {e}")))?;
            let pad = Padding::parse(padding).map_err(|e| l.error(e))?;
            let w = WindowSpec::new(&sizes, &window, Some(&st), &pad, None, None)
                .map_err(|e| l.error(format!("{name}: {e}")))?;
            let prim = if *kind == PoolKind::Max {
                &prims::REDUCE_WINDOW_MAX
            } else {
                &prims::REDUCE_WINDOW_SUM
            };
            let out = l.reduce_window(prim, x, w.into())?;
            if *kind != PoolKind::Avg {
                return Ok(Tree::Leaf(out));
            }
            // `outputs / window_sizes`: each window's count of the input's
            // elements (the padding left out), a `reduce_window` of ones
            // over the spatial axes.
            let mut non_spatial: Vec<usize> = match spec {
                None => vec![0, sizes.len() - 1],
                Some(s) => vec![s.find('N').expect("checked"), s.find('C').expect("checked")],
            };
            non_spatial.sort_unstable();
            let spatial: Vec<usize> = (0..sizes.len())
                .filter(|i| !non_spatial.contains(i))
                .collect();
            let pick = |v: &[usize]| spatial.iter().map(|&i| v[i]).collect::<Vec<_>>();
            let (sp_sizes, sp_window, sp_strides) = (pick(&sizes), pick(&window), pick(&st));
            let one = l.literal(Scalar::Float(1.0), Aval::scalar(a.dtype, false));
            let ones =
                l.broadcast_in_dim(one, sp_sizes.iter().map(|&n| Dim::Lit(n)).collect(), vec![])?;
            let ws = WindowSpec::new(&sp_sizes, &sp_window, Some(&sp_strides), &pad, None, None)
                .map_err(|e| l.error(format!("{name}: {e}")))?;
            let mut counts = l.reduce_window(&prims::REDUCE_WINDOW_SUM, ones, ws.into())?;
            for i in non_spatial {
                counts = jnp::expand_dims(l, counts, i as i128)?;
            }
            Ok(Tree::Leaf(jnp::binary(l, &prims::DIV, out, counts)?))
        }
        Layer::Flatten => {
            let x = one(l, inputs)?;
            let a = l.aval(&x);
            let Some((first, rest)) = a.shape.split_first() else {
                return Err(l.error("Flatten needs inputs of rank 1 or more".into()));
            };
            let mut n = 1;
            for d in rest {
                match d {
                    Dim::Lit(k) => n *= k,
                    Dim::Sym(s) => {
                        return Err(l.error(format!(
                            "Flatten needs sizes known when the function compiles, not `{s}`"
                        )))
                    }
                }
            }
            Ok(Tree::Leaf(jnp::reshape(
                l,
                x,
                vec![first.clone(), Dim::Lit(n)],
            )?))
        }
        Layer::Identity => Ok(inputs),
        Layer::Dropout { rate, train } => {
            if !train {
                return Ok(inputs);
            }
            let Some(rng) = rng else {
                return Err(l.error(
                    "Dropout layer requires apply_fun to be called with a PRNG key argument: call `.apply_rng(&params, &inputs, key)`".into(),
                ));
            };
            let x = one(l, inputs)?;
            let shape = l.aval(&x).shape;
            let p = jnp::weak_literal(l, Scalar::Float(*rate));
            let keep = random::bernoulli(l, rng, p.clone(), shape)?;
            let scaled = jnp::binary(l, &prims::DIV, x, p)?;
            let zero = jnp::weak_literal(l, Scalar::Int(0));
            Ok(Tree::Leaf(jnp::where_(l, keep, scaled, zero)?))
        }
        Layer::FanOut(n) => Ok(Tree::Seq(vec![inputs; *n])),
        Layer::FanInSum => {
            let xs = fan_in(l, name, inputs)?;
            let mut it = xs.into_iter();
            let mut acc = it.next().expect("one input or more");
            for x in it {
                acc = jnp::binary(l, &prims::ADD, acc, x)?;
            }
            Ok(Tree::Leaf(acc))
        }
        Layer::FanInConcat(axis) => {
            let xs = fan_in(l, name, inputs)?;
            Ok(Tree::Leaf(jnp::concatenate(l, xs, *axis as i128, false)?))
        }
        Layer::Serial(layers) => {
            let p = unpack(l, name, params, layers.len())?;
            let rngs = split_rng(l, rng, layers.len())?;
            let mut x = inputs;
            for ((layer, p), r) in layers.iter().zip(p).zip(rngs) {
                x = apply(l, layer, p, x, r)?;
            }
            Ok(x)
        }
        Layer::Parallel(layers) => {
            let p = unpack(l, name, params, layers.len())?;
            let Tree::Seq(xs) = inputs else {
                return Err(l.error(format!(
                    "parallel of {} layers takes one input per layer (after `FanOut`), got one array",
                    layers.len()
                )));
            };
            if xs.len() != layers.len() {
                return Err(l.error(format!(
                    "parallel of {} layers takes {} inputs, got {}",
                    layers.len(),
                    layers.len(),
                    xs.len()
                )));
            }
            let rngs = split_rng(l, rng, layers.len())?;
            let mut out = Vec::new();
            for (((layer, p), x), r) in layers.iter().zip(p).zip(xs).zip(rngs) {
                out.push(apply(l, layer, p, x, r)?);
            }
            Ok(Tree::Seq(out))
        }
    }
}

/// `random.split(rng, n)` if there is a key, else `(None,) * n`.
fn split_rng<L: Lax>(l: &mut L, rng: Option<L::V>, n: usize) -> Res<L, Vec<Option<L::V>>> {
    match rng {
        None => Ok(vec![None; n]),
        Some(k) => {
            let keys = random::split_words(l, k, n)?;
            (0..n)
                .map(|i| random::key_at(l, keys.clone(), i).map(Some))
                .collect()
        }
    }
}

/// The arrays a fan-in layer combines.
fn fan_in<L: Lax>(l: &L, layer: &str, inputs: Tree<L::V>) -> Res<L, Vec<L::V>> {
    match inputs {
        Tree::Seq(xs) if !xs.is_empty() => xs.iter().map(|x| leaf(l, layer, x)).collect(),
        t => Err(l.error(format!(
            "{layer} takes several arrays (after `FanOut` and `parallel`), got {}",
            t.structure().describe()
        ))),
    }
}

/// An operand's sizes for a shape rule: a const generic's size stands as
/// 1 (the primitive's own rule keeps it where the window or kernel leaves
/// its axis alone, and reports it elsewhere).
fn sizes_or_one(a: &Aval) -> Vec<usize> {
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 1,
        })
        .collect()
}
