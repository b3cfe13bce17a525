//! Trains a two-layer MLP with adam (`jax::optim`, optax's numbers) on two
//! interleaved spirals (2,000 points made with `jax::random`): the
//! parameters are a pytree struct, and each training step (loss, gradient,
//! adam's update, the new parameters) is one jitted function that takes the
//! parameters and the optimizer state by value and writes over them in
//! place. Shows a progress bar with the loss and writes the loss curve to
//! `mlp_loss.png`.
//!
//! Run with `cargo run --release --example mlp`.

use jax::optim::{self, GradientTransformation};
use jax::prelude::*;
use jax::random;
use plotters::prelude::*;

const N: usize = 2000;
const STEPS: usize = 2000;

#[jax::jit]
mod model {
    use jax::optim;
    use jax::prelude::*;

    pub const POINTS: usize = 2000;
    pub const HIDDEN: usize = 128;
    /// adam's step size.
    pub const LEARNING_RATE: f32 = 0.01;

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

    /// Softmax cross-entropy against one-hot labels.
    pub fn loss(p: &Params, x: &Array<f32, POINTS, 2>, y: &Array<f32, POINTS, 2>) -> Array<f32> {
        let logp = jnp::log_softmax(logits(p, x), -1);
        -jnp::mean(jnp::sum_axis(logp * y, -1, false))
    }

    /// One training step as one compiled program: the loss and its
    /// gradient, adam's update, the parameters moved. `p` and `s` are taken
    /// by value, so their buffers are reused for the new ones (JAX's
    /// `donate_argnums`).
    pub fn update(
        p: Params,
        s: optim::AdamState<Params>,
        x: &Array<f32, POINTS, 2>,
        y: &Array<f32, POINTS, 2>,
    ) -> (Params, optim::AdamState<Params>, Array<f32>) {
        let (l, g) = jax::value_and_grad(loss)(&p, x, y);
        let (updates, s) = optim::adam(LEARNING_RATE).update(&g, s, &p);
        (optim::apply_updates(&p, &updates), s, l)
    }
}

use model::Params;

/// Two spirals, 1.5 turns each, with a little noise: points and one-hot labels.
fn spirals(key: random::Key) -> (Array<f32, N, 2>, Array<f32, N, 2>, Vec<usize>) {
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
    (
        Array::from_vec(x).unwrap(),
        Array::from_vec(y).unwrap(),
        class,
    )
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

fn plot(losses: &[f32]) -> Result<(), Box<dyn std::error::Error>> {
    // A bundled font: text needs one, and the machine may have none.
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        include_bytes!("assets/DejaVuSans.ttf"),
    )
    .map_err(|_| "the bundled font did not load")?;
    let root = BitMapBackend::new("mlp_loss.png", (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = losses.iter().cloned().fold(0.0f32, f32::max);
    let mut chart = ChartBuilder::on(&root)
        .caption("MLP on two spirals: training loss", ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0usize..losses.len(), 0f32..top * 1.05)?;
    chart
        .configure_mesh()
        .x_desc("adam step")
        .y_desc("softmax cross-entropy")
        .axis_desc_style(("sans-serif", 18))
        .draw()?;
    chart.draw_series(LineSeries::new(
        losses.iter().enumerate().map(|(i, &l)| (i, l)),
        &BLUE,
    ))?;
    root.present()?;
    Ok(())
}

fn main() {
    let [data_key, init_key] = random::split(random::key(0));
    let (x, y, class) = spirals(data_key);
    let mut p = init(init_key);
    println!(
        "two spirals, {N} points; MLP 2 -> {} -> 2, tanh",
        model::HIDDEN
    );
    println!(
        "accuracy before training: {:.1} %",
        100.0 * accuracy(&p, &x, &class)
    );

    let bar = indicatif::ProgressBar::new(STEPS as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps, loss {msg}")
            .expect("a valid template"),
    );
    let mut losses = Vec::with_capacity(STEPS);
    let mut state = optim::adam(model::LEARNING_RATE).init(&p);
    for step in 0..STEPS {
        let (p2, s2, l) = model::update(p, state, &x, &y);
        (p, state) = (p2, s2);
        let l = l.item();
        losses.push(l);
        if step % 50 == 0 {
            bar.set_message(format!("{l:.4}"));
        }
        bar.inc(1);
    }
    bar.finish_with_message(format!("{:.4}", losses[STEPS - 1]));
    let acc = accuracy(&p, &x, &class);
    println!(
        "final loss {:.4}, training accuracy {:.1} %",
        losses[STEPS - 1],
        100.0 * acc
    );
    plot(&losses).expect("the plot is written");
    println!("wrote mlp_loss.png");
    assert!(acc >= 0.95, "accuracy {acc}");
}
