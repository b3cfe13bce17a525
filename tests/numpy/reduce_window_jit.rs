//! Windowed reductions and pooling in `#[jax::jit]` against JAX 0.10.2
//! and flax (tests/fixtures/conv_jit.json, made by
//! tests/fixtures/gen/conv_jit.py): values, jvp and vjp bit for bit
//! (ties inside windows included: the tangent and the gradient go to the
//! first largest element, as XLA's select does), `jax::vmap`, jaxpr text
//! and XLA's flops, `check_grads!`.

use crate::common;

use jax::nn;
use jax::prelude::*;

/// A case of `conv_jit.json` (`common::fixture_case!`).
macro_rules! case {
    ($($case:tt)*) => {
        fixture_case!("conv_jit", $($case)*);
    };
}

case!(
    grads,
    max_pool_2x2,
    |x: Array<f32, 2, 4, 6, 3>| -> Array<f32, 2, 2, 3, 3> {
        lax::reduce_window(
            &x,
            f32::NEG_INFINITY,
            lax::max,
            &[1, 2, 2, 1],
            Some(&[1, 2, 2, 1]),
            "VALID",
        )
    },
    lax::reduce_window(
        &x,
        f32::NEG_INFINITY,
        lax::max,
        &[1, 2, 2, 1],
        Some(&[1, 2, 2, 1]),
        "VALID"
    )
);
case!(
    grads,
    max_pool_3x3_s2_same,
    |x: Array<f32, 1, 7, 6, 2>| -> Array<f32, 1, 4, 3, 2> {
        lax::reduce_window(
            &x,
            -f32::INFINITY,
            lax::max,
            &[1, 3, 3, 1],
            Some(&[1, 2, 2, 1]),
            lax::Padding::Same,
        )
    },
    lax::reduce_window(
        &x,
        -f32::INFINITY,
        lax::max,
        &[1, 3, 3, 1],
        Some(&[1, 2, 2, 1]),
        "SAME"
    )
);
case!(
    grads,
    min_pool_overlap,
    |x: Array<f32, 5, 6>| -> Array<f32, 4, 5> {
        lax::reduce_window(&x, f32::INFINITY, lax::min, &[2, 2], Some(&[1, 1]), "VALID")
    },
    lax::reduce_window(&x, f32::INFINITY, lax::min, &[2, 2], Some(&[1, 1]), "VALID")
);
case!(
    grads,
    sum_pool_padded,
    |x: Array<f32, 2, 5, 5, 2>| -> Array<f32, 2, 5, 5, 2> {
        lax::reduce_window(
            &x,
            0.0,
            lax::add,
            &[1, 3, 3, 1],
            None,
            &[(0, 0), (1, 1), (1, 1), (0, 0)],
        )
    },
    lax::reduce_window(
        &x,
        0.0,
        lax::add,
        &[1, 3, 3, 1],
        None,
        &[(0, 0), (1, 1), (1, 1), (0, 0)]
    )
);
case!(
    grads,
    avg_pool_flax,
    |x: Array<f32, 2, 6, 6, 3>| -> Array<f32, 2, 3, 3, 3> {
        nn::avg_pool(&x, &[2, 2], Some(&[2, 2]), "VALID")
    },
    nn::avg_pool(&x, &[2, 2], Some(&[2, 2]), "VALID")
);
case!(
    grads,
    max_pool_flax_same,
    |x: Array<f32, 1, 5, 5, 2>| -> Array<f32, 1, 3, 3, 2> {
        nn::max_pool(&x, &[3, 3], Some(&[2, 2]), "SAME")
    },
    nn::max_pool(&x, &[3, 3], Some(&[2, 2]), "SAME")
);

#[test]
fn pooling_values_and_derivatives_match_jax() {
    max_pool_2x2::check();
    max_pool_3x3_s2_same::check();
    min_pool_overlap::check();
    sum_pool_padded::check();
    avg_pool_flax::check();
    max_pool_flax_same::check();
}

#[jax::jit]
fn max_pool_dilated(x: Array<f32, 7, 5>) -> Array<f32, 3, 3> {
    lax::reduce_window_dilated(
        &x,
        f32::NEG_INFINITY,
        lax::max,
        &[3, 3],
        Some(&[1, 1]),
        "VALID",
        None,
        Some(&[2, 1]),
    )
}

#[test]
fn dilated_max_pool_forward_mode_matches_jax() {
    // JAX has no reverse mode for a dilated max-pool window (its message
    // is a compile error here: ui-tests/fail/max_pool_dilated_grad.rs).
    let c = common::case("conv_jit", "max_pool_dilated");
    let x: Array<f32, 7, 5> = common::array_arg(&c["args"][0]);
    let t: Array<f32, 7, 5> = common::array_arg(&c["tangents"][0]);
    let (y, ty) = max_pool_dilated::jvp((x,), (t,));
    common::assert_matches(&y, &c["output"]);
    common::assert_matches(&ty, &c["jvp"]);
}

#[jax::jit]
fn max_pool_grad(x: Array<f32, 2, 4, 6, 3>) -> Array<f32, 2, 4, 6, 3> {
    jax::grad(|x| {
        let y: Array<f32, 2, 2, 3, 3> = lax::reduce_window(
            &x,
            f32::NEG_INFINITY,
            lax::max,
            &[1, 2, 2, 1],
            Some(&[1, 2, 2, 1]),
            "VALID",
        );
        y.sum()
    })(x)
}

#[jax::jit]
fn sum_pool_grad(x: Array<f32, 2, 5, 5, 2>) -> Array<f32, 2, 5, 5, 2> {
    jax::grad(|x| {
        let y: Array<f32, 2, 5, 5, 2> = lax::reduce_window(
            &x,
            0.0,
            lax::add,
            &[1, 3, 3, 1],
            None,
            &[(0, 0), (1, 1), (1, 1), (0, 0)],
        );
        y.sum()
    })(x)
}

#[jax::jit]
fn avg_pool_grad(x: Array<f32, 2, 6, 6, 3>) -> Array<f32, 2, 6, 6, 3> {
    jax::grad(|x| {
        let y: Array<f32, 2, 3, 3, 3> = nn::avg_pool(&x, &[2, 2], Some(&[2, 2]), "VALID");
        y.sum()
    })(x)
}

#[test]
fn pooling_jaxprs_print_as_jax() {
    for (id, got, grad, flops) in [
        (
            "max_pool_2x2",
            max_pool_2x2::jitted::jaxpr().to_string(),
            max_pool_grad::jaxpr().to_string(),
            max_pool_2x2::jitted::cost_analysis().flops,
        ),
        (
            "sum_pool_padded",
            sum_pool_padded::jitted::jaxpr().to_string(),
            sum_pool_grad::jaxpr().to_string(),
            sum_pool_padded::jitted::cost_analysis().flops,
        ),
        (
            "avg_pool_flax",
            avg_pool_flax::jitted::jaxpr().to_string(),
            avg_pool_grad::jaxpr().to_string(),
            avg_pool_flax::jitted::cost_analysis().flops,
        ),
    ] {
        let c = common::case("conv_jit", id);
        assert_eq!(got, c["jaxpr"].as_str().unwrap(), "{id}");
        assert_eq!(grad, c["grad_jaxpr"].as_str().unwrap(), "{id} gradient");
        assert_eq!(flops, c["flops"].as_f64().unwrap(), "{id} flops");
    }
}

#[jax::jit]
fn vmap_max_pool(x: Array<f32, 3, 2, 4, 4, 1>) -> Array<f32, 3, 2, 2, 2, 1> {
    jax::vmap(|x| {
        lax::reduce_window(
            &x,
            f32::NEG_INFINITY,
            lax::max,
            &[1, 2, 2, 1],
            Some(&[1, 2, 2, 1]),
            "VALID",
        )
    })(x)
}

#[jax::jit]
fn vmap_sum_window_axis2(x: Array<f32, 4, 5, 3>) -> Array<f32, 3, 3, 4> {
    jax::vmap(
        |x| lax::reduce_window(&x, 0.0, lax::add, &[2, 2], Some(&[1, 1]), "VALID"),
        2,
    )(x)
}

#[test]
fn vmap_of_pooling_matches_jax() {
    let c = common::case("conv_jit", "vmap_max_pool");
    common::assert_matches(
        &vmap_max_pool(common::array_arg(&c["args"][0])),
        &c["output"],
    );
    assert_eq!(
        vmap_max_pool::jaxpr().to_string(),
        c["jaxpr"].as_str().unwrap()
    );
    let c = common::case("conv_jit", "vmap_sum_window_axis2");
    common::assert_matches(
        &vmap_sum_window_axis2(common::array_arg(&c["args"][0])),
        &c["output"],
    );
}

#[jax::jit]
fn pool_energy(x: Array<f64, 2, 7, 6, 3>) -> Array<f64> {
    let m: Array<f64, 2, 4, 3, 3> = nn::max_pool(&x, &[3, 2], Some(&[2, 2]), "SAME");
    let a: Array<f64, 2, 3, 3, 3> = nn::avg_pool(&x, &[3, 2], Some(&[2, 2]), &[(1, 0), (0, 0)]);
    jnp::sum(jnp::sin(m)) + jnp::sum(a * a)
}

#[test]
fn check_grads_of_pooling() {
    // Random normal values have no ties, where max pooling is smooth.
    let x: Array<f64, 2, 7, 6, 3> = jax::random::normal(jax::random::key(7));
    jax::test_util::check_grads!(pool_energy, (x));
}
