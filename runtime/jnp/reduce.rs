//! Reductions with `jnp`'s semantics and dtypes: `sum`, `prod`, `mean`,
//! `var`, `std`, `max`, `min`, `argmax`, `argmin`, their `nan*` forms, `any`,
//! `all`, `logsumexp`; and the shape-keeping `cumsum`, `cumprod`, `cummax`,
//! `cummin`, `softmax`, `log_softmax`.
//!
//! # Naming convention
//!
//! Every reduction comes in two forms:
//!
//! - `jnp::<name>(x)` reduces over all axes and returns a scalar array, typed
//!   from the input: `jnp::sum(&x)` is `Array<i32>` for an `i8` input, as
//!   `jnp.sum` is `int32`. The same is available as a method, `x.sum()`.
//! - `jnp::<name>_axis(x, axis, keepdims)` reduces along one axis (negative
//!   axes count from the end; `keepdims` leaves it as a dimension of size 1).
//!   Rust's types cannot compute that shape, so the caller names the result
//!   type and it is checked at run time (see
//!   [`check_result`](crate::shape::check_result)); its element type is
//!   fixed by the input. Also a method: `x.sum_axis(1, false)`.
//!
//! The operations along an axis that keep the shape (`cumsum`, `softmax`, ...)
//! take `(x, axis)` and return a typed array of the input's shape.
//!
//! ```
//! use jax::prelude::*;
//! let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
//! assert_eq!(x.sum().item(), 21.0);
//! let cols: Array<f32, 3> = jnp::max_axis(&x, 0, false);
//! assert_eq!(cols.to_vec(), [4.0, 5.0, 6.0]);
//! let rows: Array<f32, 2, 1> = x.mean_axis(-1, true);
//! assert_eq!(rows.to_vec(), [2.0, 5.0]);
//! ```
//!
//! # Dtypes and accumulation
//!
//! `sum`/`prod` return [`SumType`]'s dtype (small integers and bool
//! accumulate in the default int, which wraps); `mean`, `var`, `std`,
//! `logsumexp` return [`ToInexact`]'s; `argmax`/`argmin` return
//! [`IndexInt`]; `any`/`all` return `bool`; `max`/`min` keep the dtype. Results
//! are never weakly typed. Float sums are pairwise (halving down to blocks of
//! 32 summed left to right; fixed order, independent of threads), in `f32`
//! for `f16`/`bf16`/`f32` and `f64` for `f64`, rounded once to the result
//! type. XLA's own summation order on CPU is unspecified, so sums of inexact
//! values may differ from JAX's in the last bits.
//!
//! NaN: `max`/`min` propagate it; `argmax`/`argmin` return the first NaN's
//! index; the `nan*` forms ignore NaNs (`nanargmax` of an all-NaN lane is -1,
//! `nanmax` of one is NaN).

mod cumulative;

use crate::lax::fast::{self, Fold};
pub use cumulative::*;

use jax_core::ir::Atom;
use jax_core::jnp::Reduction;
use jax_core::lax::Trace;

use crate::array::{impl_array, Array, ArrayType, AsArray};
use crate::eager;
use crate::element::{Element, SumType, ToInexact};
use crate::lax::{arg_lane, max_lane, min_lane, prod_lane, reduce_lanes, reduced_shape, sum_lane};
use crate::shape;

use crate::array::ElemOf as E;

/// The index type of `argmax`/`argmin`: JAX's default int.
pub type IndexInt = crate::DefaultInt;

#[inline]
fn full<A: AsArray, R: Element>(
    x: A,
    f: impl FnOnce(&[E<A>]) -> R,
    fast: Option<Fold>,
) -> Array<R> {
    let data = x.as_array().data();
    // f32/f64: the jitted order, threads and SIMD (max/min of nothing
    // still panics in the kernel).
    if let Some(fold) = fast.filter(|_| !data.is_empty())
        && let Some(r) = fast::try_all::<E<A>, R>(data, fold)
    {
        return Array::from_vec_unchecked(vec![r]);
    }
    Array::from_vec_unchecked(vec![f(data)])
}

#[track_caller]
fn along<A: AsArray, Out: ArrayType>(
    op: &str,
    x: A,
    axis: isize,
    keepdims: bool,
    f: impl FnMut(&[E<A>]) -> Out::Elem,
    fast: Option<Fold>,
) -> Out {
    let shape = <A::Array as ArrayType>::SHAPE;
    let axes = [shape::normalize_axis(op, axis, shape.len())];
    let out_shape = reduced_shape(shape, &axes, keepdims);
    shape::check_result::<Out>(op, <Out::Elem as Element>::DTYPE, &out_shape);
    let data = x.as_array().data();
    if let Some(fold) = fast.filter(|_| shape[axes[0]] != 0)
        && let Some(r) = fast::try_along::<E<A>, Out::Elem>(data, shape, axes[0], fold, keepdims)
    {
        return Out::from_data(r);
    }
    Out::from_data(reduce_lanes(data, shape, &axes, f))
}

macro_rules! reduction {
    (
        $(#[$doc:meta])*
        fn $name:ident / $name_axis:ident -> $out:ty, where [$($bound:tt)*], kernel $kernel:expr
        $(, fast $fast:expr)?;
    ) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A: AsArray>(x: A) -> Array<$out>
        where
            $($bound)*
        {
            full(x, $kernel, None$(.or(Some($fast)))?)
        }

        #[doc = concat!("[`", stringify!($name), "`](fn@", stringify!($name), ") along one axis (negative counts from the end); ",
            "`keepdims` leaves the axis with size 1. The caller names the result type, ",
            "which is checked.\n\n```\nuse jax::prelude::*;\n",
            "let x = Array::<f32, 2, 3>::from([[1.0, 0.0, 3.0], [4.0, 5.0, 2.0]]);\n",
            "let r: Array<_, 2> = jnp::", stringify!($name_axis), "(&x, 1, false);\n",
            "let c: Array<_, 1, 3> = jnp::", stringify!($name_axis), "(&x, 0, true);\n",
            "assert_eq!(r.to_vec()[0], jnp::", stringify!($name), "(Array::<f32, 3>::from([1.0, 0.0, 3.0])).item());\n",
            "assert_eq!(c.shape(), &[1, 3]);\n```")]
        #[track_caller]
        pub fn $name_axis<A: AsArray, Out: ArrayType<Elem = $out>>(
            x: A,
            axis: isize,
            keepdims: bool,
        ) -> Out
        where
            $($bound)*
        {
            along(stringify!($name_axis), x, axis, keepdims, $kernel, None$(.or(Some($fast)))?)
        }
    };
    (
        $(#[$doc:meta])*
        fn $name:ident / $name_axis:ident -> $out:ty, where [$($bound:tt)*], composite $f:expr;
    ) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A: AsArray>(x: A) -> Array<$out>
        where
            $($bound)*
        {
            reduce_eager(stringify!($name), x, None, false, &$f)
        }

        #[doc = concat!("[`", stringify!($name), "`](fn@", stringify!($name), ") along one axis (negative counts from the end); ",
            "`keepdims` leaves the axis with size 1. The caller names the result type, ",
            "which is checked.\n\n```\nuse jax::prelude::*;\n",
            "let x = Array::<f32, 2, 3>::from([[1.0, 0.0, 3.0], [4.0, 5.0, 2.0]]);\n",
            "let r: Array<_, 2> = jnp::", stringify!($name_axis), "(&x, 1, false);\n",
            "let c: Array<_, 1, 3> = jnp::", stringify!($name_axis), "(&x, 0, true);\n",
            "assert_eq!(r.to_vec()[0], jnp::", stringify!($name), "(Array::<f32, 3>::from([1.0, 0.0, 3.0])).item());\n",
            "assert_eq!(c.shape(), &[1, 3]);\n```")]
        #[track_caller]
        pub fn $name_axis<A: AsArray, Out: ArrayType<Elem = $out>>(
            x: A,
            axis: isize,
            keepdims: bool,
        ) -> Out
        where
            $($bound)*
        {
            reduce_eager(stringify!($name_axis), x, Some(axis), keepdims, &$f)
        }
    };
}

reduction! {
    /// The sum of all elements (`jnp.sum`), in [`SumType`]'s dtype.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i8, 3>::from([100, 100, 100]);
    /// let s: Array<DefaultInt> = jnp::sum(&x); // small ints accumulate in the default int
    /// assert_eq!(s.item(), 300);
    /// ```
    fn sum / sum_axis -> <E<A> as SumType>::Out, where [E<A>: SumType],
        kernel sum_lane::<E<A>, <E<A> as SumType>::Out>, fast Fold::Sum;
}

reduction! {
    /// The product of all elements (`jnp.prod`), in [`SumType`]'s dtype.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 3>::from([2.0, 3.0, 4.0]);
    /// assert_eq!(jnp::prod(&x).item(), 24.0);
    /// ```
    fn prod / prod_axis -> <E<A> as SumType>::Out, where [E<A>: SumType],
        kernel prod_lane::<E<A>, <E<A> as SumType>::Out>;
}

reduction! {
    /// The mean (`jnp.mean`), in [`ToInexact`]'s dtype (`f16` computes in `f32`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 4>::from([1, 2, 3, 5]);
    /// let m: Array<f32> = jnp::mean(&x);
    /// assert_eq!(m.item(), 2.75);
    /// ```
    fn mean / mean_axis -> <E<A> as ToInexact>::Out, where [E<A>: ToInexact],
        composite |t: &mut Trace, x, axes, keepdims| jax_core::jnp::mean(t, x, axes, keepdims);
}

/// A reduction written once: its result from the operand, the axes (all
/// when `None`) and `keepdims`.
type ReduceFn = dyn Fn(&mut Trace, Atom, Option<Vec<usize>>, bool) -> jax_core::Result<Atom> + Sync;

/// A reduction written once (`f` of the operand, the axes — all when
/// `None` — and `keepdims`), run eagerly over `axis` (all axes when
/// `None`): by rows where the axis allows.
#[track_caller]
fn reduce_eager<A: AsArray, Out: ArrayType>(
    name: &'static str,
    x: A,
    axis: Option<isize>,
    keepdims: bool,
    f: &ReduceFn,
) -> Out {
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let axis = axis.map(|a| shape::normalize_axis(name, a, rank));
    let x = eager::unit::Input::of(&x);
    let r = eager::call(|_| match axis {
        Some(ax) if !keepdims => {
            eager::unit::reduce_axis(name, "", x, ax, &|t, x, ax| f(t, x, Some(vec![ax]), false))
        }
        _ => {
            let g = |t: &mut Trace, ins: Vec<Atom>| {
                Ok(vec![f(
                    t,
                    ins[0].clone(),
                    axis.map(|ax| vec![ax]),
                    keepdims,
                )?])
            };
            let statics = format!("axis={axis:?} keepdims={keepdims}");
            Ok(eager::unit::run(name, &statics, &[x], eager::unit::Blocks::Whole, &g)?.remove(0))
        }
    });
    eager::typed(name, r)
}

/// `jnp.nansum`/`nanmax`/`nanmin` of the one text.
fn nan(
    kind: Reduction,
) -> impl Fn(&mut Trace, Atom, Option<Vec<usize>>, bool) -> jax_core::Result<Atom> + Sync {
    move |t, x, axes, keepdims| jax_core::numeric::nan_reduce(t, kind, x, axes, keepdims)
}

/// `jnp.nanargmax`/`nanargmin` of the one text.
fn nan_arg(
    max: bool,
) -> impl Fn(&mut Trace, Atom, Option<Vec<usize>>, bool) -> jax_core::Result<Atom> + Sync {
    move |t, x, axes, keepdims| {
        let axis = axes.map(|a| a[0]);
        jax_core::numeric::arg_reduce(t, x, axis, keepdims, max, true)
    }
}

/// `jnp.var`/`jnp.std` (ddof 0) of the one text.
fn var_of(
    sqrt: bool,
) -> impl Fn(&mut Trace, Atom, Option<Vec<usize>>, bool) -> jax_core::Result<Atom> + Sync {
    move |t, x, axes, keepdims| jax_core::numeric::var(t, x, axes, keepdims, 0, sqrt)
}

reduction! {
    /// The variance with ddof = 0 (`jnp.var`), in [`ToInexact`]'s dtype.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 4>::from([1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(jnp::var(&x).item(), 1.25);
    /// ```
    fn var / var_axis -> <E<A> as ToInexact>::Out, where [E<A>: ToInexact],
        composite var_of(false);
}

reduction! {
    /// The standard deviation with ddof = 0 (`jnp.std`), in [`ToInexact`]'s dtype.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.0, 3.0]);
    /// assert_eq!(jnp::std(&x).item(), 1.0);
    /// ```
    fn std / std_axis -> <E<A> as ToInexact>::Out, where [E<A>: ToInexact],
        composite var_of(true);
}

reduction! {
    /// The largest element (`jnp.max`); NaN if any element is NaN. Panics on
    /// an empty array, as JAX raises.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::max(Array::<i32, 3>::from([4, 9, 2])).item(), 9);
    /// assert!(jnp::max(Array::<f32, 3>::from([1.0, f32::NAN, 3.0])).item().is_nan());
    /// ```
    fn max / max_axis -> E<A>, where [E<A>: PartialOrd],
        kernel |l| max_lane("max", l), fast Fold::Max;
}

reduction! {
    /// The smallest element (`jnp.min`); NaN if any element is NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::min(Array::<i32, 3>::from([4, 9, 2])).item(), 2);
    /// ```
    fn min / min_axis -> E<A>, where [E<A>: PartialOrd],
        kernel |l| min_lane("min", l), fast Fold::Min;
}

reduction! {
    /// The flat index of the largest element (`jnp.argmax`): the first on
    /// ties; a NaN counts as the largest.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::argmax(Array::<f32, 3>::from([1.0, f32::NAN, 3.0])).item(), 1);
    /// ```
    fn argmax / argmax_axis -> IndexInt, where [E<A>: PartialOrd],
        kernel |l| arg_lane("argmax", l, true) as IndexInt;
}

reduction! {
    /// The flat index of the smallest element (`jnp.argmin`): the first on
    /// ties; a NaN counts as the smallest.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::argmin(Array::<f32, 5>::from([2.0, 1.0, 1.0, 0.0, 0.0])).item(), 3);
    /// ```
    fn argmin / argmin_axis -> IndexInt, where [E<A>: PartialOrd],
        kernel |l| arg_lane("argmin", l, false) as IndexInt;
}

reduction! {
    /// The sum with NaNs counted as zero (`jnp.nansum`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 5>::from([1.0, 2.0, f32::NAN, 3.0, 4.0]);
    /// assert_eq!(jnp::nansum(&x).item(), 10.0);
    /// ```
    fn nansum / nansum_axis -> <E<A> as SumType>::Out, where [E<A>: SumType],
        composite nan(Reduction::Sum);
}

reduction! {
    /// The largest non-NaN element (`jnp.nanmax`); NaN if all are NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::nanmax(Array::<f32, 3>::from([1.0, f32::NAN, 3.0])).item(), 3.0);
    /// ```
    fn nanmax / nanmax_axis -> E<A>, where [E<A>: PartialOrd],
        composite nan(Reduction::Max);
}

reduction! {
    /// The smallest non-NaN element (`jnp.nanmin`); NaN if all are NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::nanmin(Array::<f32, 3>::from([1.0, f32::NAN, 3.0])).item(), 1.0);
    /// ```
    fn nanmin / nanmin_axis -> E<A>, where [E<A>: PartialOrd],
        composite nan(Reduction::Min);
}

reduction! {
    /// The index of the largest non-NaN element (`jnp.nanargmax`); -1 if all are NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::nanargmax(Array::<f32, 3>::from([1.0, f32::NAN, 3.0])).item(), 2);
    /// assert_eq!(jnp::nanargmax(Array::<f32, 2>::from([f32::NAN, f32::NAN])).item(), -1);
    /// ```
    fn nanargmax / nanargmax_axis -> IndexInt, where [E<A>: PartialOrd],
        composite nan_arg(true);
}

reduction! {
    /// The index of the smallest non-NaN element (`jnp.nanargmin`); -1 if all are NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::nanargmin(Array::<f32, 3>::from([1.0, f32::NAN, 0.0])).item(), 2);
    /// ```
    fn nanargmin / nanargmin_axis -> IndexInt, where [E<A>: PartialOrd],
        composite nan_arg(false);
}

reduction! {
    /// Whether any element is nonzero (`jnp.any`; NaN counts as true).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert!(jnp::any(Array::<i32, 3>::from([0, 0, 2])).item());
    /// ```
    fn any / any_axis -> bool, where [],
        kernel |l| l.iter().any(|&x| x.cast::<bool>());
}

reduction! {
    /// Whether every element is nonzero (`jnp.all`; true for an empty array).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert!(!jnp::all(Array::<i32, 3>::from([1, 0, 2])).item());
    /// ```
    fn all / all_axis -> bool, where [],
        kernel |l| l.iter().all(|&x| x.cast::<bool>());
}

/// `log(sum(exp(x)))` computed stably (`jax.nn.logsumexp`): the maximum is
/// subtracted first, so large inputs do not overflow; all `-inf` gives
/// `-inf`; in [`ToInexact`]'s dtype. One text with its jitted form
/// (`jax_core::jnp::logsumexp`), run primitive by primitive as JAX runs it
/// eagerly.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2>::from([1000.0, 1000.0]);
/// assert_eq!(jnp::logsumexp(&x).item(), 1000.0 + 2f32.ln());
/// ```
#[track_caller]
pub fn logsumexp<A: AsArray>(x: A) -> Array<<E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    let r = eager::call(|l| jax_core::jnp::logsumexp(l, eager::arg(x), None, false));
    eager::typed("logsumexp", r)
}

/// [`logsumexp`](fn@logsumexp) along one axis (negative counts from the end);
/// `keepdims` leaves the axis with size 1. The caller names the result type,
/// which is checked.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 3>::from([[1.0, 0.0, 3.0], [4.0, 5.0, 2.0]]);
/// let r: Array<_, 2> = jnp::logsumexp_axis(&x, 1, false);
/// let c: Array<_, 1, 3> = jnp::logsumexp_axis(&x, 0, true);
/// assert_eq!(r.to_vec()[0], jnp::logsumexp(Array::<f32, 3>::from([1.0, 0.0, 3.0])).item());
/// assert_eq!(c.shape(), &[1, 3]);
/// ```
#[track_caller]
pub fn logsumexp_axis<A: AsArray, Out: ArrayType<Elem = <E<A> as ToInexact>::Out>>(
    x: A,
    axis: isize,
    keepdims: bool,
) -> Out
where
    E<A>: ToInexact,
{
    let r = eager::call(|l| {
        let x = eager::arg(x);
        let axis = jax_core::jnp::axis(l, &x, axis as i128)?;
        jax_core::jnp::logsumexp(l, x, Some(vec![axis]), keepdims)
    });
    eager::typed("logsumexp", r)
}

macro_rules! methods {
    ($(
        $(#[$doc:meta])* fn $name:ident;
        $(#[$doc_axis:meta])* fn $name_axis:ident -> $out:ty, where [$($bound:tt)*];
    )*) => {
        impl_array! {
            impl<T: Element> Array<T, ..> {
                $(
                    #[doc = concat!("[`jnp::", stringify!($name), "`](crate::jnp::", stringify!($name), ") of this array.")]
                    #[doc = ""]
                    $(#[$doc])*
                    #[track_caller]
                    pub fn $name(&self) -> Array<$out>
                    where
                        $($bound)*
                    {
                        $name(self)
                    }

                    #[doc = concat!("[`jnp::", stringify!($name_axis), "`](crate::jnp::", stringify!($name_axis),
                        ") of this array: one axis, the result type named by the caller.")]
                    #[doc = ""]
                    $(#[$doc_axis])*
                    #[track_caller]
                    pub fn $name_axis<Out: ArrayType<Elem = $out>>(&self, axis: isize, keepdims: bool) -> Out
                    where
                        $($bound)*
                    {
                        $name_axis(self, axis, keepdims)
                    }
                )*
            }
        }
    };
}

methods! {
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
    /// assert_eq!(x.sum().item(), 10.0);
    /// ```
    fn sum;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
    /// let cols: Array<f32, 2> = x.sum_axis(0, false);
    /// assert_eq!(cols.to_vec(), [4.0, 6.0]);
    /// let rows: Array<f32, 2, 1> = x.sum_axis(-1, true);
    /// assert_eq!(rows.to_vec(), [3.0, 7.0]);
    /// ```
    fn sum_axis -> <T as SumType>::Out, where [T: SumType];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
    /// assert_eq!(x.prod().item(), 24.0);
    /// ```
    fn prod;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
    /// let rows: Array<f32, 2> = x.prod_axis(1, false);
    /// assert_eq!(rows.to_vec(), [2.0, 12.0]);
    /// ```
    fn prod_axis -> <T as SumType>::Out, where [T: SumType];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 6.0]]);
    /// assert_eq!(x.mean().item(), 3.0);
    /// ```
    fn mean;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 6.0]]);
    /// let cols: Array<f32, 2> = x.mean_axis(0, false);
    /// assert_eq!(cols.to_vec(), [2.0, 4.0]);
    /// ```
    fn mean_axis -> <T as ToInexact>::Out, where [T: ToInexact];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 3.0], [2.0, 6.0]]);
    /// assert_eq!(x.var().item(), 3.5);
    /// ```
    fn var;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 3.0], [2.0, 6.0]]);
    /// let rows: Array<f32, 2> = x.var_axis(1, false);
    /// assert_eq!(rows.to_vec(), [1.0, 4.0]);
    /// ```
    fn var_axis -> <T as ToInexact>::Out, where [T: ToInexact];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[0.0, 2.0], [0.0, 2.0]]);
    /// assert_eq!(x.std().item(), 1.0);
    /// ```
    fn std;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 3.0], [2.0, 6.0]]);
    /// let rows: Array<f32, 2> = x.std_axis(1, false);
    /// assert_eq!(rows.to_vec(), [1.0, 2.0]);
    /// ```
    fn std_axis -> <T as ToInexact>::Out, where [T: ToInexact];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2, 2>::from([[1, 5], [3, 2]]);
    /// assert_eq!(x.max().item(), 5);
    /// ```
    fn max;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2, 2>::from([[1, 5], [3, 2]]);
    /// let cols: Array<i32, 2> = x.max_axis(0, false);
    /// assert_eq!(cols.to_vec(), [3, 5]);
    /// ```
    fn max_axis -> T, where [T: PartialOrd];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2, 2>::from([[1, 5], [3, 2]]);
    /// assert_eq!(x.min().item(), 1);
    /// ```
    fn min;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2, 2>::from([[1, 5], [3, 2]]);
    /// let rows: Array<i32, 2> = x.min_axis(1, false);
    /// assert_eq!(rows.to_vec(), [1, 2]);
    /// ```
    fn min_axis -> T, where [T: PartialOrd];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 5.0], [3.0, 2.0]]);
    /// assert_eq!(x.argmax().item(), 1); // the flat index
    /// ```
    fn argmax;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 5.0], [3.0, 2.0]]);
    /// let rows: Array<DefaultInt, 2> = x.argmax_axis(1, false);
    /// assert_eq!(rows.to_vec(), [1, 0]);
    /// ```
    fn argmax_axis -> IndexInt, where [T: PartialOrd];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 5.0], [3.0, 0.5]]);
    /// assert_eq!(x.argmin().item(), 3); // the flat index
    /// ```
    fn argmin;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2, 2>::from([[1.0, 5.0], [3.0, 0.5]]);
    /// let cols: Array<DefaultInt, 2> = x.argmin_axis(0, false);
    /// assert_eq!(cols.to_vec(), [0, 1]);
    /// ```
    fn argmin_axis -> IndexInt, where [T: PartialOrd];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 3>::from([0, 0, 2]);
    /// assert!(x.any().item());
    /// assert!(!Array::<bool, 2>::zeros().any().item());
    /// ```
    fn any;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<bool, 2, 2>::from([[false, true], [false, false]]);
    /// let rows: Array<bool, 2> = x.any_axis(1, false);
    /// assert_eq!(rows.to_vec(), [true, false]);
    /// ```
    fn any_axis -> bool, where [];

    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 3>::from([1, 2, 0]);
    /// assert!(!x.all().item());
    /// assert!(Array::<bool, 2>::ones().all().item());
    /// ```
    fn all;
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<bool, 2, 2>::from([[true, true], [false, true]]);
    /// let rows: Array<bool, 2> = x.all_axis(1, false);
    /// assert_eq!(rows.to_vec(), [true, false]);
    /// ```
    fn all_axis -> bool, where [];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bf16;

    // The default int is i32 with x64 off.
    #[cfg(not(feature = "x64"))]
    #[test]
    fn dtypes_follow_jax() {
        use crate::f16;
        let b = Array::<bool, 3>::from([true, true, false]);
        let s: Array<i32> = sum(&b);
        assert_eq!(s.item(), 2);
        let u = Array::<u8, 2>::from([200, 100]);
        let s: Array<u32> = u.sum();
        assert_eq!(s.item(), 300);
        let m: Array<f32> = u.mean();
        assert_eq!(m.item(), 150.0);
        let h = Array::<f16, 2>::from([f16::from_f32(1.0), f16::from_f32(2.0)]);
        let v: Array<f16> = h.var();
        assert_eq!(v.item().to_f32(), 0.25);
        let i: Array<IndexInt> = h.argmax();
        assert_eq!(i.item(), 1);
    }

    #[test]
    fn axis_forms_check_their_result_type() {
        let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let a: Array<f32, 3> = x.sum_axis(0, false);
        assert_eq!(a.to_vec(), [5.0, 7.0, 9.0]);
        let b: Array<f32, 2, 1> = x.prod_axis(-1, true);
        assert_eq!(b.to_vec(), [6.0, 120.0]);
        let r = std::panic::catch_unwind(|| {
            let _: Array<f32, 3> = x.sum_axis(1, false);
        });
        assert!(r.is_err());
    }

    #[test]
    fn any_all_and_nan_extremes() {
        let x = Array::<f32, 2, 2>::from([[f32::NAN, 0.0], [f32::NAN, f32::NAN]]);
        let a: Array<bool, 2> = x.any_axis(1, false);
        assert_eq!(a.to_vec(), [true, true]); // NaN is true
        let m: Array<f32, 2> = nanmax_axis(&x, 1, false);
        assert_eq!(m.to_vec()[0], 0.0);
        assert!(m.to_vec()[1].is_nan());
        let bf = Array::<bf16, 2>::from([bf16::from_f32(-1.0), bf16::NAN]);
        assert_eq!(nanmin(&bf).item().to_f32(), -1.0);
    }

    #[test]
    fn logsumexp_edge_cases() {
        let all_neg_inf = Array::<f32, 2>::from([f32::NEG_INFINITY; 2]);
        assert_eq!(logsumexp(&all_neg_inf).item(), f32::NEG_INFINITY);
        let with_inf = Array::<f32, 2>::from([f32::INFINITY, 1.0]);
        assert_eq!(logsumexp(&with_inf).item(), f32::INFINITY);
        let with_nan = Array::<f32, 2>::from([f32::NAN, 1.0]);
        assert!(logsumexp(&with_nan).item().is_nan());
    }

    #[test]
    #[should_panic(expected = "zero-size array")]
    fn max_of_empty_panics() {
        let _ = Array::<f32, 0>::zeros().max();
    }
}
