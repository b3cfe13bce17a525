//! `jnp::linalg::solve`, `inv`, `det`, `slogdet`, `matrix_power` and
//! `jax::scipy::linalg::lu`, `lu_factor`, `lu_solve` in jit, composed of
//! the `lu` primitive and `triangular_solve` as JAX's `numpy/linalg.py` and
//! `scipy/linalg.py` compose them.
//!
//! Derivatives are JAX's: `solve` (a `custom_linear_solve` in JAX) is a
//! `custom_jvp_call` whose rule is `ẋ = solve(a, ḃ - ȧ·x)` (reverse mode
//! transposes that rule: the transposed triangular solves); `det` is JAX's
//! closed form for 2×2 and 3×3 and otherwise a custom jvp with
//! `_cofactor_solve`'s rule (finite at singular matrices), `slogdet`'s rule
//! `trace(solve(a, ȧ))`, through `lu`. The whole-function jaxprs differ from
//! JAX's (no `custom_linear_solve`, no nested `jit`s); values and
//! derivatives match.

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::rules::{tangent_aval, Ctx, Res};
use crate::ir::{Atom, Aval, Dim};
use crate::prims::linalg::matrix::{
    batch_matmul, block, diagonal, element, element_last, eye, eye_like, matrix_dims,
    matrix_transpose, shape_tuple, tril, triu,
};
use crate::prims::{self, Params};
use jax_core::lax::Lax;

/// Runs a rule-style builder at the call's span.
fn with_cx<T>(t: &mut Tracer, span: Span, f: impl FnOnce(&mut Ctx) -> Res<T>) -> Result<T> {
    let mut cx = Ctx::new(&mut t.b, span);
    f(&mut cx).or_else(|e| call_err(span, e))
}

/// The operand as a float matrix (or batch of them), square when `square`
/// says with which message (JAX's).
fn matrix_arg(
    t: &mut Tracer,
    c: &Call,
    i: usize,
    square: Option<&dyn Fn(&str) -> String>,
) -> Result<Atom> {
    let x = c.atom(t, i)?;
    let a = t.b.aval(&x);
    let span = c.args[i].1;
    // Complex matrices: `solve` and `inv` (their values, and derivatives by
    // `solve`'s own rule); the rest are real-only in jit so far.
    let complex_ok = matches!(c.name, "solve" | "inv");
    if matches!(a.dtype, DType::C64 | DType::C128) && !complex_ok {
        return call_err(
            span,
            format!(
                "`{}` of complex matrices ({a}) is not supported in #[jax::jit] yet: call it eagerly, outside the jitted function",
                c.name
            ),
        );
    }
    if !matches!(a.dtype, DType::F32 | DType::F64 | DType::C64 | DType::C128) {
        return call_err(
            span,
            format!(
                "`{}` takes f32 or f64 matrices, got {a}: convert it first (`.astype::<f32>()`)",
                c.name
            ),
        );
    }
    if a.rank() < 2 {
        return call_err(
            span,
            format!(
                "`{}` needs an array of at least 2 dimensions [..., m, n], got {a}",
                c.name
            ),
        );
    }
    let r = a.rank();
    if let Some(msg) = square {
        if a.shape[r - 2] != a.shape[r - 1] {
            return call_err(span, msg(&shape_tuple(&a.shape)));
        }
    }
    Ok(x)
}

fn bind_lu(cx: &mut Ctx, a: Atom) -> Res<Vec<Atom>> {
    cx.apply_all(&prims::LU, vec![a])
}

fn reshape(cx: &mut Ctx, x: Atom, shape: Vec<Dim>) -> Res<Atom> {
    cx.reshape(x, shape)
}

/// `x` broadcast to `batch + x's last `keep` axes` (NumPy's rule: new
/// leading axes, and its size-1 batch axes stretched).
fn broadcast_batch(cx: &mut Ctx, x: Atom, batch: &[Dim], keep: usize) -> Res<Atom> {
    let a = cx.aval(&x);
    let mut shape = batch.to_vec();
    shape.extend_from_slice(&a.shape[a.rank() - keep..]);
    if shape == a.shape {
        return Ok(x);
    }
    let dims: Vec<usize> = (shape.len() - a.rank()..shape.len()).collect();
    cx.broadcast_in_dim(x, shape, dims)
}

/// `_lu_solve_core` with `trans=0`: `x = U⁻¹·L⁻¹·b[perm]` for matrices `b`
/// `[.., n, k]` with the factors' batch.
fn lu_solve_core(cx: &mut Ctx, lu: Atom, perm: Atom, b: Atom) -> Res<Atom> {
    let pb = prims::permute_rows(cx, perm, b)?;
    let y = prims::tri_solve(cx, lu.clone(), pb, true, true, false, true)?;
    prims::tri_solve(cx, lu, y, true, false, false, false)
}

/// `solve(a, b)` for matrices `b` with `a`'s batch, from the LU of `a`.
fn solve_matrices(cx: &mut Ctx, a: Atom, b: Atom) -> Res<Atom> {
    let f = bind_lu(cx, a)?;
    lu_solve_core(cx, f[0].clone(), f[2].clone(), b)
}

/// A `custom_jvp_call` named `name` of several outputs: `fun` the outputs
/// from the inputs, `rule` their tangents from the primals, the tangents
/// and the outputs (JAX's `defjvp`).
pub(crate) fn custom_jvp(
    t: &mut Tracer,
    name: &str,
    args: Vec<Atom>,
    fun: impl Fn(&mut Ctx, &[Atom]) -> Res<Vec<Atom>>,
    rule: impl Fn(&mut Ctx, &[Atom], &[Atom], &[Atom]) -> Res<Vec<Atom>>,
    span: Span,
) -> Result<Vec<Atom>> {
    let avals: Vec<Aval> = args.iter().map(|a| t.b.aval(a)).collect();
    let n = avals.len();
    let (fun_j, _) = t.trace_with(avals.clone(), |t, ins| with_cx(t, span, |cx| fun(cx, &ins)))?;
    let mut both = avals.clone();
    both.extend(avals.iter().map(tangent_aval));
    let (jvp_j, _) = t.trace_with(both, |t, ins| {
        with_cx(t, span, |cx| {
            let outs = fun(cx, &ins[..n])?;
            let tans = rule(cx, &ins[..n], &ins[n..], &outs)?;
            Ok(outs.into_iter().chain(tans).collect())
        })
    })?;
    let params = Params::CustomJvp(prims::Shared(std::rc::Rc::new(prims::CustomJvp {
        name: name.to_string(),
        fun: fun_j,
        jvp: jvp_j,
    })));
    t.b.bind(&prims::CUSTOM_JVP_CALL, params, args, span)
}

/// `solve(a, b)` of matrices with one batch, with JAX's derivative.
fn solve_traced(t: &mut Tracer, a: Atom, b: Atom, span: Span) -> Result<Atom> {
    let outs = custom_jvp(
        t,
        "solve",
        vec![a, b],
        |cx, ins| Ok(vec![solve_matrices(cx, ins[0].clone(), ins[1].clone())?]),
        |cx, ins, tans, outs| {
            // ẋ = solve(a, ḃ - ȧ·x)
            let ax = batch_matmul(cx, tans[0].clone(), outs[0].clone())?;
            let rhs = cx.bin(&prims::SUB, tans[1].clone(), ax)?;
            Ok(vec![solve_matrices(cx, ins[0].clone(), rhs)?])
        },
        span,
    )?;
    Ok(outs[0].clone())
}

/// The right-hand side as matrices with `a`'s batch: `(b, vector)`; JAX's
/// rule (a vector when `b` has one axis, else `[.., n, k]`), with the batch
/// shapes this crate's eager `solve` takes (equal, or `a` one matrix).
fn rhs_matrices(
    t: &mut Tracer,
    a: &Atom,
    b: Atom,
    name: &str,
    span: Span,
) -> Result<(Atom, Atom, bool)> {
    let (aa, ba) = (t.b.aval(a), t.b.aval(&b));
    let r = aa.rank();
    let n = aa.shape[r - 1].clone();
    let a_batch = aa.shape[..r - 2].to_vec();
    let vector = ba.rank() == 1;
    let (rows, b_batch) = if vector {
        (ba.shape[0].clone(), Vec::new())
    } else if ba.rank() >= 2 {
        (
            ba.shape[ba.rank() - 2].clone(),
            ba.shape[..ba.rank() - 2].to_vec(),
        )
    } else {
        return call_err(
            span,
            format!("`{name}`: `b` must be a vector or matrices, got {ba}"),
        );
    };
    if rows != n || !(a_batch.is_empty() || a_batch == b_batch) {
        return call_err(
            span,
            format!(
                "`{name}`: inconsistent shapes {aa} and {ba}: `b` must be [{n}] (with one matrix) or [.., {n}, K] with the leading axes of `a`"
            ),
        );
    }
    with_cx(t, span, |cx| {
        let b = if vector {
            reshape(cx, b, vec![n.clone(), Dim::Lit(1)])?
        } else {
            b
        };
        let a = broadcast_batch(cx, a.clone(), &b_batch, 2)?;
        Ok((a, b, vector))
    })
}

/// `jnp.linalg.solve(a, b)`: JAX's `jnp.vectorize` of the solve with
/// signature `(m,m),(m)->(m)` for a vector `b`, else `(m,m),(m,n)->(m,n)`:
/// the batch axes of `a` and `b` broadcast against each other.
pub(crate) fn solve(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let msg = |s: &str| format!("solve: the left-hand side must have shape [..., n, n], got {s}");
    let a = matrix_arg(t, &c, 0, Some(&msg))?;
    let b = c.atom(t, 1)?;
    let (aa, ba) = (t.b.aval(&a), t.b.aval(&b));
    if ba.dtype != aa.dtype {
        return call_err(
            c.args[1].1,
            format!("`solve`: `b` must have `a`'s dtype, got {ba}"),
        );
    }
    let (ar, br) = (aa.rank(), ba.rank());
    if br == 0 {
        return call_err(
            c.args[1].1,
            format!("`solve`: `b` must be a vector or matrices, got {ba}"),
        );
    }
    if br > 1
        && ar == br + 1
        && aa.shape[ar - 1] == ba.shape[br - 1]
        && aa.shape[ar - 1] != ba.shape[br - 2]
    {
        return call_err(
            c.span,
            format!(
                "Invalid shapes for solve: {}, {}. Prior to JAX v0.5.0, this would have been treated as a batched 1-dimensional solve. To recover this behavior, use solve(a, b[..., None]).squeeze(-1).",
                shape_tuple(&aa.shape),
                shape_tuple(&ba.shape)
            ),
        );
    }
    let vector = br == 1;
    let n = aa.shape[ar - 1].clone();
    let rows = if vector {
        &ba.shape[0]
    } else {
        &ba.shape[br - 2]
    };
    if *rows != n {
        let sig = if vector {
            "(m,m),(m)->(m)"
        } else {
            "(m,m),(m,n)->(m,n)"
        };
        return call_err(
            c.span,
            format!("inconsistent size for core dimension 'm': {rows} vs {n} on vectorized function with excluded=frozenset() and signature='{sig}'"),
        );
    }
    let b_batch = if vector { &[][..] } else { &ba.shape[..br - 2] };
    let batch =
        broadcast_batch_shapes(&aa.shape[..ar - 2], b_batch).or_else(|e| call_err(c.span, e))?;
    let (a, b) = with_cx(t, c.span, |cx| {
        let b = if vector {
            reshape(cx, b, vec![n.clone(), Dim::Lit(1)])?
        } else {
            b
        };
        let a = broadcast_batch(cx, a, &batch, 2)?;
        let b = broadcast_batch(cx, b, &batch, 2)?;
        Ok((a, b))
    })?;
    let x = solve_traced(t, a, b, c.span)?;
    let x = if vector {
        let mut shape = batch.clone();
        shape.push(n);
        with_cx(t, c.span, |cx| reshape(cx, x, shape))?
    } else {
        x
    };
    Ok(Value::Traced(x))
}

/// NumPy's broadcast of two batch shapes (static sizes), or JAX's message.
fn broadcast_batch_shapes(x: &[Dim], y: &[Dim]) -> std::result::Result<Vec<Dim>, String> {
    let r = x.len().max(y.len());
    let pad = |s: &[Dim]| -> Vec<Dim> {
        std::iter::repeat_n(Dim::Lit(1), r - s.len())
            .chain(s.iter().cloned())
            .collect()
    };
    let (px, py) = (pad(x), pad(y));
    px.iter()
        .zip(&py)
        .map(|(p, q)| match (p, q) {
            (p, q) if p == q => Ok(p.clone()),
            (Dim::Lit(1), q) => Ok(q.clone()),
            (p, Dim::Lit(1)) => Ok(p.clone()),
            _ => Err(format!(
                "Incompatible shapes for broadcasting: shapes=[{}, {}]",
                shape_tuple(x),
                shape_tuple(y)
            )),
        })
        .collect()
}

/// `jnp.linalg.inv(a)`: `solve(a, eye)`.
pub(crate) fn inv(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let msg = |s: &str| format!("Argument to inv must have shape [..., n, n], got {s}.");
    let a = matrix_arg(t, &c, 0, Some(&msg))?;
    Ok(Value::Traced(inv_traced(t, a, c.span)?))
}

fn inv_traced(t: &mut Tracer, a: Atom, span: Span) -> Result<Atom> {
    let aa = t.b.aval(&a);
    let eye = with_cx(t, span, |cx| eye_like(cx, &aa))?;
    solve_traced(t, a, eye, span)
}

/// The trace over the last two axes.
fn trace(cx: &mut Ctx, x: Atom) -> Res<Atom> {
    let d = diagonal(cx, x)?;
    let r = cx.aval(&d).rank();
    cx.reduce(&prims::REDUCE_SUM, d, vec![r - 1])
}

/// JAX's `_slogdet_lu`: `(sign, log|det|)` from `U`'s diagonal and the
/// pivots' parity; `(0, -inf)` for a zero on the diagonal.
fn slogdet_body(cx: &mut Ctx, a: Atom) -> Res<Vec<Atom>> {
    let f = bind_lu(cx, a)?;
    let diag = diagonal(cx, f[0].clone())?;
    let da = cx.aval(&diag);
    let last = da.rank() - 1;
    let reduce = |cx: &mut Ctx, p, x| cx.reduce(p, x, vec![last]);
    let zero = cx.lit(0.0, &diag);
    let is_zero = cx.bin(&prims::EQ, diag.clone(), zero.clone())?;
    let is_zero = reduce(cx, &prims::REDUCE_OR, is_zero)?;
    let iota = cx.iota(DType::I32, da.shape.clone(), last)?;
    let swapped = cx.bin(&prims::NE, f[1].clone(), iota)?;
    let swapped = cx.convert(swapped, DType::I32)?;
    let swaps = reduce(cx, &prims::REDUCE_SUM, swapped)?;
    let negative = cx.bin(&prims::LT, diag.clone(), zero)?;
    let negative = cx.convert(negative, DType::I32)?;
    let negatives = reduce(cx, &prims::REDUCE_SUM, negative)?;
    let parity = cx.add(swaps, negatives)?;
    let two = cx.lit(2.0, &parity);
    let parity = cx.bin(&prims::REM, parity, two)?;
    let m2 = cx.lit(-2.0, &parity);
    let one = cx.lit(1.0, &parity);
    let s = cx.mul(m2, parity)?;
    let s = cx.add(s, one)?;
    let s = cx.convert(s, da.dtype)?;
    let zero_s = cx.lit(0.0, &s);
    let shape = cx.aval(&s).shape;
    let zero_s = cx.broadcast_in_dim(zero_s, shape, vec![])?;
    let sign = cx.select(is_zero.clone(), s, zero_s)?;
    let abs = cx.un(&prims::ABS, diag)?;
    let logs = cx.un(&prims::LOG, abs)?;
    let logdet = reduce(cx, &prims::REDUCE_SUM, logs)?;
    let ninf = cx.lit(f64::NEG_INFINITY, &logdet);
    let shape = cx.aval(&logdet).shape;
    let ninf = cx.broadcast_in_dim(ninf, shape, vec![])?;
    let logdet = cx.select(is_zero, logdet, ninf)?;
    Ok(vec![sign, logdet])
}

/// JAX's `_det`: the closed forms of 2×2 and 3×3 (its order of
/// operations), `sign·exp(logdet)` otherwise.
fn det_body(cx: &mut Ctx, a: Atom) -> Res<Atom> {
    let av = cx.aval(&a);
    let n = match &av.shape[av.rank() - 1] {
        Dim::Lit(n) => *n,
        Dim::Sym(_) => 0,
    };
    let e = |cx: &mut Ctx, i, j| element(cx, a.clone(), i, j);
    match n {
        2 => {
            let (a00, a11) = (e(cx, 0, 0)?, e(cx, 1, 1)?);
            let d = cx.mul(a00, a11)?;
            let (a01, a10) = (e(cx, 0, 1)?, e(cx, 1, 0)?);
            let o = cx.mul(a01, a10)?;
            cx.bin(&prims::SUB, d, o)
        }
        3 => {
            let term = |cx: &mut Ctx, p: [(usize, usize); 3]| -> Res<Atom> {
                let x = e(cx, p[0].0, p[0].1)?;
                let y = e(cx, p[1].0, p[1].1)?;
                let xy = cx.mul(x, y)?;
                let z = e(cx, p[2].0, p[2].1)?;
                cx.mul(xy, z)
            };
            let t1 = term(cx, [(0, 0), (1, 1), (2, 2)])?;
            let t2 = term(cx, [(0, 1), (1, 2), (2, 0)])?;
            // `add`, as JAX's `_det_3x3` prints (`cx.add` is `add_any`).
            let s = cx.bin(&prims::ADD, t1, t2)?;
            let t3 = term(cx, [(0, 2), (1, 0), (2, 1)])?;
            let s = cx.bin(&prims::ADD, s, t3)?;
            let t4 = term(cx, [(0, 2), (1, 1), (2, 0)])?;
            let s = cx.bin(&prims::SUB, s, t4)?;
            let t5 = term(cx, [(0, 0), (1, 2), (2, 1)])?;
            let s = cx.bin(&prims::SUB, s, t5)?;
            let t6 = term(cx, [(0, 1), (1, 0), (2, 2)])?;
            cx.bin(&prims::SUB, s, t6)
        }
        _ => {
            let sl = slogdet_body(cx, a.clone())?;
            let e = cx.un(&prims::EXP, sl[1].clone())?;
            cx.mul(sl[0].clone(), e)
        }
    }
}

/// `jnp.linalg.det(a)`: JAX's closed forms for 2×2 and 3×3 (differentiated
/// as they are, so finite at singular matrices), otherwise `_det`, a
/// custom jvp whose rule is `trace(_cofactor_solve(a, ȧ))` (the adjugate's
/// product, finite where `a` is singular).
pub(crate) fn det(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let msg = |s: &str| format!("Argument to _det() must have shape [..., n, n], got {s}");
    let a = matrix_arg(t, &c, 0, Some(&msg))?;
    let aa = t.b.aval(&a);
    if matches!(aa.shape[aa.rank() - 1], Dim::Lit(2 | 3)) {
        return Ok(Value::Traced(with_cx(t, c.span, |cx| det_body(cx, a))?));
    }
    let outs = custom_jvp(
        t,
        "_det",
        vec![a],
        |cx, ins| Ok(vec![det_body(cx, ins[0].clone())?]),
        |cx, ins, tans, _| {
            let z = cofactor_solve(cx, ins[0].clone(), tans[0].clone())?;
            Ok(vec![trace(cx, z)?])
        },
        c.span,
    )?;
    Ok(Value::Traced(outs[0].clone()))
}

/// JAX's `_cofactor_solve(a, b)`'s second result, `adj(a)·b` (`det(a)·
/// solve(a, b)` where `a` is invertible), finite where `a` has rank `n - 1`
/// and zero where its rank is lower: from `a`'s LU with `U`'s last diagonal
/// entry replaced by `1 / partial_det[-2]`, the solve's result scaled by
/// `det(a)` except its last row, and both filtered where the modified `U`
/// is still singular.
fn cofactor_solve(cx: &mut Ctx, a: Atom, b: Atom) -> Res<Atom> {
    let aa = cx.aval(&a);
    let r = aa.rank();
    let n = match aa.shape[r - 1] {
        Dim::Lit(n) => n,
        Dim::Sym(_) => {
            return Err("det's derivative of a symbolic size is not supported yet".into())
        }
    };
    if n == 1 {
        return Ok(b);
    }
    let f = bind_lu(cx, a)?;
    let (lu, pivots, perm) = (f[0].clone(), f[1].clone(), f[2].clone());
    let diag = diagonal(cx, lu.clone())?;
    let sign = pivot_sign(cx, pivots, aa.dtype)?;
    // partial_det[-2] and [-1]: the products of the first n - 1 and of all
    // n diagonal entries, times the sign.
    let mut prod = sign;
    for i in 0..n - 1 {
        let d = element_last(cx, diag.clone(), i)?;
        prod = cx.mul(prod, d)?;
    }
    let before_last = prod.clone();
    let last = element_last(cx, diag, n - 1)?;
    let det = cx.mul(prod, last)?;
    // lu.at[..., -1, -1].set(1 / partial_det[-2]).
    let one = cx.lit(1.0, &before_last);
    let corner = cx.div(one, before_last)?;
    let corner = prims::broadcast_dims(cx, corner, &aa.shape, &(0..r - 2).collect::<Vec<_>>())?;
    let rows = iota(cx, &aa.shape, r - 2)?;
    let cols = iota(cx, &aa.shape, r - 1)?;
    let sum = cx.add(rows, cols)?;
    let far = cx.lit(2.0 * (n as f64 - 1.0), &sum);
    let at_corner = cx.bin(&prims::EQ, sum, far)?;
    let lu = cx.select(at_corner, lu, corner)?;
    // Whether U⁻¹·1 is still non-finite: a rank below n - 1.
    let mut col = aa.shape[..r - 1].to_vec();
    col.push(Dim::Lit(1));
    let ones = cx.full(
        1.0,
        &Aval {
            shape: col,
            ..aa.clone()
        },
    )?;
    let probe = prims::tri_solve(cx, lu.clone(), ones, true, false, false, false)?;
    let finite = cx.un(&prims::IS_FINITE, probe)?;
    let bad = cx.un(&prims::NOT, finite)?;
    let bad = cx.reduce(&prims::REDUCE_OR, bad, vec![r - 2, r - 1])?;
    let bad = prims::broadcast_dims(cx, bad, &aa.shape, &(0..r - 2).collect::<Vec<_>>())?;
    let zeros = cx.zeros(&tangent_aval(&cx.aval(&b)))?;
    let x = cx.select(bad.clone(), b, zeros.clone())?;
    let x = prims::permute_rows(cx, perm, x)?;
    let x = prims::tri_solve(cx, lu.clone(), x, true, true, false, true)?;
    let head = block(cx, x.clone(), 0..n - 1, 0..n)?;
    let mut head_shape = aa.shape.clone();
    head_shape[r - 2] = Dim::Lit(n - 1);
    let det_b = prims::broadcast_dims(cx, det, &head_shape, &(0..r - 2).collect::<Vec<_>>())?;
    let head = cx.mul(head, det_b)?;
    let tail = block(cx, x, n - 1..n, 0..n)?;
    let x = cx.concatenate(vec![head, tail], r - 2)?;
    let x = prims::tri_solve(cx, lu, x, true, false, false, false)?;
    cx.select(bad, x, zeros)
}

/// The sign of the pivots' permutation, `1 - 2·(swaps % 2)` in `dtype`
/// (`_cofactor_solve`'s `sign`).
fn pivot_sign(cx: &mut Ctx, pivots: Atom, dtype: DType) -> Res<Atom> {
    let pa = cx.aval(&pivots);
    let last = pa.rank() - 1;
    let pos = iota(cx, &pa.shape, last)?;
    let swapped = cx.bin(&prims::NE, pivots, pos)?;
    let swapped = cx.convert(swapped, DType::I32)?;
    let swaps = cx.reduce(&prims::REDUCE_SUM, swapped, vec![last])?;
    let two = cx.lit(2.0, &swaps);
    let parity = cx.bin(&prims::REM, swaps, two)?;
    let m2 = cx.lit(-2.0, &parity);
    let one = cx.lit(1.0, &parity);
    let s = cx.mul(m2, parity)?;
    let s = cx.add(s, one)?;
    cx.convert(s, dtype)
}

/// An `i32` iota along `dimension` of `shape`.
fn iota(cx: &mut Ctx, shape: &[Dim], dimension: usize) -> Res<Atom> {
    cx.iota(DType::I32, shape.to_vec(), dimension)
}

/// `jnp.linalg.slogdet(a)`: `(sign, logabsdet)`.
pub(crate) fn slogdet(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let msg = |s: &str| format!("Argument to slogdet() must have shape [..., n, n], got {s}");
    let a = matrix_arg(t, &c, 0, Some(&msg))?;
    let outs = custom_jvp(
        t,
        "slogdet",
        vec![a],
        |cx, ins| slogdet_body(cx, ins[0].clone()),
        |cx, ins, tans, outs| {
            let z = solve_matrices(cx, ins[0].clone(), tans[0].clone())?;
            let tr = trace(cx, z)?;
            let sa = tangent_aval(&cx.aval(&outs[0]));
            Ok(vec![cx.zeros(&sa)?, tr])
        },
        c.span,
    )?;
    Ok(Value::Tuple(outs.into_iter().map(Value::Traced).collect()))
}

/// `jnp.linalg.matrix_power(a, n)`: JAX's binary powering (`inv` first
/// for a negative `n`, the identity for 0).
pub(crate) fn matrix_power(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let msg = |_: &str| "Last 2 dimensions of the array must be square".to_string();
    let a = matrix_arg(t, &c, 0, Some(&msg))?;
    let n = t.static_int(&c.args[1].0, c.args[1].1, "the power `n`")?;
    let span = c.span;
    if n == 0 {
        let aa = t.b.aval(&a);
        return Ok(Value::Traced(with_cx(t, span, |cx| eye_like(cx, &aa))?));
    }
    let base = if n < 0 { inv_traced(t, a, span)? } else { a };
    let mut n = n.unsigned_abs();
    let out = with_cx(t, span, |cx| {
        let mm = |cx: &mut Ctx, x: &Atom, y: &Atom| batch_matmul(cx, x.clone(), y.clone());
        match n {
            1 => return Ok(base),
            2 => return mm(cx, &base, &base),
            3 => {
                let sq = mm(cx, &base, &base)?;
                return mm(cx, &sq, &base);
            }
            _ => {}
        }
        let (mut z, mut result): (Option<Atom>, Option<Atom>) = (None, None);
        while n > 0 {
            let next = match &z {
                None => base.clone(),
                Some(z) => mm(cx, z, z)?,
            };
            z = Some(next.clone());
            let bit = n % 2;
            n /= 2;
            if bit == 1 {
                result = Some(match result {
                    None => next,
                    Some(r) => mm(cx, &r, &next)?,
                });
            }
        }
        Ok(result.expect("a power above 3 has a set bit"))
    })?;
    Ok(Value::Traced(out))
}

/// `jax.scipy.linalg.lu_factor(a)`: `(lu, piv)`.
pub(crate) fn lu_factor(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let a = matrix_arg(t, &c, 0, None)?;
    let f = with_cx(t, c.span, |cx| bind_lu(cx, a))?;
    Ok(Value::Tuple(vec![
        Value::Traced(f[0].clone()),
        Value::Traced(f[1].clone()),
    ]))
}

/// `jax.scipy.linalg.lu(a)`: `(p, l, u)`, `p` the `m × m` permutation
/// matrix (`permutation[..., None] == arange(m)`, transposed), `l` the
/// unit-lower `m × k` and `u` the upper `k × n` factor, `k = min(m, n)`.
pub(crate) fn lu(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let a = matrix_arg(t, &c, 0, None)?;
    let aa = t.b.aval(&a);
    let outs = with_cx(t, c.span, |cx| {
        let (_, m, n) = matrix_dims("lu", &aa)?;
        let k = m.min(n);
        let f = bind_lu(cx, a)?;
        let p = prims::permutation_matrix(cx, f[2].clone(), aa.dtype)?;
        let p = matrix_transpose(cx, p)?;
        let left = block(cx, f[0].clone(), 0..m, 0..k)?;
        let strict = tril(cx, left, -1)?;
        let mut eye_shape = aa.shape.clone();
        let r = eye_shape.len();
        eye_shape[r - 1] = Dim::Lit(k);
        let eye = eye(cx, aa.dtype, &eye_shape)?;
        let l = cx.add(strict, eye)?;
        let top = block(cx, f[0].clone(), 0..k, 0..n)?;
        let u = triu(cx, top, 0)?;
        Ok(vec![p, l, u])
    })?;
    Ok(Value::Tuple(outs.into_iter().map(Value::Traced).collect()))
}

/// `jax.scipy.linalg.lu_solve((lu, piv), b)`: the pivots composed into the
/// permutation, then `_lu_solve_core`. Its derivative is that of the
/// triangular solves and the row permutation (as JAX's, which has no
/// custom rule).
pub(crate) fn lu_solve(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let span = c.span;
    let (lu, piv) = match &c.args[0].0 {
        Value::Tuple(items) if items.len() == 2 => {
            let s = c.args[0].1;
            (t.atom(items[0].clone(), s)?, t.atom(items[1].clone(), s)?)
        }
        _ => {
            return call_err(
                c.args[0].1,
                "`lu_solve` takes `(lu, piv)` then `b`: write `lu_solve((&lu, &piv), &b)`",
            )
        }
    };
    let la = t.b.aval(&lu);
    let r = la.rank();
    if r < 2 || la.shape[r - 1] != la.shape[r - 2] || !matches!(la.dtype, DType::F32 | DType::F64) {
        return call_err(
            span,
            format!("`lu_solve`: `lu` must be square f32 or f64 matrices [..., n, n], got {la}"),
        );
    }
    let pa = t.b.aval(&piv);
    let mut want = la.shape[..r - 1].to_vec();
    want.truncate(r - 1);
    if pa.dtype != DType::I32 || pa.shape != want {
        return call_err(
            span,
            format!("`lu_solve`: `piv` must be i32 [.., n] as `lu_factor` gives it, got {pa}"),
        );
    }
    let b = c.atom(t, 1)?;
    let b_aval = t.b.aval(&b);
    if b_aval.dtype != la.dtype {
        return call_err(
            c.args[1].1,
            format!("`lu_solve`: `b` must have `lu`'s dtype, got {b_aval}"),
        );
    }
    let (lu, b, vector) = rhs_matrices(t, &lu, b, "lu_solve", span)?;
    let x = with_cx(t, span, |cx| {
        let bb = cx.aval(&b).shape[..cx.aval(&b).rank() - 2].to_vec();
        let piv = broadcast_batch(cx, piv, &bb, 1)?;
        let perm = pivots_to_permutation(cx, piv)?;
        let x = lu_solve_core(cx, lu, perm, b)?;
        if vector {
            reshape(cx, x, b_aval.shape.clone())
        } else {
            Ok(x)
        }
    })?;
    Ok(Value::Traced(x))
}

/// The permutation LAPACK's pivots compose: the swaps applied in order to
/// `iota`, unrolled (the pivots' length is static). Integer-valued, so no
/// derivative flows through it.
fn pivots_to_permutation(cx: &mut Ctx, piv: Atom) -> Res<Atom> {
    let pa = cx.aval(&piv);
    let r = pa.rank();
    let Dim::Lit(n) = pa.shape[r - 1] else {
        return Err("lu_solve of a symbolic size is not supported yet".into());
    };
    let iota = |cx: &mut Ctx| cx.iota(DType::I32, pa.shape.clone(), r - 1);
    let pos = iota(cx)?;
    let mut perm = iota(cx)?;
    for j in 0..n {
        // Swap entries j and piv[j]: each entry k takes perm[piv[j]] where
        // k == j, perm[j] where k == piv[j].
        let pj = element_last(cx, piv.clone(), j)?;
        let at_j = element_last(cx, perm.clone(), j)?;
        let at_p = take_last(cx, perm.clone(), pj.clone())?;
        let jl = cx.lit(j as f64, &pos);
        let is_j = cx.bin(&prims::EQ, pos.clone(), jl)?;
        let pjb = spread_last(cx, pj, &pa.shape)?;
        let is_p = cx.bin(&prims::EQ, pos.clone(), pjb)?;
        let at_pb = spread_last(cx, at_p, &pa.shape)?;
        let at_jb = spread_last(cx, at_j, &pa.shape)?;
        let p1 = cx.select(is_p, perm, at_jb)?;
        perm = cx.select(is_j, p1, at_pb)?;
    }
    Ok(perm)
}

/// `x[.., k]` for a traced `k` per batch entry: the sum of `x` where the
/// last-axis index equals `k`.
fn take_last(cx: &mut Ctx, x: Atom, k: Atom) -> Res<Atom> {
    let a = cx.aval(&x);
    let r = a.rank();
    let pos = cx.iota(DType::I32, a.shape.clone(), r - 1)?;
    let kb = spread_last(cx, k, &a.shape)?;
    let hit = cx.bin(&prims::EQ, pos, kb)?;
    let zeros = cx.zeros(&tangent_aval(&a))?;
    let picked = cx.select(hit, zeros, x)?;
    cx.reduce(&prims::REDUCE_SUM, picked, vec![r - 1])
}

/// A batch-shaped value repeated along a new last axis of `shape`.
fn spread_last(cx: &mut Ctx, x: Atom, shape: &[Dim]) -> Res<Atom> {
    let dims: Vec<usize> = (0..shape.len() - 1).collect();
    cx.broadcast_in_dim(x, shape.to_vec(), dims)
}
