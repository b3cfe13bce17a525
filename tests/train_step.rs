//! The fused training step of `benches/workloads.rs` (`value_and_grad` of a
//! relu MLP's softmax cross-entropy plus optax's adam, one `#[jax::jit]`
//! function) at small sizes, against three steps of JAX + optax
//! (`tests/fixtures/gen/train_step.py`): losses, parameters, adam's moments
//! and count after the third step.

mod common;

use jax::prelude::*;
use serde_json::Value;

#[jax::jit]
mod train {
    use jax::nn;
    use jax::prelude::*;

    pub const IN: usize = 32;
    pub const HIDDEN: usize = 32;
    pub const OUT: usize = 10;
    pub const BATCH: usize = 16;

    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, IN, HIDDEN>,
        pub b1: Array<f32, HIDDEN>,
        pub w2: Array<f32, HIDDEN, HIDDEN>,
        pub b2: Array<f32, HIDDEN>,
        pub w3: Array<f32, HIDDEN, OUT>,
        pub b3: Array<f32, OUT>,
    }

    /// optax's `ScaleByAdamState`, written out until `jax::optim` lands.
    #[derive(Clone, Debug)]
    pub struct AdamState {
        pub count: Array<i32>,
        pub mu: Params,
        pub nu: Params,
    }

    pub fn loss(p: &Params, x: &Array<f32, BATCH, IN>, y: &Array<f32, BATCH, OUT>) -> Array<f32> {
        let h1 = nn::relu(x.matmul(&p.w1) + &p.b1);
        let h2 = nn::relu(h1.matmul(&p.w2) + &p.b2);
        let logits = h2.matmul(&p.w3) + &p.b3;
        -jnp::mean(jnp::sum_axis(jnp::log_softmax(logits, -1) * y, -1, false))
    }

    /// One step: loss and gradient, adam (optax's formulas, lr 1e-3), apply.
    pub fn step(
        p: Params,
        s: AdamState,
        x: &Array<f32, BATCH, IN>,
        y: &Array<f32, BATCH, OUT>,
    ) -> (Params, AdamState, Array<f32>) {
        let (l, g) = jax::value_and_grad(loss)(&p, x, y);
        let count = s.count + 1;
        // optax: 1 - decay**count, the power in float32.
        let t = count.astype::<f32>();
        let c1 = 1.0 - jnp::power(0.9, &t);
        let c2 = 1.0 - jnp::power(0.999, &t);
        let mu = Params {
            w1: 0.1 * &g.w1 + 0.9 * &s.mu.w1,
            b1: 0.1 * &g.b1 + 0.9 * &s.mu.b1,
            w2: 0.1 * &g.w2 + 0.9 * &s.mu.w2,
            b2: 0.1 * &g.b2 + 0.9 * &s.mu.b2,
            w3: 0.1 * &g.w3 + 0.9 * &s.mu.w3,
            b3: 0.1 * &g.b3 + 0.9 * &s.mu.b3,
        };
        let nu = Params {
            w1: 0.001 * (&g.w1 * &g.w1) + 0.999 * &s.nu.w1,
            b1: 0.001 * (&g.b1 * &g.b1) + 0.999 * &s.nu.b1,
            w2: 0.001 * (&g.w2 * &g.w2) + 0.999 * &s.nu.w2,
            b2: 0.001 * (&g.b2 * &g.b2) + 0.999 * &s.nu.b2,
            w3: 0.001 * (&g.w3 * &g.w3) + 0.999 * &s.nu.w3,
            b3: 0.001 * (&g.b3 * &g.b3) + 0.999 * &s.nu.b3,
        };
        let p = Params {
            w1: &p.w1 + -1e-3 * ((&mu.w1 / &c1) / (jnp::sqrt(&nu.w1 / &c2) + 1e-8)),
            b1: &p.b1 + -1e-3 * ((&mu.b1 / &c1) / (jnp::sqrt(&nu.b1 / &c2) + 1e-8)),
            w2: &p.w2 + -1e-3 * ((&mu.w2 / &c1) / (jnp::sqrt(&nu.w2 / &c2) + 1e-8)),
            b2: &p.b2 + -1e-3 * ((&mu.b2 / &c1) / (jnp::sqrt(&nu.b2 / &c2) + 1e-8)),
            w3: &p.w3 + -1e-3 * ((&mu.w3 / &c1) / (jnp::sqrt(&nu.w3 / &c2) + 1e-8)),
            b3: &p.b3 + -1e-3 * ((&mu.b3 / &c1) / (jnp::sqrt(&nu.b3 / &c2) + 1e-8)),
        };
        (p, AdamState { count, mu, nu }, l)
    }
}

use train::{AdamState, Params};

fn params(v: &Value) -> Params {
    Params {
        w1: common::array_arg(&v["w1"]),
        b1: common::array_arg(&v["b1"]),
        w2: common::array_arg(&v["w2"]),
        b2: common::array_arg(&v["b2"]),
        w3: common::array_arg(&v["w3"]),
        b3: common::array_arg(&v["b3"]),
    }
}

fn zeros() -> Params {
    Params {
        w1: Array::zeros(),
        b1: Array::zeros(),
        w2: Array::zeros(),
        b2: Array::zeros(),
        w3: Array::zeros(),
        b3: Array::zeros(),
    }
}

/// Every element within a few f32 ulps (relative), or 1e-9 absolute near zero:
/// XLA and our kernels sum the matmuls in different orders.
#[track_caller]
fn assert_close<A: jax::ArrayType<Elem = f32>>(what: &str, got: &A, want: &Value) {
    let want: Vec<f64> = want["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_f64().unwrap())
        .collect();
    assert_eq!(got.data().len(), want.len(), "{what}: size");
    for (i, (&g, &w)) in got.data().iter().zip(&want).enumerate() {
        let err = (g as f64 - w).abs();
        assert!(
            err <= 1e-5 * w.abs() + 1e-9,
            "{what}[{i}]: got {g}, JAX+optax {w} (error {err:e})"
        );
    }
}

fn assert_params_close(what: &str, got: &Params, want: &Value) {
    assert_close(&format!("{what}.w1"), &got.w1, &want["w1"]);
    assert_close(&format!("{what}.b1"), &got.b1, &want["b1"]);
    assert_close(&format!("{what}.w2"), &got.w2, &want["w2"]);
    assert_close(&format!("{what}.b2"), &got.b2, &want["b2"]);
    assert_close(&format!("{what}.w3"), &got.w3, &want["w3"]);
    assert_close(&format!("{what}.b3"), &got.b3, &want["b3"]);
}

#[test]
fn three_adam_steps_match_jax_and_optax() {
    let c = common::case("train_step", "mlp_adam_3_steps");
    let sizes = &c["sizes"];
    assert_eq!(sizes["in"], train::IN);
    assert_eq!(sizes["hidden"], train::HIDDEN);
    assert_eq!(sizes["batch"], train::BATCH);
    let x: Array<f32, { train::BATCH }, { train::IN }> = common::array_arg(&c["x"]);
    let y: Array<f32, { train::BATCH }, { train::OUT }> = common::array_arg(&c["y"]);
    let mut p = params(&c["params"]);
    // optax's adam init: count 0, both moments zero.
    let mut s = AdamState {
        count: Array::zeros(),
        mu: zeros(),
        nu: zeros(),
    };
    let mut losses = Vec::new();
    for _ in 0..sizes["steps"].as_u64().unwrap() {
        let (p2, s2, l) = train::step(p, s, &x, &y);
        (p, s) = (p2, s2);
        losses.push(l.item());
    }
    let losses = Array::<f32, 3>::from_vec(losses).unwrap();
    assert_close("loss", &losses, &c["losses"]);
    assert_eq!(
        s.count.item() as i64,
        c["count_after"]["data"][0].as_i64().unwrap()
    );
    assert_params_close("mu", &s.mu, &c["mu_after"]);
    assert_params_close("nu", &s.nu, &c["nu_after"]);
    assert_params_close("params", &p, &c["params_after"]);
}

/// The step's products of a batch by a weight matrix (few rows, many
/// columns) split C by columns across threads: the same values as a plain
/// f64 sum, for a shape big enough to be split.
#[test]
fn wide_matmul_split_by_columns_is_a_matmul() {
    let a: Array<f32, 8, 512> = Array::from_fn(|i| ((i * 7919) % 97) as f32 / 97.0 - 0.5);
    let b: Array<f32, 512, 600> = Array::from_fn(|i| ((i * 104729) % 89) as f32 / 89.0 - 0.5);
    let c = a.matmul(&b);
    let (av, bv, cv) = (a.to_vec(), b.to_vec(), c.to_vec());
    for i in 0..8 {
        for j in 0..600 {
            let want: f64 = (0..512)
                .map(|p| av[i * 512 + p] as f64 * bv[p * 600 + j] as f64)
                .sum();
            let got = cv[i * 600 + j] as f64;
            assert!(
                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                "c[{i}, {j}]: {got} vs {want}"
            );
        }
    }
}
