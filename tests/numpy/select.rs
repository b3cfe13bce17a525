//! `jnp::select(condlist, choicelist, default)`, jitted and eager,
//! against JAX's values, jvp and vjp (tests/fixtures/jnp_select.json, made
//! by tests/fixtures/gen/jnp_select.py): the first true condition winning,
//! the default where none is, conditions, choices and default of different
//! shapes broadcast together, integer choices promoted with a float default;
//! and `jnp::stack`, JAX's `stack` primitive (which `select` binds).

use crate::common;

use jax::prelude::*;

/// A case of `jnp_select.json` (`common::fixture_case!`).
macro_rules! case {
    ($($case:tt)*) => {
        fixture_case!("jnp_select", $($case)*);
    };
}

case!(
    values,
    select_i32,
    |x: Array<i32, 8>| -> Array<i32, 8> {
        jnp::select(
            [jnp::less(&x, -1), jnp::greater(&x, 2)],
            [&x * 10, &x * 100],
            0,
        )
    },
    jnp::select(
        &[jnp::less(&x, -1), jnp::greater(&x, 2)],
        &[&x * 10, &x * 100],
        0
    )
);
case!(
    grads,
    select_first_wins,
    |x: Array<f32, 2, 4>| -> Array<f32, 2, 4> {
        jnp::select(
            [jnp::greater(&x, 0.0), jnp::greater(&x, 0.5)],
            [&x + 1.0, &x * 0.0 - 7.0],
            -1.0,
        )
    },
    jnp::select(
        &[jnp::greater(&x, 0.0), jnp::greater(&x, 0.5)],
        &[&x + 1.0, &x * 0.0 - 7.0],
        -1.0
    )
);
case!(
    grads,
    select_broadcast,
    |x: Array<f32, 2, 3>, d: Array<f32, 3>| -> Array<f32, 2, 3> {
        jnp::select(
            [jnp::greater(&x, 0.5), jnp::less(&x, -0.5)],
            [&x * &x, jnp::sin(&x)],
            &d,
        )
    },
    jnp::select(
        &[jnp::greater(&x, 0.5), jnp::less(&x, -0.5)],
        &[&x * &x, jnp::sin(&x)],
        &d
    )
);
case!(
    grads,
    select_cond_rows,
    |x: Array<f32, 4, 3>, r: Array<f32, 3>| -> Array<f32, 4, 3> {
        jnp::select(
            [jnp::greater(&x, 0.0), jnp::greater(&r, 0.0)],
            (x.clone(), &r * 2.0),
            0.0,
        )
    },
    // An eager slice holds one type: the row's condition and choice
    // broadcast first (the jitted body takes them as they are).
    jnp::select(
        &[
            jnp::greater(&x, 0.0),
            jnp::greater(&r, 0.0).broadcast_to::<Array<bool, 4, 3>>()
        ],
        &[x.clone(), (&r * 2.0).broadcast_to::<Array<f32, 4, 3>>()],
        0.0
    )
);
// Integer choices with a float default: float32, and float64 under x64
// (the default float), as in JAX.
#[cfg(not(feature = "x64"))]
case!(
    values,
    select_promoted,
    |x: Array<i32, 6>| -> Array<f32, 6> { jnp::select([jnp::greater(&x, 1)], [x.clone()], 0.5) },
    jnp::select(&[jnp::greater(&x, 1)], &[&x], 0.5)
);

case!(
    grads,
    stack_axis1,
    |a: Array<f32, 3>, b: Array<f32, 3>| -> Array<f32, 3, 2> { jnp::stack([a, b], 1) },
    jnp::stack(&[&a, &b], 1)
);
case!(
    values,
    stack_promoted,
    |a: Array<i32, 2, 2>, b: Array<f32, 2, 2>| -> Array<f32, 2, 2, 2> { jnp::stack((a, b), -1) },
    jnp::stack(&[a.astype::<f32>(), b.clone()], -1)
);

#[test]
fn stack_is_jaxs() {
    stack_axis1::check();
    stack_promoted::check();
}

#[test]
fn select_is_jaxs() {
    select_i32::check();
    select_first_wins::check();
    select_broadcast::check();
    select_cond_rows::check();
    #[cfg(not(feature = "x64"))]
    select_promoted::check();
}
