//! `jax::example_libraries::optimizers`, eagerly and inside `#[jax::jit]`,
//! against JAX's `jax.example_libraries.optimizers`
//! (tests/fixtures/optimizers.json, made by
//! tests/fixtures/gen/optimizers.py): 20 steps of every optimizer on the
//! params `(w: f32[3, 4], b: f32[4], s: f32[])`, fed the gradients JAX
//! computed along its own trajectory (the step `i` a Python `int`, the
//! update jitted, as JAX's examples run it), every schedule's values,
//! `l2_norm` and `clip_grads`.
//!
//! The tolerance is `optim_fixture::TOL` (1e-6 relative to `max(|x|, 1)`):
//! XLA contracts the updates' multiply-adds into FMAs and turns a division
//! by a constant into a multiplication by its reciprocal, which moves the
//! last bit of some elements (replaying JAX's gradients with FMAs
//! reproduces its trajectories exactly; without them, 4 of sgd's 20 steps).

use crate::common;
use crate::optim_fixture::{max_rel_err, params_of, Params, TOL};

use jax::example_libraries::optimizers::{self, Optimizer, StepSize};
use jax::tree::Pytree;
use jax::Array;

#[jax::jit]
mod steps {
    use jax::example_libraries::optimizers;
    use jax::prelude::*;

    /// The fixture's params, as a pytree struct of the jit mod.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub w: Array<f32, 3, 4>,
        pub b: Array<f32, 4>,
        pub s: Array<f32>,
    }

    pub fn momentum_init(p: &Params) -> optimizers::MomentumState<Params> {
        optimizers::momentum(0.1, 0.9).init(p)
    }

    /// JAX's examples' `update(i, opt_state, batch)`: the params from the
    /// state, then the optimizer's step.
    pub fn sgd_step(
        i: i32,
        g: &Params,
        s: optimizers::SgdState<Params>,
    ) -> optimizers::SgdState<Params> {
        let opt = optimizers::sgd(0.1);
        let _params = opt.get_params(&s);
        opt.update(i, g, s)
    }

    pub fn momentum_step(
        i: i32,
        g: &Params,
        s: optimizers::MomentumState<Params>,
    ) -> optimizers::MomentumState<Params> {
        optimizers::momentum(0.1, 0.9).update(i, g, s)
    }

    pub fn nesterov_step(
        i: i32,
        g: &Params,
        s: optimizers::MomentumState<Params>,
    ) -> optimizers::MomentumState<Params> {
        optimizers::nesterov(0.1, 0.9).update(i, g, s)
    }

    pub fn adagrad_step(
        i: i32,
        g: &Params,
        s: optimizers::AdagradState<Params>,
    ) -> optimizers::AdagradState<Params> {
        optimizers::adagrad(0.1).momentum(0.5).update(i, g, s)
    }

    pub fn rmsprop_step(
        i: i32,
        g: &Params,
        s: optimizers::RmspropState<Params>,
    ) -> optimizers::RmspropState<Params> {
        optimizers::rmsprop(0.05)
            .gamma(0.8)
            .eps(1e-6)
            .update(i, g, s)
    }

    pub fn rmsprop_momentum_step(
        i: i32,
        g: &Params,
        s: optimizers::RmspropMomentumState<Params>,
    ) -> optimizers::RmspropMomentumState<Params> {
        optimizers::rmsprop_momentum(0.02).update(i, g, s)
    }

    pub fn adam_step(
        i: i32,
        g: &Params,
        s: optimizers::AdamState<Params>,
    ) -> optimizers::AdamState<Params> {
        optimizers::adam(0.05)
            .b1(0.8)
            .b2(0.99)
            .eps(1e-6)
            .update(i, g, s)
    }

    pub fn adamax_step(
        i: i32,
        g: &Params,
        s: optimizers::AdamaxState<Params>,
    ) -> optimizers::AdamaxState<Params> {
        optimizers::adamax(0.05).update(i, g, s)
    }

    pub fn exponential_decay_step(
        i: i32,
        g: &Params,
        s: optimizers::MomentumState<Params>,
    ) -> optimizers::MomentumState<Params> {
        let lr = optimizers::exponential_decay(0.05, 4, 0.6);
        optimizers::momentum(lr, 0.9).update(i, g, s)
    }

    pub fn inverse_time_decay_staircase_step(
        i: i32,
        g: &Params,
        s: optimizers::MomentumState<Params>,
    ) -> optimizers::MomentumState<Params> {
        let lr = optimizers::inverse_time_decay(0.05, 3, 0.5, true);
        optimizers::momentum(lr, 0.9).update(i, g, s)
    }

    pub fn polynomial_decay_step(
        i: i32,
        g: &Params,
        s: optimizers::MomentumState<Params>,
    ) -> optimizers::MomentumState<Params> {
        let lr = optimizers::polynomial_decay(0.05, 10, 0.001, 2.0);
        optimizers::momentum(lr, 0.9).update(i, g, s)
    }

    /// A schedule's value at a traced step, as float32.
    pub fn schedule_at(i: i32) -> Array<f32> {
        optimizers::exponential_decay(0.05, 4, 0.6).at(i)
    }

    /// `l2_norm` of the gradients and `clip_grads` to 0.5.
    pub fn clipped(g: &Params) -> (Array<f32>, Params) {
        (optimizers::l2_norm(g), optimizers::clip_grads(g, 0.5))
    }
}

/// `piecewise_constant`'s values are `jnp.array(values)`: float64 with
/// x64, which makes the params float64 in JAX; typed params cannot change
/// dtype, so this pair is for the default configuration.
#[cfg(not(feature = "x64"))]
#[jax::jit]
mod piecewise {
    use jax::example_libraries::optimizers;
    use jax::prelude::*;

    #[allow(clippy::type_complexity)]
    pub fn step(
        i: i32,
        g: (Array<f32, 3, 4>, Array<f32, 4>, Array<f32>),
        s: optimizers::MomentumState<(Array<f32, 3, 4>, Array<f32, 4>, Array<f32>)>,
    ) -> optimizers::MomentumState<(Array<f32, 3, 4>, Array<f32, 4>, Array<f32>)> {
        let lr = optimizers::piecewise_constant([4, 9], [0.05, 0.02, 0.005]);
        optimizers::momentum(lr, 0.9).update(i, &g, s)
    }
}

fn to_struct(p: &Params) -> steps::Params {
    steps::Params {
        w: p.0.clone(),
        b: p.1.clone(),
        s: p.2.clone(),
    }
}

fn to_tuple(p: &steps::Params) -> Params {
    (p.w.clone(), p.b.clone(), p.s.clone())
}

/// Runs `opt` eagerly along the fixture case `id` (and, given `jit`, the
/// jitted step beside it on the same inputs); asserts both against JAX.
fn check<O, J>(id: &str, opt: O, jit: Option<fn(i32, &steps::Params, J) -> J>)
where
    O: Optimizer<Params> + Optimizer<steps::Params, State = J>,
    J: Pytree,
{
    let c = common::case("optimizers", id);
    let p0 = params_of(&c["params"][0]);
    let mut s = Optimizer::<Params>::init(&opt, &p0);
    let mut sj = Optimizer::<steps::Params>::init(&opt, &to_struct(&p0));
    let (mut worst, mut worst_jit) = (0f64, 0f64);
    for k in 0..20 {
        let g = params_of(&c["grads"][k]);
        s = opt.update(k, &g, s);
        let got = Optimizer::<Params>::get_params(&opt, &s);
        let want = params_of(&c["params"][k + 1]);
        let err = max_rel_err(&got, &want);
        assert!(
            err <= TOL,
            "{id}: step {k}: eager vs JAX: {err:e}\n got {got:?}\nwant {want:?}"
        );
        worst = worst.max(err);
        if let Some(step) = jit {
            sj = step(k as i32, &to_struct(&g), sj);
            let got_jit = to_tuple(&Optimizer::<steps::Params>::get_params(&opt, &sj));
            let e = max_rel_err(&got_jit, &got);
            assert!(
                e <= TOL,
                "{id}: step {k}: jit vs eager: {e:e}\n got {got_jit:?}\nwant {got:?}"
            );
            worst_jit = worst_jit.max(max_rel_err(&got_jit, &want));
        }
    }
    eprintln!("{id}: max relative error vs JAX: eager {worst:e}, jit {worst_jit:e}");
}

#[test]
fn sgd() {
    check("sgd", optimizers::sgd(0.1), Some(steps::sgd_step));
}

#[test]
fn momentum() {
    check(
        "momentum",
        optimizers::momentum(0.1, 0.9),
        Some(steps::momentum_step),
    );
}

#[test]
fn nesterov() {
    check(
        "nesterov",
        optimizers::nesterov(0.1, 0.9),
        Some(steps::nesterov_step),
    );
}

#[test]
fn adagrad() {
    check("adagrad", optimizers::adagrad(0.1), None);
    check(
        "adagrad_momentum_0.5",
        optimizers::adagrad(0.1).momentum(0.5),
        Some(steps::adagrad_step),
    );
}

#[test]
fn rmsprop() {
    check("rmsprop", optimizers::rmsprop(0.05), None);
    check(
        "rmsprop_gamma",
        optimizers::rmsprop(0.05).gamma(0.8).eps(1e-6),
        Some(steps::rmsprop_step),
    );
    check(
        "rmsprop_momentum",
        optimizers::rmsprop_momentum(0.02),
        Some(steps::rmsprop_momentum_step),
    );
}

#[test]
fn adam() {
    check("adam", optimizers::adam(0.05), None);
    check(
        "adam_b",
        optimizers::adam(0.05).b1(0.8).b2(0.99).eps(1e-6),
        Some(steps::adam_step),
    );
    check("adamax", optimizers::adamax(0.05), Some(steps::adamax_step));
}

/// The schedules of the fixture, by name.
fn schedule(name: &str) -> StepSize {
    match name {
        "constant" => optimizers::constant(0.05),
        "exponential_decay" => optimizers::exponential_decay(0.05, 4, 0.6),
        "inverse_time_decay" => optimizers::inverse_time_decay(0.05, 4, 0.5, false),
        "inverse_time_decay_staircase" => optimizers::inverse_time_decay(0.05, 3, 0.5, true),
        "polynomial_decay" => optimizers::polynomial_decay(0.05, 10, 0.001, 2.0),
        "piecewise_constant" => optimizers::piecewise_constant([4, 9], [0.05, 0.02, 0.005]),
        other => panic!("no schedule {other}"),
    }
}

#[test]
fn schedules_as_step_sizes() {
    type Step = fn(
        i32,
        &steps::Params,
        optimizers::MomentumState<steps::Params>,
    ) -> optimizers::MomentumState<steps::Params>;
    let jitted: [(&str, Option<Step>); 5] = [
        ("constant", None),
        ("exponential_decay", Some(steps::exponential_decay_step)),
        ("inverse_time_decay", None),
        (
            "inverse_time_decay_staircase",
            Some(steps::inverse_time_decay_staircase_step),
        ),
        ("polynomial_decay", Some(steps::polynomial_decay_step)),
    ];
    for (name, jit) in jitted {
        check(
            &format!("momentum_{name}"),
            optimizers::momentum(schedule(name), 0.9),
            jit,
        );
    }
    #[cfg(not(feature = "x64"))]
    {
        let id = "momentum_piecewise_constant";
        let opt = optimizers::momentum(schedule("piecewise_constant"), 0.9);
        check::<_, optimizers::MomentumState<steps::Params>>(id, opt.clone(), None);
        let c = common::case("optimizers", id);
        let mut s = opt.init(&params_of(&c["params"][0]));
        for k in 0..20 {
            s = piecewise::step(k, params_of(&c["grads"][k as usize]), s);
            let want = params_of(&c["params"][k as usize + 1]);
            let err = max_rel_err(&opt.get_params(&s), &want);
            assert!(err <= TOL, "{id}: jit step {k}: {err:e}");
        }
    }
}

/// Each schedule's value at steps 0..20 against JAX's jitted schedule.
/// exponential and inverse time decay are JAX's bits; polynomial decay is
/// within an ulp (XLA multiplies by `0.1f` for `/ 10` and fuses FMAs).
#[test]
fn schedule_values() {
    for name in [
        "constant",
        "exponential_decay",
        "inverse_time_decay",
        "inverse_time_decay_staircase",
        "polynomial_decay",
        "piecewise_constant",
    ] {
        let c = common::case("optimizers", &format!("schedule_{name}"));
        let s = schedule(name);
        for (k, want) in c["values"].as_array().unwrap().iter().enumerate() {
            let want = want.as_f64().unwrap() as f32;
            let got = s.at(k).item();
            if name == "exponential_decay" {
                assert_eq!(steps::schedule_at(k as i32).item(), got, "jit {name}({k})");
            }
            let exact = name != "polynomial_decay" && !cfg!(feature = "x64");
            if exact {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{name}({k}): {got} vs JAX {want}"
                );
            } else {
                assert!(
                    ((got - want) / want).abs() <= 2.0 * f32::EPSILON,
                    "{name}({k}): {got} vs JAX {want}"
                );
            }
        }
    }
}

#[test]
fn l2_norm_and_clip_grads() {
    let sgd = common::case("optimizers", "sgd");
    let (p, g) = (params_of(&sgd["params"][0]), params_of(&sgd["grads"][0]));
    let want = common::case("optimizers", "l2_norm")["value"]
        .as_f64()
        .unwrap();
    let norm = optimizers::l2_norm(&p).item() as f64;
    // `vdot` sums in XLA's order.
    assert!(
        (norm - want).abs() <= 4.0 * f32::EPSILON as f64 * want,
        "{norm} vs JAX {want}"
    );
    for (id, max_norm) in [("clip_grads", 0.5), ("clip_grads_noop", 100.0)] {
        let c = common::case("optimizers", id);
        let want = params_of(&c["clipped"]);
        let got = optimizers::clip_grads(&g, max_norm);
        assert!(
            max_rel_err(&got, &want) <= TOL,
            "{id}: {got:?} vs JAX {want:?}"
        );
    }
    let (n, clipped) = steps::clipped(&to_struct(&g));
    assert_eq!(
        n.item(),
        optimizers::l2_norm(&g).item(),
        "jit l2_norm vs eager"
    );
    let eager = optimizers::clip_grads(&g, 0.5);
    assert!(max_rel_err(&to_tuple(&clipped), &eager) <= TOL);
}

#[test]
fn state_types_are_the_runtime_structs() {
    let p = to_struct(&params_of(&common::case("optimizers", "sgd")["params"][0]));
    let s = steps::momentum_init(&p);
    assert_eq!(s.x.w.to_vec(), p.w.to_vec());
    assert_eq!(s.velocity.b.to_vec(), vec![0.0; 4]);
    let eager = optimizers::momentum(0.1, 0.9).init(&p);
    assert_eq!(eager.velocity.w.to_vec(), s.velocity.w.to_vec());
    let _: Array<f32> = optimizers::constant(0.1).at(3usize);
}
