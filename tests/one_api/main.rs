//! One API: every public function of `jnp`, `lax`, `random`, `nn` and
//! `scipy` works in `#[jax::jit]` with its eager signature and result.
//! `one_api.rs` reads the functions from the runtime's source and fails for
//! one that no jitted function of the `one_api_*.rs` modules calls and
//! compares with the eager call (or that the guide does not list as eager
//! only, `runtime/guide/jit.md`).

#[macro_use]
#[path = "../support/common/mod.rs"]
mod common;

mod one_api;
mod one_api_complex;
mod one_api_control;
mod one_api_conv;
mod one_api_core;
mod one_api_cx_jit;
mod one_api_diag;
mod one_api_dynslice;
mod one_api_einsum;
mod one_api_gather;
mod one_api_initializers;
mod one_api_jnp_more;
mod one_api_la_chol;
mod one_api_la_cplx;
mod one_api_la_eigh;
mod one_api_la_lu;
mod one_api_la_more;
mod one_api_la_qr;
mod one_api_lax;
mod one_api_nn;
mod one_api_random;
mod one_api_select;
mod one_api_sort;
mod one_api_unary;
