//! NumPy's shape manipulation composed of primitives as `jax.numpy`
//! composes it, written once over [`Lax`]: `repeat`, `tile`, `roll`,
//! `pad` (zeros), `outer`, `meshgrid`, `atleast_1d`/`2d`/`3d`,
//! `vstack`/`hstack`, `column_stack`.
//! A jitted body traces them; an eager call runs the same text.

use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{self, Res};
use crate::lax::Lax;
use crate::prims;

/// The sizes of `x`, each known when the function compiles.
fn sizes<L: Lax>(l: &L, x: &L::V) -> Res<L, Vec<usize>> {
    l.aval(x)
        .shape
        .iter()
        .enumerate()
        .map(|(k, d)| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => Err(l.expression_error(format!(
                "this function needs axis {k}'s size when the function compiles, not the symbolic {s}"
            ))),
        })
        .collect()
}

fn dims(shape: &[usize]) -> Vec<Dim> {
    shape.iter().map(|&n| Dim::Lit(n)).collect()
}

/// `jnp.repeat(x, repeats, axis)`: each element (axis `None`: of the
/// flattened array) repeated, as JAX: a broadcast along a new axis after
/// it, then a reshape.
pub fn repeat<L: Lax>(l: &mut L, x: L::V, repeats: usize, axis: Option<usize>) -> Res<L, L::V> {
    let (x, axis) = match axis {
        Some(k) => (x, k),
        None => {
            let size = sizes(l, &x)?.iter().product();
            (jnp::reshape(l, x, vec![Dim::Lit(size)])?, 0)
        }
    };
    let shape = sizes(l, &x)?;
    let mut wide = shape.clone();
    wide.insert(axis + 1, repeats);
    let kept: Vec<usize> = (0..wide.len()).filter(|&k| k != axis + 1).collect();
    let b = l.broadcast_in_dim(x, dims(&wide), kept)?;
    let mut out = shape;
    out[axis] *= repeats;
    jnp::reshape(l, b, dims(&out))
}

/// `jnp.tile(x, reps)`: JAX's `tile` primitive, after leading unit axes
/// when `reps` is longer than the rank (and leading unit reps when shorter).
pub fn tile<L: Lax>(l: &mut L, x: L::V, reps: &[usize]) -> Res<L, L::V> {
    let shape = sizes(l, &x)?;
    let mut reps = reps.to_vec();
    if reps.len() < shape.len() {
        let mut r = vec![1; shape.len() - reps.len()];
        r.extend(&reps);
        reps = r;
    }
    let x = if reps.len() > shape.len() {
        // `lax.expand_dims`: a broadcast_in_dim to leading unit axes.
        let lead = reps.len() - shape.len();
        let mut wide = vec![1; lead];
        wide.extend(&shape);
        let n = wide.len();
        l.broadcast_in_dim(x, dims(&wide), (lead..n).collect())?
    } else {
        x
    };
    l.tile(x, reps)
}

/// `jnp.roll(x, shift, axis)`: the last `shift` elements moved to the
/// front, as JAX: two slices and a concatenation.
pub fn roll<L: Lax>(l: &mut L, x: L::V, shift: i128, axis: usize) -> Res<L, L::V> {
    let shape = sizes(l, &x)?;
    let n = shape[axis];
    if n == 0 || shift.rem_euclid(n as i128) == 0 {
        return Ok(x);
    }
    let k = shift.rem_euclid(n as i128) as usize;
    // `lax.slice_in_dim`: explicit unit strides.
    let slice = |l: &mut L, x: L::V, start: usize, limit: usize| {
        let mut lo = vec![0; shape.len()];
        let mut hi = shape.clone();
        lo[axis] = start;
        hi[axis] = limit;
        l.slice(x, lo, hi, Some(vec![1; shape.len()]))
    };
    let tail = slice(l, x.clone(), n - k, n)?;
    let head = slice(l, x, 0, n - k)?;
    l.concatenate(vec![tail, head], axis)
}

/// `jnp.pad(x, ((lo, hi), ..))` with NumPy's default constant, zero.
pub fn pad<L: Lax>(l: &mut L, x: L::V, widths: &[(i64, i64)]) -> Res<L, L::V> {
    let a = l.aval(&x);
    if widths.len() != a.rank() {
        return Err(l.expression_error(format!(
            "`pad` of {a} takes one (before, after) pair per axis, got {}",
            widths.len()
        )));
    }
    let zero = l.literal(
        cast_scalar(Scalar::Int(0), a.dtype),
        Aval::scalar(a.dtype, false),
    );
    let config = widths.iter().map(|&(lo, hi)| (lo, hi, 0)).collect();
    // The widths are NumPy integers in JAX's jaxpr.
    let np_ints = (1u32 << widths.len()) - 1;
    l.pad(x, zero, config, np_ints)
}

/// `jnp.outer(a, b)`: `a[:, None] * b[None, :]` of two vectors.
pub fn outer<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    let (m, n) = (sizes(l, &x)?, sizes(l, &y)?);
    let x = l.broadcast_in_dim(x, dims(&[m[0], 1]), vec![0])?;
    let y = l.broadcast_in_dim(y, dims(&[1, n[0]]), vec![1])?;
    jnp::binary(l, &prims::MUL, x, y)
}

/// `jnp.meshgrid(x, y)` (`indexing='xy'`): `(X, Y)`, both
/// `len(y) x len(x)`.
pub fn meshgrid<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, (L::V, L::V)> {
    let shape = dims(&[sizes(l, &y)?[0], sizes(l, &x)?[0]]);
    // JAX broadcasts the second first.
    let yy = l.broadcast_in_dim(y, shape.clone(), vec![0])?;
    let xx = l.broadcast_in_dim(x, shape, vec![1])?;
    Ok((xx, yy))
}

/// `jnp.atleast_1d(x)`: a scalar as a one-element vector.
pub fn atleast_1d<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    if l.aval(&x).rank() == 0 {
        l.broadcast_in_dim(x, vec![Dim::Lit(1)], vec![])
    } else {
        Ok(x)
    }
}

/// `jnp.atleast_2d(x)` (`n` 2) and `jnp.atleast_3d(x)` (`n` 3), as JAX
/// lifts them: a scalar becomes `[1, 1]` (`[1, 1, 1]`), a vector `[1, n]`
/// (`[1, n, 1]`), a matrix `[m, n, 1]` for `atleast_3d`; higher ranks are
/// unchanged.
pub fn atleast_nd<L: Lax>(l: &mut L, x: L::V, n: usize) -> Res<L, L::V> {
    let shape = l.aval(&x).shape;
    let one = Dim::Lit(1);
    let (to, kept): (Vec<Dim>, Vec<usize>) = match (n, shape.as_slice()) {
        (2, []) => (vec![one.clone(), one], vec![]),
        (2, [d]) => (vec![one, d.clone()], vec![1]),
        (3, []) => (vec![one.clone(), one.clone(), one], vec![]),
        (3, [d]) => (vec![one.clone(), d.clone(), one], vec![1]),
        (3, [a, b]) => (vec![a.clone(), b.clone(), one], vec![0, 1]),
        _ => return Ok(x),
    };
    l.broadcast_in_dim(x, to, kept)
}

/// `jnp.column_stack(parts)`: scalars and vectors become columns
/// (`atleast_2d(x).T`), then everything is joined along axis 1 in the
/// promoted dtype.
pub fn column_stack<L: Lax>(l: &mut L, parts: Vec<L::V>) -> Res<L, L::V> {
    let mut columns = Vec::with_capacity(parts.len());
    for x in parts {
        columns.push(if l.aval(&x).rank() < 2 {
            let row = atleast_nd(l, x, 2)?;
            l.transpose(row, vec![1, 0])?
        } else {
            x
        });
    }
    let columns = jnp::promote(l, columns)?;
    l.concatenate(columns, 1)
}

/// `jnp.vstack(parts)` (`vertical`: rows, vectors becoming `1 x n`) and
/// `jnp.hstack(parts)` (along axis 1, or 0 for vectors).
pub fn stack_hv<L: Lax>(l: &mut L, parts: Vec<L::V>, vertical: bool) -> Res<L, L::V> {
    let mut lifted = Vec::with_capacity(parts.len());
    for x in parts {
        lifted.push(match (vertical, l.aval(&x).rank()) {
            (true, 0) => l.broadcast_in_dim(x, dims(&[1, 1]), vec![])?,
            (true, 1) => {
                let n = sizes(l, &x)?[0];
                l.broadcast_in_dim(x, dims(&[1, n]), vec![1])?
            }
            (false, 0) => atleast_1d(l, x)?,
            _ => x,
        });
    }
    let parts = jnp::promote(l, lifted)?;
    let dim = match (vertical, parts.first().map(|p| l.aval(p).rank())) {
        (false, Some(r)) if r > 1 => 1,
        _ => 0,
    };
    l.concatenate(parts, dim)
}
