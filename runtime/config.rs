//! `jax.config`: the flags this crate knows, by JAX's names.
//!
//! | flag | default | |
//! |---|---|---|
//! | `jax_debug_nans` | `JAX_DEBUG_NANS` (`1`/`true`), else off | check jitted outputs for NaN and report the operation that made it |
//! | `jax_debug_infs` | `JAX_DEBUG_INFS`, else off | the same for infinities |
//! | `jax_enable_x64` | the `x64` cargo feature | read-only: the default int and float widths are fixed when the crate compiles |
//! | `jax_threefry_partitionable` | on | read-only: `jax::random` implements the partitionable scheme, JAX 0.10's default |
//!
//! The environment is read once, at the first read of a flag; `update`
//! overrides it for the whole process.
//!
//! The number of CPU devices (`jax_num_cpu_devices`) is
//! `JAX_NUM_CPU_DEVICES` or [`set_num_cpu_devices`], 1 by default, fixed at
//! the first use of a device. The variable is read as JAX reads it: a
//! negative value is the default, and a value that is not an integer, or 0,
//! panics at that first use with JAX's message (`Invalid value "garbage"
//! for JAX flag jax_num_cpu_devices`). Any count works: a device's threads
//! start when a pmap first runs on it.
//!
//! One setting is this crate's own: the cap on the pool of output buffers
//! (see [`crate::clear_caches`]), `JAX_BUFFER_POOL_BYTES` (bytes; `0` turns
//! pooling off) or [`set_buffer_pool_limit`], 256 MiB by default.
//!
//! ```
//! jax::config::update("jax_debug_nans", true).unwrap();
//! assert!(jax::config::read("jax_debug_nans").unwrap());
//! jax::config::update("jax_debug_nans", false).unwrap();
//! let err = jax::config::read("jax_debug_nan").unwrap_err();
//! assert!(err.to_string().contains("jax_debug_nans"));
//! ```

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// The flags' names.
const FLAGS: [&str; 4] = [
    "jax_debug_nans",
    "jax_debug_infs",
    "jax_enable_x64",
    "jax_threefry_partitionable",
];

/// A flag name this crate does not know, or one it cannot change.
///
/// ```
/// use jax::config::{self, ConfigError};
/// let err = config::read("jax_enable_x32").unwrap_err();
/// assert_eq!(err, ConfigError::Unknown("jax_enable_x32".to_string()));
/// let err = config::update("jax_threefry_partitionable", false).unwrap_err();
/// assert_eq!(err, ConfigError::ReadOnly { name: "jax_threefry_partitionable", value: true });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// No flag has this name.
    Unknown(String),
    /// The flag is fixed when the crate compiles and cannot be set to another value.
    ReadOnly {
        /// The flag's name.
        name: &'static str,
        /// Its fixed value.
        value: bool,
    },
    /// A value the flag cannot take (`set_num_cpu_devices(0)`).
    Invalid {
        /// The flag's name.
        name: &'static str,
        /// The value, as written.
        value: String,
    },
    /// The CPU devices were created (by the first use of a device) with
    /// another count.
    DevicesFixed {
        /// The count asked for.
        requested: usize,
        /// The count in use.
        current: usize,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Unknown(name) => {
                write!(
                    f,
                    "Unrecognized config option: {name}; the known ones are {}",
                    FLAGS.join(", ")
                )
            }
            ConfigError::ReadOnly { name, value } => write!(
                f,
                "{name} is fixed at {value} when the crate compiles{}",
                if *name == "jax_enable_x64" {
                    ": build with `--features jax/x64` for 64-bit defaults"
                } else {
                    ""
                }
            ),
            ConfigError::Invalid { name, value } => write!(
                f,
                "Invalid value \"{value}\" for JAX flag {name}: the CPU backend needs at least 1 device"
            ),
            ConfigError::DevicesFixed { requested, current } => write!(
                f,
                "jax_num_cpu_devices cannot become {requested}: {current} CPU devices are in use (set it before the first jitted call or device query, to at least 1)"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Bits of the debug flags: set, and the environment read.
const NANS: u8 = 1;
const INFS: u8 = 2;
const READ: u8 = 4;

static DEBUG: AtomicU8 = AtomicU8::new(0);

fn env_flag(name: &str) -> bool {
    std::env::var(name)
        .map(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
        .unwrap_or(false)
}

/// The debug bits, reading the environment the first time.
#[inline]
fn debug_bits() -> u8 {
    let bits = DEBUG.load(Ordering::Relaxed);
    if bits & READ != 0 {
        return bits;
    }
    let mut from_env = READ;
    if env_flag("JAX_DEBUG_NANS") {
        from_env |= NANS;
    }
    if env_flag("JAX_DEBUG_INFS") {
        from_env |= INFS;
    }
    // An `update` that raced ahead keeps its bits.
    DEBUG.fetch_or(from_env, Ordering::Relaxed) | from_env
}

/// Whether jitted functions check their outputs (`jax_debug_nans` or
/// `jax_debug_infs`): one relaxed atomic load once the environment is read.
///
/// ```
/// use jax::config;
/// config::update("jax_debug_infs", true).unwrap();
/// assert!(config::debug_checks());
/// config::update("jax_debug_infs", false).unwrap();
/// config::update("jax_debug_nans", false).unwrap();
/// assert!(!config::debug_checks());
/// ```
#[inline]
pub fn debug_checks() -> bool {
    debug_bits() & (NANS | INFS) != 0
}

/// Whether `jax_debug_infs` is on: checks also report infinities, not only NaN.
///
/// ```
/// use jax::config;
/// config::update("jax_debug_infs", true).unwrap();
/// assert!(config::debug_infs());
/// config::update("jax_debug_infs", false).unwrap();
/// assert!(!config::debug_infs());
/// ```
pub fn debug_infs() -> bool {
    debug_bits() & INFS != 0
}

/// `jax.config.update(name, value)`: sets a flag for the whole process.
/// Read-only flags accept only the value they have.
///
/// ```
/// use jax::config;
/// config::update("jax_debug_nans", true).unwrap();
/// assert!(config::read("jax_debug_nans").unwrap());
/// config::update("jax_debug_nans", false).unwrap();
/// assert!(config::update("jax_threefry_partitionable", true).is_ok());
/// assert!(config::update("jax_threefry_partitionable", false).is_err());
/// ```
pub fn update(name: &str, value: bool) -> Result<(), ConfigError> {
    let bit = match name {
        "jax_debug_nans" => NANS,
        "jax_debug_infs" => INFS,
        _ => {
            let current = read(name)?;
            if current == value {
                return Ok(());
            }
            let name = FLAGS.iter().find(|n| **n == name).expect("read knew it");
            return Err(ConfigError::ReadOnly {
                name,
                value: current,
            });
        }
    };
    debug_bits();
    if value {
        DEBUG.fetch_or(bit, Ordering::Relaxed);
    } else {
        DEBUG.fetch_and(!bit, Ordering::Relaxed);
    }
    Ok(())
}

/// `jax.config.read(name)`: a flag's current value.
///
/// ```
/// use jax::config;
/// assert!(config::read("jax_threefry_partitionable").unwrap());
/// // The default float type is f64 exactly when `jax_enable_x64` is on.
/// let x64 = config::read("jax_enable_x64").unwrap();
/// assert_eq!(x64, std::mem::size_of::<jax::DefaultFloat>() == 8);
/// assert!(config::read("jax_debug_nan").is_err());
/// ```
pub fn read(name: &str) -> Result<bool, ConfigError> {
    match name {
        "jax_debug_nans" => Ok(debug_bits() & NANS != 0),
        "jax_debug_infs" => Ok(debug_bits() & INFS != 0),
        "jax_enable_x64" => Ok(cfg!(feature = "x64")),
        "jax_threefry_partitionable" => Ok(true),
        _ => Err(ConfigError::Unknown(name.to_string())),
    }
}

/// The most bytes the pool of output buffers keeps for reuse (see
/// [`crate::clear_caches`]): `JAX_BUFFER_POOL_BYTES` if set when first
/// read, else 256 MiB, until [`set_buffer_pool_limit`].
///
/// ```
/// if std::env::var_os("JAX_BUFFER_POOL_BYTES").is_none() {
///     assert_eq!(jax::config::buffer_pool_limit(), 256 << 20);
/// }
/// ```
pub fn buffer_pool_limit() -> usize {
    crate::__rt::pool::limit()
}

/// Sets [`buffer_pool_limit`] for the whole process; `0` turns pooling off.
/// Buffers the pool holds beyond the new limit are freed at once.
///
/// ```
/// use jax::{config, Array};
/// config::set_buffer_pool_limit(0);
/// drop(Array::<f32, 100_000>::zeros());
/// assert_eq!(config::pooled_bytes(), 0); // freed, not pooled
/// config::set_buffer_pool_limit(64 << 20);
/// drop(Array::<f32, 100_000>::zeros());
/// assert!(config::pooled_bytes() >= 400_000);
/// assert_eq!(config::buffer_pool_limit(), 64 << 20);
/// ```
pub fn set_buffer_pool_limit(bytes: usize) {
    crate::__rt::pool::set_limit(bytes)
}

/// Bytes of free buffers the pool holds now, at most [`buffer_pool_limit`].
///
/// ```
/// jax::clear_caches();
/// assert_eq!(jax::config::pooled_bytes(), 0);
/// ```
pub fn pooled_bytes() -> usize {
    crate::__rt::pool::pooled_bytes()
}

/// `jax.config.update("jax_num_cpu_devices", n)`: this process' CPU
/// devices, which `jax::pmap` maps over. Like JAX, it must come before the
/// devices are first used (a jitted call or [`crate::devices`]); after that
/// it only accepts the count in use.
///
/// ```
/// use jax::config::{self, ConfigError};
/// config::set_num_cpu_devices(2).unwrap();
/// assert_eq!(jax::devices().len(), 2);
/// let err = config::set_num_cpu_devices(3).unwrap_err();
/// assert_eq!(err, ConfigError::DevicesFixed { requested: 3, current: 2 });
/// // Zero devices is refused, as JAX's CPU backend refuses to start.
/// let err = config::set_num_cpu_devices(0).unwrap_err();
/// assert!(err.to_string().starts_with("Invalid value \"0\" for JAX flag jax_num_cpu_devices"));
/// ```
pub fn set_num_cpu_devices(n: usize) -> Result<(), ConfigError> {
    if n == 0 {
        return Err(ConfigError::Invalid {
            name: "jax_num_cpu_devices",
            value: n.to_string(),
        });
    }
    crate::device::request_local_devices(n).map_err(|current| ConfigError::DevicesFixed {
        requested: n,
        current,
    })
}
