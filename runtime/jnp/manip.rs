//! Shape manipulation: reshape, transpose, broadcast_to, expand_dims,
//! squeeze, concatenate, stack, flip, ravel, moveaxis/swapaxes, tile, repeat.
//!
//! Where the result shape follows from the types alone (reshape, transpose,
//! broadcast_to, squeeze, ravel) the caller's result type is checked when the
//! crate compiles; where it depends on an argument value (an axis) it is
//! checked when the operation runs, with both types in the message.

use crate::array::{impl_array, Array, ArrayType, AsArray};
use crate::element::Element;
use crate::lax::permute;
use crate::shape;
use crate::shape::finish;

/// The element type of an array argument.
use crate::array::ElemOf;

mod checks;
mod join;

pub(crate) use crate::shape::ConstMsg;
use checks::{broadcasts_to, is_reversal, is_squeeze, size_of};
pub use join::*;

fn normalize_perm(op: &str, axes: &[isize], rank: usize) -> Vec<usize> {
    assert!(
        axes.len() == rank,
        "{op}: axes {axes:?} do not match an array of dimension {rank}"
    );
    let perm: Vec<usize> = axes
        .iter()
        .map(|&a| shape::normalize_axis(op, a, rank))
        .collect();
    let mut seen = vec![false; rank];
    for &p in &perm {
        assert!(!seen[p], "{op}: repeated axis in {axes:?}");
        seen[p] = true;
    }
    perm
}

/// The same elements with another shape of the same size (`jnp.reshape`).
/// The sizes are checked when the crate compiles.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 2, 3> = Array::arange();
/// let y: Array<f32, 3, 2> = jnp::reshape(&x);
/// assert_eq!(y.to_vec(), x.to_vec());
/// ```
///
/// A size mismatch does not compile (`reshape: cannot reshape f32[2,3] into f32[5]`):
///
/// ```compile_fail
/// use jax::prelude::*;
/// let x: Array<f32, 2, 3> = Array::arange();
/// let y: Array<f32, 5> = jnp::reshape(&x);
/// ```
pub fn reshape<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    crate::lax::reshape(x)
}

/// Reverses the order of the axes (`jnp.transpose` without `axes`); the
/// result type is checked when the crate compiles. For matrices,
/// [`Array::t`] gives the type directly.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// let y: Array<i32, 3, 2> = jnp::transpose(&x);
/// assert_eq!(y.to_vec(), [0, 3, 1, 4, 2, 5]);
/// ```
pub fn transpose<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    const {
        let (src, dst) = (<A::Array as ArrayType>::SHAPE, Out::SHAPE);
        if !is_reversal(src, dst) {
            let d = <ElemOf<A> as Element>::DTYPE;
            let m = ConstMsg::new()
                .str("transpose: the transpose of ")
                .ty(d, src);
            let m = m.str(" is not ").ty(d, dst);
            panic!("{}", m.as_str());
        }
    }
    let x = x.as_array();
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let perm: Vec<usize> = (0..rank).rev().collect();
    Out::from_data(permute(x.data(), <A::Array as ArrayType>::SHAPE, &perm)).set_weak(x.is_weak())
}

/// Permutes the axes: result axis `k` is input axis `axes[k]` (negative
/// counts from the end), as `jnp.transpose(x, axes)`.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 1, 2, 3> = Array::arange();
/// let y: Array<i32, 3, 1, 2> = jnp::transpose_axes(&x, &[2, 0, 1]);
/// assert_eq!(y.to_vec(), [0, 3, 1, 4, 2, 5]);
/// ```
#[track_caller]
pub fn transpose_axes<Out, A>(x: A, axes: &[isize]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let perm = normalize_perm("transpose", axes, <A::Array as ArrayType>::SHAPE.len());
    crate::lax::transpose(x, &perm)
}

/// Moves axis `source` to position `destination`, the others keeping their
/// order (`jnp.moveaxis`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 2, 3, 4> = Array::zeros();
/// let y: Array<f32, 3, 4, 2> = jnp::moveaxis(&x, 0, -1);
/// assert_eq!(y.shape(), &[3, 4, 2]);
/// ```
#[track_caller]
pub fn moveaxis<Out, A>(x: A, source: isize, destination: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let s = shape::normalize_axis("moveaxis", source, rank);
    let d = shape::normalize_axis("moveaxis", destination, rank);
    let mut perm: Vec<isize> = (0..rank as isize).filter(|&k| k != s as isize).collect();
    perm.insert(d, s as isize);
    transpose_axes(x, &perm)
}

/// Exchanges two axes (`jnp.swapaxes`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// let y: Array<i32, 3, 2> = jnp::swapaxes(&x, 0, 1);
/// assert_eq!(y.to_vec(), [0, 3, 1, 4, 2, 5]);
/// ```
#[track_caller]
pub fn swapaxes<Out, A>(x: A, axis1: isize, axis2: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let a = shape::normalize_axis("swapaxes", axis1, rank);
    let b = shape::normalize_axis("swapaxes", axis2, rank);
    let mut perm: Vec<isize> = (0..rank as isize).collect();
    perm.swap(a, b);
    transpose_axes(x, &perm)
}

/// Broadcasts to the result type's shape with NumPy's rules
/// (`jnp.broadcast_to`), checked when the crate compiles.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 3>::from([1, 2, 3]);
/// let y: Array<i32, 2, 3> = jnp::broadcast_to(&x);
/// assert_eq!(y.to_vec(), [1, 2, 3, 1, 2, 3]);
/// ```
///
/// Incompatible shapes do not compile (`broadcast_to: cannot broadcast i32[3] to i32[3,2]`):
///
/// ```compile_fail
/// use jax::prelude::*;
/// let x = Array::<i32, 3>::from([1, 2, 3]);
/// let y: Array<i32, 3, 2> = jnp::broadcast_to(&x);
/// ```
pub fn broadcast_to<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    const {
        let (src, dst) = (<A::Array as ArrayType>::SHAPE, Out::SHAPE);
        if !broadcasts_to(src, dst) {
            let d = <ElemOf<A> as Element>::DTYPE;
            let m = ConstMsg::new()
                .str("broadcast_to: cannot broadcast ")
                .ty(d, src);
            let m = m.str(" to ").ty(d, dst);
            panic!("{}", m.as_str());
        }
    }
    let x = x.as_array();
    let idx = shape::broadcast_indices(<A::Array as ArrayType>::SHAPE, Out::SHAPE);
    let data = x.data();
    Out::from_data(idx.iter().map(|&i| data[i]).collect()).set_weak(x.is_weak())
}

/// Inserts an axis of length 1 at position `axis` of the result (negative
/// counts from the end of the result), as `jnp.expand_dims`.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 3> = Array::arange();
/// let y: Array<f32, 3, 1> = jnp::expand_dims(&x, -1);
/// assert_eq!(y.to_vec(), x.to_vec());
/// ```
#[track_caller]
pub fn expand_dims<Out, A>(x: A, axis: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let a = shape::normalize_axis("expand_dims", axis, src.len() + 1);
    let mut out = src.to_vec();
    out.insert(a, 1);
    let x = x.as_array();
    finish("expand_dims", &out, x.data().to_vec(), x.is_weak())
}

/// Removes every axis of length 1 (`jnp.squeeze`), checked when the crate compiles.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 1, 3, 1> = Array::arange();
/// let y: Array<f32, 3> = jnp::squeeze(&x);
/// assert_eq!(y.to_vec(), [0.0, 1.0, 2.0]);
/// ```
pub fn squeeze<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    const {
        let (src, dst) = (<A::Array as ArrayType>::SHAPE, Out::SHAPE);
        if !is_squeeze(src, dst) {
            let d = <ElemOf<A> as Element>::DTYPE;
            let m = ConstMsg::new().str("squeeze: squeezing ").ty(d, src);
            let m = m.str(" does not give ").ty(d, dst);
            panic!("{}", m.as_str());
        }
    }
    let x = x.as_array();
    Out::from_data(x.data().to_vec()).set_weak(x.is_weak())
}

/// Removes one axis, which must have length 1 (`jnp.squeeze(x, axis)`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 1, 3, 1> = Array::arange();
/// let y: Array<f32, 1, 3> = jnp::squeeze_axis(&x, -1);
/// assert_eq!(y.shape(), &[1, 3]);
/// ```
#[track_caller]
pub fn squeeze_axis<Out, A>(x: A, axis: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let a = shape::normalize_axis("squeeze", axis, src.len());
    assert!(
        src[a] == 1,
        "squeeze: cannot select an axis to squeeze out which has size not equal to one, got shape={src:?} and dimensions=({axis},)"
    );
    let mut out = src.to_vec();
    out.remove(a);
    let x = x.as_array();
    finish("squeeze", &out, x.data().to_vec(), x.is_weak())
}

/// The elements as a 1-D array (`jnp.ravel`), the size checked when the crate compiles.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 2, 2> = Array::arange();
/// let y: Array<f32, 4> = jnp::ravel(&x);
/// assert_eq!(y.to_vec(), [0.0, 1.0, 2.0, 3.0]);
/// ```
pub fn ravel<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    const {
        let (src, dst) = (<A::Array as ArrayType>::SHAPE, Out::SHAPE);
        if dst.len() != 1 || dst[0] != size_of(src) {
            let d = <ElemOf<A> as Element>::DTYPE;
            let m = ConstMsg::new()
                .str("ravel: ")
                .ty(d, src)
                .str(" flattens to ");
            let m = m.ty(d, &[size_of(src)]).str(", not ").ty(d, dst);
            panic!("{}", m.as_str());
        }
    }
    let x = x.into_array();
    Out::from_data(x.data().to_vec()).set_weak(x.is_weak())
}

/// Reverses the order of elements along `axis` (`jnp.flip(x, axis)`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// assert_eq!(jnp::flip(&x, 1).to_vec(), [2, 1, 0, 5, 4, 3]);
/// ```
pub fn flip<A: AsArray>(x: A, axis: isize) -> A::Array {
    let a = shape::normalize_axis("flip", axis, <A::Array as ArrayType>::SHAPE.len());
    crate::lax::flip_axis(x.as_array(), a)
}

/// Reverses the order of elements along every axis (`jnp.flip(x)`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 2> = Array::arange();
/// assert_eq!(jnp::flip_all(&x).to_vec(), [3, 2, 1, 0]);
/// ```
pub fn flip_all<A: AsArray>(x: A) -> A::Array {
    let x = x.as_array();
    let data: Vec<_> = x.data().iter().rev().copied().collect();
    <A::Array as ArrayType>::from_data(data).set_weak(x.is_weak())
}

impl_array! {
    impl<T: Element> Array<T, ..> {
        /// [`jnp::reshape`](reshape) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 6> = Array::arange();
        /// let y: Array<f32, 2, 3> = x.reshape();
        /// assert_eq!(y.shape(), &[2, 3]);
        /// ```
        pub fn reshape<Out: ArrayType<Elem = T>>(&self) -> Out {
            reshape(self)
        }

        /// Reverses the order of the axes: [`jnp::transpose`](transpose) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<i32, 1, 2, 3> = Array::arange();
        /// let y: Array<i32, 3, 2, 1> = x.transpose();
        /// assert_eq!(y.to_vec(), [0, 3, 1, 4, 2, 5]);
        /// ```
        pub fn transpose<Out: ArrayType<Elem = T>>(&self) -> Out {
            transpose(self)
        }

        /// Broadcasts to the result type's shape: [`jnp::broadcast_to`](broadcast_to) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<i32, 2, 1>::from([[1], [2]]);
        /// let y: Array<i32, 2, 3> = x.broadcast_to();
        /// assert_eq!(y.to_vec(), [1, 1, 1, 2, 2, 2]);
        /// ```
        pub fn broadcast_to<Out: ArrayType<Elem = T>>(&self) -> Out {
            broadcast_to(self)
        }

        /// Inserts an axis of length 1 at `axis`: [`jnp::expand_dims`](expand_dims) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 3> = Array::arange();
        /// let y: Array<f32, 1, 3> = x.expand_dims(0);
        /// assert_eq!(y.shape(), &[1, 3]);
        /// ```
        #[track_caller]
        pub fn expand_dims<Out: ArrayType<Elem = T>>(&self, axis: isize) -> Out {
            expand_dims(self, axis)
        }

        /// Removes every axis of length 1: [`jnp::squeeze`](squeeze) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 1, 3, 1> = Array::arange();
        /// let y: Array<f32, 3> = x.squeeze();
        /// assert_eq!(y.to_vec(), [0.0, 1.0, 2.0]);
        /// ```
        pub fn squeeze<Out: ArrayType<Elem = T>>(&self) -> Out {
            squeeze(self)
        }

        /// Reverses the elements along `axis`: [`jnp::flip`](flip) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<i32, 2, 2> = Array::arange();
        /// assert_eq!(x.flip(0).to_vec(), [2, 3, 0, 1]);
        /// ```
        pub fn flip(&self, axis: isize) -> Self {
            flip(self, axis)
        }

        /// Reverses the elements along every axis: [`jnp::flip_all`](flip_all) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<i32, 2, 2> = Array::arange();
        /// assert_eq!(x.flip_all().to_vec(), [3, 2, 1, 0]);
        /// ```
        pub fn flip_all(&self) -> Self {
            flip_all(self)
        }

        /// The elements as a 1-D array: [`jnp::ravel`](ravel) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
        /// let y: Array<i32, 4> = x.ravel();
        /// assert_eq!(y.to_vec(), [1, 2, 3, 4]);
        /// ```
        pub fn ravel<Out: ArrayType<Elem = T>>(&self) -> Out {
            ravel(self)
        }

        /// The same as [`ravel`](Array::ravel), as NumPy's `flatten`.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 2, 2> = Array::arange();
        /// let y: Array<f32, 4> = x.flatten();
        /// assert_eq!(y.to_vec(), x.to_vec());
        /// ```
        pub fn flatten<Out: ArrayType<Elem = T>>(&self) -> Out {
            ravel(self)
        }

        /// Exchanges two axes: [`jnp::swapaxes`](swapaxes) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<i32, 2, 3> = Array::arange();
        /// let y: Array<i32, 3, 2> = x.swapaxes(0, -1);
        /// assert_eq!(y.to_vec(), [0, 3, 1, 4, 2, 5]);
        /// ```
        #[track_caller]
        pub fn swapaxes<Out: ArrayType<Elem = T>>(&self, axis1: isize, axis2: isize) -> Out {
            swapaxes(self, axis1, axis2)
        }

        /// Moves axis `source` to `destination`: [`jnp::moveaxis`](moveaxis) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 2, 3, 4> = Array::zeros();
        /// let y: Array<f32, 4, 2, 3> = x.moveaxis(-1, 0);
        /// assert_eq!(y.shape(), &[4, 2, 3]);
        /// ```
        #[track_caller]
        pub fn moveaxis<Out: ArrayType<Elem = T>>(&self, source: isize, destination: isize) -> Out {
            moveaxis(self, source, destination)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_3d() {
        let x: Vec<i32> = (0..24).collect();
        // (2,3,4) -> axes (1,2,0): element [i,j,k] moves to [j,k,i].
        let y = permute(&x, &[2, 3, 4], &[1, 2, 0]);
        assert_eq!(y[0..4], [0, 12, 1, 13]);
        assert_eq!(y[23], 23);
    }
}
