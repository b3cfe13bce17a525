//! JAX's `examples/mnist_classifier_fromscratch.py`, ported: an MLP with
//! tanh hidden layers built from scratch (`init_random_params`, `predict`,
//! `loss`, `accuracy`), trained by plain SGD in one jitted `update` step,
//! epoch after epoch over shuffled minibatches, printing the epoch's time
//! and the training and test accuracy as JAX's example does. The trained
//! parameters are saved to `mnist_params.safetensors`.
//!
//! The data are scikit-learn's 8×8 handwritten digits (1797 images, 10
//! classes; `examples/data/gen_digits.py` wrote `examples/data/digits.bin`,
//! its origin and licence are there) rather than MNIST's 28×28, so the
//! input layer has 64 units. A fixed shuffle puts 1408 images (11 batches
//! of 128) in the training set and the other 389 in the test set.
//!
//! Run with `cargo run --release --example mnist_fromscratch`.

#[path = "data/digits.rs"]
mod digits;

use std::time::Instant;

use jax::prelude::*;
use jax::random;

const PARAM_SCALE: f32 = 0.1;
/// Larger than JAX's 0.001: JAX's example makes 4690 steps on MNIST, this
/// one 110 on a set 33 times smaller.
const STEP_SIZE: f32 = 0.1;
const NUM_EPOCHS: usize = 10;
const TRAIN: usize = 1408;
const TEST: usize = IMAGES - TRAIN;
use digits::IMAGES;
const NUM_BATCHES: usize = TRAIN / model::BATCH;

#[jax::jit]
mod model {
    use jax::prelude::*;

    pub const BATCH: usize = 128;
    pub const PIXELS: usize = 64;
    pub const HIDDEN: usize = 1024;
    pub const CLASSES: usize = 10;

    /// `layer_sizes = [64, 1024, 1024, 10]`: JAX's list of `(w, b)` pairs,
    /// one field each.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, PIXELS, HIDDEN>,
        pub b1: Array<f32, HIDDEN>,
        pub w2: Array<f32, HIDDEN, HIDDEN>,
        pub b2: Array<f32, HIDDEN>,
        pub w3: Array<f32, HIDDEN, CLASSES>,
        pub b3: Array<f32, CLASSES>,
    }

    /// Log-probabilities of the classes: tanh layers, then the logits
    /// normalized by their `logsumexp`.
    pub fn predict(p: &Params, inputs: &Array<f32, BATCH, PIXELS>) -> Array<f32, BATCH, CLASSES> {
        let activations = jnp::tanh(jnp::dot(inputs, &p.w1) + &p.b1);
        let activations = jnp::tanh(jnp::dot(&activations, &p.w2) + &p.b2);
        let logits = jnp::dot(&activations, &p.w3) + &p.b3;
        &logits - jax::scipy::special::logsumexp(&logits, 1, true)
    }

    /// The mean cross-entropy of a batch against one-hot targets.
    pub fn loss(
        p: &Params,
        inputs: &Array<f32, BATCH, PIXELS>,
        targets: &Array<f32, BATCH, CLASSES>,
    ) -> Array<f32> {
        let preds = predict(p, inputs);
        -jnp::mean(jnp::sum_axis(preds * targets, 1, false))
    }

    /// One SGD step, `w - step_size * dw` on every leaf (`jax::tree::map`,
    /// unrolled over the six arrays), jitted whole; `p` is taken by value,
    /// so the new parameters are written over the old ones.
    pub fn update(
        p: Params,
        inputs: &Array<f32, BATCH, PIXELS>,
        targets: &Array<f32, BATCH, CLASSES>,
        step_size: f32,
    ) -> Params {
        let g = jax::grad(loss)(&p, inputs, targets);
        jax::tree::map(|w, dw| w - step_size * dw, &p, &g)
    }
}

use model::{Params, BATCH, CLASSES, PIXELS};

/// `predict` for any number of rows, eagerly: JAX's example calls it
/// unjitted from `accuracy` on the whole training and test sets. (The
/// jitted `model::predict` has the batch's fixed shape: a generic function
/// in a `#[jax::jit] mod` does not compile yet.)
fn predict<const N: usize>(p: &Params, inputs: &Array<f32, N, PIXELS>) -> Array<f32, N, CLASSES> {
    let activations = jnp::tanh(inputs.matmul(&p.w1) + &p.b1);
    let activations = jnp::tanh(activations.matmul(&p.w2) + &p.b2);
    let logits = activations.matmul(&p.w3) + &p.b3;
    let norm: Array<f32, N, 1> = jax::scipy::special::logsumexp(&logits, 1, true);
    logits - norm
}

/// The fraction of the rows whose most likely class is the target's.
fn accuracy<const N: usize>(
    p: &Params,
    inputs: &Array<f32, N, PIXELS>,
    targets: &Array<f32, N, CLASSES>,
) -> f32 {
    let argmax =
        |row: &[f32]| (0..row.len()).fold(0, |best, i| if row[i] > row[best] { i } else { best });
    let (preds, targets) = (predict(p, inputs).to_vec(), targets.to_vec());
    let right = preds
        .chunks_exact(CLASSES)
        .zip(targets.chunks_exact(CLASSES))
        .filter(|(p, t)| argmax(p) == argmax(t))
        .count();
    right as f32 / N as f32
}

/// `scale * rng.randn(m, n)` for every weight and bias.
fn init_random_params(scale: f32, key: random::Key) -> Params {
    let k: [random::Key; 6] = random::split(key);
    Params {
        w1: random::normal::<Array<f32, PIXELS, { model::HIDDEN }>>(k[0]) * scale,
        b1: random::normal::<Array<f32, { model::HIDDEN }>>(k[1]) * scale,
        w2: random::normal::<Array<f32, { model::HIDDEN }, { model::HIDDEN }>>(k[2]) * scale,
        b2: random::normal::<Array<f32, { model::HIDDEN }>>(k[3]) * scale,
        w3: random::normal::<Array<f32, { model::HIDDEN }, CLASSES>>(k[4]) * scale,
        b3: random::normal::<Array<f32, CLASSES>>(k[5]) * scale,
    }
}

/// The rows `idx` of the images, and their labels one-hot.
fn gather<const N: usize>(
    pixels: &[f32],
    labels: &[u8],
    idx: &[i32],
) -> (Array<f32, N, PIXELS>, Array<f32, N, CLASSES>) {
    let mut x = Vec::with_capacity(N * PIXELS);
    let mut y = vec![0.0; N * CLASSES];
    for (row, &i) in idx.iter().enumerate() {
        let i = i as usize;
        x.extend_from_slice(&pixels[i * PIXELS..(i + 1) * PIXELS]);
        y[row * CLASSES + labels[i] as usize] = 1.0;
    }
    (
        Array::from_vec(x).expect("N rows of pixels"),
        Array::from_vec(y).expect("N one-hot rows"),
    )
}

fn main() {
    let (pixels, labels) = digits::load();
    let [split_key, init_key, mut stream_key] = random::split(random::key(0));
    let order: Array<i32, IMAGES> = random::permutation(split_key);
    let order = order.to_vec();
    let (train_idx, test_idx) = order.split_at(TRAIN);
    let (train_images, train_labels) = gather::<TRAIN>(&pixels, &labels, train_idx);
    let (test_images, test_labels) = gather::<TEST>(&pixels, &labels, test_idx);
    println!(
        "8x8 digits: {TRAIN} training, {TEST} test images; MLP {PIXELS}-{h}-{h}-{CLASSES}, tanh",
        h = model::HIDDEN
    );

    let mut params = init_random_params(PARAM_SCALE, init_key);
    let mut test_acc = 0.0;
    for epoch in 0..NUM_EPOCHS {
        let start = Instant::now();
        // A new shuffle of the training set every epoch, as JAX's data_stream.
        let [next, perm_key] = random::split(stream_key);
        stream_key = next;
        let perm: Array<i32, TRAIN> = random::permutation(perm_key);
        let perm: Vec<i32> = perm
            .to_vec()
            .iter()
            .map(|&i| train_idx[i as usize])
            .collect();
        for batch_idx in perm.chunks_exact(BATCH).take(NUM_BATCHES) {
            let (x, y) = gather::<BATCH>(&pixels, &labels, batch_idx);
            params = model::update(params, &x, &y, STEP_SIZE);
        }
        let epoch_time = start.elapsed().as_secs_f64();
        let train_acc = accuracy(&params, &train_images, &train_labels);
        test_acc = accuracy(&params, &test_images, &test_labels);
        println!("Epoch {epoch} in {epoch_time:0.2} sec");
        println!("Training set accuracy {train_acc}");
        println!("Test set accuracy {test_acc}");
    }
    assert!(test_acc > 0.9, "test accuracy {test_acc}");
    // The trained parameters as a safetensors file (tensors `w1`, `b1`, ..),
    // which Python's `safetensors.numpy.load_file` reads back.
    jax::tree::save_safetensors(&params, "mnist_params.safetensors")
        .expect("the parameters are written");
    let back: Params = jax::tree::load_safetensors("mnist_params.safetensors", &params)
        .expect("the parameters read back");
    assert_eq!(back.w1, params.w1);
    println!("wrote mnist_params.safetensors");
}
