//! `jax::vmap` through selection, slicing, concatenation, dynamic slices,
//! scatters, argument reductions, samplers with a key per lane and
//! custom_jvp functions, against JAX's values (tests/fixtures/vmap_prims.json,
//! made by tests/fixtures/gen/vmap_prims.py): bit for bit, as each lane
//! computes what JAX's does (samples included: each lane draws from its own
//! key with the same bits JAX's threefry gives).

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

fn case(name: &str) -> Value {
    common::case("vmap_prims", name)
}

fn arg<A: ArrayType>(c: &Value, k: usize) -> A {
    let v = &c["args"][k];
    A::from_data(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| match d {
                Value::Bool(b) => A::Elem::from_f64(*b as u8 as f64),
                d => A::Elem::from_f64(d.as_f64().unwrap()),
            })
            .collect(),
    )
}

/// Within `ulps` float32 ulps of JAX's values.
fn close<A: ArrayType>(name: &str, got: &A, ulps: f64) {
    let want = &case(name)["output"];
    let want: Vec<f64> = want["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_f64().unwrap())
        .collect();
    assert_eq!(got.data().len(), want.len(), "{name}: length");
    for (i, (g, w)) in got.data().iter().zip(&want).enumerate() {
        let g = g.to_f64();
        let tol = ulps * f32::EPSILON as f64 * w.abs().max(1e-3);
        assert!((g - w).abs() <= tol, "{name}[{i}]: ours {g:e}, JAX {w:e}");
    }
}

fn exact<A: ArrayType>(name: &str, got: &A) {
    common::assert_matches(got, &case(name)["output"]);
}

#[jax::jit]
fn where_all_batched(
    p: Array<bool, 5, 3>,
    x: Array<f32, 5, 3>,
    y: Array<f32, 5, 3>,
) -> Array<f32, 5, 3> {
    jax::vmap(|p, x, y| jnp::where_(p, x, y))(p, x, y)
}

#[jax::jit]
fn where_unbatched_predicate(p: Array<bool, 3>, x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    jax::vmap(|p, x| jnp::where_(p, x, 0.0), (None, 0))(p, x)
}

#[jax::jit]
fn where_batched_predicate_other_axis(
    p: Array<bool, 3, 5>,
    x: Array<f32, 5, 3>,
) -> Array<f32, 5, 3> {
    jax::vmap(|p, x| jnp::where_(p, x, -x), (1, 0))(p, x)
}

#[jax::jit]
fn where_scalar_predicate(
    p: Array<bool, 5>,
    x: Array<f32, 3>,
    y: Array<f32, 5, 3>,
) -> Array<f32, 5, 3> {
    jax::vmap(|p, x, y| jnp::where_(p, x, y), (0, None, 0))(p, x, y)
}

#[jax::jit]
fn clip(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    jax::vmap(|x| jnp::clip(x, -0.2, 0.5))(x)
}

#[jax::jit]
fn squeeze_mapped_axis_1(x: Array<f32, 3, 5, 1>) -> Array<f32, 5, 3> {
    jax::vmap(|a| jnp::squeeze(a, 1), 1)(x)
}

#[jax::jit]
fn slice_strided_mapped_axis_1(x: Array<f32, 4, 5, 3>) -> Array<f32, 5, 2, 2> {
    jax::vmap(|a| a.slice(s![..;2, 1..]), 1)(x)
}

#[jax::jit]
fn index_static(x: Array<f32, 5, 4>) -> Array<f32, 5> {
    jax::vmap(|a| a.at(1).get())(x)
}

#[jax::jit]
fn concatenate_batched_and_not(x: Array<f32, 5, 3>, y: Array<f32, 2>) -> Array<f32, 5, 5> {
    jax::vmap(|a, b| jnp::concatenate((a, b), 0), (0, None))(x, y)
}

#[jax::jit]
fn concatenate_axis_1(x: Array<f32, 5, 2, 3>, y: Array<f32, 2, 1, 5>) -> Array<f32, 5, 2, 4> {
    jax::vmap(|a, b| jnp::concatenate((a, b), 1), (0, 2))(x, y)
}

#[jax::jit]
fn dynamic_index_unbatched(x: Array<f32, 5, 4>, i: i32) -> Array<f32, 5> {
    jax::vmap(|a, i| a.at(i).get(), (0, None))(x, i)
}

#[jax::jit]
fn dynamic_index_unbatched_axis_1(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 5> {
    jax::vmap(|a, i| a.at(i).get(), (1, None))(x, i)
}

#[jax::jit]
fn at_set_scalar(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    jax::vmap(|a| a.at(1).set(0.0))(x)
}

#[jax::jit]
fn at_set_batched_update(x: Array<f32, 5, 3, 2>, v: Array<f32, 5, 2>) -> Array<f32, 5, 3, 2> {
    jax::vmap(|a, v| a.at(1).set(v))(x, v)
}

#[jax::jit]
fn at_set_unbatched_operand(x: Array<f32, 4, 2>, v: Array<f32, 5, 2>) -> Array<f32, 5, 4, 2> {
    jax::vmap(|a, v| a.at(2).set(v), (None, 0))(x, v)
}

#[jax::jit]
fn at_add_mapped_axis_1(x: Array<f32, 3, 5>, v: Array<f32, 5>) -> Array<f32, 5, 3> {
    jax::vmap(|a, v| a.at(0).add(v), (1, 0))(x, v)
}

#[jax::jit]
fn argmax(x: Array<f32, 5, 3>) -> Array<i32, 5> {
    // int32 also under x64, where argmax gives the default int64.
    jax::vmap(|a| jnp::argmax(a).astype::<i32>())(x)
}

#[jax::jit]
fn argmin_axis_mapped_1(x: Array<f32, 3, 5, 4>) -> Array<i32, 5, 3> {
    jax::vmap(|a| jnp::argmin(a, 1).astype::<i32>(), 1)(x)
}

#[jax::jit]
fn random_normal(keys: Array<u32, 4, 2>) -> Array<f32, 4, 3> {
    jax::vmap(|k| random::normal::<Array<f32, 3>>(k))(keys)
}

#[jax::jit]
fn random_uniform(keys: Array<u32, 4, 2>) -> Array<f32, 4, 2, 3> {
    jax::vmap(|k| random::uniform::<Array<f32, 2, 3>>(k))(keys)
}

#[jax::jit]
fn random_normal_keys_mapped_axis_1(keys: Array<u32, 2, 4>) -> Array<f32, 4, 3> {
    jax::vmap(|k| random::normal::<Array<f32, 3>>(k), 1)(keys)
}

#[jax::jit]
mod custom {
    use jax::prelude::*;

    #[custom_jvp(log1pexp_jvp)]
    pub fn log1pexp(x: Array<f32, 3>) -> Array<f32, 3> {
        jnp::log(1.0 + jnp::exp(x))
    }

    pub fn log1pexp_jvp(
        primals: (Array<f32, 3>,),
        tangents: (Array<f32, 3>,),
    ) -> (Array<f32, 3>, Array<f32, 3>) {
        let (x,) = primals;
        let (t,) = tangents;
        let ans = log1pexp(x.clone());
        (ans, t * (1.0 - 1.0 / (1.0 + jnp::exp(x))))
    }

    pub fn batched(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
        jax::vmap(log1pexp)(x)
    }
}

macro_rules! check {
    ($($name:ident: $f:ident($($k:literal: $t:ty),*) $how:ident $(($ulps:literal))?;)*) => {$(
        #[test]
        fn $name() {
            let c = case(stringify!($f));
            let out = $f($(arg::<$t>(&c, $k)),*);
            check!(@ $how stringify!($f), &out $(, $ulps)?);
        }
    )*};
    (@ exact $name:expr, $out:expr) => { exact($name, $out) };
    (@ close $name:expr, $out:expr, $ulps:literal) => { close($name, $out, $ulps as f64) };
}

check! {
    where_all_batched_matches_jax: where_all_batched(0: Array<bool, 5, 3>, 1: Array<f32, 5, 3>, 2: Array<f32, 5, 3>) exact;
    where_unbatched_predicate_matches_jax: where_unbatched_predicate(0: Array<bool, 3>, 1: Array<f32, 5, 3>) exact;
    where_batched_predicate_other_axis_matches_jax: where_batched_predicate_other_axis(0: Array<bool, 3, 5>, 1: Array<f32, 5, 3>) exact;
    where_scalar_predicate_matches_jax: where_scalar_predicate(0: Array<bool, 5>, 1: Array<f32, 3>, 2: Array<f32, 5, 3>) exact;
    clip_matches_jax: clip(0: Array<f32, 5, 3>) exact;
    squeeze_mapped_axis_1_matches_jax: squeeze_mapped_axis_1(0: Array<f32, 3, 5, 1>) exact;
    slice_strided_mapped_axis_1_matches_jax: slice_strided_mapped_axis_1(0: Array<f32, 4, 5, 3>) exact;
    index_static_matches_jax: index_static(0: Array<f32, 5, 4>) exact;
    concatenate_batched_and_not_matches_jax: concatenate_batched_and_not(0: Array<f32, 5, 3>, 1: Array<f32, 2>) exact;
    concatenate_axis_1_matches_jax: concatenate_axis_1(0: Array<f32, 5, 2, 3>, 1: Array<f32, 2, 1, 5>) exact;
    at_set_scalar_matches_jax: at_set_scalar(0: Array<f32, 5, 3>) exact;
    at_set_batched_update_matches_jax: at_set_batched_update(0: Array<f32, 5, 3, 2>, 1: Array<f32, 5, 2>) exact;
    at_set_unbatched_operand_matches_jax: at_set_unbatched_operand(0: Array<f32, 4, 2>, 1: Array<f32, 5, 2>) exact;
    at_add_mapped_axis_1_matches_jax: at_add_mapped_axis_1(0: Array<f32, 3, 5>, 1: Array<f32, 5>) exact;
    argmax_matches_jax: argmax(0: Array<f32, 5, 3>) exact;
    argmin_axis_mapped_1_matches_jax: argmin_axis_mapped_1(0: Array<f32, 3, 5, 4>) exact;
    random_normal_matches_jax: random_normal(0: Array<u32, 4, 2>) exact;
    random_uniform_matches_jax: random_uniform(0: Array<u32, 4, 2>) exact;
    random_normal_keys_mapped_axis_1_matches_jax: random_normal_keys_mapped_axis_1(0: Array<u32, 2, 4>) exact;
}

#[test]
fn dynamic_index_unbatched_matches_jax() {
    let c = case("dynamic_index_unbatched");
    let i = c["args"][1]["data"][0].as_i64().unwrap() as i32;
    exact(
        "dynamic_index_unbatched",
        &dynamic_index_unbatched(arg(&c, 0), i),
    );
    let c = case("dynamic_index_unbatched_axis_1");
    let i = c["args"][1]["data"][0].as_i64().unwrap() as i32;
    exact(
        "dynamic_index_unbatched_axis_1",
        &dynamic_index_unbatched_axis_1(arg(&c, 0), i),
    );
}

#[test]
fn custom_jvp_matches_jax() {
    let c = case("custom_jvp");
    close("custom_jvp", &custom::batched(arg(&c, 0)), 2.0);
}
