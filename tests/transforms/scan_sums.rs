//! Scans whose carry sums products (`acc + dot(a, b)`), which the compiler
//! computes as one contraction after the loop, against JAX
//! (`tests/fixtures/scan_sums.json`, from `tests/fixtures/gen/scan_sums.py`).
//! The contraction adds in another order than the loop, so results are
//! compared with a relative tolerance.

use crate::common;

use common::linalg::{arr, close};
use jax::Array;

const TOL: f64 = 2e-6;

/// The RNN loss whose gradient with respect to `W` is a reverse scan
/// summing `dh_t ⊗ h_{t-1}`; `h`'s gradient is the loop's other carry.
#[jax::jit(argnums = (0, 2))]
fn rnn_loss(w: &Array<f32, 16, 16>, xs: &Array<f32, 40, 16>, h: &Array<f32, 16>) -> Array<f32> {
    let (h, _) = lax::scan(
        |h: Array<f32, 16>, x: Array<f32, 16>| (jnp::tanh(w.matmul(&h) + x), 0.0),
        h.clone(),
        xs.clone(),
    );
    jnp::sum(h)
}

#[test]
fn rnn_weight_gradient() {
    let c = common::case("scan_sums", "rnn_grad");
    let (w, xs, h) = (arr(&c["args"][0]), arr(&c["args"][1]), arr(&c["args"][2]));
    close("loss", &rnn_loss(&w, &xs, &h), &c["output"], TOL);
    let (gw, gh) = rnn_loss::grad(&w, &xs, &h);
    close("grad W", &gw, &c["grad"], TOL);
    close("grad h", &gh, &c["grad_h"], TOL);
}

#[jax::jit]
fn covariance(init: &Array<f32, 16, 16>, xs: &Array<f32, 30, 16>) -> Array<f32, 16, 16> {
    let (acc, _) = lax::scan(
        |acc: Array<f32, 16, 16>, x: Array<f32, 16>| {
            let col: Array<f32, 16, 1> = x.reshape();
            let row: Array<f32, 1, 16> = x.reshape();
            (acc + col.matmul(&row), 0.0)
        },
        init.clone(),
        xs.clone(),
    );
    acc
}

#[test]
fn summed_outer_products_start_from_the_initial_carry() {
    let c = common::case("scan_sums", "covariance");
    let got = covariance(&arr(&c["args"][0]), &arr(&c["args"][1]));
    close("covariance", &got, &c["output"], TOL);
}

#[jax::jit]
fn reverse_blocks(
    init: &Array<f32, 16, 20>,
    s0: &Array<f32>,
    a: &Array<f32, 25, 16, 4>,
    b: &Array<f32, 25, 4, 20>,
) -> (Array<f32, 16, 20>, Array<f32>, Array<f32, 25>) {
    let ((acc, s), ss) = lax::scan_with(
        |(acc, s): (Array<f32, 16, 20>, Array<f32>),
         (at, bt): (Array<f32, 16, 4>, Array<f32, 4, 20>)| {
            ((acc + at.matmul(&bt), s.clone() * 0.5 + jnp::sum(at)), s)
        },
        (init.clone(), s0.clone()),
        (a.clone(), b.clone()),
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    );
    (acc, s, ss)
}

#[test]
fn summed_products_of_stacked_inputs_in_a_reverse_scan() {
    let c = common::case("scan_sums", "reverse_blocks");
    let args = &c["args"];
    let (acc, s, ss) = reverse_blocks(
        &arr(&args[0]),
        &arr(&args[1]),
        &arr(&args[2]),
        &arr(&args[3]),
    );
    close("acc", &acc, &c["output"][0], TOL);
    close("s", &s, &c["output"][1], TOL);
    close("ss", &ss, &c["output"][2], TOL);
}

#[jax::jit]
fn read_elsewhere(init: &Array<f32, 16, 16>, xs: &Array<f32, 30, 16>) -> Array<f32, 16, 16> {
    let (acc, _) = lax::scan(
        |acc: Array<f32, 16, 16>, x: Array<f32, 16>| {
            let col: Array<f32, 16, 1> = x.reshape();
            let row: Array<f32, 1, 16> = x.reshape();
            (acc * 0.5 + col.matmul(&row), 0.0)
        },
        init.clone(),
        xs.clone(),
    );
    acc
}

#[test]
fn a_carry_read_besides_its_sum_stays_in_the_loop() {
    let c = common::case("scan_sums", "read_elsewhere");
    let got = read_elsewhere(&arr(&c["args"][0]), &arr(&c["args"][1]));
    close("acc", &got, &c["output"], TOL);
}
