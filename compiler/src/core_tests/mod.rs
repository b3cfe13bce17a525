//! Tests of `jax-core`'s passes on programs traced from Rust source, which
//! only the compiler can trace.

mod cholesky_flops;
mod jacobian;
mod scan_sums;
mod simplify;
mod svd_flops;

use crate::ir::Jaxpr;
use crate::transform::simplify::simplify;

/// The jaxpr traced from a Rust function's source, for the compiler's unit
/// tests.
pub(crate) fn traced_source(src: &str) -> Jaxpr {
    let f: syn::ItemFn = syn::parse_str(src).unwrap();
    let sig = crate::frontend::parse::signature(&f).unwrap();
    crate::frontend::parse::trace_fn(&f, &sig, false)
        .unwrap()
        .b
        .jaxpr
}

/// [`traced_source`] simplified: the program the emitter sees.
pub(crate) fn simplified_source(src: &str) -> Jaxpr {
    let mut j = traced_source(src);
    simplify(&mut j);
    j
}
