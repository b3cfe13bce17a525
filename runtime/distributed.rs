//! `jax.distributed`: one program over several processes, each with its
//! local devices, through MPI (Open MPI, by the `mpi` crate; the `mpi`
//! cargo feature).
//!
//! Launch the processes with `mpirun`; each calls [`initialize`] before its
//! first jitted call and keeps the returned [`Session`] alive while it
//! computes. [`crate::devices`] then lists every process' devices, and a
//! `jax::pmap` whose axis has one entry per device spans all of them: each
//! process runs its own devices' part and the collectives cross processes
//! as MPI all-gathers. Every process gets the whole result, equal bit for
//! bit to one process with as many local devices (the collectives reduce
//! in device order on every process).
//!
//! ```no_run
//! # fn main() -> Result<(), jax::distributed::DistributedError> {
//! let _session = jax::distributed::initialize()?;
//! println!("process {} of {}", jax::process_index(), jax::process_count());
//! # Ok(())
//! # }
//! ```

use std::fmt;

/// Why [`initialize`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DistributedError {
    /// The crate was built without the `mpi` feature.
    NoMpi,
    /// MPI was initialized before (by this crate or another).
    AlreadyInitialized,
    /// The devices were used before [`initialize`], so they were created
    /// for one process.
    DevicesInUse,
}

impl fmt::Display for DistributedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DistributedError::NoMpi => write!(
                f,
                "jax::distributed needs the `mpi` feature: build with `--features jax/mpi` (Open MPI: `apt-get install openmpi-bin libopenmpi-dev`)"
            ),
            DistributedError::AlreadyInitialized => {
                write!(f, "jax::distributed::initialize was called twice")
            }
            DistributedError::DevicesInUse => write!(
                f,
                "jax::distributed::initialize must come before the first jitted call or device query"
            ),
        }
    }
}

impl std::error::Error for DistributedError {}

/// The MPI session: MPI is finalized when it is dropped, after which
/// collectives across processes panic.
pub struct Session {
    #[cfg(feature = "mpi")]
    transport: &'static mpi_transport::Mpi,
}

impl Drop for Session {
    fn drop(&mut self) {
        #[cfg(feature = "mpi")]
        self.transport.finalize();
    }
}

/// `jax.distributed.initialize()`: joins the processes `mpirun` started.
/// Under no launcher it is one process of one.
///
/// # Errors
/// [`DistributedError::NoMpi`] without the `mpi` feature; the other
/// variants when called twice or after the devices were used.
pub fn initialize() -> Result<Session, DistributedError> {
    #[cfg(feature = "mpi")]
    {
        if crate::device::devices_created() {
            return Err(DistributedError::DevicesInUse);
        }
        let transport = mpi_transport::Mpi::start().ok_or(DistributedError::AlreadyInitialized)?;
        if !crate::device::set_transport(Box::new(mpi_transport::Shared(transport))) {
            return Err(DistributedError::AlreadyInitialized);
        }
        Ok(Session { transport })
    }
    #[cfg(not(feature = "mpi"))]
    Err(DistributedError::NoMpi)
}

#[cfg(feature = "mpi")]
mod mpi_transport {
    use std::sync::Mutex;

    use mpi::traits::{Communicator, CommunicatorCollectives};

    use crate::__rt::spmd::Transport;

    /// MPI's world. Every call holds the lock, so MPI is called by one
    /// thread at a time (`MPI_THREAD_SERIALIZED`), whichever device's
    /// thread leads a collective.
    pub(super) struct Mpi {
        universe: Mutex<Option<mpi::environment::Universe>>,
        rank: usize,
        size: usize,
    }

    impl Mpi {
        pub(super) fn start() -> Option<&'static Mpi> {
            let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Serialized)?;
            let world = universe.world();
            let (rank, size) = (world.rank() as usize, world.size() as usize);
            Some(Box::leak(Box::new(Mpi {
                universe: Mutex::new(Some(universe)),
                rank,
                size,
            })))
        }

        pub(super) fn finalize(&self) {
            let universe = self
                .universe
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            drop(universe);
        }
    }

    /// The transport the devices use: the leaked session.
    pub(super) struct Shared(pub(super) &'static Mpi);

    impl Transport for Shared {
        fn process_index(&self) -> usize {
            self.0.rank
        }

        fn process_count(&self) -> usize {
            self.0.size
        }

        fn all_gather(&self, mine: &[u8]) -> Vec<Vec<u8>> {
            let guard = self.0.universe.lock().unwrap_or_else(|e| e.into_inner());
            let universe = guard
                .as_ref()
                .expect("a collective across processes after the jax::distributed session ended");
            let world = universe.world();
            let mut all = vec![0u8; mine.len() * self.0.size];
            world.all_gather_into(mine, &mut all[..]);
            all.chunks(mine.len().max(1))
                .map(|c| c.to_vec())
                .chain(std::iter::repeat_with(Vec::new))
                .take(self.0.size)
                .collect()
        }
    }
}
