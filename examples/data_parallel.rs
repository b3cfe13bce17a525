//! Data-parallel training with `jax::pmap`: an MLP on scikit-learn's 8×8
//! digits (`examples/data/digits.bin`), each batch of 128 split over two
//! workers. Every worker computes the gradient of its 64 images, the
//! gradients are averaged with `lax::pmean` (one all-reduce), and every
//! worker applies the same SGD update, so the parameters stay replicated.
//!
//! The workers are devices: two local ones (`jax::config::
//! set_num_cpu_devices`), or, built with the `mpi` feature and launched by
//! `mpirun`, one per process; the program is the same, and so are its
//! results, bit for bit (`--digest` prints a hash of the final parameters'
//! bits).
//!
//! ```text
//! cargo run --release --example data_parallel
//! cargo build --release --features mpi --example data_parallel
//! mpirun -n 2 target/release/examples/data_parallel
//! ```
//!
//! It also times a step on one device (the same update, unsplit) against
//! the step on two, in the same process.

#[path = "data/digits.rs"]
mod digits;

use std::time::Instant;

use jax::prelude::*;
use jax::random;

use digits::IMAGES;
const TRAIN: usize = 1536;

#[jax::jit]
mod model {
    use jax::prelude::*;

    pub const WORKERS: usize = 2;
    /// Each worker's part of a batch of 128.
    pub const SHARD: usize = 64;
    pub const BATCH: usize = WORKERS * SHARD;
    pub const PIXELS: usize = 64;
    pub const HIDDEN: usize = 128;
    pub const CLASSES: usize = 10;
    pub const LEARNING_RATE: f32 = 0.1;

    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, PIXELS, HIDDEN>,
        pub b1: Array<f32, HIDDEN>,
        pub w2: Array<f32, HIDDEN, CLASSES>,
        pub b2: Array<f32, CLASSES>,
    }

    /// Softmax cross-entropy of one worker's images against one-hot labels.
    pub fn loss(
        p: &Params,
        x: &Array<f32, SHARD, PIXELS>,
        y: &Array<f32, SHARD, CLASSES>,
    ) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        let logp = jnp::log_softmax(h.matmul(&p.w2) + &p.b2, -1);
        -jnp::mean(jnp::sum_axis(logp * y, -1, false))
    }

    fn sgd(p: &Params, g: &Params) -> Params {
        jax::tree::map(|w, d| w - LEARNING_RATE * d, p, g)
    }

    /// One step on every worker: its gradient, averaged over the workers
    /// (`pmean`), the same update everywhere. The parameters go in whole
    /// (`in_axes` `None`) and come out once (`out_axes` `None`).
    pub fn train_step(
        p: &Params,
        x: &Array<f32, WORKERS, SHARD, PIXELS>,
        y: &Array<f32, WORKERS, SHARD, CLASSES>,
    ) -> (Params, Array<f32>) {
        jax::pmap(
            |p, x, y| {
                let (l, g) = jax::value_and_grad(loss)(p, x, y);
                let g = lax::pmean(g, "batch");
                (sgd(p, &g), lax::pmean(l, "batch"))
            },
            "batch",
            (None, 0, 0),
            None,
        )(p, x, y)
    }

    /// The same step on one device, the batch unsplit: the reference the
    /// timing compares with.
    pub fn loss_whole(
        p: &Params,
        x: &Array<f32, BATCH, PIXELS>,
        y: &Array<f32, BATCH, CLASSES>,
    ) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        let logp = jnp::log_softmax(h.matmul(&p.w2) + &p.b2, -1);
        -jnp::mean(jnp::sum_axis(logp * y, -1, false))
    }

    pub fn train_step_one_device(
        p: &Params,
        x: &Array<f32, BATCH, PIXELS>,
        y: &Array<f32, BATCH, CLASSES>,
    ) -> (Params, Array<f32>) {
        let (l, g) = jax::value_and_grad(loss_whole)(p, x, y);
        (sgd(p, &g), l)
    }
}

use model::{Params, BATCH, CLASSES, HIDDEN, PIXELS, WORKERS};

fn init(key: random::Key) -> Params {
    let [k1, k2] = random::split(key);
    Params {
        w1: random::normal::<Array<f32, PIXELS, HIDDEN>>(k1) * (1.0 / (PIXELS as f32).sqrt()),
        b1: Array::full(0.0),
        w2: random::normal::<Array<f32, HIDDEN, CLASSES>>(k2) * (1.0 / (HIDDEN as f32).sqrt()),
        b2: Array::full(0.0),
    }
}

/// Batch `b` of the training images (in a fixed order), and its labels.
fn batch(pixels: &[f32], labels: &[u8], b: usize) -> (Vec<f32>, Vec<f32>) {
    let first = (b * BATCH) % TRAIN;
    let mut x = Vec::with_capacity(BATCH * PIXELS);
    let mut y = vec![0.0; BATCH * CLASSES];
    for row in 0..BATCH {
        let i = (first + row) % TRAIN;
        x.extend_from_slice(&pixels[i * PIXELS..(i + 1) * PIXELS]);
        y[row * CLASSES + labels[i] as usize] = 1.0;
    }
    (x, y)
}

/// FNV-1a over the parameters' bits.
fn digest(p: &Params) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let leaves = [p.w1.to_vec(), p.b1.to_vec(), p.w2.to_vec(), p.b2.to_vec()];
    for v in leaves.iter().flatten() {
        for b in v.to_bits().to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let steps: usize = args
        .iter()
        .position(|a| a == "--steps")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(240), |s| s.parse())?;
    let print_digest = args.iter().any(|a| a == "--digest");

    // Under `mpirun` (the `mpi` feature), one worker per process.
    #[cfg(feature = "mpi")]
    let _session = jax::distributed::initialize()?;
    jax::config::set_num_cpu_devices(WORKERS / jax::process_count())?;
    let leader = jax::process_index() == 0;
    if leader {
        let devices: Vec<String> = jax::devices().iter().map(|d| d.to_string()).collect();
        println!(
            "{} process(es), devices {devices:?}, {} thread(s) each",
            jax::process_count(),
            jax::local_devices()[0].threads
        );
    }

    let (pixels, labels) = digits::load();
    let mut p = init(random::key(0));
    let mut times = Vec::new();
    for step in 0..steps {
        let (x, y) = batch(&pixels, &labels, step);
        let x: Array<f32, WORKERS, { model::SHARD }, PIXELS> = Array::from_vec(x)?;
        let y: Array<f32, WORKERS, { model::SHARD }, CLASSES> = Array::from_vec(y)?;
        let start = Instant::now();
        let (next, loss) = model::train_step(&p, &x, &y);
        times.push(start.elapsed().as_secs_f64());
        p = next;
        if leader && (step + 1) % 40 == 0 {
            println!("step {:4}  loss {:.4}", step + 1, loss.item());
        }
    }
    if leader {
        // Accuracy on the held-out images, on the host.
        let test = IMAGES - TRAIN;
        let mut right = 0;
        let (w1, b1, w2, b2) = (p.w1.to_vec(), p.b1.to_vec(), p.w2.to_vec(), p.b2.to_vec());
        for i in TRAIN..IMAGES {
            let x = &pixels[i * PIXELS..(i + 1) * PIXELS];
            let h: Vec<f32> = (0..HIDDEN)
                .map(|j| {
                    (b1[j] + (0..PIXELS).map(|k| x[k] * w1[k * HIDDEN + j]).sum::<f32>()).tanh()
                })
                .collect();
            let scores: Vec<f32> = (0..CLASSES)
                .map(|c| b2[c] + (0..HIDDEN).map(|j| h[j] * w2[j * CLASSES + c]).sum::<f32>())
                .collect();
            let best = (0..CLASSES).fold(0, |b, c| if scores[c] > scores[b] { c } else { b });
            right += usize::from(best == labels[i] as usize);
        }
        println!(
            "test accuracy {:.1}% ({right}/{test})",
            100.0 * right as f64 / test as f64
        );
        if jax::process_count() == 1 {
            // The same steps unsplit on one device, for the time per step.
            let mut q = init(random::key(0));
            let mut one = Vec::new();
            for step in 0..steps {
                let (x, y) = batch(&pixels, &labels, step);
                let x: Array<f32, BATCH, PIXELS> = Array::from_vec(x)?;
                let y: Array<f32, BATCH, CLASSES> = Array::from_vec(y)?;
                let start = Instant::now();
                q = model::train_step_one_device(&q, &x, &y).0;
                one.push(start.elapsed().as_secs_f64());
            }
            let (t1, t2) = (median(one), median(times.clone()));
            println!(
                "median step: 1 device {:.1} µs, {WORKERS} devices {:.1} µs ({:.2}× the one-device speed)",
                t1 * 1e6,
                t2 * 1e6,
                t1 / t2
            );
        } else {
            println!("median step: {:.1} µs", median(times.clone()) * 1e6);
        }
    }
    if print_digest && leader {
        println!("digest {:016x}", digest(&p));
    }
    Ok(())
}
