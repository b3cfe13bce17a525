//! The fused training step of `benches/workloads.rs` (`value_and_grad` of a
//! relu MLP's softmax cross-entropy plus optax's adam, one `#[jax::jit]`
//! function, `jax::optim::adam`) at small sizes, against three steps of JAX + optax
//! (`tests/fixtures/gen/train_step.py`): losses, parameters, adam's moments
//! and count after the third step.

use crate::common;

use jax::prelude::*;
use serde_json::Value;

#[jax::jit]
mod train {
    use jax::nn;
    use jax::optim;
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

    pub fn loss(p: &Params, x: &Array<f32, BATCH, IN>, y: &Array<f32, BATCH, OUT>) -> Array<f32> {
        let h1 = nn::relu(x.matmul(&p.w1) + &p.b1);
        let h2 = nn::relu(h1.matmul(&p.w2) + &p.b2);
        let logits = h2.matmul(&p.w3) + &p.b3;
        -jnp::mean(jnp::sum_axis(jnp::log_softmax(logits, -1) * y, -1, false))
    }

    /// One step: loss and gradient, `optim::adam(1e-3)`, updates applied.
    pub fn step(
        p: Params,
        s: optim::AdamState<Params>,
        x: &Array<f32, BATCH, IN>,
        y: &Array<f32, BATCH, OUT>,
    ) -> (Params, optim::AdamState<Params>, Array<f32>) {
        let (l, g) = jax::value_and_grad(loss)(&p, x, y);
        let (updates, s) = optim::adam(1e-3).update(&g, s, &p);
        (optim::apply_updates(&p, &updates), s, l)
    }
}

use jax::optim::{self, GradientTransformation};
use train::Params;

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
    let mut s = optim::adam(1e-3).init(&p);
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
