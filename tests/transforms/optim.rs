//! `jax::optim` eagerly against optax 0.2.x (tests/fixtures/optim.json,
//! made by tests/fixtures/gen/optim.py): 20 steps of every optimizer on the
//! params `(w: f32[3, 4], b: f32[4], s: f32[])`, fed the gradients JAX
//! computed along optax's trajectory, and every schedule's values.

use crate::common;
use crate::optim_fixture;

use jax::optim::{self, GradientTransformation};
use jax::tree::Pytree;
use optim_fixture::{max_rel_err, params_of, schedule, Params, TOL};

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
    let def = s.def().to_string();
    assert!(def.contains("AdamState"), "{def}");
    let mut shapes = Vec::new();
    s.for_each_leaf(&mut |l| shapes.push(l.shape().to_vec()));
    // count, then mu's leaves, then nu's.
    let leaf_shapes = vec![vec![3, 4], vec![4], vec![]];
    let mut want = vec![vec![]];
    want.extend(leaf_shapes.clone());
    want.extend(leaf_shapes);
    assert_eq!(shapes, want);
}
