//! `#[jax::jit]` end to end: the compiled function against the eager path.

use jax::prelude::*;

#[jax::jit]
fn chain(x: Array<f32, 3>) -> Array<f32, 3> {
    jnp::sin(x) * 2.0 + jnp::cos(x)
}

#[jax::jit]
fn bias_relu(x: &Array<f32, 4, 3>, b: &Array<f32, 3>) -> Array<f32, 4, 3> {
    jnp::maximum(x + b, 0.0)
}

#[jax::jit]
fn row_sums(x: Array<f32, 2, 3>) -> (Array<f32, 2>, Array<f32>) {
    (jnp::sum(x, 1, false), x.sum())
}

#[jax::jit]
fn mm<const N: usize>(a: Array<f32, N, 3>, w: Array<f32, 3, 2>) -> Array<f32, N, 2> {
    a.matmul(w) + 1.0
}

#[jax::jit]
fn scalar(x: f32) -> f32 {
    let mut even = 0;
    let mut odd = 0;
    for i in 0..10 {
        if i % 2 == 0 {
            even += x;
        } else {
            odd += x;
        }
    }
    even + odd
}

#[test]
fn elementwise_chain() {
    let x: Array<f32, 3> = Array::arange();
    let y = chain(x.clone());
    let want: Vec<f32> = x.to_vec().iter().map(|v| v.sin() * 2.0 + v.cos()).collect();
    assert_eq!(y.to_vec(), want);
    assert!(chain::jaxpr().to_string().contains("sin a"));
}

#[test]
fn broadcast_and_max() {
    let x = Array::<f32, 4, 3>::from_fn(|i| i as f32 - 6.0);
    let b = Array::<f32, 3>::from([1.0, -1.0, 0.5]);
    let y = bias_relu(&x, &b);
    let want: Vec<f32> = (0..12)
        .map(|i| (i as f32 - 6.0 + [1.0, -1.0, 0.5][i % 3]).max(0.0))
        .collect();
    assert_eq!(y.to_vec(), want);
}

#[test]
fn reductions() {
    let x: Array<f32, 2, 3> = Array::arange();
    let (rows, all) = row_sums(x);
    assert_eq!(rows.to_vec(), [3.0, 12.0]);
    assert_eq!(all.item(), 15.0);
}

#[test]
fn generic_matmul_at_two_sizes() {
    let w = Array::<f32, 3, 2>::from_fn(|i| i as f32);
    let a4 = Array::<f32, 4, 3>::from_fn(|i| i as f32 * 0.5);
    let y4 = mm(a4.clone(), w.clone());
    for i in 0..4 {
        for j in 0..2 {
            let want: f32 = (0..3)
                .map(|k| a4.as_slice()[i * 3 + k] * w.as_slice()[k * 2 + j])
                .sum::<f32>()
                + 1.0;
            assert_eq!(y4.as_slice()[i * 2 + j], want);
        }
    }
    let y1 = mm(Array::<f32, 1, 3>::ones(), w);
    assert_eq!(y1.to_vec(), [7.0, 10.0]);
}

#[test]
fn pure_uses_internal_state_gives_50() {
    assert_eq!(scalar(5.0), 50.0);
}
