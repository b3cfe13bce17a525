//! Convolutions in `#[jax::jit]` against JAX 0.10.2
//! (tests/fixtures/conv_jit.json, made by tests/fixtures/gen/conv_jit.py):
//! values, jvp and vjp of both operands bit for bit (the inputs are
//! multiples of 1/4, so every sum is exact in any order) over layouts,
//! strides, padding, both dilations, groups, 1-D to 3-D and
//! `conv_transpose`; `jax::vmap` over the input, the kernel or both; the
//! jaxpr text of a convolution and of its gradient.

use crate::common;

use jax::prelude::*;

/// A case of `conv_jit.json` (`common::fixture_case!`).
macro_rules! case {
    ($($case:tt)*) => {
        fixture_case!("conv_jit", $($case)*);
    };
}

case!(
    grads,
    conv_nchw_valid,
    |x: Array<f32, 2, 3, 5, 6>, w: Array<f32, 4, 3, 3, 2>| -> Array<f32, 2, 4, 3, 5> {
        lax::conv(&x, &w, &[1, 1], "VALID")
    },
    lax::conv(&x, &w, &[1, 1], "VALID")
);
case!(
    grads,
    conv_nhwc_same,
    |x: Array<f32, 2, 6, 5, 3>, w: Array<f32, 3, 3, 3, 4>| -> Array<f32, 2, 6, 5, 4> {
        lax::conv_general_dilated(
            &x,
            &w,
            &[1, 1],
            lax::Padding::Same,
            None,
            None,
            Some(("NHWC", "HWIO", "NHWC")),
            1,
        )
    },
    lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1],
        "SAME",
        None,
        None,
        Some(("NHWC", "HWIO", "NHWC")),
        1
    )
);
case!(
    grads,
    conv_strided_padded,
    |x: Array<f32, 1, 2, 7, 6>, w: Array<f32, 3, 2, 3, 3>| -> Array<f32, 1, 3, 4, 3> {
        lax::conv_general_dilated(&x, &w, &[2, 2], &[(1, 2), (0, 1)], None, None, None, 1)
    },
    lax::conv_general_dilated(&x, &w, &[2, 2], &[(1, 2), (0, 1)], None, None, None, 1)
);
case!(
    grads,
    conv_rhs_dilation,
    |x: Array<f32, 1, 2, 8, 7>, w: Array<f32, 2, 2, 2, 3>| -> Array<f32, 1, 2, 6, 3> {
        lax::conv_general_dilated(&x, &w, &[1, 2], "VALID", None, Some(&[2, 1]), None, 1)
    },
    lax::conv_general_dilated(&x, &w, &[1, 2], "VALID", None, Some(&[2, 1]), None, 1)
);
case!(
    grads,
    conv_lhs_dilation,
    |x: Array<f32, 1, 1, 3, 4>, w: Array<f32, 2, 1, 2, 2>| -> Array<f32, 1, 2, 6, 8> {
        lax::conv_general_dilated(
            &x,
            &w,
            &[1, 1],
            lax::Padding::Explicit(vec![(1, 1), (1, 1)]),
            Some(&[2, 2]),
            None,
            None,
            1,
        )
    },
    lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1],
        &[(1, 1), (1, 1)],
        Some(&[2, 2]),
        None,
        None,
        1
    )
);
case!(
    grads,
    conv_groups,
    |x: Array<f32, 2, 4, 5, 5>, w: Array<f32, 6, 2, 3, 3>| -> Array<f32, 2, 6, 5, 5> {
        lax::conv_general_dilated(&x, &w, &[1, 1], "SAME", None, None, None, 2)
    },
    lax::conv_general_dilated(&x, &w, &[1, 1], "SAME", None, None, None, 2)
);
case!(
    grads,
    conv_depthwise_nhwc,
    |x: Array<f32, 1, 5, 5, 3>, w: Array<f32, 3, 3, 1, 3>| -> Array<f32, 1, 3, 3, 3> {
        lax::conv_general_dilated(
            &x,
            &w,
            &[1, 1],
            "VALID",
            None,
            None,
            Some(("NHWC", "HWIO", "NHWC")),
            3,
        )
    },
    lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1],
        "VALID",
        None,
        None,
        Some(("NHWC", "HWIO", "NHWC")),
        3
    )
);
case!(
    grads,
    conv_1d,
    |x: Array<f32, 2, 9, 2>, w: Array<f32, 3, 2, 3>| -> Array<f32, 2, 5, 3> {
        lax::conv_general_dilated(
            &x,
            &w,
            &[2],
            "SAME",
            None,
            None,
            Some(("NWC", "WIO", "NWC")),
            1,
        )
    },
    lax::conv_general_dilated(
        &x,
        &w,
        &[2],
        "SAME",
        None,
        None,
        Some(("NWC", "WIO", "NWC")),
        1
    )
);
case!(
    grads,
    conv_3d,
    |x: Array<f32, 1, 4, 4, 3, 2>, w: Array<f32, 2, 2, 2, 2, 3>| -> Array<f32, 1, 3, 3, 2, 3> {
        lax::conv_general_dilated(
            &x,
            &w,
            &[1, 1, 1],
            "VALID",
            None,
            None,
            Some(("NDHWC", "DHWIO", "NDHWC")),
            1,
        )
    },
    lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1, 1],
        "VALID",
        None,
        None,
        Some(("NDHWC", "DHWIO", "NDHWC")),
        1
    )
);
case!(
    grads,
    conv_transpose_2d,
    |x: Array<f32, 1, 4, 4, 2>, w: Array<f32, 3, 3, 2, 3>| -> Array<f32, 1, 8, 8, 3> {
        lax::conv_transpose(
            &x,
            &w,
            &[2, 2],
            "SAME",
            None,
            Some(("NHWC", "HWIO", "NHWC")),
            false,
        )
    },
    lax::conv_transpose(
        &x,
        &w,
        &[2, 2],
        "SAME",
        None,
        Some(("NHWC", "HWIO", "NHWC")),
        false
    )
);
case!(
    grads,
    conv_mixed_layout,
    |x: Array<f32, 2, 3, 5, 4>, w: Array<f32, 3, 2, 2, 3>| -> Array<f32, 2, 2, 4, 2> {
        lax::conv_general_dilated(
            &x,
            &w,
            &[1, 1],
            "VALID",
            None,
            None,
            Some(("NCWH", "HWOI", "HNWC")),
            1,
        )
    },
    lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1],
        "VALID",
        None,
        None,
        Some(("NCWH", "HWOI", "HNWC")),
        1
    )
);

#[test]
fn conv_values_and_derivatives_match_jax() {
    conv_nchw_valid::check();
    conv_nhwc_same::check();
    conv_strided_padded::check();
    conv_rhs_dilation::check();
    conv_lhs_dilation::check();
    conv_groups::check();
    conv_depthwise_nhwc::check();
    conv_1d::check();
    conv_3d::check();
    conv_transpose_2d::check();
    conv_mixed_layout::check();
}

#[test]
fn conv_jaxprs_print_as_jax() {
    for (id, got, grad) in [
        (
            "conv_nchw_valid",
            conv_nchw_valid::jitted::jaxpr().to_string(),
            nchw_grad::jaxpr().to_string(),
        ),
        (
            "conv_nhwc_same",
            conv_nhwc_same::jitted::jaxpr().to_string(),
            nhwc_grad::jaxpr().to_string(),
        ),
    ] {
        let c = common::case("conv_jit", id);
        assert_eq!(got, c["jaxpr"].as_str().unwrap(), "{id}");
        assert_eq!(grad, c["grad_jaxpr"].as_str().unwrap(), "{id} gradient");
    }
}

#[jax::jit]
fn nchw_grad(
    x: Array<f32, 2, 3, 5, 6>,
    w: Array<f32, 4, 3, 3, 2>,
) -> (Array<f32, 2, 3, 5, 6>, Array<f32, 4, 3, 3, 2>) {
    jax::grad(
        |x, w| lax::conv(&x, &w, &[1, 1], "VALID").sum(),
        argnums = (0, 1),
    )(x, w)
}

#[jax::jit]
fn nhwc_grad(
    x: Array<f32, 2, 6, 5, 3>,
    w: Array<f32, 3, 3, 3, 4>,
) -> (Array<f32, 2, 6, 5, 3>, Array<f32, 3, 3, 3, 4>) {
    jax::grad(
        |x, w| {
            let y: Array<f32, 2, 6, 5, 4> = lax::conv_general_dilated(
                &x,
                &w,
                &[1, 1],
                "SAME",
                None,
                None,
                Some(("NHWC", "HWIO", "NHWC")),
                1,
            );
            y.sum()
        },
        argnums = (0, 1),
    )(x, w)
}

macro_rules! vmap_case {
    ($name:ident, $axes:expr, $groups:literal, [$($x:literal),+], [$($w:literal),+], [$($o:literal),+]) => {
        #[jax::jit]
        fn $name(x: Array<f32, $($x),+>, w: Array<f32, $($w),+>) -> Array<f32, $($o),+> {
            jax::vmap(
                |x, w| {
                    lax::conv_general_dilated(
                        &x, &w, &[1, 1], "SAME", None, None,
                        Some(("NHWC", "HWIO", "NHWC")), $groups,
                    )
                },
                $axes,
            )(x, w)
        }
    };
}

vmap_case!(
    vmap_lhs,
    (0, None),
    1,
    [3, 2, 5, 4, 2],
    [3, 3, 2, 3],
    [3, 2, 5, 4, 3]
);
vmap_case!(
    vmap_rhs,
    (None, 0),
    1,
    [2, 5, 4, 2],
    [3, 3, 3, 2, 3],
    [3, 2, 5, 4, 3]
);
vmap_case!(
    vmap_both,
    (0, 0),
    1,
    [3, 2, 5, 4, 2],
    [3, 3, 3, 2, 3],
    [3, 2, 5, 4, 3]
);
vmap_case!(
    vmap_both_groups,
    (0, 0),
    2,
    [3, 2, 5, 4, 2],
    [3, 3, 3, 1, 4],
    [3, 2, 5, 4, 4]
);
vmap_case!(
    vmap_rhs_groups,
    (None, 0),
    2,
    [2, 5, 4, 2],
    [3, 3, 3, 1, 4],
    [3, 2, 5, 4, 4]
);
vmap_case!(
    vmap_lhs_axis1,
    (1, None),
    1,
    [2, 3, 5, 4, 2],
    [3, 3, 2, 3],
    [3, 2, 5, 4, 3]
);

#[test]
fn vmap_of_conv_matches_jax() {
    macro_rules! check {
        ($name:ident) => {{
            let c = common::case("conv_jit", stringify!($name));
            let out = $name(
                common::array_arg(&c["args"][0]),
                common::array_arg(&c["args"][1]),
            );
            common::assert_matches(&out, &c["output"]);
        }};
    }
    check!(vmap_lhs);
    check!(vmap_rhs);
    check!(vmap_both);
    check!(vmap_both_groups);
    check!(vmap_rhs_groups);
    check!(vmap_lhs_axis1);
}

#[test]
fn conv_flops_are_xlas() {
    // Taps on padding are not counted (conv_nhwc_same), as XLA counts them.
    for (id, flops) in [
        (
            "conv_nchw_valid",
            conv_nchw_valid::jitted::cost_analysis().flops,
        ),
        (
            "conv_nhwc_same",
            conv_nhwc_same::jitted::cost_analysis().flops,
        ),
        ("conv_groups", conv_groups::jitted::cost_analysis().flops),
    ] {
        let want = common::case("conv_jit", id)["flops"].as_f64().unwrap();
        assert_eq!(flops, want, "{id}");
    }
}

#[jax::jit]
fn conv_energy(x: Array<f64, 2, 5, 6, 3>, w: Array<f64, 3, 2, 3, 4>) -> Array<f64> {
    let y: Array<f64, 2, 3, 3, 4> = lax::conv_general_dilated(
        &x,
        &w,
        &[2, 2],
        "SAME",
        None,
        Some(&[1, 2]),
        Some(("NHWC", "HWIO", "NHWC")),
        1,
    );
    jnp::sum(jnp::tanh(y))
}

#[jax::jit]
fn grouped_transpose_energy(x: Array<f64, 1, 4, 4, 4>, w: Array<f64, 2, 2, 2, 6>) -> Array<f64> {
    let y: Array<f64, 1, 6, 8, 8> = lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1],
        &[(1, 1), (1, 1)],
        Some(&[2, 2]),
        None,
        Some(("NCHW", "HWIO", "NCHW")),
        2,
    );
    jnp::sum(jnp::sin(y))
}

#[test]
fn check_grads_of_conv() {
    let x: Array<f64, 2, 5, 6, 3> = jax::random::normal(jax::random::key(0));
    let w: Array<f64, 3, 2, 3, 4> = jax::random::normal(jax::random::key(1));
    jax::test_util::check_grads!(conv_energy, (x, w));
    let x: Array<f64, 1, 4, 4, 4> = jax::random::normal(jax::random::key(2));
    let w: Array<f64, 2, 2, 2, 6> = jax::random::normal(jax::random::key(3));
    jax::test_util::check_grads!(grouped_transpose_energy, (x, w));
}
