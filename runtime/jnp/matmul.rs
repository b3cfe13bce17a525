//! Matrix products with `jnp`'s promotion: `matmul`/`dot` (also
//! `x.matmul(w)`), `batch_matmul`, `outer`, `vdot`, `inner`, and the 2-D
//! transpose `x.t()`.
//!
//! Result shapes come from the operands' types: `Array<f32, 64, 784>` times
//! `Array<f32, 784, 10>` is `Array<f32, 64, 10>`, with no annotation.
//! Mismatched inner dimensions do not compile.
//!
//! ```
//! use jax::prelude::*;
//! let x = Array::<f32, 2, 3>::arange();
//! let w = Array::<f32, 3, 1>::ones();
//! let y = x.matmul(&w); // Array<f32, 2, 1>
//! assert_eq!(y.to_vec(), [3.0, 12.0]);
//! assert_eq!(x.t().shape(), &[3, 2]);
//! ```

use crate::array::{impl_array, Array, AsArray, NONE};
use crate::element::{Element, Promote};
use crate::lax::{gemm, permute, promoted, Mat};
use crate::shape::ConstMsg;

use crate::lax::weak_of;
pub use crate::lax::{MatMul, MatrixLhs, VectorLhs};

/// The matrix product `a @ b` (`jnp.matmul`) for ranks 1 and 2: `[M, K] @
/// [K, N] -> [M, N]`, `[M, K] @ [K] -> [M]`, `[K] @ [K, N] -> [N]`, `[K] @
/// [K] -> []`. Mixed dtypes promote (`i8 @ f16` is `f16`). `f32`/`f64` use
/// `matrixmultiply`'s gemm; other dtypes a plain loop (`f16`/`bf16`
/// accumulate in `f32`, integers wrap). For 3-D operands see [`batch_matmul`].
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i8, 2, 2>::from([[1, 2], [3, 4]]);
/// let b = Array::<f32, 2, 2>::from([[1.0, 0.0], [0.0, 2.0]]);
/// let c: Array<f32, 2, 2> = jnp::matmul(&a, &b);
/// assert_eq!(c.to_vec(), [1.0, 4.0, 3.0, 8.0]);
/// let v = Array::<f32, 2>::from([1.0, 1.0]);
/// assert_eq!(jnp::matmul(&v, &v).item(), 2.0);
/// ```
pub fn matmul<A: AsArray, B: AsArray, Kind>(
    a: A,
    b: B,
) -> <A::Array as MatMul<B::Array, Kind>>::Output
where
    A::Array: MatMul<B::Array, Kind>,
{
    a.as_array().product(b.as_array())
}

/// `jnp.dot` for ranks 1 and 2, where it equals [`matmul`].
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
/// assert_eq!(jnp::dot(&a, &a).item(), 14.0);
/// ```
pub fn dot<A: AsArray, B: AsArray, Kind>(a: A, b: B) -> <A::Array as MatMul<B::Array, Kind>>::Output
where
    A::Array: MatMul<B::Array, Kind>,
{
    a.as_array().product(b.as_array())
}

/// Batched matrix product `[B, M, K] @ [B, K, N] -> [B, M, N]` (`jnp.matmul`
/// of 3-D operands), with promotion. A separate function because Rust's
/// types cannot tell a 3-D pattern from a 2-D one.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2, 2>::from([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]);
/// let b = Array::<i32, 2, 2, 1>::from([[[1], [2]], [[3], [4]]]);
/// let c: Array<f32, 2, 2, 1> = jnp::batch_matmul(&a, &b);
/// assert_eq!(c.to_vec(), [1.0, 2.0, 6.0, 8.0]);
/// ```
pub fn batch_matmul<
    T,
    U,
    const NB: usize,
    const M: usize,
    const K: usize,
    const NB2: usize,
    const K2: usize,
    const N: usize,
>(
    a: impl AsArray<Array = Array<T, NB, M, K>>,
    b: impl AsArray<Array = Array<U, NB2, K2, N>>,
) -> Array<<T as Promote<U>>::Out, NB, M, N>
where
    T: Element + Promote<U>,
    U: Element,
{
    const {
        if NB != NB2 || K != K2 || NB == NONE || M == NONE || K == NONE || N == NONE {
            let msg = ConstMsg::new()
                .str("batch_matmul needs [B, M, K] @ [B, K, N]: ")
                .ty(T::DTYPE, Array::<T, NB, M, K>::SHAPE)
                .str(" @ ")
                .ty(U::DTYPE, Array::<U, NB2, K2, N>::SHAPE);
            panic!("{}", msg.as_str());
        }
    }
    let (a, b) = (a.as_array(), b.as_array());
    let (pa, pb) = (
        promoted::<T, <T as Promote<U>>::Out>(a.as_slice()),
        promoted::<U, <T as Promote<U>>::Out>(b.as_slice()),
    );
    let mut out = Vec::with_capacity(NB * M * N);
    for i in 0..NB {
        let x = Mat {
            data: &pa[i * M * K..(i + 1) * M * K],
            rs: K,
            cs: 1,
        };
        let y = Mat {
            data: &pb[i * K * N..(i + 1) * K * N],
            rs: N,
            cs: 1,
        };
        out.extend(gemm(M, K, N, x, y));
    }
    Array::from_vec_unchecked(out).with_weak(weak_of(
        (T::DTYPE, a.weak_type()),
        (U::DTYPE, b.weak_type()),
    ))
}

/// The outer product of two vectors (`jnp.outer`): `[M] x [N] -> [M, N]`.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 2>::from([1, 2]);
/// let b = Array::<i32, 3>::from([1, 10, 100]);
/// assert_eq!(jnp::outer(&a, &b).to_vec(), [1, 10, 100, 2, 20, 200]);
/// ```
pub fn outer<T, U, const M: usize, const N: usize>(
    a: impl AsArray<Array = Array<T, M>>,
    b: impl AsArray<Array = Array<U, N>>,
) -> Array<<T as Promote<U>>::Out, M, N>
where
    T: Element + Promote<U>,
    U: Element,
{
    const {
        if M == NONE || N == NONE {
            panic!("outer: operands must be 1-D");
        }
    }
    let r = crate::eager::call(|l| {
        jax_core::manip::outer(l, crate::eager::arg(a), crate::eager::arg(b))
    });
    crate::eager::typed("outer", r)
}

/// The dot product of two vectors of the same length (`jnp.vdot` for real
/// vectors): a scalar.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2>::from([1.0, 2.0]);
/// assert_eq!(jnp::vdot(&a, &a).item(), 5.0);
/// ```
pub fn vdot<T, U, const K: usize, const K2: usize>(
    a: impl AsArray<Array = Array<T, K>>,
    b: impl AsArray<Array = Array<U, K2>>,
) -> Array<<T as Promote<U>>::Out>
where
    T: Element + Promote<U>,
    U: Element,
{
    <Array<T, K> as MatMul<Array<U, K2>, VectorLhs>>::product(a.as_array(), b.as_array())
}

/// `jnp.inner` of two vectors: the same as [`vdot`] for real vectors.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 3>::from([1, 2, 3]);
/// assert_eq!(jnp::inner(&a, &a).item(), 14);
/// ```
pub fn inner<T, U, const K: usize, const K2: usize>(
    a: impl AsArray<Array = Array<T, K>>,
    b: impl AsArray<Array = Array<U, K2>>,
) -> Array<<T as Promote<U>>::Out>
where
    T: Element + Promote<U>,
    U: Element,
{
    vdot(a, b)
}

impl_array! {
    impl<T: Element> Array<T, ..> {
        /// The matrix product `self @ rhs`; see [`jnp::matmul`](crate::jnp::matmul).
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<f32, 1, 2>::from([[1.0, 2.0]]);
        /// let w = Array::<f32, 2, 3>::ones();
        /// assert_eq!(x.matmul(&w).to_vec(), [3.0, 3.0, 3.0]);
        /// ```
        pub fn matmul<B: AsArray, Kind>(&self, rhs: B) -> <Self as MatMul<B::Array, Kind>>::Output
        where
            Self: MatMul<B::Array, Kind>,
        {
            self.product(rhs.as_array())
        }

        /// `jnp.dot(self, rhs)`; see [`jnp::dot`](crate::jnp::dot).
        ///
        /// ```
        /// use jax::prelude::*;
        /// let a = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
        /// let b = Array::<f32, 3>::from([4.0, 5.0, 6.0]);
        /// assert_eq!(a.dot(&b).item(), 32.0);
        /// ```
        pub fn dot<B: AsArray, Kind>(&self, rhs: B) -> <Self as MatMul<B::Array, Kind>>::Output
        where
            Self: MatMul<B::Array, Kind>,
        {
            self.product(rhs.as_array())
        }
    }
}

impl<T: Element, const D0: usize, const D1: usize> Array<T, D0, D1> {
    /// The transpose of a matrix (`x.T`): `Array<T, M, N>` becomes `Array<T, N, M>`.
    ///
    /// ```
    /// use jax::Array;
    /// let x = Array::<i32, 2, 3>::arange();
    /// assert_eq!(x.t().to_vec(), [0, 3, 1, 4, 2, 5]);
    /// ```
    pub fn t(&self) -> Array<T, D1, D0> {
        const {
            if D0 == NONE || D1 == NONE {
                panic!("t() transposes 2-D arrays only");
            }
        }
        Array::from_vec_unchecked(permute(self.as_slice(), &[D0, D1], &[1, 0]))
            .with_weak(self.weak_type())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bf16, f16};

    #[test]
    fn every_rank_pair() {
        let m = Array::<f32, 2, 3>::arange();
        let v3 = Array::<f32, 3>::from([1.0, 0.0, -1.0]);
        let v2 = Array::<f32, 2>::from([1.0, 1.0]);
        let mv: Array<f32, 2> = m.matmul(&v3);
        assert_eq!(mv.to_vec(), [-2.0, -2.0]);
        let vm: Array<f32, 3> = v2.matmul(&m);
        assert_eq!(vm.to_vec(), [3.0, 5.0, 7.0]);
        let s: Array<f32> = v3.dot(&v3);
        assert_eq!(s.item(), 2.0);
        let mm: Array<f32, 2, 2> = m.matmul(m.t());
        assert_eq!(mm.to_vec(), [5.0, 14.0, 14.0, 50.0]);
    }

    #[test]
    fn loop_dtypes() {
        let a = Array::<i8, 2, 2>::from([[100, 100], [1, 2]]);
        let b = Array::<i8, 2, 1>::from([[1], [1]]);
        assert_eq!(matmul(&a, &b).to_vec(), [-56, 3]); // wraps in i8
        let t = Array::<bool, 2, 2>::from([[true, false], [false, false]]);
        assert_eq!(matmul(&t, &t).to_vec(), [true, false, false, false]);
        let h = Array::<bf16, 2>::from([bf16::from_f32(1.5), bf16::from_f32(2.0)]);
        let g = Array::<f16, 2>::from([f16::from_f32(2.0), f16::from_f32(0.25)]);
        let r: Array<f32> = matmul(&h, &g); // bf16 with f16 promotes to f32
        assert_eq!(r.item(), 3.5);
    }

    #[test]
    fn weak_operands_give_weak_products() {
        let a = Array::<f32, 2, 2>::ones().with_weak(true);
        assert!(a.matmul(&a).weak_type());
        assert!(!a.matmul(Array::<f32, 2>::ones()).weak_type());
    }
}
