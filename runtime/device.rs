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
/// threads of rayon's global pool divided among them.
struct Local {
    count: usize,
    pools: Vec<rayon::ThreadPool>,
}

fn local() -> &'static Local {
    LOCAL.get_or_init(|| {
        let requested = REQUESTED.load(Ordering::Relaxed);
        let count = if requested > 0 {
            requested
        } else {
            std::env::var("JAX_NUM_CPU_DEVICES")
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|&n| n > 0)
                .unwrap_or(1)
        };
        let pools = if count == 1 {
            Vec::new()
        } else {
            let total = rayon::current_num_threads();
            (0..count)
                .map(|k| {
                    let threads = (total / count + usize::from(k < total % count)).max(1);
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .thread_name(move |t| format!("jax-cpu{k}-{t}"))
                        .build()
                        .expect("a device's thread pool starts")
                })
                .collect()
        };
        Local { count, pools }
    })
}

/// Fixes the local device count before first use; `Err` with the count in
/// use when it is already fixed to another.
pub(crate) fn request_local_devices(n: usize) -> Result<(), usize> {
    if n == 0 {
        return Err(local_device_count());
    }
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
    fn from(k: usize, count: usize, pools: &[rayon::ThreadPool], f: &(dyn Fn(usize) + Sync)) {
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
    let pools = &local().pools;
    if pools.len() < count {
        // One device: the caller's threads.
        (0..count).for_each(f);
        return;
    }
    from(0, count, pools, f);
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
                threads: l
                    .pools
                    .get(k)
                    .map_or_else(rayon::current_num_threads, |p| p.current_num_threads()),
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
