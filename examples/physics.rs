//! A pendulum integrated with `lax::scan`, its force `-grad(energy)` taken
//! by `jax::grad` inside the jitted step: leapfrog (velocity Verlet) keeps
//! the energy within a small bound over 10,000 steps.
//!
//! Run with `cargo run --release --example physics`.

use jax::prelude::*;

#[jax::jit]
mod pendulum {
    use jax::prelude::*;

    pub const STEPS: usize = 10_000;

    /// Potential energy of a unit pendulum (g = L = m = 1) at angle `theta`.
    pub fn potential(theta: Array<f64>) -> Array<f64> {
        -jnp::cos(theta)
    }

    /// `STEPS` velocity-Verlet steps of size `dt`; returns the final state
    /// and the total energy after each step.
    pub fn simulate(
        theta0: f64,
        omega0: f64,
        dt: f64,
    ) -> ((Array<f64>, Array<f64>), Array<f64, STEPS>) {
        let force = |theta: Array<f64>| -jax::grad(potential)(theta);
        lax::scan_with(
            |(theta, omega): (Array<f64>, Array<f64>), (): ()| {
                let half = &omega + force(theta.clone()) * (dt * 0.5);
                let theta = &theta + &half * dt;
                let omega = &half + force(theta.clone()) * (dt * 0.5);
                let energy = &omega * &omega * 0.5 + potential(theta.clone());
                ((theta, omega), energy)
            },
            (theta0, omega0),
            (),
            lax::ScanOptions {
                length: Some(STEPS),
                ..Default::default()
            },
        )
    }
}

use pendulum::{potential, simulate, STEPS};

fn main() {
    let (theta0, omega0, dt) = (2.0f64, 0.0f64, 1e-3);
    let e0 = 0.5 * omega0 * omega0 + potential(Array::from(theta0)).item();
    let ((theta, omega), energy) = simulate(theta0, omega0, dt);
    let energy = energy.to_vec();
    let drift = energy.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
    println!("pendulum from theta = {theta0}, {STEPS} steps of dt = {dt}");
    println!("initial energy {e0:.12}");
    println!("final energy   {:.12}", energy[STEPS - 1]);
    println!(
        "final state    theta = {:.6}, omega = {:.6}",
        theta.item(),
        omega.item()
    );
    println!(
        "largest |E - E0| over the run: {drift:.3e} (relative {:.3e})",
        drift / e0.abs()
    );
    assert!(drift / e0.abs() < 1e-5, "energy drifted by {drift}");
}
