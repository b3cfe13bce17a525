//! Comparisons within a tolerance, the replacement of non-finite values,
//! the Kronecker, tensor and cross products, and `select`. Each function here is one text, `jax_core::numeric`, which a
//! jitted body traces and an eager call runs (`crate::eager`).

use super::Promoted;
use crate::array::{Array, ArrayType, AsArray, WithElem};
use crate::eager;
use crate::ops::{Operand, PromoteWith};

/// `jnp.isclose(a, b)`: whether each element of `a` is within `atol +
/// rtol * |b|` of `b`'s, with JAX's defaults (`rtol = 1e-05`, `atol =
/// 1e-08`, `equal_nan = False`). Both are promoted to one inexact type;
/// equal infinities are close, a NaN is close to nothing. `b` (an array
/// or a Rust number, weakly typed as a Python literal) broadcasts to `a`'s
/// shape; the elements run as one unit.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 3>::from([1e6, 2e6, f32::INFINITY]);
/// let b = Array::<f32, 3>::from([1e6, 2e7, f32::INFINITY]);
/// assert_eq!(jnp::isclose(&a, &b).to_vec(), [true, false, true]);
/// ```
#[track_caller]
pub fn isclose<A: AsArray + Operand, B: Operand>(a: A, b: B) -> WithElem<A, bool> {
    crate::nn::eager_binary("isclose", &a, &b, &|t, x, y| {
        jax_core::numeric::isclose(t, x, y, 1e-5, 1e-8, false)
    })
}

/// `jnp.allclose(a, b)`: [`isclose`] for every element, a bool scalar.
/// `b` may be a Rust number, as in [`isclose`].
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2>::from([1.0, 2.0]);
/// assert!(jnp::allclose(&a, &(&a + 1e-6)).item());
/// assert!(!jnp::allclose(&a, &(&a + 1e-3)).item());
/// ```
#[track_caller]
pub fn allclose<A: AsArray + Operand, B: Operand>(a: A, b: B) -> Array<bool> {
    // `jax_core::numeric::allclose` is this text: isclose, then `all`.
    let close = isclose(a, b);
    let r = eager::call(|l| {
        jax_core::jnp::reduce(
            l,
            jax_core::jnp::Reduction::All,
            eager::array_arg(&close),
            None,
            false,
        )
    });
    eager::typed("allclose", r)
}

/// `jnp.nan_to_num(x)`: NaN replaced by 0, `inf` by the dtype's largest
/// finite value and `-inf` by its most negative, as JAX's defaults;
/// integer and bool arrays are returned unchanged.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 3>::from([f32::NAN, f32::INFINITY, -1.5]);
/// assert_eq!(jnp::nan_to_num(&x).to_vec(), [0.0, f32::MAX, -1.5]);
/// ```
#[track_caller]
pub fn nan_to_num<A: AsArray>(x: A) -> A::Array {
    let r = eager::call(|l| jax_core::numeric::nan_to_num(l, eager::arg(x)));
    eager::typed("nan_to_num", r)
}

/// `jnp.kron(a, b)`: the Kronecker product, in the promoted dtype; the
/// operands are lifted to one rank and each result size is the product of
/// theirs. The caller names the result type and it is checked.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
/// let b = Array::<i32, 2>::from([1, 10]);
/// let k: Array<i32, 2, 4> = jnp::kron(&a, &b);
/// assert_eq!(k.to_vec(), [1, 10, 2, 20, 3, 30, 4, 40]);
/// ```
#[track_caller]
pub fn kron<A: AsArray, B: AsArray, Out: ArrayType>(a: A, b: B) -> Out {
    let r = eager::call(|l| jax_core::numeric::kron(l, eager::arg(a), eager::arg(b)));
    eager::typed("kron", r)
}

/// `jnp.tensordot(a, b, axes)`: `a`'s last `axes` axes contracted with
/// `b`'s first `axes`, in the promoted dtype (`axes = 2` is JAX's default,
/// `1` a matrix product, `0` an outer product). The caller names the
/// result type and it is checked.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
/// let b = Array::<f32, 3>::from([1.0, 0.0, -1.0]);
/// let c: Array<f32, 2> = jnp::tensordot(&a, &b, 1);
/// assert_eq!(c.to_vec(), [-2.0, -2.0]);
/// ```
#[track_caller]
pub fn tensordot<A: AsArray, B: AsArray, Out: ArrayType>(a: A, b: B, axes: usize) -> Out {
    let r = eager::call(|l| jax_core::numeric::tensordot(l, eager::arg(a), eager::arg(b), axes));
    eager::typed("tensordot", r)
}

/// `jnp.cross(a, b)`: the cross product along the last axes (vectors of 2
/// or 3 elements; batch axes broadcast), in the promoted dtype. Two
/// 2-vectors give the scalar `a0 b1 - a1 b0`. The caller names the result
/// type and it is checked.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 3>::from([1.0, 0.0, 0.0]);
/// let y = Array::<f32, 3>::from([0.0, 1.0, 0.0]);
/// let z: Array<f32, 3> = jnp::cross(&x, &y);
/// assert_eq!(z.to_vec(), [0.0, 0.0, 1.0]);
/// ```
#[track_caller]
pub fn cross<A: AsArray, B: AsArray, Out: ArrayType>(a: A, b: B) -> Out {
    let r = eager::call(|l| jax_core::numeric::cross(l, eager::arg(a), eager::arg(b)));
    eager::typed("cross", r)
}

/// `jnp.select(condlist, choicelist, default)`: at each element, the
/// choice of the first true condition, else `default`. Conditions, choices
/// and `default` broadcast together; the choices are promoted with
/// `default` (a Rust number is weakly typed, as JAX's `default=0`). The
/// caller names the result type and it is checked. (`lax::select` is
/// `lax.select`, a `where`.)
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 4>::from([1, 2, 3, 4]);
/// let conds = [jnp::less(&x, 2), jnp::greater(&x, 3)];
/// let choices = [&x * 10, &x * 100];
/// let y: Array<i32, 4> = jnp::select(&conds, &choices, 0);
/// assert_eq!(y.to_vec(), [10, 0, 0, 400]);
/// ```
#[track_caller]
pub fn select<C, X, D, Out>(condlist: &[C], choicelist: &[X], default: D) -> Out
where
    C: Operand,
    X: PromoteWith<D>,
    D: Operand,
    Out: ArrayType<Elem = Promoted<X, D>>,
{
    use crate::eager::unit::Input;
    let (n, m) = (condlist.len(), choicelist.len());
    let ins = condlist
        .iter()
        .map(|c| Input::view(c.view()))
        .chain(choicelist.iter().map(|x| Input::view(x.view())))
        .chain(std::iter::once(Input::view(default.view())))
        .collect();
    crate::nn::eager_elementwise("select", ins, &|t, ins| {
        jax_core::numeric::select(
            t,
            ins[..n].to_vec(),
            ins[n..n + m].to_vec(),
            ins[n + m].clone(),
        )
    })
}
