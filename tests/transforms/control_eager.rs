//! `lax::cond`, `switch`, `fori_loop`, `while_loop`, `scan` run eagerly,
//! against the seed examples of `tests/fixtures/seed_examples.json`.

use crate::common;

use jax::{lax, Array, DefaultInt};

fn int_output(name: &str) -> i64 {
    common::seed_output(name)["data"][0].as_i64().unwrap()
}

#[test]
fn fori_loop_sums_an_array() {
    // lax.fori_loop(0, 10, lambda i, x: x + array[i], 0) with array = arange(10).
    let array = Array::<DefaultInt, 10>::arange();
    let total = lax::fori_loop(
        0,
        10,
        |i, x| x + array.clone().at(i).get::<Array<DefaultInt>>().item(),
        0,
    );
    assert_eq!(total as i64, int_output("fori_loop_sum_arange"));
    // lax.fori_loop(0, 3, lambda i, c: c + i, 0).
    let c = lax::fori_loop(0, 3, |i, c| c + i, 0);
    assert_eq!(c as i64, int_output("concretization_in_fori_loop_bound_ok"));
}

#[test]
fn cond_applies_one_branch() {
    // lax.cond(True, lambda x: x + 1, lambda x: x - 1, jnp.array([0.])).
    let out = lax::cond(
        true,
        |x: Array<f32, 1>| x + 1.0f32,
        |x| x - 1.0f32,
        Array::from([0.0f32]),
    );
    let want = common::seed_output("cond_true_array_operand")["data"][0]
        .as_f64()
        .unwrap();
    assert_eq!(out.to_vec(), [want as f32]);
    // Only the chosen branch runs.
    let mut ran = Vec::new();
    lax::cond(Array::from(false), |_: ()| ran.push("true"), |_| (), ());
    assert!(ran.is_empty());
}

#[test]
fn while_loop_and_switch() {
    let (i, x) = lax::while_loop(
        |c: &(i32, f32)| c.0 < 3,
        |(i, x)| (i + 1, x * 2.0),
        (0, 1.5),
    );
    assert_eq!((i, x), (3, 12.0));
    let branches: [&dyn Fn(i32) -> i32; 2] = [&|x| x - 1, &|x| x + 1];
    assert_eq!(lax::switch(0, &branches, 10), 9);
    assert_eq!(lax::switch(5, &branches, 10), 11);
}

#[test]
fn scan_stacks_rows_eagerly() {
    // The seed's func11, eagerly: the same numbers as JAX.
    let out = common::seed_output("scan_func11");
    let arr = Array::<f32, 16>::arange();
    let ones = Array::<f32, 16>::full(1.0);
    let extra = 5.0f32;
    let (c, ys): (Array<f32>, Array<f32, 16>) = lax::scan(
        |carry: Array<f32>, (a, b): (Array<f32>, Array<f32>)| (&carry + a * b + extra, carry),
        Array::from(0.0f32),
        (arr, ones),
    );
    assert_eq!(
        c.item() as f64,
        out["items"][0]["data"][0].as_f64().unwrap()
    );
    let want: Vec<f32> = out["items"][1]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(ys.to_vec(), want);
}

#[test]
fn scan_length_and_reverse() {
    // No xs: `length` steps of a counter; reversed, ys stay in step order.
    let (n, ys): (i32, Array<i32, 4>) = lax::scan_with(
        |c: i32, (): ()| (c + 1, c * c),
        0,
        (),
        lax::ScanOptions {
            length: Some(4),
            ..Default::default()
        },
    );
    assert_eq!((n, ys.to_vec()), (4, vec![0, 1, 4, 9]));
    let xs = Array::<f32, 3>::from([1.0, 2.0, 4.0]);
    let (total, partial): (Array<f32>, Array<f32, 3>) = lax::scan_with(
        |c: Array<f32>, x: Array<f32>| (&c + &x, &c + &x),
        Array::from(0.0f32),
        xs,
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    );
    assert_eq!(total.item(), 7.0);
    assert_eq!(partial.to_vec(), [7.0, 6.0, 4.0]);
}

#[test]
#[should_panic(expected = "disagrees with leading axis sizes 3")]
fn scan_length_must_match_the_xs() {
    let _: (Array<f32>, Array<f32, 3>) = lax::scan_with(
        |c: Array<f32>, x: Array<f32>| (&c + &x, x),
        Array::from(0.0f32),
        Array::<f32, 3>::full(1.0),
        lax::ScanOptions {
            length: Some(2),
            ..Default::default()
        },
    );
}
