//! The data pipeline of the MNIST examples ported to scikit-learn's 8×8
//! digits (`mnist_fromscratch`, `mnist_classifier`, `mnist_vae`), as their
//! JAX references run it (`tests/fixtures/gen/digits_split.py` is their
//! shared half): the keys `split_key, init_key,
//! stream_key = random.split(random.key(0), 3)`, a fixed split by
//! `random.permutation(split_key, 1797)` into 1408 training images (11
//! batches of 128) and 389 test images, a new shuffle of the training set
//! every epoch by `random.permutation` of a key split from the stream key,
//! and the accuracy of log-probabilities against one-hot targets.

#![allow(dead_code)] // each program uses its share

#[path = "../data/digits.rs"]
pub mod digits;

use jax::prelude::*;
use jax::random;

pub use digits::{IMAGES, PIXELS};

pub const CLASSES: usize = 10;
pub const BATCH: usize = 128;
pub const TRAIN: usize = 1408;
pub const TEST: usize = IMAGES - TRAIN;
pub const NUM_BATCHES: usize = TRAIN / BATCH;

/// The rows `idx` of the images, and their labels one-hot.
pub fn gather<const N: usize>(
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

/// The keys, the split into training and test sets, and the sets.
pub struct Data {
    pub pixels: Vec<f32>,
    pub labels: Vec<u8>,
    pub init_key: random::Key,
    pub stream_key: random::Key,
    pub train_idx: Vec<i32>,
    pub test_idx: Vec<i32>,
    pub train: (Array<f32, TRAIN, PIXELS>, Array<f32, TRAIN, CLASSES>),
    pub test: (Array<f32, TEST, PIXELS>, Array<f32, TEST, CLASSES>),
}

pub fn data() -> Data {
    let (pixels, labels) = digits::load();
    let [split_key, init_key, stream_key] = random::split(random::key(0));
    let order: Array<i32, IMAGES> = random::permutation(split_key);
    let order = order.to_vec();
    let (train_idx, test_idx) = order.split_at(TRAIN);
    let train = gather::<TRAIN>(&pixels, &labels, train_idx);
    let test = gather::<TEST>(&pixels, &labels, test_idx);
    Data {
        train_idx: train_idx.to_vec(),
        test_idx: test_idx.to_vec(),
        pixels,
        labels,
        init_key,
        stream_key,
        train,
        test,
    }
}

impl Data {
    /// An epoch's order of the training images, and the stream key after
    /// it (JAX's `data_stream`).
    pub fn shuffle(&self, stream_key: random::Key) -> (Vec<i32>, random::Key) {
        let [next, perm_key] = random::split(stream_key);
        let perm: Array<i32, TRAIN> = random::permutation(perm_key);
        let perm = perm
            .to_vec()
            .iter()
            .map(|&i| self.train_idx[i as usize])
            .collect();
        (perm, next)
    }

    /// The epoch's batches: its order cut into `NUM_BATCHES` batches.
    pub fn batches(
        &self,
        perm: &[i32],
    ) -> Vec<(Array<f32, BATCH, PIXELS>, Array<f32, BATCH, CLASSES>)> {
        perm.chunks_exact(BATCH)
            .take(NUM_BATCHES)
            .map(|idx| gather::<BATCH>(&self.pixels, &self.labels, idx))
            .collect()
    }
}

/// The fraction of the rows whose most likely class is the target's.
pub fn accuracy<const N: usize>(
    preds: &Array<f32, N, CLASSES>,
    targets: &Array<f32, N, CLASSES>,
) -> f32 {
    let argmax =
        |row: &[f32]| (0..row.len()).fold(0, |best, i| if row[i] > row[best] { i } else { best });
    let (preds, targets) = (preds.to_vec(), targets.to_vec());
    let right = preds
        .chunks_exact(CLASSES)
        .zip(targets.chunks_exact(CLASSES))
        .filter(|(p, t)| argmax(p) == argmax(t))
        .count();
    right as f32 / N as f32
}

/// Right answers out of the training and test sets (JAX's mean of a
/// bool array multiplies by `1 / N` in float32, where `accuracy`
/// divides: the same counts, not always the same bits).
pub fn counts((train, test): (f32, f32)) -> (u32, u32) {
    (
        (train * TRAIN as f32).round() as u32,
        (test * TEST as f32).round() as u32,
    )
}
