//! Integration tests of jit, grad, vmap, control flow, pytrees, optimizers, imported jaxprs and whole programs, against JAX's values.
//!
//! One binary, the tests of each area its modules (one build and one link);
//! the helpers in `tests/support/` are shared by every binary. A test that
//! changes process-wide state has a binary of its own (`tests/memory/`,
//! `tests/debug/`, `tests/devices/`).

#[macro_use]
#[path = "../support/common/mod.rs"]
mod common;
#[path = "../support/optim_fixture/mod.rs"]
mod optim_fixture;

mod autodiff_fixture;
mod bare_names;
mod closures;
mod collectives;
mod control_eager;
mod control_jit;
mod dispatch;
mod gaussian_process;
mod generic_sizes;
mod grad;
mod imports_used;
mod interop;
mod jaxpr_import;
mod jaxpr_roundtrip;
mod jit;
mod jit_dtypes;
mod jit_mod;
mod jit_random;
mod jit_vs_eager;
mod key_arrays;
mod multi_output;
mod nn_initializers;
mod optim;
mod optim_jit;
mod optimizers;
mod pytree_derive;
mod pytree_jit;
mod rnn_steps;
mod safetensors;
mod scan_sums;
mod sharp_bits;
// JAX's float32 params: with x64 stax's initializers draw float64, as JAX's do.
#[cfg(not(feature = "x64"))]
mod stax;
mod train_step;
mod tree;
mod tree_jit;
mod tuple_outputs;
mod vmap;
mod vmap_batching_test;
mod vmap_control;
mod vmap_prims;
