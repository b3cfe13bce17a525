//! Debugging jitted code: `jax_debug_nans` reports, `FloatingPointError`,
//! and [`checked`] for a `Result` instead of a panic.
//!
//! With `jax_debug_nans` on (`JAX_DEBUG_NANS=1`, or
//! [`config::update`](crate::config::update)), a jitted function checks its
//! outputs after each call. On a NaN it runs the same computation again one
//! operation at a time, stops at the first operation that made a NaN from
//! inputs without one, and panics with the operation and the place in your
//! source, as JAX raises `FloatingPointError`:
//!
//! ```text
//! FloatingPointError: invalid value (nan) encountered in div at src/model.rs:12:9
//! ```
//!
//! With the flags off, a call pays one relaxed atomic load; the compiled
//! loops are the same.

use std::cell::RefCell;
use std::fmt;

/// JAX's `FloatingPointError`: which value (`nan` or `inf`), the primitive
/// that produced it, and where the user's expression is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FloatingPointError {
    /// `"nan"` or `"inf"`.
    pub value: &'static str,
    /// The primitive, by its jaxpr name (`div`, `log`, `dot_general`).
    pub primitive: &'static str,
    /// `file:line:column` of the expression, or the function's name when
    /// the operation that made the value was not found (it came in through
    /// an argument).
    pub location: &'static str,
}

impl fmt::Display for FloatingPointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FloatingPointError: invalid value ({}) encountered in {} at {}",
            self.value, self.primitive, self.location
        )
    }
}

impl std::error::Error for FloatingPointError {}

thread_local! {
    /// Set by [`checked`]: errors are kept here instead of panicking.
    static CAUGHT: RefCell<Option<Option<FloatingPointError>>> = const { RefCell::new(None) };
}

/// Runs `f` (calls of jitted functions) with their outputs checked for NaN
/// (and for infinities with `jax_debug_infs`) whatever the flags say, and
/// returns the first `FloatingPointError` instead of panicking.
///
/// ```
/// #[jax::jit]
/// fn ratio(x: &jax::Array<f32, 2>, y: &jax::Array<f32, 2>) -> jax::Array<f32, 2> {
///     x / y
/// }
/// let (x, y) = (jax::Array::from([1.0f32, 0.0]), jax::Array::from([2.0f32, 0.0]));
/// let err = jax::debug::checked(|| ratio(&x, &y)).unwrap_err();
/// assert_eq!((err.value, err.primitive), ("nan", "div"));
/// assert!(err.location.contains(".rs:"), "{}", err.location);
/// ```
pub fn checked<R>(f: impl FnOnce() -> R) -> Result<R, FloatingPointError> {
    let outer = CAUGHT.with(|c| c.replace(Some(None)));
    let r = f();
    let caught = CAUGHT.with(|c| c.replace(outer));
    match caught.flatten() {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

/// Whether jitted functions check their outputs now.
#[doc(hidden)]
#[inline]
pub fn active() -> bool {
    crate::config::debug_checks() || CAUGHT.with(|c| c.borrow().is_some())
}

/// Reports an error: kept for [`checked`], else a panic (at the jitted
/// function).
#[doc(hidden)]
#[track_caller]
pub fn raise(e: FloatingPointError) {
    let kept = CAUGHT.with(|c| match &mut *c.borrow_mut() {
        Some(slot) => {
            slot.get_or_insert(e.clone());
            true
        }
        None => false,
    });
    if !kept {
        panic!("{e}");
    }
}
