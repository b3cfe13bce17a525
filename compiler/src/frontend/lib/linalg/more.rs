//! `jnp::linalg::pinv`, `pinv_with`, `matrix_rank`, `matrix_rank_with`,
//! `lstsq` and `norm_with` in `#[jax::jit]`, composed of the `svd`
//! primitive as `jax.numpy.linalg` composes them, and the reading of the
//! options structs of the `_with` forms (`pinv_with`, `norm_with`,
//! `eigh_with`, `svd_with`) from the literal the user writes.
//!
//! `pinv` is a `custom_jvp_call` with JAX's `_pinv_jvp` rule (Golub and
//! Pereyra's derivative of the pseudo-inverse); `lstsq` and the norms
//! differentiate through `svd`'s rule, as in JAX. JAX wraps these in named
//! `jit`s, which jaxprs here inline.

use jax_dtypes::DType;
use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::callables::is_path;
use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::lib::linalg::lu::custom_jvp;
use crate::frontend::trace::jnp::{self, Reduction};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{Builder, Result};
use crate::ir::rules::{Ctx, Res};
use crate::ir::{Atom, Dim, Scalar};
use crate::prims::linalg::matrix::{
    batch_matmul as matmul, lit_dim, matrix_transpose as mt, scalar,
};
use crate::prims::linalg::svd::bind_svd;
use crate::prims::{self};
use jax_core::lax::{Lax, Trace};

/// An error over the tokens of `e` (an option the user wrote), not the
/// whole call.
fn at<T>(e: &impl quote::ToTokens, msg: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new_spanned(e, msg.to_string()))
}

/// A frontend (syn) error as a rule error.
fn rs<T>(r: Result<T>) -> Res<T> {
    r.map_err(|e| e.to_string())
}

fn eps(dtype: DType) -> f64 {
    if dtype == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// `v` rounded to `dtype` (as JAX computes a constant in it).
fn round(v: f64, dtype: DType) -> f64 {
    if dtype == DType::F32 {
        v as f32 as f64
    } else {
        v
    }
}

/// The operand `i` as an inexact matrix or batch of them, and its last two
/// dimensions.
fn matrix_arg(t: &mut Tracer, c: &Call, i: usize) -> Result<(Atom, usize, usize)> {
    let x = c.atom(t, i)?;
    let x = jnp::to_float(&mut t.b, x, c.span)?;
    matrix_dims(t, x, c.name, c.args[i].1)
}

fn matrix_dims(t: &mut Tracer, x: Atom, name: &str, span: Span) -> Result<(Atom, usize, usize)> {
    let a = t.b.aval(&x);
    not_complex(a.dtype, name, span)?;
    if a.rank() < 2 {
        return call_err(
            span,
            format!(
                "`jnp::linalg::{name}` takes a matrix or a batch of them ([.., M, N]), got {a}"
            ),
        );
    }
    let r = a.rank();
    let m = lit_dim(&a.shape[r - 2], name).or_else(|e| call_err(span, e))?;
    let n = lit_dim(&a.shape[r - 1], name).or_else(|e| call_err(span, e))?;
    Ok((x, m, n))
}

/// The functions here compose real-valued steps (cutoffs against `eps`,
/// ordering of singular values); on complex input they are a compile error
/// rather than a wrong answer.
fn not_complex(dtype: DType, name: &str, span: Span) -> Result<()> {
    if crate::prims::linalg::matrix::is_complex(dtype) {
        return call_err(
            span,
            format!("`jnp::linalg::{name}` of a complex matrix is not supported in #[jax::jit] yet; call it on a real matrix (it works on complex ones eagerly only where the eager function takes them)"),
        );
    }
    Ok(())
}

/// `(a + aᵀ) / 2` over the last two axes.
fn symmetrize(b: &mut Builder, a: Atom, span: Span) -> Result<Atom> {
    let r = b.aval(&a).rank();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    let at = jnp::transpose(b, a.clone(), perm, span)?;
    let sum = jnp::binary(b, &prims::ADD, a, at, span)?;
    let two = jnp::weak_literal(b, Scalar::Float(2.0));
    jnp::binary(b, &prims::DIV, sum, two, span)
}

/// The square-matrix check of `hermitian=True` (JAX's eigh-based path).
fn check_square(m: usize, n: usize, name: &str, span: Span) -> Result<()> {
    if m != n {
        return call_err(
            span,
            format!("Argument to symmetric eigendecomposition must have shape [..., n, n], got shape ({m}, {n}): `jnp::linalg::{name}` with `hermitian: true` needs a square matrix"),
        );
    }
    Ok(())
}

// ---- pinv ----

/// `_pinv`'s value: `vhᵀ · (uᵀ / s[.., None])` of the thin SVD, with
/// singular values at or below `rtol · s_max` replaced by infinity.
fn pinv_value(cx: &mut Ctx, a: Atom, rtol: f64) -> Res<Atom> {
    let span = cx.span;
    let dtype = cx.aval(&a).dtype;
    let r = cx.aval(&a).rank();
    let outs = bind_svd(cx, a, false, true)?;
    let (s, u, vh) = (outs[0].clone(), outs[1].clone(), outs[2].clone());
    // s is descending, so its max is `s[.., 0:1]`.
    let s0 = rs(jnp::reduce(
        cx.b,
        Reduction::Max,
        s.clone(),
        Some(vec![r - 2]),
        true,
        span,
    ))?;
    let cutoff = cx.bin(&prims::MUL, scalar(rtol, dtype), s0)?;
    let keep = rs(jnp::binary(cx.b, &prims::GT, s.clone(), cutoff, span))?;
    let inf = scalar(f64::INFINITY, dtype);
    let s = rs(jnp::where_(cx.b, keep, s, inf, span))?;
    let s_col = rs(jnp::expand_dims(cx.b, s, (r - 1) as i128, span))?;
    let ut = mt(cx, u)?;
    let scaled = rs(jnp::binary(cx.b, &prims::DIV, ut, s_col, span))?;
    let v = mt(cx, vh)?;
    matmul(cx, v, scaled)
}

/// `_pinv_jvp`: ṗ from `a`, `ȧ` and `p` (m ≥ n and m < n associate the
/// products differently, as JAX does).
fn pinv_tangent(cx: &mut Ctx, a: Atom, da: Atom, p: Atom, tall: bool) -> Res<Atom> {
    let pt = mt(cx, p.clone())?;
    let dat = mt(cx, da.clone())?;
    let neg = |cx: &mut Ctx, x: Atom| cx.un(&prims::NEG, x);
    if tall {
        // s = (p pᵀ) ȧᵀ; t = (ȧᵀ pᵀ) p
        let ppt = matmul(cx, p.clone(), pt.clone())?;
        let s = matmul(cx, ppt, dat.clone())?;
        let datpt = matmul(cx, dat, pt)?;
        let t = matmul(cx, datpt, p.clone())?;
        // -(p ȧ) p + s - (s a) p + t - (p a) t
        let pda = matmul(cx, p.clone(), da)?;
        let term1 = matmul(cx, pda, p.clone())?;
        let term1 = neg(cx, term1)?;
        let sa = matmul(cx, s.clone(), a.clone())?;
        let sap = matmul(cx, sa, p.clone())?;
        let pa = matmul(cx, p, a)?;
        let pat = matmul(cx, pa, t.clone())?;
        let x = cx.bin(&prims::ADD, term1, s)?;
        let x = cx.bin(&prims::SUB, x, sap)?;
        let x = cx.bin(&prims::ADD, x, t)?;
        cx.bin(&prims::SUB, x, pat)
    } else {
        // s = p (pᵀ ȧᵀ); t = ȧᵀ (pᵀ p)
        let ptdat = matmul(cx, pt.clone(), dat.clone())?;
        let s = matmul(cx, p.clone(), ptdat)?;
        let ptp = matmul(cx, pt, p.clone())?;
        let t = matmul(cx, dat, ptp)?;
        // -p (ȧ p) + s - s (a p) + t - p (a t)
        let dap = matmul(cx, da, p.clone())?;
        let term1 = matmul(cx, p.clone(), dap)?;
        let term1 = neg(cx, term1)?;
        let ap = matmul(cx, a.clone(), p.clone())?;
        let sap = matmul(cx, s.clone(), ap)?;
        let at = matmul(cx, a, t.clone())?;
        let pat = matmul(cx, p, at)?;
        let x = cx.bin(&prims::ADD, term1, s)?;
        let x = cx.bin(&prims::SUB, x, sap)?;
        let x = cx.bin(&prims::ADD, x, t)?;
        cx.bin(&prims::SUB, x, pat)
    }
}

/// `pinv(a, rtol, hermitian)` as JAX's `custom_jvp` `_pinv`.
fn pinv_traced(
    t: &mut Tracer,
    a: Atom,
    (m, n): (usize, usize),
    opts: PinvOpts,
    span: Span,
) -> Result<Atom> {
    let dtype = t.b.aval(&a).dtype;
    if opts.hermitian {
        check_square(m, n, "pinv_with", span)?;
    }
    if m == 0 || n == 0 {
        return call_err(
            span,
            "`jnp::linalg::pinv` of an empty matrix is not supported yet",
        );
    }
    // JAX: `10. * max(M, N) * eps` in the element type.
    let rtol = round(
        opts.rtol
            .unwrap_or_else(|| round(10.0 * m.max(n) as f64, dtype) * eps(dtype)),
        dtype,
    );
    let herm = opts.hermitian;
    let outs = custom_jvp(
        t,
        "pinv",
        vec![a],
        move |cx, ins| {
            let a = if herm {
                rs(symmetrize(cx.b, ins[0].clone(), cx.span))?
            } else {
                ins[0].clone()
            };
            Ok(vec![pinv_value(cx, a, rtol)?])
        },
        move |cx, ins, tans, outs| {
            let (mut a, mut da) = (ins[0].clone(), tans[0].clone());
            if herm {
                // svd(hermitian=True) symmetrizes its input; so does the jvp.
                a = rs(symmetrize(cx.b, a, cx.span))?;
                da = rs(symmetrize(cx.b, da, cx.span))?;
            }
            Ok(vec![pinv_tangent(cx, a, da, outs[0].clone(), m >= n)?])
        },
        span,
    )?;
    Ok(outs[0].clone())
}

#[derive(Clone, Copy, Default)]
struct PinvOpts {
    rtol: Option<f64>,
    hermitian: bool,
}

/// `jnp::linalg::pinv(a)`.
pub(crate) fn pinv(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let (a, m, n) = matrix_arg(t, &c, 0)?;
    Ok(Value::Traced(pinv_traced(
        t,
        a,
        (m, n),
        PinvOpts::default(),
        c.span,
    )?))
}

// ---- matrix_rank ----

/// `jnp::linalg::matrix_rank(a)` and `matrix_rank_with(a, tol)`: the count
/// of singular values above the tolerance (JAX's default integer).
pub(crate) fn matrix_rank(t: &mut Tracer, c: Call) -> Result<Value> {
    let with = c.name == "matrix_rank_with";
    c.want(if with { 2 } else { 1 })?;
    let span = c.span;
    let (a, m, n) = matrix_arg(t, &c, 0)?;
    let dtype = t.b.aval(&a).dtype;
    let r = t.b.aval(&a).rank();
    let mut cx = Ctx::new(&mut t.b, span);
    let s = bind_svd(&mut cx, a, false, false)
        .or_else(|e| call_err(span, e))?
        .remove(0);
    let tol = if with {
        let tol = c.atom(t, 1)?;
        let rank = t.b.aval(&tol).rank();
        jnp::expand_dims(&mut t.b, tol, rank as i128, span)?
    } else {
        let smax = jnp::reduce(
            &mut t.b,
            Reduction::Max,
            s.clone(),
            Some(vec![r - 2]),
            false,
            span,
        )?;
        let big = scalar(m.max(n) as f64, dtype);
        let x = jnp::binary(&mut t.b, &prims::MUL, smax, big, span)?;
        let x = jnp::binary(&mut t.b, &prims::MUL, x, scalar(eps(dtype), dtype), span)?;
        jnp::expand_dims(&mut t.b, x, (r - 2) as i128, span)?
    };
    let above = jnp::binary(&mut t.b, &prims::GT, s, tol, span)?;
    let count = jnp::reduce(
        &mut t.b,
        Reduction::Sum,
        above,
        Some(vec![r - 2]),
        false,
        span,
    )?;
    Ok(Value::Traced(count))
}

// ---- lstsq ----

/// `jnp::linalg::lstsq(a, b)`: `(x, resid, rank, s)` as JAX's `_lstsq`
/// with `rcond=None` and `numpy_resid=False`.
pub(crate) fn lstsq(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let span = c.span;
    let (a, b) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let ab = jnp::promote(&mut t.b, vec![a, b], span)?;
    let a = jnp::to_float(&mut t.b, ab[0].clone(), span)?;
    let b = jnp::to_float(&mut t.b, ab[1].clone(), span)?;
    let (aa, ba) = (t.b.aval(&a), t.b.aval(&b));
    if aa.rank() != 2 {
        return call_err(
            c.args[0].1,
            format!("{}-dimensional array given. Array must be two-dimensional (`jnp::linalg::lstsq` takes one matrix `a`)", aa.rank()),
        );
    }
    if ba.rank() != 1 && ba.rank() != 2 {
        return call_err(
            c.args[1].1,
            format!(
                "{}-dimensional array given. Array must be one or two-dimensional",
                ba.rank()
            ),
        );
    }
    if aa.shape[0] != ba.shape[0] {
        return call_err(
            span,
            format!("Leading dimensions of input arrays must match: `a` is {aa}, `b` is {ba}"),
        );
    }
    let (_, m, n) = matrix_dims(t, a.clone(), "lstsq", c.args[0].1)?;
    if m == 0 || n == 0 {
        return call_err(
            span,
            "`jnp::linalg::lstsq` of an empty matrix is not supported yet",
        );
    }
    let dtype = aa.dtype;
    let vector = ba.rank() == 1;
    let b = if vector {
        jnp::reshape(&mut t.b, b, vec![Dim::Lit(m), Dim::Lit(1)], span)?
    } else {
        b
    };
    let mut cx = Ctx::new(&mut t.b, span);
    let outs = bind_svd(&mut cx, a.clone(), false, true).or_else(|e| call_err(span, e))?;
    let (s, u, vt) = (outs[0].clone(), outs[1].clone(), outs[2].clone());
    let bb = &mut t.b;
    let rcond = scalar(round(eps(dtype) * m.max(n) as f64, dtype), dtype);
    // s is descending: s[0] is its max.
    let s0 = jnp::reduce(bb, Reduction::Max, s.clone(), None, false, span)?;
    let limit = jnp::binary(bb, &prims::MUL, rcond, s0, span)?;
    let pos = jnp::binary(bb, &prims::GT, s.clone(), scalar(0.0, dtype), span)?;
    let big = jnp::binary(bb, &prims::GE, s.clone(), limit, span)?;
    let mask = jnp::binary(bb, &prims::AND, pos, big, span)?;
    let rank = jnp::reduce(bb, Reduction::Sum, mask.clone(), None, false, span)?;
    let safe = jnp::where_(bb, mask.clone(), s.clone(), scalar(1.0, dtype), span)?;
    let inv = jnp::binary(bb, &prims::DIV, scalar(1.0, dtype), safe, span)?;
    let s_inv = jnp::where_(bb, mask, inv, scalar(0.0, dtype), span)?;
    let s_inv = jnp::expand_dims(bb, s_inv, 1, span)?;
    let ut = jnp::transpose(bb, u, vec![1, 0], span)?;
    let utb = jnp::matmul(bb, ut, b.clone(), span)?;
    let scaled = jnp::binary(bb, &prims::MUL, s_inv, utb, span)?;
    let v = jnp::transpose(bb, vt, vec![1, 0], span)?;
    let x = jnp::matmul(bb, v, scaled, span)?;
    // resid = norm(b - a x, axis=0) ** 2
    let est = jnp::matmul(bb, a, x.clone(), span)?;
    let diff = jnp::binary(bb, &prims::SUB, b, est, span)?;
    let sq = jnp::binary(bb, &prims::MUL, diff.clone(), diff, span)?;
    let sum = jnp::reduce(bb, Reduction::Sum, sq, Some(vec![0]), false, span)?;
    let nrm = Trace::new(bb, span).unary(&prims::SQRT, sum)?;
    let resid = jnp::binary(bb, &prims::MUL, nrm.clone(), nrm, span)?;
    let x = if vector {
        jnp::reshape(bb, x, vec![Dim::Lit(n)], span)?
    } else {
        x
    };
    Ok(Value::Tuple(vec![
        Value::Traced(x),
        Value::Traced(resid),
        Value::Traced(rank),
        Value::Traced(s),
    ]))
}

// ---- norm ----

/// `NormOrd`, read from the literal.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ord {
    Default,
    Fro,
    Nuc,
    P(f64),
}

fn ord_text(o: Ord) -> String {
    match o {
        Ord::Default => "None".into(),
        Ord::Fro => "fro".into(),
        Ord::Nuc => "nuc".into(),
        Ord::P(p) if p == f64::INFINITY => "inf".into(),
        Ord::P(p) if p == f64::NEG_INFINITY => "-inf".into(),
        Ord::P(p) => format!("{p}"),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Axis {
    All,
    Vector(i128),
    Matrix(i128, i128),
}

struct NormOpts {
    /// Each option with the tokens written for it (for errors).
    ord: (Ord, proc_macro2::TokenStream),
    axis: (Axis, proc_macro2::TokenStream),
    keepdims: bool,
}

/// `abs(x)`.
fn abs(b: &mut Builder, x: Atom, span: Span) -> Result<Atom> {
    Trace::new(b, span).unary(&prims::ABS, x)
}

/// `jnp.max(.., initial=0)`: the reduction, then `max(0, ·)`.
fn max0(b: &mut Builder, x: Atom, axis: usize, keepdims: bool, span: Span) -> Result<Atom> {
    let dtype = b.aval(&x).dtype;
    let r = jnp::reduce(b, Reduction::Max, x, Some(vec![axis]), keepdims, span)?;
    jnp::binary(b, &prims::MAX, scalar(0.0, dtype), r, span)
}

/// `sqrt(sum(x * x, axes, keepdims))`.
fn two_norm(
    b: &mut Builder,
    x: Atom,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: Span,
) -> Result<Atom> {
    let sq = jnp::binary(b, &prims::MUL, x.clone(), x, span)?;
    let s = jnp::reduce(b, Reduction::Sum, sq, axes, keepdims, span)?;
    Trace::new(b, span).unary(&prims::SQRT, s)
}

/// `jnp.linalg.norm(x, ord, axis, keepdims)` as JAX composes it.
fn norm_traced(t: &mut Tracer, x: Atom, o: NormOpts, span: Span) -> Result<Atom> {
    let x = jnp::to_float(&mut t.b, x, span)?;
    let a = t.b.aval(&x);
    not_complex(a.dtype, "norm_with", span)?;
    let rank = a.rank();
    let dtype = a.dtype;
    let keep = o.keepdims;
    let (ord, ord_tokens) = o.ord;
    let axis_tokens = o.axis.1.clone();
    let axes: Vec<usize> = match o.axis.0 {
        Axis::All if ord == Ord::Default => return two_norm(&mut t.b, x, None, keep, span),
        Axis::All => {
            if rank != 1 && rank != 2 {
                return at(
                    &axis_tokens,
                    format!("Improper number of axes for norm: axis={}. Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm (`axis: NormAxis::Vector(..)` or `NormAxis::Matrix(..)`).", prims::tuple(&(0..rank).collect::<Vec<_>>())),
                );
            }
            (0..rank).collect()
        }
        Axis::Vector(v) => vec![jnp::axis(&t.b, &x, v, span)?],
        Axis::Matrix(r0, c0) => {
            let (r0, c0) = (
                jnp::axis(&t.b, &x, r0, span)?,
                jnp::axis(&t.b, &x, c0, span)?,
            );
            if r0 == c0 {
                return at(&axis_tokens, format!("Duplicate axes given: ({r0}, {c0})"));
            }
            vec![r0, c0]
        }
    };
    let b = &mut t.b;
    if axes.len() == 1 {
        let ax = Some(axes.clone());
        return match ord {
            Ord::Default | Ord::P(2.0) => two_norm(b, x, ax, keep, span),
            Ord::P(p) if p == f64::INFINITY => {
                let ab = abs(b, x, span)?;
                max0(b, ab, axes[0], keep, span)
            }
            Ord::P(p) if p == f64::NEG_INFINITY => {
                let ab = abs(b, x, span)?;
                jnp::reduce(b, Reduction::Min, ab, ax, keep, span)
            }
            Ord::P(0.0) => {
                let nz = jnp::binary(b, &prims::NE, x, scalar(0.0, dtype), span)?;
                let nz = jnp::convert(b, nz, dtype, false, span)?;
                jnp::reduce(b, Reduction::Sum, nz, ax, keep, span)
            }
            Ord::P(1.0) => {
                let ab = abs(b, x, span)?;
                jnp::reduce(b, Reduction::Sum, ab, ax, keep, span)
            }
            Ord::P(p) => {
                let ab = abs(b, x, span)?;
                let pw = Trace::new(b, span).binary(&prims::POW, ab, scalar(p, dtype))?;
                let s = jnp::reduce(b, Reduction::Sum, pw, ax, keep, span)?;
                let inv = round(1.0 / round(p, dtype), dtype);
                Trace::new(b, span).binary(&prims::POW, s, scalar(inv, dtype))
            }
            Ord::Fro | Ord::Nuc => at(
                &ord_tokens,
                format!("Invalid order '{}' for vector norm: a vector norm takes `NormOrd::Default`, `Inf`, `NegInf` or `P(p)`", ord_text(ord)),
            ),
        };
    }
    let (row, col) = (axes[0], axes[1]);
    let sums = |b: &mut Builder, x: Atom, over: usize| -> Result<Atom> {
        let ab = abs(b, x, span)?;
        jnp::reduce(b, Reduction::Sum, ab, Some(vec![over]), keep, span)
    };
    // After summing one axis away (without keepdims), the other shifts.
    let shifted = |other: usize, gone: usize| {
        if !keep && other > gone {
            other - 1
        } else {
            other
        }
    };
    match ord {
        Ord::Default | Ord::Fro => two_norm(b, x, Some(axes), keep, span),
        Ord::P(1.0) => {
            let s = sums(b, x, row)?;
            max0(b, s, shifted(col, row), keep, span)
        }
        Ord::P(-1.0) => {
            let s = sums(b, x, row)?;
            jnp::reduce(b, Reduction::Min, s, Some(vec![shifted(col, row)]), keep, span)
        }
        Ord::P(p) if p == f64::INFINITY => {
            let s = sums(b, x, col)?;
            max0(b, s, shifted(row, col), keep, span)
        }
        Ord::P(p) if p == f64::NEG_INFINITY => {
            let s = sums(b, x, col)?;
            jnp::reduce(b, Reduction::Min, s, Some(vec![shifted(row, col)]), keep, span)
        }
        Ord::Nuc | Ord::P(2.0) | Ord::P(-2.0) => {
            // moveaxis(x, (row, col), (-2, -1))
            let mut perm: Vec<usize> = (0..rank).filter(|d| *d != row && *d != col).collect();
            perm.extend([row, col]);
            let moved = if perm.iter().enumerate().all(|(i, &d)| i == d) {
                x
            } else {
                jnp::transpose(b, x, perm, span)?
            };
            let mut cx = Ctx::new(b, span);
            let s = bind_svd(&mut cx, moved, true, false)
                .or_else(|e| call_err(span, e))?
                .remove(0);
            let last = rank - 2;
            let mut y = match ord {
                Ord::P(2.0) => max0(b, s, last, false, span)?,
                Ord::P(_) => jnp::reduce(b, Reduction::Min, s, Some(vec![last]), false, span)?,
                _ => jnp::reduce(b, Reduction::Sum, s, Some(vec![last]), false, span)?,
            };
            if keep {
                let (lo, hi) = (row.min(col), row.max(col));
                y = jnp::expand_dims(b, y, lo as i128, span)?;
                y = jnp::expand_dims(b, y, hi as i128, span)?;
            }
            Ok(y)
        }
        _ => at(
            &ord_tokens,
            format!("Invalid order '{}' for matrix norm: a matrix norm takes `NormOrd::Default`, `Fro`, `Nuc`, `Inf`, `NegInf` or `P(p)` with p = 1, -1, 2 or -2", ord_text(ord)),
        ),
    }
}

// ---- the options structs, read from their literals ----

/// The fields of an options struct written as a literal
/// (`XOptions { a: .., ..Default::default() }`) or `XOptions::default()`;
/// anything else is an error saying to write it literally.
fn option_fields<'a>(
    e: &'a syn::Expr,
    ty: &str,
    fields: &[&str],
    usage: &str,
) -> Result<Vec<(String, &'a syn::Expr)>> {
    match peel(e) {
        syn::Expr::Struct(s) => {
            let mut out = Vec::new();
            for f in &s.fields {
                let name = match &f.member {
                    syn::Member::Named(n) => n.to_string(),
                    _ => return at(&f.member, usage),
                };
                if !fields.contains(&name.as_str()) {
                    return at(
                        &f.member,
                        format!("`{ty}` has no field `{name}`: it has {}", fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")),
                    );
                }
                out.push((name, &f.expr));
            }
            Ok(out)
        }
        syn::Expr::Call(c) if c.args.is_empty() && is_default_path(&c.func) => Ok(Vec::new()),
        _ => at(
            e,
            format!("the options must be written literally here: {usage}, with values known when the function compiles (a variable holding the options cannot be read by #[jax::jit])"),
        ),
    }
}

fn is_default_path(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "default"))
}

/// A number known when the function compiles.
fn static_number(t: &mut Tracer, e: &syn::Expr, what: &str) -> Result<f64> {
    match t.expr(e)? {
        Value::Static(Scalar::Float(v)) => Ok(v),
        Value::Static(Scalar::Int(v)) => Ok(v as f64),
        _ => at(
            e,
            format!("{what} must be a number known when the function compiles"),
        ),
    }
}

fn static_int(t: &mut Tracer, e: &syn::Expr, what: &str) -> Result<i128> {
    match t.expr(e)? {
        Value::Static(Scalar::Int(v)) => Ok(v),
        _ => at(
            e,
            format!("{what} must be an integer known when the function compiles"),
        ),
    }
}

/// `e` without parentheses and the invisible groups of macro arguments.
fn peel(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => peel(&p.expr),
        syn::Expr::Group(g) => peel(&g.expr),
        _ => e,
    }
}

/// The last segment of a path expression (`Uplo::U` → `U`).
fn path_tail(e: &syn::Expr) -> Option<String> {
    match peel(e) {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// `Variant(args..)`: the variant's name and its arguments.
fn variant_call(e: &syn::Expr) -> Option<(String, Vec<&syn::Expr>)> {
    match peel(e) {
        syn::Expr::Call(c) => path_tail(&c.func).map(|n| (n, c.args.iter().collect())),
        _ => None,
    }
}

/// `rtol: None` or `rtol: Some(x)`.
fn option_f64(t: &mut Tracer, e: &syn::Expr) -> Result<Option<f64>> {
    if path_tail(e).as_deref() == Some("None") {
        return Ok(None);
    }
    match variant_call(e) {
        Some((n, args)) if n == "Some" && args.len() == 1 => {
            Ok(Some(static_number(t, args[0], "`rtol`")?))
        }
        _ => at(
            e,
            "`rtol` is `None` or `Some(x)` with a number known when the function compiles",
        ),
    }
}

fn read_ord(t: &mut Tracer, e: &syn::Expr) -> Result<Ord> {
    let usage =
        "`ord` is `NormOrd::Default`, `Fro`, `Nuc`, `Inf`, `NegInf` or `P(p)` with a number p";
    if let Some(n) = path_tail(e) {
        return match n.as_str() {
            "Default" => Ok(Ord::Default),
            "Fro" => Ok(Ord::Fro),
            "Nuc" => Ok(Ord::Nuc),
            "Inf" => Ok(Ord::P(f64::INFINITY)),
            "NegInf" => Ok(Ord::P(f64::NEG_INFINITY)),
            _ => at(e, usage),
        };
    }
    match variant_call(e) {
        Some((n, args)) if n == "P" && args.len() == 1 => {
            Ok(Ord::P(static_number(t, args[0], "`NormOrd::P`'s p")?))
        }
        _ => at(e, usage),
    }
}

fn read_axis(t: &mut Tracer, e: &syn::Expr) -> Result<Axis> {
    let usage = "`axis` is `NormAxis::All`, `NormAxis::Vector(axis)` or `NormAxis::Matrix(row_axis, col_axis)` with integers";
    if path_tail(e).as_deref() == Some("All") {
        return Ok(Axis::All);
    }
    match variant_call(e) {
        Some((n, args)) if n == "Vector" && args.len() == 1 => {
            Ok(Axis::Vector(static_int(t, args[0], "the axis")?))
        }
        Some((n, args)) if n == "Matrix" && args.len() == 2 => Ok(Axis::Matrix(
            static_int(t, args[0], "the row axis")?,
            static_int(t, args[1], "the column axis")?,
        )),
        _ => at(e, usage),
    }
}

/// The arguments before the options, as a `Call` for the usual helpers.
fn leading_call(
    t: &mut Tracer,
    call: &syn::ExprCall,
    name: &'static str,
    n: usize,
    usage: &str,
) -> Result<Call<'static>> {
    let span = call.span();
    if call.args.len() != n + 1 {
        return call_err(
            span,
            format!("`{name}` takes {n} array argument(s) and the options: {usage}"),
        );
    }
    let mut args = Vec::new();
    for a in call.args.iter().take(n) {
        args.push((t.expr(a)?, a.span()));
    }
    Ok(Call {
        module: crate::frontend::lib::call::Module::Linalg,
        name,
        args,
        hint: None,
        span,
    })
}

/// The options structs and the function reading each.
const OPTIONS: &[(&str, &str)] = &[
    ("PinvOptions", "pinv_with"),
    ("NormOptions", "norm_with"),
    ("EighOptions", "eigh_with"),
    ("SvdOptions", "svd_with"),
];

/// `pinv_with`, `norm_with`, `eigh_with` and `svd_with`, whose options
/// are read from the literal before anything is evaluated; `None` for
/// other calls.
pub(crate) fn call_with_options(t: &mut Tracer, call: &syn::ExprCall) -> Result<Option<Value>> {
    let f = &*call.func;
    let span = call.span();
    let opts_expr = call.args.last();
    if let syn::Expr::Path(p) = f {
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let [.., ty, d] = segs.as_slice() {
            if d == "default" && OPTIONS.iter().any(|(o, _)| o == ty) {
                let with = OPTIONS.iter().find(|(o, _)| o == ty).unwrap().1;
                return at(
                    call,
                    format!("`{ty}` is read from the literal written in the call when the function compiles: write `jnp::linalg::{with}(a, {ty}::default())` or `{ty} {{ .., ..Default::default() }}` inside the call, not in a variable"),
                );
            }
        }
    }
    if is_path(f, "linalg", "pinv_with") {
        let usage = "`PinvOptions { rtol: None, hermitian: false }` (or `..Default::default()`)";
        let mut o = PinvOpts::default();
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(e, "PinvOptions", &["rtol", "hermitian"], usage)? {
                match name.as_str() {
                    "rtol" => o.rtol = option_f64(t, e)?,
                    _ => o.hermitian = t.static_bool(e, "`hermitian`")?,
                }
            }
        }
        let c = leading_call(t, call, "pinv_with", 1, usage)?;
        let (a, m, n) = matrix_arg(t, &c, 0)?;
        return Ok(Some(Value::Traced(pinv_traced(t, a, (m, n), o, span)?)));
    }
    if is_path(f, "linalg", "norm_with") {
        let usage = "`NormOptions { ord: NormOrd::Nuc, axis: NormAxis::Matrix(-2, -1), keepdims: false }` (or `..Default::default()`)";
        let mut o = NormOpts {
            ord: (Ord::Default, quote::ToTokens::to_token_stream(call)),
            axis: (Axis::All, quote::ToTokens::to_token_stream(call)),
            keepdims: false,
        };
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(e, "NormOptions", &["ord", "axis", "keepdims"], usage)? {
                match name.as_str() {
                    "ord" => o.ord = (read_ord(t, e)?, quote::ToTokens::to_token_stream(e)),
                    "axis" => o.axis = (read_axis(t, e)?, quote::ToTokens::to_token_stream(e)),
                    _ => o.keepdims = t.static_bool(e, "`keepdims`")?,
                }
            }
        }
        let c = leading_call(t, call, "norm_with", 1, usage)?;
        let x = c.atom(t, 0)?;
        return Ok(Some(Value::Traced(norm_traced(t, x, o, span)?)));
    }
    if is_path(f, "linalg", "eigh_with") {
        let usage =
            "`EighOptions { uplo: Uplo::L, symmetrize_input: true }` (or `..Default::default()`)";
        let (mut lower, mut sym) = (true, true);
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(e, "EighOptions", &["uplo", "symmetrize_input"], usage)?
            {
                match name.as_str() {
                    "uplo" => {
                        lower = match path_tail(e).as_deref() {
                            Some("L") => true,
                            Some("U") => false,
                            _ => return at(e, "`uplo` is `Uplo::L` or `Uplo::U`"),
                        }
                    }
                    _ => sym = t.static_bool(e, "`symmetrize_input`")?,
                }
            }
        }
        let c = leading_call(t, call, "eigh_with", 1, usage)?;
        return crate::frontend::lib::linalg::eigh::eigh_with(t, c, lower, sym).map(Some);
    }
    if is_path(f, "linalg", "svd_with") {
        let usage =
            "`SvdOptions { full_matrices: false, hermitian: false }` (or `..Default::default()`)";
        let (mut full, mut herm) = (true, false);
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(
                e,
                "SvdOptions",
                &["full_matrices", "hermitian", "compute_uv"],
                usage,
            )? {
                match name.as_str() {
                    "full_matrices" => full = t.static_bool(e, "`full_matrices`")?,
                    "hermitian" => herm = t.static_bool(e, "`hermitian`")?,
                    _ => {
                        return at(
                            e,
                            "`SvdOptions` has no `compute_uv`: for the singular values alone call `jnp::linalg::svdvals(a)` (JAX's `svd(a, compute_uv=False)`)",
                        )
                    }
                }
            }
        }
        let c = leading_call(t, call, "svd_with", 1, usage)?;
        let (a, m, n) = matrix_arg(t, &c, 0)?;
        let a = if herm {
            check_square(m, n, "svd_with", span)?;
            symmetrize(&mut t.b, a, span)?
        } else {
            a
        };
        let mut cx = Ctx::new(&mut t.b, span);
        let outs = bind_svd(&mut cx, a, full, true).or_else(|e| call_err(span, e))?;
        return Ok(Some(Value::Tuple(vec![
            Value::Traced(outs[1].clone()),
            Value::Traced(outs[0].clone()),
            Value::Traced(outs[2].clone()),
        ])));
    }
    Ok(None)
}
