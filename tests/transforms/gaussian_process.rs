//! `examples/gaussian_process.rs` against JAX's own program
//! (`tests/fixtures/gaussian_process.json`, made by
//! `tests/fixtures/gen/gaussian_process.py` from JAX's
//! `examples/gaussian_process_regression.py`). The example's model and
//! training loop are included from `examples/gaussian_process/model.rs`, so
//! this runs the example's code.

#[path = "../../examples/gaussian_process/model.rs"]
#[allow(dead_code)]
mod model;

use model::{gp, NTEST, NUMPTS};
use serde_json::Value;

fn fixture() -> Value {
    let path = format!(
        "{}/tests/fixtures/gaussian_process.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn bits(v: &Value) -> Vec<u32> {
    v["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| u32::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
        .collect()
}

const NAMES: [&str; 3] = ["amplitude", "noise", "lengthscale"];

/// The training data are JAX's bit for bit: `jax::random` reproduces
/// threefry, and the arithmetic on the draws is elementwise float32. The
/// test points (`jnp::linspace(0, 6)`, 200 values) are within two ulps: XLA
/// evaluates JAX's `0 * (1 - s) + 6 * s` with `s = i * (1 / 199)` as
/// `i * (6 * (1 / 199))` (checked in NumPy: that order matches all 199
/// values), our eager `jnp::linspace` in the written order.
#[test]
fn data_are_jaxs() {
    let fx = fixture();
    let (x, y, xtest) = model::data();
    let as_bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
    assert_eq!(as_bits(x.to_vec()), bits(&fx["x"]), "x");
    assert_eq!(as_bits(y.to_vec()), bits(&fx["y"]), "y");
    let want = bits(&fx["xtest"]);
    for (i, (got, want)) in as_bits(xtest.to_vec()).into_iter().zip(want).enumerate() {
        assert!(
            got.abs_diff(want) <= 2,
            "xtest[{i}]: bits {got:#x}, JAX {want:#x}"
        );
    }
}

/// The first 20 steps: the jitted loss before each step, the gradient from
/// `neg_marginal_likelihood::grad` and the parameters after the update.
///
/// Tolerance: relative 2e-5 (about 150 float32 ulps). At these parameters the
/// training covariance is well conditioned (amplitude ≈ 0.69, noise ≈ 0.0067:
/// condition number below 10³), so a Cholesky factor and triangular solves
/// that differ from LAPACK's in the last bits (faer sums in another order)
/// move the loss and gradient by a few ulps times that; the update itself
/// repeats JAX's float32 operations one for one.
#[test]
fn first_twenty_steps_match_jax() {
    let fx = fixture();
    let recorded = fx["recorded"].as_array().unwrap();
    let (x, y, _) = model::data();
    let close = |got: f32, want: f64, what: &str| {
        let err = (got as f64 - want).abs();
        assert!(
            err <= 2e-5 * want.abs().max(1e-2),
            "{what}: ours {got}, JAX {want}, difference {err:e}"
        );
    };
    let mut steps = 0;
    let mut p_before = model::initial_params();
    model::train(&x, &y, recorded.len(), |s, p| {
        let r = &recorded[s.step];
        let loss = gp::neg_marginal_likelihood(&p_before, &x, &y).item();
        close(
            loss,
            r["loss"].as_f64().unwrap(),
            &format!("step {}: loss", s.step),
        );
        for (k, name) in NAMES.iter().enumerate() {
            let at = format!("step {}: {name}", s.step);
            close(
                s.grads[k],
                r["grads"][name].as_f64().unwrap(),
                &format!("{at} gradient"),
            );
            close(s.params[k], r["params"][name].as_f64().unwrap(), &at);
        }
        p_before = p.clone();
        steps += 1;
    });
    assert_eq!(steps, 20);
}

/// The whole run, 1000 steps, and the predictions.
///
/// At the end the noise is tiny (softplus(-10.7) ≈ 2e-5) against an
/// amplitude of 7.5, so the training covariance's condition number is about
/// 10⁶ and float32 rounding in the factorization steers the trajectory: JAX's
/// own float32 run ends away from its float64 run (same data, same program;
/// `final_f64` in the fixture) by 0.011 in `noise`, 0.003 in `lengthscale`,
/// 0.03 in the loss, 0.006 in the mean and 0.0015 in the standard deviation.
/// A float32 implementation whose factorization rounds differently can be
/// that far from JAX's float32 run, so each quantity must be within three
/// times JAX's float32-to-float64 gap (plus a floor of 1e-4 for quantities
/// where the gap happens to be tiny).
#[test]
fn full_run_matches_jax() {
    let fx = fixture();
    let (x, y, xtest) = model::data();
    let p = model::train(&x, &y, model::STEPS, |_, _| {});
    let (f32_run, f64_run) = (&fx["final"], &fx["final_f64"]);
    let check = |what: &str, got: &[f32], want: &[f64], exact: &[f64]| {
        let gap = want
            .iter()
            .zip(exact)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let tol = 3.0 * gap + 1e-4;
        let err = got
            .iter()
            .zip(want)
            .map(|(&g, w)| (g as f64 - w).abs())
            .fold(0.0, f64::max);
        assert!(
            err <= tol,
            "{what}: largest difference from JAX {err:e}, allowed {tol:e} (JAX f32 vs f64: {gap:e})"
        );
        println!("{what}: ours vs JAX f32 {err:.2e}; JAX f32 vs f64 {gap:.2e}");
    };
    let got = [p.amplitude.item(), p.noise.item(), p.lengthscale.item()];
    for (k, name) in NAMES.iter().enumerate() {
        check(
            name,
            &[got[k]],
            &[f32_run["params"][name].as_f64().unwrap()],
            &[f64_run["params"][name].as_f64().unwrap()],
        );
    }
    let loss = gp::neg_marginal_likelihood(&p, &x, &y).item();
    check(
        "loss",
        &[loss],
        &[f32_run["loss"].as_f64().unwrap()],
        &[f64_run["loss"].as_f64().unwrap()],
    );
    let (mu, std) = model::predictions(&p, &x, &y, &xtest);
    assert_eq!((mu.len(), std.len()), (NTEST, NTEST));
    check("mu", &mu, &floats(&f32_run["mu"]), &floats(&f64_run["mu"]));
    check(
        "std",
        &std,
        &floats(&f32_run["std"]),
        &floats(&f64_run["std"]),
    );
    assert_eq!(NUMPTS, 7);
}
