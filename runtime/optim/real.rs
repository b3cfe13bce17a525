//! The float arithmetic optimizers run in, per leaf dtype: `f32` leaves in
//! `f32` (each Python-float hyperparameter rounded to the leaf's dtype first,
//! as JAX's weak typing does), `f64` leaves in `f64`.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// `f32` or `f64`, with the operations optax's formulas use.
pub(crate) trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn sqrt(self) -> Self;
    fn cos(self) -> Self;
    fn floor(self) -> Self;
    /// `lax.pow` of two floats as XLA's CPU backend (and this crate's
    /// kernel) computes it: in `f64`, rounded once.
    fn pow(self, e: Self) -> Self {
        Self::from_f64(self.to_f64().powf(e.to_f64()))
    }
    fn is_nan(self) -> bool {
        self.partial_cmp(&self).is_none()
    }
    /// `jnp.sign`.
    fn sign(self) -> Self {
        let zero = Self::from_f64(0.0);
        if self > zero {
            Self::from_f64(1.0)
        } else if self < zero {
            Self::from_f64(-1.0)
        } else {
            self // 0, -0 and NaN are their own sign
        }
    }
    /// `lax.rsqrt`, as the runtime's kernel computes it (in `f64`, rounded once).
    fn rsqrt(self) -> Self {
        Self::from_f64(1.0 / self.to_f64().sqrt())
    }
}

impl Real for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    fn cos(self) -> Self {
        crate::math::cos_f32(self)
    }
    fn floor(self) -> Self {
        f32::floor(self)
    }
}

impl Real for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn cos(self) -> Self {
        crate::math::cos_f64(self)
    }
    fn floor(self) -> Self {
        f64::floor(self)
    }
    fn pow(self, e: Self) -> Self {
        self.powf(e)
    }
}
