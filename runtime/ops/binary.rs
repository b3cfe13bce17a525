//! The one broadcasting and promotion machinery behind every elementwise
//! operation with more than one operand: the operators, `jnp` and `lax`.
//!
//! An operand is an array (by value or by reference) or a Rust scalar, which
//! is weakly typed like a Python literal in JAX. [`PromoteWith`] gives the
//! element type two operands compute in, [`ResultShape`] lets Rust infer the
//! result type of a `jnp` function when one operand is a scalar, and
//! [`zip_with`] does the work.

use crate::array::{impl_array, Array, ArrayType};
use crate::element::{DType, Element, Promote, PromoteWeak};
use crate::shape;

/// An operand of an elementwise operation: an [`Array`], a reference to one,
/// or a Rust scalar (`bool`, integers, floats), which acts like a weakly typed
/// scalar array, as a Python literal does in JAX.
pub trait Operand {
    /// The element type.
    type Elem: Element;
    /// The shape (`[]` for a Rust scalar).
    const SHAPE: &'static [usize];
    /// Whether this is a Rust scalar rather than an array.
    const IS_SCALAR: bool;
    /// The elements in row-major order, the shape and the weak-type flag.
    fn view(&self) -> View<'_, Self::Elem>;
}

/// Borrowed elements, shape and weak-type flag of an operand.
#[derive(Clone, Copy, Debug)]
pub struct View<'a, T> {
    /// Row-major elements.
    pub data: &'a [T],
    /// The shape.
    pub shape: &'static [usize],
    /// Weakly typed (a Rust scalar, or an array from one).
    pub weak: bool,
}

impl<'a, T> View<'a, T> {
    /// The view of an array.
    pub fn of<A: ArrayType<Elem = T>>(a: &'a A) -> Self {
        View {
            data: a.data(),
            shape: A::SHAPE,
            weak: a.is_weak(),
        }
    }
}

/// The element type two operands are converted to before an operation:
/// JAX's promotion lattice, with Rust scalars weakly typed (`x_u8 + 1` stays
/// `u8`, `x_i32 + 1.0` is `f32`).
pub trait PromoteWith<B: Operand>: Operand {
    /// The promoted element type.
    type Out: Element;
}

/// Ties the result type `Out` of a binary `jnp` function to its operands
/// where Rust can know it: when one operand is a Rust scalar, the result has
/// the other operand's shape, so `jnp::maximum(&x, 0.0)` needs no annotation.
/// Between two arrays the result shape is their broadcast, which Rust types
/// cannot compute: the caller chooses it (`let z: Array<f32, 3, 4> = ...`),
/// and it is checked when the function runs.
pub trait ResultShape<B, Out> {}

// `with_dims!` writes an impl once for `Array<..>` and once for `&Array<..>`,
// naming the dimensions `D0` to `D5` that `impl_array!` declares, and
// `with_dims2!` for all four combinations of two array operands, the second
// with dimensions `E0` to `E5`, which its impls declare themselves.
macro_rules! with_dims {
    ($mac:ident!($($args:tt)*)) => {
        $mac!([Array<T, D0, D1, D2, D3, D4, D5>] $($args)*);
        $mac!([&Array<T, D0, D1, D2, D3, D4, D5>] $($args)*);
    };
}
macro_rules! with_dims2 {
    ($mac:ident!($($args:tt)*)) => {
        $mac!([Array<T, D0, D1, D2, D3, D4, D5>] [Array<U, E0, E1, E2, E3, E4, E5>] $($args)*);
        $mac!([&Array<T, D0, D1, D2, D3, D4, D5>] [Array<U, E0, E1, E2, E3, E4, E5>] $($args)*);
        $mac!([Array<T, D0, D1, D2, D3, D4, D5>] [&Array<U, E0, E1, E2, E3, E4, E5>] $($args)*);
        $mac!([&Array<T, D0, D1, D2, D3, D4, D5>] [&Array<U, E0, E1, E2, E3, E4, E5>] $($args)*);
    };
}
pub(crate) use {with_dims, with_dims2};

macro_rules! array_operand {
    ([$($a:tt)*]) => {
        impl_array! {
            impl<T: Element> Operand for $($a)* {
                type Elem = T;
                const SHAPE: &'static [usize] = Array::<T, D0, D1, D2, D3, D4, D5>::SHAPE;
                const IS_SCALAR: bool = false;
                #[inline]
                fn view(&self) -> View<'_, T> {
                    let a: &Array<T, D0, D1, D2, D3, D4, D5> = self;
                    View::of(a)
                }
            }
        }
    };
}
with_dims!(array_operand!());

impl<S: Element> Operand for S {
    type Elem = S;
    const SHAPE: &'static [usize] = &[];
    const IS_SCALAR: bool = true;
    #[inline]
    fn view(&self) -> View<'_, S> {
        View {
            data: std::slice::from_ref(self),
            shape: &[],
            // A Python bool is not weak; other literals are.
            weak: S::DTYPE != DType::Bool,
        }
    }
}

macro_rules! array_array {
    ([$($a:tt)*] [$($b:tt)*]) => {
        impl<
                T: Element + Promote<U>, U: Element,
                const D0: usize, const D1: usize, const D2: usize,
                const D3: usize, const D4: usize, const D5: usize,
                const E0: usize, const E1: usize, const E2: usize,
                const E3: usize, const E4: usize, const E5: usize,
            > PromoteWith<$($b)*> for $($a)*
        {
            type Out = <T as Promote<U>>::Out;
        }
        impl<
                T: Element, U: Element, Out: ArrayType,
                const D0: usize, const D1: usize, const D2: usize,
                const D3: usize, const D4: usize, const D5: usize,
                const E0: usize, const E1: usize, const E2: usize,
                const E3: usize, const E4: usize, const E5: usize,
            > ResultShape<$($b)*, Out> for $($a)*
        {
        }
    };
}
with_dims2!(array_array!());

macro_rules! array_scalar {
    ([$($a:tt)*]) => {
        impl_array! {
            impl<T: Element + PromoteWeak<S>, S: Element> PromoteWith<S> for $($a)* {
                type Out = <T as PromoteWeak<S>>::Out;
            }
        }
        impl_array! {
            impl<T: Element + PromoteWeak<S>, S: Element> PromoteWith<$($a)*> for S {
                type Out = <T as PromoteWeak<S>>::Out;
            }
        }
        impl_array! {
            impl<T: Element, S: Element, X: Element> ResultShape<S, Array<X, ..>> for $($a)* {
            }
        }
        impl_array! {
            impl<T: Element, S: Element, X: Element> ResultShape<$($a)*, Array<X, ..>> for S {
            }
        }
    };
}
with_dims!(array_scalar!());

/// Whether an array of shape `src` broadcasts to shape `dst` (trailing axes
/// aligned, size-1 axes stretch), usable in `const` assertions.
pub const fn broadcasts_to(src: &[usize], dst: &[usize]) -> bool {
    if src.len() > dst.len() {
        return false;
    }
    let off = dst.len() - src.len();
    let mut k = 0;
    while k < src.len() {
        if src[k] != 1 && src[k] != dst[off + k] {
            return false;
        }
        k += 1;
    }
    true
}

/// The weak-type flag of a result computed from these operands
/// (`jax.dtypes.result_type`'s second answer).
pub fn result_weak(operands: &[(DType, bool)]) -> bool {
    jax_dtypes::result_type(operands, cfg!(feature = "x64")).1
}

#[track_caller]
fn broadcast_shape(op: &str, shapes: &[&[usize]]) -> Vec<usize> {
    let mut out = shapes[0].to_vec();
    for s in &shapes[1..] {
        out = shape::broadcast_shapes(&out, s).unwrap_or_else(|_| {
            let all: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
            panic!(
                "{op}: Incompatible shapes for broadcasting: shapes=[{}]",
                all.join(", ")
            )
        });
    }
    out
}

/// The elements of `v` converted to `P`, broadcast to `out` (no copy of the
/// indices when the shape already matches).
fn gather<T: Element, P: Element>(v: View<'_, T>, out: &[usize]) -> Vec<P> {
    if v.shape == out {
        v.data.iter().map(|&x| x.cast::<P>()).collect()
    } else if v.data.len() == 1 {
        vec![v.data[0].cast::<P>(); out.iter().product()]
    } else {
        shape::broadcast_indices(v.shape, out)
            .into_iter()
            .map(|i| v.data[i].cast::<P>())
            .collect()
    }
}

/// Applies `f` to two operands elementwise: converts both to `P`,
/// broadcasts them (NumPy's rules), and checks that `Out` has the broadcast
/// shape and element type `O`. The result is weakly typed when both inputs
/// are (and its type is not bool), as in JAX.
#[track_caller]
pub fn zip_with<X: Element, Y: Element, P: Element, O: Element, Out: ArrayType<Elem = O>>(
    op: &str,
    a: View<'_, X>,
    b: View<'_, Y>,
    f: impl Fn(P, P) -> O,
) -> Out {
    let same = a.shape == b.shape;
    let out_shape: Vec<usize> = if same {
        a.shape.to_vec()
    } else {
        broadcast_shape(op, &[a.shape, b.shape])
    };
    shape::check_result::<Out>(op, O::DTYPE, &out_shape);
    if matches!(op, "div" | "divide") && O::DTYPE.is_float() && b.shape != out_shape.as_slice() {
        // XLA (so JAX on CPU) divides by a broadcast divisor by multiplying
        // with its reciprocal: one division per divisor element, and JAX's
        // rounding. `f(1, y)` is that reciprocal in the result type.
        let recip: Vec<O> = b.data.iter().map(|&y| f(P::ONE, y.cast())).collect();
        let r = View {
            data: &recip,
            shape: b.shape,
            weak: b.weak,
        };
        let data: Vec<O> = zip_with::<X, O, O, O, Out>("multiply", a, r, mul_float)
            .data()
            .to_vec();
        let weak = result_weak(&[(X::DTYPE, a.weak), (Y::DTYPE, b.weak)]);
        return Out::from_data(data).set_weak(weak);
    }
    let data: Vec<O> = if same {
        a.data
            .iter()
            .zip(b.data)
            .map(|(&x, &y)| f(x.cast(), y.cast()))
            .collect()
    } else if b.data.len() == 1 && a.shape == out_shape.as_slice() {
        let y: P = b.data[0].cast();
        a.data.iter().map(|&x| f(x.cast(), y)).collect()
    } else if a.data.len() == 1 && b.shape == out_shape.as_slice() {
        let x: P = a.data[0].cast();
        b.data.iter().map(|&y| f(x, y.cast())).collect()
    } else {
        let (xs, ys) = (gather::<X, P>(a, &out_shape), gather::<Y, P>(b, &out_shape));
        xs.into_iter().zip(ys).map(|(x, y)| f(x, y)).collect()
    };
    let weak = O::DTYPE != DType::Bool && result_weak(&[(X::DTYPE, a.weak), (Y::DTYPE, b.weak)]);
    Out::from_data(data).set_weak(weak)
}

/// `a * b` for a float element type, in that type's arithmetic (f16 and
/// bf16 through f32, rounded once, as XLA).
fn mul_float<O: Element>(a: O, b: O) -> O {
    match O::DTYPE {
        DType::F64 => O::from_f64(a.to_f64() * b.to_f64()),
        _ => O::from_f64((a.to_f64() as f32 * b.to_f64() as f32) as f64),
    }
}

/// Applies `f` to three operands elementwise (`where_`, `clip`): the first
/// converted to `C`, the other two to `P`, all broadcast together. `weak` is
/// the result's weak-type flag, which depends on the operation.
#[track_caller]
pub fn zip3_with<X: Element, Y: Element, Z: Element, C: Element, P: Element, O, Out>(
    op: &str,
    a: View<'_, X>,
    b: View<'_, Y>,
    c: View<'_, Z>,
    weak: bool,
    f: impl Fn(C, P, P) -> O,
) -> Out
where
    O: Element,
    Out: ArrayType<Elem = O>,
{
    let out_shape = broadcast_shape(op, &[a.shape, b.shape, c.shape]);
    shape::check_result::<Out>(op, O::DTYPE, &out_shape);
    let xs = gather::<X, C>(a, &out_shape);
    let ys = gather::<Y, P>(b, &out_shape);
    let zs = gather::<Z, P>(c, &out_shape);
    let data = xs
        .into_iter()
        .zip(ys)
        .zip(zs)
        .map(|((x, y), z)| f(x, y, z))
        .collect();
    Out::from_data(data).set_weak(weak && O::DTYPE != DType::Bool)
}

/// Applies `f` to every element; the result has the same shape and keeps the
/// weak-type flag (unless it is bool).
#[inline]
pub fn map<A: ArrayType, O: Element>(a: &A, f: impl Fn(A::Elem) -> O) -> A::WithElem<O> {
    // At the CPU's SIMD level, as jitted loops run: the math kernels' FMAs
    // are instructions there, not libm calls.
    let data = crate::__rt::par::dispatch(|| a.data().iter().map(|&x| f(x)).collect());
    let weak = O::DTYPE != DType::Bool && a.is_weak();
    <A::WithElem<O> as ArrayType>::from_data(data).set_weak(weak)
}

/// Applies a type-preserving `f` to every element (same type, same weak flag).
#[inline]
pub fn map_same<A: ArrayType>(a: &A, f: impl Fn(A::Elem) -> A::Elem) -> A {
    let data = crate::__rt::par::dispatch(|| a.data().iter().map(|&x| f(x)).collect());
    A::from_data(data).set_weak(a.is_weak())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_broadcast_rule() {
        assert!(broadcasts_to(&[10], &[64, 10]));
        assert!(broadcasts_to(&[4, 1], &[4, 3]));
        assert!(broadcasts_to(&[], &[2, 2]));
        assert!(!broadcasts_to(&[3], &[3, 4]));
        assert!(!broadcasts_to(&[2, 3], &[3]));
    }

    #[test]
    fn zip_broadcasts_both_ways() {
        let a = Array::<i32, 3, 1>::from([[1], [2], [3]]);
        let b = Array::<i32, 2>::from([10, 20]);
        let c: Array<i32, 3, 2> = zip_with("add", View::of(&a), View::of(&b), |x: i32, y| x + y);
        assert_eq!(c.to_vec(), [11, 21, 12, 22, 13, 23]);
    }

    #[test]
    #[should_panic(expected = "Incompatible shapes for broadcasting")]
    fn incompatible_shapes_panic() {
        let a = Array::<i32, 3>::zeros();
        let b = Array::<i32, 2>::zeros();
        let _: Array<i32, 3> = zip_with("add", View::of(&a), View::of(&b), |x: i32, y| x + y);
    }
}
