//! JAX's core ideas for Rust: arrays whose shapes are part of their types,
//! JAX's dtype promotion, NumPy-style (`jnp`) and strict (`lax`) operations,
//! and the `#[jax::jit]` compiler.
//!
//! ```
//! use jax::prelude::*;
//!
//! let x: Array<f32, 2, 3> = Array::arange();
//! let y = jnp::exp(&x) * 2.0;
//! assert_eq!(y.shape(), &[2, 3]);
//! ```
//!
//! # Shapes in types
//!
//! `Array<f32, 3, 4>` is a 3×4 matrix of `f32`; `Array<f32>` is a scalar.
//! Operations whose result shape Rust's type system can compute from the
//! operands' (elementwise operations, full reductions, matmul, transposes)
//! return it directly. Operations whose result shape depends on a parameter
//! value (axis reductions, reshapes, broadcasts, concatenation, slicing) take
//! the result type from the context — a `let` annotation or the use of the
//! value — and check it against the computed shape:
//!
//! ```
//! use jax::prelude::*;
//!
//! let x: Array<f32, 2, 3> = Array::arange();
//! let rows: Array<f32, 2> = jnp::sum_axis(&x, 1, false);
//! assert_eq!(rows.to_vec(), [3.0, 12.0]);
//! ```
//!
//! Inside `#[jax::jit]` the compiler infers all of these shapes itself.
//!
//! # `#[jax::jit]`
//!
//! The attribute traces the function's body when the crate compiles, as
//! `jax.jit` traces a Python function: shapes and dtypes are checked at every
//! operation (a mismatch is a compile error at the expression), the traced
//! program is simplified and fused, and ordinary Rust loops are emitted —
//! parallel above a measured size, compiled for the CPU's SIMD level, with
//! reductions that give the same bits for any thread count.
//!
//! ```
//! use jax::prelude::*;
//!
//! #[jax::jit]
//! fn predict(w: &Array<f32, 3, 2>, b: &Array<f32, 2>, x: &Array<f32, 4, 3>) -> Array<f32, 4, 2> {
//!     jnp::softmax(jnp::tanh(x.matmul(w) + b), -1)
//! }
//!
//! let p = predict(&Array::ones(), &Array::zeros(), &Array::arange());
//! assert!((p.sum().item() - 4.0).abs() < 1e-5);
//! // The traced program, printed as `jax.make_jaxpr` prints it.
//! assert!(predict::jaxpr().to_string().contains("dot_general"));
//! ```
//!
//! On an inline `mod`, `#[jax::jit]` compiles every function in it: structs
//! are pytrees (their array fields are inputs, and functions may return
//! them), `const` items are evaluated, helper functions and methods are
//! inlined; each method `m` gets `Self::m_jaxpr()`.

#[doc(hidden)]
#[path = "rt/mod.rs"]
pub mod __rt;
pub mod array;
pub mod config;
pub mod debug;
mod device;
pub mod element;
pub mod error;
mod format;
pub mod index;
pub mod interop;
mod jaxpr;
pub mod jnp;
pub mod lax;
pub mod math;
pub mod ops;
mod promote;
pub mod random;
pub mod shape;
pub mod test_util;

pub use array::{Array, ArrayType, AsArray, MAX_RANK, NONE};
pub use device::{devices, Device};
pub use element::{bf16, f16, DType, DefaultFloat, DefaultInt, Element, Float, Int};
pub use error::ShapeError;
pub use jax_macros::jit;
pub use jaxpr::{CostAnalysis, Jaxpr};

/// Everything a typical user needs: `use jax::prelude::*;`.
pub mod prelude {
    pub use crate::array::{Array, ArrayType, AsArray};
    pub use crate::element::{bf16, f16, DType, DefaultFloat, DefaultInt, Element};
    pub use crate::index::AtRef;
    pub use crate::{jnp, lax, s};
}
