//! A model trained in Python JAX, run from Rust: the `predict` function of
//! an MLP trained on scikit-learn's digits (64 -> 256 tanh -> 10) is
//! imported from the jaxpr Python printed (`#[jax::jit(import = ..)]`),
//! compiled when this example compiles, and run on the trained parameters
//! read from a safetensors file. Its logits are compared with the ones
//! `jax.jit(predict)` gave in Python on the same 128 test images: equal
//! to f32 rounding, not bit for bit, since XLA sums each dot product in
//! another order (and its tanh is its own polynomial); then the accuracy,
//! the agreement of the predicted classes with JAX's, and the time of one
//! call.
//!
//! Two steps:
//!
//! 1. `python3 examples/from_python/train_mlp.py` (needs `pip install jax
//!    scikit-learn optax safetensors`) trains the model and regenerates
//!    `examples/from_python/mlp.jaxpr`, `mlp.safetensors` (the parameters)
//!    and `mlp_io.safetensors` (the images, JAX's logits, the labels). The
//!    files are committed, so this step is optional.
//! 2. `cargo run --release --example from_python` runs this.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use jax::prelude::*;

/// The parameters as Python's dict holds them: `make_jaxpr` flattens a dict
/// in sorted key order (b1, b2, w1, w2), which is the order of the fields
/// here; the safetensors file names each tensor by its key. (A pytree is
/// `Clone`; `Default` makes the template `load_safetensors` fills.)
#[derive(jax::Pytree, Clone, Default)]
pub struct Params {
    pub b1: Array<f32, 256>,
    pub b2: Array<f32, 10>,
    pub w1: Array<f32, 64, 256>,
    pub w2: Array<f32, 256, 10>,
}

/// `mlp_io.safetensors`: its tensors by name.
#[derive(jax::Pytree, Clone, Default)]
struct Io {
    labels: Array<i32, 128>,
    logits: Array<f32, 128, 10>,
    x: Array<f32, 128, 64>,
}

/// `jnp.tanh(x @ w1 + b1) @ w2 + b2`, as Python traced it: the program is
/// the jaxpr file's (its path relative to this file, as for `include_str!`),
/// its inputs the parameters' leaves then `x`.
#[jax::jit(import = "from_python/mlp.jaxpr")]
fn predict(params: &Params, x: &Array<f32, 128, 64>) -> Array<f32, 128, 10>;

/// Relative and absolute tolerance of the comparison with JAX's logits.
const TOL: f32 = 1e-5;

/// The same MLP in f64, plain loops: a reference for both f32 results.
fn predict_f64(p: &Params, x: &Array<f32, 128, 64>) -> Vec<f64> {
    let (w1, b1, w2, b2, x) = (
        p.w1.to_vec(),
        p.b1.to_vec(),
        p.w2.to_vec(),
        p.b2.to_vec(),
        x.to_vec(),
    );
    let mut out = Vec::with_capacity(128 * 10);
    for row in x.chunks_exact(64) {
        let h: Vec<f64> = (0..256)
            .map(|j| {
                let s: f64 = (0..64)
                    .map(|k| row[k] as f64 * w1[k * 256 + j] as f64)
                    .sum();
                (s + b1[j] as f64).tanh()
            })
            .collect();
        out.extend((0..10).map(|c| {
            let s: f64 = (0..256).map(|j| h[j] * w2[j * 10 + c] as f64).sum();
            s + b2[c] as f64
        }));
    }
    out
}

/// The index of the largest logit of each row (the first one on ties, as
/// `jnp.argmax`).
fn argmax_rows(logits: &[f32]) -> Vec<usize> {
    logits
        .chunks_exact(10)
        .map(|row| {
            row.iter()
                .enumerate()
                .fold((0, f32::NEG_INFINITY), |best, (i, &v)| {
                    if v > best.1 {
                        (i, v)
                    } else {
                        best
                    }
                })
                .0
        })
        .collect()
}

fn main() -> ExitCode {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/from_python");
    let params: Params =
        jax::tree::load_safetensors(format!("{dir}/mlp.safetensors"), &Params::default())
            .expect("the trained parameters (python3 examples/from_python/train_mlp.py)");
    let io: Io = jax::tree::load_safetensors(format!("{dir}/mlp_io.safetensors"), &Io::default())
        .expect("the images, labels and JAX's logits");

    // The program as compiled: it prints back as the file it came from.
    let program = predict::jaxpr().to_string();
    println!(
        "imported program: {}",
        program.lines().next().unwrap_or_default()
    );

    let logits = predict(&params, &io.x);
    let (ours, theirs) = (logits.to_vec(), io.logits.to_vec());

    // Compared with JAX's logits: bit for bit, and as `np.allclose` with
    // `rtol = atol = 1e-5` (the logits are of order 10). The two differ in
    // more than tanh's last bits: XLA and our gemm add the 64 and 256
    // products of each dot in different orders. Both are also measured
    // against the program evaluated in f64: the differences are f32
    // rounding (NumPy's f32 matmuls err by 1.8e-5 here, ours by 1.4e-5).
    let reference = predict_f64(&params, &io.x);
    let mut max_abs = 0f32;
    let mut worst = 0f32;
    let mut not_equal = 0;
    let (mut ours_err, mut jax_err) = (0f64, 0f64);
    for ((&a, &b), &r) in ours.iter().zip(&theirs).zip(&reference) {
        let d = (a - b).abs();
        max_abs = max_abs.max(d);
        worst = worst.max(d / (TOL * b.abs() + TOL));
        not_equal += (a.to_bits() != b.to_bits()) as usize;
        ours_err = ours_err.max((a as f64 - r).abs());
        jax_err = jax_err.max((b as f64 - r).abs());
    }
    println!(
        "logits vs jax.jit: max abs difference {max_abs:.3e}, {not_equal} of {} elements \
         not bit-equal; {:.0} % of the tolerance used at worst",
        ours.len(),
        worst * 100.0
    );
    println!("max abs error vs f64: ours {ours_err:.3e}, JAX's {jax_err:.3e}");
    let close = worst <= 1.0;

    let (pred, jax_pred) = (argmax_rows(&ours), argmax_rows(&theirs));
    let labels = io.labels.to_vec();
    let correct = pred
        .iter()
        .zip(&labels)
        .filter(|&(&p, &l)| p as i32 == l)
        .count();
    let agree = pred.iter().zip(&jax_pred).filter(|(a, b)| a == b).count();
    let n = labels.len();
    println!(
        "accuracy {:.4} ({correct} of {n} test images); argmax agrees with JAX's on {agree} of {n}",
        correct as f64 / n as f64
    );

    // One call's time: the median of 200, after a few untimed ones.
    for _ in 0..10 {
        drop(black_box(predict(&params, black_box(&io.x))));
    }
    let mut times: Vec<f64> = (0..200)
        .map(|_| {
            let t = Instant::now();
            drop(black_box(predict(&params, black_box(&io.x))));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "predict, batch 128: median {:.1} µs per call (of 200; fastest {:.1} µs)",
        (times[99] + times[100]) / 2.0,
        times[0]
    );

    if close && agree == n {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: logits differ from JAX's by more than rtol = atol = {TOL:e} \
             (or the predicted classes differ)"
        );
        ExitCode::FAILURE
    }
}
