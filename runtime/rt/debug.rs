//! What the checks of `jax_debug_nans` call (see [`crate::debug`]).

use crate::element::Element;

/// The value the flags look for in `x`: `"nan"`, or `"inf"` with
/// `jax_debug_infs`. Only floats can hold either.
#[inline]
pub fn bad_scalar<T: Element>(x: T) -> Option<&'static str> {
    if !T::DTYPE.is_float() {
        return None;
    }
    let v = x.to_f64();
    if v.is_nan() {
        Some("nan")
    } else if v.is_infinite() && crate::config::debug_infs() {
        Some("inf")
    } else {
        None
    }
}

/// The first bad value in `xs` (see [`bad_scalar`]).
pub fn bad<T: Element>(xs: &[T]) -> Option<&'static str> {
    if !T::DTYPE.is_float() {
        return None;
    }
    xs.iter().find_map(|&x| bad_scalar(x))
}

/// Says, as JAX does, that the function runs again one operation at a
/// time (on standard error: standard output is the program's).
pub fn replaying(value: &str) {
    eprintln!(
        "Invalid {value} value encountered in the output of a jax.jit function. Calling the de-optimized version."
    );
}

/// The error for a bad value `value` made by `primitive` at `location`.
pub fn error(
    value: &'static str,
    primitive: &'static str,
    location: &'static str,
) -> crate::debug::FloatingPointError {
    crate::debug::FloatingPointError {
        value,
        primitive,
        location,
    }
}

pub use crate::debug::{active, print_line as print, raise};
