// `cholesky` is a function of jnp::linalg and of scipy::linalg, which
// differ (scipy's takes `lower`): a bare name must say which.
use jax::prelude::*;
use jax::scipy::linalg::cholesky;

#[jax::jit]
fn f(a: &Array<f32, 2, 2>) -> Array<f32, 2, 2> {
    cholesky(a, true)
}

fn main() {
    let _ = cholesky::<&Array<f32, 2, 2>>;
}
