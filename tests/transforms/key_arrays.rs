//! Arrays of keys inside `#[jax::jit]`: `random::split` with a count that is
//! a const of the mod, a size an inlined generic function binds, or a const
//! generic; `jax::vmap` maps over `[Key; N]` as JAX's vmap maps over the key
//! array `split(k, n)` makes; `jnp::array` stacks keys' words. Values are
//! compared bit for bit with real JAX (`tests/fixtures/key_arrays.json`,
//! from `tests/fixtures/gen/key_arrays.py`).

use jax::prelude::*;
use jax::random::{self, Key};

fn want(name: &str) -> Vec<u64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/key_arrays.json"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["cases"][name]["output"]
        .as_array()
        .unwrap_or_else(|| panic!("no case {name}"))
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

fn bits(x: &[f32]) -> Vec<u64> {
    x.iter().map(|v| u64::from(v.to_bits())).collect()
}

fn words(x: &[u32]) -> Vec<u64> {
    x.iter().map(|&w| u64::from(w)).collect()
}

#[jax::jit]
mod model {
    use jax::prelude::*;
    use jax::random::Key;

    pub const N: usize = 5;
    const M: usize = 4;

    /// A const of the mod as the count, in the annotation.
    pub fn normals(k: Key) -> Array<f32, N, 2> {
        let ks: [Key; N] = random::split(k);
        jax::vmap(|k| random::normal::<Array<f32, 2>>(k), 0, 0, None)(ks)
    }

    /// A const of the mod as the turbofish, lanes out along axis 1.
    pub fn uniforms(k: Key) -> Array<f32, 3, M> {
        jax::vmap(|k| random::uniform::<Array<f32, 3>>(k), 0, 1, None)(random::split::<M>(k))
    }

    /// A generic function's size as the count, bound by its call: the
    /// keys' words, which `vmap` maps over as keys.
    fn keys_of<const B: usize>(k: Key, _like: &Array<f32, B>) -> Array<u32, B, 2> {
        let ks: [Key; B] = random::split(k);
        jnp::array(ks)
    }

    pub fn normals_generic(k: Key, like: &Array<f32, 5>) -> Array<f32, 5, 2> {
        jax::vmap(|k| random::normal::<Array<f32, 2>>(k), 0, 0, None)(keys_of(k, like))
    }

    /// Keys mapped beside an array.
    pub fn folded(k: Key, i: &Array<i32, 3>) -> Array<f32, 3> {
        let ks = random::split::<3>(k);
        jax::vmap(
            |k, i| random::normal::<Array<f32>>(random::fold_in(k, i)),
            0,
            0,
            None,
        )(ks, i)
    }
}

/// `jnp::array` of keys: their words, stacked.
#[jax::jit]
fn stacked(k: Key) -> Array<u32, 3, 2> {
    let [a, b, c] = random::split(k);
    jnp::array([a, b, c])
}

/// `jnp::array` of traced arrays stacks them.
#[jax::jit]
fn two_rows(x: &Array<f32, 3>, y: &Array<f32, 3>) -> Array<f32, 2, 3> {
    jnp::array([x * 2.0, y.clone()])
}

/// A const generic as the count: one key array.
#[jax::jit]
fn split_n<const N: usize>(k: Key) -> Array<u32, N, 2> {
    let ks: [Key; N] = random::split(k);
    jnp::asarray(ks)
}

#[test]
fn vmap_maps_over_split_keys_as_jax() {
    let want5 = want("vmap_normal_split5_key3");
    assert_eq!(bits(&model::normals(random::key(3)).to_vec()), want5);
    let like = Array::<f32, 5>::zeros();
    assert_eq!(
        bits(&model::normals_generic(random::key(3), &like).to_vec()),
        want5
    );
    assert_eq!(
        bits(&model::uniforms(random::key(11)).to_vec()),
        want("vmap_uniform_split4_key11_out1")
    );
    let i = Array::<i32, 3>::from([0, 1, 2]);
    assert_eq!(
        bits(&model::folded(random::key(2), &i).to_vec()),
        want("vmap_fold_in_normal_split3_key2")
    );
}

#[test]
fn keys_stack_into_their_words() {
    assert_eq!(
        words(&stacked(random::key(5)).to_vec()),
        want("array_of_split3_key5")
    );
    assert_eq!(
        words(&split_n::<6>(random::key(9)).to_vec()),
        want("split6_key9")
    );
}

#[test]
fn jnp_array_stacks_traced_arrays() {
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let y = Array::<f32, 3>::from([-1.0, 0.5, 4.0]);
    assert_eq!(two_rows(&x, &y).to_vec(), [2.0, 4.0, 6.0, -1.0, 0.5, 4.0]);
}
