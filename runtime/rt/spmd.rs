//! SPMD execution: what `shard_map` (and so `jax::pmap`) compiles to. The
//! per-device program runs once per device of the mapped axis, each on its
//! own group of threads (`device.rs`), concurrently; collectives inside it
//! meet at a rendezvous where every device's operand is visible to all.
//!
//! Every collective is an all-gather of the operands in device order, after
//! which each device computes its own result locally: `psum` adds the
//! operands in device order, so its bits do not depend on which devices
//! share a process, and a program split over processes (`jax::distributed`)
//! gives what it gives on one process with as many local devices.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::device;
use crate::element::{DType, Element};
use crate::ops::{AddMul, Arith};

/// How processes exchange bytes: implemented over MPI by
/// `jax::distributed`. Every process calls [`Transport::all_gather`] the
/// same number of times, in the same order.
pub trait Transport: Send + Sync {
    /// This process' index.
    fn process_index(&self) -> usize;
    /// How many processes run the program.
    fn process_count(&self) -> usize;
    /// Every process' bytes, in process order. Every process passes as
    /// many bytes (their devices are as many, `shard_map` checks).
    fn all_gather(&self, mine: &[u8]) -> Vec<Vec<u8>>;
}

const ABORTED: &str = "another device of this pmap panicked";

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A barrier of the run's local devices that a failing device can break,
/// so the others panic instead of waiting for it forever. When every
/// device has a core of its own, a waiter spins a little before it sleeps:
/// devices reach a collective within microseconds of each other, and a
/// sleep and wake-up cost more. With fewer cores than devices a spinning
/// waiter would hold the core the others need, so it sleeps at once.
struct Rendezvous {
    n: usize,
    spins: usize,
    arrived: AtomicUsize,
    generation: AtomicU64,
    aborted: AtomicBool,
    lock: Mutex<()>,
    cv: Condvar,
}

/// Spins before a waiting device sleeps.
const SPINS: usize = 20_000;

impl Rendezvous {
    fn new(n: usize) -> Rendezvous {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        Rendezvous {
            n,
            spins: if n <= cores { SPINS } else { 0 },
            arrived: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
            aborted: AtomicBool::new(false),
            lock: Mutex::new(()),
            cv: Condvar::new(),
        }
    }

    fn wait(&self) {
        if self.aborted.load(Ordering::Acquire) {
            panic!("{ABORTED}");
        }
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            let _guard = lock(&self.lock);
            self.generation.fetch_add(1, Ordering::AcqRel);
            self.cv.notify_all();
            return;
        }
        let passed = || self.generation.load(Ordering::Acquire) != generation;
        for _ in 0..self.spins {
            if passed() {
                return;
            }
            if self.aborted.load(Ordering::Acquire) {
                panic!("{ABORTED}");
            }
            std::hint::spin_loop();
        }
        let mut guard = lock(&self.lock);
        while !passed() {
            if self.aborted.load(Ordering::Acquire) {
                drop(guard);
                panic!("{ABORTED}");
            }
            guard = self.cv.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn abort(&self) {
        self.aborted.store(true, Ordering::Release);
        let _guard = lock(&self.lock);
        self.cv.notify_all();
    }
}

type Shared = Arc<dyn Any + Send + Sync>;

/// The devices of one `shard_map` run in this process.
pub struct Group {
    /// The mapped axis' size: devices `0..n` across all processes.
    n: usize,
    /// The global index of this process' first device in the run.
    first: usize,
    rendezvous: Rendezvous,
    slots: Mutex<Vec<Option<Shared>>>,
    gathered: Mutex<Option<Shared>>,
    transport: Option<&'static dyn Transport>,
}

/// One device's view of its run: its index along the mapped axis, and the
/// collectives it takes part in.
pub struct Dev<'a> {
    index: usize,
    group: &'a Group,
}

impl Dev<'_> {
    /// This device's index along the mapped axis (`lax.axis_index`).
    pub fn index(&self) -> usize {
        self.index
    }

    /// Every device's `mine`, in device order. All devices of the run call
    /// it together (the same collectives in the same order).
    fn all_gather<T: Element>(&self, mine: Vec<T>) -> Arc<Vec<Arc<Vec<T>>>> {
        let g = self.group;
        lock(&g.slots)[self.index - g.first] = Some(Arc::new(mine));
        g.rendezvous.wait();
        if self.index == g.first {
            let local: Vec<Arc<Vec<T>>> = lock(&g.slots)
                .iter_mut()
                .map(|s| {
                    let s = s.take().expect("every device filled its slot");
                    s.downcast::<Vec<T>>().expect("devices exchange one type")
                })
                .collect();
            let all = match g.transport {
                Some(t) if t.process_count() > 1 => {
                    let bytes: Vec<u8> = local.iter().flat_map(|v| to_bytes(v)).collect();
                    let len = local[0].len();
                    t.all_gather(&bytes)
                        .iter()
                        .flat_map(|b| {
                            from_bytes::<T>(b)
                                .chunks(len.max(1))
                                .map(|c| Arc::new(c.to_vec()))
                                .collect::<Vec<_>>()
                        })
                        .collect()
                }
                _ => local,
            };
            *lock(&g.gathered) = Some(Arc::new(all) as Shared);
        }
        g.rendezvous.wait();
        let all = lock(&g.gathered)
            .clone()
            .expect("the first device gathered");
        all.downcast::<Vec<Arc<Vec<T>>>>()
            .expect("devices exchange one type")
    }
}

/// The bytes of plain-data elements (every [`Element`] is plain data).
fn to_bytes<T: Element>(x: &[T]) -> Vec<u8> {
    // SAFETY: `Element` types are plain data without padding (integers,
    // floats, bool, complex pairs of floats), so their bytes are initialized.
    unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<u8>(), std::mem::size_of_val(x)) }
        .to_vec()
}

/// The elements another process wrote with [`to_bytes`].
fn from_bytes<T: Element>(b: &[u8]) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    assert!(
        b.len().is_multiple_of(size.max(1)),
        "a process sent {} bytes, not a whole number of {}-byte elements",
        b.len(),
        size
    );
    if T::DTYPE == DType::Bool {
        assert!(
            b.iter().all(|&x| x <= 1),
            "a process sent a bool that is neither 0 nor 1"
        );
    }
    let n = b.len() / size.max(1);
    let mut out = Vec::<T>::with_capacity(n);
    // SAFETY: `out` has room for `n` elements; every bit pattern is a valid
    // value of the numeric `Element` types, and bool bytes were checked above.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), out.as_mut_ptr().cast::<u8>(), b.len());
        out.set_len(n);
    }
    out
}

/// Checks once that every process has `local` devices (exchanges then
/// have one size on every process).
fn same_local_count(t: &dyn Transport, local: usize) {
    static CHECKED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    CHECKED.get_or_init(|| {
        let counts: Vec<u64> = t
            .all_gather(&(local as u64).to_le_bytes())
            .iter()
            .map(|b| u64::from_le_bytes(b[..8].try_into().expect("8 bytes")))
            .collect();
        assert!(
            counts.iter().all(|&c| c == local as u64),
            "the processes have different numbers of local devices ({counts:?}): give every process the same JAX_NUM_CPU_DEVICES"
        );
    });
}

/// What each of this process' devices returned, in device order.
pub struct Shards<R> {
    results: Vec<R>,
    first: usize,
    n: usize,
    transport: Option<&'static dyn Transport>,
}

/// Runs `body` once per device `0..n` of the mapped axis, concurrently,
/// each on its own threads.
///
/// # Panics
/// When `n` is more than [`crate::devices`] has (as JAX refuses), or a
/// device's program panics.
pub fn shard_map<R: Send>(n: usize, body: &(dyn Fn(&Dev<'_>) -> R + Sync)) -> Shards<R> {
    let transport = device::transport();
    let local = device::local_device_count();
    let processes = transport.map_or(1, |t| t.process_count());
    let process = transport.map_or(0, |t| t.process_index());
    let total = local * processes;
    if processes > 1 && n != total {
        panic!(
            "pmap over an axis of size {n} across {processes} processes: the axis must have one entry per device, {total} ({local} per process)"
        );
    }
    if n > total {
        panic!(
            "pmap over an axis of size {n} needs {n} devices, but jax::devices() has {total}: set JAX_NUM_CPU_DEVICES={n}, or call jax::config::set_num_cpu_devices({n}) before the first jitted call"
        );
    }
    if let Some(t) = transport.filter(|_| processes > 1) {
        same_local_count(t, local);
    }
    let first = process * local;
    let count = n.saturating_sub(first).min(local);
    let group = Group {
        n,
        first,
        rendezvous: Rendezvous::new(count),
        slots: Mutex::new(vec![None; count]),
        gathered: Mutex::new(None),
        transport,
    };
    let slots: Vec<Mutex<Option<std::thread::Result<R>>>> =
        (0..count).map(|_| Mutex::new(None)).collect();
    let run = |k: usize| {
        let dev = Dev {
            index: first + k,
            group: &group,
        };
        let out = catch_unwind(AssertUnwindSafe(|| body(&dev)));
        if out.is_err() {
            group.rendezvous.abort();
        }
        *lock(&slots[k]) = Some(out);
    };
    device::run_on_devices(count, &run);
    let outs = slots.into_iter().map(|s| {
        s.into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .expect("every device ran")
    });
    let mut results = Vec::with_capacity(count);
    let mut failure: Option<Box<dyn Any + Send>> = None;
    for o in outs {
        match o {
            Ok(r) => results.push(r),
            Err(e) => {
                // Report the device that failed, not one that saw it fail.
                let secondary = e.downcast_ref::<String>().is_some_and(|m| m == ABORTED);
                if failure.is_none() || !secondary {
                    failure = Some(e);
                }
            }
        }
    }
    if let Some(e) = failure {
        resume_unwind(e);
    }
    Shards {
        results,
        first,
        n,
        transport,
    }
}

/// A mapped output: the devices' blocks placed along its sharded axis. The
/// output is `outer` rows, each of the `n` blocks' `len * inner` elements.
pub fn stack<R, T: Element>(
    shards: &Shards<R>,
    block: impl Fn(&R) -> &[T],
    outer: usize,
    len: usize,
    inner: usize,
) -> Vec<T> {
    let size = len * inner;
    let mut blocks: Vec<Vec<T>> = Vec::new();
    let local: Vec<&[T]> = shards.results.iter().map(&block).collect();
    let all: Vec<&[T]> = match shards.transport {
        Some(t) if t.process_count() > 1 => {
            let bytes: Vec<u8> = local.iter().flat_map(|b| to_bytes(b)).collect();
            for b in t.all_gather(&bytes) {
                let v = from_bytes::<T>(&b);
                blocks.extend(v.chunks(outer * size).map(|c| c.to_vec()));
            }
            blocks.iter().map(|b| &b[..]).collect()
        }
        _ => local,
    };
    debug_assert_eq!(all.len(), shards.n);
    debug_assert!(shards.first + shards.results.len() <= shards.n);
    let n = all.len();
    let mut out = Vec::with_capacity(outer * n * size);
    for o in 0..outer {
        for b in &all {
            out.extend_from_slice(&b[o * size..(o + 1) * size]);
        }
    }
    out
}

/// An unsplit output, which every device computed alike: the first
/// local device's.
pub fn replicated<R, T: Element>(shards: &Shards<R>, block: impl Fn(&R) -> &[T]) -> Vec<T> {
    block(&shards.results[0]).to_vec()
}

/// Device `d`'s block of an input sharded along an inner axis: `outer`
/// rows, each of `n` blocks of `len * inner` elements.
pub fn block<T: Element>(
    x: &[T],
    outer: usize,
    len: usize,
    inner: usize,
    d: usize,
    n: usize,
) -> Vec<T> {
    let size = len * inner;
    let mut out = Vec::with_capacity(outer * size);
    for o in 0..outer {
        let row = (o * n + d) * size;
        out.extend_from_slice(&x[row..row + size]);
    }
    out
}

/// `psum`: the devices' operands added in device order.
pub fn psum<T: AddMul>(dev: &Dev<'_>, x: &[T]) -> Vec<T> {
    fold(dev, x, T::add)
}

/// `pmax`: the elementwise maximum (NaN if any is NaN, as `lax.max`).
pub fn pmax<T: Arith>(dev: &Dev<'_>, x: &[T]) -> Vec<T> {
    fold(dev, x, T::max)
}

/// `pmin`: the elementwise minimum.
pub fn pmin<T: Arith>(dev: &Dev<'_>, x: &[T]) -> Vec<T> {
    fold(dev, x, T::min)
}

fn fold<T: Element>(dev: &Dev<'_>, x: &[T], f: impl Fn(T, T) -> T) -> Vec<T> {
    let all = dev.all_gather(x.to_vec());
    let mut out = all[0].to_vec();
    for other in &all[1..] {
        for (o, v) in out.iter_mut().zip(other.iter()) {
            *o = f(*o, *v);
        }
    }
    out
}

/// `all_gather`: the devices' operands stacked along a new leading axis.
pub fn all_gather<T: Element>(dev: &Dev<'_>, x: &[T]) -> Vec<T> {
    let all = dev.all_gather(x.to_vec());
    all.iter().flat_map(|v| v.iter().copied()).collect()
}

/// `reduce_scatter` (`lax.psum_scatter`): this device's row of the sum of
/// the operands, whose leading axis has one row per device.
pub fn psum_scatter<T: AddMul>(dev: &Dev<'_>, x: &[T]) -> Vec<T> {
    let all = dev.all_gather(x.to_vec());
    let row = x.len() / dev.group.n;
    let at = dev.index * row;
    let mut out = all[0][at..at + row].to_vec();
    for other in &all[1..] {
        for (o, v) in out.iter_mut().zip(&other[at..at + row]) {
            *o = T::add(*o, *v);
        }
    }
    out
}

/// `ppermute`: the operand of the device that sends to this one (`(src,
/// dst)` pairs), zeros when none does.
pub fn ppermute<T: Element>(dev: &Dev<'_>, x: &[T], perm: &[(usize, usize)]) -> Vec<T> {
    let all = dev.all_gather(x.to_vec());
    match perm.iter().find(|(_, dst)| *dst == dev.index) {
        Some((src, _)) => all[*src].to_vec(),
        None => vec![T::ZERO; x.len()],
    }
}

/// `axis_index`: the device's index, as JAX's int32.
pub fn axis_index(dev: &Dev<'_>) -> Vec<i32> {
    vec![dev.index as i32]
}
