//! Gaussian-process regression, JAX's `examples/gaussian_process_regression.py`
//! ported: seven noisy samples of `sin(x)` drawn with `jax::random` (the same
//! numbers as JAX's), a squared-exponential kernel, and the kernel's
//! amplitude, noise and lengthscale fitted by gradient descent on the
//! negative log marginal likelihood, computed in a `#[jax::jit]` function
//! through `jax::scipy::linalg::cholesky` and `solve_triangular` and
//! differentiated by its `::grad` companion. Prints the loss every 50 steps
//! as JAX's program does, then writes the posterior mean with a ±2σ band to
//! `gaussian_process.png`.
//!
//! Run with `cargo run --release --example gaussian_process`.
//! `tests/gaussian_process.rs` runs the same code (`gaussian_process/model.rs`)
//! against JAX's numbers.

#[path = "../benches/support/timing.rs"]
mod timing;

// The per-step records of `model::train` are read by the test, not here.
#[path = "gaussian_process/model.rs"]
#[allow(dead_code)]
mod model;

use model::{gp, NTEST, NUMPTS, STEPS};
use plotters::prelude::*;

fn plot(
    x: &[f32],
    y: &[f32],
    xtest: &[f32],
    mu: &[f32],
    std: &[f32],
) -> Result<(), Box<dyn std::error::Error>> {
    // A bundled font: text needs one, and the machine may have none.
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        include_bytes!("assets/DejaVuSans.ttf"),
    )
    .map_err(|_| "the bundled font did not load")?;
    let root = BitMapBackend::new("gaussian_process.png", (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let lo = mu
        .iter()
        .zip(std)
        .map(|(m, s)| m - 2.0 * s)
        .fold(f32::INFINITY, f32::min);
    let hi = mu
        .iter()
        .zip(std)
        .map(|(m, s)| m + 2.0 * s)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Gaussian-process regression: posterior mean ± 2σ",
            ("sans-serif", 24),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f32..6f32, lo.min(-1.5)..hi.max(1.5))?;
    chart
        .configure_mesh()
        .x_desc("x")
        .y_desc("y")
        .axis_desc_style(("sans-serif", 18))
        .draw()?;
    // The band: the upper edge left to right, then the lower edge back.
    let band: Vec<(f32, f32)> = (0..NTEST)
        .map(|i| (xtest[i], mu[i] + 2.0 * std[i]))
        .chain((0..NTEST).rev().map(|i| (xtest[i], mu[i] - 2.0 * std[i])))
        .collect();
    chart
        .draw_series(std::iter::once(Polygon::new(band, BLUE.mix(0.2).filled())))?
        .label("mean ± 2σ")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 15, y + 5)], BLUE.mix(0.2).filled()));
    chart
        .draw_series(LineSeries::new(
            xtest.iter().zip(mu).map(|(&x, &m)| (x, m)),
            BLUE.stroke_width(2),
        ))?
        .label("posterior mean")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 15, y)], BLUE.stroke_width(2)));
    chart
        .draw_series(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| Circle::new((x, y), 4, BLACK.filled())),
        )?
        .label("training data")
        .legend(|(x, y)| Circle::new((x + 7, y), 4, BLACK.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .label_font(("sans-serif", 16))
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--bench") {
        return bench(&timing::Timing::from_args(&args));
    }
    let (x, y, xtest) = model::data();
    println!("{NUMPTS} training points of sin(x) + noise, {NTEST} test points on [0, 6]");
    let p = model::train(&x, &y, STEPS, |s, p| {
        if s.step % 50 == 0 {
            let ml = gp::neg_marginal_likelihood(p, &x, &y).item();
            println!("Step: {}, neg marginal likelihood: {ml:.6}", s.step);
        }
    });
    println!(
        "{{'amplitude': {:?}, 'noise': {:?}, 'lengthscale': {:?}}}",
        p.amplitude, p.noise, p.lengthscale
    );
    let (mu, std) = model::predictions(&p, &x, &y, &xtest);
    plot(&x.to_vec(), &y.to_vec(), &xtest.to_vec(), &mu, &std).expect("the plot is written");
    println!("wrote gaussian_process.png");
}

/// The training step's jitted part, as JAX's program jits it: the gradient
/// of the negative marginal likelihood at the initial parameters.
fn bench(t: &timing::Timing) {
    use std::hint::black_box;
    let (x, y, _) = model::data();
    let p = model::initial_params();
    let s = t.run(|| {
        drop(black_box(gp::neg_marginal_likelihood::grad(
            black_box(&p),
            black_box(&x),
            black_box(&y),
        )))
    });
    timing::report("gaussian_process_grad", t, s);
}
