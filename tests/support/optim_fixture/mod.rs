//! The params, fixture reader and tolerance shared by tests/optim.rs and
//! tests/optim_jit.rs (tests/fixtures/optim.json).
#![allow(dead_code)]

use jax::optim::{self, Schedule};
use jax::Array;
use serde_json::Value;

pub type Params = (Array<f32, 3, 4>, Array<f32, 4>, Array<f32>);

/// Tolerance per element, relative to `max(|value|, 1)` (see [`max_rel_err`]).
pub const TOL: f64 = 1e-6;

pub fn leaf<A: jax::ArrayType>(tree: &Value, name: &str) -> A {
    A::from_data(
        tree[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| <A::Elem as jax::Element>::from_f64(v.as_f64().unwrap()))
            .collect(),
    )
}

pub fn params_of(tree: &Value) -> Params {
    (leaf(tree, "w"), leaf(tree, "b"), leaf(tree, "s"))
}

/// The largest error of `got` against `want`, relative to `max(|want|, 1)`
/// (absolute below 1: XLA fuses some multiply-adds into FMAs, which moves
/// values near 0 by an ulp of their larger terms).
pub fn max_rel_err(got: &Params, want: &Params) -> f64 {
    let flat = |p: &Params| -> Vec<f32> {
        let mut v = p.0.to_vec();
        v.extend(p.1.to_vec());
        v.push(p.2.item());
        v
    };
    flat(got)
        .iter()
        .zip(flat(want))
        .map(|(&g, w)| (g as f64 - w as f64).abs() / (w as f64).abs().max(1.0))
        .fold(0.0, f64::max)
}

/// The schedules of the fixture, by name.
pub fn schedule(name: &str) -> Schedule {
    match name {
        "constant" => optim::constant(0.05),
        "exponential_decay" => optim::exponential_decay(0.05, 4, 0.6),
        "exponential_decay_begin_staircase" => optim::exponential_decay(0.05, 3, 0.5)
            .transition_begin(4)
            .staircase(true),
        "cosine_decay" => optim::cosine_decay(0.05, 15),
        "cosine_decay_alpha" => optim::cosine_decay(0.05, 15).alpha(0.2),
        "warmup_cosine_decay" => optim::warmup_cosine_decay(0.0, 0.05, 5, 18, 0.005),
        other => panic!("no schedule {other}"),
    }
}
