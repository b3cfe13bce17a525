//! Const-generic functions of a `#[jax::jit] mod` called from the mod's
//! other functions: their sizes come from the arguments (or a turbofish),
//! also from generic callers with other names, nested, and used in the body
//! (`B as f32`, `Array::<f32, B>::zeros()`); `jnp::mean` over a size only
//! rustc knows.

use jax::prelude::*;

#[jax::jit]
mod model {
    use jax::prelude::*;

    pub const N: usize = 8;

    fn scale<const B: usize>(x: &Array<f32, B, 4>) -> Array<f32, B, 4> {
        x * (B as f32) + Array::<f32, B, 4>::ones()
    }

    fn total<const R: usize>(x: &Array<f32, R, 4>) -> Array<f32> {
        jnp::sum(scale(x)) / (R as f32)
    }

    fn mean_rows<const B: usize>(x: &Array<f32, B, 4>) -> Array<f32, 4> {
        jnp::mean_axis(x, 0, false)
    }

    fn pair<const B: usize, const K: usize>(
        x: &Array<f32, B, K>,
        y: &Array<f32, K>,
    ) -> Array<f32, B, K> {
        x + y
    }

    fn filled<const B: usize>() -> Array<f32, B> {
        Array::<f32, B>::zeros() + (B as f32)
    }

    pub fn step(x: &Array<f32, 32, 4>) -> Array<f32> {
        total(x)
    }

    pub fn step_generic<const C: usize>(x: &Array<f32, C, 4>) -> Array<f32> {
        total(x) + jnp::sum(mean_rows(x))
    }

    pub fn several(
        x: &Array<f32, 3, 4>,
        y: &Array<f32, 4>,
    ) -> (
        Array<f32, 3, 4>,
        Array<f32, 4>,
        Array<f32, 5>,
        Array<f32, N>,
    ) {
        (pair(x, y), mean_rows(x), filled::<5>(), filled::<N>())
    }

    pub fn with_const(x: &Array<f32, N, 4>) -> Array<f32, N, 4> {
        scale(x)
    }

    /// `step` written out for 32 rows.
    pub fn step_copy(x: &Array<f32, 32, 4>) -> Array<f32> {
        jnp::sum(x * 32.0 + Array::<f32, 32, 4>::ones()) / 32.0
    }

    /// `mean_rows` written out for 32 rows.
    pub fn mean_copy(x: &Array<f32, 32, 4>) -> Array<f32, 4> {
        jnp::mean_axis(x, 0, false)
    }
}

/// `jnp::mean` over a const-generic size in a free function.
#[jax::jit]
fn mean_all<const B: usize>(x: &Array<f32, B, 4>) -> (Array<f32>, Array<f32, 4>) {
    (jnp::mean(x), jnp::mean_axis(x, 0, false))
}

fn rows<const B: usize>() -> Array<f32, B, 4> {
    Array::from_fn(|i| ((i * 7 % 11) as f32 - 5.0) * 0.25)
}

#[test]
fn generic_functions_of_the_mod_take_their_sizes_from_the_arguments() {
    let x = rows::<32>();
    assert_eq!(model::step(&x).to_vec(), model::step_copy(&x).to_vec());
    let want = model::step_copy(&x).to_vec()[0] + jnp::sum(model::mean_copy(&x)).to_vec()[0];
    assert_eq!(model::step_generic(&x).to_vec(), [want]);

    let x3 = rows::<3>();
    let y = Array::<f32, 4>::from([1.0, -2.0, 0.5, 4.0]);
    let (p, m, f5, f8) = model::several(&x3, &y);
    assert_eq!(p.to_vec(), (&x3 + &y).to_vec());
    let want: Array<f32, 4> = jnp::mean_axis(&x3, 0, false);
    assert_eq!(m.to_vec(), want.to_vec());
    assert_eq!(f5.to_vec(), [5.0; 5]);
    assert_eq!(f8.to_vec(), [8.0; 8]);

    let x8 = rows::<8>();
    assert_eq!(model::with_const(&x8).to_vec(), (&x8 * 8.0 + 1.0).to_vec());
}

#[test]
fn mean_over_a_const_generic_size() {
    let x = rows::<6>();
    let (all, cols) = mean_all(&x);
    assert_eq!(all.to_vec(), jnp::mean(&x).to_vec());
    let want: Array<f32, 4> = jnp::mean_axis(&x, 0, false);
    assert_eq!(cols.to_vec(), want.to_vec());
}

/// A plain (not jitted) function generic over a dimension is compiled once
/// per shape it is used with.
fn first_dim<const N: usize>(x: &Array<f32, N, 3>) -> usize {
    x.shape()[0]
}

#[test]
fn a_function_generic_over_a_dimension_serves_each_shape() {
    assert_eq!(first_dim(&Array::<f32, 4, 3>::zeros()), 4);
    assert_eq!(first_dim(&Array::<f32, 7, 3>::zeros()), 7);
}
