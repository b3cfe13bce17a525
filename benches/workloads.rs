//! The workloads of the benchmark tables (`benches/README.md`), compiled
//! with `#[jax::jit]`.
//!
//! `cargo bench --bench workloads` prints one JSON line per workload with the
//! median time of many calls after warm-up; `benches/compare.py` runs this
//! and the same workloads in JAX, and prints both with their ratio.

use std::hint::black_box;

use jax::prelude::*;
use rayon::prelude::*;

#[path = "support/peak.rs"]
mod peak;
#[path = "support/timing.rs"]
mod timing;
use timing::{report, Timing};
#[path = "support/linalg_rows.rs"]
mod linalg_rows;
use linalg_rows::linalg_workloads;

const M1: usize = 1 << 20;
const M16: usize = 1 << 24;

#[jax::jit]
fn tanh_chain_1m(x: &Array<f32, M1>) -> Array<f32, M1> {
    jnp::tanh(x * 1.5 + 0.5) * 2.0
}

#[jax::jit]
fn tanh_chain_16m(x: &Array<f32, M16>) -> Array<f32, M16> {
    jnp::tanh(x * 1.5 + 0.5) * 2.0
}

#[jax::jit]
fn axpb_16m(x: &Array<f32, M16>, a: f32, b: f32) -> Array<f32, M16> {
    x * a + b
}

/// A tiny call: what a jitted call costs beyond its arithmetic.
#[jax::jit]
fn tiny_call(x: &Array<f32, 8>) -> Array<f32, 8> {
    x * 2.0 + 1.0
}

#[jax::jit]
fn sumsq_16m(x: &Array<f32, M16>) -> Array<f32> {
    jnp::sum(x * x)
}

#[jax::jit]
fn triad_16m(x: &Array<f32, M16>, y: &Array<f32, M16>) -> Array<f32, M16> {
    x + y * 1.5
}

#[jax::jit]
fn noisy_16m(x: &Array<f32, M16>, k: jax::random::Key) -> Array<f32, M16> {
    x + jax::random::normal::<Array<f32, M16>>(k) * 0.1
}

#[jax::jit]
fn matmul_1024(a: &Array<f32, 1024, 1024>, b: &Array<f32, 1024, 1024>) -> Array<f32, 1024, 1024> {
    a.matmul(b)
}

#[jax::jit]
fn matmul_256_784_512(a: &Array<f32, 256, 784>, b: &Array<f32, 784, 512>) -> Array<f32, 256, 512> {
    a.matmul(b)
}

#[jax::jit]
fn mlp_forward(
    x: &Array<f32, 256, 784>,
    w1: &Array<f32, 784, 512>,
    b1: &Array<f32, 512>,
    w2: &Array<f32, 512, 10>,
    b2: &Array<f32, 10>,
) -> Array<f32, 256, 10> {
    let h = jnp::tanh(x.matmul(w1) + b1);
    h.matmul(w2) + b2
}

/// The parameters of examples/from_python's digits MLP, in the order its
/// jaxpr takes them (JAX sorts the dict's keys).
#[derive(jax::Pytree, Clone)]
struct DigitsParams {
    b1: Array<f32, 256>,
    b2: Array<f32, 10>,
    w1: Array<f32, 64, 256>,
    w2: Array<f32, 256, 10>,
}

/// `tanh(x @ w1 + b1) @ w2 + b2`, 128×64→256→10: not written here but
/// imported from the jaxpr Python JAX printed (examples/from_python; the
/// path is relative to this file).
#[jax::jit(import = "../examples/from_python/mlp.jaxpr")]
fn mlp_digits_predict(params: &DigitsParams, x: &Array<f32, 128, 64>) -> Array<f32, 128, 10>;

/// Softmax cross-entropy of the MLP: the loss whose gradient trains it.
#[jax::jit(argnums = (0, 1, 2, 3))]
fn mlp_loss(
    w1: &Array<f32, 784, 512>,
    b1: &Array<f32, 512>,
    w2: &Array<f32, 512, 10>,
    b2: &Array<f32, 10>,
    x: &Array<f32, 256, 784>,
    y: &Array<f32, 256, 10>,
) -> Array<f32> {
    let h = jnp::tanh(x.matmul(w1) + b1);
    let logits = h.matmul(w2) + b2;
    -jnp::mean(jnp::sum_axis(jnp::log_softmax(logits, -1) * y, -1, false))
}

#[jax::jit]
fn sin_times_x(x: &Array<f32, M16>) -> Array<f32> {
    jnp::sum(jnp::sin(x) * x)
}

/// 10,000 steps of `h = tanh(W h + x_t)`, W 64×64, through `lax::scan`.
#[jax::jit]
fn rnn_scan_10k(
    w: &Array<f32, 64, 64>,
    xs: &Array<f32, 10000, 64>,
    h: &Array<f32, 64>,
) -> Array<f32, 64> {
    let (h, _) = lax::scan(
        |h: Array<f32, 64>, x: Array<f32, 64>| (jnp::tanh(w.matmul(&h) + x), 0.0),
        h.clone(),
        xs.clone(),
    );
    h
}

/// The same recurrence through `lax::fori_loop`, reading row `i` of `xs`.
#[jax::jit]
fn rnn_fori_10k(
    w: &Array<f32, 64, 64>,
    xs: &Array<f32, 10000, 64>,
    h: &Array<f32, 64>,
) -> Array<f32, 64> {
    lax::fori_loop(
        0,
        10000,
        |i, h| jnp::tanh(w.matmul(&h) + xs.at(i).get()),
        h.clone(),
    )
}

/// `sum(h_T)` of the scan: its gradient with respect to `W` is the
/// benchmark's reverse-mode row.
#[jax::jit]
fn rnn_loss_10k(
    w: &Array<f32, 64, 64>,
    xs: &Array<f32, 10000, 64>,
    h: &Array<f32, 64>,
) -> Array<f32> {
    let (h, _) = lax::scan(
        |h: Array<f32, 64>, x: Array<f32, 64>| (jnp::tanh(w.matmul(&h) + x), 0.0),
        h.clone(),
        xs.clone(),
    );
    jnp::sum(h)
}

#[jax::jit]
fn softmax_rows(x: &Array<f32, 4096, 1024>) -> Array<f32, 4096, 1024> {
    jnp::softmax(x, -1)
}

#[jax::jit]
fn logsumexp_rows(x: &Array<f32, 4096, 1024>) -> Array<f32, 4096> {
    jnp::logsumexp_axis(x, -1, false)
}

#[jax::jit]
fn sum_rows_axis(x: &Array<f32, 4096, 1024>) -> Array<f32, 4096> {
    jnp::sum_axis(x, -1, false)
}

/// Per-example gradients of a 784-1024-1024-10 MLP: `vmap` of `grad` over
/// a batch of 128, the parameters shared (`in_axes = None`).
#[jax::jit]
mod per_example {
    use jax::prelude::*;

    pub const BATCH: usize = 128;

    #[derive(Clone, Debug)]
    pub struct Mlp {
        pub w1: Array<f32, 784, 1024>,
        pub b1: Array<f32, 1024>,
        pub w2: Array<f32, 1024, 1024>,
        pub b2: Array<f32, 1024>,
        pub w3: Array<f32, 1024, 10>,
        pub b3: Array<f32, 10>,
    }

    /// Softmax cross-entropy of one example.
    pub fn loss(p: &Mlp, x: &Array<f32, 784>, y: &Array<f32, 10>) -> Array<f32> {
        let h1 = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        let h2 = jnp::tanh(h1.matmul(&p.w2) + &p.b2);
        let logits = h2.matmul(&p.w3) + &p.b3;
        -jnp::sum(jnp::log_softmax(logits, -1) * y)
    }

    /// Each example's gradient, every leaf with a leading batch axis.
    #[allow(clippy::type_complexity)]
    pub fn grads(
        p: &Mlp,
        xs: &Array<f32, BATCH, 784>,
        ys: &Array<f32, BATCH, 10>,
    ) -> (
        Array<f32, BATCH, 784, 1024>,
        Array<f32, BATCH, 1024>,
        Array<f32, BATCH, 1024, 1024>,
        Array<f32, BATCH, 1024>,
        Array<f32, BATCH, 1024, 10>,
        Array<f32, BATCH, 10>,
    ) {
        let g = jax::vmap(jax::grad(loss), (None, 0, 0))(p, xs, ys);
        (g.w1, g.b1, g.w2, g.b2, g.w3, g.b3)
    }
}

/// The fused training step of JAX's examples/mnist_classifier.py sizes (relu
/// MLP 784-1024-1024-10, batch 128): `value_and_grad` of the softmax
/// cross-entropy, adam with optax's formulas and defaults (lr 1e-3), the
/// update applied, all one `#[jax::jit]` function. `tests/train_step.rs`
/// checks the same step (at small sizes) against JAX + optax.
#[jax::jit]
mod mnist_train {
    use jax::nn;
    use jax::optim;
    use jax::prelude::*;

    pub const BATCH: usize = 128;

    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, 784, 1024>,
        pub b1: Array<f32, 1024>,
        pub w2: Array<f32, 1024, 1024>,
        pub b2: Array<f32, 1024>,
        pub w3: Array<f32, 1024, 10>,
        pub b3: Array<f32, 10>,
    }

    pub fn loss(p: &Params, x: &Array<f32, BATCH, 784>, y: &Array<f32, BATCH, 10>) -> Array<f32> {
        let h1 = nn::relu(x.matmul(&p.w1) + &p.b1);
        let h2 = nn::relu(h1.matmul(&p.w2) + &p.b2);
        let logits = h2.matmul(&p.w3) + &p.b3;
        -jnp::mean(jnp::sum_axis(jnp::log_softmax(logits, -1) * y, -1, false))
    }

    /// One step: loss and gradient, `optim::adam(1e-3)` (optax's defaults),
    /// parameters updated; `p` and `s` are donated.
    pub fn step(
        p: Params,
        s: optim::AdamState<Params>,
        x: &Array<f32, BATCH, 784>,
        y: &Array<f32, BATCH, 10>,
    ) -> (Params, optim::AdamState<Params>, Array<f32>) {
        let (l, g) = jax::value_and_grad(loss)(&p, x, y);
        let (updates, s) = optim::adam(1e-3).update(&g, s, &p);
        (optim::apply_updates(&p, &updates), s, l)
    }
}

/// `tanh(W x + b)`, 256 -> 256: its `jacrev` (the pullback `vmap`ped over
/// the 256 output basis vectors) is a workload.
#[jax::jit]
fn tanh_layer_256(
    x: &Array<f32, 256>,
    w: &Array<f32, 256, 256>,
    b: &Array<f32, 256>,
) -> Array<f32, 256> {
    jnp::tanh(w.matmul(x) + b)
}

/// A fixed, cheap pseudo-random fill in [-1, 1) (xorshift).
fn random_vec(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect()
}

/// Labels: row r is class r % 10, one-hot.
fn one_hot_rows<const R: usize>() -> Array<f32, R, 10> {
    Array::from_fn(|k| if k % 10 == (k / 10) % 10 { 1.0 } else { 0.0 })
}

/// A jitted NHWC/HWIO "SAME" convolution and its vjp (both operands'
/// cotangents from the output's), for the conv rows.
macro_rules! conv_workload {
    ($fwd:ident, $vjp:ident, [$($x:literal),+], [$($w:literal),+], [$($y:literal),+]) => {
        #[jax::jit]
        fn $fwd(x: &Array<f32, $($x),+>, w: &Array<f32, $($w),+>) -> Array<f32, $($y),+> {
            lax::conv_general_dilated(x, w, &[1, 1], "SAME", None, None, Some(("NHWC", "HWIO", "NHWC")), 1)
        }

        #[jax::jit]
        fn $vjp(
            x: &Array<f32, $($x),+>,
            w: &Array<f32, $($w),+>,
            g: &Array<f32, $($y),+>,
        ) -> (Array<f32, $($x),+>, Array<f32, $($w),+>) {
            let (_y, pullback) = jax::vjp(
                |x, w| {
                    let y: Array<f32, $($y),+> = lax::conv_general_dilated(
                        &x, &w, &[1, 1], "SAME", None, None, Some(("NHWC", "HWIO", "NHWC")), 1,
                    );
                    y
                },
                x,
                w,
            );
            pullback(g)
        }
    };
}

conv_workload!(
    conv_lenet_1_32,
    conv_lenet_1_32_vjp,
    [128, 28, 28, 1],
    [5, 5, 1, 32],
    [128, 28, 28, 32]
);
conv_workload!(
    conv_lenet_32_64,
    conv_lenet_32_64_vjp,
    [128, 14, 14, 32],
    [5, 5, 32, 64],
    [128, 14, 14, 64]
);
conv_workload!(
    conv_resnet_3x3_64,
    conv_resnet_3x3_64_vjp,
    [8, 56, 56, 64],
    [3, 3, 64, 64],
    [8, 56, 56, 64]
);

/// A LeNet layer as users write it: conv, bias, relu (the bias and relu
/// ride on the convolution's output write).
#[jax::jit]
fn conv_lenet_1_32_bias_relu(
    x: &Array<f32, 128, 28, 28, 1>,
    w: &Array<f32, 5, 5, 1, 32>,
    b: &Array<f32, 32>,
) -> Array<f32, 128, 28, 28, 32> {
    let y = lax::conv_general_dilated(
        x,
        w,
        &[1, 1],
        "SAME",
        None,
        None,
        Some(("NHWC", "HWIO", "NHWC")),
        1,
    );
    jax::nn::relu(y + b)
}

fn random<const N: usize>(seed: u32) -> Array<f32, N> {
    Array::from_vec(random_vec(N, seed)).unwrap()
}

fn random2<const R: usize, const C: usize>(seed: u32) -> Array<f32, R, C> {
    Array::from_vec(random_vec(R * C, seed)).unwrap()
}

/// Eager calls of composites written once (`jax_core`'s texts run op by
/// op on the eager kernels): rows `*_eager`, each on the input its name
/// says, so a change to an eager kernel or to a composite's text shows here.
fn eager_composites(t: &Timing, run: &dyn Fn(&str) -> bool) {
    let row = |name: &str, f: &mut dyn FnMut()| {
        if run(name) {
            let s = t.run(f);
            report(name, t, s);
        }
    };
    let x = random2::<1024, 1024>(60);
    let small = random2::<8, 10>(61);
    row("tril_1024_eager", &mut || {
        drop(black_box(jnp::tril(black_box(&x), 0)))
    });
    row("tril_8x10_eager", &mut || {
        drop(black_box(jnp::tril(black_box(&small), 0)))
    });
    row("trace_1024_eager", &mut || {
        let r: Array<f32> = jnp::trace(black_box(&x), 0, 0, 1);
        drop(black_box(r))
    });
    row("roll_1024_eager", &mut || {
        drop(black_box(jnp::roll(black_box(&x), 3, 1)))
    });
    let idx: Array<i32, 4096> =
        Array::from_vec((0..4096).map(|i| (i * 31) % 1024).collect()).unwrap();
    row("take_rows_eager", &mut || {
        let r: Array<f32, 4096, 1024> = jnp::take(black_box(&x), &idx, 0);
        drop(black_box(r))
    });
    row("median_rows_eager", &mut || {
        let r: Array<f32, 1024> = jnp::median_axis(black_box(&x), 1, false);
        drop(black_box(r))
    });
    let v = random::<1024>(62);
    let sorted = jnp::sort(&v, 0);
    row("searchsorted_1024_eager", &mut || {
        drop(black_box(jnp::searchsorted(&sorted, black_box(&v), "left")))
    });
    let k = jax::random::key(0);
    row("permutation_64k_eager", &mut || {
        drop(black_box(jax::random::permutation::<Array<i32, 65536>>(
            black_box(k),
        )))
    });
    row("randint_1m_eager", &mut || {
        drop(black_box(jax::random::randint::<Array<i32, M1>>(
            black_box(k),
            0,
            10,
        )))
    });
    let m = random2::<256, 256>(63);
    row("einsum_matmul_256_eager", &mut || {
        let r: Array<f32, 256, 256> = jnp::einsum("ij,jk->ik", (black_box(&m), &m));
        drop(black_box(r))
    });
}

/// `cargo bench --bench workloads -- [FILTER] [--budget=S] [--warmup=N]
/// [--min-samples=N] [--max-samples=N]`: runs the workloads whose names
/// contain FILTER (all by default; `NAME$` runs NAME alone). cargo's own
/// `--bench` is ignored.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let run = |name: &str| {
        filter.as_deref().is_none_or(|f| match f.strip_suffix('$') {
            Some(exact) => name == exact,
            None => name.contains(f),
        })
    };
    let t = Timing::from_args(&args);

    linalg_workloads(&t, &run);
    eager_composites(&t, &run);
    if run("tanh_chain_1m") {
        let x = random::<M1>(1);
        let s = t.run(|| drop(black_box(tanh_chain_1m(black_box(&x)))));
        report("tanh_chain_1m", &t, s);
    }
    if run("tanh_chain_16m") {
        let x = random::<M16>(2);
        let s = t.run(|| drop(black_box(tanh_chain_16m(black_box(&x)))));
        report("tanh_chain_16m", &t, s);
    }
    if run("axpb_16m") {
        let x = random::<M16>(3);
        let s = t.run(|| drop(black_box(axpb_16m(black_box(&x), 1.5, 0.5))));
        report("axpb_16m", &t, s);
    }
    if run("tiny_call") {
        let x = random::<8>(7);
        let s = t.run(|| drop(black_box(tiny_call(black_box(&x)))));
        report("tiny_call", &t, s);
    }
    if run("sumsq_16m") {
        let x = random::<M16>(4);
        let s = t.run(|| drop(black_box(sumsq_16m(black_box(&x)))));
        report("sumsq_16m", &t, s);
    }
    if run("triad_16m") {
        let (x, y) = (random::<M16>(5), random::<M16>(6));
        let s = t.run(|| drop(black_box(triad_16m(black_box(&x), black_box(&y)))));
        report("triad_16m", &t, s);
    }
    if run("triad_16m_into") {
        // Not jitted: the triad written into a buffer allocated once, split
        // over rayon's threads. Every jitted call allocates (and the kernel
        // zero-fills) a fresh 64 MB output; this shows the bandwidth left
        // without that, the counterpart of JAX's donated triad.
        let (x, y) = (random_vec(M16, 5), random_vec(M16, 6));
        let mut out = vec![0f32; M16];
        let s = t.run(|| {
            out.par_chunks_mut(1 << 16)
                .zip(x.par_chunks(1 << 16))
                .zip(y.par_chunks(1 << 16))
                .for_each(|((o, x), y)| {
                    for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
                        *o = x + y * 1.5;
                    }
                });
            black_box(&mut out);
        });
        report("triad_16m_into", &t, s);
    }
    if run("uniform_16m") {
        let k = jax::random::key(0);
        let s = t.run(|| {
            drop(black_box(jax::random::uniform::<Array<f32, M16>>(
                black_box(k),
            )))
        });
        report("uniform_16m", &t, s);
    }
    if run("noisy_16m") {
        let x = random::<M16>(17);
        let k = jax::random::key(0);
        let s = t.run(|| drop(black_box(noisy_16m(black_box(&x), black_box(k)))));
        report("noisy_16m", &t, s);
    }
    if run("normal_16m") {
        let k = jax::random::key(0);
        let s = t.run(|| {
            drop(black_box(jax::random::normal::<Array<f32, M16>>(
                black_box(k),
            )))
        });
        report("normal_16m", &t, s);
    }
    if run("softmax_rows") && filter.as_deref() != Some("softmax_rows_eager") {
        let x = random2::<4096, 1024>(16);
        let s = t.run(|| drop(black_box(softmax_rows(black_box(&x)))));
        report("softmax_rows", &t, s);
    }
    if run("softmax_rows_eager") {
        let x = random2::<4096, 1024>(16);
        let s = t.run(|| drop(black_box(jnp::softmax(black_box(&x), -1))));
        report("softmax_rows_eager", &t, s);
    }
    if run("logsumexp_rows") && filter.as_deref() != Some("logsumexp_rows_eager") {
        let x = random2::<4096, 1024>(16);
        let s = t.run(|| drop(black_box(logsumexp_rows(black_box(&x)))));
        report("logsumexp_rows", &t, s);
    }
    if run("logsumexp_rows_eager") {
        let x = random2::<4096, 1024>(16);
        let s = t.run(|| {
            let r: Array<f32, 4096> = jnp::logsumexp_axis(black_box(&x), -1, false);
            drop(black_box(r))
        });
        report("logsumexp_rows_eager", &t, s);
    }
    // Convolutions (NHWC / HWIO, "SAME"), jitted: a LeNet-size pair of
    // layers and a ResNet block's 3×3 conv, forward and their vjp.
    macro_rules! conv_rows {
        ($name:literal, $grad:literal, $fwd:ident, $vjp:ident, [$($x:literal),+], [$($w:literal),+], [$($y:literal),+], $seed:literal) => {
            if run($name) || run($grad) {
                let x: Array<f32, $($x),+> = Array::from_vec(random_vec(1 $(* $x)+, $seed)).unwrap();
                let w: Array<f32, $($w),+> = Array::from_vec(random_vec(1 $(* $w)+, $seed + 1)).unwrap();
                if run($name) {
                    let s = t.run(|| drop(black_box($fwd(black_box(&x), black_box(&w)))));
                    report($name, &t, s);
                }
                if run($grad) {
                    let g: Array<f32, $($y),+> = Array::from_vec(random_vec(1 $(* $y)+, $seed + 2)).unwrap();
                    let s = t.run(|| drop(black_box($vjp(black_box(&x), black_box(&w), black_box(&g)))));
                    report($grad, &t, s);
                }
            }
        };
    }
    conv_rows!(
        "conv_lenet_1_32",
        "conv_lenet_1_32_vjp",
        conv_lenet_1_32,
        conv_lenet_1_32_vjp,
        [128, 28, 28, 1],
        [5, 5, 1, 32],
        [128, 28, 28, 32],
        40
    );
    if run("conv_lenet_1_32_bias_relu") {
        let x: Array<f32, 128, 28, 28, 1> = Array::from_vec(random_vec(128 * 28 * 28, 40)).unwrap();
        let w: Array<f32, 5, 5, 1, 32> = Array::from_vec(random_vec(5 * 5 * 32, 41)).unwrap();
        let b = random::<32>(43);
        let s = t.run(|| {
            drop(black_box(conv_lenet_1_32_bias_relu(
                black_box(&x),
                black_box(&w),
                black_box(&b),
            )))
        });
        report("conv_lenet_1_32_bias_relu", &t, s);
    }
    conv_rows!(
        "conv_lenet_32_64",
        "conv_lenet_32_64_vjp",
        conv_lenet_32_64,
        conv_lenet_32_64_vjp,
        [128, 14, 14, 32],
        [5, 5, 32, 64],
        [128, 14, 14, 64],
        42
    );
    conv_rows!(
        "conv_resnet_3x3_64",
        "conv_resnet_3x3_64_vjp",
        conv_resnet_3x3_64,
        conv_resnet_3x3_64_vjp,
        [8, 56, 56, 64],
        [3, 3, 64, 64],
        [8, 56, 56, 64],
        44
    );
    if run("mlp_loss") {
        let x = random2::<256, 784>(11);
        let w1 = random2::<784, 512>(12);
        let b1 = random::<512>(13);
        let w2 = random2::<512, 10>(14);
        let b2 = random::<10>(15);
        let y = one_hot_rows();
        let s = t.run(|| drop(black_box(mlp_loss(&w1, &b1, &w2, &b2, &x, &y))));
        report("mlp_loss", &t, s);
    }
    if run("mlp_value_and_grad") {
        let x = random2::<256, 784>(11);
        let w1 = random2::<784, 512>(12);
        let b1 = random::<512>(13);
        let w2 = random2::<512, 10>(14);
        let b2 = random::<10>(15);
        let y = one_hot_rows();
        let s = t.run(|| {
            drop(black_box(mlp_loss::value_and_grad(
                &w1, &b1, &w2, &b2, &x, &y,
            )))
        });
        report("mlp_value_and_grad", &t, s);
    }
    if run("grad_sin_times_x_16m") {
        let x = random::<M16>(18);
        let s = t.run(|| drop(black_box(sin_times_x::grad(black_box(&x)))));
        report("grad_sin_times_x_16m", &t, s);
    }
    if run("rnn_scan_10k") {
        let w = random2::<64, 64>(19) / 8.0f32;
        let xs = random2::<10000, 64>(20);
        let h = random::<64>(21);
        let s = t.run(|| drop(black_box(rnn_scan_10k(&w, &xs, &h))));
        report("rnn_scan_10k", &t, s);
    }
    if run("rnn_fori_10k") {
        let w = random2::<64, 64>(19) / 8.0f32;
        let xs = random2::<10000, 64>(20);
        let h = random::<64>(21);
        let s = t.run(|| drop(black_box(rnn_fori_10k(&w, &xs, &h))));
        report("rnn_fori_10k", &t, s);
    }
    if run("rnn_scan_grad_10k") {
        let w = random2::<64, 64>(19) / 8.0f32;
        let xs = random2::<10000, 64>(20);
        let h = random::<64>(21);
        let s = t.run(|| drop(black_box(rnn_loss_10k::grad(&w, &xs, &h))));
        report("rnn_scan_grad_10k", &t, s);
    }
    if run("vmap_per_example_grads_mlp") {
        // Glorot-like scales keep the tanh layers out of saturation.
        let p = per_example::Mlp {
            w1: random2::<784, 1024>(22) * (1.0 / 28.0f32),
            b1: random::<1024>(23) * 0.1f32,
            w2: random2::<1024, 1024>(24) * (1.0 / 32.0f32),
            b2: random::<1024>(25) * 0.1f32,
            w3: random2::<1024, 10>(26) * (1.0 / 32.0f32),
            b3: random::<10>(27) * 0.1f32,
        };
        let xs = random2::<{ per_example::BATCH }, 784>(28);
        let ys = one_hot_rows::<{ per_example::BATCH }>();
        let s = t.run(|| drop(black_box(per_example::grads(&p, black_box(&xs), &ys))));
        report("vmap_per_example_grads_mlp", &t, s);
    }
    if run("mnist_train_step_adam") {
        // A training loop: each call takes the previous call's parameters
        // and adam state by value, as JAX's side feeds back its donated ones.
        let p = mnist_train::Params {
            w1: random2::<784, 1024>(32) * (1.0 / 28.0f32),
            b1: random::<1024>(33) * 0.1f32,
            w2: random2::<1024, 1024>(34) * (1.0 / 32.0f32),
            b2: random::<1024>(35) * 0.1f32,
            w3: random2::<1024, 10>(36) * (1.0 / 32.0f32),
            b3: random::<10>(37) * 0.1f32,
        };
        let s = jax::optim::GradientTransformation::init(&jax::optim::adam(1e-3), &p);
        let x = random2::<{ mnist_train::BATCH }, 784>(38);
        let y = one_hot_rows::<{ mnist_train::BATCH }>();
        let mut carry = Some((p, s));
        let stats = t.run(|| {
            let (p, s) = carry.take().expect("the previous step's state");
            let (p, s, l) = mnist_train::step(p, s, black_box(&x), &y);
            drop(black_box(l));
            carry = Some((p, s));
        });
        report("mnist_train_step_adam", &t, stats);
    }
    if run("mnist_value_and_grad") {
        // The training step's gradient alone: what adam adds is the difference.
        let p = mnist_train::Params {
            w1: random2::<784, 1024>(32) * (1.0 / 28.0f32),
            b1: random::<1024>(33) * 0.1f32,
            w2: random2::<1024, 1024>(34) * (1.0 / 32.0f32),
            b2: random::<1024>(35) * 0.1f32,
            w3: random2::<1024, 10>(36) * (1.0 / 32.0f32),
            b3: random::<10>(37) * 0.1f32,
        };
        let x = random2::<{ mnist_train::BATCH }, 784>(38);
        let y = one_hot_rows::<{ mnist_train::BATCH }>();
        let stats = t.run(|| {
            drop(black_box(mnist_train::loss::value_and_grad(
                &p,
                black_box(&x),
                &y,
            )))
        });
        report("mnist_value_and_grad", &t, stats);
    }
    if run("vmap_jacrev_tanh_layer_256") {
        let x = random::<256>(29);
        let w = random2::<256, 256>(30) * (1.0 / 16.0f32);
        let b = random::<256>(31) * 0.1f32;
        let s = t.run(|| drop(black_box(tanh_layer_256::jacrev(black_box(&x), &w, &b))));
        report("vmap_jacrev_tanh_layer_256", &t, s);
    }
    if run("matmul_1024") {
        let (a, b) = (random2::<1024, 1024>(7), random2::<1024, 1024>(8));
        let s = t.run(|| drop(black_box(matmul_1024(black_box(&a), black_box(&b)))));
        report("matmul_1024", &t, s);
    }
    if run("matmul_256_784_512") {
        let (a, b) = (random2::<256, 784>(9), random2::<784, 512>(10));
        let s = t.run(|| drop(black_box(matmul_256_784_512(black_box(&a), black_box(&b)))));
        report("matmul_256_784_512", &t, s);
    }
    if run("mlp_forward") {
        let x = random2::<256, 784>(11);
        let w1 = random2::<784, 512>(12);
        let b1 = random::<512>(13);
        let w2 = random2::<512, 10>(14);
        let b2 = random::<10>(15);
        let s = t.run(|| drop(black_box(mlp_forward(&x, &w1, &b1, &w2, &b2))));
        report("mlp_forward", &t, s);
    }
    if run("mlp_digits_predict") {
        // Glorot-like scales, as jax_workloads.py's (the values do not
        // change the work; the trained ones are in examples/from_python).
        let p = DigitsParams {
            b1: random::<256>(46) * 0.1f32,
            b2: random::<10>(47) * 0.1f32,
            w1: random2::<64, 256>(48) * (1.0 / 8.0f32),
            w2: random2::<256, 10>(49) * (1.0 / 16.0f32),
        };
        let x = random2::<128, 64>(50);
        let s = t.run(|| drop(black_box(mlp_digits_predict(&p, black_box(&x)))));
        report("mlp_digits_predict", &t, s);
    }
    if run("sum_rows_axis") && filter.as_deref() != Some("sum_rows_axis_eager") {
        let x = random2::<4096, 1024>(16);
        let s = t.run(|| drop(black_box(sum_rows_axis(black_box(&x)))));
        report("sum_rows_axis", &t, s);
    }
    if run("sum_rows_axis_eager") {
        let x = random2::<4096, 1024>(16);
        let s = t.run(|| {
            let r: Array<f32, 4096> = jnp::sum_axis(black_box(&x), -1, false);
            drop(black_box(r))
        });
        report("sum_rows_axis_eager", &t, s);
    }
    if run("fma_peak") {
        // Every thread of the pool runs the chains at once (`broadcast`); the
        // FLOPs of one call over all threads go in the line for compare.py,
        // which takes the fastest call: a peak is what the machine can do,
        // and other processes only ever slow a call down.
        let iters = 1 << 22;
        let width = peak::fma_chains(1).0;
        let flops = rayon::current_num_threads() as f64 * peak::flops(width, iters);
        let s = t.run(|| {
            rayon::broadcast(|_| drop(black_box(peak::fma_chains(black_box(iters)))));
        });
        println!(
            "{{\"name\": \"fma_peak\", \"median_ms\": {:.6}, \"min_ms\": {:.6}, \"samples\": {}, \
             \"flops\": {flops}, \"simd_width\": {width}, \"threads\": {}}}",
            s.median,
            s.min,
            s.samples,
            rayon::current_num_threads()
        );
    }
}
