//! The compiler's integration tests, as modules of its unit-test binary:
//! tokens in, jaxprs and tokens out, with no rustc in the loop.

mod common;
mod jaxpr_cases;

mod buffer_reuse;
mod complex_jaxpr_fixture;
mod deep_bodies;
mod diag_jaxpr_fixture;
mod dynamic_slice_fixture;
mod einsum_jaxpr_fixture;
mod expansion_size;
mod fusion_random;
mod gather_fixture;
mod house_rules;
mod jaxpr_fixture;
mod jaxpr_import;
mod jaxpr_parse_errors;
mod jaxpr_reprint;
mod linalg_cholesky_jaxpr_fixture;
mod linalg_eigh_jaxpr_fixture;
mod linalg_gaps_jaxpr_fixture;
mod linalg_lu_jaxpr_fixture;
mod linalg_more_jaxpr_fixture;
mod manip_jaxpr_fixture;
mod reimport_suite;
mod robustness;
mod select_jaxpr_fixture;
mod sort_fixture;
mod vmap_control_fixture;
mod vmap_fixture;
mod vmap_prims_fixture;
