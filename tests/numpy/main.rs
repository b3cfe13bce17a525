//! Integration tests of jax.numpy, lax, nn, random and scipy functions, eager and jitted, against JAX's values.
//!
//! One binary, the tests of each area its modules (one build and one link);
//! the helpers in `tests/support/` are shared by every binary. A test that
//! changes process-wide state has a binary of its own (`tests/memory/`,
//! `tests/debug/`, `tests/devices/`).

#[macro_use]
#[path = "../support/common/mod.rs"]
mod common;
#[path = "../support/reduce_common/mod.rs"]
mod reduce_common;
#[path = "../support/sort_common/mod.rs"]
mod sort_common;

mod astype;
mod bench_peak;
mod complex;
mod complex_jit;
mod conv;
mod conv_jit;
mod cumulative_jit;
mod diag;
mod division;
mod dynamic_slice;
mod einsum;
mod elementwise;
mod empty_arrays;
mod fixture_smoke;
mod fold_extremes;
mod format;
mod gather;
mod gather_grad;
mod index;
mod index_dtypes;
mod manip;
mod manip_jit;
mod math;
mod matmul;
mod nn;
mod ops;
mod par;
mod polynomial;
mod pow_constant;
mod random;
mod random_jit;
mod random_samplers;
mod reduce;
mod reduce_speed_paths;
mod reduce_window;
mod reduce_window_jit;
mod select;
mod sincos;
mod sort;
mod trig_blocks;
