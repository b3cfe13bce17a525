//! `jax::random` keys computed inside `#[jax::jit]`: `split` and `fold_in`
//! on traced keys (also through `fori_loop` and under `vmap`), and
//! `randint`, `bernoulli`, `categorical` in bodies. Every value is compared
//! bit for bit with real JAX (`tests/fixtures/random_jit.json`, from
//! `tests/fixtures/gen/random_jit.py`) and with the eager functions.

use jax::prelude::*;
use jax::random::{self, Key};
use serde_json::Value;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/random_jit.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The case's output: integers (key words, integer samples, float bits).
fn want(name: &str) -> Vec<u64> {
    fixture()["cases"][name]["output"]
        .as_array()
        .unwrap_or_else(|| panic!("no case {name}"))
        .iter()
        .map(|v| match v {
            Value::Bool(b) => *b as u64,
            v => v.as_i64().map(|i| i as u64).or(v.as_u64()).unwrap(),
        })
        .collect()
}

fn words(keys: &[Key]) -> Vec<u64> {
    keys.iter()
        .flat_map(|k| random::key_data(*k).to_vec())
        .map(u64::from)
        .collect()
}

#[jax::jit]
fn split_two(k: Key) -> (Key, Key) {
    let [a, b] = random::split(k);
    (a, b)
}

#[jax::jit]
fn split_three_of_folded(k: Key) -> (Key, Key, Key) {
    let ks = random::split::<3>(random::fold_in(k, 3));
    (ks[0], ks[1], ks[2])
}

#[jax::jit]
fn fold_in_traced(k: Key, i: i32) -> Key {
    random::fold_in(k, i)
}

#[test]
fn split_and_fold_in_match_jax_and_eager() {
    let (a, b) = split_two(random::key(0));
    assert_eq!(words(&[a, b]), want("split2_key0"));
    assert_eq!([a, b], random::split::<2>(random::key(0)));

    let (a, b, c) = split_three_of_folded(random::key(7));
    assert_eq!(words(&[a, b, c]), want("split3_foldin7_3"));
    assert_eq!(
        [a, b, c],
        random::split::<3>(random::fold_in(random::key(7), 3))
    );

    let k = fold_in_traced(random::key(1), 5);
    assert_eq!(words(&[k]), want("foldin_traced_5"));
    assert_eq!(k, random::fold_in(random::key(1), 5));
}

#[jax::jit]
fn key_through_fori_loop(k: Key) -> Key {
    lax::fori_loop(
        0,
        4,
        |i, k| {
            let ks: [Key; 2] = random::split(k);
            random::fold_in(ks[0], i)
        },
        k,
    )
}

#[test]
fn keys_through_fori_loop() {
    let got = key_through_fori_loop(random::key(2));
    assert_eq!(words(&[got]), want("fori_split_foldin"));
    let eager = lax::fori_loop(
        0,
        4,
        |i, k| random::fold_in(random::split::<2>(k)[0], i),
        random::key(2),
    );
    assert_eq!(got, eager);
}

#[jax::jit]
fn normal_of_split(k: Key) -> Array<f32, 5> {
    let [_, b] = random::split(k);
    random::normal(b)
}

fn float_bits(v: Vec<f32>) -> Vec<u64> {
    v.into_iter().map(|x| x.to_bits() as u64).collect()
}

#[test]
fn samples_from_split_keys() {
    let got = normal_of_split(random::key(3));
    assert_eq!(float_bits(got.to_vec()), want("normal_of_split1"));
    let [_, b] = random::split(random::key(3));
    assert_eq!(got, random::normal::<Array<f32, 5>>(b));
}

#[jax::jit]
fn randints(
    k: Key,
    k5: Key,
    k6: Key,
) -> (Array<i32, 6>, Array<i8, 6>, Array<u8, 6>, Array<i64, 6>) {
    let a: Array<i32, 6> = random::randint(k, 0, 10);
    let b: Array<i8, 6> = random::randint(k, -5, 100);
    let c: Array<u8, 6> = random::randint(k5, 3, 300);
    let d = random::randint::<Array<i64, 6>>(k6, -1000, 1_000_000_000_000);
    (a, b, c, d)
}

#[test]
fn randint_matches_jax_and_eager() {
    let (k, k5, k6) = (random::key(4), random::key(5), random::key(6));
    let (a, b, c, d) = randints(k, k5, k6);
    let ints = |v: Vec<i64>| v.into_iter().map(|x| x as u64).collect::<Vec<_>>();
    assert_eq!(
        ints(a.to_vec().into_iter().map(i64::from).collect()),
        want("randint_i32")
    );
    assert_eq!(
        ints(b.to_vec().into_iter().map(i64::from).collect()),
        want("randint_i8")
    );
    assert_eq!(
        ints(c.to_vec().into_iter().map(i64::from).collect()),
        want("randint_u8_clipped")
    );
    assert_eq!(ints(d.to_vec()), want("randint_i64"));
    assert_eq!(a, random::randint::<Array<i32, 6>>(k, 0, 10));
    assert_eq!(b, random::randint::<Array<i8, 6>>(k, -5, 100));
    assert_eq!(c, random::randint::<Array<u8, 6>>(k5, 3, 300));
    assert_eq!(
        d,
        random::randint::<Array<i64, 6>>(k6, -1000, 1_000_000_000_000)
    );
}

#[jax::jit]
fn bernoullis(k: Key, p: &Array<f32, 6>, k9: Key) -> (Array<bool, 8>, Array<bool, 6>) {
    let a = random::bernoulli::<Array<bool, 8>, _>(k, 0.3);
    (a, random::bernoulli_each(k9, p))
}

#[jax::jit]
fn bernoulli_f32(k: Key) -> Array<bool, 8> {
    random::bernoulli(k, 0.3f32)
}

#[test]
fn bernoulli_matches_jax_and_eager() {
    let p = Array::<f32, 6>::from([0.1, 0.9, 0.5, 0.0, 1.0, 0.25]);
    let (a, b) = bernoullis(random::key(8), &p, random::key(9));
    let bools = |v: Vec<bool>| v.into_iter().map(u64::from).collect::<Vec<_>>();
    // An unsuffixed probability is an f64, as JAX's Python float under x64.
    assert_eq!(bools(a.to_vec()), want("bernoulli_f64"));
    assert_eq!(bools(b.to_vec()), want("bernoulli_each"));
    assert_eq!(
        a,
        random::bernoulli::<Array<bool, 8>, _>(random::key(8), 0.3)
    );
    assert_eq!(b, random::bernoulli_each(random::key(9), &p));
    // A suffixed probability is that type's, as eagerly: float32 draws.
    let c = bernoulli_f32(random::key(8));
    assert_eq!(bools(c.to_vec()), want("bernoulli_f32"));
    assert_eq!(
        c,
        random::bernoulli::<Array<bool, 8>, _>(random::key(8), 0.3f32)
    );
}

#[jax::jit]
fn categoricals(k: Key, logits: &Array<f32, 3, 4>, k11: Key) -> (Array<i32, 3>, Array<i32, 2, 4>) {
    let a: Array<i32, 3> = random::categorical(k, logits, -1);
    let b: Array<i32, 2, 4> = random::categorical(k11, logits, 0);
    (a, b)
}

#[test]
fn categorical_matches_jax_and_eager() {
    let logits = Array::<f32, 3, 4>::from([
        [0.0, 1.0, 2.0, 3.0],
        [3.0, 2.0, 1.0, 0.0],
        [-1.0, 5.0, -1.0, 0.5],
    ]);
    let (a, b) = categoricals(random::key(10), &logits, random::key(11));
    let ints = |v: Vec<i32>| v.into_iter().map(|x| x as u64).collect::<Vec<_>>();
    assert_eq!(ints(a.to_vec()), want("categorical_rows"));
    assert_eq!(ints(b.to_vec()), want("categorical_samples_axis0"));
    assert_eq!(
        a,
        random::categorical::<Array<i32, 3>, _>(random::key(10), &logits, -1)
    );
    assert_eq!(
        b,
        random::categorical::<Array<i32, 2, 4>, _>(random::key(11), &logits, 0)
    );
}

/// Four keys' words, as `jax.random.split(key(12), 4)`.
fn four_keys() -> Array<u32, 4, 2> {
    let ks = random::split::<4>(random::key(12));
    let w: Vec<u32> = ks
        .iter()
        .flat_map(|k| random::key_data(*k).to_vec())
        .collect();
    Array::from_data(w)
}

#[jax::jit]
fn vmapped_normal(ks: &Array<u32, 4, 2>) -> Array<f32, 4, 3> {
    jax::vmap(|k| random::normal::<Array<f32, 3>>(k))(ks)
}

#[jax::jit]
fn vmapped_split_normal(ks: &Array<u32, 4, 2>) -> Array<f32, 4, 3> {
    jax::vmap(|k| {
        let [_, b] = random::split(k);
        random::normal::<Array<f32, 3>>(b)
    })(ks)
}

#[jax::jit]
fn vmapped_fold_in(ks: &Array<u32, 4, 2>, data: &Array<i32, 4>) -> Array<u32, 4, 2> {
    jax::vmap(|k, d| random::fold_in(k, d))(ks, data)
}

#[test]
fn vmap_over_keys() {
    let ks = four_keys();
    assert_eq!(
        ks.to_vec().into_iter().map(u64::from).collect::<Vec<_>>(),
        want("vmap_keys")
    );
    assert_eq!(
        float_bits(vmapped_normal(&ks).to_vec()),
        want("vmap_normal")
    );
    assert_eq!(
        float_bits(vmapped_split_normal(&ks).to_vec()),
        want("vmap_split_normal")
    );
    let data = Array::<i32, 4>::from([0, 1, 2, 3]);
    let folded = vmapped_fold_in(&ks, &data);
    assert_eq!(
        folded
            .to_vec()
            .into_iter()
            .map(u64::from)
            .collect::<Vec<_>>(),
        want("vmap_fold_in")
    );
    // Eagerly, lane by lane.
    let keys = random::split::<4>(random::key(12));
    let eager: Vec<u32> = (0..4)
        .flat_map(|i| random::key_data(random::fold_in(keys[i], i as i32)).to_vec())
        .collect();
    assert_eq!(folded.to_vec(), eager);
}

/// JAX prints a typed key as `key<fry>[..]`; here a key is its two words,
/// `u32[.., 2]`, and the equations are JAX's.
fn as_words(jax_text: &str) -> String {
    jax_text
        .replace("key<fry>[]", "u32[2]")
        .replace("key<fry>[2]", "u32[2,2]")
}

#[jax::jit]
fn split_pair(k: Key) -> Key {
    let [a, _] = random::split(k);
    a
}

#[jax::jit]
fn fold_in_three(k: Key) -> Key {
    random::fold_in(k, 3)
}

#[test]
fn split_and_fold_in_print_as_jax() {
    let jaxprs = &fixture()["jaxprs"];
    let line = |text: &str, prim: &str| -> String {
        text.lines()
            .find(|l| l.contains(prim))
            .unwrap_or_else(|| panic!("no {prim} in {text}"))
            .trim()
            .trim_start_matches("{ lambda ; a:u32[2]. let ")
            .trim_end_matches(" in (b,) }")
            .to_string()
    };
    let ours = split_pair::jaxpr().to_string();
    let theirs = as_words(jaxprs["split"].as_str().unwrap());
    assert_eq!(
        line(&ours, "random_split"),
        line(&theirs, "random_split"),
        "{ours}"
    );
    let ours = fold_in_three::jaxpr().to_string();
    let theirs = as_words(jaxprs["fold_in_static"].as_str().unwrap());
    assert_eq!(
        line(&ours, "random_fold_in"),
        line(&theirs, "random_fold_in"),
        "{ours}"
    );
    let ours = fold_in_traced::jaxpr().to_string();
    let theirs = as_words(jaxprs["fold_in_traced"].as_str().unwrap());
    assert_eq!(ours, theirs);
}

#[jax::jit]
fn permutations(
    k13: Key,
    k14: Key,
    k15: Key,
    x: &Array<f32, 5, 2>,
) -> (Array<i32, 10>, Array<i32, 2000>, Array<f32, 5, 2>) {
    let a: Array<i32, 10> = random::permutation(k13);
    let b: Array<i32, 2000> = random::permutation(k14);
    (a, b, random::permutation_of(k15, x))
}

#[test]
fn permutation_matches_jax_and_eager() {
    let x = Array::<f32, 10>::arange().reshape::<Array<f32, 5, 2>>();
    let (k13, k14, k15) = (random::key(13), random::key(14), random::key(15));
    let (a, b, c) = permutations(k13, k14, k15, &x);
    let ints = |v: Vec<i32>| v.into_iter().map(|x| x as u64).collect::<Vec<_>>();
    assert_eq!(ints(a.to_vec()), want("permutation_10"));
    assert_eq!(ints(b.to_vec()), want("permutation_2000"));
    assert_eq!(float_bits(c.to_vec()), want("permutation_rows"));
    assert_eq!(a, random::permutation::<Array<i32, 10>>(k13));
    assert_eq!(b, random::permutation::<Array<i32, 2000>>(k14));
    assert_eq!(c, random::permutation_of(k15, &x));
}

#[jax::jit]
fn choices(
    k16: Key,
    k17: Key,
    k18: Key,
    x: &Array<f32, 5, 2>,
) -> (Array<i32, 2, 3>, Array<i32, 4>, Array<f32, 3, 2>) {
    let a: Array<i32, 2, 3> = random::choice(k16, 10, true);
    let b: Array<i32, 4> = random::choice(k17, 10, false);
    let c: Array<f32, 3, 2> = random::choice_rows(k18, x, false);
    (a, b, c)
}

#[jax::jit]
fn weighted_choices(k19: Key, k20: Key, p: &Array<f32, 5>) -> (Array<i32, 6>, Array<i32, 3>) {
    let a: Array<i32, 6> = random::choice_weighted(k19, p, true);
    let b: Array<i32, 3> = random::choice_weighted(k20, p, false);
    (a, b)
}

#[test]
fn choice_matches_jax_and_eager() {
    let x = Array::<f32, 10>::arange().reshape::<Array<f32, 5, 2>>();
    let ks: Vec<Key> = (16..21).map(random::key).collect();
    let (a, b, c) = choices(ks[0], ks[1], ks[2], &x);
    let ints = |v: Vec<i32>| v.into_iter().map(|x| x as u64).collect::<Vec<_>>();
    // With replacement: `randint` in the default integer type.
    let replace_case = if cfg!(feature = "x64") {
        "choice_replace_x64_on"
    } else {
        "choice_replace_x64_off"
    };
    assert_eq!(ints(a.to_vec()), want(replace_case));
    assert_eq!(ints(b.to_vec()), want("choice_no_replace"));
    assert_eq!(float_bits(c.to_vec()), want("choice_rows_no_replace"));
    assert_eq!(a, random::choice::<Array<i32, 2, 3>>(ks[0], 10, true));
    assert_eq!(b, random::choice::<Array<i32, 4>>(ks[1], 10, false));
    assert_eq!(
        c,
        random::choice_rows::<Array<f32, 3, 2>, _>(ks[2], &x, false)
    );

    let p = Array::<f32, 5>::from([0.1, 0.4, 0.2, 0.3, 0.0]);
    let (a, b) = weighted_choices(ks[3], ks[4], &p);
    assert_eq!(ints(a.to_vec()), want("choice_p_replace"));
    assert_eq!(ints(b.to_vec()), want("choice_p_no_replace"));
    assert_eq!(
        a,
        random::choice_weighted::<Array<i32, 6>, _>(ks[3], &p, true)
    );
    assert_eq!(
        b,
        random::choice_weighted::<Array<i32, 3>, _>(ks[4], &p, false)
    );
}

/// Dropout with a key split inside a differentiated closure: keys and
/// samples have no derivative, the mask multiplies the gradient.
#[jax::jit]
fn dropout_grad(x: &Array<f32, 8>, k: Key) -> Array<f32, 8> {
    jax::grad(|x: Array<f32, 8>| {
        let [_, mask_key] = random::split(k);
        let keep: Array<bool, 8> = random::bernoulli(mask_key, 0.5);
        jnp::sum(jnp::where_(keep, x * x, 0.0))
    })(x.clone())
}

#[test]
fn gradients_through_keys_made_inside() {
    let x = Array::<f32, 8>::arange();
    let k = random::key(21);
    let [_, mask_key] = random::split(k);
    let keep: Array<bool, 8> = random::bernoulli(mask_key, 0.5);
    let want: Vec<f32> = x
        .to_vec()
        .iter()
        .zip(keep.to_vec())
        .map(|(&v, kept)| if kept { 2.0 * v } else { 0.0 })
        .collect();
    assert_eq!(dropout_grad(&x, k).to_vec(), want);
    assert!(keep.to_vec().contains(&true) && keep.to_vec().contains(&false));
}

/// A key as a `scan` carry: each step splits it and draws from the new key.
#[jax::jit]
fn noisy_steps(k: Key, xs: &Array<f32, 4, 3>) -> (Key, Array<f32, 4, 3>) {
    lax::scan(
        |k: Key, x: Array<f32, 3>| {
            let [next, sub] = random::split(k);
            let noise: Array<f32, 3> = random::normal(sub);
            (next, x + noise)
        },
        k,
        xs.clone(),
    )
}

#[test]
fn keys_through_scan() {
    let xs = Array::<f32, 12>::arange().reshape::<Array<f32, 4, 3>>();
    let k = random::key(22);
    let (kj, yj) = noisy_steps(k, &xs);
    let (ke, ye): (Key, Array<f32, 4, 3>) = lax::scan(
        |k: Key, x: Array<f32, 3>| {
            let [next, sub] = random::split(k);
            let noise: Array<f32, 3> = random::normal(sub);
            (next, x + noise)
        },
        k,
        xs.clone(),
    );
    assert_eq!(kj, ke);
    assert_eq!(yj, ye);
}

/// Keys computed by array operations: a `where_` between two keys' words,
/// and the words of a filled array.
#[jax::jit]
fn keys_from_arrays(
    a: Key,
    b: Key,
    pick_a: bool,
    w: &Array<u32, 2>,
) -> (Array<f32, 3>, Array<f32, 3>) {
    let k = jnp::where_(pick_a, random::key_data(a), random::key_data(b));
    let zero = random::wrap_key_data(&jnp::zeros_like(w));
    (
        random::normal::<Array<f32, 3>>(k),
        random::normal::<Array<f32, 3>>(zero),
    )
}

#[test]
fn keys_from_array_operations() {
    let (a, b) = (random::key(23), random::key(24));
    let w = Array::<u32, 2>::from([5, 6]);
    for pick_a in [true, false] {
        let (x, z) = keys_from_arrays(a, b, pick_a, &w);
        let k = if pick_a { a } else { b };
        assert_eq!(x, random::normal::<Array<f32, 3>>(k));
        assert_eq!(z, random::normal::<Array<f32, 3>>(random::key(0)));
    }
}

#[jax::jit]
fn rows_with_replacement(
    k21: Key,
    k22: Key,
    x: &Array<f32, 5, 2>,
    xi: &Array<i32, 4, 3>,
) -> (Array<f32, 2, 3, 2>, Array<i32, 5, 3>) {
    let a: Array<f32, 2, 3, 2> = random::choice_rows(k21, x, true);
    let b: Array<i32, 5, 3> = random::choice_rows(k22, xi, true);
    (a, b)
}

#[test]
fn choice_rows_with_replacement_matches_jax_and_eager() {
    let x = Array::<f32, 10>::arange().reshape::<Array<f32, 5, 2>>();
    let xi = Array::<i32, 12>::arange().reshape::<Array<i32, 4, 3>>() * 7 - 20;
    let (k21, k22) = (random::key(21), random::key(22));
    let (a, b) = rows_with_replacement(k21, k22, &x, &xi);
    // The indices are `randint` in the default integer type, as in JAX.
    let (float_case, int_case) = if cfg!(feature = "x64") {
        (
            "choice_rows_replace_x64_on",
            "choice_rows_replace_int_x64_on",
        )
    } else {
        (
            "choice_rows_replace_x64_off",
            "choice_rows_replace_int_x64_off",
        )
    };
    assert_eq!(float_bits(a.to_vec()), want(float_case));
    let ints: Vec<u64> = b.to_vec().into_iter().map(|v| v as i64 as u64).collect();
    assert_eq!(ints, want(int_case));
    assert_eq!(
        a,
        random::choice_rows::<Array<f32, 2, 3, 2>, _>(k21, &x, true)
    );
    assert_eq!(
        b,
        random::choice_rows::<Array<i32, 5, 3>, _>(k22, &xi, true)
    );
}
