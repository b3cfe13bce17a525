//! `jnp::linalg::NAME(..)` and `jax::scipy::linalg::NAME(..)` (also after
//! `use jax::scipy::linalg;`): each name's handler, composed of the
//! linear-algebra primitives (`prims/linalg/`) as JAX's `numpy/linalg.py`
//! and `scipy/linalg.py` compose them.

use crate::frontend::linalg_chol;
use crate::frontend::linalg_eigh;
use crate::frontend::linalg_lu;
use crate::frontend::lower_call::{call_err, not_available_msg, Call, Module};
use crate::frontend::tracer::Tracer;
use crate::frontend::value::Value;
use crate::ir::builder::Result;

pub(crate) type Handler = fn(&mut Tracer, Call) -> Result<Value>;

/// `jnp::linalg`'s functions.
static LINALG: &[(&str, Handler)] = &[
    ("cholesky", linalg_chol::cholesky),
    ("solve", linalg_lu::solve),
    ("inv", linalg_lu::inv),
    ("det", linalg_lu::det),
    ("slogdet", linalg_lu::slogdet),
    ("matrix_power", linalg_lu::matrix_power),
    ("eigh", linalg_eigh::eigh),
    ("eigvalsh", linalg_eigh::eigvalsh),
    ("svd", linalg_eigh::svd),
    ("svdvals", linalg_eigh::svdvals),
    ("norm", linalg_eigh::norm),
    ("qr", crate::frontend::linalg_qr::qr),
    ("qr_with", crate::frontend::linalg_qr::qr),
    ("eig", crate::frontend::linalg_qr::eig),
    ("eigvals", crate::frontend::linalg_qr::eig),
    ("pinv", crate::frontend::linalg_more::pinv),
    ("matrix_rank", crate::frontend::linalg_more::matrix_rank),
    (
        "matrix_rank_with",
        crate::frontend::linalg_more::matrix_rank,
    ),
    ("lstsq", crate::frontend::linalg_more::lstsq),
];

/// `jax::scipy::linalg`'s functions.
static SCIPY_LINALG: &[(&str, Handler)] = &[
    ("cho_factor", linalg_chol::cho_factor),
    ("cho_solve", linalg_chol::cho_solve),
    ("cholesky", linalg_chol::scipy_cholesky),
    ("qr", crate::frontend::linalg_qr::scipy_qr),
    ("solve_triangular", linalg_chol::solve_triangular),
    ("lu", linalg_lu::lu),
    ("lu_factor", linalg_lu::lu_factor),
    ("lu_solve", linalg_lu::lu_solve),
];

/// The table of `jnp::linalg::` or `scipy::linalg::`, and the module's path.
pub(crate) fn table(module: Module) -> (&'static [(&'static str, Handler)], &'static str) {
    match module {
        Module::Linalg => (LINALG, "jax::jnp::linalg"),
        _ => (SCIPY_LINALG, "jax::scipy::linalg"),
    }
}

/// Lowers a call of `jnp::linalg::` or `scipy::linalg::` by its table.
pub(crate) fn lower(t: &mut Tracer, c: Call) -> Result<Value> {
    let (table, module) = table(c.module);
    match table.iter().find(|(n, _)| *n == c.name) {
        Some((_, h)) => h(t, c),
        None => {
            let module = module
                .strip_prefix("jax::jnp::")
                .map_or(module, |_| "jnp::linalg");
            call_err(c.span, not_available_msg(&format!("{module}::{}", c.name)))
        }
    }
}
