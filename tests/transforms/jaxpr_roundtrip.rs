//! Print, then import: each function below, written in Rust, has a twin
//! imported (`#[jax::jit(import = ..)]`) from its own printed jaxpr,
//! checked in under tests/fixtures/roundtrip/ (`printed_text_is_checked_in`
//! keeps each file equal to `f::jaxpr()`; `JAX_BLESS=1` rewrites them).
//! The twins give the same values and the same gradients, bit for bit:
//! the text carries the whole program.

use jax::prelude::*;
use jax::random;

#[jax::jit]
fn mlp_loss(
    w1: &Array<f32, 8, 16>,
    b1: &Array<f32, 16>,
    w2: &Array<f32, 16, 4>,
    x: &Array<f32, 32, 8>,
    y: &Array<f32, 32, 4>,
) -> Array<f32> {
    let h = jnp::tanh(x.matmul(w1) + b1);
    let logits = h.matmul(w2);
    let logp = logits.clone() - jax::nn::logsumexp(logits, 1, true);
    -jnp::mean(logp * y.clone())
}

#[jax::jit(import = "../fixtures/roundtrip/mlp_loss.jaxpr")]
fn mlp_loss_imported(
    w1: &Array<f32, 8, 16>,
    b1: &Array<f32, 16>,
    w2: &Array<f32, 16, 4>,
    x: &Array<f32, 32, 8>,
    y: &Array<f32, 32, 4>,
) -> Array<f32>;

#[jax::jit]
fn rnn(w: &Array<f32, 6, 6>, xs: &Array<f32, 5, 6>, h: &Array<f32, 6>) -> Array<f32> {
    let (h, ys) = lax::scan(
        |h: Array<f32, 6>, x: Array<f32, 6>| {
            let h2 = jnp::tanh(w.matmul(&h) + x);
            (h2.clone(), jnp::sin(h2))
        },
        h.clone(),
        xs.clone(),
    );
    h.sum() + ys.sum()
}

#[jax::jit(import = "../fixtures/roundtrip/rnn.jaxpr")]
fn rnn_imported(w: &Array<f32, 6, 6>, xs: &Array<f32, 5, 6>, h: &Array<f32, 6>) -> Array<f32>;

#[jax::jit]
fn conv_relu(x: &Array<f32, 2, 3, 7, 6>, w: &Array<f32, 4, 3, 3, 3>) -> Array<f32> {
    let y = lax::conv(x, w, &[1, 1], "SAME");
    jax::nn::relu(y).sum()
}

#[jax::jit(import = "../fixtures/roundtrip/conv_relu.jaxpr")]
fn conv_relu_imported(x: &Array<f32, 2, 3, 7, 6>, w: &Array<f32, 4, 3, 3, 3>) -> Array<f32>;

#[jax::jit]
fn scatter_gather(x: &Array<f32, 5, 3>, i: &Array<i32, 4>, v: &Array<f32, 4, 3>) -> Array<f32> {
    let y = x.at(i).add(v);
    (y.at(i).get() * v.clone()).sum() + jnp::sum(y)
}

#[jax::jit(import = "../fixtures/roundtrip/scatter_gather.jaxpr")]
fn scatter_gather_imported(
    x: &Array<f32, 5, 3>,
    i: &Array<i32, 4>,
    v: &Array<f32, 4, 3>,
) -> Array<f32>;

#[jax::jit]
fn loop_and_branch(x: &Array<f32, 4>, n: i32) -> Array<f32> {
    let y = lax::fori_loop(
        0,
        n,
        |_i, c: Array<f32, 4>| c * 0.5 + jnp::cos(c.clone()),
        x.clone(),
    );
    let s = y.sum();
    lax::cond(
        s.clone() > 0.0,
        |s: Array<f32>| s * 2.0,
        |s: Array<f32>| -s,
        s,
    )
}

#[jax::jit(import = "../fixtures/roundtrip/loop_and_branch.jaxpr")]
fn loop_and_branch_imported(x: &Array<f32, 4>, n: i32) -> Array<f32>;

#[jax::jit]
fn noisy(k: random::Key, x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    let [k1, k2] = random::split(k);
    let keep: Array<bool, 3, 4> = random::bernoulli(k1, 0.75);
    let z: Array<f32, 3, 4> = random::normal(k2);
    jnp::where_(keep, x.clone() / 0.75, z)
}

#[jax::jit(import = "../fixtures/roundtrip/noisy.jaxpr")]
fn noisy_imported(k: random::Key, x: &Array<f32, 3, 4>) -> Array<f32, 3, 4>;

/// The functions' printed programs, by file name.
fn printed() -> Vec<(&'static str, String)> {
    vec![
        ("mlp_loss", mlp_loss::jaxpr().to_string()),
        ("rnn", rnn::jaxpr().to_string()),
        ("conv_relu", conv_relu::jaxpr().to_string()),
        ("scatter_gather", scatter_gather::jaxpr().to_string()),
        ("loop_and_branch", loop_and_branch::jaxpr().to_string()),
        ("noisy", noisy::jaxpr().to_string()),
    ]
}

/// The files are the default configuration's text: with the `x64` feature
/// the functions print 64-bit loop counters, while the twins still import
/// these files (and must still compute the same).
#[test]
#[cfg_attr(
    feature = "x64",
    ignore = "the files are the default configuration's text"
)]
fn printed_text_is_checked_in() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/roundtrip");
    for (name, text) in printed() {
        let path = format!("{dir}/{name}.jaxpr");
        if std::env::var_os("JAX_BLESS").is_some() {
            std::fs::write(&path, format!("{text}\n")).unwrap();
        }
        let file = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            file.trim_end(),
            text,
            "{name}: run with JAX_BLESS=1 to rewrite {path}"
        );
    }
}

/// Deterministic inputs in [-1, 1).
fn input<A: ArrayType>(seed: u32) -> A
where
    A::Elem: Element,
{
    let n: usize = A::SHAPE.iter().product();
    A::from_data(
        (0..n)
            .map(|i| {
                let h = (i as u32)
                    .wrapping_mul(2654435761)
                    .wrapping_add(seed.wrapping_mul(40503));
                A::Elem::from_f64((h >> 8) as f64 / (1u64 << 23) as f64 - 1.0)
            })
            .collect(),
    )
}

#[track_caller]
fn bits<A: ArrayType>(what: &str, a: &A, b: &A)
where
    A::Elem: Element,
{
    let (x, y): (Vec<u64>, Vec<u64>) = (
        a.data().iter().map(|v| v.to_f64().to_bits()).collect(),
        b.data().iter().map(|v| v.to_f64().to_bits()).collect(),
    );
    assert_eq!(x, y, "{what}");
}

#[test]
fn imported_twins_compute_the_same() {
    let (w1, b1, w2): (Array<f32, 8, 16>, Array<f32, 16>, Array<f32, 16, 4>) =
        (input(1), input(2), input(3));
    let (x, y): (Array<f32, 32, 8>, Array<f32, 32, 4>) = (input(4), input(5));
    bits(
        "mlp_loss",
        &mlp_loss(&w1, &b1, &w2, &x, &y),
        &mlp_loss_imported(&w1, &b1, &w2, &x, &y),
    );
    let (g, gi) = (
        mlp_loss::grad(&w1, &b1, &w2, &x, &y),
        mlp_loss_imported::grad(&w1, &b1, &w2, &x, &y),
    );
    bits("mlp_loss grad", &g, &gi);

    let (w, xs, h): (Array<f32, 6, 6>, Array<f32, 5, 6>, Array<f32, 6>) =
        (input(6), input(7), input(8));
    bits("rnn", &rnn(&w, &xs, &h), &rnn_imported(&w, &xs, &h));
    bits(
        "rnn grad",
        &rnn::grad(&w, &xs, &h),
        &rnn_imported::grad(&w, &xs, &h),
    );

    let (cx, cw): (Array<f32, 2, 3, 7, 6>, Array<f32, 4, 3, 3, 3>) = (input(9), input(10));
    bits(
        "conv_relu",
        &conv_relu(&cx, &cw),
        &conv_relu_imported(&cx, &cw),
    );
    bits(
        "conv_relu grad",
        &conv_relu::grad(&cx, &cw),
        &conv_relu_imported::grad(&cx, &cw),
    );

    let (sx, sv): (Array<f32, 5, 3>, Array<f32, 4, 3>) = (input(11), input(12));
    let si = Array::<i32, 4>::from_data(vec![3, 0, 3, -1]);
    bits(
        "scatter_gather",
        &scatter_gather(&sx, &si, &sv),
        &scatter_gather_imported(&sx, &si, &sv),
    );
    bits(
        "scatter_gather grad",
        &scatter_gather::grad(&sx, &si, &sv),
        &scatter_gather_imported::grad(&sx, &si, &sv),
    );

    let lx: Array<f32, 4> = input(13);
    for n in [0, 1, 5] {
        bits(
            "loop_and_branch",
            &loop_and_branch(&lx, n),
            &loop_and_branch_imported(&lx, n),
        );
    }

    let k = random::key(42);
    let nx: Array<f32, 3, 4> = input(14);
    bits("noisy", &noisy(k, &nx), &noisy_imported(k, &nx));
}
