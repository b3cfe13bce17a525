//! One API (tests/one_api.rs): the `random::` functions that work in
//! `#[jax::jit]`, each called in a jitted function and in an eager twin
//! with the same body, compared bit for bit on the same keys.

use jax::prelude::*;
use jax::random::{self, Key};

#[jax::jit]
fn jit_split(k: Key) -> (Key, Key, Key) {
    let [a, b, c] = random::split(k);
    (a, b, c)
}

fn eager_split(k: Key) -> (Key, Key, Key) {
    let [a, b, c] = random::split(k);
    (a, b, c)
}

#[jax::jit]
fn jit_fold_in(k: Key, i: i32) -> (Key, Key) {
    (random::fold_in(k, i), random::fold_in(k, 7))
}

fn eager_fold_in(k: Key, i: i32) -> (Key, Key) {
    (random::fold_in(k, i), random::fold_in(k, 7))
}

#[jax::jit]
fn jit_key(t: i32) -> (Key, Array<u32, 2>) {
    (random::key(t), random::PRNGKey(t))
}

/// An `int32` seed's key: its 32 bits, the high word 0 (with x64 too: JAX
/// shifts an `int32` right by 32 to 0).
fn eager_key(t: i32) -> (Key, Array<u32, 2>) {
    let seed = t as u32 as i64;
    (random::key(seed), random::PRNGKey(seed))
}

#[jax::jit]
fn jit_key_data(k: Key) -> Array<u32, 2> {
    random::key_data(k)
}

fn eager_key_data(k: Key) -> Array<u32, 2> {
    random::key_data(k)
}

#[jax::jit]
fn jit_wrap_key_data(w: &Array<u32, 2>) -> Key {
    random::wrap_key_data(w)
}

fn eager_wrap_key_data(w: &Array<u32, 2>) -> Key {
    random::wrap_key_data(w)
}

#[jax::jit]
fn jit_bits(k: Key) -> Array<u32, 2, 3> {
    random::bits(k)
}

fn eager_bits(k: Key) -> Array<u32, 2, 3> {
    random::bits(k)
}

#[jax::jit]
fn jit_uniform(k: Key) -> Array<f32, 2, 3> {
    random::uniform(k)
}

fn eager_uniform(k: Key) -> Array<f32, 2, 3> {
    random::uniform(k)
}

#[jax::jit]
fn jit_uniform_range(k: Key) -> Array<f32, 2, 3> {
    random::uniform_range(k, -2.0, 3.0)
}

fn eager_uniform_range(k: Key) -> Array<f32, 2, 3> {
    random::uniform_range(k, -2.0, 3.0)
}

#[jax::jit]
fn jit_normal(k: Key) -> Array<f32, 2, 3> {
    random::normal(k)
}

fn eager_normal(k: Key) -> Array<f32, 2, 3> {
    random::normal(k)
}

#[jax::jit]
fn jit_normal_like(k: Key, x: &Array<f64, 2, 3>) -> (Array<f64, 2, 3>, Array<f32, 4>) {
    (
        random::normal_like(k, x),
        random::uniform_like(k, &Array::<f32, 4>::zeros()),
    )
}

fn eager_normal_like(k: Key, x: &Array<f64, 2, 3>) -> (Array<f64, 2, 3>, Array<f32, 4>) {
    (
        random::normal_like(k, x),
        random::uniform_like(k, &Array::<f32, 4>::zeros()),
    )
}

/// JAX's `tree_map(lambda n: n + random.normal(rng, n.shape), tree)`: each
/// leaf its own shape's draw, all from one key.
#[jax::jit]
mod noisy {
    use jax::prelude::*;
    use jax::random::{self, Key};

    #[derive(Clone, Debug, PartialEq)]
    pub struct Pair {
        pub w: Array<f32, 3, 2>,
        pub b: Array<f32, 2>,
    }

    pub fn noised(k: Key, p: &Pair) -> Pair {
        jax::tree::map(|n| n + random::normal_like(k, &n) * 0.5, p)
    }
}

#[jax::jit]
fn jit_exponential(k: Key) -> Array<f32, 2, 3> {
    random::exponential(k)
}

fn eager_exponential(k: Key) -> Array<f32, 2, 3> {
    random::exponential(k)
}

#[jax::jit]
fn jit_gumbel(k: Key) -> Array<f32, 2, 3> {
    random::gumbel(k)
}

fn eager_gumbel(k: Key) -> Array<f32, 2, 3> {
    random::gumbel(k)
}

#[jax::jit]
fn jit_truncated_normal(k: Key) -> Array<f32, 2, 3> {
    random::truncated_normal(k, -1.0, 0.5)
}

fn eager_truncated_normal(k: Key) -> Array<f32, 2, 3> {
    random::truncated_normal(k, -1.0, 0.5)
}

#[jax::jit]
fn jit_randint(k: Key) -> Array<i32, 2, 3> {
    random::randint(k, -3, 20)
}

fn eager_randint(k: Key) -> Array<i32, 2, 3> {
    random::randint(k, -3, 20)
}

#[jax::jit]
fn jit_bernoulli(k: Key, p: f32) -> Array<bool, 2, 3> {
    random::bernoulli(k, p)
}

fn eager_bernoulli(k: Key, p: f32) -> Array<bool, 2, 3> {
    random::bernoulli(k, p)
}

#[jax::jit]
fn jit_bernoulli_each(k: Key, p: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    random::bernoulli_each(k, p)
}

fn eager_bernoulli_each(k: Key, p: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    random::bernoulli_each(k, p)
}

#[jax::jit]
fn jit_categorical(k: Key, logits: &Array<f32, 2, 3>) -> Array<i32, 4, 2> {
    random::categorical(k, logits, -1)
}

fn eager_categorical(k: Key, logits: &Array<f32, 2, 3>) -> Array<i32, 4, 2> {
    random::categorical(k, logits, -1)
}

#[jax::jit]
fn jit_permutation(k: Key) -> Array<i32, 2, 3> {
    random::permutation(k)
}

fn eager_permutation(k: Key) -> Array<i32, 2, 3> {
    random::permutation(k)
}

#[jax::jit]
fn jit_permutation_of(k: Key, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    random::permutation_of(k, x)
}

fn eager_permutation_of(k: Key, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    random::permutation_of(k, x)
}

#[jax::jit]
fn jit_choice(k: Key) -> (Array<i32, 4>, Array<i32, 2, 2>) {
    let a: Array<i32, 4> = random::choice(k, 7, true);
    let b: Array<i32, 2, 2> = random::choice(k, 7, false);
    (a, b)
}

fn eager_choice(k: Key) -> (Array<i32, 4>, Array<i32, 2, 2>) {
    let a: Array<i32, 4> = random::choice(k, 7, true);
    let b: Array<i32, 2, 2> = random::choice(k, 7, false);
    (a, b)
}

#[jax::jit]
fn jit_choice_rows(k: Key, x: &Array<f32, 2, 3>) -> Array<f32, 1, 3> {
    random::choice_rows(k, x, false)
}

fn eager_choice_rows(k: Key, x: &Array<f32, 2, 3>) -> Array<f32, 1, 3> {
    random::choice_rows(k, x, false)
}

#[jax::jit]
fn jit_choice_rows_replace(
    k: Key,
    x: &Array<f32, 2, 3>,
    xi: &Array<i32, 3, 2>,
) -> (Array<f32, 4, 3>, Array<i32, 2, 2, 2>) {
    let a: Array<f32, 4, 3> = random::choice_rows(k, x, true);
    let b: Array<i32, 2, 2, 2> = random::choice_rows(k, xi, true);
    (a, b)
}

fn eager_choice_rows_replace(
    k: Key,
    x: &Array<f32, 2, 3>,
    xi: &Array<i32, 3, 2>,
) -> (Array<f32, 4, 3>, Array<i32, 2, 2, 2>) {
    let a: Array<f32, 4, 3> = random::choice_rows(k, x, true);
    let b: Array<i32, 2, 2, 2> = random::choice_rows(k, xi, true);
    (a, b)
}

#[jax::jit]
fn jit_choice_weighted(k: Key, p: &Array<f32, 6>) -> (Array<i32, 5>, Array<i32, 3>) {
    let a: Array<i32, 5> = random::choice_weighted(k, p, true);
    let b: Array<i32, 3> = random::choice_weighted(k, p, false);
    (a, b)
}

fn eager_choice_weighted(k: Key, p: &Array<f32, 6>) -> (Array<i32, 5>, Array<i32, 3>) {
    let a: Array<i32, 5> = random::choice_weighted(k, p, true);
    let b: Array<i32, 3> = random::choice_weighted(k, p, false);
    (a, b)
}

#[test]
fn random_jitted_equals_eager() {
    let k = random::fold_in(random::key(42), 1);
    assert_eq!(jit_split(k), eager_split(k));
    assert_eq!(jit_fold_in(k, -4), eager_fold_in(k, -4));
    assert_eq!(jit_key_data(k), eager_key_data(k));
    for t in [0, 42, -3] {
        assert_eq!(jit_key(t), eager_key(t));
    }
    let w = Array::<u32, 2>::from([3, 99]);
    assert_eq!(jit_wrap_key_data(&w), eager_wrap_key_data(&w));
    assert_eq!(jit_bits(k), eager_bits(k));
    let x = Array::<f64, 2, 3>::zeros();
    assert_eq!(jit_normal_like(k, &x), eager_normal_like(k, &x));
    assert_eq!(
        jit_normal_like(k, &x).0,
        random::normal::<Array<f64, 2, 3>>(k)
    );
    let p = noisy::Pair {
        w: Array::ones(),
        b: Array::zeros(),
    };
    let eager = jax::tree::map(|n| &n + &(random::normal_like(k, &n) * 0.5f32), &p).unwrap();
    assert_eq!(noisy::noised(k, &p), eager);
    let w: Array<f32, 3, 2> = random::normal(k);
    assert_eq!(eager.w, w * 0.5 + 1.0);
    assert_eq!(jit_uniform(k), eager_uniform(k));
    assert_eq!(jit_uniform_range(k), eager_uniform_range(k));
    assert_eq!(jit_normal(k), eager_normal(k));
    assert_eq!(jit_exponential(k), eager_exponential(k));
    assert_eq!(jit_gumbel(k), eager_gumbel(k));
    assert_eq!(jit_truncated_normal(k), eager_truncated_normal(k));
    assert_eq!(jit_randint(k), eager_randint(k));
    assert_eq!(jit_bernoulli(k, 0.4), eager_bernoulli(k, 0.4));
    let p = Array::<f32, 2, 3>::from([[0.1, 0.5, 0.9], [0.3, 0.7, 0.2]]);
    assert_eq!(jit_bernoulli_each(k, &p), eager_bernoulli_each(k, &p));
    let logits = Array::<f32, 2, 3>::from([[0.0, 1.0, -1.0], [2.0, 2.0, 0.5]]);
    assert_eq!(jit_categorical(k, &logits), eager_categorical(k, &logits));
    assert_eq!(jit_permutation(k), eager_permutation(k));
    assert_eq!(
        jit_permutation_of(k, &logits),
        eager_permutation_of(k, &logits)
    );
    assert_eq!(jit_choice(k), eager_choice(k));
    assert_eq!(jit_choice_rows(k, &logits), eager_choice_rows(k, &logits));
    let xi = Array::<i32, 3, 2>::from([[4, -1], [0, 9], [-7, 2]]);
    assert_eq!(
        jit_choice_rows_replace(k, &logits, &xi),
        eager_choice_rows_replace(k, &logits, &xi)
    );
    let w = Array::<f32, 6>::from([0.1, 0.5, 0.9, 0.3, 0.7, 0.2]);
    assert_eq!(jit_choice_weighted(k, &w), eager_choice_weighted(k, &w));
}
