//! Multi-output loops: stored elementwise results of one shape that read
//! each other or the same inputs (adam's `mu'`, `nu'` and `p'`) are computed
//! and stored in one loop. Values against plain Rust loops, at sizes on one
//! thread and in parallel chunks; the emitted code has one such loop.

use jax::prelude::*;

#[jax::jit]
mod f {
    use jax::prelude::*;

    /// One adam step of one leaf, bias correction folded into the rates.
    pub fn adam_small(
        p: Array<f32, 7, 33>,
        g: &Array<f32, 7, 33>,
        mu: Array<f32, 7, 33>,
        nu: Array<f32, 7, 33>,
    ) -> (Array<f32, 7, 33>, Array<f32, 7, 33>, Array<f32, 7, 33>) {
        let mu = mu * 0.9 + g * 0.1;
        let nu = nu * 0.999 + g * g * 0.001;
        let p = &p - &mu * 0.01 / (jnp::sqrt(&nu) + 1e-8);
        (p, mu, nu)
    }

    pub fn adam_large(
        p: Array<f32, 512, 1024>,
        g: &Array<f32, 512, 1024>,
        mu: Array<f32, 512, 1024>,
        nu: Array<f32, 512, 1024>,
    ) -> (
        Array<f32, 512, 1024>,
        Array<f32, 512, 1024>,
        Array<f32, 512, 1024>,
    ) {
        let mu = mu * 0.9 + g * 0.1;
        let nu = nu * 0.999 + g * g * 0.001;
        let p = &p - &mu * 0.01 / (jnp::sqrt(&nu) + 1e-8);
        (p, mu, nu)
    }

    /// Siblings: two results reading the same input, an expensive shared
    /// value (`e`, read twice) computed once per element.
    pub fn siblings(x: &Array<f64, 129, 17>) -> (Array<f64, 129, 17>, Array<f64, 129, 17>) {
        let e = jnp::exp(x);
        (&e * 2.0 + x, &e * &e - x)
    }
}

fn fill(seed: u64, n: usize) -> Vec<f64> {
    (0..n as u64)
        .map(|i| {
            let h = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ seed.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            ((h >> 11) % 2000) as f64 / 1000.0 - 1.0
        })
        .collect()
}

/// The jitted function's own body in `lowered` (after the `jax_debug_nans`
/// replay, a nested function that ends returning `__found`).
fn primal(code: &str) -> &str {
    code.rsplit("__found\n    }").next().unwrap()
}

/// How many copies (one per SIMD level) of the multi-output loop body.
fn copies(primal: &str) -> usize {
    primal.matches("|(__start, __outs)").count()
}

/// How many loops over elements, counting each loop's SIMD copies once.
fn loops(primal: &str) -> usize {
    primal.matches("for __i in").count() / copies(primal).max(1)
}

macro_rules! adam_case {
    ($test:ident, $f:ident, $m:tt, $n:tt) => {
        #[test]
        fn $test() {
            let n = $m * $n;
            let v = |s| fill(s, n).iter().map(|&x| x as f32).collect::<Vec<f32>>();
            let (p, g, mu) = (v(1), v(2), v(3));
            let nu: Vec<f32> = v(4).iter().map(|x| x.abs()).collect();
            let arr = |d: &Vec<f32>| Array::<f32, $m, $n>::from_data(d.clone());
            let (pa, mua, nua) = (arr(&p), arr(&mu), arr(&nu));
            let ptrs = [
                pa.as_slice().as_ptr(),
                mua.as_slice().as_ptr(),
                nua.as_slice().as_ptr(),
            ];
            let (p2, mu2, nu2) = f::$f(pa, &arr(&g), mua, nua);
            // Donated, dead once read: each result written over its input.
            let got = [
                p2.as_slice().as_ptr(),
                mu2.as_slice().as_ptr(),
                nu2.as_slice().as_ptr(),
            ];
            assert_eq!(got, ptrs, "p, mu and nu updated in their own buffers");
            for i in 0..n {
                let m = mu[i] * 0.9 + g[i] * 0.1;
                let s = nu[i] * 0.999 + g[i] * g[i] * 0.001;
                let q = p[i] - m * 0.01 / (s.sqrt() + 1e-8);
                assert_eq!(
                    (mu2.data()[i], nu2.data()[i], p2.data()[i]),
                    (m, s, q),
                    "element {i}"
                );
            }
            let code = f::$f::lowered();
            let primal = primal(code);
            assert_eq!(
                primal.matches("let mut __outs").count(),
                1,
                "one loop stores p, mu and nu:\n{primal}"
            );
            assert_eq!(loops(primal), 1, "{primal}");
        }
    };
}

adam_case!(adam_one_thread, adam_small, 7, 33);
adam_case!(adam_parallel_chunks, adam_large, 512, 1024);

#[test]
fn siblings_share_reads_and_an_expensive_value() {
    let x = fill(5, 129 * 17);
    let (a, b) = f::siblings(&Array::<f64, 129, 17>::from_data(x.clone()));
    for (i, &xi) in x.iter().enumerate() {
        let e = xi.exp();
        // The runtime's `exp` may differ from libm's in the last bit.
        for (got, want) in [(a.data()[i], e * 2.0 + xi), (b.data()[i], e * e - xi)] {
            assert!(
                (got - want).abs() <= 1e-14 * want.abs().max(1.0),
                "element {i}: {got} against {want}"
            );
        }
    }
    let code = f::siblings::lowered();
    let primal = primal(code);
    assert_eq!(loops(primal), 1, "{primal}");
    assert_eq!(primal.matches("exp(").count(), copies(primal), "{primal}");
    // `e` is read only inside the loop: a local, never stored.
    assert_eq!(
        primal.matches("::jax::__rt::buffer::<").count(),
        2,
        "{primal}"
    );
}
