//! Library functions called by a bare name after a `use` (`logsumexp(x, ..)`
//! after `use jax::scipy::special::logsumexp;`) are traced as those
//! functions, in free functions and in a `#[jax::jit] mod`; library
//! functions are values `jax::vmap` maps (`jax::vmap(norm::logpdf_with, ..)`).

use jax::nn;
use jax::nn::softplus;
use jax::prelude::*;
use jax::scipy::linalg::solve_triangular;
use jax::scipy::special;
use jax::scipy::special::logsumexp;

#[jax::jit]
fn lse(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    logsumexp(x, 1, false)
}

#[jax::jit]
fn tri(a: &Array<f32, 2, 2>, b: &Array<f32, 2>) -> Array<f32, 2> {
    solve_triangular(a, b, true)
}

#[jax::jit]
fn soft(x: &Array<f32, 3>) -> Array<f32, 3> {
    softplus(x) * 2.0
}

#[jax::jit]
fn mapped_logpdf(x: &Array<f32, 3, 2>) -> Array<f32, 3, 2> {
    jax::vmap(jax::scipy::stats::norm::logpdf_with, (0, None, None))(x, 1.0, 2.0)
}

#[jax::jit]
fn mapped_values(x: &Array<f32, 3, 2>) -> (Array<f32, 3, 2>, Array<f32, 3>) {
    let a = jax::vmap(nn::softplus)(x);
    let b = jax::vmap(|r| special::logsumexp(r, 0, false))(x);
    let c = jax::vmap(special::expit)(x);
    (a + c, b)
}

#[jax::jit]
mod model {
    use jax::prelude::*;
    use jax::scipy::stats::norm::logpdf;

    fn helper(x: &Array<f32, 3>) -> Array<f32, 3> {
        logpdf(x)
    }

    pub fn total(x: &Array<f32, 3>) -> Array<f32> {
        helper(x).sum()
    }
}

#[test]
fn bare_names_are_the_library_functions() {
    let x = Array::<f32, 2, 3>::from([[0.5, -1.0, 2.0], [3.0, 0.0, -4.0]]);
    let want: Array<f32, 2> = jax::scipy::special::logsumexp(&x, 1, false);
    assert_eq!(lse(&x).to_vec(), want.to_vec());

    let a = Array::<f32, 2, 2>::from([[2.0, 0.0], [1.0, 4.0]]);
    let b = Array::<f32, 2>::from([2.0, 9.0]);
    let want = jax::scipy::linalg::solve_triangular(&a, &b, true);
    assert_eq!(tri(&a, &b).to_vec(), want.to_vec());

    let v = Array::<f32, 3>::from([-2.0, 0.0, 3.0]);
    let want = jax::nn::softplus(&v) * 2.0;
    assert_eq!(soft(&v).to_vec(), want.to_vec());

    let want = jax::scipy::stats::norm::logpdf(&v).sum();
    assert_eq!(model::total(&v).to_vec(), want.to_vec());
}

#[test]
fn library_functions_are_values_vmap_maps() {
    let x = Array::<f32, 3, 2>::from([[0.5, -1.0], [2.0, 3.0], [0.0, -4.0]]);
    let want = jax::scipy::stats::norm::logpdf_with(&x, 1.0, 2.0);
    assert_eq!(mapped_logpdf(&x).to_vec(), want.to_vec());
    let (a, b) = mapped_values(&x);
    let want = jax::nn::softplus(&x) + jax::scipy::special::expit(&x);
    assert_eq!(a.to_vec(), want.to_vec());
    let want: Array<f32, 3> = jax::scipy::special::logsumexp(&x, 1, false);
    assert_eq!(b.to_vec(), want.to_vec());
}
