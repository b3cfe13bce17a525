//! Control flow, run eagerly: `cond`, `switch`, `fori_loop`, `while_loop`,
//! `scan` (`jax.lax`'s, with the same argument order). Eagerly these are ordinary
//! Rust branches and loops; the functions exist so the same code runs
//! eagerly and inside `#[jax::jit]`.

use crate::array::{impl_array, Array, ArrayType};
use crate::element::DefaultInt;
use crate::element::Element;

/// A predicate: a `bool`, or a boolean array of rank 0 (what comparisons
/// of scalars give).
///
/// ```
/// use jax::{lax::Pred, Array};
/// assert!(true.truth());
/// let x = Array::<f32>::from(2.0f32);
/// assert!(x.gt(0.0).truth() && !x.lt(0.0).truth());
/// ```
pub trait Pred {
    /// Whether the predicate holds.
    fn truth(&self) -> bool;
}

impl Pred for bool {
    fn truth(&self) -> bool {
        *self
    }
}

impl Pred for Array<bool> {
    fn truth(&self) -> bool {
        self.item()
    }
}

impl Pred for &Array<bool> {
    fn truth(&self) -> bool {
        self.item()
    }
}

/// `jax.lax.cond(pred, true_fun, false_fun, operand)`: one of the two
/// functions applied to `operand`.
///
/// ```
/// use jax::{lax, Array};
/// let x = Array::<f32, 2>::from([1.0, 2.0]);
/// let y = lax::cond(true, |x: Array<f32, 2>| x + 1.0f32, |x| x - 1.0f32, x);
/// assert_eq!(y.to_vec(), [2.0, 3.0]);
/// ```
pub fn cond<O, R>(
    pred: impl Pred,
    true_fun: impl FnOnce(O) -> R,
    false_fun: impl FnOnce(O) -> R,
    operand: O,
) -> R {
    if pred.truth() {
        true_fun(operand)
    } else {
        false_fun(operand)
    }
}

/// `jax.lax.switch(index, branches, operand)`: `branches[index]` applied to
/// `operand`, the index clamped into range as JAX does.
///
/// ```
/// use jax::lax;
/// let branches: [&dyn Fn(f32) -> f32; 3] = [&|x| x, &|x| x * 2.0, &|x| x * 3.0];
/// assert_eq!(lax::switch(1, &branches, 5.0), 10.0);
/// assert_eq!(lax::switch(7, &branches, 5.0), 15.0); // clamped to the last
/// assert_eq!(lax::switch(-1, &branches, 5.0), 5.0); // and to the first
/// ```
pub fn switch<O, R>(index: i64, branches: &[&dyn Fn(O) -> R], operand: O) -> R {
    assert!(!branches.is_empty(), "switch needs at least one branch");
    let k = index.clamp(0, branches.len() as i64 - 1) as usize;
    branches[k](operand)
}

/// `jax.lax.fori_loop(lower, upper, body_fun, init_val)`: `body_fun(i,
/// carry)` for `i` in `lower..upper`, the index in JAX's default integer
/// type.
///
/// ```
/// use jax::{lax, Array};
/// // The seed's example: the sum of 0..10 read from an array.
/// let array = Array::<i32, 10>::arange();
/// let total = lax::fori_loop(0, 10, |i, x| x + array.clone().at(i).get::<Array<i32>>().item(), 0);
/// assert_eq!(total, 45);
/// ```
pub fn fori_loop<C>(
    lower: DefaultInt,
    upper: DefaultInt,
    mut body_fun: impl FnMut(DefaultInt, C) -> C,
    init_val: C,
) -> C {
    let mut carry = init_val;
    let mut i = lower;
    while i < upper {
        carry = body_fun(i, carry);
        i += 1;
    }
    carry
}

/// `jax.lax.while_loop(cond_fun, body_fun, init_val)`: `body_fun` applied
/// while `cond_fun` holds.
///
/// ```
/// use jax::lax;
/// assert_eq!(lax::while_loop(|c: &(i32, f32)| c.0 < 3, |(i, x)| (i + 1, x * 2.0), (0, 1.5)).1, 12.0);
/// ```
pub fn while_loop<C, P: Pred>(
    mut cond_fun: impl FnMut(&C) -> P,
    mut body_fun: impl FnMut(C) -> C,
    init_val: C,
) -> C {
    let mut carry = init_val;
    while cond_fun(&carry).truth() {
        carry = body_fun(carry);
    }
    carry
}

/// `lax.scan`'s keyword arguments: `length` (needed when there are no xs)
/// and `reverse` (run the steps last first; ys stay in step order, as in
/// JAX). Rust has no keyword arguments, so [`scan_with`] takes this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanOptions {
    /// The number of steps: needed when there are no xs, and checked
    /// against their leading axis when there are.
    pub length: Option<usize>,
    /// Whether the steps run from the last row to the first.
    pub reverse: bool,
}

/// The xs of a scan: arrays whose leading axis is the step, or tuples of
/// them, or `()` (no xs: give a `length`).
///
/// ```
/// use jax::{lax::ScanXs, Array};
/// assert_eq!(Array::<f32, 5, 2>::zeros().steps(), Some(5));
/// assert_eq!((Array::<i32, 5>::zeros(), ()).steps(), Some(5));
/// assert_eq!(().steps(), None);
/// ```
pub trait ScanXs {
    /// The length of the leading axis, or `None` for `()`.
    fn steps(&self) -> Option<usize>;
}

/// One step's row of `X`, typed by the body's parameter.
///
/// ```
/// use jax::{lax::ScanRow, Array};
/// let xs = Array::<i32, 3, 2>::from([[1, 2], [3, 4], [5, 6]]);
/// let r: Array<i32, 2> = ScanRow::row(&xs, 1);
/// assert_eq!(r.to_vec(), [3, 4]);
/// ```
pub trait ScanRow<X>: Sized {
    /// Row `t` of `xs` (its index `t` along the leading axis).
    fn row(xs: &X, t: usize) -> Self;
}

/// The ys of a scan stacked from each step's rows.
///
/// ```
/// use jax::{lax::ScanYs, Array};
/// let rows = vec![Array::<f32, 2>::from([1.0, 2.0]), Array::from([3.0, 4.0])];
/// let ys: Array<f32, 2, 2> = ScanYs::stack(rows);
/// assert_eq!(ys.to_vec(), [1.0, 2.0, 3.0, 4.0]);
/// let ys: Array<i64, 3> = ScanYs::stack(vec![7i64, 8, 9]);
/// assert_eq!(ys.shape(), &[3]);
/// ```
pub trait ScanYs<R>: Sized {
    /// The rows stacked along a new leading axis, one per step.
    fn stack(rows: Vec<R>) -> Self;
}

impl ScanXs for () {
    fn steps(&self) -> Option<usize> {
        None
    }
}

impl ScanRow<()> for () {
    fn row(_: &(), _: usize) {}
}

impl ScanYs<()> for () {
    fn stack(_: Vec<()>) {}
}

impl_array! {
    impl<T: Element> ScanXs for Array<T, ..> {
        fn steps(&self) -> Option<usize> {
            Some(
                *<Self as ArrayType>::SHAPE
                    .first()
                    .expect("scan's xs need a leading axis"),
            )
        }
    }
}

/// `S` must be `R` with a leading axis of `steps` rows.
fn check_stacked(what: &str, s: &[usize], r: &[usize], steps: usize) {
    if s.first() != Some(&steps) || &s[1..] != r {
        panic!("scan: {what} of shape {s:?} do not stack rows of shape {r:?} over {steps} steps");
    }
}

impl<A: ArrayType, R: ArrayType<Elem = A::Elem>> ScanRow<A> for R {
    fn row(xs: &A, t: usize) -> R {
        check_stacked(
            "xs",
            A::SHAPE,
            R::SHAPE,
            A::SHAPE.first().copied().unwrap_or(0),
        );
        R::from_data(xs.data()[t * R::SIZE..(t + 1) * R::SIZE].to_vec())
    }
}

impl<R: ArrayType, S: ArrayType<Elem = R::Elem>> ScanYs<R> for S {
    fn stack(rows: Vec<R>) -> S {
        check_stacked("ys", S::SHAPE, R::SHAPE, rows.len());
        let mut data = Vec::with_capacity(S::SIZE);
        for r in &rows {
            data.extend_from_slice(r.data());
        }
        S::from_data(data)
    }
}

/// Rust scalars as ys stack into a rank-1 array.
macro_rules! scalar_ys {
    ($($t:ty),*) => {$(
        impl<const N: usize> ScanYs<$t> for Array<$t, N> {
            fn stack(rows: Vec<$t>) -> Self {
                check_stacked("ys", &[N], &[], rows.len());
                Array::from_data(rows)
            }
        }
    )*};
}
scalar_ys!(f32, f64, i32, i64, bool);

macro_rules! tuple_scan {
    ($(($x:ident, $r:ident, $s:ident, $k:tt)),*) => {
        impl<$($x: ScanXs),*> ScanXs for ($($x,)*) {
            fn steps(&self) -> Option<usize> {
                let mut n: Option<usize> = None;
                $(
                    if let Some(m) = self.$k.steps() {
                        if n.is_some_and(|n| n != m) {
                            panic!("scan got xs of different leading lengths: {} and {m}", n.unwrap());
                        }
                        n = Some(m);
                    }
                )*
                n
            }
        }
        impl<$($x, $r: ScanRow<$x>),*> ScanRow<($($x,)*)> for ($($r,)*) {
            fn row(xs: &($($x,)*), t: usize) -> Self {
                ($($r::row(&xs.$k, t),)*)
            }
        }
        impl<$($r, $s: ScanYs<$r>),*> ScanYs<($($r,)*)> for ($($s,)*) {
            #[allow(non_snake_case)]
            fn stack(rows: Vec<($($r,)*)>) -> Self {
                $(let mut $r = Vec::with_capacity(rows.len());)*
                for row in rows {
                    $($r.push(row.$k);)*
                }
                ($($s::stack($r),)*)
            }
        }
    };
}
tuple_scan!((X0, R0, S0, 0), (X1, R1, S1, 1));
tuple_scan!((X0, R0, S0, 0), (X1, R1, S1, 1), (X2, R2, S2, 2));
tuple_scan!(
    (X0, R0, S0, 0),
    (X1, R1, S1, 1),
    (X2, R2, S2, 2),
    (X3, R3, S3, 3)
);

/// `jax.lax.scan(f, init, xs)`: `f(carry, x)` for each row `x` of `xs` in
/// turn, threading the carry; returns the final carry and the ys stacked.
/// Each row's type is the body's parameter type; the ys' stacked type is
/// the result's (both checked against the shapes when the scan runs).
///
/// ```
/// use jax::{lax, Array};
/// let xs = Array::<f32, 4>::from([1.0, 2.0, 3.0, 4.0]);
/// let (total, partial): (Array<f32>, Array<f32, 4>) =
///     lax::scan(|c: Array<f32>, x: Array<f32>| (&c + &x, &c + &x), Array::from(0.0f32), xs);
/// assert_eq!(total.item(), 10.0);
/// assert_eq!(partial.to_vec(), [1.0, 3.0, 6.0, 10.0]);
/// ```
pub fn scan<C, X: ScanXs, R: ScanRow<X>, Y, S: ScanYs<Y>>(
    f: impl FnMut(C, R) -> (C, Y),
    init: C,
    xs: X,
) -> (C, S) {
    scan_with(f, init, xs, ScanOptions::default())
}

/// [`scan`] with `length` and `reverse` (see [`ScanOptions`]).
///
/// ```
/// use jax::{lax, Array};
/// let xs = Array::<i32, 3>::from([1, 2, 3]);
/// let opts = lax::ScanOptions { reverse: true, ..Default::default() };
/// let (_, seen): (i32, Array<i32, 3>) = lax::scan_with(|c: i32, x: Array<i32>| (c * 10 + x.item(), c * 10 + x.item()), 0, xs, opts);
/// assert_eq!(seen.to_vec(), [321, 32, 3]);
/// ```
pub fn scan_with<C, X: ScanXs, R: ScanRow<X>, Y, S: ScanYs<Y>>(
    mut f: impl FnMut(C, R) -> (C, Y),
    init: C,
    xs: X,
    options: ScanOptions,
) -> (C, S) {
    let n = match (xs.steps(), options.length) {
        (Some(n), Some(l)) if n != l => {
            panic!("scan got `length` argument of {l} which disagrees with leading axis sizes {n}")
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => panic!("scan got no values to scan over and `length` not provided."),
    };
    let mut carry = init;
    let mut ys: Vec<Option<Y>> = (0..n).map(|_| None).collect();
    for step in 0..n {
        let t = if options.reverse { n - 1 - step } else { step };
        let (c, y) = f(carry, R::row(&xs, t));
        carry = c;
        ys[t] = Some(y);
    }
    (
        carry,
        S::stack(ys.into_iter().map(|y| y.expect("every step ran")).collect()),
    )
}
