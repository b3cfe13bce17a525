//! `jnp` numeric functions that are compositions of primitives
//! (`remainder`, `floor_divide`, `isinf`, `log` bases, `trunc`, `var`,
//! `std`, the nan-reductions, `argmax`/`argmin`) and `lax::reduce`,
//! `lax::convert_element_type`, lowered as JAX writes them.

use jax_dtypes::{DType, Kind};
use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::lib::jnp::math;
use crate::frontend::lib::nn::*;
use crate::frontend::trace::jnp::{self, Reduction};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Builder, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, Prim};
use jax_core::lax::{Lax, Trace};

/// `promote_args_numeric`: bool to the default int, then one type.
fn numeric_args(t: &mut Tracer, xs: Vec<Atom>, s: Span) -> Result<Vec<Atom>> {
    let xs = jnp::promote(&mut t.b, xs, s)?;
    let a = t.b.aval(&xs[0]);
    if a.dtype == DType::Bool {
        let d = jax_dtypes::default_dtype(Kind::Int, t.b.x64);
        return xs
            .into_iter()
            .map(|x| jnp::convert(&mut t.b, x, d, a.weak, s))
            .collect();
    }
    Ok(xs)
}

/// `jnp::remainder(x, y)`: the sign of the divisor, as JAX writes it.
pub(crate) fn remainder(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let args = vec![c.atom(t, 0)?, c.atom(t, 1)?];
    let xy = numeric_args(t, args, s)?;
    let (x, mut y) = (xy[0].clone(), xy[1].clone());
    let b = &mut t.b;
    let zero = int_lit(b, 0);
    if b.aval(&y).dtype.is_integer() {
        let is0 = bin(b, &prims::EQ, y.clone(), zero.clone(), s)?;
        let one = int_lit(b, 1);
        y = select(b, is0, one, y, s)?;
    }
    let m = bin(b, &prims::REM, x, y.clone(), s)?;
    let nz = bin(b, &prims::NE, m.clone(), zero.clone(), s)?;
    let mneg = bin(b, &prims::LT, m.clone(), zero.clone(), s)?;
    let yneg = bin(b, &prims::LT, y.clone(), zero, s)?;
    let differ = bin(b, &prims::NE, mneg, yneg, s)?;
    let plus = bin(b, &prims::AND, differ, nz, s)?;
    let sum = bin(b, &prims::ADD, m.clone(), y, s)?;
    traced(select(b, plus, sum, m, s)?)
}

/// `jnp::floor_divide(x, y)`: JAX's integer formula, or `_float_divmod`.
pub(crate) fn floor_divide(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let args = vec![c.atom(t, 0)?, c.atom(t, 1)?];
    let xy = numeric_args(t, args, s)?;
    let (x, y) = (xy[0].clone(), xy[1].clone());
    let b = &mut t.b;
    let d = b.aval(&x).dtype;
    let zero = int_lit(b, 0);
    let one = int_lit(b, 1);
    if d.kind() == Kind::UInt {
        return traced(bin(b, &prims::DIV, x, y, s)?);
    }
    if d.is_integer() {
        let q = bin(b, &prims::DIV, x.clone(), y.clone(), s)?;
        let sx = un(b, &prims::SIGN, x.clone(), s)?;
        let sy = un(b, &prims::SIGN, y.clone(), s)?;
        let differ = bin(b, &prims::NE, sx, sy, s)?;
        let r = bin(b, &prims::REM, x, y, s)?;
        let nz = bin(b, &prims::NE, r, zero, s)?;
        let sel = bin(b, &prims::AND, differ, nz, s)?;
        let q1 = bin(b, &prims::SUB, q.clone(), one, s)?;
        return traced(select(b, sel, q1, q, s)?);
    }
    let m = bin(b, &prims::REM, x.clone(), y.clone(), s)?;
    let y0 = bin(b, &prims::EQ, y.clone(), zero.clone(), s)?;
    let xm = bin(b, &prims::SUB, x.clone(), m.clone(), s)?;
    let xc = select(b, y0, x, xm, s)?;
    let div = bin(b, &prims::DIV, xc, y.clone(), s)?;
    let mnz = bin(b, &prims::NE, m.clone(), zero, s)?;
    let sy = un(b, &prims::SIGN, y, s)?;
    let sm = un(b, &prims::SIGN, m, s)?;
    let differ = bin(b, &prims::NE, sy, sm, s)?;
    let ind = bin(b, &prims::AND, mnz, differ, s)?;
    let fone = lit(b, 1.0);
    let d1 = bin(b, &prims::SUB, div.clone(), fone, s)?;
    let div = select(b, ind, d1, div, s)?;
    traced(Trace::new(b, s).round(div, 0)?)
}

/// A bool array of `x`'s shape, all `v` (`lax.full_like(x, v, bool)`).
fn full_bool(b: &mut Builder, x: &Atom, v: bool, s: Span) -> Result<Atom> {
    let a = b.aval(x);
    let l = literal(Scalar::Bool(v), Aval::scalar(DType::Bool, false));
    if a.rank() == 0 {
        return Ok(l);
    }
    Trace::new(b, s).broadcast_in_dim(l, a.shape, vec![])
}

/// `jnp::isinf(x)` and `jnp::isfinite(x)`: false and true for integers.
pub(crate) fn isinf_isfinite(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let b = &mut t.b;
    let float = b.aval(&x).dtype.is_float();
    let v = match (c.name, float) {
        ("isinf", true) => {
            let a = un(b, &prims::ABS, x.clone(), s)?;
            let inf = typed_lit(b, &x, f64::INFINITY);
            bin(b, &prims::EQ, a, inf, s)?
        }
        ("isfinite", true) => un(b, &prims::IS_FINITE, x, s)?,
        (name, _) => full_bool(b, &x, name == "isfinite", s)?,
    };
    traced(v)
}

/// `jnp::log2(x)` (`log(x) / log(2)`) and `jnp::log10(x)` (`log(x) * (1 / log(10))`).
pub(crate) fn log_base(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, s)?;
    let b = &mut t.b;
    let l = un(b, &prims::LOG, x.clone(), s)?;
    let v = if c.name == "log2" {
        let two = typed_lit(b, &x, 2.0);
        let l2 = un(b, &prims::LOG, two, s)?;
        bin(b, &prims::DIV, l, l2, s)?
    } else {
        let k = typed_lit(b, &x, std::f64::consts::LOG10_E);
        bin(b, &prims::MUL, l, k, s)?
    };
    traced(v)
}

/// `jnp::trunc(x)`: `where(x < 0, ceil(x), floor(x))`; integers unchanged.
pub(crate) fn trunc(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let b = &mut t.b;
    if !b.aval(&x).dtype.is_float() {
        return traced(x);
    }
    let zero = int_lit(b, 0);
    let neg = bin(b, &prims::LT, x.clone(), zero, s)?;
    let c_ = un(b, &prims::CEIL, x.clone(), s)?;
    let f = un(b, &prims::FLOOR, x, s)?;
    traced(select(b, neg, c_, f, s)?)
}

/// `jnp::var(x[, axis, keepdims])`, `jnp::std`, and their `_axis` spellings
/// (ddof 0): `sum(square(x - mean(x))) / n` in the computation type.
pub(crate) fn var_std(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_axis");
    if name.len() != c.name.len() {
        c.want(3)?;
    }
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, s)?;
    let a = t.b.aval(&x);
    let b = &mut t.b;
    let out = jnp::to_float(b, x, s)?.clone();
    let out_dtype = b.aval(&out).dtype;
    // f16 and bf16 compute in f32, as `_var_promote_types`.
    let comp = if matches!(out_dtype, DType::F16 | DType::BF16) {
        DType::F32
    } else {
        out_dtype
    };
    let weak = b.aval(&out).weak;
    let x = jnp::convert(b, out, comp, weak, s)?;
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let mut n = 1usize;
    for &k in &axes {
        match a.shape[k] {
            Dim::Lit(d) => n *= d,
            _ => {
                return call_err(
                    s,
                    format!("{name} over a symbolic dimension is not supported"),
                )
            }
        }
    }
    let mean = jnp::mean(b, x.clone(), Some(axes.clone()), true, s)?;
    let centered = bin(b, &prims::SUB, x, mean, s)?;
    let sq = un(b, &prims::SQUARE, centered, s)?;
    let sum = jnp::reduce(b, Reduction::Sum, sq, Some(axes), keepdims, s)?;
    let norm = literal(
        crate::ir::cast_scalar(Scalar::Int(n as i128), comp),
        Aval::scalar(comp, false),
    );
    let var = bin(b, &prims::DIV, sum, norm, s)?;
    let var = jnp::convert(b, var, out_dtype, weak, s)?;
    traced(if name == "std" {
        un(b, &prims::SQRT, var, s)?
    } else {
        var
    })
}

/// `jnp::logsumexp_axis(x, axis, keepdims)`: `jnp::logsumexp` with its axis.
pub(crate) fn logsumexp_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    math::logsumexp(t, c)
}

/// `use nn as _;` for each of `nn`, `special`, `norm`, `stats`, `scipy` that
/// starts a path in the body: the body is traced, not compiled, so without
/// it rustc would call the user's `use jax::nn;` unused (and a missing one
/// is reported at the user's token, as it would be eagerly).
pub(crate) fn module_uses(block: &syn::Block) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    fn scan(ts: proc_macro2::TokenStream, found: &mut Vec<proc_macro2::Ident>) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        let colon =
            |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
        for (i, t) in toks.iter().enumerate() {
            match t {
                TokenTree::Group(g) => scan(g.stream(), found),
                TokenTree::Ident(id) => {
                    let name = id.to_string();
                    let ours =
                        matches!(name.as_str(), "nn" | "special" | "norm" | "stats" | "scipy");
                    let starts_path = colon(toks.get(i + 1)) && !(i > 0 && colon(toks.get(i - 1)));
                    if ours && starts_path && !found.iter().any(|f| *f == name) {
                        found.push(id.clone());
                    }
                }
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    scan(quote::quote!(#block), &mut found);
    quote::quote!(#(#[allow(unused_imports)] use #found as _;)*)
}

/// `jnp::nansum`, `nanmax`, `nanmin` (and `_axis`): JAX's `_nan_reduction`,
/// NaNs replaced by the reduction's identity, NaN where all were NaN.
pub(crate) fn nan_reduce(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_axis");
    if name.len() != c.name.len() {
        c.want(3)?;
    }
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, s)?;
    let kind = match name {
        "nansum" => Reduction::Sum,
        "nanmax" => Reduction::Max,
        _ => Reduction::Min,
    };
    let b = &mut t.b;
    if !b.aval(&x).dtype.is_inexact() {
        return traced(jnp::reduce(b, kind, x, axes, keepdims, s)?);
    }
    let nan = bin(b, &prims::NE, x.clone(), x.clone(), s)?;
    let init = match kind {
        Reduction::Sum => 0.0,
        Reduction::Max => f64::NEG_INFINITY,
        _ => f64::INFINITY,
    };
    let init = typed_lit(b, &x, init);
    let safe = select(b, nan.clone(), init, x.clone(), s)?;
    let out = jnp::reduce(b, kind, safe, axes.clone(), keepdims, s)?;
    if kind == Reduction::Sum {
        return traced(out);
    }
    let all_nan = jnp::reduce(b, Reduction::All, nan, axes, keepdims, s)?;
    let nan_lit = typed_lit(b, &x, f64::NAN);
    traced(select(b, all_nan, nan_lit, out, s)?)
}

/// `jnp::argmax_axis(x, axis, keepdims)`, `argmin_axis`, and `nanargmax`,
/// `nanargmin` (JAX's: NaNs replaced by -inf or inf, -1 where all are NaN).
pub(crate) fn arg_axis(t: &mut Tracer, mut c: Call) -> Result<Value> {
    let s = c.span;
    let base = c.name.trim_end_matches("_axis");
    let keepdims = if base.len() != c.name.len() {
        c.want(3)?;
        let (v, at) = c.args.pop().unwrap();
        match v {
            Value::Static(Scalar::Bool(k)) => k,
            _ => return call_err(at, "keepdims must be `true` or `false`"),
        }
    } else {
        false
    };
    let nan_variant = base.starts_with("nan");
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    let mut all_nan = None;
    if nan_variant && a.dtype.is_inexact() {
        let b = &mut t.b;
        let nan = bin(b, &prims::NE, x.clone(), x.clone(), s)?;
        let fill = typed_lit(
            b,
            &x,
            if base == "nanargmax" {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
        );
        let safe = select(b, nan.clone(), fill, x.clone(), s)?;
        let axes = match c.args.get(1) {
            Some((v, at)) => {
                let ax = t.static_int(v, *at, "the axis")?;
                Some(vec![jnp::axis(&t.b, &x, ax, *at)?])
            }
            None => None,
        };
        all_nan = Some(jnp::reduce(&mut t.b, Reduction::All, nan, axes, false, s)?);
        c.args[0].0 = Value::Traced(safe);
    }
    let axis = match c.args.get(1) {
        Some((v, at)) => Some(jnp::axis(&t.b, &x, t.static_int(v, *at, "the axis")?, *at)?),
        None => None,
    };
    let call = Call {
        module: c.module,
        name: base.trim_start_matches("nan"),
        args: c.args,
        hint: None,
        span: s,
    };
    let Value::Traced(mut r) = math::arg_reduce(t, call)? else {
        unreachable!("arg_reduce gives a traced value")
    };
    if let Some(all) = all_nan {
        let m1 = int_lit(&t.b, -1);
        r = select(&mut t.b, all, m1, r, s)?;
    }
    if keepdims {
        let shape: Vec<Dim> = match axis {
            Some(k) => {
                let mut sh = a.shape.clone();
                sh[k] = Dim::Lit(1);
                sh
            }
            None => vec![Dim::Lit(1); a.rank()],
        };
        r = jnp::reshape(&mut t.b, r, shape, s)?;
    }
    traced(r)
}

/// `lax::reduce_sum(x, &[axes])` and `reduce_prod`, `reduce_max`,
/// `reduce_min`: no promotion, as lax.
pub(crate) fn lax_reduce(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let (v, at) = &c.args[1];
    let items: Vec<Value> = match v {
        Value::List(items) | Value::Tuple(items) => items.clone(),
        other => vec![other.clone()],
    };
    let mut axes = Vec::new();
    for i in &items {
        let k = t.static_int(i, *at, "the axes")?;
        axes.push(jnp::axis(&t.b, &x, k, *at)?);
    }
    let prim: Prim = match c.name {
        "reduce_sum" => &prims::REDUCE_SUM,
        "reduce_prod" => &prims::REDUCE_PROD,
        "reduce_max" => &prims::REDUCE_MAX,
        _ => &prims::REDUCE_MIN,
    };
    traced(t.at(s).reduce(prim, x, axes)?)
}

/// `lax::convert_element_type::<U>(x)` (or `::<U, _>` with the result type
/// written): the element type from the turbofish or the result's type.
pub(crate) fn lax_convert(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let Some(dtype) = c.hint.as_ref().and_then(|h| h.aval()).map(|a| a.dtype) else {
        return call_err(
            c.span,
            "write the target element type: `lax::convert_element_type::<f32>(x)`",
        );
    };
    traced(t.at(c.span).convert_element_type(x, dtype, false)?)
}
