//! `jax.devices()`: CPU devices, each a disjoint group of the threads
//! compiled loops split across.
//!
//! There is one device unless `JAX_NUM_CPU_DEVICES` (read once, like XLA's
//! `--xla_force_host_platform_device_count`) or
//! [`crate::config::set_num_cpu_devices`] asks for more. `jax::pmap` maps
//! an axis over them: each device runs its part on its own threads, and
//! collectives meet between them (`__rt::spmd`). Across processes
//! (`jax::distributed`, the `mpi` feature) every process has that many
//! local devices and [`devices`] lists all of them.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::__rt::spmd::Transport;

/// A device: a group of CPU threads, with the SIMD level loop bodies were
/// dispatched to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// The device's index in [`devices`], across processes.
    pub id: usize,
    /// `"cpu"`, as JAX's `device.platform`.
    pub platform: &'static str,
    /// The process it belongs to (`device.process_index`).
    pub process_index: usize,
    /// Threads of its pool, which its parallel loops run on.
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

/// The count [`crate::config::set_num_cpu_devices`] asked for (0: none).
static REQUESTED: AtomicUsize = AtomicUsize::new(0);
static LOCAL: OnceLock<Local> = OnceLock::new();
static TRANSPORT: OnceLock<Box<dyn Transport>> = OnceLock::new();

/// This process' devices: with more than one, a thread pool each, the
/// threads of rayon's global pool divided among them (one each when there
/// are more devices than threads). A device's pool starts when a pmap
/// first runs on it, so a count of 100,000 costs no thread until used.
struct Local {
    count: usize,
    pools: Vec<OnceLock<rayon::ThreadPool>>,
}

impl Local {
    /// Device `k`'s thread count: its share of rayon's threads, at least 1.
    fn threads(&self, k: usize) -> usize {
        if self.count == 1 {
            return rayon::current_num_threads();
        }
        let total = rayon::current_num_threads();
        (total / self.count + usize::from(k < total % self.count)).max(1)
    }

    /// Device `k`'s pool, started on first use.
    fn pool(&self, k: usize) -> &rayon::ThreadPool {
        self.pools[k].get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads(k))
                .thread_name(move |t| format!("jax-cpu{k}-{t}"))
                .build()
                .unwrap_or_else(|e| panic!("CPU device {k}'s thread pool cannot start: {e}"))
        })
    }
}

/// `JAX_NUM_CPU_DEVICES` read as JAX reads its `jax_num_cpu_devices` flag
/// (Python's `int()`: spaces around, a sign, `_` between digits): `None`
/// for the default (unset, or negative, as JAX's -1), else the count; an
/// error with JAX's message for what JAX refuses: a value that is not an
/// integer (`ValueError`), and 0 (its CPU backend fails to start).
pub(crate) fn parse_num_cpu_devices(value: Option<&str>) -> Result<Option<usize>, String> {
    let Some(raw) = value else {
        return Ok(None);
    };
    let invalid = || format!("Invalid value \"{raw}\" for JAX flag jax_num_cpu_devices");
    let v = raw.trim();
    let (negative, digits) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !well_formed {
        return Err(format!(
            "{} (JAX_NUM_CPU_DEVICES is the number of CPU devices, an integer)",
            invalid()
        ));
    }
    if negative {
        return Ok(None);
    }
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    match digits.parse::<usize>() {
        Ok(0) => Err(
            "Unable to initialize backend 'cpu': JAX_NUM_CPU_DEVICES is 0, and the CPU \
             backend needs at least 1 device (JAX fails to start it too): unset it, or set \
             a count of at least 1"
                .to_string(),
        ),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(format!(
            "{} (more CPU devices than this machine can address)",
            invalid()
        )),
    }
}

fn local() -> &'static Local {
    LOCAL.get_or_init(|| {
        let requested = REQUESTED.load(Ordering::Relaxed);
        let count = if requested > 0 {
            requested
        } else {
            let env = std::env::var("JAX_NUM_CPU_DEVICES").ok();
            parse_num_cpu_devices(env.as_deref())
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap_or(1)
        };
        let pools = if count == 1 {
            Vec::new()
        } else {
            (0..count).map(|_| OnceLock::new()).collect()
        };
        Local { count, pools }
    })
}

/// Fixes the local device count before first use; `Err` with the count in
/// use when it is already fixed to another.
pub(crate) fn request_local_devices(n: usize) -> Result<(), usize> {
    assert!(n > 0, "config::set_num_cpu_devices refuses 0 before");
    REQUESTED.store(n, Ordering::Relaxed);
    let count = local().count;
    if count == n {
        Ok(())
    } else {
        Err(count)
    }
}

/// Runs `f(k)` for each local device `k < count` on that device's
/// threads, all at once, and returns when every one has.
pub(crate) fn run_on_devices(count: usize, f: &(dyn Fn(usize) + Sync)) {
    fn from(k: usize, count: usize, pools: &[&rayon::ThreadPool], f: &(dyn Fn(usize) + Sync)) {
        if k == count {
            return;
        }
        // Each scope hands device `k` its job and waits for it after the
        // later devices got theirs.
        pools[k].in_place_scope(|s| {
            s.spawn(move |_| f(k));
            from(k + 1, count, pools, f);
        });
    }
    let l = local();
    if l.pools.len() < count {
        // One device: the caller's threads.
        (0..count).for_each(f);
        return;
    }
    let pools: Vec<&rayon::ThreadPool> = (0..count).map(|k| l.pool(k)).collect();
    from(0, count, &pools, f);
}

/// The processes' transport, once `jax::distributed::initialize` set one.
pub(crate) fn transport() -> Option<&'static dyn Transport> {
    TRANSPORT.get().map(|t| &**t)
}

/// Whether this process' devices exist yet (after that, their count and
/// the processes are fixed).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn devices_created() -> bool {
    LOCAL.get().is_some()
}

/// Sets the transport between processes; `false` if one was set before.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn set_transport(t: Box<dyn Transport>) -> bool {
    TRANSPORT.set(t).is_ok()
}

/// `jax.local_device_count()`: this process' devices.
///
/// ```
/// assert!(jax::local_device_count() >= 1);
/// ```
pub fn local_device_count() -> usize {
    local().count
}

/// `jax.device_count()`: the devices of every process.
///
/// ```
/// assert_eq!(jax::device_count(), jax::local_device_count() * jax::process_count());
/// ```
pub fn device_count() -> usize {
    local_device_count() * process_count()
}

/// `jax.process_index()`: this process' index (0 without `jax::distributed`).
pub fn process_index() -> usize {
    transport().map_or(0, |t| t.process_index())
}

/// `jax.process_count()`: the processes running the program (1 without
/// `jax::distributed`).
pub fn process_count() -> usize {
    transport().map_or(1, |t| t.process_count())
}

fn simd() -> &'static str {
    use crate::__rt::par::Level;
    match Level::current() {
        Level::Avx512 => "avx512",
        Level::Avx2 => "avx2",
        Level::Baseline => "baseline",
    }
}

/// `jax.devices()`: every process' CPU devices, by id.
///
/// ```
/// let d = &jax::devices()[0];
/// assert_eq!((d.platform, d.to_string().as_str()), ("cpu", "CpuDevice(id=0)"));
/// assert!(d.threads >= 1);
/// assert!(["avx512", "avx2", "baseline"].contains(&d.simd));
/// assert_eq!(jax::devices().len(), jax::device_count());
/// ```
pub fn devices() -> Vec<Device> {
    let l = local();
    (0..device_count())
        .map(|id| {
            let k = id % l.count;
            Device {
                id,
                platform: "cpu",
                process_index: id / l.count,
                threads: l.threads(k),
                simd: simd(),
            }
        })
        .collect()
}

/// `jax.local_devices()`: this process' devices.
///
/// ```
/// assert!(jax::local_devices().iter().all(|d| d.process_index == jax::process_index()));
/// ```
pub fn local_devices() -> Vec<Device> {
    let p = process_index();
    devices()
        .into_iter()
        .filter(|d| d.process_index == p)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_num_cpu_devices as parse;

    #[test]
    fn num_cpu_devices_as_jax_reads_it() {
        assert_eq!(parse(None), Ok(None));
        assert_eq!(parse(Some("4")), Ok(Some(4)));
        assert_eq!(parse(Some(" 2\n")), Ok(Some(2)));
        assert_eq!(parse(Some("+3")), Ok(Some(3)));
        assert_eq!(parse(Some("1_0")), Ok(Some(10)));
        assert_eq!(parse(Some("007")), Ok(Some(7)));
        assert_eq!(parse(Some("100000")), Ok(Some(100_000)));
        // Negative is JAX's default (its flag's -1): one device.
        assert_eq!(parse(Some("-3")), Ok(None));
        assert_eq!(parse(Some("-1")), Ok(None));
        for bad in [
            "garbage", "", " ", "2.0", "1e3", "_1", "1_", "1__0", "0x10", "--1", "4 cpus",
        ] {
            let e = parse(Some(bad)).unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "Invalid value \"{bad}\" for JAX flag jax_num_cpu_devices"
                )),
                "{bad}: {e}"
            );
        }
        let e = parse(Some("99999999999999999999999")).unwrap_err();
        assert!(
            e.contains("more CPU devices than this machine can address"),
            "{e}"
        );
        let e = parse(Some("0")).unwrap_err();
        assert!(e.starts_with("Unable to initialize backend 'cpu'"), "{e}");
        assert_eq!(parse(Some("-0")), Ok(None));
    }
}
