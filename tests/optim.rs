//! `jax::optim` eagerly against optax 0.2.x (tests/fixtures/optim.json,
//! made by tests/fixtures/gen/optim.py): 20 steps of every optimizer on the
//! params `(w: f32[3, 4], b: f32[4], s: f32[])`, fed the gradients JAX
//! computed along optax's trajectory, and every schedule's values.

mod common;

use jax::optim::{self, GradientTransformation, Schedule};
use jax::Array;
use serde_json::Value;

pub type Params = (Array<f32, 3, 4>, Array<f32, 4>, Array<f32>);

/// Relative tolerance per element (with an absolute floor for values near 0).
pub const TOL: f64 = 2e-6;

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

/// The largest error of `got` against `want`, relative to `max(|want|, 1e-2)`.
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
        .map(|(&g, w)| (g as f64 - w as f64).abs() / (w as f64).abs().max(1e-2))
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

/// Runs `opt` along a fixture case; returns the largest relative error.
fn trajectory<O: GradientTransformation<Params>>(opt: O, id: &str) -> f64 {
    let c = common::case("optim", id);
    let mut p = params_of(&c["params"][0]);
    let mut state = opt.init(&p);
    let mut worst = 0f64;
    for k in 0..20 {
        let g = params_of(&c["grads"][k]);
        let (u, s) = opt.update(&g, state, &p);
        state = s;
        p = optim::apply_updates(&p, &u);
        let want = params_of(&c["params"][k + 1]);
        let err = max_rel_err(&p, &want);
        assert!(
            err <= TOL,
            "{id}: step {k}: relative error {err:e}\n got {p:?}\nwant {want:?}"
        );
        worst = worst.max(err);
    }
    eprintln!("{id}: max relative error {worst:e}");
    worst
}

#[test]
fn sgd() {
    trajectory(optim::sgd(0.1), "sgd");
}

#[test]
fn sgd_momentum() {
    trajectory(optim::sgd_with(0.1, 0.9, false), "sgd_momentum");
}

#[test]
fn sgd_nesterov() {
    trajectory(optim::sgd_with(0.1, 0.9, true), "sgd_nesterov");
}

#[test]
fn adam() {
    trajectory(optim::adam(0.05), "adam");
}

#[test]
fn adamw() {
    trajectory(optim::adamw(0.05, 0.1), "adamw");
}

#[test]
fn rmsprop() {
    trajectory(optim::rmsprop(0.05), "rmsprop");
}

#[test]
fn adagrad() {
    trajectory(optim::adagrad(0.1), "adagrad");
}

#[test]
fn lion() {
    trajectory(optim::lion(0.02), "lion");
}

#[test]
fn clip_then_sgd() {
    trajectory(
        optim::chain((optim::clip_by_global_norm(1.0), optim::sgd(0.1))),
        "clip_sgd",
    );
}

#[test]
fn clip_then_adam() {
    trajectory(
        optim::chain((optim::clip_by_global_norm(1.0), optim::adam(0.05))),
        "clip_adam",
    );
}

const SCHEDULES: [&str; 6] = [
    "constant",
    "exponential_decay",
    "exponential_decay_begin_staircase",
    "cosine_decay",
    "cosine_decay_alpha",
    "warmup_cosine_decay",
];

#[test]
fn adam_with_each_schedule() {
    for name in SCHEDULES {
        trajectory(optim::adam(schedule(name)), &format!("adam_{name}"));
    }
}

#[test]
fn schedule_values() {
    for name in SCHEDULES {
        let c = common::case("optim", &format!("schedule_{name}"));
        let s = schedule(name);
        for (k, want) in c["values"].as_array().unwrap().iter().enumerate() {
            let want = want.as_f64().unwrap();
            let got = s.at(k as i32) as f64;
            assert!(
                (got - want).abs() <= 1e-7 * want.abs(),
                "{name} at {k}: {got} vs optax's {want}"
            );
        }
    }
}

#[test]
fn state_is_a_pytree_with_optax_fields() {
    let p: Params = params_of(&common::case("optim", "adam")["params"][0]);
    let s = optim::adam(0.1).init(&p);
    let def = jax::tree::structure(&s).to_string();
    assert!(def.contains("AdamState"), "{def}");
    assert_eq!(jax::tree::leaves(&s).len(), 7); // count, mu's 3 leaves, nu's 3
}
