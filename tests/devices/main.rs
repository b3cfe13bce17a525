//! CPU devices: `jax::pmap` over 4 devices and data-parallel training on
//! them, and `JAX_NUM_CPU_DEVICES` read by child processes. A binary of its
//! own, since the device count is set once per process: every test here that
//! runs on devices asks for the same 4.

#[path = "../support/common/mod.rs"]
#[allow(unused_macros)]
mod common;

mod data_parallel;
mod device_count;
mod pmap;
