//! Polynomials. Each function here is one text, `jax_core::jnp`, which a
//! jitted body traces and an eager call runs (`crate::eager`).

use crate::array::{ArrayType, AsArray};
use crate::eager;

/// `jnp.polyval(p, x)`: the polynomial with coefficients `p` (highest
/// power first, along `p`'s first axis) at each element of `x`, by Horner's
/// rule: `y = 0`, then `y = y * x + p[i]` for each coefficient, in the
/// promoted dtype of `p` and `x` (integers stay integers, as in JAX). The
/// result has the broadcast shape of `p`'s trailing axes and `x`; the
/// caller names it and it is checked.
///
/// ```
/// use jax::prelude::*;
/// let p = Array::<i32, 3>::from([1, 2, 3]); // x² + 2x + 3
/// let y: Array<i32, 2> = jnp::polyval(&p, Array::from([2, 3]));
/// assert_eq!(y.to_vec(), [11, 18]);
/// let z: Array<f32, 2> = jnp::polyval(&p, Array::<f32, 2>::from([0.5, -1.0]));
/// assert_eq!(z.to_vec(), [4.25, 2.0]);
/// ```
#[track_caller]
pub fn polyval<P: AsArray, X: AsArray, Out: ArrayType>(p: P, x: X) -> Out {
    let r = eager::call(|l| jax_core::jnp::polyval(l, eager::arg(p), eager::arg(x)));
    eager::typed("polyval", r)
}
