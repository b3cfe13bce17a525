//! Jacobians as JAX computes them (`jax.jacfwd`, `jax.jacrev`,
//! `jax.hessian`): the jvp or the pullback of a program (`ad.rs`) batched
//! over the identity basis of the argument's or the output's space
//! (`batching.rs`), one pass, its lanes moved to give `out_shape ++
//! in_shape`; one pass per basis vector where an equation has no batching
//! rule.

use proc_macro2::Span;

use super::ad::{grad, jvp, vjp, Seed, Wrt};
use crate::ir::builder::Builder;
use crate::ir::rules::{tangent_aval, Ctx, Res};
use crate::ir::{Atom, Aval, Dim, Jaxpr, Scalar};
use crate::prims::{self, Params};

fn rule_error(span: Span, msg: String) -> crate::Error {
    crate::ir::builder::expression_error(span, msg)
}

/// The number of elements of a shape whose dimensions are all numbers.
fn static_size(shape: &[Dim], span: Span, what: &str) -> crate::Result<usize> {
    shape.iter().try_fold(1usize, |acc, d| match d {
        Dim::Lit(n) => Ok(acc * n),
        Dim::Sym(s) => Err(rule_error(
            span,
            format!("{what} needs shapes known when the function compiles; `{s}` is a symbol"),
        )),
    })
}

/// A one-hot constant array of `aval`'s shape: 1 at flat index `k`.
fn one_hot(b: &mut Builder, aval: &Aval, k: usize, n: usize) -> Atom {
    let zero = if aval.dtype.is_float() {
        Scalar::Float(0.0)
    } else {
        Scalar::Int(0)
    };
    let one = if aval.dtype.is_float() {
        Scalar::Float(1.0)
    } else {
        Scalar::Int(1)
    };
    let values = (0..n).map(|i| if i == k { one } else { zero }).collect();
    b.constant(tangent_aval(aval), values)
}

/// `parts` (each of shape `part`) stacked into `lead ++ part` when
/// `stack_first`, or `part ++ lead`... as the Jacobian layouts need: rows
/// of a reverse-mode Jacobian are stacked in front, columns of a
/// forward-mode one behind. `lead` is the shape the parts are indexed by.
fn stack(
    b: &mut Builder,
    parts: Vec<Atom>,
    part: &[Dim],
    lead: &[Dim],
    stack_first: bool,
    span: Span,
) -> crate::Result<Atom> {
    let mut ad = Ctx::new(b, span);
    let err = |m: String| rule_error(span, m);
    let (one_shape, axis): (Vec<Dim>, usize) = if stack_first {
        let mut s = vec![Dim::Lit(1)];
        s.extend_from_slice(part);
        (s, 0)
    } else {
        let mut s = part.to_vec();
        s.push(Dim::Lit(1));
        let axis = part.len();
        (s, axis)
    };
    let expanded: Vec<Atom> = parts
        .into_iter()
        .map(|p| {
            ad.bind(
                &prims::RESHAPE,
                Params::Reshape {
                    new_sizes: one_shape.clone(),
                },
                vec![p],
            )
        })
        .collect::<Res<_>>()
        .map_err(err)?;
    let joined = if expanded.len() == 1 {
        expanded.into_iter().next().unwrap()
    } else {
        ad.bind(
            &prims::CONCATENATE,
            Params::Concatenate { dim: axis },
            expanded,
        )
        .map_err(err)?
    };
    let mut shape: Vec<Dim> = Vec::new();
    if stack_first {
        shape.extend_from_slice(lead);
        shape.extend_from_slice(part);
    } else {
        shape.extend_from_slice(part);
        shape.extend_from_slice(lead);
    }
    ad.bind(
        &prims::RESHAPE,
        Params::Reshape { new_sizes: shape },
        vec![joined],
    )
    .map_err(err)
}

/// `jax.jacrev` with respect to input `arg`: a jaxpr of the same inputs
/// returning the Jacobian `out_shape ++ in_shape`: the pullback batched
/// over the output's identity basis (one pass), or one pullback per output
/// element where a primitive has no batching rule yet.
pub fn jacrev(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> crate::Result<Jaxpr> {
    jacobian(j, arg, false, x64, span)
}

/// `jax.jacfwd` with respect to input `arg`: the Jacobian `out_shape ++
/// in_shape`, the jvp batched over the argument's identity basis (or one
/// jvp per input element, as for [`jacrev`]).
pub fn jacfwd(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> crate::Result<Jaxpr> {
    jacobian(j, arg, true, x64, span)
}

/// The derivative a Jacobian is made of, with respect to input `arg`: the
/// jvp (`forward`) taking the primals then the argument's tangent, or the
/// pullback taking the primals then the first output's cotangent; its one
/// output is the first output's tangent, or the argument's cotangent.
/// With the seed's abstract value and the number of its elements (the
/// basis size).
fn directional(
    j: &Jaxpr,
    arg: usize,
    forward: bool,
    x64: bool,
    span: Span,
) -> crate::Result<(Jaxpr, Aval, usize)> {
    let mut wrt = vec![false; j.invars.len()];
    wrt[arg] = true;
    let wrt = Wrt { inputs: wrt };
    let n_out = j.outvars.len();
    let (mut linear, what) = if forward {
        (jvp(j, &wrt, x64, span)?, "jacfwd")
    } else {
        (vjp(j, &wrt, Seed::Inputs, x64, span)?, "jacrev")
    };
    // Forward mode: the first output's tangent; reverse mode: the
    // argument's cotangent (after the primal outputs either way).
    linear.outvars = vec![linear.outvars[n_out].clone()];
    let seed = if forward {
        tangent_aval(j.aval(j.invars[arg]))
    } else {
        tangent_aval(j.atom_aval(&j.outvars[0]))
    };
    let n = static_size(&seed.shape, span, what)?;
    Ok((linear, seed, n))
}

/// The identity basis of `seed`'s space, as `jax.jacfwd`'s `_std_basis`
/// builds it: `eye(n)` (two iotas compared, as `jnp.eye` builds it)
/// converted to the seed's dtype and reshaped to `[n] ++ seed.shape`, basis vector `k` at index `k`.
fn std_basis(b: &mut Builder, seed: &Aval, n: usize, span: Span) -> crate::Result<Atom> {
    let mut cx = Ctx::new(b, span);
    let err = |m: String| rule_error(span, m);
    let square = vec![Dim::Lit(n), Dim::Lit(n)];
    // Two iotas, not a constant index vector: the basis costs no tokens
    // per element however large `n` is.
    let square_aval = Aval {
        dtype: jax_dtypes::DType::I32,
        shape: square.clone(),
        weak: false,
    };
    let rows = prims::iota(&mut cx, jax_dtypes::DType::I32, &square_aval, 0).map_err(err)?;
    let cols = prims::iota(&mut cx, jax_dtypes::DType::I32, &square_aval, 1).map_err(err)?;
    let eq = cx.bin(&prims::EQ, rows, cols).map_err(err)?;
    let eye = cx.convert(eq, seed.dtype).map_err(err)?;
    let mut shape = vec![Dim::Lit(n)];
    shape.extend(seed.shape.iter().cloned());
    if shape == square {
        return Ok(eye);
    }
    cx.bind(
        &prims::RESHAPE,
        Params::Reshape { new_sizes: shape },
        vec![eye],
    )
    .map_err(err)
}

/// The Jacobian of the first output with respect to input `arg`, as JAX
/// computes it: the jvp (`forward`, JAX's `pushfwd`) or the pullback
/// `vmap`ped over the identity basis of the argument's (or the output's)
/// space, one batched pass, its lanes moved to give `out_shape ++
/// in_shape` (`jax.jacfwd`, `jax.jacrev`). `Ok(None)`: an equation of the
/// derivative has no batching rule yet; [`jacobian`] then runs one pass
/// per basis vector.
pub fn jacobian_batched(
    j: &Jaxpr,
    arg: usize,
    forward: bool,
    x64: bool,
    span: Span,
) -> crate::Result<Option<Jaxpr>> {
    let (linear, seed, n) = directional(j, arg, forward, x64, span)?;
    Ok(batched(j, arg, &linear, &seed, n, forward, x64, span).ok())
}

/// [`jacobian_batched`] given the derivative and its seed.
#[allow(clippy::too_many_arguments)]
fn batched(
    j: &Jaxpr,
    arg: usize,
    linear: &Jaxpr,
    seed: &Aval,
    n: usize,
    forward: bool,
    x64: bool,
    span: Span,
) -> crate::Result<Jaxpr> {
    let out_aval = j.atom_aval(&j.outvars[0]).clone();
    let in_aval = j.aval(j.invars[arg]).clone();
    // The primals are shared by every lane; the seed runs along axis 0.
    // Forward mode's lanes are columns: last (`out_axes=-1`); reverse
    // mode's are rows: first.
    let mut in_dims = vec![None; j.invars.len()];
    in_dims.push(Some(0));
    let out_dim = if forward { out_aval.rank() } else { 0 };
    let size = Dim::Lit(n);
    let vmapped = crate::transform::batching::vmap(
        linear,
        &in_dims,
        &[Some(out_dim)],
        &size,
        None,
        x64,
        span,
    )?;
    let mut b = Builder::new(x64);
    let mut args: Vec<Atom> = j
        .invars
        .iter()
        .map(|v| b.input(j.aval(*v).clone()))
        .collect();
    args.push(std_basis(&mut b, seed, n, span)?);
    let jac = b.inline(&vmapped, &args)?.remove(0);
    let mut shape = out_aval.shape.clone();
    shape.extend(in_aval.shape.iter().cloned());
    let jac = if b.aval(&jac).shape == shape {
        jac
    } else {
        Ctx::new(&mut b, span)
            .bind(
                &prims::RESHAPE,
                Params::Reshape { new_sizes: shape },
                vec![jac],
            )
            .map_err(|m| rule_error(span, m))?
    };
    b.jaxpr.outvars = vec![jac];
    Ok(b.jaxpr)
}

/// The Jacobian of the first output with respect to input `arg`: batched
/// ([`jacobian_batched`]) where every equation has a batching rule, else
/// one jvp per input element (`forward`) or one pullback per output
/// element, each fed a one-hot seed and stacked into `out_shape ++
/// in_shape` (unrolled: shapes are static).
pub fn jacobian(
    j: &Jaxpr,
    arg: usize,
    forward: bool,
    x64: bool,
    span: Span,
) -> crate::Result<Jaxpr> {
    let (linear, seed, n) = directional(j, arg, forward, x64, span)?;
    if let Ok(jac) = batched(j, arg, &linear, &seed, n, forward, x64, span) {
        return Ok(jac);
    }
    per_basis(j, arg, &linear, &seed, n, forward, x64, span)
}

/// The Jacobian of each output with respect to input `arg`, in order, as
/// [`jacobian`] computes the first output's: `jax.jacfwd` / `jax.jacrev` of
/// a function returning a pytree, whose Jacobian is the same tree with each
/// leaf's Jacobian (`leaf_shape ++ in_shape`) in its place. JAX's jacrev
/// batches one pullback over the basis of the whole output, each basis
/// vector one-hot in a single leaf and zero in the others: its rows are the
/// pullbacks of one leaf's basis, which this computes leaf by leaf.
/// With `batched_only`, `Ok(None)` where a leaf's Jacobian cannot be
/// batched (rather than unrolled per basis vector).
pub fn jacobian_of_each(
    j: &Jaxpr,
    arg: usize,
    forward: bool,
    batched_only: bool,
    x64: bool,
    span: Span,
) -> crate::Result<Option<Jaxpr>> {
    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = b.inputs_like(j);
    let mut jacs = Vec::new();
    for out in &j.outvars {
        let mut one = j.clone();
        one.outvars = vec![out.clone()];
        let jac = if batched_only {
            match jacobian_batched(&one, arg, forward, x64, span)? {
                Some(jac) => jac,
                None => return Ok(None),
            }
        } else {
            jacobian(&one, arg, forward, x64, span)?
        };
        jacs.extend(b.inline(&jac, &inputs)?);
    }
    b.jaxpr.outvars = jacs;
    Ok(Some(b.jaxpr))
}

/// The Jacobian as one pass per basis vector (what [`jacobian`] falls back
/// to), unrolled.
pub fn jacobian_per_basis(
    j: &Jaxpr,
    arg: usize,
    forward: bool,
    x64: bool,
    span: Span,
) -> crate::Result<Jaxpr> {
    let (linear, seed, n) = directional(j, arg, forward, x64, span)?;
    per_basis(j, arg, &linear, &seed, n, forward, x64, span)
}

/// The Jacobian as one pass per basis vector, each a one-hot constant,
/// stacked.
#[allow(clippy::too_many_arguments)]
fn per_basis(
    j: &Jaxpr,
    arg: usize,
    linear: &Jaxpr,
    seed: &Aval,
    n: usize,
    forward: bool,
    x64: bool,
    span: Span,
) -> crate::Result<Jaxpr> {
    let in_aval = j.aval(j.invars[arg]).clone();
    let out_aval = j.atom_aval(&j.outvars[0]).clone();
    // Forward seeds the input and yields columns; reverse seeds the output
    // and yields rows.
    let (part, lead) = if forward {
        (&out_aval.shape, &in_aval.shape)
    } else {
        (&in_aval.shape, &out_aval.shape)
    };
    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = b.inputs_like(j);
    let mut parts = Vec::new();
    for k in 0..n {
        let basis = one_hot(&mut b, seed, k, n);
        let mut args = inputs.clone();
        args.push(basis);
        parts.push(b.inline(linear, &args)?.remove(0));
    }
    let jac = stack(&mut b, parts, part, lead, !forward, span)?;
    b.jaxpr.outvars = vec![jac];
    Ok(b.jaxpr)
}

/// `jax.hessian`: `jacfwd(grad(f))` (JAX's `jacfwd(jacrev(f))`: for a
/// scalar output, `jacrev` is the gradient).
pub fn hessian(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> crate::Result<Jaxpr> {
    let g = grad(j, arg, x64, span)?;
    jacfwd(&g, arg, x64, span)
}
