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

/// JAX's `default_gradient_tolerance`.
pub fn tolerance(d: DType) -> f64 {
    match d {
        DType::F16 => 1e-2,
        DType::BF16 => 1e-1,
        DType::F32 => 2e-3,
        _ => 1e-5,
    }
}

/// A value `check_grads` perturbs and compares: float arrays and scalars.
pub trait Perturb: Clone {
    /// The elements, in f64.
    fn flat(&self) -> Vec<f64>;
    /// The same shape and type from f64 elements (rounded).
    fn rebuild(&self, v: &[f64]) -> Self;
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

/// `x + a * t`.
pub fn shift<P: Perturb>(x: &P, t: &P, a: f64) -> P {
    let v: Vec<f64> = x
        .flat()
        .iter()
        .zip(t.flat())
        .map(|(x, t)| x + a * t)
        .collect();
    x.rebuild(&v)
}

pub fn inner(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Panics unless `|got - want| <= tol + tol * |want|` everywhere (NumPy's
/// `allclose` with JAX's tolerances).
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
