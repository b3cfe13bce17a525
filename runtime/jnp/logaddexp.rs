//! `jnp.logaddexp` and `jnp.logaddexp2`, with JAX's stable formulas.

use crate::array::ArrayType;
use crate::element::ToInexact;
use crate::ops::{Operand, PromoteWith, ResultShape};

use super::Promoted;

macro_rules! logaddexp_fn {
    ($(#[$doc:meta])* $name:ident => $base2:expr) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A, B, Out>(a: A, b: B) -> Out
        where
            A: PromoteWith<B> + ResultShape<B, Out>,
            B: Operand,
            Promoted<A, B>: ToInexact,
            Out: ArrayType,
            Out::Elem: crate::element::Float + crate::ops::Numeric,
            Out: ArrayType<Elem = <Promoted<A, B> as ToInexact>::Out>,
        {
            crate::nn::eager_binary(stringify!($name), &a, &b, &|t, x, y| {
                jax_core::nn::logaddexp(t, x, y, $base2)
            })
        }
    };
}

logaddexp_fn! {
    /// `log(e^a + e^b)` without overflow: `max(a, b) + log1p(exp(-|a - b|))`
    /// (`a + b` where both are infinities of one sign). Integers compute in
    /// [`ToInexact`]'s type. Differentiated in `#[jax::jit]` with JAX's
    /// rule (finite at infinities).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jnp::logaddexp(Array::<f32, 2>::from([0.0, 1000.0]), 0.0);
    /// assert_eq!(y.to_vec(), [2f32.ln(), 1000.0f32]);
    /// ```
    logaddexp => false
}

logaddexp_fn! {
    /// `log2(2^a + 2^b)` without overflow (see [`logaddexp`]).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jnp::logaddexp2(Array::<f32, 2>::from([1.0, 1000.0]), 1.0);
    /// assert_eq!(y.to_vec(), [2.0f32, 1000.0]);
    /// ```
    logaddexp2 => true
}
