//! A small convolutional network trained on real handwritten digits:
//! scikit-learn's 8×8 digits (1797 images, 10 classes;
//! `examples/data/gen_digits.py` wrote `examples/data/digits.bin`, its
//! origin and licence are there). Two `conv → relu → max_pool` blocks
//! (`lax::conv_general_dilated` in NHWC/HWIO, flax's `nn::max_pool`) and a
//! dense layer, trained with adam (`jax::optim`); each step (loss,
//! gradient through the convolutions and the pools, adam's update) is one
//! jitted function. Shows a progress bar, prints each epoch's loss and
//! test accuracy and the test set's confusion matrix, and writes the loss
//! and accuracy per epoch to `digits_cnn.png`.
//!
//! Run with `cargo run --release --example digits_cnn`.

#[path = "data/digits.rs"]
mod digits;

use jax::optim::{self, GradientTransformation};
use jax::prelude::*;
use jax::random;
use plotters::prelude::*;

use digits::IMAGES;
/// 24 batches of 64 train; the other 261 images test.
const TRAIN: usize = 1536;
const TEST: usize = IMAGES - TRAIN;
const EPOCHS: usize = 30;

#[jax::jit]
mod model {
    use jax::nn;
    use jax::optim;
    use jax::prelude::*;

    pub const BATCH: usize = 64;
    pub const SIDE: usize = 8;
    pub const CLASSES: usize = 10;
    pub const LEARNING_RATE: f32 = 0.003;

    /// Two 3×3 convolutions (1 → 32 → 64 features) and a dense layer.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, 3, 3, 1, 32>,
        pub b1: Array<f32, 32>,
        pub w2: Array<f32, 3, 3, 32, 64>,
        pub b2: Array<f32, 64>,
        pub w3: Array<f32, 256, CLASSES>,
        pub b3: Array<f32, CLASSES>,
    }

    /// The class scores of a batch of `(batch, height, width, 1)` images.
    pub fn logits(p: &Params, x: &Array<f32, BATCH, SIDE, SIDE, 1>) -> Array<f32, BATCH, CLASSES> {
        let nhwc = Some(("NHWC", "HWIO", "NHWC"));
        let h: Array<f32, BATCH, 8, 8, 32> =
            lax::conv_general_dilated(x, &p.w1, &[1, 1], "SAME", None, None, nhwc, 1);
        let h = nn::relu(h + &p.b1);
        let h: Array<f32, BATCH, 4, 4, 32> = nn::max_pool(&h, &[2, 2], Some(&[2, 2]), "VALID");
        let h: Array<f32, BATCH, 4, 4, 64> =
            lax::conv_general_dilated(&h, &p.w2, &[1, 1], "SAME", None, None, nhwc, 1);
        let h = nn::relu(h + &p.b2);
        let h: Array<f32, BATCH, 2, 2, 64> = nn::max_pool(&h, &[2, 2], Some(&[2, 2]), "VALID");
        let h: Array<f32, BATCH, 256> = h.reshape();
        h.matmul(&p.w3) + &p.b3
    }

    /// Softmax cross-entropy against one-hot labels.
    pub fn loss(
        p: &Params,
        x: &Array<f32, BATCH, SIDE, SIDE, 1>,
        y: &Array<f32, BATCH, CLASSES>,
    ) -> Array<f32> {
        let logp = jnp::log_softmax(logits(p, x), -1);
        -jnp::mean(jnp::sum_axis(logp * y, -1, false))
    }

    /// One training step, compiled whole; the parameters and adam's state
    /// are taken by value and their buffers reused.
    pub fn update(
        p: Params,
        s: optim::AdamState<Params>,
        x: &Array<f32, BATCH, SIDE, SIDE, 1>,
        y: &Array<f32, BATCH, CLASSES>,
    ) -> (Params, optim::AdamState<Params>, Array<f32>) {
        let (l, g) = jax::value_and_grad(loss)(&p, x, y);
        let (updates, s) = optim::adam(LEARNING_RATE).update(&g, s, &p);
        (optim::apply_updates(&p, &updates), s, l)
    }
}

use model::{Params, BATCH, CLASSES, SIDE};

const PIXELS: usize = SIDE * SIDE;

/// He-normal weights (variance 2 / fan-in), zero biases.
fn init(key: random::Key) -> Params {
    let [k1, k2, k3] = random::split(key);
    let he = |fan_in: usize| (2.0 / fan_in as f32).sqrt();
    Params {
        w1: random::normal::<Array<f32, 3, 3, 1, 32>>(k1) * he(9),
        b1: Array::full(0.0),
        w2: random::normal::<Array<f32, 3, 3, 32, 64>>(k2) * he(9 * 32),
        b2: Array::full(0.0),
        w3: random::normal::<Array<f32, 256, CLASSES>>(k3) * he(256),
        b3: Array::full(0.0),
    }
}

/// A batch of the images `idx` (padded with blank images to `BATCH`) and
/// their one-hot labels.
fn batch(
    pixels: &[f32],
    labels: &[u8],
    idx: &[usize],
) -> (Array<f32, BATCH, SIDE, SIDE, 1>, Array<f32, BATCH, CLASSES>) {
    let mut x = vec![0.0; BATCH * PIXELS];
    let mut y = vec![0.0; BATCH * CLASSES];
    for (row, &i) in idx.iter().enumerate() {
        x[row * PIXELS..(row + 1) * PIXELS].copy_from_slice(&pixels[i * PIXELS..(i + 1) * PIXELS]);
        y[row * CLASSES + labels[i] as usize] = 1.0;
    }
    (
        Array::from_vec(x).expect("BATCH images"),
        Array::from_vec(y).expect("BATCH one-hot rows"),
    )
}

/// The predicted class of each image `idx`, a batch at a time.
fn predict(p: &Params, pixels: &[f32], labels: &[u8], idx: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(idx.len());
    for chunk in idx.chunks(BATCH) {
        let (x, _) = batch(pixels, labels, chunk);
        let scores = model::logits(p, &x).to_vec();
        out.extend(
            scores.chunks_exact(CLASSES).take(chunk.len()).map(|row| {
                (0..CLASSES).fold(0, |best, c| if row[c] > row[best] { c } else { best })
            }),
        );
    }
    out
}

/// Loss and test accuracy per epoch, side by side.
fn plot(losses: &[f32], accuracies: &[f32]) -> Result<(), Box<dyn std::error::Error>> {
    // A bundled font: text needs one, and the machine may have none.
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        include_bytes!("assets/DejaVuSans.ttf"),
    )
    .map_err(|_| "the bundled font did not load")?;
    let root = BitMapBackend::new("digits_cnn.png", (1100, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(550);
    let epochs = 1..losses.len() + 1;
    let top = losses.iter().cloned().fold(0.0f32, f32::max);
    let mut chart = ChartBuilder::on(&left)
        .caption("training loss", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(epochs.clone(), 0f32..top * 1.05)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("mean cross-entropy")
        .draw()?;
    chart.draw_series(LineSeries::new(
        losses.iter().enumerate().map(|(i, &l)| (i + 1, l)),
        &BLUE,
    ))?;
    let bottom = accuracies.iter().cloned().fold(1.0f32, f32::min);
    let mut chart = ChartBuilder::on(&right)
        .caption("test accuracy", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(epochs, (bottom - 0.02).max(0.0)..1.0f32)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("fraction right")
        .draw()?;
    chart.draw_series(LineSeries::new(
        accuracies.iter().enumerate().map(|(i, &a)| (i + 1, a)),
        &RED,
    ))?;
    root.present()?;
    Ok(())
}

fn main() {
    let (pixels, labels) = digits::load();
    let [split_key, init_key, mut stream_key] = random::split(random::key(0));
    let order: Array<i32, IMAGES> = random::permutation(split_key);
    let order: Vec<usize> = order.to_vec().iter().map(|&i| i as usize).collect();
    let (train_idx, test_idx) = order.split_at(TRAIN);
    println!(
        "8x8 digits: {TRAIN} training, {TEST} test images; conv 3x3 1->32, pool, conv 3x3 32->64, pool, dense 256->{CLASSES}"
    );

    let mut params = init(init_key);
    let mut state = optim::adam(model::LEARNING_RATE).init(&params);
    let steps = TRAIN / BATCH;
    let bar = indicatif::ProgressBar::new((EPOCHS * steps) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {msg}")
            .expect("a valid template"),
    );
    let (mut losses, mut accuracies) = (Vec::new(), Vec::new());
    for epoch in 1..=EPOCHS {
        // A new shuffle of the training set every epoch.
        let [next, perm_key] = random::split(stream_key);
        stream_key = next;
        let perm: Array<i32, TRAIN> = random::permutation(perm_key);
        let perm: Vec<usize> = perm
            .to_vec()
            .iter()
            .map(|&i| train_idx[i as usize])
            .collect();
        let mut total = 0.0;
        for idx in perm.chunks_exact(BATCH) {
            let (x, y) = batch(&pixels, &labels, idx);
            let (p, s, l) = model::update(params, state, &x, &y);
            (params, state) = (p, s);
            total += l.item();
            bar.inc(1);
        }
        let predicted = predict(&params, &pixels, &labels, test_idx);
        let right = predicted
            .iter()
            .zip(test_idx)
            .filter(|&(&p, &i)| p == labels[i] as usize)
            .count();
        losses.push(total / steps as f32);
        accuracies.push(right as f32 / TEST as f32);
        bar.println(format!(
            "epoch {epoch:2}: loss {:.4}, test accuracy {:.1} %",
            losses[epoch - 1],
            100.0 * accuracies[epoch - 1]
        ));
        bar.set_message(format!("epoch {epoch}, loss {:.4}", losses[epoch - 1]));
    }
    bar.finish();

    let predicted = predict(&params, &pixels, &labels, test_idx);
    let mut confusion = [[0usize; CLASSES]; CLASSES];
    for (&p, &i) in predicted.iter().zip(test_idx) {
        confusion[labels[i] as usize][p] += 1;
    }
    println!("\nconfusion matrix of the test set (rows: true digit, columns: predicted)");
    println!(
        "     {}",
        (0..CLASSES).map(|c| format!("{c:>4}")).collect::<String>()
    );
    for (digit, row) in confusion.iter().enumerate() {
        println!(
            "  {digit}: {}",
            row.iter().map(|n| format!("{n:>4}")).collect::<String>()
        );
    }
    let accuracy = accuracies[EPOCHS - 1];
    println!("test accuracy {:.1} %", 100.0 * accuracy);
    plot(&losses, &accuracies).expect("the plot is written");
    println!("wrote digits_cnn.png");
    assert!(accuracy >= 0.97, "test accuracy {accuracy}");
}
