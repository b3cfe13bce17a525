//! Control flow inside `#[jax::jit]` (`cond`, `switch`, `fori_loop`,
//! `while_loop`, `scan`): real loops and branches, equal to the eager ones,
//! with forward-mode derivatives, and reverse mode where JAX has it.

use crate::common;

use jax::prelude::*;
use jax::DefaultInt;

#[jax::jit]
fn sum_of_array(array: &Array<DefaultInt, 10>) -> Array<DefaultInt> {
    lax::fori_loop(0, 10, |i, x| x + array.at(i).get(), 0)
}

#[test]
fn seed_fori_loop_sums_an_array() {
    let array = Array::<DefaultInt, 10>::arange();
    let want = common::seed_output("fori_loop_sum_arange")["data"][0]
        .as_i64()
        .unwrap();
    assert_eq!(sum_of_array(&array).item() as i64, want);
}

#[jax::jit]
fn power_iteration(w: &Array<f32, 8, 8>, v: &Array<f32, 8>) -> Array<f32, 8> {
    lax::fori_loop(
        0,
        20,
        |_i, v| {
            let u = w.matmul(&v);
            u / jnp::sqrt(jnp::sum(&u * &u))
        },
        v.clone(),
    )
}

#[jax::jit]
fn tanh_rnn(
    w: &Array<f32, 4, 4>,
    h: &Array<f32, 4>,
    steps: i32,
) -> (Array<f32, 4>, Array<jax::DefaultFloat>) {
    let (h, n) = lax::fori_loop(
        0,
        steps,
        |_i, (h, n)| (jnp::tanh(w.matmul(&h) + 0.1), n + 1.0),
        (h.clone(), 0.0),
    );
    (h, n)
}

#[test]
fn loops_over_arrays_and_tuples_match_eager() {
    let w = Array::<f32, 64>::arange().reshape::<Array<f32, 8, 8>>() / 64.0f32;
    let v0 = Array::<f32, 8>::full(1.0);
    let mut v = v0.clone();
    for _ in 0..20 {
        let u: Array<f32, 8> = w.matmul(&v);
        let norm = jnp::sqrt(jnp::sum(&u * &u)).item();
        v = u / norm;
    }
    let got = power_iteration(&w, &v0);
    for (a, b) in got.to_vec().iter().zip(v.to_vec()) {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
    let w4 = Array::<f32, 16>::arange().reshape::<Array<f32, 4, 4>>() / 16.0f32;
    let h0 = Array::<f32, 4>::from([0.1, -0.2, 0.3, 0.0]);
    let (h, n) = tanh_rnn(&w4, &h0, 5);
    let mut e = h0.clone();
    for _ in 0..5 {
        let pre: Array<f32, 4> = w4.matmul(&e);
        e = jnp::tanh(pre + 0.1f32);
    }
    assert_eq!(n.item(), 5.0);
    for (a, b) in h.to_vec().iter().zip(e.to_vec()) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
    // A traced bound of 0 runs no step.
    assert_eq!(tanh_rnn(&w4, &h0, 0).0, h0);
}

#[jax::jit]
fn repeated_square(x: Array<f32>) -> Array<f32> {
    lax::fori_loop(0, 3, |_i, c| c * c, x)
}

#[test]
fn forward_mode_through_a_loop() {
    // f(x) = x^8: f'(x) = 8 x^7.
    let (y, t) = repeated_square::jvp((Array::from(1.5f32),), (Array::from(1.0f32),));
    assert_eq!(y.item(), 1.5f32.powi(8));
    assert!((t.item() - 8.0 * 1.5f32.powi(7)).abs() < 1e-3);
}

#[jax::jit]
fn seed_cond(operand: &Array<f32, 1>) -> Array<f32, 1> {
    lax::cond(
        true,
        |x: Array<f32, 1>| x + 1.0,
        |x: Array<f32, 1>| x - 1.0,
        operand.clone(),
    )
}

#[jax::jit]
fn traced_cond(x: Array<f32>, w: &Array<f32, 3>) -> (Array<f32, 3>, Array<f32>) {
    lax::cond(
        x.gt(0.0),
        |(x, w): (Array<f32>, Array<f32, 3>)| (jnp::sin(&w) * x, x * 2.0),
        |(x, w): (Array<f32>, Array<f32, 3>)| (w * 0.0 - x, jnp::exp(x)),
        (x, w.clone()),
    )
}

#[test]
fn cond_picks_a_branch() {
    let want = common::seed_output("cond_true_array_operand")["data"][0]
        .as_f64()
        .unwrap();
    assert_eq!(seed_cond(&Array::from([0.0f32])).to_vec(), [want as f32]);
    let w = Array::<f32, 3>::from([0.5, 1.0, 1.5]);
    let (a, b) = traced_cond(Array::from(2.0f32), &w);
    assert_eq!(
        a.to_vec(),
        w.to_vec().iter().map(|v| v.sin() * 2.0).collect::<Vec<_>>()
    );
    assert_eq!(b.item(), 4.0);
    let (a, b) = traced_cond(Array::from(-1.0f32), &w);
    assert_eq!(a.to_vec(), [1.0, 1.0, 1.0]);
    assert_eq!(b.item(), (-1.0f32).exp());
    // Forward mode through the branch taken.
    let (_, t) = cond_scalar::jvp((Array::from(2.0f32),), (Array::from(1.0f32),));
    assert!((t.item() - 3.0 * 2.0f32.cos()).abs() < 1e-6);
    let (_, t) = cond_scalar::jvp((Array::from(-1.0f32),), (Array::from(1.0f32),));
    assert_eq!(t.item(), -2.0);
}

#[jax::jit]
fn cond_scalar(x: Array<f32>) -> Array<f32> {
    lax::cond(
        x.gt(0.0),
        |x: Array<f32>| jnp::sin(x) * 3.0,
        |x: Array<f32>| x * x,
        x,
    )
}

#[jax::jit]
fn doubling(x: Array<f32>) -> Array<f32> {
    // lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]
    let (_, y) = lax::while_loop(
        |c: (Array<DefaultInt>, Array<f32>)| c.0.lt(3),
        |(i, y)| (i + 1, y * x),
        (0, 1.0),
    );
    y
}

#[test]
fn while_loop_runs_until_its_condition_fails() {
    let c = common::case("autodiff", "while_loop_jvp_only@x64_off");
    let x = c["inputs"][0]["data"][0].as_f64().unwrap() as f32;
    let want = c["output"]["data"][0].as_f64().unwrap() as f32;
    assert_eq!(doubling(Array::from(x)).item(), want);
    // Forward mode works; reverse mode is JAX's error (a compile error at
    // `doubling::grad`).
    let (_, t) = doubling::jvp((Array::from(x),), (Array::from(0.5f32),));
    let want_t = c["jvp"]["items"][1]["data"][0].as_f64().unwrap() as f32;
    assert!((t.item() - want_t).abs() < 1e-5, "{} vs {want_t}", t.item());
}

/// The seed's func11: a scan over two arrays with a captured scalar.
#[jax::jit]
fn func11(arr: &Array<f32, 16>, extra: f32) -> (Array<f32>, Array<f32, 16>) {
    let ones = jnp::ones_like(arr);
    lax::scan(
        |carry: Array<f32>, (ae1, ae2): (Array<f32>, Array<f32>)| {
            (carry + ae1 * ae2 + extra, carry)
        },
        0.0,
        (arr.clone(), ones),
    )
}

#[jax::jit]
fn rnn(
    w: &Array<f32, 4, 4>,
    xs: &Array<f32, 6, 4>,
    h: &Array<f32, 4>,
) -> (Array<f32, 4>, Array<f32, 6, 4>) {
    lax::scan(
        |h: Array<f32, 4>, x: Array<f32, 4>| {
            let h2 = jnp::tanh(w.matmul(&h) + x);
            (h2.clone(), h2)
        },
        h.clone(),
        xs.clone(),
    )
}

#[jax::jit(argnums = (0, 1, 2))]
fn rnn_loss(w: &Array<f32, 4, 4>, xs: &Array<f32, 6, 4>, h: &Array<f32, 4>) -> Array<f32> {
    let (h, _) = lax::scan(
        |h: Array<f32, 4>, x: Array<f32, 4>| (jnp::tanh(w.matmul(&h) + x), 0.0),
        h.clone(),
        xs.clone(),
    );
    jnp::sum(h)
}

#[test]
fn scan_stacks_its_outputs() {
    let out = common::seed_output("scan_func11");
    let arr = Array::<f32, 16>::arange();
    let (c, ys) = func11(&arr, 5.0);
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

    let w = Array::<f32, 16>::arange().reshape::<Array<f32, 4, 4>>() / 20.0f32;
    let xs = Array::<f32, 24>::arange().reshape::<Array<f32, 6, 4>>() / 30.0f32;
    let h0 = Array::<f32, 4>::from([0.1, 0.0, -0.1, 0.2]);
    let (h, hs) = rnn(&w, &xs, &h0);
    let mut e = h0.clone();
    let mut all = Vec::new();
    for t in 0..6 {
        let x: Array<f32, 4> = Array::from_vec(xs.to_vec()[t * 4..t * 4 + 4].to_vec()).unwrap();
        let pre: Array<f32, 4> = w.matmul(&e);
        e = jnp::tanh(pre + x);
        all.extend(e.to_vec());
    }
    for (a, b) in h.to_vec().iter().zip(e.to_vec()) {
        assert!((a - b).abs() < 1e-6);
    }
    for (a, b) in hs.to_vec().iter().zip(&all) {
        assert!((a - b).abs() < 1e-6);
    }
    // Forward mode through the scan, against central differences.
    let (_, t) = rnn_loss::jvp(
        (&w, &xs, &h0),
        (&Array::full(1.0), &Array::full(0.0), &Array::full(0.0)),
    );
    let eps = 1e-3f32;
    let plus = rnn_loss(&(&w + eps), &xs, &h0).item();
    let minus = rnn_loss(&(&w - eps), &xs, &h0).item();
    assert!(
        (t.item() - (plus - minus) / (2.0 * eps)).abs() < 1e-2,
        "{} vs {}",
        t.item(),
        (plus - minus) / (2.0 * eps)
    );
}

#[jax::jit]
fn switched(i: i32, x: Array<f32, 2>) -> Array<f32, 2> {
    lax::switch(
        i,
        [
            |x: Array<f32, 2>| x * 2.0,
            |x: Array<f32, 2>| x + 10.0,
            |x: Array<f32, 2>| -x,
        ],
        x,
    )
}

#[jax::jit]
fn switched_static(x: Array<f32, 2>) -> Array<f32, 2> {
    lax::switch(7, [|x: Array<f32, 2>| x * 2.0, |x: Array<f32, 2>| -x], x)
}

#[test]
fn switch_clamps_its_index() {
    let x = Array::<f32, 2>::from([1.0, 2.0]);
    assert_eq!(switched(0, x.clone()).to_vec(), [2.0, 4.0]);
    assert_eq!(switched(1, x.clone()).to_vec(), [11.0, 12.0]);
    assert_eq!(switched(2, x.clone()).to_vec(), [-1.0, -2.0]);
    assert_eq!(switched(9, x.clone()).to_vec(), [-1.0, -2.0]);
    assert_eq!(switched(-3, x.clone()).to_vec(), [2.0, 4.0]);
    assert_eq!(switched_static(x.clone()).to_vec(), [-1.0, -2.0]);
    // Eagerly, the same.
    let branches: [&dyn Fn(f32) -> f32; 3] = [&|v| v * 2.0, &|v| v + 10.0, &|v| -v];
    assert_eq!(lax::switch(9, &branches, 1.0), -1.0);
}

#[jax::jit]
fn rnn_loss_grad_w(
    w: &Array<f32, 4, 4>,
    xs: &Array<f32, 6, 4>,
    h: &Array<f32, 4>,
) -> Array<f32, 4, 4> {
    jax::grad(|w: Array<f32, 4, 4>| {
        let (h, _) = lax::scan(
            |h: Array<f32, 4>, x: Array<f32, 4>| (jnp::tanh(w.matmul(&h) + x), 0.0),
            h.clone(),
            xs.clone(),
        );
        jnp::sum(h)
    })(w.clone())
}

#[test]
fn reverse_mode_through_a_scan_matches_forward_mode() {
    let w = Array::<f32, 16>::arange().reshape::<Array<f32, 4, 4>>() / 20.0f32 - 0.3f32;
    let xs = Array::<f32, 24>::arange().reshape::<Array<f32, 6, 4>>() / 30.0f32;
    let h0 = Array::<f32, 4>::from([0.1, 0.0, -0.1, 0.2]);
    let (gw, gxs, gh) = rnn_loss::grad(&w, &xs, &h0);
    assert_eq!(rnn_loss_grad_w(&w, &xs, &h0), gw);
    // Each entry of each gradient against a jvp along its basis vector.
    fn basis<const N: usize>(k: usize) -> Vec<f32> {
        (0..N).map(|i| if i == k { 1.0 } else { 0.0 }).collect()
    }
    for k in 0..16 {
        let tw = Array::<f32, 4, 4>::from_vec(basis::<16>(k)).unwrap();
        let (_, t) = rnn_loss::jvp((&w, &xs, &h0), (&tw, &Array::full(0.0), &Array::full(0.0)));
        assert!((t.item() - gw.to_vec()[k]).abs() < 1e-5, "dW[{k}]");
    }
    for k in 0..24 {
        let tx = Array::<f32, 6, 4>::from_vec(basis::<24>(k)).unwrap();
        let (_, t) = rnn_loss::jvp((&w, &xs, &h0), (&Array::full(0.0), &tx, &Array::full(0.0)));
        assert!((t.item() - gxs.to_vec()[k]).abs() < 1e-5, "dxs[{k}]");
    }
    for k in 0..4 {
        let th = Array::<f32, 4>::from_vec(basis::<4>(k)).unwrap();
        let (_, t) = rnn_loss::jvp((&w, &xs, &h0), (&Array::full(0.0), &Array::full(0.0), &th));
        assert!((t.item() - gh.to_vec()[k]).abs() < 1e-5, "dh[{k}]");
    }
}

#[jax::jit(argnums = 1)]
fn switch_then_scan(i: i32, x: Array<f32, 3>) -> Array<f32> {
    let y = lax::switch(
        i,
        [
            |x: Array<f32, 3>| jnp::sin(x),
            |x: Array<f32, 3>| x * x,
            |x: Array<f32, 3>| jnp::exp(x) * 0.5,
        ],
        x,
    );
    // A scan inside a scan, reading the outer carry.
    let (s, _) = lax::scan(
        |c: Array<f32>, v: Array<f32>| {
            let (inner, _) = lax::scan(
                |d: Array<f32>, u: Array<f32>| (d * u + c, 0.0),
                1.0,
                y.clone(),
            );
            (c + inner * v, 0.0)
        },
        0.0,
        y.clone(),
    );
    s
}

#[test]
fn reverse_mode_through_switch_and_nested_scans() {
    let x = Array::<f32, 3>::from([0.3, -0.2, 0.5]);
    for i in 0..3 {
        let g = switch_then_scan::grad(i, x.clone());
        for k in 0..3 {
            let mut t = [0.0f32; 3];
            t[k] = 1.0;
            let (_, d) = switch_then_scan::jvp((i, x.clone()), (0, Array::from(t)));
            assert!(
                (d.item() - g.to_vec()[k]).abs() < 1e-5,
                "branch {i}, x[{k}]: {} vs {}",
                d.item(),
                g.to_vec()[k]
            );
        }
    }
}

/// Reversed cumulative sums, with the length given and checked.
#[jax::jit]
fn reverse_cumsum(xs: &Array<f32, 5>) -> (Array<f32>, Array<f32, 5>) {
    lax::scan_with(
        |c: Array<f32>, x: Array<f32>| (&c + &x, &c + &x),
        0.0,
        xs.clone(),
        lax::ScanOptions {
            length: Some(5),
            reverse: true,
            ..Default::default()
        },
    )
}

#[jax::jit]
fn sum_of_reverse_cumsums(xs: &Array<f32, 5>) -> Array<f32> {
    let (_, ys) = lax::scan_with(
        |c: Array<f32>, x: Array<f32>| (&c + &x, &c + &x),
        0.0,
        xs.clone(),
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    );
    jnp::sum(ys)
}

/// A scan over no xs: `length` steps.
#[jax::jit]
fn powers(x: Array<f32>) -> Array<f32, 4> {
    let (_, ys) = lax::scan_with(
        |c: Array<f32>, (): ()| (&c * &x, c),
        1.0,
        (),
        lax::ScanOptions {
            length: Some(4),
            ..Default::default()
        },
    );
    ys
}

#[test]
fn scan_options_match_eager() {
    let xs = Array::<f32, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0]);
    let (total, sums) = reverse_cumsum(&xs);
    let (etotal, esums): (Array<f32>, Array<f32, 5>) = lax::scan_with(
        |c: Array<f32>, x: Array<f32>| (&c + &x, &c + &x),
        Array::from(0.0f32),
        xs.clone(),
        lax::ScanOptions {
            reverse: true,
            ..Default::default()
        },
    );
    assert_eq!(
        (total.item(), sums.to_vec()),
        (etotal.item(), esums.to_vec())
    );
    assert_eq!(sums.to_vec(), [15.0, 14.0, 12.0, 9.0, 5.0]);
    assert_eq!(powers(Array::from(2.0f32)).to_vec(), [1.0, 2.0, 4.0, 8.0]);
    // Reverse mode through a reversed scan: d/dxs of sum(ys) counts how
    // many partial sums each x is in.
    assert_eq!(
        sum_of_reverse_cumsums::grad(&xs).to_vec(),
        [1.0, 2.0, 3.0, 4.0, 5.0]
    );
    // Through `powers`: d/dx of x^3 (the last y) is 3 x^2.
    let (_, pullback) = powers::vjp(Array::from(2.0f32));
    let (g,) = pullback(Array::from([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(g.item(), 12.0);
}

#[jax::jit]
mod particles {
    use jax::prelude::*;

    /// A pytree carried through a loop.
    #[derive(Clone, Debug)]
    pub struct State {
        pub pos: Array<f32, 3>,
        pub vel: Array<f32, 3>,
    }

    /// Ten explicit Euler steps of a spring, the state a struct.
    pub fn simulate(s: &State, k: f32) -> State {
        lax::fori_loop(
            0,
            10,
            |_i, s: State| State {
                pos: &s.pos + &s.vel * 0.1,
                vel: &s.vel - &s.pos * (k * 0.1),
            },
            s.clone(),
        )
    }

    /// The final position's sum, for reverse mode through the struct carry.
    pub fn energy(s: &State, k: f32) -> Array<f32> {
        jnp::sum(simulate(s, k).pos)
    }
}

#[test]
fn struct_carries() {
    let s = particles::State {
        pos: Array::from([1.0, 0.0, -1.0]),
        vel: Array::from([0.0, 0.5, 0.0]),
    };
    let (mut pos, mut vel) = (s.pos.to_vec(), s.vel.to_vec());
    for _ in 0..10 {
        let p2: Vec<f32> = pos.iter().zip(&vel).map(|(p, v)| p + v * 0.1).collect();
        vel = vel
            .iter()
            .zip(&pos)
            .map(|(v, p)| v - p * (2.0f32 * 0.1))
            .collect();
        pos = p2;
    }
    let out = particles::simulate(&s, 2.0);
    for (a, b) in out.pos.to_vec().iter().zip(&pos) {
        assert!((a - b).abs() < 1e-6);
    }
    for (a, b) in out.vel.to_vec().iter().zip(&vel) {
        assert!((a - b).abs() < 1e-6);
    }
    // The gradient with respect to the state is a State, and matches forward mode.
    let g = particles::energy::grad(&s, 2.0);
    let t = particles::State {
        pos: Array::from([1.0, 0.0, 0.0]),
        vel: Array::from([0.0, 0.0, 0.0]),
    };
    let (_, d) = particles::energy::jvp((&s, 2.0), (&t, 0.0));
    assert!((g.pos.to_vec()[0] - d.item()).abs() < 1e-5);
}

/// A trip count computed from the input: a `while` underneath.
#[jax::jit]
fn traced_trip_count(x: Array<f32>) -> Array<f32> {
    lax::fori_loop(0, x.gt(0.0).astype::<i32>() * 3, |_i, c| c * x, 1.0)
}

#[test]
fn traced_bounds_match_jax() {
    let c = common::case("autodiff", "fori_loop_traced_bound_jit_jvp_only@x64_off");
    let x = c["inputs"][0]["data"][0].as_f64().unwrap() as f32;
    let t = c["tangents"][0]["data"][0].as_f64().unwrap() as f32;
    let want = c["output"]["data"][0].as_f64().unwrap() as f32;
    assert_eq!(traced_trip_count(Array::from(x)).item(), want);
    let (y, ty) = traced_trip_count::jvp((Array::from(x),), (Array::from(t),));
    assert_eq!(y.item(), want);
    let want_t = c["jvp"]["items"][1]["data"][0].as_f64().unwrap() as f32;
    assert!(
        (ty.item() - want_t).abs() < 1e-6,
        "{} vs {want_t}",
        ty.item()
    );
    assert!(traced_trip_count::jaxpr().to_string().contains("while["));
    // Zero trips for x <= 0.
    assert_eq!(traced_trip_count(Array::from(-2.0f32)).item(), 1.0);
}
