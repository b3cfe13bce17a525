//! What `#[jax::jit]` generates beside each function: the companion
//! module's types.

use std::fmt;

/// The traced program of a jitted function, as `f::jaxpr()` returns it.
/// `Display` prints it exactly as `jax.make_jaxpr(f)(*args)` does.
///
/// ```
/// #[jax::jit]
/// fn f(x: jax::Array<f32, 3>) -> jax::Array<f32, 3> {
///     jax::jnp::sin(x) * 2.0
/// }
///
/// assert_eq!(
///     f::jaxpr().to_string(),
///     "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Jaxpr {
    text: &'static str,
}

impl Jaxpr {
    /// Wraps the text the compiler printed.
    #[doc(hidden)]
    pub const fn from_text(text: &'static str) -> Jaxpr {
        Jaxpr { text }
    }

    /// The printed program.
    pub fn as_str(&self) -> &'static str {
        self.text
    }
}

impl fmt::Display for Jaxpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}

impl fmt::Debug for Jaxpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}

/// What one call of a jitted function computes and moves, as
/// `f::cost_analysis()` returns it (JAX's `jit(f).lower(x).cost_analysis()`
/// keys: `flops`, `transcendentals`, `bytes accessed`). Counted from the
/// program as emitted: fused values move no bytes; a `while` body counts
/// once.
///
/// ```
/// #[jax::jit]
/// fn f(x: &jax::Array<f32, 1000>) -> jax::Array<f32, 1000> {
///     jax::jnp::tanh(x * 1.5 + 0.5) * 2.0
/// }
/// let c = f::cost_analysis();
/// assert_eq!((c.flops, c.transcendentals), (3000.0, 1000.0));
/// // One fused loop: the input read and the output written.
/// assert_eq!(c.bytes_accessed, 8000.0);
/// assert!(f::lowered().contains("fn f("));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostAnalysis {
    /// Operations that are not transcendental: one per element of each
    /// elementwise operation, one per input element of a reduction, `2 m k n`
    /// per matrix product (`flops`).
    pub flops: f64,
    /// Elements of transcendental operations: `exp`, `log`, `tanh`, `sin`,
    /// ... (`transcendentals`).
    pub transcendentals: f64,
    /// Bytes of the arguments read, the results written and every stored
    /// intermediate written and read once (`bytes accessed`).
    pub bytes_accessed: f64,
}
