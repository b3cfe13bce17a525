//! One API: the convolutions and windowed reductions are accepted inside
//! `#[jax::jit]` with their eager signatures and give what the eager call
//! gives (the same kernel runs both, so bit for bit), on inputs large
//! enough to take the kernel's parallel, chunked paths.

use jax::nn;
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

/// The conv epilogue: bias, relu and a residual computed in the
/// convolution's output write, over two row chunks of the kernel.
#[jax::jit]
fn j_conv_bias_relu(
    x: &Array<f32, 16, 16, 16, 8>,
    w: &Array<f32, 3, 3, 8, 16>,
    b: &Array<f32, 16>,
    r: &Array<f32, 16, 16, 16, 16>,
) -> Array<f32, 16, 16, 16, 16> {
    let y = lax::conv_general_dilated(
        x,
        w,
        &[1, 1],
        "SAME",
        None,
        None,
        Some(("NHWC", "HWIO", "NHWC")),
        1,
    );
    nn::relu(y + b) + r
}

/// An addend broadcast along the batch alone: its rows are not evenly
/// spaced along the product's, so the product is stored and a loop reads it.
#[jax::jit]
fn j_conv_batch_broadcast(
    x: &Array<f32, 16, 16, 16, 8>,
    w: &Array<f32, 3, 3, 8, 16>,
    s: &Array<f32, 1, 16, 16, 16>,
) -> Array<f32, 16, 16, 16, 16> {
    let y = lax::conv_general_dilated(
        x,
        w,
        &[1, 1],
        "SAME",
        None,
        None,
        Some(("NHWC", "HWIO", "NHWC")),
        1,
    );
    nn::relu(y * s)
}

#[test]
fn conv_epilogues_equal_the_eager_composition() {
    let (x, w, b, r, s) = (normal(11), normal(12), normal(13), normal(14), normal(15));
    let conv: Array<f32, 16, 16, 16, 16> = lax::conv_general_dilated(
        &x,
        &w,
        &[1, 1],
        "SAME",
        None,
        None,
        Some(("NHWC", "HWIO", "NHWC")),
        1,
    );
    let (b, r, s): (
        Array<f32, 16>,
        Array<f32, 16, 16, 16, 16>,
        Array<f32, 1, 16, 16, 16>,
    ) = (b, r, s);
    let (c, bv, rv, sv) = (conv.to_vec(), b.to_vec(), r.to_vec(), s.to_vec());
    let want: Vec<f32> = (0..c.len())
        .map(|i| (c[i] + bv[i % 16]).max(0.0) + rv[i])
        .collect();
    assert_eq!(j_conv_bias_relu(&x, &w, &b, &r).to_vec(), want);
    let want: Vec<f32> = (0..c.len())
        .map(|i| (c[i] * sv[i % sv.len()]).max(0.0))
        .collect();
    assert_eq!(j_conv_batch_broadcast(&x, &w, &s).to_vec(), want);
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

#[jax::jit]
fn j_reduce_window(x: &Array<f32, 4, 16, 16, 8>) -> Array<f32, 4, 8, 8, 8> {
    lax::reduce_window(
        x,
        f32::NEG_INFINITY,
        lax::max,
        &[1, 3, 3, 1],
        Some(&[1, 2, 2, 1]),
        "SAME",
    )
}

#[jax::jit]
fn j_reduce_window_init(x: &Array<f32, 4, 16, 16, 8>) -> Array<f32, 4, 15, 15, 8> {
    // An initial value other than the identity counts once per window.
    lax::reduce_window(x, 1.5, lax::add, &[1, 2, 2, 1], None, "VALID")
}

#[jax::jit]
fn j_reduce_window_dilated(x: &Array<f32, 6, 20>) -> Array<f32, 6, 18> {
    lax::reduce_window_dilated(
        x,
        f32::INFINITY,
        lax::min,
        &[2, 2],
        None,
        &[(1, 0), (0, 1)],
        Some(&[1, 1]),
        Some(&[1, 3]),
    )
}

#[jax::jit]
fn j_max_pool(x: &Array<f32, 4, 16, 16, 8>) -> Array<f32, 4, 8, 8, 8> {
    jax::nn::max_pool(x, &[2, 2], Some(&[2, 2]), "VALID")
}

#[jax::jit]
fn j_avg_pool(x: &Array<f32, 16, 16, 8>) -> Array<f32, 16, 16, 8> {
    jax::nn::avg_pool(x, &[3, 3], None, "SAME")
}

#[test]
fn windowed_reductions_in_jit_equal_eager() {
    let x: Array<f32, 4, 16, 16, 8> = normal(7);
    let eager: Array<f32, 4, 8, 8, 8> = lax::reduce_window(
        &x,
        f32::NEG_INFINITY,
        lax::max,
        &[1, 3, 3, 1],
        Some(&[1, 2, 2, 1]),
        "SAME",
    );
    assert_eq!(j_reduce_window(&x).to_vec(), eager.to_vec());
    let eager: Array<f32, 4, 15, 15, 8> =
        lax::reduce_window(&x, 1.5, lax::add, &[1, 2, 2, 1], None, "VALID");
    let jit = j_reduce_window_init(&x);
    for (a, b) in jit.to_vec().iter().zip(eager.to_vec()) {
        // The jitted sum adds the initial value last, the eager one first.
        assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
    }
    let y: Array<f32, 6, 20> = normal(8);
    let eager: Array<f32, 6, 18> = lax::reduce_window_dilated(
        &y,
        f32::INFINITY,
        lax::min,
        &[2, 2],
        None,
        &[(1, 0), (0, 1)],
        Some(&[1, 1]),
        Some(&[1, 3]),
    );
    assert_eq!(j_reduce_window_dilated(&y).to_vec(), eager.to_vec());
    let eager: Array<f32, 4, 8, 8, 8> = jax::nn::max_pool(&x, &[2, 2], Some(&[2, 2]), "VALID");
    assert_eq!(j_max_pool(&x).to_vec(), eager.to_vec());
    let z: Array<f32, 16, 16, 8> = normal(9);
    let eager: Array<f32, 16, 16, 8> = jax::nn::avg_pool(&z, &[3, 3], None, "SAME");
    for (a, b) in j_avg_pool(&z).to_vec().iter().zip(eager.to_vec()) {
        // Jitted, `/ 9` becomes `* (1 / 9)` (XLA's rewrite): an ulp apart.
        assert!((a - b).abs() <= 2.0 * f32::EPSILON * b.abs(), "{a} vs {b}");
    }
}
