//! `jax::random` inside `#[jax::jit]`: a sample drawn in a jitted function
//! equals the eager one bit for bit (both call the same per-element
//! function), in fused loops, reductions, nested and parallel loops.

use half::{bf16, f16};
use jax::prelude::*;
use jax::random::{self, Key};

#[jax::jit]
fn noisy(x: &Array<f32, 1000>, k: Key) -> Array<f32, 1000> {
    x + random::normal::<Array<f32, 1000>>(k) * 0.5
}

#[test]
fn fused_normal_equals_eager() {
    let x = Array::<f32, 1000>::arange();
    let k = random::key(3);
    let eager = &x + random::normal::<Array<f32, 1000>>(k) * 0.5f32;
    assert_eq!(noisy(&x, k).to_vec(), eager.to_vec());
}

#[test]
fn samples_print_in_the_jaxpr() {
    let text = noisy::jaxpr().to_string();
    assert!(
        text.contains("c:f32[1000] = random_normal[dtype=float32 shape=(1000,)] b"),
        "{text}"
    );
}

#[jax::jit]
fn samplers(
    k: &Key,
) -> (
    Array<f32, 7>,
    Array<f64, 7>,
    Array<f16, 7>,
    Array<bf16, 7>,
    Array<u32, 7>,
) {
    let g: Array<f32, 7> = random::gumbel(*k);
    let e = random::exponential::<Array<f64, 7>>(*k);
    let t = random::truncated_normal::<Array<f16, 7>>(*k, -1.0, 2.0);
    let u = random::uniform_range::<Array<bf16, 7>>(*k, -2.0, 3.0);
    let b = random::bits::<Array<u32, 7>>(*k);
    (g, e, t, u, b)
}

#[test]
fn every_sampler_equals_eager() {
    let k = random::fold_in(random::key(1), 9);
    let (g, e, t, u, b) = samplers(&k);
    assert_eq!(g, random::gumbel::<Array<f32, 7>>(k));
    assert_eq!(e.to_vec(), random::exponential::<Array<f64, 7>>(k).to_vec());
    assert_eq!(t, random::truncated_normal::<Array<f16, 7>>(k, -1.0, 2.0));
    assert_eq!(u, random::uniform_range::<Array<bf16, 7>>(k, -2.0, 3.0));
    assert_eq!(b, random::bits::<Array<u32, 7>>(k));
}

#[jax::jit]
fn scalar_sample(k: Key) -> Array<f32> {
    random::normal::<Array<f32>>(k) + 1.0
}

#[test]
fn scalar_samples() {
    let k = random::key(5);
    let want = random::normal::<Array<f32>>(k).item() + 1.0;
    assert_eq!(scalar_sample(k).item(), want);
}

const R: usize = 257;
const C: usize = 1031;

#[jax::jit]
fn scaled_matrix(k: Key) -> Array<f32, R, C> {
    random::uniform::<Array<f32, R, C>>(k) * 2.0
}

#[jax::jit]
fn row_sums(x: &Array<f32, R, C>) -> Array<f32, R> {
    x.sum_axis(1, false)
}

#[jax::jit]
fn noise_row_sums(k: Key) -> Array<f32, R> {
    random::uniform::<Array<f32, R, C>>(k).sum_axis(1, false)
}

#[jax::jit]
fn total(x: &Array<f32, R, C>) -> Array<f32> {
    x.sum()
}

#[jax::jit]
fn noise_total(k: Key) -> Array<f32> {
    random::uniform::<Array<f32, R, C>>(k).sum()
}

#[jax::jit]
fn broadcast_noise(x: &Array<f32, R, C>, k: Key) -> Array<f32, R, C> {
    x + random::normal::<Array<f32, 1, C>>(k)
}

/// Large enough for parallel chunks; reductions over a sample fused into
/// their loops equal the same reduction of the stored sample.
#[test]
fn large_samples_in_parallel_loops_and_reductions() {
    let k = random::key(11);
    let u = random::uniform::<Array<f32, R, C>>(k);
    assert_eq!(scaled_matrix(k).to_vec(), (&u * 2.0f32).to_vec());
    assert_eq!(noise_row_sums(k).to_vec(), row_sums(&u).to_vec());
    assert_eq!(noise_total(k).item().to_bits(), total(&u).item().to_bits());
    let x = Array::<f32, R, C>::full(1.0);
    let row: Array<f32, 1, C> = random::normal(k);
    let want: Array<f32, R, C> = jnp::add(&x, &row);
    assert_eq!(broadcast_noise(&x, k).to_vec(), want.to_vec());
}

#[jax::jit]
fn softmax_of_noisy_rows(x: &Array<f32, 8, 16>, k: Key) -> Array<f32, 8, 16> {
    jnp::softmax(x + random::normal::<Array<f32, 16>>(k), -1)
}

#[jax::jit]
fn softmax_rows(x: &Array<f32, 8, 16>) -> Array<f32, 8, 16> {
    jnp::softmax(x, -1)
}

/// A row program (softmax) around a sample shared by every row equals the
/// same program on the stored sum (jitted softmax is compared with jitted
/// softmax: eager `jnp::softmax` may round differently).
#[test]
fn shared_noise_in_a_row_program() {
    let x = Array::<f32, 128>::arange().reshape::<Array<f32, 8, 16>>() / 50.0f32;
    let k = random::key(2);
    let noise: Array<f32, 16> = random::normal(k);
    let noisy: Array<f32, 8, 16> = jnp::add(&x, &noise);
    assert_eq!(
        softmax_of_noisy_rows(&x, k).to_vec(),
        softmax_rows(&noisy).to_vec()
    );
}

/// `random::PRNGKey(t)` of a traced step, as JAX's examples seed each
/// iteration (`advi.py`: `rng = random.PRNGKey(t)` inside a jitted
/// objective): the key eager `random::key(t)` makes, and its draws.
#[jax::jit]
fn seeded(t: i32) -> (Array<u32, 2>, Array<f32, 3>) {
    let k = random::PRNGKey(t);
    (
        random::key_data(k),
        random::normal::<Array<f32, 3>>(random::key(t)),
    )
}

#[jax::jit]
fn seeded_i64(t: Array<i64>) -> Array<u32, 2> {
    random::key_data(random::key(t))
}

#[test]
fn key_of_a_traced_seed_equals_eager() {
    for t in [0i32, 7, -1, i32::MAX, i32::MIN] {
        let (words, draws) = seeded(t);
        // An `int32` seed's key: its 32 bits, the high word 0 (with x64
        // too: JAX shifts an `int32` right by 32 to 0).
        let k = random::key(t as u32 as i64);
        assert_eq!(words.to_vec(), random::key_data(k).to_vec(), "seed {t}");
        assert_eq!(
            draws.to_vec(),
            random::normal::<Array<f32, 3>>(k).to_vec(),
            "seed {t}"
        );
    }
    // A 64-bit seed keeps its high word only with x64, as the eager key;
    // without x64 an `i64` array is JAX's `int32`, its low word.
    for t in [5i64, -2] {
        let got = seeded_i64(Array::from(t)).to_vec();
        assert_eq!(got, random::key_data(random::key(t)).to_vec(), "seed {t}");
    }
}
