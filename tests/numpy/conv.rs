//! Convolutions against JAX's values (tests/fixtures/conv.json, made by
//! tests/fixtures/gen/conv.py): `lax::conv_general_dilated`, `lax::conv`
//! and `lax::conv_transpose` over layouts, strides, paddings, dilations,
//! groups and 1-3 spatial axes; and JAX's shape-rule messages.

use crate::common;

use jax::lax::Padding;
use jax::prelude::*;

/// One fixture case: the arguments read as the given types, the call, and
/// the result compared with JAX's, exactly (values are multiples of 1/4)
/// unless the case sets a tolerance.
macro_rules! case {
    ($name:ident, $t:ty, [$($l:literal),*], [$($r:literal),*], [$($o:literal),*],
     |$x:ident, $w:ident| $call:expr) => {
        #[test]
        fn $name() {
            let c = common::case("conv", stringify!($name));
            let $x: Array<$t, $($l),*> = common::linalg::arr(&c["args"][0]);
            let $w: Array<$t, $($r),*> = common::linalg::arr(&c["args"][1]);
            let got: Array<$t, $($o),*> = $call;
            let tol = c["tol"].as_f64().unwrap();
            assert_eq!(
                <$t as jax::Element>::DTYPE.name(),
                c["out"]["dtype"].as_str().unwrap()
            );
            common::linalg::close(stringify!($name), &got, &c["out"], tol);
        }
    };
}

const NHWC: Option<(&str, &str, &str)> = Some(("NHWC", "HWIO", "NHWC"));

case!(
    conv_valid,
    f32,
    [2, 3, 5, 6],
    [4, 3, 3, 2],
    [2, 4, 3, 5],
    |x, w| { lax::conv(&x, &w, &[1, 1], "VALID") }
);
case!(
    conv_same_stride2,
    f32,
    [1, 2, 7, 6],
    [3, 2, 3, 3],
    [1, 3, 4, 3],
    |x, w| { lax::conv(&x, &w, &[2, 2], Padding::Same) }
);
case!(
    nhwc_same,
    f32,
    [2, 6, 5, 3],
    [3, 3, 3, 4],
    [2, 6, 5, 4],
    |x, w| { lax::conv_general_dilated(&x, &w, &[1, 1], "SAME", None, None, NHWC, 1) }
);
case!(
    explicit_negative_padding,
    f32,
    [1, 2, 5, 5],
    [2, 2, 2, 2],
    [1, 2, 7, 2],
    |x, w| { lax::conv_general_dilated(&x, &w, &[1, 2], [(2, 1), (-1, 0)], None, None, None, 1) }
);
case!(
    rhs_dilation,
    f32,
    [1, 1, 9, 8],
    [2, 1, 3, 2],
    [1, 2, 5, 5],
    |x, w| {
        lax::conv_general_dilated(
            &x,
            &w,
            &[1, 1],
            Padding::Valid,
            None,
            Some(&[2, 3]),
            None,
            1,
        )
    }
);
case!(
    rhs_dilation_same,
    f32,
    [1, 2, 7, 6],
    [2, 2, 3, 3],
    [1, 2, 4, 6],
    |x, w| { lax::conv_general_dilated(&x, &w, &[2, 1], "SAME", None, Some(&[2, 2]), None, 1) }
);
case!(
    lhs_dilation,
    f32,
    [1, 2, 4, 3],
    [1, 2, 2, 2],
    [1, 1, 8, 8],
    |x, w| {
        let pads = Padding::Explicit(vec![(1, 1), (0, 2)]);
        lax::conv_general_dilated(&x, &w, &[1, 1], pads, Some(&[2, 3]), None, None, 1)
    }
);
case!(
    both_dilations_strided,
    f32,
    [2, 1, 4, 5],
    [3, 1, 2, 3],
    [2, 3, 5, 4],
    |x, w| {
        let (ld, rd) = ([3, 2], [2, 1]);
        lax::conv_general_dilated(
            &x,
            &w,
            &[2, 3],
            [(2, 0), (1, 3)],
            Some(&ld),
            Some(&rd),
            None,
            1,
        )
    }
);
case!(
    groups,
    f32,
    [2, 4, 5, 5],
    [6, 2, 3, 3],
    [2, 6, 3, 3],
    |x, w| { lax::conv_general_dilated(&x, &w, &[1, 1], "VALID", None, None, None, 2) }
);
case!(
    depthwise_nhwc,
    f32,
    [1, 5, 5, 3],
    [3, 3, 1, 6],
    [1, 5, 5, 6],
    |x, w| { lax::conv_general_dilated(&x, &w, &[1, 1], "SAME", None, None, NHWC, 3) }
);
case!(
    conv1d_same_lower,
    f32,
    [2, 3, 10],
    [4, 3, 4],
    [2, 4, 5],
    |x, w| { lax::conv_general_dilated(&x, &w, &[2], Padding::SameLower, None, None, None, 1) }
);
case!(
    conv3d,
    f32,
    [1, 2, 4, 5, 4],
    [2, 2, 2, 3, 2],
    [1, 2, 4, 3, 4],
    |x, w| { lax::conv_general_dilated(&x, &w, &[1, 2, 1], "SAME", None, None, None, 1) }
);
case!(
    mixed_layouts,
    f32,
    [2, 3, 6, 5],
    [3, 2, 4, 3],
    [3, 2, 6, 4],
    |x, w| {
        let dn = Some(("NCWH", "HWOI", "HNWC"));
        lax::conv_general_dilated(&x, &w, &[2, 1], "SAME", None, None, dn, 1)
    }
);
case!(
    int32,
    i32,
    [1, 2, 4, 4],
    [2, 2, 3, 3],
    [1, 2, 4, 4],
    |x, w| { lax::conv(&x, &w, &[1, 1], "SAME") }
);
case!(
    empty_result,
    f32,
    [1, 1, 2, 2],
    [1, 1, 3, 3],
    [1, 1, 0, 0],
    |x, w| { lax::conv(&x, &w, &[1, 1], "VALID") }
);
case!(
    transpose_same,
    f32,
    [1, 4, 4, 2],
    [3, 3, 2, 3],
    [1, 8, 8, 3],
    |x, w| { lax::conv_transpose(&x, &w, &[2, 2], "SAME", None, None, false) }
);
case!(
    transpose_valid_kernel,
    f32,
    [1, 3, 3, 2],
    [2, 2, 3, 2],
    [1, 6, 6, 3],
    |x, w| { lax::conv_transpose(&x, &w, &[2, 2], "VALID", None, None, true) }
);
case!(
    transpose_explicit_1d,
    f32,
    [2, 5, 1],
    [3, 1, 2],
    [2, 12, 2],
    |x, w| { lax::conv_transpose(&x, &w, &[3], [(1, 2)], Some(&[2]), None, false) }
);
case!(
    several_chunks,
    f32,
    [3, 8, 48, 48],
    [2, 8, 7, 7],
    [3, 2, 48, 48],
    |x, w| { lax::conv(&x, &w, &[1, 1], "SAME") }
);
case!(
    no_input_features,
    f32,
    [2, 0, 4],
    [3, 0, 2],
    [2, 3, 3],
    |x, w| { lax::conv(&x, &w, &[1], "VALID") }
);
case!(
    normal_same,
    f32,
    [4, 8, 12, 12],
    [16, 8, 3, 3],
    [4, 16, 12, 12],
    |x, w| { lax::conv(&x, &w, &[1, 1], "SAME") }
);

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
    let x = Array::<f32, 1, 4, 5, 5>::ones();
    let w = Array::<f32, 2, 3, 3, 3>::ones();
    let m = message(|| {
        let _: Array<f32, 1, 2, 3, 3> = lax::conv(&x, &w, &[1, 1], "VALID");
    });
    assert!(
        m.contains("lhs feature dimension size divided by feature_group_count must equal the rhs input feature dimension size, but 4 // 1 != 3"),
        "{m}"
    );
    let w = Array::<f32, 3, 2, 3, 3>::ones();
    let m = message(|| {
        let _: Array<f32, 1, 3, 3, 3> =
            lax::conv_general_dilated(&x, &w, &[1, 1], "VALID", None, None, None, 2);
    });
    assert!(
        m.contains("rhs output feature dimension size must be a multiple of feature_group_count, but 3 is not a multiple of 2"),
        "{m}"
    );
    let w = Array::<f32, 2, 4, 3, 3>::ones();
    let m = message(|| {
        let _: Array<f32, 1, 2, 3, 3> = lax::conv(&x, &w, &[1], "VALID");
    });
    assert!(
        m.contains(
            "window and window_strides must have the same number of dimensions, but got 2 and 1"
        ),
        "{m}"
    );
    let m = message(|| {
        let _: Array<f32, 1, 2, 3, 3> = lax::conv(&x, &w, &[1, 1], "FULL");
    });
    assert!(m.contains("Unrecognized padding type"), "{m}");
    let m = message(|| {
        let _: Array<f32, 1, 2, 3, 3> = lax::conv_general_dilated(
            &x,
            &w,
            &[1, 1],
            "VALID",
            None,
            None,
            Some(("NCHW", "OIHW", "NCHQ")),
            1,
        );
    });
    assert!(
        m.contains("must each have the same set of spatial characters"),
        "{m}"
    );
    let m = message(|| {
        let _: Array<f32, 1, 2, 9, 9> =
            lax::conv_general_dilated(&x, &w, &[1, 1], "SAME", Some(&[2, 2]), None, None, 1);
    });
    assert!(
        m.contains("String padding is not implemented for transposed convolution"),
        "{m}"
    );
    // A wrong result type names the shape the convolution gives.
    let m = message(|| {
        let _: Array<f32, 1, 2, 5, 5> = lax::conv(&x, &w, &[1, 1], "VALID");
    });
    assert!(m.contains("f32[1,2,3,3]"), "{m}");
}
