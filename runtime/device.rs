//! `jax.devices()`: the one device compiled code runs on, the CPU.
//!
//! Calls are synchronous: a jitted function returns when its result is
//! computed, so there is no asynchronous dispatch to wait for and nothing
//! like `block_until_ready` to call (code ported from JAX can drop it).

use std::fmt;

/// A device: here always the CPU, with the threads compiled loops split
/// across (rayon's pool) and the SIMD level their bodies were dispatched to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// The device's index in [`devices`](crate::devices): always 0.
    pub id: usize,
    /// `"cpu"`, as JAX's `device.platform`.
    pub platform: &'static str,
    /// Threads of the pool parallel loops run on.
    pub threads: usize,
    /// The instruction set loop bodies run with: `"avx512"`, `"avx2"` or
    /// `"baseline"` (SSE2 on x86_64).
    pub simd: &'static str,
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuDevice(id={})", self.id)
    }
}

/// `jax.devices()`: one CPU device.
///
/// ```
/// let d = &jax::devices()[0];
/// assert_eq!((d.platform, d.to_string().as_str()), ("cpu", "CpuDevice(id=0)"));
/// assert!(d.threads >= 1);
/// assert!(["avx512", "avx2", "baseline"].contains(&d.simd));
/// ```
pub fn devices() -> Vec<Device> {
    use crate::__rt::par::Level;
    let simd = match Level::current() {
        Level::Avx512 => "avx512",
        Level::Avx2 => "avx2",
        Level::Baseline => "baseline",
    };
    vec![Device {
        id: 0,
        platform: "cpu",
        threads: rayon::current_num_threads(),
        simd,
    }]
}
