//! The fluid simulation of autograd's and JAX's fluidsim example (Jos Stam,
//! "Real-Time Fluid Dynamics for Games"), written as that example writes it:
//! its Python loops are static `for` loops, unrolled when traced, and its
//! helpers are functions of the mod called once per step. The program is
//! `examples/fluidsim.rs`, which also holds its tests against JAX.

#[jax::jit]
pub mod fluid {
    use jax::prelude::*;

    /// The grid's side and the simulation's time steps.
    pub const N: usize = 32;
    pub const STEPS: usize = 10;

    /// The velocity field made approximately mass-conserving by ten
    /// Jacobi iterations of the pressure equation.
    pub fn project(
        vx: Array<f32, N, N>,
        vy: Array<f32, N, N>,
    ) -> (Array<f32, N, N>, Array<f32, N, N>) {
        let h = 1.0 / (N as f32);
        let div = (jnp::roll(&vx, -1, 0) - jnp::roll(&vx, 1, 0) + jnp::roll(&vy, -1, 1)
            - jnp::roll(&vy, 1, 1))
            * (-0.5 * h);
        let mut p = jnp::zeros_like(&vx);
        for _k in 0..10 {
            p = (&div
                + jnp::roll(&p, 1, 0)
                + jnp::roll(&p, -1, 0)
                + jnp::roll(&p, 1, 1)
                + jnp::roll(&p, -1, 1))
                / 4.0;
        }
        let vx = vx - (jnp::roll(&p, -1, 0) - jnp::roll(&p, 1, 0)) * 0.5 / h;
        let vy = vy - (jnp::roll(&p, -1, 1) - jnp::roll(&p, 1, 1)) * 0.5 / h;
        (vx, vy)
    }

    /// The field `f` moved along the velocities by an implicit Euler step:
    /// each cell reads the bilinear interpolation of the four cells around
    /// the point it came from, wrapping around the edges.
    pub fn advect(
        f: Array<f32, N, N>,
        vx: Array<f32, N, N>,
        vy: Array<f32, N, N>,
    ) -> Array<f32, N, N> {
        let (cell_ys, cell_xs) =
            jnp::meshgrid(Array::<f32, N>::arange(), Array::<f32, N>::arange());
        let center_xs = cell_xs - vx;
        let center_ys = cell_ys - vy;
        let left = jnp::floor(&center_xs);
        let top = jnp::floor(&center_ys);
        // Relative weights of the right-hand and bottom cells.
        let rw = &center_xs - &left;
        let bw = &center_ys - &top;
        let left_ix = jnp::remainder(left.astype::<i32>(), N as i32);
        let right_ix = jnp::remainder(&left_ix + 1, N as i32);
        let top_ix = jnp::remainder(top.astype::<i32>(), N as i32);
        let bot_ix = jnp::remainder(&top_ix + 1, N as i32);
        (1.0 - &rw)
            * ((1.0 - &bw) * f.at((&left_ix, &top_ix)).get()
                + &bw * f.at((&left_ix, &bot_ix)).get())
            + &rw
                * ((1.0 - &bw) * f.at((&right_ix, &top_ix)).get()
                    + &bw * f.at((&right_ix, &bot_ix)).get())
    }

    /// The smoke after `STEPS` steps of the fluid started at `(vx, vy)`.
    pub fn simulate(
        vx: Array<f32, N, N>,
        vy: Array<f32, N, N>,
        smoke: Array<f32, N, N>,
    ) -> Array<f32, N, N> {
        let mut vx = vx;
        let mut vy = vy;
        let mut smoke = smoke;
        for _t in 0..STEPS {
            let vx_updated = advect(vx.clone(), vx.clone(), vy.clone());
            let vy_updated = advect(vy.clone(), vx.clone(), vy.clone());
            let (x, y) = project(vx_updated, vy_updated);
            vx = x;
            vy = y;
            smoke = advect(smoke, vx.clone(), vy.clone());
        }
        smoke
    }

    /// How far the final smoke is from `target`: the mean squared distance.
    pub fn objective(
        vx: Array<f32, N, N>,
        vy: Array<f32, N, N>,
        smoke: Array<f32, N, N>,
        target: Array<f32, N, N>,
    ) -> Array<f32> {
        let final_smoke = simulate(vx, vy, smoke);
        jnp::mean((target - final_smoke).powi(2))
    }

    /// The objective and its gradient with respect to the initial
    /// velocities: what the example's optimizer calls each iteration.
    pub fn loss_and_grad(
        vx: Array<f32, N, N>,
        vy: Array<f32, N, N>,
        smoke: Array<f32, N, N>,
        target: Array<f32, N, N>,
    ) -> (Array<f32>, (Array<f32, N, N>, Array<f32, N, N>)) {
        jax::value_and_grad(objective, argnums = (0, 1))(vx, vy, smoke, target)
    }
}

use fluid::N;
use jax::prelude::*;

/// The example's inputs: a checkerboard of smoke, a disc as the target, and
/// smooth initial velocities (the same formulas as the fixture's generator).
pub fn inputs() -> [Array<f32, N, N>; 4] {
    let at =
        |f: fn(f32, f32) -> f32| Array::<f32, N, N>::from_fn(|k| f((k / N) as f32, (k % N) as f32));
    [
        at(|i, j| ((i + 2.0 * j) * 0.1).sin()),
        at(|i, j| ((2.0 * i + j) * 0.1).cos()),
        at(|i, j| f32::from(((i / 8.0).floor() + (j / 8.0).floor()) % 2.0 == 0.0)),
        at(|i, j| f32::from((i - 16.0).powi(2) + (j - 16.0).powi(2) < 64.0)),
    ]
}
