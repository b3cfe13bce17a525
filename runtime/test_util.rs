//! `jax.test_util.check_grads`: a function's derivatives against central
//! differences, for users' own `cargo test`.
//!
//! ```
//! use jax::prelude::*;
//!
//! #[jax::jit]
//! fn f(x: &Array<f32, 3>, y: f32) -> Array<f32> {
//!     jnp::sum(jnp::sin(x) * y)
//! }
//!
//! let x = Array::<f32, 3>::from([0.1, 0.2, 0.3]);
//! jax::test_util::check_grads!(f, (&x, 2.0), order = 1, modes = ["fwd", "rev"]);
//! ```
//!
//! As JAX does: one random direction per argument (fixed seed), the
//! forward-mode tangent against `(f(x + eps t) - f(x - eps t)) / 2 eps`, the
//! reverse-mode cotangent against the same through `<u, J t> = <J^T u, t>`,
//! with `eps = 1e-4` and JAX's tolerances by dtype (absolute and relative:
//! f16 1e-2, bf16 1e-1, f32 2e-3, f64 1e-5). `order = 1` only.

pub use crate::check_grads;

use crate::array::ArrayType;
use crate::element::{DType, Element, Float};

/// JAX's finite-difference step.
pub const EPS: f64 = 1e-4;

/// JAX's `default_gradient_tolerance`: the absolute and relative tolerance
/// `check_grads` allows for a dtype.
///
/// ```
/// use jax::{test_util::tolerance, DType};
/// assert_eq!(tolerance(DType::F32), 2e-3);
/// assert_eq!((tolerance(DType::BF16), tolerance(DType::F64)), (1e-1, 1e-5));
/// ```
pub fn tolerance(d: DType) -> f64 {
    match d {
        DType::F16 => 1e-2,
        DType::BF16 => 1e-1,
        DType::F32 => 2e-3,
        _ => 1e-5,
    }
}

/// A value `check_grads` perturbs and compares: float arrays and scalars.
///
/// ```
/// use jax::{test_util::Perturb, Array};
/// let x = Array::<f32, 2>::from([1.0, 2.5]);
/// let y = x.rebuild(&x.flat().iter().map(|v| v * 2.0).collect::<Vec<_>>());
/// assert_eq!(y.to_vec(), [2.0, 5.0]);
/// ```
pub trait Perturb: Clone {
    /// The elements, in f64.
    ///
    /// ```
    /// use jax::{test_util::Perturb, Array};
    /// assert_eq!(Array::<f32, 2>::from([1.0, 2.5]).flat(), [1.0, 2.5]);
    /// assert_eq!(0.5f32.flat(), [0.5]);
    /// ```
    fn flat(&self) -> Vec<f64>;
    /// The same shape and type from f64 elements (rounded).
    ///
    /// ```
    /// use jax::{test_util::Perturb, Array};
    /// let x = Array::<f32, 2>::zeros();
    /// assert_eq!(x.rebuild(&[0.1, 3.0]).to_vec(), [0.1f32, 3.0]);
    /// assert_eq!(1.0f64.rebuild(&[2.0]), 2.0);
    /// ```
    fn rebuild(&self, v: &[f64]) -> Self;
    /// The element type, which picks the tolerance (see [`tolerance`]).
    ///
    /// ```
    /// use jax::{test_util::Perturb, bf16, Array, DType};
    /// assert_eq!(Perturb::dtype(&Array::<f32, 3>::zeros()), DType::F32);
    /// assert_eq!(Perturb::dtype(&bf16::ONE), DType::BF16);
    /// ```
    fn dtype(&self) -> DType;
}

impl<A: ArrayType> Perturb for A
where
    A::Elem: Float,
{
    fn flat(&self) -> Vec<f64> {
        self.data().iter().map(|v| v.to_f64()).collect()
    }
    fn rebuild(&self, v: &[f64]) -> Self {
        A::from_data(v.iter().map(|&x| A::Elem::from_f64(x)).collect())
    }
    fn dtype(&self) -> DType {
        A::Elem::DTYPE
    }
}

macro_rules! perturb_scalar {
    ($($t:ty),*) => {$(
        impl Perturb for $t {
            fn flat(&self) -> Vec<f64> {
                vec![self.to_f64()]
            }
            fn rebuild(&self, v: &[f64]) -> Self {
                <$t as Element>::from_f64(v[0])
            }
            fn dtype(&self) -> DType {
                <$t as Element>::DTYPE
            }
        }
    )*};
}

perturb_scalar!(f32, f64, crate::f16, crate::bf16);

/// A deterministic direction shaped like `x`: standard-normal-ish values
/// from a fixed seed.
///
/// ```
/// use jax::{test_util::direction, Array};
/// let x = Array::<f64, 1000>::zeros();
/// let t = direction(&x, 0);
/// assert_eq!(t, direction(&x, 0)); // the same seed gives the same direction
/// assert_ne!(t, direction(&x, 1));
/// assert!((t.to_vec().iter().sum::<f64>() / 1000.0).abs() < 0.2); // mean near 0
/// ```
pub fn direction<P: Perturb>(x: &P, seed: u64) -> P {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let v: Vec<f64> = x
        .flat()
        .iter()
        .map(|_| {
            // Sum of uniforms: mean 0, variance 1.
            (0..12).map(|_| next()).sum::<f64>() - 6.0
        })
        .collect();
    x.rebuild(&v)
}

/// `x + a * t`: `x` moved by `a` along the direction `t`.
///
/// ```
/// use jax::{test_util::shift, Array};
/// let x = Array::<f32, 2>::from([1.0, 2.0]);
/// let t = Array::<f32, 2>::from([1.0, -1.0]);
/// assert_eq!(shift(&x, &t, 0.5).to_vec(), [1.5, 1.5]);
/// ```
pub fn shift<P: Perturb>(x: &P, t: &P, a: f64) -> P {
    let v: Vec<f64> = x
        .flat()
        .iter()
        .zip(t.flat())
        .map(|(x, t)| x + a * t)
        .collect();
    x.rebuild(&v)
}

/// The inner product `sum a[i] * b[i]`, as in `<u, J t>`.
///
/// ```
/// assert_eq!(jax::test_util::inner(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
/// ```
pub fn inner(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Panics unless `|got - want| <= tol + tol * |want|` everywhere (NumPy's
/// `allclose` with JAX's tolerances).
///
/// ```
/// use jax::test_util::assert_close;
/// assert_close("jvp", &[1.0, 100.0], &[1.0005, 100.1], 2e-3);
/// let far = std::panic::catch_unwind(|| assert_close("jvp", &[1.0], &[1.1], 2e-3));
/// assert!(far.is_err());
/// ```
pub fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol + tol * w.abs() || (g.is_nan() && w.is_nan()),
            "check_grads: {what} differs from finite differences at element {i}: autodiff {g}, numerical {w} (tolerance {tol})"
        );
    }
}

/// `check_grads!(f, (args..), order = 1, modes = ["fwd", "rev"])`: checks
/// `f`'s `jvp` (`"fwd"`) and `vjp` (`"rev"`) against central differences;
/// panics with the difference found. `f` is a `#[jax::jit]` function (a
/// path: `model::loss`); the arguments are written as for `f` itself.
///
/// ```
/// use jax::prelude::*;
///
/// #[jax::jit]
/// fn f(x: &Array<f32, 2>) -> Array<f32> {
///     jnp::sum(jnp::exp(x))
/// }
///
/// let x = Array::<f32, 2>::from([0.5, -1.0]);
/// jax::check_grads!(f, (&x)); // panics if a derivative is wrong
/// jax::check_grads!(f, (&x), order = 1, modes = ["rev"]);
/// assert!((f::grad(&x).to_vec()[0] - 0.5f32.exp()).abs() < 1e-6);
/// ```
#[macro_export]
macro_rules! check_grads {
    ($($f:ident)::+, ($($arg:expr),* $(,)?)) => {
        $crate::check_grads!($($f)::+, ($($arg),*), order = 1, modes = ["fwd", "rev"])
    };
    ($($f:ident)::+, ($($arg:expr),* $(,)?), order = 1) => {
        $crate::check_grads!($($f)::+, ($($arg),*), order = 1, modes = ["fwd", "rev"])
    };
    ($($f:ident)::+, ($($arg:expr),* $(,)?), order = 1, modes = [$($mode:literal),* $(,)?]) => {
        $($f)::+::__check_grads(&[$($mode),*], $($arg),*)
    };
    ($($f:ident)::+, ($($arg:expr),* $(,)?), order = $order:literal $(, modes = [$($mode:literal),* $(,)?])?) => {
        ::core::compile_error!("check_grads: only order = 1 is supported; check a second derivative with order = 1 on a #[jax::jit] function that computes the first (for example one returning `jax::grad(f)(x)`)")
    };
}
