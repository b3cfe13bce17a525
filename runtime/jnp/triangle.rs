//! Diagonals and triangles of matrices: `jnp.diag`, `diagonal`, `trace`,
//! `tril`, `triu`, with NumPy's offsets (`k > 0` above the main diagonal).
//! A result shape that depends on an offset is checked when the call runs.

use crate::array::{ArrayType, AsArray};
use crate::element::{Element, SumType};
use crate::ops::Arith;
use crate::shape;

/// The element type of an array argument.
use crate::array::ElemOf;

/// Keeps the elements whose last-two-axes position `(i, j)` satisfies `keep`,
/// zeroing the others (the mask `jnp.tril`/`triu` build from iotas).
#[track_caller]
fn mask_last_two<A: AsArray>(op: &str, x: A, keep: impl Fn(isize, isize) -> bool) -> A::Array {
    let dims = <A::Array as ArrayType>::SHAPE;
    assert!(
        dims.len() >= 2,
        "{op}: the input must have at least 2 dimensions"
    );
    let (rows, cols) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    let x = x.into_array();
    let data = x
        .data()
        .iter()
        .enumerate()
        .map(|(n, &v)| {
            let (i, j) = ((n / cols) % rows.max(1), n % cols);
            if keep(i as isize, j as isize) {
                v
            } else {
                ElemOf::<A>::ZERO
            }
        })
        .collect();
    A::Array::from_data(data).set_weak(x.is_weak())
}

/// The lower triangle: elements above the `k`-th diagonal set to zero, over
/// the last two axes (`jnp.tril(x, k)`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// assert_eq!(jnp::tril(&x, 0).to_vec(), [0, 0, 0, 3, 4, 0]);
/// assert_eq!(jnp::tril(&x, 1).to_vec(), [0, 1, 0, 3, 4, 5]);
/// ```
#[track_caller]
pub fn tril<A: AsArray>(x: A, k: isize) -> A::Array {
    mask_last_two("tril", x, |i, j| j <= i + k)
}

/// The upper triangle: elements below the `k`-th diagonal set to zero, over
/// the last two axes (`jnp.triu(x, k)`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// assert_eq!(jnp::triu(&x, 0).to_vec(), [0, 1, 2, 0, 4, 5]);
/// assert_eq!(jnp::triu(&x, -1).to_vec(), [0, 1, 2, 3, 4, 5]);
/// ```
#[track_caller]
pub fn triu<A: AsArray>(x: A, k: isize) -> A::Array {
    mask_last_two("triu", x, |i, j| j >= i + k)
}

/// The shape and gathered elements of `diagonal(x, offset, axis1, axis2)`:
/// the other axes in order, then the diagonal.
fn diagonal_data<T: Element>(
    op: &str,
    data: &[T],
    dims: &[usize],
    offset: isize,
    axis1: isize,
    axis2: isize,
) -> (Vec<usize>, Vec<T>) {
    let rank = dims.len();
    assert!(rank >= 2, "{op}: the input must have at least 2 dimensions");
    let (a1, a2) = (
        shape::normalize_axis(op, axis1, rank),
        shape::normalize_axis(op, axis2, rank),
    );
    assert!(a1 != a2, "{op}: axis1 and axis2 must differ");
    let (n, m) = (dims[a1] as isize, dims[a2] as isize);
    // Element t of the diagonal is at (t + row0, t + col0).
    let (row0, col0) = if offset >= 0 {
        (0, offset)
    } else {
        (-offset, 0)
    };
    let len = (n - row0).min(m - col0).max(0) as usize;
    let rest: Vec<usize> = (0..rank).filter(|&a| a != a1 && a != a2).collect();
    let strides = shape::strides(dims);
    let outer: usize = rest.iter().map(|&a| dims[a]).product();
    let mut out = Vec::with_capacity(outer * len);
    for o in 0..outer {
        // The position along the other axes, row-major.
        let mut base = 0;
        let mut r = o;
        for &a in rest.iter().rev() {
            base += (r % dims[a]) * strides[a];
            r /= dims[a];
        }
        for t in 0..len {
            let (i, j) = (t + row0 as usize, t + col0 as usize);
            out.push(data[base + i * strides[a1] + j * strides[a2]]);
        }
    }
    let mut out_shape: Vec<usize> = rest.iter().map(|&a| dims[a]).collect();
    out_shape.push(len);
    (out_shape, out)
}

/// The `offset`-th diagonal over `axis1` and `axis2`, as the last axis after
/// the others (`jnp.diagonal(x, offset, axis1, axis2)`). The result type is
/// checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 3, 3> = Array::arange();
/// let d: Array<f32, 3> = jnp::diagonal(&x, 0, 0, 1);
/// assert_eq!(d.to_vec(), [0.0, 4.0, 8.0]);
/// let d: Array<f32, 2> = jnp::diagonal(&x, -1, 0, 1);
/// assert_eq!(d.to_vec(), [3.0, 7.0]);
/// ```
#[track_caller]
pub fn diagonal<Out, A>(x: A, offset: isize, axis1: isize, axis2: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let x = x.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (s, data) = diagonal_data("diagonal", x.data(), dims, offset, axis1, axis2);
    shape::check_result::<Out>("diagonal", <Out::Elem as Element>::DTYPE, &s);
    Out::from_data(data).set_weak(x.is_weak())
}

/// The sum of the `offset`-th diagonal over `axis1` and `axis2`
/// (`jnp.trace(x, offset, axis1, axis2)`) in [`SumType`]'s dtype, as
/// `jnp.sum`; the other axes remain. The result type is checked when the
/// call runs.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 3, 3> = Array::arange();
/// let t: Array<DefaultInt> = jnp::trace(&x, 0, 0, 1); // i64 under x64, as JAX
/// assert_eq!(t.item(), 12);
/// let t: Array<DefaultInt> = jnp::trace(&x, 1, 0, 1);
/// assert_eq!(t.item(), 6);
/// ```
#[track_caller]
pub fn trace<Out, A>(x: A, offset: isize, axis1: isize, axis2: isize) -> Out
where
    A: AsArray,
    ElemOf<A>: SumType,
    <ElemOf<A> as SumType>::Out: Arith,
    Out: ArrayType<Elem = <ElemOf<A> as SumType>::Out>,
{
    let x = x.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (mut s, data) = diagonal_data("trace", x.data(), dims, offset, axis1, axis2);
    let len = s.pop().unwrap_or(0);
    // Accumulated in `jnp.sum`'s type (small ints in the default int).
    let sums: Vec<Out::Elem> = if len == 0 {
        vec![Out::Elem::ZERO; s.iter().product()]
    } else {
        data.chunks(len)
            .map(|c| {
                c.iter()
                    .fold(Out::Elem::ZERO, |acc, &v| Arith::add(acc, v.cast()))
            })
            .collect()
    };
    shape::check_result::<Out>("trace", <Out::Elem as Element>::DTYPE, &s);
    Out::from_data(sums).set_weak(x.is_weak())
}

/// `jnp.diag(x, k)`: of a vector, the square matrix with `x` on its `k`-th
/// diagonal; of a matrix, its `k`-th diagonal. The result type is checked
/// when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let m: Array<i32, 3, 3> = jnp::diag(Array::<i32, 2>::from([1, 2]), 1);
/// assert_eq!(m.to_vec(), [0, 1, 0, 0, 0, 2, 0, 0, 0]);
/// let d: Array<i32, 2> = jnp::diag(&m, 1);
/// assert_eq!(d.to_vec(), [1, 2]);
/// ```
#[track_caller]
pub fn diag<Out, A>(x: A, k: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let dims = <A::Array as ArrayType>::SHAPE;
    match dims.len() {
        1 => {
            let x = x.into_array();
            let n = dims[0] + k.unsigned_abs();
            let mut data = vec![ElemOf::<A>::ZERO; n * n];
            let (row0, col0) = if k >= 0 {
                (0, k as usize)
            } else {
                (k.unsigned_abs(), 0)
            };
            for (t, &v) in x.data().iter().enumerate() {
                data[(t + row0) * n + t + col0] = v;
            }
            shape::check_result::<Out>("diag", <Out::Elem as Element>::DTYPE, &[n, n]);
            Out::from_data(data).set_weak(x.is_weak())
        }
        2 => diagonal(x, k, 0, 1),
        r => panic!("diag: the input must be 1-D or 2-D, not {r}-D"),
    }
}
