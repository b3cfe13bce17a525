//! `roll`, `vstack`, `hstack`, `atleast_1d`, `meshgrid` and `pad`, as NumPy and
//! JAX define them: each the one text of `jax_core::manip` (which jitted
//! bodies trace) run eagerly.

use crate::array::{Array, ArrayType, AsArray, NONE};
use crate::eager;
use crate::element::Element;
use crate::jnp::ArrayList;
use crate::shape;

/// The element type of an array argument.
use crate::array::ElemOf;

/// Rolls the elements along `axis` by `shift` (`jnp.roll(x, shift, axis)`):
/// element `i` moves to `(i + shift) mod n`; a negative shift rolls the
/// other way.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 2, 3>::from([[0, 1, 2], [3, 4, 5]]);
/// let y = jnp::roll(&x, 1, 1);
/// assert_eq!(y.to_vec(), [2, 0, 1, 5, 3, 4]);
/// ```
#[track_caller]
pub fn roll<A: AsArray>(x: A, shift: isize, axis: isize) -> A::Array {
    let ax = shape::normalize_axis("roll", axis, <A::Array as ArrayType>::SHAPE.len());
    let r = eager::call(|l| jax_core::manip::roll(l, eager::arg(x), shift as i128, ax));
    eager::typed("roll", r)
}

/// Stacks arrays as rows (`jnp.vstack`): vectors of length `n` become
/// `1 x n` rows, then everything is joined along axis 0. The result type is
/// the caller's and is checked.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
/// let b = Array::<f32, 3>::from([4.0, 5.0, 6.0]);
/// let m: Array<f32, 2, 3> = jnp::vstack((&a, &b));
/// assert_eq!(m.to_vec(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// ```
#[track_caller]
pub fn vstack<Out, L>(arrays: L) -> Out
where
    L: ArrayList,
    Out: ArrayType<Elem = L::Elem>,
{
    join("vstack", arrays, true)
}

/// Stacks arrays side by side (`jnp.hstack`): along axis 1, or along axis 0
/// for vectors (scalars become one-element vectors). The result type is the
/// caller's and is checked.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 2>::from([1, 2]);
/// let b = Array::<i32, 3>::from([3, 4, 5]);
/// let v: Array<i32, 5> = jnp::hstack((&a, &b));
/// assert_eq!(v.to_vec(), [1, 2, 3, 4, 5]);
/// ```
#[track_caller]
pub fn hstack<Out, L>(arrays: L) -> Out
where
    L: ArrayList,
    Out: ArrayType<Elem = L::Elem>,
{
    join("hstack", arrays, false)
}

#[track_caller]
fn join<Out, L>(op: &str, arrays: L, vertical: bool) -> Out
where
    L: ArrayList,
    Out: ArrayType<Elem = L::Elem>,
{
    let parts = arrays.parts();
    assert!(!parts.is_empty(), "{op}: need at least one array");
    let r = eager::call(|l| {
        let parts = parts
            .iter()
            .map(|p| eager::slice_arg(p.0, p.1, p.2))
            .collect();
        if op == "column_stack" {
            jax_core::manip::column_stack(l, parts)
        } else {
            jax_core::manip::stack_hv(l, parts, vertical)
        }
    });
    eager::typed(op, r)
}

/// Stacks scalars and vectors as columns (`jnp.column_stack`): each becomes
/// an `n x 1` column, then everything is joined along axis 1. The result
/// type is the caller's and is checked.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
/// let b = Array::<f32, 3>::from([4.0, 5.0, 6.0]);
/// let m: Array<f32, 3, 2> = jnp::column_stack((&a, &b));
/// assert_eq!(m.to_vec(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
/// ```
#[track_caller]
pub fn column_stack<Out, L>(arrays: L) -> Out
where
    L: ArrayList,
    Out: ArrayType<Elem = L::Elem>,
{
    join("column_stack", arrays, false)
}

/// The array with at least two axes (`jnp.atleast_2d`): a scalar becomes
/// `[1, 1]`, a vector of `n` a `1 x n` row; other arrays are unchanged. The
/// result type is the caller's and is checked.
///
/// ```
/// use jax::prelude::*;
/// let v = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
/// let m: Array<f32, 1, 3> = jnp::atleast_2d(&v);
/// assert_eq!(m.to_vec(), [1.0, 2.0, 3.0]);
/// ```
#[track_caller]
pub fn atleast_2d<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let r = eager::call(|l| jax_core::manip::atleast_nd(l, eager::arg(x), 2));
    eager::typed("atleast_2d", r)
}

/// The array with at least three axes (`jnp.atleast_3d`): a scalar becomes
/// `[1, 1, 1]`, a vector of `n` `[1, n, 1]`, an `m x n` matrix `[m, n, 1]`;
/// other arrays are unchanged. The result type is the caller's and is
/// checked.
///
/// ```
/// use jax::prelude::*;
/// let v = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
/// let t: Array<f32, 1, 3, 1> = jnp::atleast_3d(&v);
/// assert_eq!(t.to_vec(), [1.0, 2.0, 3.0]);
/// ```
#[track_caller]
pub fn atleast_3d<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let r = eager::call(|l| jax_core::manip::atleast_nd(l, eager::arg(x), 3));
    eager::typed("atleast_3d", r)
}

/// The array with at least one axis (`jnp.atleast_1d`): a scalar becomes a
/// one-element vector, other arrays are unchanged. The result type is the
/// caller's and is checked.
///
/// ```
/// use jax::prelude::*;
/// let s = Array::<f32>::from(2.5);
/// let v: Array<f32, 1> = jnp::atleast_1d(&s);
/// assert_eq!(v.to_vec(), [2.5]);
/// ```
#[track_caller]
pub fn atleast_1d<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let r = eager::call(|l| jax_core::manip::atleast_1d(l, eager::arg(x)));
    eager::typed("atleast_1d", r)
}

/// Coordinate grids of two vectors (`jnp.meshgrid(x, y)`, NumPy's default
/// `indexing='xy'`): `(X, Y)`, both `len(y) x len(x)`, `X[i, j] = x[j]`
/// and `Y[i, j] = y[i]`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 3>::from([1, 2, 3]);
/// let y = Array::<i32, 2>::from([10, 20]);
/// let (gx, gy) = jnp::meshgrid(&x, &y);
/// assert_eq!(gx.to_vec(), [1, 2, 3, 1, 2, 3]);
/// assert_eq!(gy.to_vec(), [10, 10, 10, 20, 20, 20]);
/// ```
pub fn meshgrid<T: Element, const M: usize, const N: usize>(
    x: impl AsArray<Array = Array<T, M>>,
    y: impl AsArray<Array = Array<T, N>>,
) -> (Array<T, N, M>, Array<T, N, M>) {
    const {
        if M == NONE || N == NONE {
            panic!("meshgrid: operands must be 1-D");
        }
    }
    let (xx, yy) = eager::call(|l| jax_core::manip::meshgrid(l, eager::arg(x), eager::arg(y)));
    (eager::typed("meshgrid", xx), eager::typed("meshgrid", yy))
}

/// Pads with zeros (`jnp.pad(x, pad_width)`, NumPy's default constant
/// mode): `pad_width[k] = (before, after)` elements on axis `k`. The result
/// type is the caller's and is checked.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 2>::from([1, 2]);
/// let y: Array<i32, 5> = jnp::pad(&x, &[(1, 2)]);
/// assert_eq!(y.to_vec(), [0, 1, 2, 0, 0]);
/// ```
#[track_caller]
pub fn pad<Out, A>(x: A, pad_width: &[(usize, usize)]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let widths: Vec<(i64, i64)> = pad_width
        .iter()
        .map(|&(lo, hi)| (lo as i64, hi as i64))
        .collect();
    let r = eager::call(|l| jax_core::manip::pad(l, eager::arg(x), &widths));
    eager::typed("pad", r)
}

/// The identity matrix of the result type (`jnp.eye`): ones where the row
/// and column indices are equal.
///
/// ```
/// use jax::prelude::*;
/// let i: Array<f32, 2, 3> = jnp::eye();
/// assert_eq!(i.to_vec(), [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
/// ```
pub fn eye<Out: ArrayType>() -> Out {
    const {
        if Out::SHAPE.len() != 2 {
            panic!("eye: the result type must be a matrix");
        }
    }
    let cols = Out::SHAPE[1];
    Out::from_data(
        (0..Out::SIZE)
            .map(|i| {
                let v = (i / cols == i % cols) as i128;
                <Out::Elem as Element>::from_value(crate::element::Value::Int(v))
            })
            .collect(),
    )
}

/// Evenly spaced values from `start` to `stop`, both included, as many as
/// the result type holds (`jnp.linspace(start, stop, num)`), computed as
/// JAX does in the element type: `start * (1 - s) + stop * s` with
/// `s = i * (1 / (num - 1))`, and `stop` itself last.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 5> = jnp::linspace(0.0, 1.0);
/// assert_eq!(x.to_vec(), [0.0, 0.25, 0.5, 0.75, 1.0]);
/// ```
pub fn linspace<Out: ArrayType>(start: Out::Elem, stop: Out::Elem) -> Out
where
    Out::Elem: crate::element::Float,
{
    const {
        if Out::SHAPE.len() != 1 {
            panic!("linspace: the result type must be a vector");
        }
    }
    let n = Out::SIZE;
    // Each operation rounded to the element type, as XLA computes it.
    let r = |v: f64| <Out::Elem as Element>::from_f64(v).to_f64();
    let (a, b) = (start.to_f64(), stop.to_f64());
    let div = n.saturating_sub(1) as f64;
    let data = (0..n)
        .map(|i| {
            if i + 1 == n && n > 1 {
                return stop;
            }
            if n == 1 {
                return start;
            }
            // XLA divides by a constant as a product with its reciprocal.
            let s = r(i as f64 * r(1.0 / div));
            let v = r(r(a * r(1.0 - s)) + r(b * s));
            <Out::Elem as Element>::from_f64(v)
        })
        .collect();
    Out::from_data(data)
}
