//! `#[jax::jit]` end to end: the compiled function against the eager path.

use jax::prelude::*;

use crate::common;

#[jax::jit]
fn chain(x: Array<f32, 3>) -> Array<f32, 3> {
    jnp::sin(x) * 2.0 + jnp::cos(x)
}

#[jax::jit]
fn bias_relu(x: &Array<f32, 4, 3>, b: &Array<f32, 3>) -> Array<f32, 4, 3> {
    jnp::maximum(x + b, 0.0)
}

#[jax::jit]
fn row_sums(x: Array<f32, 2, 3>) -> (Array<f32, 2>, Array<f32>) {
    (jnp::sum(x, 1, false), x.sum())
}

#[jax::jit]
fn mm<const N: usize>(a: Array<f32, N, 3>, w: Array<f32, 3, 2>) -> Array<f32, N, 2> {
    a.matmul(w) + 1.0
}

#[jax::jit]
fn scalar(x: f32) -> f32 {
    let mut even = 0;
    let mut odd = 0;
    for i in 0..10 {
        if i % 2 == 0 {
            even += x;
        } else {
            odd += x;
        }
    }
    even + odd
}

#[test]
fn elementwise_chain() {
    let x: Array<f32, 3> = Array::arange();
    let y = chain(x.clone());
    let want: Vec<f32> = x.to_vec().iter().map(|v| v.sin() * 2.0 + v.cos()).collect();
    assert_eq!(y.to_vec(), want);
    assert!(chain::jaxpr().to_string().contains("sin a"));
}

#[test]
fn broadcast_and_max() {
    let x = Array::<f32, 4, 3>::from_fn(|i| i as f32 - 6.0);
    let b = Array::<f32, 3>::from([1.0, -1.0, 0.5]);
    let y = bias_relu(&x, &b);
    let want: Vec<f32> = (0..12)
        .map(|i| (i as f32 - 6.0 + [1.0, -1.0, 0.5][i % 3]).max(0.0))
        .collect();
    assert_eq!(y.to_vec(), want);
}

#[test]
fn reductions() {
    let x: Array<f32, 2, 3> = Array::arange();
    let (rows, all) = row_sums(x);
    assert_eq!(rows.to_vec(), [3.0, 12.0]);
    assert_eq!(all.item(), 15.0);
}

#[test]
fn generic_matmul_at_two_sizes() {
    let w = Array::<f32, 3, 2>::from_fn(|i| i as f32);
    let a4 = Array::<f32, 4, 3>::from_fn(|i| i as f32 * 0.5);
    let y4 = mm(a4.clone(), w.clone());
    for i in 0..4 {
        for j in 0..2 {
            let want: f32 = (0..3)
                .map(|k| a4.as_slice()[i * 3 + k] * w.as_slice()[k * 2 + j])
                .sum::<f32>()
                + 1.0;
            assert_eq!(y4.as_slice()[i * 2 + j], want);
        }
    }
    let y1 = mm(Array::<f32, 1, 3>::ones(), w);
    assert_eq!(y1.to_vec(), [7.0, 10.0]);
}

#[test]
fn pure_uses_internal_state_gives_50() {
    assert_eq!(scalar(5.0), 50.0);
}

#[jax::jit]
fn softmax_rows(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::softmax(x, -1)
}

#[jax::jit]
fn log_softmax_cols(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::log_softmax(x, 0)
}

#[jax::jit]
fn lse(x: &Array<f32, 3, 4>) -> (Array<f32>, Array<f32, 3, 1>) {
    (jnp::logsumexp(x), jnp::logsumexp(x, 1, true))
}

#[jax::jit]
fn shapes(
    x: &Array<f32, 2, 3>,
    y: &Array<f32, 3>,
) -> (Array<f32, 3, 2>, Array<f32, 2, 3>, Array<f32, 5, 3>) {
    let r: Array<f32, 3, 2> = x.reshape();
    let t = x.t();
    let c = jnp::concatenate((x, t.t(), jnp::expand_dims(y, 0)), 0);
    (r, t.t() + y, c)
}

#[jax::jit]
fn arg(x: &Array<f32, 3, 4>) -> (Array<DefaultInt>, Array<DefaultInt, 3>) {
    (jnp::argmax(x), jnp::argmin(x, 1))
}

fn sample() -> Array<f32, 3, 4> {
    Array::from([
        [1.0, -2.0, 3.5, 0.0],
        [100.0, 100.0, -100.0, 7.0],
        [0.5, f32::NEG_INFINITY, 2.0, -1.0],
    ])
}

/// Within `ulps` relative ulps; values below the smallest normal count as
/// equal, since the eager kernels flush subnormal results to zero as XLA does.
fn assert_close<A: jax::ArrayType<Elem = f32>>(got: &A, want: &A, ulps: u32) {
    for (i, (&g, &w)) in got.data().iter().zip(want.data()).enumerate() {
        let close = g == w
            || (g - w).abs() <= f32::EPSILON * ulps as f32 * w.abs()
            || (g.abs() < f32::MIN_POSITIVE && w.abs() < f32::MIN_POSITIVE);
        assert!(close, "element {i}: jit {g} vs eager {w}");
    }
}

#[test]
fn softmax_and_logsumexp_match_eager() {
    let x = sample();
    assert_close(&softmax_rows(&x), &jnp::softmax(&x, -1), 4);
    assert_close(&log_softmax_cols(&x), &jnp::log_softmax(&x, 0), 4);
    let (all, rows) = lse(&x);
    assert_close(&all, &jnp::logsumexp(&x), 4);
    let want_rows: Array<f32, 3, 1> = jnp::logsumexp_axis(&x, 1, true);
    assert_close(&rows, &want_rows, 4);
}

#[test]
fn shape_operations_match_eager() {
    let x: Array<f32, 2, 3> = Array::arange();
    let y = Array::<f32, 3>::from([10.0, 20.0, 30.0]);
    let (r, t, c) = shapes(&x, &y);
    let want_r: Array<f32, 3, 2> = x.reshape();
    assert_eq!(r, want_r);
    assert_eq!(t.to_vec(), (&x + &y).to_vec());
    assert_eq!(
        c.to_vec(),
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0, 30.0]
    );
}

#[test]
fn arg_reductions_match_eager() {
    let x = sample();
    let (a, rows) = arg(&x);
    assert_eq!(a, jnp::argmax(&x));
    let want: Array<DefaultInt, 3> = jnp::argmin_axis(&x, 1, false);
    assert_eq!(rows, want);
}

#[jax::jit]
fn indexing(x: &Array<f32, 5, 6>) -> (Array<f32>, Array<f32, 6>, Array<f32, 3, 2>, Array<f32>) {
    (
        x.at((1, -2)).get(),
        x.at(-1).get(),
        x.slice(s![1..4, ..;3]),
        // Out of bounds reads clamp, as JAX's gathers do.
        x.at((7, 100)).get(),
    )
}

#[test]
fn static_indexing_matches_eager() {
    let x: Array<f32, 5, 6> = Array::arange();
    let (a, row, block, clamped) = indexing(&x);
    let want_a: Array<f32> = x.clone().at((1, -2)).get();
    let want_row: Array<f32, 6> = x.clone().at(-1).get();
    let want_block: Array<f32, 3, 2> = x.slice(s![1..4, ..;3]);
    let want_clamped: Array<f32> = x.clone().at((7, 100)).get();
    assert_eq!(a, want_a);
    assert_eq!(row, want_row);
    assert_eq!(block, want_block);
    assert_eq!(clamped, want_clamped);
    assert_eq!(clamped.item(), 29.0);
}

#[jax::jit]
fn closures_and_match(x: &Array<f32, 4>) -> Array<f32, 4> {
    let scale = 3.0;
    let affine = |v: Array<f32, 4>, b| v * scale + b;
    let mut acc = affine(x.clone(), 1.0);
    for i in 0..4 {
        acc = match i {
            0 => acc + 1.0,
            1 | 2 => acc * 2.0,
            _ => jnp::negative(acc),
        };
    }
    acc
}

#[test]
fn closures_are_inlined_and_static_match_picks_arms() {
    let x = Array::<f32, 4>::from([1.0, -2.0, 0.5, 4.0]);
    let want: Vec<f32> = x
        .to_vec()
        .iter()
        .map(|v| -(((v * 3.0 + 1.0) + 1.0) * 2.0 * 2.0))
        .collect();
    assert_eq!(closures_and_match(&x).to_vec(), want);
}

const BIG: usize = 1 << 20;

#[jax::jit]
fn big_sum(x: &Array<f32, BIG>) -> Array<f32> {
    jnp::sum(jnp::sin(x) * x)
}

#[test]
fn reductions_are_bit_identical_for_any_thread_count() {
    let x = Array::<f32, BIG>::from_fn(|i| ((i as f32) * 0.001).cos());
    let on = |threads: usize| {
        jax::__rt::team::Threads::new(threads)
            .install(|| big_sum(&x))
            .item()
    };
    let (one, two) = (on(1), on(2));
    assert_eq!(one.to_bits(), two.to_bits());
    // And the chunked sum is close to a sequential f64 reference.
    let reference: f64 = x.as_slice().iter().map(|&v| (v.sin() * v) as f64).sum();
    assert!(
        (one as f64 - reference).abs() < 1e-3 * reference.abs().max(1.0),
        "{one} vs {reference}"
    );
}

#[jax::jit]
fn updates(
    x: &Array<f32, 5>,
    m: &Array<f32, 3, 4>,
    r: &Array<f32, 4>,
) -> (
    Array<f32, 5>,
    Array<f32, 5>,
    Array<f32, 3, 4>,
    Array<f32, 3, 4>,
) {
    let y = x.at(1).set(9.0).at(-1).add(10.0).at(0).mul(3.0);
    // Out of bounds updates are dropped, as JAX's scatters.
    let z = x.at(7).set(1.0).at(2).max(100.0).at(3).min(-100.0);
    let row = m.at(1).set(r);
    // An intermediate that is not read again is updated in place.
    let t = jnp::exp(m).at((2, 3)).add(1.0);
    (y, z, row, t)
}

#[test]
fn functional_updates_match_eager() {
    let x: Array<f32, 5> = Array::arange();
    let m: Array<f32, 3, 4> = Array::arange();
    let r = Array::<f32, 4>::from([1.0, 2.0, 3.0, 4.0]);
    let (y, z, row, t) = updates(&x, &m, &r);
    let want_y = x.clone().at(1).set(9.0).at(-1).add(10.0).at(0).mul(3.0);
    let want_z = x.clone().at(7).set(1.0).at(2).max(100.0).at(3).min(-100.0);
    let want_row = m.clone().at(1).set(&r);
    let want_t = jnp::exp(&m).at((2, 3)).add(1.0);
    assert_eq!(y, want_y);
    assert_eq!(z, want_z);
    assert_eq!(row, want_row);
    assert_eq!(t, want_t);
    // The input itself is never changed.
    assert_eq!(x.to_vec(), [0.0, 1.0, 2.0, 3.0, 4.0]);
}

/// A larger body: an MLP with a softmax cross-entropy and assorted
/// elementwise work, to keep the compiler honest on real code.
#[jax::jit]
fn big(
    x: &Array<f32, 8, 6>,
    w1: &Array<f32, 6, 5>,
    b1: &Array<f32, 5>,
    w2: &Array<f32, 5, 3>,
    b2: &Array<f32, 3>,
    y: &Array<f32, 8, 3>,
) -> (Array<f32>, Array<f32, 8, 3>) {
    let h1 = x.matmul(w1) + b1;
    let a1 = jnp::tanh(h1);
    let h2 = a1.matmul(w2) + b2;
    let m = jnp::max_axis(&h2, 1, true);
    let z = &h2 - &m;
    let e = jnp::exp(z.clone());
    let s = jnp::sum_axis(&e, 1, true);
    let logp = z - jnp::log(s);
    let t = jnp::sigmoid(&h2) * 2.0 + 1.0;
    let mut acc = jnp::clip(&h2, -1.0, 1.0);
    for i in 0..4 {
        acc = acc * 0.5 + t.clone() * (i as f32);
    }
    let loss = -(logp * y).sum() / 8.0;
    (loss, acc)
}

#[test]
fn a_larger_function_matches_eager() {
    let x = Array::<f32, 8, 6>::from_fn(|i| (i as f32 * 0.37).sin());
    let w1 = Array::<f32, 6, 5>::from_fn(|i| (i as f32 * 0.11).cos() * 0.3);
    let b1 = Array::<f32, 5>::from_fn(|i| i as f32 * 0.01);
    let w2 = Array::<f32, 5, 3>::from_fn(|i| (i as f32 * 0.23).sin() * 0.5);
    let b2 = Array::<f32, 3>::from([0.1, -0.1, 0.0]);
    let y = Array::<f32, 8, 3>::from_fn(|i| if i % 3 == i / 3 % 3 { 1.0 } else { 0.0 });
    let (loss, acc) = big(&x, &w1, &b1, &w2, &b2, &y);
    // The same computation with the eager operations.
    let h1: Array<f32, 8, 5> = x.matmul(&w1);
    let a1 = jnp::tanh(h1 + &b1);
    let h2: Array<f32, 8, 3> = a1.matmul(&w2) + &b2;
    let m: Array<f32, 8, 1> = jnp::max_axis(&h2, 1, true);
    let z = &h2 - &m;
    let s: Array<f32, 8, 1> = jnp::sum_axis(jnp::exp(&z), 1, true);
    let logp = &z - jnp::log(&s);
    let want_loss = -(logp * &y).sum().item() / 8.0;
    let t = jnp::sigmoid(&h2) * 2.0 + 1.0;
    let mut want_acc = jnp::clip(&h2, -1.0, 1.0);
    for i in 0..4 {
        want_acc = want_acc * 0.5 + &t * (i as f32);
    }
    assert!(
        (loss.item() - want_loss).abs() <= 1e-5 * want_loss.abs().max(1.0),
        "{loss:?} vs {want_loss}"
    );
    for (a, b) in acc.as_slice().iter().zip(want_acc.as_slice()) {
        let (a, b): (f32, f32) = (*a, *b);
        assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
    }
}

#[jax::jit]
fn with_constants(
    x: &Array<f32, 3>,
    s: f32,
) -> (
    Array<DefaultFloat>,
    Array<DefaultInt>,
    Array<DefaultFloat, 2>,
) {
    let c = jnp::array([1.0, 2.0, 3.0]);
    let counts = jnp::array([[1, 2], [3, 4]]);
    (jnp::sum(x * c), jnp::sum(counts), jnp::array([s, s * 2.0]))
}

#[test]
fn constant_arrays_from_literals() {
    let x = Array::<f32, 3>::from([1.0, 1.0, 2.0]);
    let (a, b, c) = with_constants(&x, 1.5);
    assert_eq!(a.item(), 9.0);
    assert_eq!(b.item(), 10);
    assert_eq!(c.to_vec(), [1.5, 3.0]);
    // The literal arrays are the jaxpr's constants, before the `;`.
    let text = with_constants::jaxpr().to_string();
    assert!(text.starts_with("{ lambda a:f"), "{text}");
    assert!(text.contains("[2,2]; c:f32[3] d:f"), "{text}");
}

#[jax::jit]
fn traced_index(
    x: &Array<f32, 5>,
    m: &Array<f32, 3, 4>,
    i: i32,
    j: i32,
) -> (Array<f32>, Array<f32, 4>, Array<f32>) {
    (x.at(i).get(), m.at(j).get(), m.at((j, i)).get())
}

#[test]
fn traced_indices_read_like_jax() {
    let x: Array<f32, 5> = Array::arange();
    let m: Array<f32, 3, 4> = Array::arange();
    for (i, j) in [(0, 0), (2, 1), (-1, -1), (-2, 2), (7, 5), (-9, -9)] {
        let (a, row, e) = traced_index(&x, &m, i, j);
        // Eager reads with the same indices: negatives count from the end,
        // out-of-bounds positions clamp.
        let want_a: Array<f32> = x.clone().at(i).get();
        let want_row: Array<f32, 4> = m.clone().at(j).get();
        let want_e: Array<f32> = m.clone().at((j, i)).get();
        assert_eq!((a, row, e), (want_a, want_row, want_e), "i={i} j={j}");
    }
}

/// The seed's fix for boolean-mask indexing under jit: keep the shape, mask the values.
#[jax::jit]
fn nansum_2(x: Array<f32, 5>) -> Array<f32> {
    let mask = !jnp::isnan(x);
    jnp::where_(mask, x, 0.0).sum()
}

#[test]
fn nansum_with_where_matches_jax() {
    let x = Array::from([1.0f32, 2.0, f32::NAN, 3.0, 4.0]);
    assert_eq!(
        format!("{:?}", nansum_2(x)),
        common::seed_repr("nansum_2_jit")
    );
}

#[jax::jit]
fn filled_like(
    x: Array<f32, 2, 3>,
    v: Array<f32>,
) -> (Array<f32, 2, 3>, Array<f32, 2, 3>, Array<f32, 2, 3>) {
    (
        jnp::zeros_like(x),
        jnp::ones_like(x) + x,
        jnp::full_like(x, v),
    )
}

#[test]
fn zeros_ones_full_like() {
    let x = Array::<f32, 2, 3>::arange();
    let (z, o, f) = filled_like(x.clone(), Array::from(2.5));
    assert_eq!(z.to_vec(), [0.0; 6]);
    assert_eq!(o.to_vec(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(f.to_vec(), [2.5; 6]);
}

#[jax::jit]
fn f64_with_literals(x: &Array<f64, 3>) -> Array<f64, 3> {
    jnp::log(jnp::exp(x) + 1.0) * 0.5
}

/// An explicit f64 stays f64 with weakly typed literals, with or without
/// x64 (the compiler promoted it to the 32-bit default before).
#[test]
fn f64_arrays_stay_f64_with_literals() {
    let x = Array::<f64, 3>::from([0.1, 1e-9, 30.0]);
    let want: Vec<f64> = x
        .to_vec()
        .iter()
        .map(|v| (v.exp() + 1.0).ln() * 0.5)
        .collect();
    for (g, w) in f64_with_literals(&x).to_vec().iter().zip(want) {
        assert!((g - w).abs() < 1e-14, "{g} vs {w}");
    }
}

/// `jnp.round` rounds half to even and leaves integers alone; `lax.round`
/// rounds half away from zero unless given `lax::RoundingMethod`.
#[jax::jit]
fn rounded(x: &Array<f32, 6>) -> (Array<f32, 6>, Array<f32, 6>, Array<f32, 6>) {
    (
        jnp::round(x),
        lax::round(x, lax::RoundingMethod::AwayFromZero),
        lax::round(x, lax::RoundingMethod::ToNearestEven),
    )
}

#[jax::jit]
fn rounded_ints(x: &Array<i32, 3>) -> Array<i32, 3> {
    jnp::round(x)
}

#[test]
fn round_in_jit_as_eager() {
    use lax::RoundingMethod::{AwayFromZero, ToNearestEven};
    let x = Array::<f32, 6>::from([0.5, 1.5, 2.5, -0.5, -2.5, 2.4]);
    let (even, away, even_lax) = rounded(&x);
    assert_eq!(even.to_vec(), jnp::round(&x).to_vec());
    assert_eq!(away.to_vec(), lax::round(&x, AwayFromZero).to_vec());
    assert_eq!(even_lax.to_vec(), lax::round(&x, ToNearestEven).to_vec());
    assert_ne!(even.to_vec(), away.to_vec());
    let text = rounded::jaxpr().to_string();
    assert!(text.contains("round[rounding_method=1] a"), "{text}");
    assert!(text.contains("round[rounding_method=0] a"), "{text}");
    // Integers pass through, with no equation (JAX's jit of jnp.round on
    // int32 is empty).
    let i = Array::<i32, 3>::from([-2, 0, 7]);
    assert_eq!(rounded_ints(&i), i);
    assert_eq!(
        rounded_ints::jaxpr().to_string(),
        "{ lambda ; a:i32[3]. let  in (a,) }"
    );
}

/// `jnp.array` of one traced value is a `copy` (its weak type kept), and
/// `jnp.asarray` the value itself, as in JAX; both differentiate through.
#[jax::jit]
fn as_arrays(x: f32, y: &Array<f32, 3>) -> Array<f32> {
    let s = jnp::array(x * 2.0);
    jnp::sum(jnp::array(y) * jnp::asarray(y)) + s
}

#[test]
fn array_of_traced_values() {
    let y = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    assert_eq!(as_arrays(0.5, &y).item(), 15.0);
    assert_eq!(as_arrays::grad(0.5, &y), 2.0);
    let text = as_arrays::jaxpr().to_string();
    // One copy of the scalar (f64 under x64: a scalar argument is weak) and
    // one of the array; `asarray` adds nothing.
    assert_eq!(text.matches(" = copy ").count(), 2, "{text}");
    assert!(text.contains(":f32[3] = copy b"), "{text}");
}

/// A matmul's result written over in place by its activation, which two
/// outputs then read: the same values as eagerly.
#[jax::jit]
fn shared_activation(
    x: &Array<f32, 4, 3>,
    w: &Array<f32, 3, 2>,
) -> (Array<f32, 4, 2>, Array<f32, 4, 2>) {
    let t = jnp::tanh(x.matmul(w) + 1.0);
    (&t * 2.0, &t * 3.0)
}

#[test]
fn buffers_written_over_in_place_give_eager_values() {
    let x: Array<f32, 4, 3> = Array::<f32, 12>::linspace(-1.0, 1.0).reshape();
    let w = Array::<f32, 3, 2>::from([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.8]]);
    let (a, b) = shared_activation(&x, &w);
    let t = jnp::tanh(x.matmul(&w) + 1.0f32);
    assert_eq!(a.to_vec(), (&t * 2.0f32).to_vec());
    assert_eq!(b.to_vec(), (&t * 3.0f32).to_vec());
}

// The function's own const generics are numbers rustc knows when it compiles
// the function: usable in arithmetic, cast, and mixed with traced values.
#[jax::jit]
fn scale_by_len<const N: usize>(x: &Array<f32, N>) -> Array<f32, N> {
    x * (N as f32)
}

#[jax::jit]
fn mean_by_hand<const N: usize>(x: &Array<f32, N>) -> Array<f32> {
    x.sum() / (N as f32)
}

#[jax::jit]
fn affine_in_len<const N: usize, const M: usize>(x: &Array<f32, N, M>) -> Array<f32, N, M> {
    x * ((N * 2 + M) as f32) - (N as f32) / 2.0
}

#[jax::jit]
fn shift_ints<const N: usize>(x: &Array<i32, N>) -> Array<i32, N> {
    x + N % 3
}

#[test]
fn const_generics_are_static_values_in_the_body() {
    let x = Array::<f32, 4>::from([1.0, 2.0, 3.0, 4.0]);
    assert_eq!(scale_by_len(&x).to_vec(), [4.0, 8.0, 12.0, 16.0]);
    let y = Array::<f32, 3>::from([1.0, 2.0, 6.0]);
    assert_eq!(scale_by_len(&y).to_vec(), [3.0, 6.0, 18.0]);
    assert_eq!(mean_by_hand(&x).item(), 2.5);
    assert_eq!(mean_by_hand::grad(&x).to_vec(), [0.25; 4]);
    let m = Array::<f32, 2, 3>::from([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]);
    // (2 * 2 + 3) = 7; 2 / 2 = 1.
    assert_eq!(
        affine_in_len(&m).to_vec(),
        [-1.0, 6.0, 13.0, 20.0, 27.0, 34.0]
    );
    let k = Array::<i32, 5>::from([0, 1, 2, 3, 4]);
    assert_eq!(shift_ints(&k).to_vec(), [2, 3, 4, 5, 6]);
    let text = scale_by_len::jaxpr().to_string();
    assert!(text.contains("static_value[value=(N as f32)]"), "{text}");
}

#[jax::jit]
fn traced_unsigned_index(x: &Array<f32, 5>, i: u64) -> Array<f32> {
    x.at(i).get()
}

#[test]
fn traced_unsigned_indices_past_i64_clamp_high() {
    let x: Array<f32, 5> = Array::arange();
    for i in [0u64, 3, 5, 1 << 63, u64::MAX] {
        let want: Array<f32> = x.clone().at(i).get();
        assert_eq!(traced_unsigned_index(&x, i), want, "i={i}");
    }
    assert_eq!(traced_unsigned_index(&x, u64::MAX).item(), 4.0);
}

#[jax::jit]
fn softmax_after_row_update(x: &Array<f32, 64, 10>) -> Array<f32, 64, 10> {
    jnp::softmax(x.at(0).set(1.0), -1)
}

/// Row programs run a softmax row by row; an update of one row must not
/// become an update of each row.
#[test]
fn row_programs_keep_whole_array_indices() {
    let x =
        Array::<f32, 64, 10>::from_vec((0..640).map(|k| (k % 7) as f32 * 0.25).collect()).unwrap();
    let eager = jnp::softmax(x.clone().at(0).set(1.0), -1);
    // The eager softmax scales by `1 / sum` and the row program may divide:
    // the last bit can differ; a row updated as the first one would not.
    let got = softmax_after_row_update(&x).to_vec();
    for (k, (g, e)) in got.iter().zip(eager.to_vec()).enumerate() {
        assert!(
            (g - e).abs() <= 2e-7 * e.abs(),
            "element {k}: {g} against {e}"
        );
    }
}

#[jax::jit]
fn scaled_by_own_roll(x: &Array<f32, 64, 10>) -> Array<f32, 64, 10> {
    let e = jnp::exp(x - jnp::max_axis(x, -1, true));
    e * jnp::roll(&e, 3, -1) / jnp::sum_axis(&e, -1, true)
}

#[jax::jit]
fn scaled_by_own_transpose(x: &Array<f32, 64, 4, 4>) -> Array<f32, 64, 4, 4> {
    let e = jnp::exp(x - jnp::max_axis(x, -1, true));
    let t: Array<f32, 64, 4, 4> = jnp::swapaxes(&e, 1, 2);
    e * t / jnp::sum_axis(&jnp::sum_axis(&e, -1, true), -2, true)
}

#[jax::jit]
fn squared_over_sum(x: &Array<f32, 64, 10>) -> Array<f32, 64, 10> {
    let e = jnp::exp(x - jnp::max_axis(x, -1, true));
    e * e / jnp::sum_axis(&e, -1, true)
}

/// A row program keeps a temporary in the output row when the output's loop
/// reads it only at the element it writes. Read at other elements too (a
/// transpose fused into that loop, or a roll), it must stay in a buffer of
/// its own, else the loop would read elements it has already overwritten.
#[test]
fn row_temporaries_share_the_output_row_only_when_read_in_place() {
    let values: Vec<f32> = (0..1024)
        .map(|k| ((k * 37) % 23) as f32 * 0.2 - 2.0)
        .collect();
    let x = Array::<f32, 64, 10>::from_vec(values[..640].to_vec()).unwrap();
    let m: Array<f32, 64, 1> = jnp::max_axis(&x, -1, true);
    let e: Array<f32, 64, 10> = jnp::exp(&x - &m);
    let s: Array<f32, 64, 1> = jnp::sum_axis(&e, -1, true);
    let rolled = (&e * jnp::roll(&e, 3, -1) / &s).to_vec();
    let squared = (&e * &e / &s).to_vec();
    let x3 = Array::<f32, 64, 4, 4>::from_vec(values).unwrap();
    let m3: Array<f32, 64, 4, 1> = jnp::max_axis(&x3, -1, true);
    let e3: Array<f32, 64, 4, 4> = jnp::exp(&x3 - &m3);
    let t3: Array<f32, 64, 4, 4> = jnp::swapaxes(&e3, 1, 2);
    let s3: Array<f32, 64, 4, 1> = jnp::sum_axis(&e3, -1, true);
    let s3: Array<f32, 64, 1, 1> = jnp::sum_axis(&s3, -2, true);
    let transposed = (&e3 * &t3 / &s3).to_vec();
    for (name, got, want) in [
        ("roll", scaled_by_own_roll(&x).to_vec(), rolled),
        ("square", squared_over_sum(&x).to_vec(), squared),
        (
            "transpose",
            scaled_by_own_transpose(&x3).to_vec(),
            transposed,
        ),
    ] {
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 4e-7 * w.abs(),
                "{name}, element {k}: {g} against {w}"
            );
        }
    }
}
