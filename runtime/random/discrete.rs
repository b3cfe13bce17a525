//! Samplers of indices: `categorical` and `choice`, as JAX draws them
//! (Gumbel-max for categories, `randint` or a shuffle for uniform choices,
//! inverse CDF or Gumbel top-k for weighted ones).

use super::continuous::Continuous;
use super::randint::RandInt;
use super::{aval_of, key_value, Key};
use crate::array::ArrayType;
use crate::eager;
use crate::element::{DType, Element};
use crate::shape::ConstMsg;

/// Panics unless an integer type of `dtype` (largest value `max`) holds
/// every index `0..n`: a narrower type would wrap and repeat values. JAX's
/// index samplers return the default integer type; here the caller's type
/// annotation chooses, so it is checked. In a `const` block (when `n` is in
/// the types) the panic is a compile error.
#[track_caller]
pub(super) const fn check_indices_fit(op: &str, dtype: DType, n: usize, max: i128) {
    if n > 0 && (n - 1) as i128 > max {
        let m = ConstMsg::new()
            .str(op)
            .str(": the result type ")
            .str(dtype.short_name())
            .str(" cannot hold the indices 0..")
            .num(n)
            .str("; use a wider integer type (JAX returns int32)");
        panic!("{}", m.as_str());
    }
}

/// `jax.random.categorical(key, logits, axis)`: for each position of the
/// other axes, a category index drawn with probabilities `softmax(logits)`
/// along `axis` (negative counts from the end).
///
/// The result type names the shape: the logits' shape without `axis`, or
/// that shape after leading sample dimensions (JAX's `shape` argument):
/// logits `f32[4, 5]` with `axis = -1` give `Array<i32, 4>`, or
/// `Array<i32, 3, 4>` for three samples per row.
///
/// ```
/// use jax::{random, Array};
/// let logits = Array::<f32, 3>::from([0.0, 0.0, 50.0]);
/// let c: Array<i32, 6> = random::categorical(random::key(0), &logits, -1);
/// assert_eq!(c.to_vec(), [2; 6]);
/// ```
///
/// Panics, as JAX raises, when `axis` has no categories (`categorical:
/// attempt to get argmax of an empty sequence`), and when the result's
/// integer type cannot hold the category indices.
///
/// ```should_panic
/// use jax::{random, Array};
/// let logits = Array::<f32, 0>::zeros();
/// let _: Array<i32> = random::categorical(random::key(0), &logits, -1);
/// ```
pub fn categorical<A, L>(k: Key, logits: &L, axis: isize) -> A
where
    A: ArrayType,
    A::Elem: RandInt,
    L: ArrayType,
    L::Elem: Continuous,
{
    let rank = L::SHAPE.len();
    assert!(rank > 0, "categorical: logits must have at least one axis");
    let ax = if axis < 0 { axis + rank as isize } else { axis };
    assert!(
        (0..rank as isize).contains(&ax),
        "categorical: axis {axis} is out of bounds for logits of rank {rank}"
    );
    let ax = ax as usize;
    let n = L::SHAPE[ax];
    // JAX's `jnp.argmax` raises for an empty axis, whatever the other axes.
    assert!(
        n > 0,
        "categorical: attempt to get argmax of an empty sequence (axis {axis} of the logits' shape {:?} has no categories)",
        L::SHAPE
    );
    if A::SIZE > 0 {
        check_indices_fit("categorical", A::Elem::DTYPE, n, <A::Elem as RandInt>::MAX);
    }
    let batch: Vec<usize> = L::SHAPE
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != ax)
        .map(|(_, &d)| d)
        .collect();
    assert!(
        A::SHAPE.ends_with(&batch),
        "categorical: the result shape {:?} must end with the logits' shape without axis {axis}, {batch:?}",
        A::SHAPE
    );
    let r = eager::call(|l| {
        jax_core::random::categorical(
            l,
            key_value(k),
            eager::array_arg(logits),
            ax,
            &aval_of::<A>(),
        )
    });
    eager::typed("categorical", r)
}

/// Panics with JAX's messages when `draws` cannot be taken from `n`.
#[track_caller]
fn check_population(n: usize, draws: usize, replace: bool) {
    if let Err(msg) = jax_dtypes::checks::choice_population(n, draws, replace) {
        panic!("{msg}");
    }
}

/// `jax.random.choice(key, n, shape, replace)`: integers from `0..n`, the
/// shape and integer type from the result type; without replacement no
/// value repeats.
///
/// ```
/// let c: jax::Array<i32, 4> = jax::random::choice(jax::random::key(0), 10, false);
/// let mut v = c.to_vec();
/// v.sort();
/// v.dedup();
/// assert_eq!(v.len(), 4);
/// ```
///
/// With replacement the draws are JAX's `randint(key, shape, 0, n)` in the
/// default integer type; a population larger than that type holds is drawn
/// with int64's `randint`, as JAX does with `jax_enable_x64`:
///
/// ```
/// use jax::{random, Array};
/// let n = 5_000_000_000i64;
/// let c: Array<i64, 8> = random::choice(random::key(0), n as usize, true);
/// assert_eq!(c, random::randint::<Array<i64, 8>>(random::key(0), 0, n));
/// ```
///
/// Panics when the result's integer type cannot hold `n - 1` (its values
/// would wrap), and with JAX's messages when `n` is 0 or smaller than the
/// number of draws without replacement.
pub fn choice<A>(k: Key, n: usize, replace: bool) -> A
where
    A: ArrayType,
    A::Elem: RandInt,
{
    if A::SIZE > 0 {
        check_indices_fit("choice", A::Elem::DTYPE, n, <A::Elem as RandInt>::MAX);
    }
    check_population(n, A::SIZE, replace);
    let r = eager::call(|l| jax_core::random::choice(l, key_value(k), n, replace, &aval_of::<A>()));
    eager::typed("choice", r)
}

/// `jax.random.choice(key, x, shape, replace)`: rows (first-axis slices) of
/// `x`. The result type is the draws' shape followed by a row's shape:
/// drawing 3 rows of `f32[4, 2]` gives `Array<f32, 3, 2>`.
pub fn choice_rows<A, X>(k: Key, x: &X, replace: bool) -> A
where
    A: ArrayType<Elem = X::Elem>,
    X: ArrayType,
{
    assert!(
        !X::SHAPE.is_empty(),
        "choice_rows: x must have at least one axis; use choice for 0..n"
    );
    let row_shape = &X::SHAPE[1..];
    assert!(
        A::SHAPE.ends_with(row_shape),
        "choice_rows: the result shape {:?} must end with a row's shape {row_shape:?}",
        A::SHAPE
    );
    let row_len: usize = row_shape.iter().product();
    check_population(
        X::SHAPE[0],
        A::SIZE.checked_div(row_len).unwrap_or(0),
        replace,
    );
    let r = eager::call(|l| {
        jax_core::random::choice_rows(
            l,
            key_value(k),
            eager::array_arg(x),
            replace,
            &aval_of::<A>(),
        )
    });
    eager::typed("choice_rows", r)
}

/// `jax.random.choice(key, len(p), shape, replace, p)`: indices drawn with
/// probabilities proportional to `p` (inverse CDF with replacement, Gumbel
/// top-k without).
///
/// ```
/// use jax::{random, Array};
/// let p = Array::<f32, 3>::from([0.0, 1.0, 0.0]);
/// let c: Array<i32, 5> = random::choice_weighted(random::key(0), &p, true);
/// assert_eq!(c.to_vec(), [1; 5]);
/// ```
///
/// The result type must hold the indices `0..len(p)`, or it does not compile:
///
/// ```compile_fail,E0080
/// use jax::{random, Array};
/// let p = Array::<f32, 300>::ones();
/// let c: Array<u8, 5> = random::choice_weighted(random::key(0), &p, true);
/// ```
pub fn choice_weighted<A, P>(k: Key, p: &P, replace: bool) -> A
where
    A: ArrayType,
    A::Elem: RandInt,
    P: ArrayType,
    P::Elem: Continuous,
{
    assert!(
        P::SHAPE.len() == 1,
        "choice_weighted: p must be a 1-D array, got shape {:?}",
        P::SHAPE
    );
    const {
        if A::SIZE > 0 {
            check_indices_fit(
                "choice_weighted",
                <A::Elem as Element>::DTYPE,
                P::SIZE,
                <A::Elem as RandInt>::MAX,
            )
        }
    };
    let n = P::SIZE;
    check_population(n, A::SIZE, replace);
    let r = eager::call(|l| {
        jax_core::random::choice_weighted(
            l,
            key_value(k),
            eager::array_arg(p),
            replace,
            &aval_of::<A>(),
        )
    });
    eager::typed("choice_weighted", r)
}
