//! `jnp::linalg::NAME(..)` and `jax::scipy::linalg::NAME(..)` (also after
//! `use jax::scipy::linalg;`): each name's handler, composed of the
//! linear-algebra primitives (`prims/linalg/`) as JAX's `numpy/linalg.py`
//! and `scipy/linalg.py` compose them.

pub(crate) mod cholesky;
pub(crate) mod eigh;
pub(crate) mod lu;
pub(crate) mod more;
pub(crate) mod qr;

use crate::frontend::lib::call::{call_err, not_available_msg, Call, Module};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;

pub(crate) type Handler = fn(&mut Tracer, Call) -> Result<Value>;

/// `jnp::linalg`'s functions.
static LINALG: &[(&str, Handler)] = &[
    ("cholesky", cholesky::cholesky),
    ("solve", lu::solve),
    ("inv", lu::inv),
    ("det", lu::det),
    ("slogdet", lu::slogdet),
    ("matrix_power", lu::matrix_power),
    ("eigh", eigh::eigh),
    ("eigvalsh", eigh::eigvalsh),
    ("svd", eigh::svd),
    ("svdvals", eigh::svdvals),
    ("norm", more::norm),
    ("qr", crate::frontend::lib::linalg::qr::qr),
    ("qr_with", crate::frontend::lib::linalg::qr::qr),
    ("eig", crate::frontend::lib::linalg::qr::eig),
    ("eigvals", crate::frontend::lib::linalg::qr::eig),
    ("pinv", crate::frontend::lib::linalg::more::pinv),
    (
        "matrix_rank",
        crate::frontend::lib::linalg::more::matrix_rank,
    ),
    (
        "matrix_rank_with",
        crate::frontend::lib::linalg::more::matrix_rank,
    ),
    ("lstsq", crate::frontend::lib::linalg::more::lstsq),
];

/// `jax::scipy::linalg`'s functions.
static SCIPY_LINALG: &[(&str, Handler)] = &[
    ("cho_factor", cholesky::cho_factor),
    ("cho_solve", cholesky::cho_solve),
    ("cholesky", cholesky::scipy_cholesky),
    ("qr", crate::frontend::lib::linalg::qr::scipy_qr),
    ("solve_triangular", cholesky::solve_triangular),
    ("lu", lu::lu),
    ("lu_factor", lu::lu_factor),
    ("lu_solve", lu::lu_solve),
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
