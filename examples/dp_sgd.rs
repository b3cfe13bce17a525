//! Differentially private SGD (Abadi et al., 2016), as JAX's
//! `examples/differentially_private_sgd.py` writes it: each example's
//! gradient by `vmap` of `grad`, clipped to an L2 norm bound over all
//! parameter leaves, summed, Gaussian noise of standard deviation
//! `l2_norm_clip * noise_multiplier` added, divided by the batch size.
//!
//! The model and data are those of `examples/mlp.rs` (a two-layer MLP on two
//! interleaved spirals). Two models train from the same initialization on
//! the same mini-batches for the same number of steps: one with plain SGD
//! on the batch's mean gradient, one with the private gradient (both with
//! heavy-ball momentum). Both accuracies are printed at the end, with the
//! privacy spent, (epsilon, delta), from a Rényi-DP accountant.
//!
//! Run with `cargo run --release --example dp_sgd`.

use jax::prelude::*;
use jax::random;

const N: usize = model::POINTS;
const EPOCHS: usize = 20;
const STEPS_PER_EPOCH: usize = N / model::BATCH;
const STEPS: usize = EPOCHS * STEPS_PER_EPOCH;
const LEARNING_RATE: f32 = 0.1;
const MOMENTUM: f32 = 0.9;
/// The bound on each example's gradient norm (JAX's `--l2_norm_clip`).
const L2_NORM_CLIP: f32 = 1.0;
/// The noise's standard deviation in units of the clip (JAX's `--noise_multiplier`).
const NOISE_MULTIPLIER: f32 = 1.1;
/// The delta of the (epsilon, delta) guarantee (JAX's example uses 1e-5).
const DELTA: f64 = 1e-5;

#[jax::jit]
mod model {
    use jax::prelude::*;
    use jax::random;

    pub const POINTS: usize = 16000;
    pub const HIDDEN: usize = 128;
    pub const BATCH: usize = 128;

    /// The parameters: a pytree, so `grad` returns the same struct.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, 2, HIDDEN>,
        pub b1: Array<f32, HIDDEN>,
        pub w2: Array<f32, HIDDEN, 2>,
        pub b2: Array<f32, 2>,
    }

    /// The two class scores of each point.
    pub fn logits(p: &Params, x: &Array<f32, POINTS, 2>) -> Array<f32, POINTS, 2> {
        let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        h.matmul(&p.w2) + &p.b2
    }

    /// Softmax cross-entropy of one example against its one-hot label.
    pub fn loss_one(p: &Params, x: &Array<f32, 2>, y: &Array<f32, 2>) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        let logits = h.matmul(&p.w2) + &p.b2;
        -jnp::sum(jnp::log_softmax(logits, -1) * y)
    }

    /// The mean loss of a batch: its gradient is plain SGD's.
    pub fn loss(p: &Params, x: &Array<f32, BATCH, 2>, y: &Array<f32, BATCH, 2>) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        let logits = h.matmul(&p.w2) + &p.b2;
        -jnp::mean(jnp::sum_axis(jnp::log_softmax(logits, -1) * y, -1, false))
    }

    /// The private gradient of a batch: per-example gradients (`vmap` of
    /// `grad`), each scaled down to norm at most `clip` (the norm over all
    /// four leaves), summed over the batch, plus `N(0, (clip * noise)^2)`
    /// noise on every coordinate (one key per leaf), over the batch size.
    #[allow(clippy::too_many_arguments)]
    pub fn private_grad(
        p: &Params,
        x: &Array<f32, BATCH, 2>,
        y: &Array<f32, BATCH, 2>,
        clip: f32,
        noise: f32,
        k1: random::Key,
        k2: random::Key,
        k3: random::Key,
        k4: random::Key,
    ) -> Params {
        let g = jax::vmap(
            |x, y| {
                let g = jax::grad(|p: Params| loss_one(&p, &x, &y))(p.clone());
                let norm = jnp::sqrt(
                    jnp::sum(&g.w1 * &g.w1)
                        + jnp::sum(&g.b1 * &g.b1)
                        + jnp::sum(&g.w2 * &g.w2)
                        + jnp::sum(&g.b2 * &g.b2),
                );
                let divisor = jnp::maximum(norm / clip, 1.0);
                Params {
                    w1: g.w1 / &divisor,
                    b1: g.b1 / &divisor,
                    w2: g.w2 / &divisor,
                    b2: g.b2 / &divisor,
                }
            },
            (0, 0),
        )(x, y);
        let std = clip * noise;
        let n = BATCH as f32;
        Params {
            w1: (jnp::sum_axis(g.w1, 0, false) + random::normal::<Array<f32, 2, HIDDEN>>(k1) * std)
                / n,
            b1: (jnp::sum_axis(g.b1, 0, false) + random::normal::<Array<f32, HIDDEN>>(k2) * std)
                / n,
            w2: (jnp::sum_axis(g.w2, 0, false) + random::normal::<Array<f32, HIDDEN, 2>>(k3) * std)
                / n,
            b2: (jnp::sum_axis(g.b2, 0, false) + random::normal::<Array<f32, 2>>(k4) * std) / n,
        }
    }
}

use model::{Params, BATCH};

/// Two spirals, 1.5 turns each, with a little noise: points and one-hot
/// labels (as in `examples/mlp.rs`).
fn spirals(key: random::Key) -> (Vec<f32>, Vec<f32>, Vec<usize>) {
    let [k1, k2] = random::split(key);
    let u: Array<f32, N> = random::uniform(k1);
    let noise: Array<f32, N, 2> = random::normal(k2);
    let (u, noise) = (u.to_vec(), noise.to_vec());
    let mut x = Vec::with_capacity(2 * N);
    let mut y = Vec::with_capacity(2 * N);
    let mut class = Vec::with_capacity(N);
    for i in 0..N {
        let c = i % 2;
        let t = u[i].sqrt() * 3.0 * std::f32::consts::PI;
        let angle = t + c as f32 * std::f32::consts::PI;
        let r = t / (3.0 * std::f32::consts::PI);
        x.push(r * angle.cos() + 0.02 * noise[2 * i]);
        x.push(r * angle.sin() + 0.02 * noise[2 * i + 1]);
        y.extend(if c == 0 { [1.0, 0.0] } else { [0.0, 1.0] });
        class.push(c);
    }
    (x, y, class)
}

fn init(key: random::Key) -> Params {
    let [k1, k2] = random::split(key);
    let w1: Array<f32, 2, { model::HIDDEN }> = random::normal(k1);
    let w2: Array<f32, { model::HIDDEN }, 2> = random::normal(k2);
    Params {
        w1: w1 * 2.0f32,
        b1: Array::full(0.0),
        w2: w2 * (1.0 / (model::HIDDEN as f32).sqrt()),
        b2: Array::full(0.0),
    }
}

fn accuracy(p: &Params, x: &Array<f32, N, 2>, class: &[usize]) -> f64 {
    let scores = model::logits(p, x).to_vec();
    let right = class
        .iter()
        .enumerate()
        .filter(|&(i, &c)| (scores[2 * i + 1] > scores[2 * i]) as usize == c)
        .count();
    right as f64 / N as f64
}

/// Rows `idx` of a row-major `[N, 2]` table, as a batch.
fn gather(table: &[f32], idx: &[i32]) -> Array<f32, BATCH, 2> {
    let rows = idx.iter().flat_map(|&i| {
        let i = i as usize;
        [table[2 * i], table[2 * i + 1]]
    });
    Array::from_vec(rows.collect()).unwrap()
}

/// One step of SGD with heavy-ball momentum.
fn sgd(p: &Params, v: &Params, g: &Params) -> (Params, Params) {
    let v = Params {
        w1: &v.w1 * MOMENTUM + &g.w1,
        b1: &v.b1 * MOMENTUM + &g.b1,
        w2: &v.w2 * MOMENTUM + &g.w2,
        b2: &v.b2 * MOMENTUM + &g.b2,
    };
    let p = Params {
        w1: &p.w1 - &v.w1 * LEARNING_RATE,
        b1: &p.b1 - &v.b1 * LEARNING_RATE,
        w2: &p.w2 - &v.w2 * LEARNING_RATE,
        b2: &p.b2 - &v.b2 * LEARNING_RATE,
    };
    (p, v)
}

/// The privacy spent: (epsilon, delta)-DP of `steps` steps of the Gaussian
/// mechanism with noise multiplier `sigma` on batches sampled with
/// probability `q`, by Rényi differential privacy (Mironov, Talwar and
/// Zhang, 2019: the sampled Gaussian mechanism's RDP at integer orders) and
/// the classic conversion, as `tensorflow_privacy`'s `compute_rdp` and
/// `get_privacy_spent` that JAX's example calls. Like that example, this
/// treats shuffled batches as Poisson-sampled ones.
fn epsilon(q: f64, sigma: f64, steps: usize, delta: f64) -> f64 {
    (2..=256u32)
        .map(|order| {
            let a = order as f64;
            // log A_a = log sum_k C(a, k) (1-q)^(a-k) q^k exp((k^2 - k) / (2 sigma^2))
            let mut log_binom = 0.0;
            let terms: Vec<f64> = (0..=order)
                .map(|k| {
                    let k = k as f64;
                    if k > 0.0 {
                        log_binom += ((a - k + 1.0) / k).ln();
                    }
                    log_binom
                        + (a - k) * (1.0 - q).ln()
                        + k * q.ln()
                        + (k * k - k) / (2.0 * sigma * sigma)
                })
                .collect();
            let top = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let log_a = top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln();
            steps as f64 * log_a / (a - 1.0) + (1.0 / delta).ln() / (a - 1.0)
        })
        .fold(f64::INFINITY, f64::min)
}

fn zeros() -> Params {
    Params {
        w1: Array::zeros(),
        b1: Array::zeros(),
        w2: Array::zeros(),
        b2: Array::zeros(),
    }
}

fn main() {
    let [data_key, init_key, batch_key, noise_key] = random::split(random::key(0));
    let (xv, yv, class) = spirals(data_key);
    let x: Array<f32, N, 2> = Array::from_vec(xv.clone()).unwrap();
    let p0 = init(init_key);
    println!(
        "two spirals, {N} points; MLP 2 -> {} -> 2, tanh; batches of {BATCH}, {STEPS} steps",
        model::HIDDEN
    );
    println!(
        "DP-SGD: l2_norm_clip {L2_NORM_CLIP}, noise_multiplier {NOISE_MULTIPLIER} (noise std {} per summed coordinate)",
        L2_NORM_CLIP * NOISE_MULTIPLIER
    );

    // With no noise and a bound no gradient reaches, the private gradient is
    // the mean of the per-example gradients: the plain gradient.
    let idx: Vec<i32> = (0..BATCH as i32).collect();
    let (xb, yb) = (gather(&xv, &idx), gather(&yv, &idx));
    let [k1, k2, k3, k4] = random::split(noise_key);
    let unclipped = model::private_grad(&p0, &xb, &yb, 1e9, 0.0, k1, k2, k3, k4);
    let plain = model::loss::grad(&p0, &xb, &yb);
    let gap = [
        (unclipped.w1.data(), plain.w1.data()),
        (unclipped.b1.data(), plain.b1.data()),
        (unclipped.w2.data(), plain.w2.data()),
        (unclipped.b2.data(), plain.b2.data()),
    ]
    .iter()
    .flat_map(|(a, b)| a.iter().zip(b.iter()).map(|(a, b)| (a - b).abs()))
    .fold(0.0f32, f32::max);
    println!(
        "unclipped, noiseless private gradient vs the batch gradient: max difference {gap:.1e}"
    );
    assert!(gap < 1e-5, "{gap}");

    let start = std::time::Instant::now();
    let (mut plain, mut v_plain) = (p0.clone(), zeros());
    let (mut private, mut v_private) = (p0, zeros());
    for epoch in 0..EPOCHS {
        let order: Array<i32, N> = random::permutation(random::fold_in(batch_key, epoch as u32));
        let order = order.to_vec();
        let (mut loss_plain, mut loss_private) = (0.0, 0.0);
        for (b, idx) in order.chunks_exact(BATCH).enumerate() {
            let (xb, yb) = (gather(&xv, idx), gather(&yv, idx));
            let step = (epoch * STEPS_PER_EPOCH + b) as u32;
            let (l, g) = model::loss::value_and_grad(&plain, &xb, &yb);
            loss_plain += l.item();
            (plain, v_plain) = sgd(&plain, &v_plain, &g);

            loss_private += model::loss(&private, &xb, &yb).item();
            let [k1, k2, k3, k4] = random::split(random::fold_in(noise_key, step));
            let g = model::private_grad(
                &private,
                &xb,
                &yb,
                L2_NORM_CLIP,
                NOISE_MULTIPLIER,
                k1,
                k2,
                k3,
                k4,
            );
            (private, v_private) = sgd(&private, &v_private, &g);
        }
        if (epoch + 1) % 4 == 0 {
            let n = STEPS_PER_EPOCH as f32;
            println!(
                "epoch {:>2}: mean batch loss {:.4} plain, {:.4} private; accuracy {:.1} % plain, {:.1} % private",
                epoch + 1,
                loss_plain / n,
                loss_private / n,
                100.0 * accuracy(&plain, &x, &class),
                100.0 * accuracy(&private, &x, &class),
            );
        }
    }
    let (acc_plain, acc_private) = (accuracy(&plain, &x, &class), accuracy(&private, &x, &class));
    println!("trained in {:.1} s", start.elapsed().as_secs_f64());
    println!(
        "training accuracy without privacy: {:.1} %",
        100.0 * acc_plain
    );
    println!(
        "training accuracy with DP-SGD:     {:.1} %, at epsilon = {:.2} for delta = {DELTA:e}",
        100.0 * acc_private,
        epsilon(
            BATCH as f64 / N as f64,
            NOISE_MULTIPLIER as f64,
            STEPS,
            DELTA
        )
    );
    assert!(acc_plain >= 0.95, "accuracy without privacy {acc_plain}");
    assert!(acc_private >= 0.9, "accuracy with DP-SGD {acc_private}");
}
