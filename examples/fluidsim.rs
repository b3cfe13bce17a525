//! Fluid simulation, autograd's and JAX's fluidsim example: ten steps of
//! Stam's stable fluids on a 32×32 grid (advection by bilinear
//! interpolation, a projection by ten Jacobi iterations), written as the
//! Python original is (static `for` loops, unrolled), and the gradient of
//! the distance between the final smoke and a target with respect to the
//! initial velocities. The model is `fluidsim/model.rs`;
//! `tests/transforms/fluidsim.rs` checks it against JAX's numbers.
//!
//! Run with `cargo run --release --example fluidsim`.

#[path = "fluidsim/model.rs"]
mod model;

use jax::prelude::*;
use model::fluid;

fn main() {
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
