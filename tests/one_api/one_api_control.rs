//! One API, continued from `one_api_core.rs`: control flow (`cond`,
//! `switch`, `fori_loop`, `while_loop`, `scan`) and the eager spellings of
//! arg-reductions, products and shapes, each jitted and compared with its
//! eager twin on the same inputs.

use jax::prelude::*;

use super::one_api_core::{check, inputs};

// Control flow: the jitted closures are typed as jit bodies take them; the
// eager twins are the same programs written for the eager functions.

#[jax::jit]
fn jit_lax_cond(p: Array<f32>, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::cond(
        p.gt(0.0),
        |x: Array<f32, 2, 3>| jnp::sin(x),
        |x: Array<f32, 2, 3>| jnp::cos(x),
        x.clone(),
    )
}

fn eager_lax_cond(p: Array<f32>, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::cond(
        p.item() > 0.0,
        |x: Array<f32, 2, 3>| jnp::sin(x),
        |x: Array<f32, 2, 3>| jnp::cos(x),
        x.clone(),
    )
}

#[jax::jit]
fn jit_lax_switch(i: i32, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::switch(
        i,
        [
            |x: Array<f32, 2, 3>| jnp::sin(x),
            |x: Array<f32, 2, 3>| jnp::exp(x),
        ],
        x.clone(),
    )
}

fn eager_lax_switch(i: i32, x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    let branches: [&dyn Fn(Array<f32, 2, 3>) -> Array<f32, 2, 3>; 2] =
        [&|x| jnp::sin(x), &|x| jnp::exp(x)];
    lax::switch(i as i64, &branches, x.clone())
}

#[jax::jit]
fn jit_lax_fori_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::fori_loop(0, 3, |_i, c: Array<f32, 2, 3>| jnp::sin(c) + x, x.clone())
}

fn eager_lax_fori_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    lax::fori_loop(0, 3, |_i, c: Array<f32, 2, 3>| jnp::sin(c) + x, x.clone())
}

#[jax::jit]
fn jit_lax_while_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    let (_, y) = lax::while_loop(
        |c: (Array<DefaultInt>, Array<f32, 2, 3>)| c.0.lt(4),
        |(i, y)| (i + 1, jnp::sqrt(y) + x),
        (0, x.clone()),
    );
    y
}

fn eager_lax_while_loop(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    let (_, y) = lax::while_loop(
        |c: &(i32, Array<f32, 2, 3>)| c.0 < 4,
        |(i, y)| (i + 1, jnp::sqrt(y) + x),
        (0, x.clone()),
    );
    y
}

#[jax::jit]
fn jit_lax_scan(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        jnp::zeros_like(x.at(0).get::<Array<f32, 3>>()),
        x.clone(),
    )
}

fn eager_lax_scan(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        Array::<f32, 3>::zeros(),
        x.clone(),
    )
}

#[jax::jit]
fn jit_lax_scan_with(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan_with(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        jnp::zeros_like(x.at(0).get::<Array<f32, 3>>()),
        x.clone(),
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    )
}

fn eager_lax_scan_with(x: &Array<f32, 2, 3>) -> (Array<f32, 3>, Array<f32, 2, 3>) {
    lax::scan_with(
        |c: Array<f32, 3>, r: Array<f32, 3>| (jnp::tanh(&c + &r), &c * &r),
        Array::<f32, 3>::zeros(),
        x.clone(),
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    )
}

#[test]
fn control_flow_jitted_equals_eager() {
    let i = inputs();
    for p in [1.0f32, -1.0] {
        let p = Array::from(p);
        check(
            "lax::cond",
            &jit_lax_cond(p.clone(), &i.x),
            &eager_lax_cond(p, &i.x),
        );
    }
    for k in [0, 1, 5] {
        check(
            "lax::switch",
            &jit_lax_switch(k, &i.x),
            &eager_lax_switch(k, &i.x),
        );
    }
    check(
        "lax::fori_loop",
        &jit_lax_fori_loop(&i.x),
        &eager_lax_fori_loop(&i.x),
    );
    check(
        "lax::while_loop",
        &jit_lax_while_loop(&i.x),
        &eager_lax_while_loop(&i.x),
    );
    let (jc, jy) = jit_lax_scan(&i.x);
    let (ec, ey) = eager_lax_scan(&i.x);
    check("lax::scan carry", &jc, &ec);
    check("lax::scan ys", &jy, &ey);
    let (jc, jy) = jit_lax_scan_with(&i.x);
    let (ec, ey) = eager_lax_scan_with(&i.x);
    check("lax::scan_with carry", &jc, &ec);
    check("lax::scan_with ys", &jy, &ey);
}

// Eager spellings brought to jit on this branch (compiler/src/frontend/lib/lax/dot.rs).

#[jax::jit]
fn jit_jnp_argmax_axis(x: &Array<f32, 2, 3>) -> (Array<DefaultInt, 2>, Array<DefaultInt, 1, 3>) {
    (jnp::argmax_axis(x, 1, false), jnp::argmax_axis(x, 0, true))
}

fn eager_jnp_argmax_axis(x: &Array<f32, 2, 3>) -> (Array<DefaultInt, 2>, Array<DefaultInt, 1, 3>) {
    (jnp::argmax_axis(x, 1, false), jnp::argmax_axis(x, 0, true))
}

#[jax::jit]
fn jit_jnp_argmin_axis(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2, 1> {
    jnp::argmin_axis(x, -1, true)
}

fn eager_jnp_argmin_axis(x: &Array<f32, 2, 3>) -> Array<DefaultInt, 2, 1> {
    jnp::argmin_axis(x, -1, true)
}

#[jax::jit]
fn jit_lax_reductions(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f32, 3>, Array<i32, 2>, Array<f32>, Array<i32, 3>) {
    (
        lax::reduce_sum(x, &[0]),
        lax::reduce_prod(n, &[1]),
        lax::reduce_max(x, &[0, 1]),
        lax::reduce_min(n, &[0]),
    )
}

fn eager_lax_reductions(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f32, 3>, Array<i32, 2>, Array<f32>, Array<i32, 3>) {
    (
        lax::reduce_sum(x, &[0]),
        lax::reduce_prod(n, &[1]),
        lax::reduce_max(x, &[0, 1]),
        lax::reduce_min(n, &[0]),
    )
}

#[jax::jit]
fn jit_lax_broadcast_in_dim(w: &Array<f32, 1, 3>) -> Array<f32, 2, 1, 3> {
    lax::broadcast_in_dim(w, &[1, 2])
}

fn eager_lax_broadcast_in_dim(w: &Array<f32, 1, 3>) -> Array<f32, 2, 1, 3> {
    lax::broadcast_in_dim(w, &[1, 2])
}

#[jax::jit]
fn jit_lax_convert_element_type(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f64, 2, 3>, Array<f32, 2, 3>) {
    (
        lax::convert_element_type::<f64, _>(x),
        lax::convert_element_type::<f32, _>(n),
    )
}

fn eager_lax_convert_element_type(
    x: &Array<f32, 2, 3>,
    n: &Array<i32, 2, 3>,
) -> (Array<f64, 2, 3>, Array<f32, 2, 3>) {
    (
        lax::convert_element_type::<f64, _>(x),
        lax::convert_element_type::<f32, _>(n),
    )
}

#[jax::jit]
fn jit_lax_dot_general(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 3, 3> {
    lax::dot_general(x, y, ((&[0], &[0]), (&[], &[])))
}

fn eager_lax_dot_general(x: &Array<f32, 2, 3>, y: &Array<f32, 2, 3>) -> Array<f32, 3, 3> {
    lax::dot_general(x, y, ((&[0], &[0]), (&[], &[])))
}

#[jax::jit]
fn jit_batch_matmul(
    a: &Array<f32, 2, 1, 3>,
    b: &Array<f32, 2, 3, 2>,
) -> (Array<f32, 2, 1, 2>, Array<f32, 2, 1, 2>) {
    (jnp::batch_matmul(a, b), lax::batch_matmul(a, b))
}

fn eager_batch_matmul(
    a: &Array<f32, 2, 1, 3>,
    b: &Array<f32, 2, 3, 2>,
) -> (Array<f32, 2, 1, 2>, Array<f32, 2, 1, 2>) {
    (jnp::batch_matmul(a, b), lax::batch_matmul(a, b))
}

#[test]
fn eager_spellings_jitted_equals_eager() {
    let i = inputs();
    let (a, b) = jit_jnp_argmax_axis(&i.x);
    let (c, d) = eager_jnp_argmax_axis(&i.x);
    check("jnp::argmax_axis", &a, &c);
    check("jnp::argmax_axis keepdims", &b, &d);
    check(
        "jnp::argmin_axis",
        &jit_jnp_argmin_axis(&i.x),
        &eager_jnp_argmin_axis(&i.x),
    );
    let (a, b, c, d) = jit_lax_reductions(&i.x, &i.n);
    let (e, f, g, h) = eager_lax_reductions(&i.x, &i.n);
    check("lax::reduce_sum", &a, &e);
    check("lax::reduce_prod", &b, &f);
    check("lax::reduce_max", &c, &g);
    check("lax::reduce_min", &d, &h);
    check(
        "lax::broadcast_in_dim",
        &jit_lax_broadcast_in_dim(&i.w),
        &eager_lax_broadcast_in_dim(&i.w),
    );
    let (a, b) = jit_lax_convert_element_type(&i.x, &i.n);
    let (c, d) = eager_lax_convert_element_type(&i.x, &i.n);
    check("lax::convert_element_type f64", &a, &c);
    check("lax::convert_element_type f32", &b, &d);
    check(
        "lax::dot_general",
        &jit_lax_dot_general(&i.x, &i.y),
        &eager_lax_dot_general(&i.x, &i.y),
    );
    let a = Array::<f32, 2, 1, 3>::from([[[1.0, 2.0, 3.0]], [[-1.0, 0.5, 2.0]]]);
    let b = Array::<f32, 6, 2>::arange().reshape::<Array<f32, 2, 3, 2>>();
    let (j1, j2) = jit_batch_matmul(&a, &b);
    let (e1, e2) = eager_batch_matmul(&a, &b);
    check("jnp::batch_matmul", &j1, &e1);
    check("lax::batch_matmul", &j2, &e2);
}

#[jax::jit]
fn jit_lax_slice(x: &Array<f32, 2, 3>) -> (Array<f32, 1, 2>, Array<f32, 2, 2>) {
    (
        lax::slice(x, &[1, 0], &[2, 2], None),
        lax::slice(x, &[0, 0], &[2, 3], Some(&[1, 2])),
    )
}

fn eager_lax_slice(x: &Array<f32, 2, 3>) -> (Array<f32, 1, 2>, Array<f32, 2, 2>) {
    (
        lax::slice(x, &[1, 0], &[2, 2], None),
        lax::slice(x, &[0, 0], &[2, 3], Some(&[1, 2])),
    )
}

#[test]
fn lax_slice_jitted_equals_eager() {
    let i = inputs();
    let (a, b) = jit_lax_slice(&i.x);
    let (c, d) = eager_lax_slice(&i.x);
    check("lax::slice", &a, &c);
    check("lax::slice strided", &b, &d);
}
