//! The RNN step `h = tanh(W h + x_t)` through `lax::scan` and
//! `lax::fori_loop`, jitted (whose `W h` runs before each step's body in a
//! loop dispatched once, `backend/emit/control.rs`), gives the same bits as
//! the eager step repeated with the product the jitted loop has always
//! computed (`h^T W^T`, `W` transposed once: the sums run along its
//! contiguous columns), for several sizes, and a non-square `W`.

use jax::prelude::*;

macro_rules! rnn_case {
    ($scan:ident, $fori:ident, $test:ident, $n:literal, $steps:literal) => {
        #[jax::jit]
        fn $scan(
            w: &Array<f32, $n, $n>,
            xs: &Array<f32, $steps, $n>,
            h: &Array<f32, $n>,
        ) -> (Array<f32, $n>, Array<f32, $steps, $n>) {
            lax::scan(
                |h: Array<f32, $n>, x: Array<f32, $n>| {
                    let h2 = jnp::tanh(w.matmul(&h) + x);
                    (h2.clone(), h2)
                },
                h.clone(),
                xs.clone(),
            )
        }

        #[jax::jit]
        fn $fori(
            w: &Array<f32, $n, $n>,
            xs: &Array<f32, $steps, $n>,
            h: &Array<f32, $n>,
        ) -> Array<f32, $n> {
            lax::fori_loop(
                0,
                $steps,
                |i, h| jnp::tanh(w.matmul(&h) + xs.at(i).get()),
                h.clone(),
            )
        }

        #[test]
        fn $test() {
            let w: Array<f32, $n, $n> =
                Array::from_vec(values($n * $n, 1, 1.5 / $n as f32)).unwrap();
            let xs: Array<f32, $steps, $n> = Array::from_vec(values($steps * $n, 2, 1.0)).unwrap();
            let h0: Array<f32, $n> = Array::from_vec(values($n, 3, 1.0)).unwrap();
            let (h, hs) = $scan(&w, &xs, &h0);
            let wt: Array<f32, $n, $n> = w.t();
            let mut e = h0.clone();
            let mut all = Vec::new();
            for t in 0..$steps {
                let x: Array<f32, $n> =
                    Array::from_vec(xs.to_vec()[t * $n..(t + 1) * $n].to_vec()).unwrap();
                let pre: Array<f32, $n> = e.matmul(&wt);
                e = jnp::tanh(pre + x);
                all.extend(e.to_vec());
            }
            assert_eq!(h.to_vec(), e.to_vec());
            assert_eq!(hs.to_vec(), all);
            assert_eq!($fori(&w, &xs, &h0).to_vec(), e.to_vec());
        }
    };
}

/// Deterministic values in [-scale, scale).
fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

rnn_case!(scan1, fori1, size_1, 1, 5);
rnn_case!(scan7, fori7, size_7, 7, 9);
rnn_case!(scan17, fori17, size_17, 17, 12);
rnn_case!(scan64, fori64, size_64, 64, 40);
rnn_case!(scan65, fori65, size_65, 65, 33);
rnn_case!(scan129, fori129, size_129, 129, 10);

/// `W` of 3×5 maps a 5-vector input through the state: `h = tanh(W v)`
/// with a 3-vector carry is not a square step, so use `W^T W`-free form:
/// the carry is the input row mixed by a non-square product each step.
#[jax::jit]
fn skinny(w: &Array<f32, 5, 3>, xs: &Array<f32, 8, 3>, h: &Array<f32, 3>) -> Array<f32, 5> {
    let (_, ys) = lax::scan(
        |h: Array<f32, 3>, x: Array<f32, 3>| {
            let y = jnp::tanh(w.matmul(&h));
            (h * 0.5 + x, y)
        },
        h.clone(),
        xs.clone(),
    );
    jnp::sum_axis(ys, 0, false)
}

#[test]
fn non_square_products_in_a_scan() {
    let w: Array<f32, 5, 3> = Array::from_vec(values(15, 4, 0.7)).unwrap();
    let xs: Array<f32, 8, 3> = Array::from_vec(values(24, 5, 1.0)).unwrap();
    let h0: Array<f32, 3> = Array::from_vec(values(3, 6, 1.0)).unwrap();
    let mut h = h0.clone();
    let mut want = vec![0.0f32; 5];
    let mut rows = Vec::new();
    for t in 0..8 {
        let y: Array<f32, 5> = jnp::tanh(w.matmul(&h));
        rows.push(y.to_vec());
        let x: Array<f32, 3> = Array::from_vec(xs.to_vec()[t * 3..t * 3 + 3].to_vec()).unwrap();
        h = h * 0.5f32 + x;
    }
    for r in &rows {
        for (a, b) in want.iter_mut().zip(r) {
            *a += b;
        }
    }
    let got = skinny(&w, &xs, &h0).to_vec();
    for (a, b) in got.iter().zip(&want) {
        assert!((a - b).abs() <= 1e-5, "{got:?} vs {want:?}");
    }
}
