//! Control flow, run eagerly: `cond`, `switch`, `fori_loop`, `while_loop`
//! (`jax.lax`'s, with the same argument order). Eagerly these are ordinary
//! Rust branches and loops; the functions exist so the same code runs
//! eagerly and inside `#[jax::jit]`.

use crate::array::Array;
use crate::element::DefaultInt;

/// A predicate: a `bool`, or a boolean array of rank 0 (what comparisons
/// of scalars give).
pub trait Pred {
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
