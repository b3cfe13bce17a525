//! One API: the convolutions and windowed reductions are accepted inside
//! `#[jax::jit]` with their eager signatures and give what the eager call
//! gives (the same kernel runs both, so bit for bit), on inputs large
//! enough to take the kernel's parallel, chunked paths.

use jax::prelude::*;
use jax::random;

fn normal<A: ArrayType<Elem = f32>>(seed: u32) -> A {
    random::normal(random::key(seed as i64))
}

#[jax::jit]
fn j_conv(x: &Array<f32, 4, 8, 16, 16>, w: &Array<f32, 16, 8, 3, 3>) -> Array<f32, 4, 16, 8, 8> {
    lax::conv(x, w, &[2, 2], "SAME")
}

#[jax::jit]
fn j_conv_general(
    x: &Array<f32, 4, 16, 16, 8>,
    w: &Array<f32, 3, 3, 4, 16>,
) -> Array<f32, 4, 16, 16, 16> {
    lax::conv_general_dilated(
        x,
        w,
        &[1, 1],
        lax::Padding::Same,
        None,
        Some(&[2, 2]),
        Some(("NHWC", "HWIO", "NHWC")),
        2,
    )
}

#[jax::jit]
fn j_conv_transpose(
    x: &Array<f32, 2, 8, 8, 6>,
    w: &Array<f32, 3, 3, 4, 6>,
) -> Array<f32, 2, 16, 16, 4> {
    lax::conv_transpose(x, w, &[2, 2], "SAME", None, None, true)
}

#[test]
fn convolutions_in_jit_equal_eager() {
    let (x, w) = (normal(1), normal(2));
    let eager: Array<f32, 4, 16, 8, 8> = lax::conv(&x, &w, &[2, 2], "SAME");
    assert_eq!(j_conv(&x, &w).to_vec(), eager.to_vec());

    let (x, w) = (normal(3), normal(4));
    let eager: Array<f32, 4, 16, 16, 16> = lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1],
        lax::Padding::Same,
        None,
        Some(&[2, 2]),
        Some(("NHWC", "HWIO", "NHWC")),
        2,
    );
    assert_eq!(j_conv_general(&x, &w).to_vec(), eager.to_vec());

    let (x, w) = (normal(5), normal(6));
    let eager: Array<f32, 2, 16, 16, 4> =
        lax::conv_transpose(&x, &w, &[2, 2], "SAME", None, None, true);
    assert_eq!(j_conv_transpose(&x, &w).to_vec(), eager.to_vec());
}
