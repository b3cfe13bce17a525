//! `jax::example_libraries::stax` and `jax::nn::initializers` inside
//! `#[jax::jit]` bodies: the layers (`Dense(1024)`, `Relu`,
//! `stax::serial([..])`, ...) and the initializers
//! (`initializers::glorot_normal()`, ...) evaluate to compile-time values;
//! `net.init(key, [-1, 784])`, `net.apply(&params, &x)`,
//! `net.apply_rng(&params, &x, key)` and `init.init(key)` run the one
//! texts of `jax_core::stax` and `jax_core::initializers` over the traced
//! values. Params are tuple values (`()` for a layer without params), as
//! the eager functions and JAX's examples have them.

use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use jax_core::initializers::{Distribution, FanMode, Init};
use jax_core::stax::{self as core, Layer, Opt, Shape, Tree};

use super::{boolean, integer, number};
use crate::frontend::trace::optim::Static;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::TypeSpec;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Scalar};

/// The layer constructors by name, and their arity.
const LAYERS: &[(&str, usize)] = &[
    ("Dense", 1),
    ("Conv", 2),
    ("GeneralConv", 3),
    ("BatchNorm", 0),
    ("MaxPool", 1),
    ("SumPool", 1),
    ("AvgPool", 1),
    ("Dropout", 1),
    ("FanOut", 1),
    ("FanInConcat", 0),
    ("serial", 1),
    ("parallel", 1),
];

/// The initializers by name, and their arity.
const INITIALIZERS: &[(&str, usize)] = &[
    ("zeros", 0),
    ("ones", 0),
    ("constant", 1),
    ("uniform", 0),
    ("normal", 0),
    ("truncated_normal", 0),
    ("variance_scaling", 3),
    ("glorot_uniform", 0),
    ("glorot_normal", 0),
    ("xavier_uniform", 0),
    ("xavier_normal", 0),
    ("lecun_uniform", 0),
    ("lecun_normal", 0),
    ("he_uniform", 0),
    ("he_normal", 0),
    ("kaiming_uniform", 0),
    ("kaiming_normal", 0),
    ("orthogonal", 0),
    ("delta_orthogonal", 0),
];

/// Whether a bare name (`Dense` after `use ..::stax::Dense`) is a layer
/// constructor.
pub(crate) fn is_layer_constructor(name: &str) -> bool {
    LAYERS.iter().any(|(n, _)| *n == name) && name != "serial" && name != "parallel"
}

fn wrap(s: Static) -> Value {
    Value::Optim(Rc::new(s))
}

/// A list of sizes written as a Rust array (`[3, 3]`).
fn sizes(v: &Value, span: Span, what: &str) -> Result<Vec<usize>> {
    let items = match v {
        Value::List(items) | Value::Tuple(items) => items,
        _ => {
            return err(
                span,
                format!("{what} is a list of sizes known when the function compiles: `[3, 3]`"),
            )
        }
    };
    items
        .iter()
        .map(|x| {
            let i = integer(x, span, what)?;
            usize::try_from(i).or_else(|_| err(span, format!("{what}: sizes are not negative")))
        })
        .collect()
}

fn string(v: &Value, span: Span, what: &str) -> Result<String> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        _ => err(span, format!("{what} is a string literal")),
    }
}

/// A layer value.
fn layer_of(v: &Value, span: Span) -> Result<Layer> {
    match v {
        Value::Optim(s) if matches!(&**s, Static::Layer(_)) => {
            let Static::Layer(l) = &**s else {
                unreachable!()
            };
            Ok(l.clone())
        }
        _ => err(
            span,
            "expected a stax layer (`Dense(10)`, `Relu`, `stax::serial([..])`, ...)",
        ),
    }
}

/// An initializer value.
fn init_of(v: &Value, span: Span) -> Result<Init> {
    match v {
        Value::Optim(s) if matches!(&**s, Static::Init(_)) => {
            let Static::Init(i) = &**s else {
                unreachable!()
            };
            Ok(i.clone())
        }
        _ => err(
            span,
            "expected an initializer of `jax::nn::initializers` (`initializers::he_normal()`)",
        ),
    }
}

/// `stax::NAME(..)`, or `NAME(..)` of a layer constructor imported by name.
pub(crate) fn call_layer(
    t: &mut Tracer,
    name: &str,
    p: &syn::ExprPath,
    c: &syn::ExprCall,
) -> Result<Value> {
    super::arity(
        LAYERS,
        "stax",
        name,
        p,
        c,
        "; JAX's optional keywords are methods: `Conv(32, [3, 3]).padding(\"SAME\")`",
    )?;
    let span = c.span();
    let args = t.args(&c.args)?;
    let arg = |k: usize| (&args[k].0, args[k].1);
    let size = |k: usize, what: &str| -> Result<usize> {
        let i = integer(arg(k).0, arg(k).1, &format!("`{name}`'s {what}"))?;
        usize::try_from(i).or_else(|_| err(arg(k).1, format!("`{name}`'s {what} is not negative")))
    };
    let list = |k: usize, what: &str| sizes(arg(k).0, arg(k).1, &format!("`{name}`'s {what}"));
    let layer = match name {
        "Dense" => Layer::dense(size(0, "out_dim")?),
        "Conv" => Layer::conv(size(0, "out_chan")?, list(1, "filter_shape")?),
        "GeneralConv" => {
            let specs = match arg(0).0 {
                Value::Tuple(items) if items.len() == 3 => {
                    let mut out = Vec::new();
                    for i in items {
                        out.push(string(i, arg(0).1, "a layout")?);
                    }
                    out
                }
                _ => return err(arg(0).1, "`GeneralConv`'s dimension_numbers are three layout strings: `(\"NCHW\", \"OIHW\", \"NCHW\")`"),
            };
            let specs: [String; 3] = specs.try_into().expect("three");
            Layer::general_conv(specs, size(1, "out_chan")?, list(2, "filter_shape")?)
        }
        "BatchNorm" => Layer::batch_norm(),
        "MaxPool" => Layer::pool(core::PoolKind::Max, list(0, "window_shape")?),
        "SumPool" => Layer::pool(core::PoolKind::Sum, list(0, "window_shape")?),
        "AvgPool" => Layer::pool(core::PoolKind::Avg, list(0, "window_shape")?),
        "Dropout" => Layer::Dropout {
            rate: number(arg(0).0, arg(0).1, "`Dropout`'s rate")?,
            train: true,
        },
        "FanOut" => Layer::FanOut(size(0, "num")?),
        "FanInConcat" => Layer::FanInConcat(-1),
        "serial" | "parallel" => {
            let items = match arg(0).0 {
                Value::List(items) | Value::Tuple(items) => items.clone(),
                _ => {
                    return err(
                        arg(0).1,
                        format!(
                        "`{name}` takes its layers as an array: `stax::{name}([Dense(10), Relu])`"
                    ),
                    )
                }
            };
            let layers = items
                .iter()
                .map(|v| layer_of(v, arg(0).1))
                .collect::<Result<Vec<_>>>()?;
            if name == "serial" {
                Layer::Serial(layers)
            } else {
                Layer::Parallel(layers)
            }
        }
        _ => unreachable!("every constructor has an arm"),
    };
    let _ = span;
    Ok(wrap(Static::Layer(layer)))
}

/// `initializers::NAME(..)`.
pub(crate) fn call_init(
    t: &mut Tracer,
    name: &str,
    p: &syn::ExprPath,
    c: &syn::ExprCall,
) -> Result<Value> {
    super::arity(
        INITIALIZERS,
        "initializers",
        name,
        p,
        c,
        "; JAX's optional keywords are methods: `initializers::normal().stddev(0.5)`",
    )?;
    let args = t.args(&c.args)?;
    let init = match name {
        "zeros" => Init::zeros(),
        "ones" => Init::ones(),
        "constant" => Init::constant(number(&args[0].0, args[0].1, "`constant`'s value")?),
        "uniform" => Init::uniform(1e-2),
        "normal" => Init::normal(1e-2),
        "truncated_normal" => Init::truncated_normal(1e-2),
        "variance_scaling" => {
            let scale = number(&args[0].0, args[0].1, "`variance_scaling`'s scale")?;
            let mode = string(&args[1].0, args[1].1, "`variance_scaling`'s mode")?;
            let mode = FanMode::parse(&mode).or_else(|e| err(args[1].1, e))?;
            let dist = string(&args[2].0, args[2].1, "`variance_scaling`'s distribution")?;
            let dist = Distribution::parse(&dist).or_else(|e| err(args[2].1, e))?;
            Init::variance_scaling(scale, mode, dist)
        }
        "orthogonal" => Init::orthogonal(),
        "delta_orthogonal" => Init::delta_orthogonal(),
        family => Init::family(family).expect("a family of the table"),
    };
    Ok(wrap(Static::Init(init)))
}

/// A traced tree as the layers take it: arrays, tuples, `()`, structs.
fn tree_of(v: &Value, span: Span, what: &str) -> Result<Tree<Atom>> {
    match v {
        Value::Traced(a) => Ok(Tree::Leaf(a.clone())),
        Value::Tuple(items) | Value::List(items) => Ok(Tree::Seq(
            items
                .iter()
                .map(|i| tree_of(i, span, what))
                .collect::<Result<_>>()?,
        )),
        Value::Unit => Ok(Tree::Seq(vec![])),
        Value::Struct(_, fields) => Ok(Tree::Seq(
            fields
                .iter()
                .map(|(_, i)| tree_of(i, span, what))
                .collect::<Result<_>>()?,
        )),
        _ => err(span, format!("{what} are arrays and tuples of arrays")),
    }
}

/// A tree as a value: arrays, tuples (`()` for an empty one).
fn value_of(t: Tree<Atom>) -> Value {
    match t {
        Tree::Leaf(a) => Value::Traced(a),
        Tree::Seq(items) => Value::Tuple(items.into_iter().map(value_of).collect()),
    }
}

/// A shape value: `[-1, 784]`, `(-1, 784)`, or a list of them.
fn shape_of(v: &Value, span: Span) -> Result<Shape> {
    match v {
        Value::List(items) | Value::Tuple(items)
            if items.iter().all(|i| matches!(i, Value::Static(Scalar::Int(_)))) =>
        {
            Ok(Shape::Array(
                items
                    .iter()
                    .map(|i| integer(i, span, "a size"))
                    .collect::<Result<_>>()?,
            ))
        }
        Value::List(items) | Value::Tuple(items) => Ok(Shape::List(
            items
                .iter()
                .map(|i| shape_of(i, span))
                .collect::<Result<_>>()?,
        )),
        _ => err(
            span,
            "an input shape is a list of sizes known when the function compiles (`[-1, 784]`, -1 for the batch)",
        ),
    }
}

fn shape_value(s: Shape) -> Value {
    match s {
        Shape::Array(d) => Value::Tuple(
            d.into_iter()
                .map(|n| Value::Static(Scalar::Int(n as i128)))
                .collect(),
        ),
        Shape::List(s) => Value::List(s.into_iter().map(shape_value).collect()),
    }
}

/// A method of a layer (`init`, `apply`, `apply_rng`, an option) or of an
/// initializer (`init`, an option).
pub(crate) fn method(
    t: &mut Tracer,
    recv: &Static,
    m: &syn::ExprMethodCall,
    hint: Option<TypeSpec>,
) -> Result<Value> {
    let name = m.method.to_string();
    let span = m.span();
    let args = t.args(&m.args)?;
    match recv {
        Static::Layer(layer) => {
            match name.as_str() {
                "init" => {
                    if args.len() != 2 {
                        return err(span, "`.init(key, input_shape)` takes a key and the input shape (`[-1, 784]`)");
                    }
                    let key = t.atom(args[0].0.clone(), args[0].1)?;
                    let shape = shape_of(&args[1].0, args[1].1)?;
                    let (out, params) = core::init(&mut t.at(span), layer, key, &shape)?;
                    Ok(Value::Tuple(vec![shape_value(out), value_of(params)]))
                }
                "apply" | "apply_rng" => {
                    let want = if name == "apply" { 2 } else { 3 };
                    if args.len() != want {
                        return err(
                            span,
                            if name == "apply" {
                                "`.apply(&params, &inputs)` takes the params and the inputs"
                            } else {
                                "`.apply_rng(&params, &inputs, key)` takes the params, the inputs and a key"
                            },
                        );
                    }
                    let params = tree_of(&args[0].0, args[0].1, "params")?;
                    let expected = layer.params_structure();
                    if params.structure() != expected {
                        return err(
                            args[0].1,
                            format!(
                                "{}'s params are structured {}, got {}",
                                layer.name(),
                                expected.describe(),
                                params.structure().describe()
                            ),
                        );
                    }
                    let x = tree_of(&args[1].0, args[1].1, "inputs")?;
                    let rng = if name == "apply_rng" {
                        Some(t.atom(args[2].0.clone(), args[2].1)?)
                    } else {
                        None
                    };
                    let y = core::apply(&mut t.at(span), layer, &params, x, rng)?;
                    Ok(value_of(y))
                }
                _ => {
                    if args.len() != 1 {
                        return err(span, format!("`.{name}()` takes one argument"));
                    }
                    let (v, s) = (&args[0].0, args[0].1);
                    let opt = match name.as_str() {
                    "w_init" | "b_init" | "beta_init" | "gamma_init" => Opt::Init(init_of(v, s)?),
                    "strides" => Opt::Sizes(sizes(v, s, "strides")?),
                    "padding" | "spec" | "mode" => Opt::Str(string(v, s, &format!("`.{name}()`"))?),
                    "center" | "scale" => Opt::Bool(boolean(v, s, &format!("`.{name}()`"))?),
                    "epsilon" => Opt::Num(number(v, s, "`.epsilon()`")?),
                    "axis" => match (layer, v) {
                        (Layer::FanInConcat(_), Value::List(items) | Value::Tuple(items))
                            if items.len() == 1 =>
                        {
                            Opt::Num(integer(&items[0], s, "an axis")? as f64)
                        }
                        _ => Opt::Sizes(sizes(v, s, "`.axis()`")?),
                    },
                    _ => {
                        return err(
                            m.method.span(),
                            format!("a stax layer has no method `.{name}()` in #[jax::jit] (`.init`, `.apply`, `.apply_rng`, and the setters of its JAX keywords)"),
                        )
                    }
                };
                    let key = if name == "w_init" {
                        "W_init"
                    } else {
                        name.as_str()
                    };
                    let mut layer = layer.clone();
                    layer.set(key, opt).or_else(|e| err(m.method.span(), e))?;
                    Ok(wrap(Static::Layer(layer)))
                }
            }
        }
        Static::Init(init) => {
            match name.as_str() {
                "init" => {
                    if args.len() != 1 {
                        return err(
                            span,
                            "`.init(key)` takes a key; the shape and dtype are the result's type",
                        );
                    }
                    let Some(aval) = hint.as_ref().and_then(TypeSpec::aval) else {
                        return err(span, "write the result's type: `let w: Array<f32, 784, 512> = init.init(key);`");
                    };
                    let shape = aval
                    .shape
                    .iter()
                    .map(|d| match d {
                        crate::ir::Dim::Lit(n) => Ok(*n),
                        crate::ir::Dim::Sym(s) => err(span, format!("an initializer needs sizes known when the function compiles, not `{s}`")),
                    })
                    .collect::<Result<Vec<_>>>()?;
                    let mut i = init.clone();
                    i.dtype = Some(aval.dtype);
                    let key = t.atom(args[0].0.clone(), args[0].1)?;
                    let v = jax_core::initializers::init(&mut t.at(span), &i, key, &shape)?;
                    Ok(Value::Traced(v))
                }
                "batch_axis" => {
                    let axes = match &args.first() {
                        Some((Value::List(items) | Value::Tuple(items), s)) => items
                            .iter()
                            .map(|i| integer(i, *s, "an axis"))
                            .collect::<Result<Vec<_>>>()?,
                        _ => return err(span, "`.batch_axis([..])` takes a list of axes"),
                    };
                    let mut i = init.clone();
                    match &mut i.kind {
                        jax_core::initializers::InitKind::VarianceScaling {
                            batch_axis, ..
                        } => *batch_axis = axes,
                        _ => {
                            return err(
                                m.method.span(),
                                "this initializer has no option `batch_axis`",
                            )
                        }
                    }
                    Ok(wrap(Static::Init(i)))
                }
                _ => {
                    if args.len() != 1 {
                        return err(span, format!("`.{name}()` takes one argument"));
                    }
                    let v = number(&args[0].0, args[0].1, &format!("`.{name}()`"))?;
                    let mut i = init.clone();
                    let ok = match (&mut i.kind, name.as_str()) {
                        (
                            jax_core::initializers::InitKind::Normal(s)
                            | jax_core::initializers::InitKind::TruncatedNormal { stddev: s, .. },
                            "stddev",
                        ) => {
                            *s = v;
                            true
                        }
                        (jax_core::initializers::InitKind::Uniform(s), "scale") => {
                            *s = v;
                            true
                        }
                        _ => i.set(&name, v),
                    };
                    if !ok {
                        return err(
                        m.method.span(),
                        format!("this initializer has no method `.{name}()` in #[jax::jit] (`.init(key)` and the setters of its JAX keywords)"),
                    );
                    }
                    Ok(wrap(Static::Init(i)))
                }
            }
        }
        _ => unreachable!("layers and initializers only"),
    }
}

/// Whether a type is `stax::params_of!(..)` (any path ending so).
pub(crate) fn is_params_of(ty: &syn::Type) -> Option<&syn::Macro> {
    match ty {
        syn::Type::Macro(m)
            if m.mac.path.segments.last().map(|s| s.ident == "params_of") == Some(true) =>
        {
            Some(&m.mac)
        }
        _ => None,
    }
}

/// `stax::params_of!(net, [-1, 784])`: the type of the params `net()`'s
/// `init` returns for that input shape (`net` a function of the mod that
/// returns a `stax::Layer`, or any expression of a layer), written out as
/// Rust: nested tuples of `::jax::Array<dtype, dims..>`, `()` for a layer
/// without params. Its dtypes are the initializers' (the default float).
pub(crate) fn params_type(t: &mut Tracer, mac: &syn::Macro) -> Result<syn::Type> {
    use syn::punctuated::Punctuated;
    let span = mac.span();
    let args: Punctuated<syn::Expr, syn::Token![,]> =
        mac.parse_body_with(Punctuated::parse_terminated)?;
    if args.len() != 2 {
        return err(
            span,
            "`stax::params_of!(net, [-1, 784])` takes the model (a function of the mod returning a `stax::Layer`) and the input shape",
        );
    }
    let model: syn::Expr = match &args[0] {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
            let name = p.path.get_ident().expect("an ident").to_string();
            let builds = t
                .items
                .fns
                .get(&name)
                .is_some_and(|f| crate::frontend::trace::module::builds_static(&f.sig));
            if !builds {
                return err(
                    p.span(),
                    format!("`{name}` is not a function of this mod that returns a `stax::Layer`: define `fn {name}() -> stax::Layer {{ stax::serial([..]) }}` beside this alias"),
                );
            }
            syn::parse_quote!(#p())
        }
        e => e.clone(),
    };
    let v = t.expr(&model)?;
    let layer = layer_of(&v, args[0].span())?;
    let sv = t.expr(&args[1])?;
    let shape = shape_of(&sv, args[1].span())?;
    let key = t.b.input(jax_core::ir::key_aval());
    let (_, params) = core::init(&mut t.at(span), &layer, key, &shape)?;
    let tokens = type_tokens(t, &params);
    syn::parse2(tokens)
}

/// A tree of traced values as the Rust type that holds it.
fn type_tokens(t: &Tracer, tree: &Tree<Atom>) -> proc_macro2::TokenStream {
    match tree {
        Tree::Leaf(a) => {
            let aval = t.b.aval(a);
            let ty = crate::ir::rust_type(aval.dtype);
            let dims = aval.shape.iter().map(|d| match d {
                crate::ir::Dim::Lit(n) => {
                    let n = proc_macro2::Literal::usize_unsuffixed(*n);
                    quote::quote!(#n)
                }
                crate::ir::Dim::Sym(s) => {
                    let id = syn::Ident::new(s, Span::call_site());
                    quote::quote!(#id)
                }
            });
            quote::quote!(::jax::Array<#ty #(, #dims)*>)
        }
        Tree::Seq(items) => {
            let parts = items.iter().map(|i| type_tokens(t, i));
            quote::quote!((#(#parts,)*))
        }
    }
}
