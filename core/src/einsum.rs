//! `jnp.einsum` written once over [`Lax`]: the plan (`jax_dtypes::einsum`,
//! opt_einsum's greedy order as JAX's) run as JAX runs it: per contraction,
//! each operand's squeezes, sums and diagonals (`lax._delta` masks), one
//! `dot_general`, and a transpose. A jitted body traces it; an eager call
//! runs it on the `dot_general` gemm.

use jax_dtypes::einsum::{plan, Plan, Step};
use jax_dtypes::DType;

use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{self, raise, rejected, Fault, Rejected, Res};
use crate::lax::Lax;
use crate::prims;

/// The plan of `subscripts` (argument 0) over operands of `avals`
/// (argument 1), and their result type: JAX's errors for bad subscripts,
/// bool operands, or sizes not known when the function compiles.
pub fn einsum_plan(
    subscripts: &str,
    avals: &[Aval],
    x64: bool,
) -> Result<(Plan, DType, bool), Rejected> {
    let mut shapes = Vec::new();
    for a in avals {
        let shape: Option<Vec<usize>> = a
            .shape
            .iter()
            .map(|d| match d {
                Dim::Lit(n) => Some(*n),
                Dim::Sym(_) => None,
            })
            .collect();
        let Some(shape) = shape else {
            return rejected(
                Fault::Arg(1),
                format!("einsum of {a}: symbolic dimensions are not supported yet; use arrays of known sizes"),
            );
        };
        shapes.push(shape);
    }
    let p = plan(subscripts, &shapes).map_err(|msg| Rejected {
        what: Fault::Arg(0),
        msg,
    })?;
    // jnp.einsum's preferred element type: the operands' result type.
    let kinds: Vec<(DType, bool)> = avals.iter().map(|a| (a.dtype, a.weak)).collect();
    let (dtype, weak) = jax_dtypes::result_type(&kinds, x64);
    if dtype == DType::Bool {
        return rejected(
            Fault::Arg(1),
            "einsum of bool arrays is not supported yet; convert them with `.astype::<i32>()`"
                .into(),
        );
    }
    Ok((p, dtype, weak))
}

/// `jnp.einsum(subscripts, *operands)`.
pub fn einsum<L: Lax>(l: &mut L, subscripts: &str, operands: Vec<L::V>) -> Res<L, L::V> {
    let avals: Vec<Aval> = operands.iter().map(|x| l.aval(x)).collect();
    let (plan, dtype, weak) = raise(l, einsum_plan(subscripts, &avals, l.x64()))?;
    // Mixed dtypes are converted up front (JAX's dot_general takes them
    // mixed; this library's needs one dtype).
    let mut ops = Vec::with_capacity(operands.len());
    for (x, a) in operands.into_iter().zip(&avals) {
        ops.push(if a.dtype != dtype {
            jnp::convert(l, x, dtype, false)?
        } else {
            x
        });
    }
    for c in &plan.contractions {
        let mut taken: Vec<L::V> = c.operands.iter().map(|&p| ops.remove(p)).collect();
        for (x, steps) in taken.iter_mut().zip(&c.prepare) {
            for s in steps {
                *x = step(l, x.clone(), s, dtype)?;
            }
        }
        let mut out = match (&c.dot, taken.as_slice()) {
            (None, [x]) => x.clone(),
            (Some(d), [a, b]) => {
                let (lhs, rhs) = if d.swap {
                    (b.clone(), a.clone())
                } else {
                    (a.clone(), b.clone())
                };
                l.dot_general(
                    lhs,
                    rhs,
                    (d.lhs_contract.clone(), d.rhs_contract.clone()),
                    (d.lhs_batch.clone(), d.rhs_batch.clone()),
                    dtype,
                )?
            }
            _ => {
                return Err(
                    l.expression_error("internal error: an einsum step of the wrong arity".into())
                )
            }
        };
        if let Some(perm) = &c.transpose {
            out = l.transpose(out, perm.clone())?;
        }
        ops.push(out);
    }
    let out = ops.pop().expect("einsum leaves one operand");
    jnp::convert(l, out, dtype, weak)
}

/// One operand's preparation: a squeeze, a sum, or a diagonal.
fn step<L: Lax>(l: &mut L, x: L::V, s: &Step, dtype: DType) -> Res<L, L::V> {
    match s {
        Step::Squeeze(dims) => l.squeeze(x, dims.clone()),
        Step::Sum(axes) => l.reduce(&prims::REDUCE_SUM, x, axes.clone()),
        Step::Diagonal { axes, sum } => {
            let a = l.aval(&x);
            let mask = delta(l, &a.shape, axes)?;
            let zero = l.literal(
                cast_scalar(Scalar::Int(0), dtype),
                Aval::scalar(dtype, false),
            );
            let zeros = jnp::broadcast_to(l, zero, a.shape.clone())?;
            let kept = l.select_n(mask, vec![zeros, x])?;
            l.reduce(&prims::REDUCE_SUM, kept, sum.clone())
        }
    }
}

/// JAX's `lax._delta(bool, shape, axes)`: true where the indices along
/// `axes` are all equal (an `iota` per axis, compared pairwise).
fn delta<L: Lax>(l: &mut L, shape: &[Dim], axes: &[usize]) -> Res<L, L::V> {
    let base: Vec<Dim> = axes.iter().map(|&a| shape[a].clone()).collect();
    let iotas = (0..base.len())
        .map(|dimension| l.iota(DType::U32, base.clone(), dimension))
        .collect::<Result<Vec<_>, _>>()?;
    let eyes = iotas
        .windows(2)
        .map(|w| l.apply(&prims::EQ, w.to_vec()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut mask = eyes[0].clone();
    for e in &eyes[1..] {
        mask = l.binary(&prims::AND, mask, e.clone())?;
    }
    if base == shape && axes.iter().copied().eq(0..shape.len()) {
        return Ok(mask);
    }
    l.broadcast_in_dim(mask, shape.to_vec(), axes.to_vec())
}
