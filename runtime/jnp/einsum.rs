//! `jnp::einsum`: Einstein summation over a tuple of arrays: the one text
//! of `jax_core::einsum` (which jitted bodies trace) run eagerly, so eager
//! and jitted results agree.

use crate::array::{ArrayType, AsArray};
use crate::eager;
use crate::element::{DType, Element};

/// One operand as the contraction sees it: data converted to the result's
/// element type, shape, and the operand's own dtype and weak flag (for the
/// promotion check).
pub struct EinsumOperand<T> {
    data: Vec<T>,
    shape: Vec<usize>,
    kind: (DType, bool),
}

/// The operands of [`einsum`]: a tuple of one to six arrays (or references).
pub trait EinsumOperands {
    /// The operands, converted to `T`.
    fn operands<T: Element>(self) -> Vec<EinsumOperand<T>>;
}

fn operand<A: AsArray, T: Element>(a: A) -> EinsumOperand<T> {
    let x = a.as_array();
    EinsumOperand {
        data: x.data().iter().map(|&v| v.cast::<T>()).collect(),
        shape: <A::Array as ArrayType>::SHAPE.to_vec(),
        kind: (
            <<A::Array as ArrayType>::Elem as Element>::DTYPE,
            x.is_weak(),
        ),
    }
}

macro_rules! einsum_operands {
    ($($name:ident),+) => {
        impl<$($name: AsArray),+> EinsumOperands for ($($name,)+) {
            #[allow(non_snake_case)]
            fn operands<T: Element>(self) -> Vec<EinsumOperand<T>> {
                let ($($name,)+) = self;
                vec![$(operand::<$name, T>($name)),+]
            }
        }
    };
}
einsum_operands!(A);
einsum_operands!(A, B);
einsum_operands!(A, B, C);
einsum_operands!(A, B, C, D);
einsum_operands!(A, B, C, D, E);
einsum_operands!(A, B, C, D, E, F);

/// Einstein summation (`jnp.einsum`): `subscripts` names each operand's
/// axes (`"ij,jk->ik"`), with NumPy's implicit output when there is no
/// `->` (the labels that appear once, sorted) and `...` for leading axes.
/// The operands are a tuple of arrays; the result type is the caller's
/// (its shape and its dtype, which must be the operands' promoted type, as
/// `jnp.einsum`'s preferred element type) and is checked. Three or more
/// operands are contracted pairwise in opt_einsum's greedy order.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
/// let b = Array::<f32, 3>::from([1.0, 0.0, -1.0]);
/// let ab: Array<f32, 2> = jnp::einsum("ij,j->i", (&a, &b));
/// assert_eq!(ab.to_vec(), [-2.0, -2.0]);
/// let total: Array<f32> = jnp::einsum("ij->", (&a,));
/// assert_eq!(total.to_vec(), [21.0]);
/// ```
///
/// A malformed string or mismatched sizes panic with the reason (inside
/// `#[jax::jit]` they are compile errors at the string).
#[track_caller]
pub fn einsum<Out: ArrayType, Ops: EinsumOperands>(subscripts: &str, operands: Ops) -> Out {
    let ops = operands.operands::<Out::Elem>();
    let kinds: Vec<(DType, bool)> = ops.iter().map(|o| o.kind).collect();
    let (dtype, _) = jax_dtypes::result_type(&kinds, cfg!(feature = "x64"));
    let want = <Out::Elem as Element>::DTYPE;
    if dtype != want && dtype != DType::Bool {
        panic!(
            "einsum: the operands' result type is {}, but the result is annotated as {}",
            dtype.name(),
            want.name()
        );
    }
    let r = eager::call(|l| {
        // Each operand in the result type (as the one text converts it),
        // with its own weak flag.
        let values = ops
            .iter()
            .map(|o| eager::slice_arg(&o.shape, &o.data, o.kind.1))
            .collect();
        jax_core::einsum::einsum(l, subscripts, values)
    });
    eager::typed("einsum", r)
}
