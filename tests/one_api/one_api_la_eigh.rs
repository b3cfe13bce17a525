//! One API: `jnp::linalg::eigh`, `eigvalsh`, `svd`, `svdvals` and `norm`,
//! jitted, equal their eager calls on the same inputs (f32 and f64,
//! square, wide, tall and batched). Both run the same faer kernel on the
//! same (symmetrized) input, so the factorizations agree exactly.

use jax::prelude::*;

fn input<A: ArrayType>() -> A
where
    A::Elem: Element,
{
    A::from_data(
        (0..A::SIZE)
            .map(|i| <A::Elem as Element>::from_f64(((i * 7) % 11) as f64 * 0.25 - 1.2))
            .collect(),
    )
}

#[jax::jit]
fn eigh_f32(a: Array<f32, 4, 4>) -> (Array<f32, 4>, Array<f32, 4, 4>) {
    jnp::linalg::eigh(&a)
}

#[jax::jit]
fn eigh_batched_f64(a: Array<f64, 2, 3, 3>) -> (Array<f64, 2, 3>, Array<f64, 2, 3, 3>) {
    jnp::linalg::eigh(&a)
}

#[jax::jit]
fn eigvalsh_f32(a: Array<f32, 3, 3>) -> Array<f32, 3> {
    jnp::linalg::eigvalsh(&a)
}

#[jax::jit]
fn svd_wide_f32(a: Array<f32, 2, 3>) -> (Array<f32, 2, 2>, Array<f32, 2>, Array<f32, 3, 3>) {
    jnp::linalg::svd(&a)
}

#[jax::jit]
fn svd_batched_f64(
    a: Array<f64, 2, 4, 3>,
) -> (Array<f64, 2, 4, 4>, Array<f64, 2, 3>, Array<f64, 2, 3, 3>) {
    jnp::linalg::svd(&a)
}

#[jax::jit]
fn svdvals_f32(a: Array<f32, 4, 2>) -> Array<f32, 2> {
    jnp::linalg::svdvals(&a)
}

#[jax::jit]
fn norm_f32(a: Array<f32, 3, 4>) -> Array<f32> {
    jnp::linalg::norm(&a)
}

#[jax::jit]
fn norm_vec_f64(v: Array<f64, 7>) -> Array<f64> {
    jnp::linalg::norm(&v)
}

#[test]
fn eigh_and_eigvalsh_jit_equal_eager() {
    let a: Array<f32, 4, 4> = input();
    let eager: (Array<f32, 4>, Array<f32, 4, 4>) = jnp::linalg::eigh(&a);
    assert_eq!(eigh_f32(a.clone()), eager);
    let a: Array<f64, 2, 3, 3> = input();
    let eager: (Array<f64, 2, 3>, Array<f64, 2, 3, 3>) = jnp::linalg::eigh(&a);
    assert_eq!(eigh_batched_f64(a.clone()), eager);
    let a: Array<f32, 3, 3> = input();
    let eager: Array<f32, 3> = jnp::linalg::eigvalsh(&a);
    assert_eq!(eigvalsh_f32(a), eager);
}

#[test]
fn svd_and_svdvals_jit_equal_eager() {
    let a: Array<f32, 2, 3> = input();
    let eager: (Array<f32, 2, 2>, Array<f32, 2>, Array<f32, 3, 3>) = jnp::linalg::svd(&a);
    assert_eq!(svd_wide_f32(a), eager);
    let a: Array<f64, 2, 4, 3> = input();
    let eager: (Array<f64, 2, 4, 4>, Array<f64, 2, 3>, Array<f64, 2, 3, 3>) = jnp::linalg::svd(&a);
    assert_eq!(svd_batched_f64(a), eager);
    let a: Array<f32, 4, 2> = input();
    let eager: Array<f32, 2> = jnp::linalg::svdvals(&a);
    assert_eq!(svdvals_f32(a), eager);
}

#[test]
fn norm_jit_equals_eager() {
    // The sums run in different orders: equal to a few ulps.
    let a: Array<f32, 3, 4> = input();
    let (j, e) = (norm_f32(a.clone()).item(), jnp::linalg::norm(&a).item());
    assert!((j - e).abs() <= 4.0 * f32::EPSILON * e, "{j} vs {e}");
    let v: Array<f64, 7> = input();
    let (j, e) = (norm_vec_f64(v.clone()).item(), jnp::linalg::norm(&v).item());
    assert!((j - e).abs() <= 4.0 * f64::EPSILON * e, "{j} vs {e}");
}
