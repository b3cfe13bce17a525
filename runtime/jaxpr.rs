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
