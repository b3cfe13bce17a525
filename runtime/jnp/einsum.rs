//! `jnp::einsum`: Einstein summation over a tuple of arrays, contracted in
//! the order and with the steps `#[jax::jit]` uses (both read the plan from
//! `jax_dtypes::einsum`), so eager and jitted results agree.

use crate::array::{ArrayType, AsArray};
use crate::element::{DType, Element};
use crate::lax::{dot_general_raw, permute, reduce_lanes, sum_lane};
use jax_dtypes::einsum::{plan, Step};

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
    let mut ops = operands.operands::<Out::Elem>();
    let shapes: Vec<Vec<usize>> = ops.iter().map(|o| o.shape.clone()).collect();
    let p = plan(subscripts, &shapes).unwrap_or_else(|m| panic!("{m}"));
    let kinds: Vec<(DType, bool)> = ops.iter().map(|o| o.kind).collect();
    let (dtype, weak) = jax_dtypes::result_type(&kinds, cfg!(feature = "x64"));
    let want = <Out::Elem as Element>::DTYPE;
    if dtype != want {
        panic!(
            "einsum: the operands' result type is {}, but the result is annotated as {}",
            dtype.name(),
            want.name()
        );
    }
    if dtype == DType::Bool {
        panic!("einsum of bool arrays is not supported yet; convert them first");
    }
    crate::shape::check_result::<Out>("einsum", want, &p.output_shape);
    for c in &p.contractions {
        let mut taken: Vec<EinsumOperand<Out::Elem>> =
            c.operands.iter().map(|&i| ops.remove(i)).collect();
        for (x, steps) in taken.iter_mut().zip(&c.prepare) {
            for s in steps {
                step(x, s);
            }
        }
        let mut out = match (&c.dot, taken.as_mut_slice()) {
            (None, [x]) => std::mem::replace(
                x,
                EinsumOperand {
                    data: Vec::new(),
                    shape: Vec::new(),
                    kind: (dtype, false),
                },
            ),
            (Some(d), [l, r]) => {
                let (lhs, rhs) = if d.swap { (&*r, &*l) } else { (&*l, &*r) };
                let free = |x: &EinsumOperand<Out::Elem>, c: &[usize], b: &[usize]| {
                    (0..x.shape.len())
                        .filter(|a| !c.contains(a) && !b.contains(a))
                        .map(|a| x.shape[a])
                        .collect::<Vec<_>>()
                };
                let mut shape: Vec<usize> = d.lhs_batch.iter().map(|&a| lhs.shape[a]).collect();
                shape.extend(free(lhs, &d.lhs_contract, &d.lhs_batch));
                shape.extend(free(rhs, &d.rhs_contract, &d.rhs_batch));
                let data = dot_general_raw(
                    &lhs.data,
                    &lhs.shape,
                    &rhs.data,
                    &rhs.shape,
                    (
                        (&d.lhs_contract, &d.rhs_contract),
                        (&d.lhs_batch, &d.rhs_batch),
                    ),
                );
                EinsumOperand {
                    data,
                    shape,
                    kind: (dtype, false),
                }
            }
            _ => unreachable!("a contraction takes one or two operands"),
        };
        if let Some(perm) = &c.transpose {
            out.data = permute(&out.data, &out.shape, perm);
            out.shape = perm.iter().map(|&a| out.shape[a]).collect();
        }
        ops.push(out);
    }
    let out = ops.pop().expect("einsum leaves one operand");
    Out::from_data(out.data).set_weak(weak)
}

/// One of JAX's `_einsum` steps on an operand.
fn step<T: Element>(x: &mut EinsumOperand<T>, s: &Step) {
    let sum = |x: &mut EinsumOperand<T>, axes: &[usize]| {
        let mut axes = axes.to_vec();
        axes.sort_unstable();
        x.data = reduce_lanes(&x.data, &x.shape, &axes, sum_lane::<T, T>);
        let mut k = 0;
        x.shape.retain(|_| {
            k += 1;
            !axes.contains(&(k - 1))
        });
    };
    match s {
        Step::Squeeze(dims) => {
            let mut k = 0;
            x.shape.retain(|_| {
                k += 1;
                !dims.contains(&(k - 1))
            });
        }
        Step::Sum(axes) => sum(x, axes),
        Step::Diagonal { axes, sum: summed } => {
            let strides = crate::shape::strides(&x.shape);
            let shape = x.shape.clone();
            for (flat, v) in x.data.iter_mut().enumerate() {
                let at = |a: usize| flat / strides[a] % shape[a];
                if !axes.iter().all(|&a| at(a) == at(axes[0])) {
                    *v = T::from_value(crate::element::Value::Int(0));
                }
            }
            sum(x, summed);
        }
    }
}
