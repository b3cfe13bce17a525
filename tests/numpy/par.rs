//! Parallel, SIMD-dispatched loops (`jax::__rt::par`), written the way
//! `#[jax::jit]` should emit them, against plain sequential loops.
//!
//! The measurements behind the thresholds and their numbers are the
//! ignored tests at the end; run them with
//! `cargo test --release --test numpy -- --ignored par:: --nocapture --test-threads 1`.

// The hand-written emitted forms keep the compiler's style, which generated
// code allows with `#[allow(clippy::all)]`.
#![allow(
    clippy::needless_range_loop,
    clippy::unnecessary_cast,
    clippy::let_and_return
)]

use std::hint::black_box;
use std::time::Instant;

use jax::__rt::par::{self, Level};
use jax::__rt::team::Threads;
use jax::__rt::{self as rt, ops};
use jax::prelude::*;

const N: usize = 1 << 20;

/// Inputs whose sums depend on the order of addition: magnitudes spread
/// over many binades, both signs.
fn inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
            let e = ((s >> 8) % 24) as i32 - 12;
            m * 2f32.powi(e)
        })
        .collect()
}

/// `tanh(x * 1.5 + 0.5) * 2` as the compiler emits it: one output buffer,
/// filled chunk by chunk; each chunk slices its inputs at `__start`.
fn tanh_chain_emitted(x: &[f32]) -> Vec<f32> {
    let __v0: &[f32] = x;
    let mut __v4: Vec<f32> = rt::buffer::<f32>(__v0.len());
    par::for_each_chunk(&mut __v4, par::grain(35), |__start, __out| {
        let __n = __out.len();
        let __r0 = &__v0[__start..__start + __n];
        for __i in 0..__n {
            let __t0 = ops::mul(__r0[__i], 1.5 as f32);
            let __t1 = ops::add(__t0, 0.5 as f32);
            let __t2 = ops::tanh(__t1);
            let __t3 = ops::mul(__t2, 2.0 as f32);
            __out[__i] = __t3;
        }
    });
    __v4
}

/// `x * a + b` as emitted.
fn axpb_emitted(x: &[f32], a: f32, b: f32) -> Vec<f32> {
    let __v0: &[f32] = x;
    let mut __v3: Vec<f32> = rt::buffer::<f32>(__v0.len());
    par::for_each_chunk(&mut __v3, par::grain(2), |__start, __out| {
        let __n = __out.len();
        let __r0 = &__v0[__start..__start + __n];
        for __i in 0..__n {
            let __t0 = ops::mul(__r0[__i], a);
            let __t1 = ops::add(__t0, b);
            __out[__i] = __t1;
        }
    });
    __v3
}

/// `sum(x * x)` as emitted: fixed chunks, lanes inside each chunk.
fn sumsq_emitted(x: &[f32]) -> f32 {
    let __v0: &[f32] = x;
    par::reduce(
        __v0.len(),
        par::REDUCE_CHUNK,
        |__start, __end| {
            let __r0 = &__v0[__start..__end];
            par::fold_lanes(
                __end - __start,
                rt::identity::reduce_sum::<f32>(),
                |__i| {
                    let __t0 = ops::mul(__r0[__i], __r0[__i]);
                    __t0
                },
                ops::add,
            )
        },
        ops::add,
    )
}

/// The same sum, computed independently from the documented rule: chunks of
/// `REDUCE_CHUNK`; in each, lane `l` sums elements `l, l + LANES, ...` in
/// order, lanes are combined by halving (`l` with `l + width`); chunk
/// partials are added left to right.
fn sumsq_reference(x: &[f32]) -> f32 {
    let partials: Vec<f32> = x
        .chunks(par::REDUCE_CHUNK)
        .map(|c| {
            let mut lanes: Vec<f32> = (0..par::LANES)
                .map(|l| {
                    c.iter()
                        .skip(l)
                        .step_by(par::LANES)
                        .fold(0.0, |a, v| a + v * v)
                })
                .collect();
            while lanes.len() > 1 {
                let h = lanes.len() / 2;
                lanes = (0..h).map(|l| lanes[l] + lanes[l + h]).collect();
            }
            lanes[0]
        })
        .collect();
    partials[1..].iter().fold(partials[0], |a, p| a + p)
}

fn pool(threads: usize) -> Threads {
    Threads::new(threads)
}

#[test]
fn elementwise_chunks_equal_the_eager_chain() {
    let xs = inputs(N + 123, 1);
    let got = pool(2).install(|| tanh_chain_emitted(&xs));
    // The same scalar operations in one sequential pass: chunking must not change a bit.
    let want: Vec<f32> = xs.iter().map(|&x| ops::tanh(x * 1.5 + 0.5) * 2.0).collect();
    assert_eq!(got.len(), want.len());
    let bad = got
        .iter()
        .zip(&want)
        .position(|(g, w)| g.to_bits() != w.to_bits());
    assert_eq!(bad, None, "first mismatch");
}

#[test]
fn elementwise_with_scalars_equals_the_jitted_function() {
    #[jax::jit]
    fn axpb(x: &Array<f32, N>, a: f32, b: f32) -> Array<f32, N> {
        x * a + b
    }
    let xs = inputs(N, 2);
    let x = Array::<f32, N>::from_vec(xs.clone()).unwrap();
    let want = axpb(&x, 0.75, -3.0);
    let got = pool(2).install(|| axpb_emitted(&xs, 0.75, -3.0));
    assert!(want.as_slice() == got.as_slice());
}

#[test]
fn every_simd_level_gives_the_same_bits() {
    let xs = inputs(50_000, 3);
    let at = |level| {
        par::dispatch_at(level, || {
            let mut out = vec![0.0f32; xs.len()];
            for (o, &x) in out.iter_mut().zip(&xs) {
                *o = ops::add(ops::mul(x, 1.7), ops::mul(x, x));
            }
            (out, sumsq_emitted(&xs))
        })
    };
    let base = at(Level::Baseline);
    assert_eq!(at(Level::Avx2), base);
    assert_eq!(at(Level::Avx512), base);
}

#[test]
fn reduction_is_bit_identical_for_one_and_two_threads() {
    let xs = inputs(3 * N + 77, 4);
    let one = pool(1).install(|| sumsq_emitted(&xs));
    let two = pool(2).install(|| sumsq_emitted(&xs));
    assert_eq!(one.to_bits(), two.to_bits());
    // With 2 threads the chunks really are spread (the 1-thread pool is not
    // a vacuous comparison). A region runs inline while another test of this
    // binary holds the team, so it is tried until one runs spread.
    let spread = (0..200).any(|_| {
        let threads = pool(2).install(|| {
            let seen = std::sync::Mutex::new(std::collections::HashSet::new());
            par::reduce(
                xs.len(),
                par::REDUCE_CHUNK,
                |_, _| {
                    std::thread::sleep(std::time::Duration::from_micros(50));
                    seen.lock().unwrap().insert(std::thread::current().id());
                },
                |(), ()| (),
            );
            seen.into_inner().unwrap().len()
        });
        threads == 2 || {
            std::thread::sleep(std::time::Duration::from_millis(5));
            false
        }
    });
    assert!(spread, "a 2-thread reduction never ran on 2 threads");
}

#[test]
fn sum_of_16m_follows_the_fixed_chunking_rule() {
    let xs = inputs(1 << 24, 5);
    let got = sumsq_emitted(&xs);
    let want = sumsq_reference(&xs);
    assert_eq!(got.to_bits(), want.to_bits(), "{got} vs {want}");
    // The order matters for these inputs: a plain left-to-right sum differs,
    // so the equality above checks the order, not just the value.
    let sequential = xs.iter().fold(0.0f32, |a, x| a + x * x);
    assert_ne!(sequential.to_bits(), want.to_bits());
}

#[test]
fn reduction_of_nothing_and_of_one_short_chunk() {
    let s = par::reduce(0, par::REDUCE_CHUNK, |a, b| (b - a) as f32, |p, q| p + q);
    assert_eq!(s, 0.0);
    let xs = inputs(1000, 6);
    assert_eq!(sumsq_emitted(&xs).to_bits(), sumsq_reference(&xs).to_bits());
}

/// A softmax along the last axis of `[R, C]`, as emitted with whole rows per
/// chunk: each chunk reads the input rows `__row0..` of its output rows.
fn softmax_rows_emitted<const C: usize>(x: &[f32]) -> Vec<f32> {
    let __v0 = x;
    let mut __v9: Vec<f32> = rt::buffer::<f32>(x.len());
    par::for_each_rows(
        &mut __v9,
        C,
        par::rows_per_chunk(C * 39),
        |__row0, __out| {
            for (__r, __o) in __out.chunks_exact_mut(C).enumerate() {
                let __x = &__v0[(__row0 + __r) * C..(__row0 + __r + 1) * C];
                let mut __m = rt::identity::reduce_max::<f32>();
                for __j in 0..C {
                    __m = ops::max(__m, __x[__j]);
                }
                let mut __s = rt::identity::reduce_sum::<f32>();
                for __j in 0..C {
                    let __e = ops::exp(ops::sub(__x[__j], __m));
                    __o[__j] = __e;
                    __s = ops::add(__s, __e);
                }
                for __j in 0..C {
                    __o[__j] = ops::div(__o[__j], __s);
                }
            }
        },
    );
    __v9
}

#[test]
fn row_chunks_cover_every_row_once() {
    const C: usize = 1000;
    let xs = inputs(3001 * C, 7);
    let got = pool(2).install(|| softmax_rows_emitted::<C>(&xs));
    for (r, row) in xs.chunks(C).enumerate() {
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let e: Vec<f32> = row.iter().map(|&v| ops::exp(v - m)).collect();
        let s = e.iter().fold(0.0f32, |a, b| a + b);
        for (j, v) in e.iter().enumerate() {
            assert_eq!(
                got[r * C + j].to_bits(),
                (v / s).to_bits(),
                "row {r} col {j}"
            );
        }
    }
}

#[test]
fn row_reduction_writes_one_element_per_row() {
    const C: usize = 300;
    let rows = 5000;
    let xs = inputs(rows * C, 8);
    let mut out = rt::buffer::<f32>(rows);
    pool(2).install(|| {
        par::for_each_rows(&mut out, 1, par::rows_per_chunk(C), |__row0, __out| {
            for (__r, __o) in __out.iter_mut().enumerate() {
                let __x = &xs[(__row0 + __r) * C..(__row0 + __r + 1) * C];
                *__o = __x.iter().fold(0.0f32, |a, &b| ops::add(a, b));
            }
        })
    });
    for r in 0..rows {
        let want = xs[r * C..(r + 1) * C].iter().fold(0.0f32, |a, &b| a + b);
        assert_eq!(out[r].to_bits(), want.to_bits(), "row {r}");
    }
}

#[test]
fn pooled_buffers_are_fully_overwritten_by_jitted_code() {
    #[jax::jit]
    fn chain(x: &Array<f32, N>) -> Array<f32, N> {
        jnp::tanh(x * 1.5 + 0.5) * 2.0
    }
    for seed in 0..3 {
        let xs = inputs(N, 10 + seed);
        let x = Array::<f32, N>::from_vec(xs.clone()).unwrap();
        let got = chain(&x);
        let want = jnp::tanh(&x * 1.5 + 0.5) * 2.0;
        assert!(got == want, "seed {seed}");
    }
}

// ---------------------------------------------------------------- measurements

/// Medians (ms) of `variants`, run in turn in each of `reps` rounds, so load
/// from other processes affects them alike.
fn interleaved(reps: usize, variants: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    for v in variants.iter_mut() {
        v();
    }
    let mut times = vec![Vec::with_capacity(reps); variants.len()];
    for _ in 0..reps {
        for (v, t) in variants.iter_mut().zip(&mut times) {
            let s = Instant::now();
            v();
            t.push(s.elapsed().as_secs_f64() * 1e3);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[reps / 2]
        })
        .collect()
}

/// Plain loop vs dispatched vs parallel + dispatched for flat loops
/// over 16M f32 (and 64K, which fits in L2), output buffers from a warm pool.
#[test]
#[ignore]
fn measure_loops_16m() {
    let all = inputs(1 << 24, 9);
    for log in [16, 24] {
        measure_loops(&all[..1 << log], if log < 20 { 2001 } else { 21 });
    }
}

fn measure_loops(xs: &[f32], reps: usize) {
    println!("n = {}", xs.len());
    let (a, b) = (black_box(0.75f32), black_box(-3.0f32));
    let plain_tanh = |x: &[f32]| -> Vec<f32> {
        let mut out = rt::buffer::<f32>(x.len());
        for i in 0..x.len() {
            out[i] = ops::mul(ops::tanh(ops::add(ops::mul(x[i], 1.5), 0.5)), 2.0);
        }
        out
    };
    let plain_axpb = |x: &[f32]| -> Vec<f32> {
        let mut out = rt::buffer::<f32>(x.len());
        for i in 0..x.len() {
            out[i] = ops::add(ops::mul(x[i], a), b);
        }
        out
    };
    let plain_sumsq = |x: &[f32]| -> f32 {
        let mut acc = 0.0f32;
        for v in x {
            acc = ops::add(acc, ops::mul(*v, *v));
        }
        acc
    };
    let one = pool(1);
    let two = pool(2);
    type Job<'a> = &'a (dyn Fn() + Sync);
    let emitted: [(&str, Job, Job); 3] = [
        ("tanh_chain", &|| drop(black_box(plain_tanh(xs))), &|| {
            drop(black_box(tanh_chain_emitted(xs)))
        }),
        ("axpb", &|| drop(black_box(plain_axpb(xs))), &|| {
            drop(black_box(axpb_emitted(xs, a, b)))
        }),
        (
            "sumsq",
            &|| {
                black_box(plain_sumsq(xs));
            },
            &|| {
                black_box(sumsq_emitted(xs));
            },
        ),
    ];
    let best = Level::supported();
    for (name, plain, emitted) in emitted {
        let at = |level: Level, p: &Threads| {
            Level::set(level);
            p.install(emitted);
        };
        let t = interleaved(
            reps,
            &mut [
                &mut || one.install(plain),
                &mut || at(Level::Baseline, &one),
                &mut || at(best, &one),
                &mut || at(Level::Baseline, &two),
                &mut || at(best, &two),
            ],
        );
        println!(
            "{name:>10}: plain {:9.3} ms | emitted 1T sse2 {:9.3} {best:?} {:9.3} ({:.2}x) | 2T sse2 {:9.3} {best:?} {:9.3} ({:.2}x)",
            t[0], t[1], t[2], t[0] / t[2], t[3], t[4], t[0] / t[4]
        );
    }
    Level::set(best);
}

/// Where two threads start paying for an elementwise loop: medians of one
/// chunk vs two and vs 16 equal chunks, all in a 2-thread pool, for a cheap
/// body (`x*a+b`) and an expensive one (the tanh chain), by size.
#[test]
#[ignore]
fn threshold_sweep() {
    let xs = inputs(1 << 22, 11);
    let two = pool(2);
    let run = |n: usize, grain: usize, heavy: bool| {
        let x = &xs[..n];
        let mut out = vec![0.0f32; n];
        move || {
            par::for_each_chunk(&mut out, grain, |s, o| {
                let x = &x[s..s + o.len()];
                for i in 0..o.len() {
                    o[i] = if heavy {
                        ops::mul(ops::tanh(ops::add(ops::mul(x[i], 1.5), 0.5)), 2.0)
                    } else {
                        ops::add(ops::mul(x[i], 0.75), -3.0)
                    };
                }
            });
            black_box(&out);
        }
    };
    two.install(|| {
        for heavy in [false, true] {
            for log in 10..=22 {
                let n = 1usize << log;
                let reps = if n < 1 << 18 { 1001 } else { 31 };
                let t = interleaved(
                    reps,
                    &mut [
                        &mut run(n, n, heavy),
                        &mut run(n, n / 2, heavy),
                        &mut run(n, n / 16, heavy),
                    ],
                );
                println!(
                    "{} n=2^{log:<2} 1 chunk {:9.4} ms | 2 chunks {:9.4} ({:.2}x) | 16 chunks {:9.4} ({:.2}x)",
                    if heavy { "tanh" } else { "axpb" },
                    t[0],
                    t[1],
                    t[0] / t[1],
                    t[2],
                    t[0] / t[2]
                );
            }
        }
    });
}
