//! Windowed reductions and pooling against JAX's and flax's values
//! (tests/fixtures/reduce_window.json, made by
//! tests/fixtures/gen/reduce_window.py): `lax::reduce_window` and
//! `lax::reduce_window_dilated` with each computation, padding kind and
//! dilation, and `jax::nn::max_pool` / `avg_pool`; JAX's shape-rule messages.

use crate::common;

use jax::lax::Padding;
use jax::prelude::*;

/// One fixture case: the argument read as the given type, the call, and the
/// result compared with JAX's exactly (values are multiples of 1/4).
macro_rules! case {
    ($name:ident, $t:ty, [$($l:literal),*], [$($o:literal),*], |$x:ident| $call:expr) => {
        #[test]
        fn $name() {
            let c = common::case("reduce_window", stringify!($name));
            let $x: Array<$t, $($l),*> = common::linalg::arr(&c["args"][0]);
            let got: Array<$t, $($o),*> = $call;
            assert_eq!(
                <$t as jax::Element>::DTYPE.name(),
                c["out"]["dtype"].as_str().unwrap()
            );
            common::linalg::close(stringify!($name), &got, &c["out"], 0.0);
        }
    };
}

const NEG_INF: f32 = f32::NEG_INFINITY;

case!(max_2x2_stride2, f32, [4, 6], [2, 3], |x| {
    lax::reduce_window(&x, NEG_INF, lax::max, &[2, 2], Some(&[2, 2]), "VALID")
});
case!(max_same, f32, [5, 4], [3, 4], |x| {
    lax::reduce_window(&x, NEG_INF, lax::max, &[3, 2], Some(&[2, 1]), Padding::Same)
});
case!(min_explicit, f32, [4, 5], [4, 3], |x| {
    lax::reduce_window(
        &x,
        f32::INFINITY,
        lax::min,
        &[2, 3],
        Some(&[1, 2]),
        [(1, 0), (2, 1)],
    )
});
case!(add_same_lower, f32, [3, 4], [3, 4], |x| {
    lax::reduce_window(&x, 0.0, lax::add, &[2, 2], None, "SAME_LOWER")
});
case!(add_nonzero_init, f32, [3, 3], [4, 3], |x| {
    lax::reduce_window(&x, 1.0, lax::add, &[2, 2], None, [(1, 1), (0, 1)])
});
case!(mul_1d, f32, [9], [4], |x| {
    lax::reduce_window(&x, 1.0, lax::mul, &[3], Some(&[2]), "VALID")
});
case!(custom_computation, f32, [7], [5], |x| {
    lax::reduce_window(
        &x,
        0.0,
        |a: Array<f32>, b: Array<f32>| a * 0.5 + b,
        &[3],
        None,
        "VALID",
    )
});
case!(base_dilation, f32, [3, 3], [5, 7], |x| {
    let pads = [(1, 0), (0, 1)];
    lax::reduce_window_dilated(&x, 0.0, lax::add, &[2, 2], None, pads, Some(&[2, 3]), None)
});
case!(window_dilation, f32, [6, 7], [6, 4], |x| {
    let s = [1, 2];
    lax::reduce_window_dilated(
        &x,
        NEG_INF,
        lax::max,
        &[2, 2],
        Some(&s),
        "SAME",
        None,
        Some(&[2, 2]),
    )
});
case!(max_3d_int, i32, [3, 4, 3], [2, 2, 2], |x| {
    lax::reduce_window(
        &x,
        i32::MIN,
        lax::max,
        &[2, 2, 2],
        Some(&[1, 2, 1]),
        "VALID",
    )
});
case!(max_pool_valid, f32, [2, 6, 6, 3], [2, 3, 3, 3], |x| {
    jax::nn::max_pool(&x, &[2, 2], Some(&[2, 2]), "VALID")
});
case!(max_pool_same, f32, [1, 5, 5, 2], [1, 3, 3, 2], |x| {
    jax::nn::max_pool(&x, &[3, 3], Some(&[2, 2]), "SAME")
});
case!(max_pool_explicit_1d, f32, [2, 5, 3], [2, 6, 3], |x| {
    jax::nn::max_pool(&x, &[2], None, [(1, 1)])
});
case!(avg_pool_valid, f32, [2, 4, 6, 2], [2, 2, 3, 2], |x| {
    jax::nn::avg_pool(&x, &[2, 2], Some(&[2, 2]), "VALID")
});
case!(avg_pool_same_unbatched, f32, [4, 4, 2], [4, 4, 2], |x| {
    jax::nn::avg_pool(&x, &[3, 3], None, "SAME")
});

/// The panic message of `f`.
fn message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let e = std::panic::catch_unwind(f).expect_err("expected a panic");
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap()
}

#[test]
fn shape_errors_are_jaxs_messages() {
    let x = Array::<f32, 4, 6>::ones();
    let m = message(|| {
        let _: Array<f32, 2> = lax::reduce_window(&x, 0.0, lax::add, &[2], None, "VALID");
    });
    assert!(m.contains("reduce_window got the wrong number of window_dimensions for operand: got operand shape [4, 6] with window_dimensions [2]"), "{m}");
    let m = message(|| {
        let _: Array<f32, 2, 3> =
            lax::reduce_window(&x, 0.0, lax::add, &[2, 2], Some(&[2]), "VALID");
    });
    assert!(
        m.contains("inconsistent window_strides and window_dimensions"),
        "{m}"
    );
    let m = message(|| {
        let _: Array<f32, 2, 3> = lax::reduce_window(&x, 0.0, lax::add, &[0, 2], None, "VALID");
    });
    assert!(m.contains("strictly positive"), "{m}");
    let m = message(|| {
        let _: Array<f32, 2, 2> = lax::reduce_window(&x, 0.0, lax::add, &[2, 2], None, "VALID");
    });
    assert!(m.contains("f32[3,5]"), "{m}");
    let m = message(|| {
        let _: Array<f32, 2, 3> = jax::nn::max_pool(&x, &[2, 2, 2], None, "VALID");
    });
    assert!(m.contains("pooling: the input [4, 6] needs"), "{m}");
}
