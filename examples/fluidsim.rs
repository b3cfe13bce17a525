//! Fluid simulation, autograd's and JAX's fluidsim example: ten steps of
//! Stam's stable fluids on a 32×32 grid (advection by bilinear
//! interpolation, a projection by ten Jacobi iterations), written as the
//! Python original is (static `for` loops, unrolled), and the gradient of
//! the distance between the final smoke and a target with respect to the
//! initial velocities. The model is `fluidsim/model.rs`; the tests below
//! check it against JAX's run of the same program
//! (`tests/fixtures/gen/fluidsim.py`), and `cargo test` runs them: the
//! example is built as its own test (`test = true` in Cargo.toml), so the
//! unrolled model compiles once.
//!
//! Run with `cargo run --release --example fluidsim`.

#[path = "fluidsim/model.rs"]
mod model;

use jax::prelude::*;
use model::fluid;

#[path = "../benches/support/timing.rs"]
mod timing;

/// `--bench [--warmup=N --min-samples=N --max-samples=N --budget=S]`
/// times the simulation and its gradient instead (one JSON line each, as
/// `benches/compare.py` reads them, beside JAX's `jax.jit` of the same
/// functions).
#[cfg_attr(test, allow(dead_code))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--bench") {
        return bench(&timing::Timing::from_args(&args));
    }
    let [vx, vy, smoke, target] = model::inputs();
    let (loss, (gx, gy)) = fluid::loss_and_grad(vx, vy, smoke, target);
    println!(
        "{} steps on a {n}x{n} grid: loss {:.6}, gradient sums {:.6} {:.6}",
        fluid::STEPS,
        loss.item(),
        jnp::sum(&gx).item(),
        jnp::sum(&gy).item(),
        n = fluid::N,
    );
}

#[cfg_attr(test, allow(dead_code))]
fn bench(t: &timing::Timing) {
    use std::hint::black_box;
    let [vx, vy, smoke, target] = model::inputs();
    let s = t.run(|| {
        drop(black_box(fluid::simulate(
            black_box(vx.clone()),
            black_box(vy.clone()),
            black_box(smoke.clone()),
        )))
    });
    timing::report("fluidsim_simulate", t, s);
    let s = t.run(|| {
        drop(black_box(fluid::loss_and_grad(
            black_box(vx.clone()),
            black_box(vy.clone()),
            black_box(smoke.clone()),
            black_box(target.clone()),
        )))
    });
    timing::report("fluidsim_loss_and_grad", t, s);
}

/// Its JAX reference, for the tests.
#[cfg(all(test, not(feature = "x64")))]
#[path = "support/fixture.rs"]
mod fixture;

/// The example against JAX (`tests/fixtures/fluidsim.json`, made by
/// `tests/fixtures/gen/fluidsim.py` from autograd's fluidsim example): ten
/// unrolled steps, each three calls of `advect` and one of `project`,
/// compiled once each.
#[cfg(all(test, not(feature = "x64")))]
mod tests {
    use super::fixture::{self, bits, off};
    use super::model::{
        self,
        fluid::{self, N},
    };
    use jax::prelude::*;
    use serde_json::Value;

    fn field(v: &Value) -> Array<f32, N, N> {
        Array::from_vec(bits(v)).unwrap()
    }

    /// The example's inputs are the fixture's within two ulps: `sin` and `cos`
    /// of float32 are Rust's (`libm`) against NumPy's own.
    #[test]
    fn inputs_are_the_fixtures() {
        let fx = fixture::case("fluidsim");
        for (k, (got, want)) in model::inputs()
            .iter()
            .zip(fx["inputs"]["items"].as_array().unwrap())
            .enumerate()
        {
            for (g, w) in got.to_vec().iter().zip(bits(want)) {
                assert!(
                    g.to_bits().abs_diff(w.to_bits()) <= 2,
                    "input {k}: {g} against JAX's {w}"
                );
            }
        }
    }

    /// The simulation and its gradient are JAX's within float32 rounding: XLA
    /// fuses and reassociates across the unrolled program, so the sums differ
    /// in their last bits (measured: the gradients within 5e-7 and 1.1e-6 of
    /// their largest element), and no interpolation cell changes (a `floor`
    /// that differed would move a value by a whole cell's difference, far
    /// above these bounds).
    #[test]
    fn simulation_and_gradient_are_jaxs() {
        let fx = fixture::case("fluidsim");
        let items = fx["inputs"]["items"].as_array().unwrap().clone();
        let [vx, vy, smoke, target] = [0, 1, 2, 3].map(|k| field(&items[k]));
        let got = fluid::simulate(vx.clone(), vy.clone(), smoke.clone());
        let d = off(&got.to_vec(), &bits(&fx["smoke"]));
        assert!(d < 1e-4, "final smoke off by {d:e} of its range");
        let (loss, (gx, gy)) = fluid::loss_and_grad(vx, vy, smoke, target);
        let want = bits(&fx["loss"])[0];
        assert!(
            (loss.item() - want).abs() <= 1e-5 * want,
            "loss {} against JAX's {want}",
            loss.item()
        );
        let grads = fx["grad"]["items"].as_array().unwrap();
        for (name, g, w) in [("vx", &gx, &grads[0]), ("vy", &gy, &grads[1])] {
            let d = off(&g.to_vec(), &bits(w));
            assert!(
                d < 1e-5,
                "gradient wrt {name} off by {d:e} of its largest element"
            );
        }
    }
}
