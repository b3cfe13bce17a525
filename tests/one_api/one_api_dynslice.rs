//! One API: each `lax::` window function at run-time starts, jitted, equals
//! its eager call on the same inputs (f32 and integer arrays; starts in
//! bounds, past the end and negative).

use jax::prelude::*;

/// Starts that cover the clamping cases: in bounds, past the end, negative,
/// very negative.
const STARTS: [i32; 5] = [0, 1, 3, -1, -7];

#[jax::jit]
fn dynamic_slice_f32(x: Array<f32, 4, 5>, i: i32, j: i32) -> Array<f32, 2, 3> {
    lax::dynamic_slice(&x, &[i, j])
}

#[jax::jit]
fn dynamic_slice_i32(x: Array<i32, 6>, i: i32) -> Array<i32, 4> {
    lax::dynamic_slice(&x, &[i])
}

#[jax::jit]
fn dynamic_update_slice_f32(
    x: Array<f32, 4, 5>,
    u: Array<f32, 2, 3>,
    i: i32,
    j: i32,
) -> Array<f32, 4, 5> {
    lax::dynamic_update_slice(&x, &u, &[i, j])
}

#[jax::jit]
fn dynamic_update_slice_i32(x: Array<i32, 6>, u: Array<i32, 2>, i: i32) -> Array<i32, 6> {
    lax::dynamic_update_slice(&x, &u, &[i])
}

#[jax::jit]
fn dynamic_slice_in_dim_f32(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 4, 3> {
    lax::dynamic_slice_in_dim(&x, i, 3, 1)
}

#[jax::jit]
fn dynamic_index_in_dim_i32(x: Array<i32, 4, 5>, i: i32) -> Array<i32, 5> {
    lax::dynamic_index_in_dim(&x, i, 0, false)
}

#[jax::jit]
fn dynamic_index_in_dim_keepdims_f32(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 4, 1> {
    lax::dynamic_index_in_dim(&x, i, 1, true)
}

#[jax::jit]
fn dynamic_update_slice_in_dim_f32(
    x: Array<f32, 4, 5>,
    u: Array<f32, 2, 5>,
    i: i32,
) -> Array<f32, 4, 5> {
    lax::dynamic_update_slice_in_dim(&x, &u, i, 0)
}

#[jax::jit]
fn dynamic_update_index_in_dim_i32(
    x: Array<i32, 4, 5>,
    u: Array<i32, 4>,
    i: i32,
) -> Array<i32, 4, 5> {
    lax::dynamic_update_index_in_dim(&x, &u, i, 1)
}

fn floats<const A: usize, const B: usize>(shift: f32) -> Array<f32, A, B> {
    let x: Array<f32, A, B> = Array::arange();
    x * 0.5 + shift
}

#[test]
fn dynamic_slice_jit_equals_eager() {
    let x = floats::<4, 5>(0.25);
    let n: Array<i32, 6> = Array::arange();
    for i in STARTS {
        for j in STARTS {
            let eager: Array<f32, 2, 3> = lax::dynamic_slice(&x, &[i, j]);
            assert_eq!(dynamic_slice_f32(x.clone(), i, j), eager, "({i}, {j})");
        }
        let eager: Array<i32, 4> = lax::dynamic_slice(&n, &[i]);
        assert_eq!(dynamic_slice_i32(n.clone(), i), eager, "{i}");
    }
}

#[test]
fn dynamic_update_slice_jit_equals_eager() {
    let x = floats::<4, 5>(0.25);
    let u = floats::<2, 3>(-3.0);
    let n: Array<i32, 6> = Array::arange();
    let m = Array::<i32, 2>::from([-1, -2]);
    for i in STARTS {
        for j in STARTS {
            let eager = lax::dynamic_update_slice(&x, &u, &[i, j]);
            assert_eq!(
                dynamic_update_slice_f32(x.clone(), u.clone(), i, j),
                eager,
                "({i}, {j})"
            );
        }
        let eager = lax::dynamic_update_slice(&n, &m, &[i]);
        assert_eq!(
            dynamic_update_slice_i32(n.clone(), m.clone(), i),
            eager,
            "{i}"
        );
    }
}

#[test]
fn in_dim_forms_jit_equal_eager() {
    let x = floats::<4, 5>(0.25);
    let n: Array<i32, 4, 5> = Array::arange();
    let u = floats::<2, 5>(-3.0);
    let row = Array::<i32, 4>::from([-1, -2, -3, -4]);
    for i in STARTS {
        let eager: Array<f32, 4, 3> = lax::dynamic_slice_in_dim(&x, i, 3, 1);
        assert_eq!(dynamic_slice_in_dim_f32(x.clone(), i), eager, "{i}");
        let eager: Array<i32, 5> = lax::dynamic_index_in_dim(&n, i, 0, false);
        assert_eq!(dynamic_index_in_dim_i32(n.clone(), i), eager, "{i}");
        let eager: Array<f32, 4, 1> = lax::dynamic_index_in_dim(&x, i, 1, true);
        assert_eq!(
            dynamic_index_in_dim_keepdims_f32(x.clone(), i),
            eager,
            "{i}"
        );
        let eager = lax::dynamic_update_slice_in_dim(&x, &u, i, 0);
        assert_eq!(
            dynamic_update_slice_in_dim_f32(x.clone(), u.clone(), i),
            eager,
            "{i}"
        );
        let eager = lax::dynamic_update_index_in_dim(&n, &row, i, 1);
        assert_eq!(
            dynamic_update_index_in_dim_i32(n.clone(), row.clone(), i),
            eager,
            "{i}"
        );
    }
}
