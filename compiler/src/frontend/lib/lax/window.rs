//! `lax::reduce_window` and `lax::reduce_window_dilated` with their eager
//! signatures, and flax's pooling layers `nn::max_pool` / `nn::avg_pool`.
//! As JAX does, a computation that is `lax::max`, `lax::min` or `lax::add`
//! binds `reduce_window_max`, `_min` or `_sum` (which have derivative and
//! batching rules); an initial value other than the monoid's identity is
//! folded in once per window afterwards, which is what XLA computes (it
//! skips padding, so the initial value counts once).

use jax_dtypes::conv::{Padding, WindowSpec};
use jax_dtypes::{DType, Kind};
use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::callables::{is_path, Callable};
use crate::frontend::lib::call::{call_err, Call, Module};
use crate::frontend::lib::lax::conv::{optional, padding, sizes};
use crate::frontend::lib::random::int_range;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Dim, Scalar};
use crate::prims::{self, Params, Prim};

/// A windowed reduction's monoid.
#[derive(Clone, Copy, PartialEq)]
enum Fold {
    Sum,
    Max,
    Min,
}

impl Fold {
    fn prim(self) -> Prim {
        match self {
            Fold::Sum => &prims::REDUCE_WINDOW_SUM,
            Fold::Max => &prims::REDUCE_WINDOW_MAX,
            Fold::Min => &prims::REDUCE_WINDOW_MIN,
        }
    }

    /// Whether `v` is this monoid's identity for `dtype`.
    fn is_identity(self, v: &Value, dtype: DType) -> bool {
        let Value::Static(s) = v else { return false };
        let int = matches!(dtype.kind(), Kind::Int | Kind::UInt);
        match (self, s) {
            (Fold::Sum, Scalar::Int(0)) => true,
            (Fold::Sum, Scalar::Float(f)) => *f == 0.0,
            (Fold::Max, Scalar::Float(f)) => !int && *f == f64::NEG_INFINITY,
            (Fold::Min, Scalar::Float(f)) => !int && *f == f64::INFINITY,
            (Fold::Max, Scalar::Int(i)) => int && *i == int_range(dtype).0,
            (Fold::Min, Scalar::Int(i)) => int && *i == int_range(dtype).1,
            _ => false,
        }
    }
}

/// The operand's sizes for the shape rule, a const generic standing as 1
/// (the primitive's own rule keeps it where the window leaves its axis
/// alone, and reports it elsewhere).
fn static_shape(t: &Tracer, x: &Atom) -> Vec<usize> {
    t.b.aval(x)
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 1,
        })
        .collect()
}

/// The checked window of `x`, bound with `fold`'s primitive.
#[allow(clippy::too_many_arguments)]
fn bind_window(
    t: &mut Tracer,
    x: Atom,
    fold: Fold,
    window: &[usize],
    strides: Option<&[usize]>,
    pad: &Padding,
    base: Option<&[usize]>,
    dilation: Option<&[usize]>,
    span: Span,
) -> Result<Atom> {
    let spec = match WindowSpec::new(&static_shape(t, &x), window, strides, pad, base, dilation) {
        Ok(s) => s,
        Err(e) => return call_err(span, e),
    };
    let params = Params::Window(spec.into());
    t.b.bind1(fold.prim(), params, vec![x], span)
}

/// `lax::reduce_window(x, init, computation, window_dimensions,
/// window_strides, padding)` and `lax::reduce_window_dilated(..,
/// base_dilation, window_dilation)`, read before their arguments are
/// evaluated (the computation is a function).
pub(crate) fn call(t: &mut Tracer, c: &syn::ExprCall) -> Result<Option<Value>> {
    let dilated = is_path(&c.func, "lax", "reduce_window_dilated");
    if !dilated && !is_path(&c.func, "lax", "reduce_window") {
        return Ok(None);
    }
    let want = if dilated { 8 } else { 6 };
    let args: Vec<&syn::Expr> = c.args.iter().collect();
    if args.len() != want {
        return err(
            c.span(),
            format!(
                "`lax::{}` takes {want} arguments: the operand, the initial value, the computation (`lax::max`, `lax::min` or `lax::add`), the window, the strides (or `None`), the padding{}",
                if dilated { "reduce_window_dilated" } else { "reduce_window" },
                if dilated { ", the base dilation and the window dilation (or `None`)" } else { "" }
            ),
        );
    }
    let fold = match t.callable(args[2]) {
        Ok(Callable::Op(Module::Lax | Module::Jnp, name)) => match name.as_str() {
            "add" => Some(Fold::Sum),
            "max" | "maximum" => Some(Fold::Max),
            "min" | "minimum" => Some(Fold::Min),
            _ => None,
        },
        _ => None,
    };
    let Some(fold) = fold else {
        return Err(syn::Error::new_spanned(
            args[2],
            "in #[jax::jit], reduce_window's computation is `lax::max`, `lax::min` or `lax::add` (JAX's reduce_window_max, _min and _sum, which have derivatives and batching rules); a general computation is available eagerly",
        ));
    };
    let mut vals = Vec::with_capacity(want);
    for (k, a) in args.iter().enumerate() {
        vals.push(if k == 2 { Value::Unit } else { t.expr(a)? });
    }
    let span = |k: usize| args[k].span();
    let x = t.atom(vals[0].clone(), span(0))?;
    let window = sizes(t, &vals[3], span(3), "window_dimensions")?;
    let strides = optional(&vals[4])
        .map(|v| sizes(t, v, span(4), "window_strides"))
        .transpose()?;
    let pad = padding(t, &vals[5], span(5))?;
    let (base, dil) = if dilated {
        (
            optional(&vals[6])
                .map(|v| sizes(t, v, span(6), "base_dilation"))
                .transpose()?,
            optional(&vals[7])
                .map(|v| sizes(t, v, span(7), "window_dilation"))
                .transpose()?,
        )
    } else {
        (None, None)
    };
    let out = bind_window(
        t,
        x.clone(),
        fold,
        &window,
        strides.as_deref(),
        &pad,
        base.as_deref(),
        dil.as_deref(),
        c.span(),
    )?;
    let dtype = t.b.aval(&x).dtype;
    if fold.is_identity(&vals[1], dtype) {
        return Ok(Some(Value::Traced(out)));
    }
    // Another initial value counts once per window: folded in after.
    let name = match fold {
        Fold::Sum => "add",
        Fold::Max => "max",
        Fold::Min => "min",
    };
    let init = match &vals[1] {
        Value::Static(_) => {
            let lit = t.atom(vals[1].clone(), span(1))?;
            crate::frontend::trace::jnp::convert(&mut t.b, lit, dtype, false, span(1))?
        }
        v => t.atom(v.clone(), span(1))?,
    };
    t.op(
        Module::Lax,
        name,
        vec![
            (Value::Traced(out), c.span()),
            (Value::Traced(init), span(1)),
        ],
        None,
        c.span(),
    )
    .map(Some)
}

/// `nn::max_pool(x, window_shape, strides, padding)` and `nn::avg_pool`
/// (flax's, `count_include_pad=True`): a window over the spatial axes of
/// `(batch, spatial.., features)` or `(spatial.., features)`.
pub(crate) fn pool(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(4)?;
    let x = c.atom(t, 0)?;
    let window_shape = sizes(t, &c.args[1].0, c.args[1].1, "window_shape")?;
    let strides = optional(&c.args[2].0)
        .map(|v| sizes(t, v, c.args[2].1, "strides"))
        .transpose()?;
    let pad = padding(t, &c.args[3].0, c.args[3].1)?;
    let max = c.name == "max_pool";
    Ok(Value::Traced(jax_core::nn::pool(
        &mut t.at(c.span),
        x,
        &window_shape,
        strides.as_deref(),
        pad,
        max,
    )?))
}
