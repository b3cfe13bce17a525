//! Shape functions in `#[jax::jit]` and eagerly against JAX
//! (tests/fixtures/manip_jit.json, made by tests/fixtures/gen/manip_jit.py):
//! values exactly (the inputs are multiples of 1/4), and jvp and vjp of
//! `pad` (both operands), `flip`, `roll` and `tile`.

use crate::common;

use jax::prelude::*;
use jax::ArrayType;

/// A case of `manip_jit.json` (`common::fixture_case!`).
macro_rules! case {
    ($($case:tt)*) => {
        fixture_case!("manip_jit", $($case)*);
    };
}

case!(
    grads,
    pad_jnp,
    |x: Array<f32, 2, 3>| -> Array<f32, 5, 4> { jnp::pad(&x, &[(1, 2), (0, 1)]) },
    jnp::pad(&x, &[(1, 2), (0, 1)])
);
case!(
    grads,
    pad_lax,
    |x: Array<f32, 2, 3>| -> Array<f32, 4, 5> { lax::pad(&x, -1.5, &[(1, 0, 1), (-1, 1, 1)]) },
    lax::pad(&x, -1.5, &[(1, 0, 1), (-1, 1, 1)])
);
case!(
    grads,
    pad_value_operand,
    |x: Array<f32, 2, 3>, v: Array<f32>| -> Array<f32, 6, 4> {
        lax::pad(&x, v, &[(1, 2, 1), (0, 1, 0)])
    },
    lax::pad(&x, v.to_vec()[0], &[(1, 2, 1), (0, 1, 0)])
);
case!(
    values,
    pad_vmap,
    |x: Array<f32, 4, 3>| -> Array<f32, 4, 5> { jax::vmap(|r| jnp::pad(&r, &[(1, 1)]))(x) },
    {
        let rows: Vec<Array<f32, 5>> = (0..4)
            .map(|i| {
                let r: Array<f32, 3> = Array::from_data(x.to_vec()[3 * i..3 * i + 3].to_vec());
                jnp::pad(&r, &[(1, 1)])
            })
            .collect();
        Array::from_data(rows.iter().flat_map(|r| r.to_vec()).collect())
    }
);
case!(
    grads,
    flip,
    |x: Array<f32, 2, 3>| -> Array<f32, 2, 3> { jnp::flip(&x, 1) },
    jnp::flip(&x, 1)
);
case!(
    values,
    flip_all,
    |x: Array<f32, 2, 3>| -> Array<f32, 2, 3> { jnp::flip_all(&x) },
    jnp::flip_all(&x)
);
case!(
    values,
    rev,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 2, 3, 4> { lax::rev(&x, &[0, 2]) },
    lax::rev(&x, &[0, 2])
);
case!(
    values,
    rev_vmap,
    |x: Array<f32, 3, 4>| -> Array<f32, 4, 3> { jax::vmap(|r| lax::rev(&r, &[0]), 1)(x) },
    {
        let t: Array<f32, 4, 3> = x.t();
        jnp::flip(&t, 1)
    }
);
case!(
    grads,
    roll,
    |x: Array<f32, 2, 3>| -> Array<f32, 2, 3> { jnp::roll(&x, 1, 1) },
    jnp::roll(&x, 1, 1)
);
case!(
    values,
    roll_negative,
    |x: Array<f32, 2, 3>| -> Array<f32, 2, 3> { jnp::roll(&x, -4, 1) },
    jnp::roll(&x, -4, 1)
);
case!(
    grads,
    tile,
    |x: Array<f32, 2, 3>| -> Array<f32, 4, 3> { jnp::tile(&x, &[2, 1]) },
    jnp::tile(&x, &[2, 1])
);
case!(
    values,
    tile_longer,
    |x: Array<f32, 2, 3>| -> Array<f32, 2, 4, 3> { jnp::tile(&x, &[2, 2, 1]) },
    jnp::tile(&x, &[2, 2, 1])
);
case!(
    values,
    tile_vmap,
    |x: Array<f32, 4, 3>| -> Array<f32, 4, 6> { jax::vmap(|r| jnp::tile(&r, &[2]))(x) },
    jnp::tile(&x, &[1, 2])
);
case!(
    values,
    repeat,
    |x: Array<f32, 2, 3>| -> Array<f32, 4, 3> { jnp::repeat(&x, 2, Some(0)) },
    jnp::repeat(&x, 2, Some(0))
);
case!(
    values,
    repeat_flat,
    |x: Array<f32, 2, 3>| -> Array<f32, 12> { jnp::repeat(&x, 2, None) },
    jnp::repeat(&x, 2, None)
);
case!(
    values,
    outer,
    |a: Array<f32, 3>, b: Array<f32, 4>| -> Array<f32, 3, 4> { jnp::outer(&a, &b) },
    jnp::outer(&a, &b)
);
case!(
    values,
    vdot,
    |a: Array<f32, 3>, b: Array<f32, 3>| -> Array<f32> { jnp::vdot(&a, &b) },
    jnp::vdot(&a, &b)
);
case!(
    values,
    inner,
    |a: Array<f32, 3>, b: Array<f32, 3>| -> Array<f32> { jnp::inner(&a, &b) },
    jnp::inner(&a, &b)
);
case!(
    values,
    swapaxes,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 4, 3, 2> { jnp::swapaxes(&x, 0, 2) },
    jnp::swapaxes(&x, 0, 2)
);
case!(
    values,
    moveaxis,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 3, 4, 2> { jnp::moveaxis(&x, 0, 2) },
    jnp::moveaxis(&x, 0, 2)
);
case!(
    values,
    transpose_axes,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 3, 2, 4> { jnp::transpose_axes(&x, &[1, 0, 2]) },
    jnp::transpose_axes(&x, &[1, 0, 2])
);
case!(
    values,
    squeeze_axis,
    |x: Array<f32, 2, 1, 3>| -> Array<f32, 2, 3> { jnp::squeeze_axis(&x, 1) },
    jnp::squeeze_axis(&x, 1)
);
case!(
    values,
    lax_slice,
    |x: Array<f32, 4, 5>| -> Array<f32, 2, 2> { lax::slice(&x, &[1, 0], &[3, 4], Some(&[1, 2])) },
    lax::slice(&x, &[1, 0], &[3, 4], Some(&[1, 2]))
);
case!(
    values,
    broadcast_in_dim,
    |x: Array<f32, 3>| -> Array<f32, 2, 3> { lax::broadcast_in_dim(&x, &[1]) },
    lax::broadcast_in_dim(&x, &[1])
);
case!(
    values,
    batch_matmul,
    |a: Array<f32, 2, 3, 4>, b: Array<f32, 2, 4, 5>| -> Array<f32, 2, 3, 5> {
        jnp::batch_matmul(&a, &b)
    },
    jnp::batch_matmul(&a, &b)
);
case!(
    values,
    vstack,
    |a: Array<f32, 3>, b: Array<f32, 3>| -> Array<f32, 2, 3> { jnp::vstack((&a, &b)) },
    jnp::vstack((&a, &b))
);
case!(
    values,
    hstack,
    |a: Array<f32, 2, 3>, b: Array<f32, 2, 3>| -> Array<f32, 2, 6> { jnp::hstack((&a, &b)) },
    jnp::hstack((&a, &b))
);
case!(
    values,
    atleast_1d,
    |s: Array<f32>| -> Array<f32, 1> { jnp::atleast_1d(&s) },
    jnp::atleast_1d(&s)
);

mod meshgrid {
    use super::*;

    #[jax::jit]
    pub fn jitted(x: Array<f32, 3>, y: Array<f32, 4>) -> (Array<f32, 4, 3>, Array<f32, 4, 3>) {
        jnp::meshgrid(&x, &y)
    }

    pub fn check() {
        let c = common::case("manip_jit", "meshgrid");
        let (x, y): (Array<f32, 3>, Array<f32, 4>) = (
            common::array_arg(&c["args"][0]),
            common::array_arg(&c["args"][1]),
        );
        let (ex, ey) = jnp::meshgrid(&x, &y);
        let (jx, jy) = jitted(x, y);
        for (got, k) in [(ex, 0), (ey, 1), (jx, 0), (jy, 1)] {
            common::assert_matches(&got, &c["output"]["items"][k]);
        }
    }
}

#[jax::jit]
fn eye() -> Array<f32, 3, 4> {
    jnp::eye()
}

#[jax::jit]
fn linspace() -> Array<f32, 5> {
    Array::<f32, 5>::linspace(0.0, 1.0)
}

#[jax::jit]
fn linspace_7() -> Array<f32, 7> {
    jnp::linspace(-0.7, 2.5)
}

#[test]
fn eye_and_linspace_match_jax() {
    let out = |name: &str| common::case("manip_jit", name)["output"].clone();
    let e: Array<f32, 3, 4> = jnp::eye();
    common::assert_matches(&e, &out("eye"));
    common::assert_matches(&eye(), &out("eye"));
    common::assert_matches(&Array::<f32, 5>::linspace(0.0, 1.0), &out("linspace"));
    common::assert_matches(&linspace(), &out("linspace"));
    let e: Array<f32, 7> = jnp::linspace(-0.7, 2.5);
    common::assert_matches(&e, &out("linspace_7"));
    common::assert_matches(&linspace_7(), &out("linspace_7"));
}

#[test]
fn values_and_derivatives_match_jax() {
    pad_jnp::check();
    pad_lax::check();
    pad_value_operand::check();
    pad_vmap::check();
    flip::check();
    flip_all::check();
    rev::check();
    rev_vmap::check();
    roll::check();
    roll_negative::check();
    tile::check();
    tile_longer::check();
    tile_vmap::check();
    repeat::check();
    repeat_flat::check();
    outer::check();
    vdot::check();
    inner::check();
    swapaxes::check();
    moveaxis::check();
    transpose_axes::check();
    squeeze_axis::check();
    lax_slice::check();
    broadcast_in_dim::check();
    batch_matmul::check();
    vstack::check();
    hstack::check();
    atleast_1d::check();
    meshgrid::check();
}

/// Every case of the fixture is checked above.
#[test]
fn every_fixture_case_is_written() {
    assert_eq!(common::cases("manip_jit").len(), 32);
}
