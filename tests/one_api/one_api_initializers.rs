//! One API (tests/one_api.rs): `nn::initializers`, each drawn in a jitted
//! function and by its eager twin with the same body, compared bit for bit
//! on the same key (the shape and dtype are the result type's).

use jax::nn::initializers;
use jax::prelude::*;
use jax::random::{self, Key};

type Draws = (
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 2, 3, 5>,
    Array<f32, 3, 4>,
    Array<f32, 3, 3, 4, 4>,
);

/// The same body, jitted and eager.
macro_rules! draws {
    ($key:expr) => {{
        let k = $key;
        (
            initializers::zeros().init(k),
            initializers::ones().init(k),
            initializers::constant(0.25).init(k),
            initializers::uniform().scale(3.0).init(k),
            initializers::normal().stddev(2.0).init(k),
            initializers::truncated_normal().lower(-1.0).init(k),
            initializers::variance_scaling(0.5, "fan_out", "uniform")
                .in_axis(0)
                .out_axis(2)
                .init(k),
            initializers::orthogonal().init(k),
            initializers::delta_orthogonal().scale(0.5).init(k),
        )
    }};
}

#[jax::jit]
#[allow(clippy::type_complexity)]
fn jit_draws(
    key: Key,
) -> (
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
    Array<f32, 2, 3, 5>,
    Array<f32, 3, 4>,
    Array<f32, 3, 3, 4, 4>,
) {
    let k = key;
    let zeros: Array<f32, 3, 4> = initializers::zeros().init(k);
    let ones: Array<f32, 3, 4> = initializers::ones().init(k);
    let constant: Array<f32, 3, 4> = initializers::constant(0.25).init(k);
    let uniform: Array<f32, 3, 4> = initializers::uniform().scale(3.0).init(k);
    let normal: Array<f32, 3, 4> = initializers::normal().stddev(2.0).init(k);
    let truncated: Array<f32, 3, 4> = initializers::truncated_normal().lower(-1.0).init(k);
    let scaled: Array<f32, 2, 3, 5> = initializers::variance_scaling(0.5, "fan_out", "uniform")
        .in_axis(0)
        .out_axis(2)
        .init(k);
    let orthogonal: Array<f32, 3, 4> = initializers::orthogonal().init(k);
    let delta: Array<f32, 3, 3, 4, 4> = initializers::delta_orthogonal().scale(0.5).init(k);
    (
        zeros, ones, constant, uniform, normal, truncated, scaled, orthogonal, delta,
    )
}

/// The families over `variance_scaling`.
#[jax::jit]
fn jit_families(key: Key) -> [Array<f32, 4, 6>; 10] {
    let a: Array<f32, 4, 6> = initializers::glorot_uniform().init(key);
    let b: Array<f32, 4, 6> = initializers::glorot_normal().init(key);
    let c: Array<f32, 4, 6> = initializers::xavier_uniform().init(key);
    let d: Array<f32, 4, 6> = initializers::xavier_normal().init(key);
    let e: Array<f32, 4, 6> = initializers::lecun_uniform().init(key);
    let f: Array<f32, 4, 6> = initializers::lecun_normal().init(key);
    let g: Array<f32, 4, 6> = initializers::he_uniform().init(key);
    let h: Array<f32, 4, 6> = initializers::he_normal().init(key);
    let i: Array<f32, 4, 6> = initializers::kaiming_uniform().init(key);
    let j: Array<f32, 4, 6> = initializers::kaiming_normal().init(key);
    [a, b, c, d, e, f, g, h, i, j]
}

fn eager_families(key: Key) -> [Array<f32, 4, 6>; 10] {
    [
        initializers::glorot_uniform().init(key),
        initializers::glorot_normal().init(key),
        initializers::xavier_uniform().init(key),
        initializers::xavier_normal().init(key),
        initializers::lecun_uniform().init(key),
        initializers::lecun_normal().init(key),
        initializers::he_uniform().init(key),
        initializers::he_normal().init(key),
        initializers::kaiming_uniform().init(key),
        initializers::kaiming_normal().init(key),
    ]
}

#[test]
fn initializers_jit_equals_eager() {
    for seed in [0, 3, 11] {
        let key = random::key(seed);
        let eager: Draws = draws!(key);
        let jitted = jit_draws(key);
        let leaves = |d: &Draws| {
            jax::tree::leaves(d)
                .iter()
                .map(|a| a.to_vec::<f32>().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(leaves(&jitted), leaves(&eager), "seed {seed}");
        let (jf, ef) = (jit_families(key), eager_families(key));
        for (k, (j, e)) in jf.iter().zip(&ef).enumerate() {
            assert_eq!(j.to_vec(), e.to_vec(), "seed {seed}: family {k}");
        }
    }
}
