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
///
/// ```
/// use jax::debug::FloatingPointError;
/// let e = FloatingPointError { value: "nan", primitive: "log", location: "src/model.rs:3:5" };
/// assert_eq!(
///     e.to_string(),
///     "FloatingPointError: invalid value (nan) encountered in log at src/model.rs:3:5"
/// );
/// ```
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
    /// Set by [`capture_prints`]: what `print!` wrote.
    static PRINTED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// `jax.debug.print`: prints when the code runs, inside `#[jax::jit]` too,
/// with the traced values (arrays as numpy's `str`). Arguments are arrays
/// or scalars, positional or `name = value`; a name in the format string
/// must be an argument. Inside a jitted function the print runs after the
/// values it shows are computed, in the order of the program; in a loop,
/// once per step. Eagerly it is `println!`.
///
/// ```
/// #[jax::jit]
/// fn f(x: &jax::Array<f32, 3>) -> jax::Array<f32, 3> {
///     let y = jax::jnp::sin(x);
///     jax::debug::print!("y = {}, x = {x}", y, x = x);
///     y * 2.0
/// }
/// let x = jax::Array::<f32, 3>::from([0.0, 0.5, 1.0]);
/// let (_, printed) = jax::debug::capture_prints(|| f(&x));
/// assert_eq!(printed, "y = [0.         0.47942555 0.84147096], x = [0.  0.5 1. ]\n");
/// ```
pub use crate::__debug_print as print;

#[doc(hidden)]
#[macro_export]
macro_rules! __debug_print {
    ($($t:tt)*) => {
        $crate::__rt::debug::print(::std::format_args!($($t)*))
    };
}

/// Runs `f` and returns, with its result, what [`print!`] printed in it
/// on this thread (instead of printing it): for tests of code that prints.
/// A panic in `f` propagates, and its text is dropped: later prints go
/// where they went before the call.
///
/// ```
/// let x = jax::Array::<i32, 3>::from([1, 2, 3]);
/// let (n, printed) = jax::debug::capture_prints(|| {
///     jax::debug::print!("x = {}", x);
///     x.sum().item()
/// });
/// assert_eq!((n, printed.as_str()), (6, "x = [1 2 3]\n"));
/// ```
pub fn capture_prints<R>(f: impl FnOnce() -> R) -> (R, String) {
    let scope = Scope::enter(&PRINTED, Some(String::new()));
    let r = f();
    (r, scope.leave().unwrap_or_default())
}

/// A thread-local's value for the length of a call: the previous value comes
/// back when the scope ends, by [`Scope::leave`] or by a panic unwinding
/// through it (a drop), so a panic cannot leave the thread in the scope's mode.
struct Scope<T: 'static> {
    key: &'static std::thread::LocalKey<RefCell<T>>,
    /// The value before the scope; `None` once given back.
    outer: Option<T>,
}

impl<T: 'static> Scope<T> {
    fn enter(key: &'static std::thread::LocalKey<RefCell<T>>, value: T) -> Self {
        let outer = Some(key.with(|c| c.replace(value)));
        Scope { key, outer }
    }

    /// Puts the previous value back and returns the scope's.
    fn leave(mut self) -> T {
        let outer = self.outer.take().expect("given back once");
        self.key.with(|c| c.replace(outer))
    }
}

impl<T: 'static> Drop for Scope<T> {
    fn drop(&mut self) {
        if let Some(outer) = self.outer.take() {
            // `try_with`: a scope unwinding while the thread exits must not
            // panic again.
            let _ = self.key.try_with(|c| c.replace(outer));
        }
    }
}

#[doc(hidden)]
pub fn print_line(args: fmt::Arguments<'_>) {
    let kept = PRINTED.with(|p| match &mut *p.borrow_mut() {
        Some(s) => {
            use std::fmt::Write;
            let _ = writeln!(s, "{args}");
            true
        }
        None => false,
    });
    if !kept {
        println!("{args}");
    }
}

/// Runs `f` (calls of jitted functions) with their outputs checked for NaN
/// (and for infinities with `jax_debug_infs`) whatever the flags say, and
/// returns the first `FloatingPointError` instead of panicking.
///
/// It observes the calling thread only: jitted functions that `f` calls on
/// other threads (rayon's workers in a parallel iterator, spawned threads)
/// behave as without `checked`. With the flags off they do not check, and
/// their NaNs come back as values; with `jax_debug_nans` on they panic on
/// their thread, and rayon carries that panic, with the error's message, to
/// the thread that waits for the work, so it leaves `checked` as a panic,
/// not an `Err`. (A thread-local cannot follow work onto rayon's threads;
/// call `checked` in the worker's closure to get an `Err` there.) The loops a
/// jitted function parallelizes itself are checked: the check runs on the
/// calling thread, after the call.
///
/// A panic in `f` propagates; the thread leaves `checked`'s mode as it
/// does on return.
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
    let scope = Scope::enter(&CAUGHT, Some(None));
    let r = f();
    match scope.leave().flatten() {
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

/// Reports an error: kept for [`checked`], else a panic at the call of the
/// jitted function.
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
