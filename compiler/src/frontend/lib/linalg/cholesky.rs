//! `jnp::linalg::cholesky` and `jax::scipy::linalg::` `cholesky`,
//! `cho_factor`, `cho_solve`, `solve_triangular` (and `_with`), composed of
//! the `cholesky` and `triangular_solve` primitives as JAX's
//! `numpy/linalg.py` and `scipy/linalg.py` compose them. JAX wraps each in a
//! named `jit` (`jit[name=cholesky]`); its equations are traced inline here,
//! the same equations without the wrapper.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{expression_error, Result};
use crate::ir::rules::{Ctx, Res};
use crate::ir::{Atom, Dim, Scalar};
use crate::prims::linalg::cholesky::cholesky as bind_cholesky;
use crate::prims::linalg::matrix::{is_complex, matrix_transpose, shape_tuple, tril};
use crate::prims::{self, Params, TriangularSolveParams};
use jax_core::lax::Lax;

/// A rule helper's message as an error at the call.
fn at<T>(span: Span, r: std::result::Result<T, String>) -> Result<T> {
    r.map_err(|m| expression_error(span, m))
}

/// A flag known when the function compiles (`lower`).
fn static_bool(v: &Value, span: Span, what: &str) -> Result<bool> {
    match v {
        Value::Static(Scalar::Bool(b)) => Ok(*b),
        _ => call_err(
            span,
            format!("{what} must be `true` or `false`, known when the function compiles"),
        ),
    }
}

/// `x` promoted to an inexact dtype, checked to be a batch of square
/// matrices (a wrong shape is an error at the call, with JAX's message).
fn square_matrices(t: &mut Tracer, x: Atom, what: &str, span: Span) -> Result<Atom> {
    let x = jnp::to_float(&mut t.b, x, span)?;
    let a = t.b.aval(&x);
    if a.rank() < 2 {
        return call_err(
            span,
            format!(
                "`{what}` needs a matrix or a batch of matrices (`Array<T, .., N, N>`), got shape {}",
                shape_tuple(&a.shape)
            ),
        );
    }
    let m = &a.shape[a.rank() - 2..];
    if let (Dim::Lit(r), Dim::Lit(c)) = (&m[0], &m[1]) {
        if r != c {
            return call_err(
                span,
                format!(
                    "The input to {what} must be a square matrix. Got shape {}.",
                    shape_tuple(m)
                ),
            );
        }
    }
    Ok(x)
}

/// JAX's `_H`: the matrices transposed, and conjugated when complex.
pub(crate) fn adjoint(cx: &mut Ctx, x: Atom) -> Res<Atom> {
    let xt = matrix_transpose(cx, x)?;
    if is_complex(cx.aval(&xt).dtype) {
        cx.unary(&prims::CONJ, xt)
    } else {
        Ok(xt)
    }
}

/// `jnp.linalg.cholesky(a)`: `symmetrize` (`(a + aᴴ) / 2`), the
/// primitive, then `_tril`.
pub(crate) fn cholesky(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let span = c.span;
    let x = c.atom(t, 0)?;
    let x = square_matrices(t, x, "cholesky", span)?;
    let mut cx = Ctx::new(&mut t.b, span);
    let xt = at(span, adjoint(&mut cx, x.clone()))?;
    let sum = at(span, cx.bin(&prims::ADD, x, xt))?;
    let two = cx.lit(2.0, &sum);
    let sym = at(span, cx.div(sum, two))?;
    let l = at(span, bind_cholesky(&mut cx, sym))?;
    Ok(Value::Traced(at(span, tril(&mut cx, l, 0))?))
}

/// `scipy.linalg.cholesky(a, lower)` (`_cholesky`): the primitive of `a`
/// (of `aᴴ` for the upper factor), `_tril`, `ᴴ` back for `upper`.
fn lower_or_upper_factor(t: &mut Tracer, x: Atom, lower: bool, span: Span) -> Result<Atom> {
    let x = square_matrices(t, x, "cholesky", span)?;
    let mut cx = Ctx::new(&mut t.b, span);
    let x = if lower {
        x
    } else {
        at(span, adjoint(&mut cx, x))?
    };
    let l = at(span, bind_cholesky(&mut cx, x))?;
    let l = at(span, tril(&mut cx, l, 0))?;
    if lower {
        Ok(l)
    } else {
        at(span, adjoint(&mut cx, l))
    }
}

/// The `lower` argument after the array (SciPy's default: `false`).
fn lower_arg(c: &Call, k: usize) -> Result<bool> {
    match c.args.get(k) {
        Some((v, s)) => static_bool(v, *s, "`lower`"),
        None => Ok(false),
    }
}

pub(crate) fn scipy_cholesky(t: &mut Tracer, c: Call) -> Result<Value> {
    if c.args.is_empty() || c.args.len() > 2 {
        return call_err(c.span, "`cholesky` takes the matrix and `lower` (a bool)");
    }
    let lower = lower_arg(&c, 1)?;
    let x = c.atom(t, 0)?;
    Ok(Value::Traced(lower_or_upper_factor(t, x, lower, c.span)?))
}

/// `cho_factor(a, lower)`: `(cholesky(a, lower), lower)`.
pub(crate) fn cho_factor(t: &mut Tracer, c: Call) -> Result<Value> {
    if c.args.is_empty() || c.args.len() > 2 {
        return call_err(c.span, "`cho_factor` takes the matrix and `lower` (a bool)");
    }
    let lower = lower_arg(&c, 1)?;
    let x = c.atom(t, 0)?;
    let f = lower_or_upper_factor(t, x, lower, c.span)?;
    Ok(Value::Tuple(vec![
        Value::Traced(f),
        Value::Static(Scalar::Bool(lower)),
    ]))
}

/// `triangular_solve(a, b)` on the left, with `b` a vector (or a batch of
/// vectors) when it has one axis fewer than `a` (JAX's signature
/// `(n,n),(n)->(n)`: a trailing axis added, then removed), and `a`
/// broadcast over `b`'s batch axes when it has none.
fn solve_left(
    t: &mut Tracer,
    a: Atom,
    b: Atom,
    mut p: TriangularSolveParams,
    span: Span,
) -> Result<Atom> {
    // As `lax.linalg.triangular_solve`: conjugation only of a complex `a`.
    p.conjugate_a &= is_complex(t.b.aval(&a).dtype);
    let (ra, rb) = (t.b.aval(&a).rank(), t.b.aval(&b).rank());
    let vector = rb + 1 == ra || rb == 1;
    let b = if vector {
        let mut shape = t.b.aval(&b).shape;
        shape.push(Dim::Lit(1));
        let dims = (0..rb).collect();
        t.at(span).broadcast_in_dim(b, shape, dims)?
    } else {
        b
    };
    let bs = t.b.aval(&b).shape;
    let a = if ra == 2 && bs.len() > 2 {
        let mut shape = bs[..bs.len() - 2].to_vec();
        shape.extend(t.b.aval(&a).shape);
        let dims = (shape.len() - 2..shape.len()).collect();
        t.at(span).broadcast_in_dim(a, shape, dims)?
    } else {
        a
    };
    let x = t.b.bind1(
        &prims::linalg::TRIANGULAR_SOLVE,
        Params::TriangularSolve(p),
        vec![a, b],
        span,
    )?;
    if !vector {
        return Ok(x);
    }
    let r = t.b.aval(&x).rank();
    t.at(span).squeeze(x, vec![r - 1])
}

/// `a` and `b` promoted to one inexact dtype (`promote_dtypes_inexact`),
/// `a` checked square.
fn matrix_and_rhs(t: &mut Tracer, c: &Call, what: &str) -> Result<(Atom, Atom)> {
    let (a, b) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let ab = jnp::promote(&mut t.b, vec![a, b], c.span)?;
    let a = square_matrices(t, ab[0].clone(), what, c.span)?;
    let b = jnp::to_float(&mut t.b, ab[1].clone(), c.span)?;
    let dtype = t.b.aval(&a).dtype;
    let b = jnp::convert(&mut t.b, b, dtype, false, c.span)?;
    Ok((a, b))
}

/// `solve_triangular(a, b, lower)`: `triangular_solve(a, b,
/// left_side=True, lower=lower)`.
pub(crate) fn solve_triangular(t: &mut Tracer, c: Call) -> Result<Value> {
    if c.args.len() < 2 || c.args.len() > 3 {
        return call_err(
            c.span,
            "`solve_triangular` takes `a`, `b` and `lower` (a bool; `solve_triangular_with` takes the other options)",
        );
    }
    let lower = lower_arg(&c, 2)?;
    let (a, b) = matrix_and_rhs(t, &c, "solve_triangular")?;
    let p = TriangularSolveParams {
        left_side: true,
        lower,
        ..Default::default()
    };
    Ok(Value::Traced(solve_left(t, a, b, p, c.span)?))
}

/// `cho_solve((c, lower), b)`: `c` solved against `b` twice, as SciPy's
/// `L Lᵀ x = b` (or `Uᵀ U x = b`).
pub(crate) fn cho_solve(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let span = c.span;
    let (factor, lower) = match &c.args[0].0 {
        Value::Tuple(items) if items.len() == 2 => (
            t.atom(items[0].clone(), c.args[0].1)?,
            static_bool(&items[1], c.args[0].1, "the `lower` of `(c, lower)`")?,
        ),
        _ => {
            return call_err(
                c.args[0].1,
                "`cho_solve` takes `(c, lower)` (as `cho_factor` returns it) and `b`",
            )
        }
    };
    let b = c.atom(t, 1)?;
    let ab = jnp::promote(&mut t.b, vec![factor, b], span)?;
    let f = square_matrices(t, ab[0].clone(), "cho_solve", span)?;
    let dtype = t.b.aval(&f).dtype;
    let b = jnp::convert(&mut t.b, ab[1].clone(), dtype, false, span)?;
    // Each transposed solve conjugated too, as JAX's `_cho_solve`.
    let first = TriangularSolveParams {
        left_side: true,
        lower,
        transpose_a: !lower,
        conjugate_a: !lower,
        ..Default::default()
    };
    let y = solve_left(t, f.clone(), b, first, span)?;
    let second = TriangularSolveParams {
        transpose_a: lower,
        conjugate_a: lower,
        ..first
    };
    Ok(Value::Traced(solve_left(t, f, y, second, span)?))
}

/// `solve_triangular_with(a, b, SolveTriangularOptions { .. })`: the
/// options struct read from its literal (values known when the function
/// compiles), as `lax::scan_with` reads its options.
pub(crate) fn solve_triangular_with(t: &mut Tracer, call: &syn::ExprCall) -> Result<Value> {
    let span = syn::spanned::Spanned::span(call);
    let usage = "write the options as a literal, `SolveTriangularOptions { lower: true, trans: Trans::T, unit_diagonal: false }` (or `..Default::default()`), with values known when the function compiles";
    if call.args.len() != 3 {
        return call_err(
            span,
            format!("`solve_triangular_with` takes `a`, `b` and the options: {usage}"),
        );
    }
    let syn::Expr::Struct(s) = &call.args[2] else {
        return call_err(syn::spanned::Spanned::span(&call.args[2]), usage);
    };
    let mut p = TriangularSolveParams {
        left_side: true,
        ..Default::default()
    };
    for f in &s.fields {
        let fspan = syn::spanned::Spanned::span(&f.expr);
        let name = match &f.member {
            syn::Member::Named(n) => n.to_string(),
            _ => return call_err(fspan, usage),
        };
        match name.as_str() {
            "lower" | "unit_diagonal" => {
                let v = t.static_bool(&f.expr, "this option")?;
                if name == "lower" {
                    p.lower = v;
                } else {
                    p.unit_diagonal = v;
                }
            }
            "trans" => {
                let syn::Expr::Path(path) = &f.expr else {
                    return call_err(fspan, "`trans` is `Trans::N`, `Trans::T` or `Trans::C`");
                };
                let last = path.path.segments.last().map(|s| s.ident.to_string());
                match last.as_deref() {
                    Some("N") => p.transpose_a = false,
                    Some("T") => p.transpose_a = true,
                    // Conjugated only when `a` is complex (`solve_left`).
                    Some("C") => {
                        p.transpose_a = true;
                        p.conjugate_a = true;
                    }
                    _ => {
                        return call_err(fspan, "`trans` is `Trans::N`, `Trans::T` or `Trans::C`")
                    }
                }
            }
            _ => {
                return call_err(
                    syn::spanned::Spanned::span(&f.member),
                    format!("`SolveTriangularOptions` has no field `{name}`: it has `lower`, `trans` and `unit_diagonal`"),
                )
            }
        }
    }
    let a = t.expr(&call.args[0])?;
    let b = t.expr(&call.args[1])?;
    let c = Call {
        module: crate::frontend::lib::call::Module::ScipyLinalg,
        name: "solve_triangular_with",
        args: vec![
            (a, syn::spanned::Spanned::span(&call.args[0])),
            (b, syn::spanned::Spanned::span(&call.args[1])),
        ],
        hint: None,
        span,
    };
    let (a, b) = matrix_and_rhs(t, &c, "solve_triangular")?;
    Ok(Value::Traced(solve_left(t, a, b, p, span)?))
}
