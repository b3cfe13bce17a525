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
//! The [`guide`] has a chapter per topic (what `#[jax::jit]` accepts,
//! derivatives, `vmap`, `pmap`, random numbers, linear algebra, optimizers,
//! importing jaxprs, testing, the comparison with JAX, limitations); this
//! page is a tour.
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
//!
//! # Derivatives
//!
//! Each jitted function `f` has a companion module: `f::grad`,
//! `f::value_and_grad`, `f::jvp`, `f::vjp`, `f::jacfwd`, `f::jacrev` and
//! `f::hessian`, derived when the crate compiles (JAX's jvp rules, partial
//! evaluation and transposition, on the traced program) and compiled like
//! `f`. Inside bodies, `jax::grad(f)(x)` and the others compose as in JAX.
//!
//! ```
//! use jax::prelude::*;
//!
//! #[jax::jit]
//! fn f(x: Array<f32>) -> Array<f32> {
//!     jnp::sin(x) * 2.0
//! }
//!
//! assert_eq!(f::grad(Array::from(0.0f32)).item(), 2.0);
//! let (y, t) = f::jvp((Array::from(0.0f32),), (Array::from(1.0f32),));
//! assert_eq!((y.item(), t.item()), (0.0, 2.0));
//! let (_, pullback) = f::vjp(Array::from(0.0f32));
//! assert_eq!(pullback(Array::from(1.0f32)).0.item(), 2.0);
//! ```
//!
//! # Control flow
//!
//! `lax::cond`, `lax::switch`, `lax::fori_loop`, `lax::while_loop` and
//! `lax::scan` compile to Rust branches and loops (not unrolled), with their
//! derivatives as JAX has them; eagerly they are plain Rust.
//!
//! ```
//! use jax::prelude::*;
//!
//! /// Cumulative products, and their gradient through the scan.
//! #[jax::jit]
//! fn prod(xs: &Array<f32, 3>) -> Array<f32> {
//!     lax::scan(|c: Array<f32>, x: Array<f32>| (&c * &x, 0.0), 1.0, xs.clone()).0
//! }
//!
//! let xs = Array::<f32, 3>::from([2.0, 3.0, 4.0]);
//! assert_eq!(prod(&xs).item(), 24.0);
//! assert_eq!(prod::grad(&xs).to_vec(), [12.0, 8.0, 6.0]);
//! ```
//!
//! # Random numbers
//!
//! [`random`] has explicit keys and JAX's threefry2x32 bit for bit:
//!
//! ```
//! use jax::prelude::*;
//! use jax::random;
//!
//! let [a, b] = random::split(random::key(0));
//! let x: Array<f32, 4> = random::normal(a);
//! assert_ne!(x, random::normal::<Array<f32, 4>>(b));
//! assert_eq!(x, random::normal::<Array<f32, 4>>(a)); // same key, same numbers
//! ```
//!
//! # Sharp bits are compile errors
//!
//! What JAX rejects while tracing (Python control flow on traced values,
//! mutation, iterators, side effects, shapes that depend on values) is a
//! compile error at your expression, saying what to write instead:
//!
//! ```compile_fail
//! use jax::prelude::*;
//!
//! #[jax::jit]
//! fn f(x: Array<f32, 3>) -> Array<f32, 3> {
//!     // TracerBoolConversionError: use lax::cond, lax::switch or jnp::where_
//!     if x.sum() > 0.0 { x } else { -x }
//! }
//! ```
//!
//! # Debugging
//!
//! `JAX_DEBUG_NANS=1` makes jitted functions report the operation (and the
//! line of your source) that made a NaN; [`debug::print!`] prints traced
//! values when the code runs; [`config`] reads and sets the flags; `f::lowered()`
//! and `f::cost_analysis()` show what was compiled.
//!
//! ```
//! use jax::prelude::*;
//!
//! #[jax::jit]
//! fn f(x: Array<f32, 2>) -> Array<f32, 2> {
//!     jnp::log(x) * 2.0
//! }
//!
//! jax::config::update("jax_debug_nans", true).unwrap();
//! // With the flag on, a NaN output re-runs `f` one operation at a time and
//! // names the first operation that made it (here `log` of -1).
//! let err = jax::debug::checked(|| f(Array::from([1.0, -1.0]))).unwrap_err();
//! assert!(err.to_string().contains("invalid value (nan) encountered in log"));
//! jax::config::update("jax_debug_nans", false).unwrap();
//! ```

#![warn(missing_docs)]
// Every unsafe block says why it is sound, where it is.
#![deny(clippy::undocumented_unsafe_blocks)]

#[doc(hidden)]
#[path = "rt/mod.rs"]
pub mod __rt;
pub mod array;
pub mod config;
pub mod debug;
mod device;
mod dispatch;
pub mod distributed;
mod eager;
pub mod element;
pub mod error;
pub mod example_libraries;
mod format;
#[doc(hidden)]
pub mod gemm;
pub mod index;
pub mod interop;
mod jaxpr;
pub mod jnp;
pub mod lax;
pub mod math;
pub mod nn;
pub mod ops;
pub mod optim;
mod promote;
pub mod random;
pub mod scipy;
pub mod shape;
pub mod test_util;
pub mod tree;

pub use array::{Array, ArrayType, AsArray, MAX_RANK, NONE};
pub use device::{
    device_count, devices, local_device_count, local_devices, process_count, process_index, Device,
};
pub use dispatch::{dispatch, Pending};
pub use element::{bf16, f16, Complex, DType, DefaultFloat, DefaultInt, Element, Float, Int};
pub use error::ShapeError;
/// Compiles a pure array function when the crate compiles, as `jax.jit`
/// traces and compiles a Python function.
///
/// On a `fn`, the body is traced into a jaxpr (shapes and dtypes checked at
/// every operation; a sharp bit is a compile error at its tokens), then
/// simplified, fused and emitted as Rust loops. The function keeps its
/// signature, and a companion module of the same name holds:
///
/// - `f::jaxpr()`: the traced program, printed as `jax.make_jaxpr` prints it;
/// - `f::grad`, `f::value_and_grad` (scalar output), `f::jvp`, `f::vjp`,
///   `f::jacfwd`, `f::jacrev`, `f::hessian`: derivatives, derived from the
///   same trace and compiled the same way;
/// - `f::lowered()` (the emitted Rust) and `f::cost_analysis()`.
///
/// Arguments: `argnums = k` or `argnums = (j, k)` choose what `grad` and
/// `value_and_grad` differentiate (a tuple gives a tuple of gradients), and
/// `has_aux` declares a `(loss, aux)` result whose `aux` is passed through.
///
/// ```
/// use jax::prelude::*;
///
/// #[jax::jit(argnums = (0, 1))]
/// fn loss(w: &Array<f32, 2>, b: f32, x: &Array<f32, 3, 2>) -> Array<f32> {
///     jnp::sum(jnp::tanh(x.matmul(w) + b))
/// }
///
/// let (w, x) = (Array::<f32, 2>::from([0.5, -0.5]), Array::<f32, 3, 2>::zeros());
/// assert_eq!(loss(&w, 0.0, &x).item(), 0.0);
/// let (gw, gb) = loss::grad(&w, 0.0, &x);
/// assert_eq!((gw.to_vec(), gb), (vec![0.0, 0.0], 3.0)); // tanh'(0) = 1, thrice
/// assert!(loss::jaxpr().to_string().contains("tanh"));
/// ```
///
/// On an inline `mod`, every function is compiled; the module's structs are
/// pytrees (their array fields are inputs, and gradients come back as the
/// same struct), its `const` items are evaluated, and calls between its
/// functions are inlined:
///
/// ```
/// #[jax::jit]
/// mod model {
///     use jax::prelude::*;
///
///     pub struct Params {
///         pub w: Array<f32, 2>,
///         pub b: Array<f32>,
///     }
///
///     pub fn predict(p: &Params, x: &Array<f32, 2>) -> Array<f32> {
///         jnp::sum(&p.w * x) + &p.b
///     }
/// }
///
/// use jax::prelude::*;
/// let p = model::Params { w: Array::from([1.0, 2.0]), b: Array::from(0.5) };
/// let x = Array::<f32, 2>::from([3.0, 4.0]);
/// assert_eq!(model::predict(&p, &x).item(), 11.5);
/// let g = model::predict::grad(&p, &x); // a `Params` of gradients
/// assert_eq!((g.w.to_vec(), g.b.item()), (vec![3.0, 4.0], 1.0));
/// ```
pub use jax_macros::jit;
pub use jax_macros::{__jit_with_structs, Pytree};
pub use jaxpr::{CostAnalysis, Jaxpr};

/// `jax.clear_caches()`: frees what the crate keeps between calls. Compiled
/// code is made when your crate compiles, so the one cache is the pool of
/// output buffers: the storage of dropped arrays of 64 KiB or more, kept
/// (up to [`config::buffer_pool_limit`], 256 MiB by default) so that the
/// next jitted call of the same size skips the allocation and its page
/// faults. Call it after a phase that used large arrays to give that memory
/// back. Small buffers that loops recycle are freed on the calling thread.
///
/// ```
/// use jax::Array;
/// let x = Array::<f32, 100_000>::zeros(); // 400 kB
/// drop(x); // the last reference: its buffer goes to the pool
/// assert!(jax::config::pooled_bytes() >= 400_000);
/// jax::clear_caches();
/// assert_eq!(jax::config::pooled_bytes(), 0);
/// ```
pub fn clear_caches() {
    __rt::pool::clear();
    __rt::pool::clear_recycled();
}

// The guide's chapters are markdown files, read on GitHub as they are and
// here as the docs of empty modules, whose examples run as doctests. A
// chapter names another as `[vmap]` and defines `[vmap]: vmap.md` for
// GitHub; the definitions below come first, and the first definition of a
// name is the one markdown keeps, so in rustdoc the same names link to the
// modules.
macro_rules! guide_links {
    () => {
        concat!(
            "[jit]: crate::guide::jit\n",
            "[sharp_bits]: crate::guide::sharp_bits\n",
            "[derivatives]: crate::guide::derivatives\n",
            "[vmap]: crate::guide::vmap\n",
            "[scaling_out]: crate::guide::scaling_out\n",
            "[random]: crate::guide::random\n",
            "[linalg]: crate::guide::linalg\n",
            "[convolutions]: crate::guide::convolutions\n",
            "[optimizers]: crate::guide::optimizers\n",
            "[importing]: crate::guide::importing\n",
            "[debugging]: crate::guide::debugging\n",
            "[testing]: crate::guide::testing\n",
            "[compile_time]: crate::guide::compile_time\n",
            "[compared_with_jax]: crate::guide::compared_with_jax\n",
            "[limitations]: crate::guide::limitations\n",
        )
    };
}

pub mod guide {
    #![doc = guide_links!()]
    #![doc = include_str!("guide/README.md")]

    pub mod jit {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/jit.md")]
    }

    pub mod sharp_bits {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/sharp_bits.md")]
    }

    pub mod derivatives {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/derivatives.md")]
    }

    pub mod vmap {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/vmap.md")]
    }

    pub mod scaling_out {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/scaling_out.md")]
    }

    pub mod random {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/random.md")]
    }

    pub mod linalg {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/linalg.md")]
    }

    pub mod convolutions {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/convolutions.md")]
    }

    pub mod optimizers {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/optimizers.md")]
    }

    pub mod importing {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/importing.md")]
    }

    pub mod debugging {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/debugging.md")]
    }

    pub mod testing {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/testing.md")]
    }

    pub mod compile_time {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/compile_time.md")]
    }

    pub mod compared_with_jax {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/compared_with_jax.md")]
    }

    pub mod limitations {
        #![doc = guide_links!()]
        #![doc = include_str!("guide/limitations.md")]
    }
}

/// Everything a typical user needs: `use jax::prelude::*;`.
pub mod prelude {
    pub use crate::array::{Array, ArrayType, AsArray};
    pub use crate::element::{bf16, f16, Complex, DType, DefaultFloat, DefaultInt, Element};
    pub use crate::index::AtRef;
    pub use crate::{jnp, lax, s};
}
