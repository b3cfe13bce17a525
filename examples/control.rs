//! Model-predictive non-linear control, JAX's `examples/control.py` ported:
//! iLQR (the cost's second-order and the dynamics' first-order expansion
//! around the current trajectory, by `jacfwd` of `grad` `vmap`ped over the
//! time steps; a backward Riccati pass with `linalg::solve`; a forward pass)
//! and MPC, which runs iLQR at every step of the horizon and applies its
//! first control. The problem is the non-linear one of JAX's
//! `examples/control_test.py`: cost `(x₀² + 10⁻³ u₀²) / (t + 1)`, dynamics
//! `(x² − u²) / (t + 1)`, horizon 10. JAX's loops are `lax.fori_loop`s, and
//! they are here too.
//!
//! The tests below check both against JAX's run of the same program
//! (`tests/fixtures/gen/control.py`); `cargo test` runs them (the example
//! is built as its own test, `test = true` in Cargo.toml).
//!
//! Run with `cargo run --release --example control`.

#[path = "../benches/support/timing.rs"]
mod timing;

use jax::prelude::*;

#[jax::jit]
pub mod control {
    use jax::prelude::*;

    /// The horizon, the state's and the control's size, iLQR's iterations.
    pub const T: usize = 10;
    pub const D: usize = 1;
    pub const ITERATIONS: i32 = 7;

    /// The linearized problem around a trajectory, per time step (JAX's
    /// `LqrSpec`: `Q`, `q`, `R`, `r`, `M`, `A`, `B`); `Q` and `q` have a
    /// step more than the rest.
    #[derive(Clone)]
    pub struct Lqr {
        pub q2: Array<f32, 11, D, D>,
        pub q1: Array<f32, 11, D>,
        pub r2: Array<f32, T, D, D>,
        pub r1: Array<f32, T, D>,
        pub m: Array<f32, T, D, D>,
        pub a: Array<f32, T, D, D>,
        pub b: Array<f32, T, D, D>,
    }

    /// The cost of state `x` and control `u` at step `t`.
    pub fn cost(t: Array<i32>, x: Array<f32, D>, u: Array<f32, D>) -> Array<f32> {
        (jnp::power(x.at(0).get(), 2.0) + 1e-3 * jnp::power(u.at(0).get(), 2.0))
            / (t + 1).astype::<f32>()
    }

    /// The state after `x` under control `u` at step `t`.
    pub fn dynamics(t: Array<i32>, x: Array<f32, D>, u: Array<f32, D>) -> Array<f32, D> {
        (jnp::power(x, 2.0) - jnp::power(u, 2.0)) / (t + 1).astype::<f32>()
    }

    /// `X[t + 1] = dynamics(t0 + t, X[t], U[t])` from `X[0] = x0`.
    pub fn trajectory(
        t0: Array<i32>,
        u: &Array<f32, T, D>,
        x0: Array<f32, D>,
    ) -> Array<f32, 11, D> {
        let x = Array::<f32, 11, D>::zeros().at(0).set(x0);
        lax::fori_loop(
            0,
            T as i32,
            |t, x: Array<f32, 11, D>| {
                let next = dynamics(&t0 + t, x.at(t).get(), u.at(t).get());
                x.at(t + 1).set(next)
            },
            x,
        )
    }

    /// The expansion at one step: `Q`, `q`, `R`, `r`, `M`, `A`, `B`.
    #[allow(clippy::type_complexity)]
    fn approx_timestep(
        t: Array<i32>,
        x: Array<f32, D>,
        u: Array<f32, D>,
    ) -> (
        Array<f32, D, D>,
        Array<f32, D>,
        Array<f32, D, D>,
        Array<f32, D>,
        Array<f32, D, D>,
        Array<f32, D, D>,
        Array<f32, D, D>,
    ) {
        let m = jax::jacfwd(jax::grad(cost, argnums = 2), argnums = 1)(&t, &x, &u).t();
        let q2 = jax::jacfwd(jax::grad(cost, argnums = 1), argnums = 1)(&t, &x, &u);
        let r2 = jax::jacfwd(jax::grad(cost, argnums = 2), argnums = 2)(&t, &x, &u);
        let (q1, r1) = jax::grad(cost, argnums = (1, 2))(&t, &x, &u);
        let (a, b) = jax::jacfwd(dynamics, argnums = (1, 2))(&t, &x, &u);
        (q2, q1, r2, r1, m, a, b)
    }

    /// The linearized problem around `(X, U)`, times shifted by `t0`.
    pub fn lqr_approx(t0: Array<i32>, x: &Array<f32, 11, D>, u: &Array<f32, T, D>) -> Lqr {
        let u_pad = jnp::vstack((u, Array::<f32, 1, D>::zeros()));
        let ts = Array::<i32, 11>::arange() + t0;
        let (q2, q1, r2, r1, m, a, b) = jax::vmap(approx_timestep)(ts, x, u_pad);
        Lqr {
            q2,
            q1,
            r2: r2.slice(s![..T]),
            r1: r1.slice(s![..T]),
            m: m.slice(s![..T]),
            a: a.slice(s![..T]),
            b: b.slice(s![..T]),
        }
    }

    /// The feedback gains `K` and offsets `k` of the backward pass.
    pub fn lqr_solve(spec: &Lqr) -> (Array<f32, T, D, D>, Array<f32, T, D>) {
        let eye = Array::<f32, D, D>::eye() * 1e-7;
        let init = (
            spec.q2.at(T).get(),
            spec.q1.at(T).get(),
            Array::<f32, T, D, D>::zeros(),
            Array::<f32, T, D>::zeros(),
        );
        let (_, _, gains, offsets) = lax::fori_loop(
            0,
            T as i32,
            |t_,
             (p2, p1, gains, offsets): (
                Array<f32, D, D>,
                Array<f32, D>,
                Array<f32, T, D, D>,
                Array<f32, T, D>,
            )| {
                let t = (T as i32) - t_ - 1;
                let (a, b) = (spec.a.at(&t).get(), spec.b.at(&t).get());
                let atp = a.t().matmul(&p2);
                let btp = b.t().matmul(&p2);
                let g = spec.r2.at(&t).get() + btp.matmul(&b);
                let h = btp.matmul(&a) + spec.m.at(&t).get().t();
                let hv = spec.r1.at(&t).get() + b.t().matmul(&p1);
                let k2 = -jnp::linalg::solve(&(&g + &eye), &h);
                let k1 = -jnp::linalg::solve(&(&g + &eye), &hv);
                let p2 = spec.q2.at(&t).get() + atp.matmul(&a) + k2.t().matmul(&h);
                let p1 = spec.q1.at(&t).get() + a.t().matmul(&p1) + k2.t().matmul(&hv);
                (p2, p1, gains.at(&t).set(k2), offsets.at(&t).set(k1))
            },
            init,
        );
        (gains, offsets)
    }

    /// The trajectory and controls of the linearized problem from `x0`.
    pub fn lqr_predict(spec: &Lqr, x0: Array<f32, D>) -> (Array<f32, 11, D>, Array<f32, T, D>) {
        let (gains, offsets) = lqr_solve(spec);
        let x = Array::<f32, 11, D>::zeros().at(0).set(x0);
        lax::fori_loop(
            0,
            T as i32,
            |t, (x, u): (Array<f32, 11, D>, Array<f32, T, D>)| {
                let xt = x.at(t).get();
                let ut = gains.at(t).get().matmul(&xt) + offsets.at(t).get();
                let next = spec.a.at(t).get().matmul(&xt) + spec.b.at(t).get().matmul(&ut);
                (x.at(t + 1).set(next), u.at(t).set(ut))
            },
            (x, Array::<f32, T, D>::zeros()),
        )
    }

    /// iLQR from `x0` and the controls `u`, times shifted by `t0`.
    pub fn ilqr_from(
        t0: Array<i32>,
        x0: Array<f32, D>,
        u: Array<f32, T, D>,
    ) -> (Array<f32, 11, D>, Array<f32, T, D>) {
        let x = trajectory(t0.clone(), &u, x0.clone());
        lax::fori_loop(
            0,
            ITERATIONS,
            |_, (x, u): (Array<f32, 11, D>, Array<f32, T, D>)| {
                let spec = lqr_approx(t0.clone(), &x, &u);
                let (dx, du) = lqr_predict(&spec, jnp::zeros_like(&x0));
                let u = u + du;
                (
                    trajectory(t0.clone(), &u, x.at(0).get() + dx.at(0).get()),
                    u,
                )
            },
            (x, u),
        )
    }

    /// JAX's `ilqr(7, p, x0, U)`.
    pub fn ilqr(x0: Array<f32, D>, u: Array<f32, T, D>) -> (Array<f32, 11, D>, Array<f32, T, D>) {
        ilqr_from(Array::<i32>::zeros(), x0, u)
    }

    /// JAX's `mpc_predict(partial(ilqr, 7), p, x0, U)`.
    pub fn mpc(x0: Array<f32, D>, u: Array<f32, T, D>) -> (Array<f32, 11, D>, Array<f32, T, D>) {
        let x = Array::<f32, 11, D>::zeros().at(0).set(x0);
        lax::fori_loop(
            0,
            T as i32,
            |t, (x, u): (Array<f32, 11, D>, Array<f32, T, D>)| {
                let padded = jnp::vstack((&u, Array::<f32, T, D>::zeros()));
                let window: Array<f32, T, D> = lax::dynamic_slice_in_dim(&padded, t, T, 0);
                let xt = x.at(t).get();
                let (_, plan) = ilqr_from(t.clone(), xt.clone(), window);
                let ut = plan.at(0).get();
                let next = dynamics(t.clone(), xt, ut.clone());
                (x.at(t + 1).set(next), u.at(t).set(ut))
            },
            (x, u),
        )
    }
}

fn inputs() -> (Array<f32, 1>, Array<f32, 10, 1>) {
    (Array::from([0.2]), Array::full(1e-5))
}

#[cfg_attr(test, allow(dead_code))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--bench") {
        return bench(&timing::Timing::from_args(&args));
    }
    let (x0, u) = inputs();
    let (x, u_ilqr) = control::ilqr(x0.clone(), u.clone());
    println!("iLQR: states {:?}", x.to_vec());
    println!("      controls {:?}", u_ilqr.to_vec());
    let (x, u_mpc) = control::mpc(x0, u);
    println!("MPC:  states {:?}", x.to_vec());
    println!("      controls {:?}", u_mpc.to_vec());
}

#[cfg_attr(test, allow(dead_code))]
fn bench(t: &timing::Timing) {
    use std::hint::black_box;
    let (x0, u) = inputs();
    let s = t.run(|| {
        drop(black_box(control::ilqr(
            black_box(x0.clone()),
            black_box(u.clone()),
        )))
    });
    timing::report("control_ilqr", t, s);
    let s = t.run(|| {
        drop(black_box(control::mpc(
            black_box(x0.clone()),
            black_box(u.clone()),
        )))
    });
    timing::report("control_mpc", t, s);
}

/// Its JAX reference, for the tests.
#[cfg(all(test, not(feature = "x64")))]
#[path = "support/fixture.rs"]
mod fixture;

/// The example against JAX (`tests/fixtures/control.json`, made by
/// `tests/fixtures/gen/control.py` from JAX's `examples/control.py`).
#[cfg(all(test, not(feature = "x64")))]
mod tests {
    use super::fixture::{self, bits};
    use super::{control, inputs};

    /// `got` against JAX's `want`, element by element: the first state and
    /// the first control exactly or within 2 ulps, the rest within 1e-4
    /// relative. The states shrink as `x² − u²`: XLA's CPU code computes
    /// `x * x - u * u` as one fused multiply-add (`fma(x, x, -(u * u))`,
    /// the product `x * x` unrounded) where this program rounds both
    /// products, and the subtraction cancels all but three digits
    /// (0.04 − 0.039 = 0.000999), so the 1-ulp difference of the first step
    /// becomes 1.6e-6 relative (measured: `X[1]` 0.0009987019 here,
    /// 0.0009987003 in JAX), and each later step squares the state and
    /// doubles its relative difference (1.3e-5 at `X[4]`, after which the
    /// states are 0).
    fn check(what: &str, got: &[f32], want: &[f32]) {
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            let ok = if i == 0 {
                g.to_bits().abs_diff(w.to_bits()) <= 2
            } else {
                (g - w).abs() <= 1e-4 * w.abs().max(1e-30)
            };
            assert!(ok, "{what}[{i}]: {g:e} against JAX's {w:e}");
        }
    }

    #[test]
    fn inputs_are_the_fixtures() {
        let fx = fixture::case("control");
        let (x0, u) = inputs();
        let items = fx["inputs"]["items"].as_array().unwrap();
        assert_eq!(x0.to_vec(), bits(&items[0]));
        assert_eq!(u.to_vec(), bits(&items[1]));
    }

    #[test]
    fn ilqr_and_mpc_are_jaxs() {
        let fx = fixture::case("control");
        let (x0, u) = inputs();
        for (name, (x, u)) in [
            ("ilqr", control::ilqr(x0.clone(), u.clone())),
            ("mpc", control::mpc(x0.clone(), u.clone())),
        ] {
            let want = fx[name]["items"].as_array().unwrap();
            check(&format!("{name} states"), &x.to_vec(), &bits(&want[0]));
            check(&format!("{name} controls"), &u.to_vec(), &bits(&want[1]));
        }
    }
}
