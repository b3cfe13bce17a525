//! The privacy DP-SGD spends: the Rényi differential privacy of the
//! Poisson-subsampled Gaussian mechanism (Mironov, Talwar and Zhang, 2019,
//! "Rényi Differential Privacy of the Sampled Gaussian Mechanism", §3.3:
//! the closed sum at integer orders, the two erfc-weighted series at
//! fractional ones), composed over the steps, and its conversion to
//! (epsilon, delta) by Canonne, Kamath and Steinke (2020), Proposition 12.
//! These are what JAX's `differentially_private_sgd.py` asks of
//! tensorflow_privacy's `compute_rdp` and `get_privacy_spent`, over the
//! orders it lists; `tests/fixtures/gen/dp_sgd.py` computes them with
//! their maintained successor, `dp_accounting`, and the program's tests
//! compare.

use std::f64::consts::{PI, SQRT_2};

/// JAX's orders: `np.linspace(1.1, 10.9, 99)` and 11 to 63.
fn orders() -> Vec<f64> {
    let (start, stop, n) = (1.1, 10.9, 99);
    let step = (stop - start) / (n - 1) as f64;
    let mut out: Vec<f64> = (0..n).map(|k| k as f64 * step + start).collect();
    out[n - 1] = stop;
    out.extend((11..64).map(f64::from));
    out
}

/// `ln(a + b)` from `ln a` and `ln b`.
fn log_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// `ln erfc(x)`, also where `erfc` underflows (its asymptotic series).
fn log_erfc(x: f64) -> f64 {
    let e = libm::erfc(x);
    if e > 1e-300 {
        return e.ln();
    }
    let x2 = x * x;
    -x2 - x.ln() - 0.5 * PI.ln() + (-0.5 / x2 + 0.75 / (x2 * x2) - 1.875 / (x2 * x2 * x2)).ln_1p()
}

/// `ln A_alpha` at an integer order: `sum_k C(a, k) (1-q)^(a-k) q^k
/// exp((k^2 - k) / (2 sigma^2))`.
fn log_a_int(q: f64, sigma: f64, alpha: u32) -> f64 {
    let a = alpha as f64;
    let mut log_binom = 0.0;
    let mut total = f64::NEG_INFINITY;
    for k in 0..=alpha {
        let k = k as f64;
        if k > 0.0 {
            log_binom += ((a - k + 1.0) / k).ln();
        }
        let term =
            log_binom + (a - k) * (-q).ln_1p() + k * q.ln() + (k * k - k) / (2.0 * sigma * sigma);
        total = log_add(total, term);
    }
    total
}

/// `ln A_alpha` at a fractional order: the two series of §3.3 (the
/// integrals below and above `z0`), each term's binomial coefficient taken
/// by magnitude, as `dp_accounting` sums them (a bound from above), until
/// both terms decrease and are below `e^-30` of the total; an order whose
/// series has not converged after 1000 terms gives no bound (infinity), as
/// there.
fn log_a_frac(q: f64, sigma: f64, alpha: f64) -> f64 {
    let s2 = sigma * sigma;
    let z0 = s2 * (1.0 / q - 1.0).ln() + 0.5;
    let (mut a0, mut a1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let (mut last0, mut last1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut log_binom = 0.0; // ln |C(alpha, i)|
    for i in 0..1000u32 {
        let i_f = i as f64;
        if i > 0 {
            log_binom += ((alpha - i_f + 1.0).abs() / i_f).ln();
        }
        let j = alpha - i_f;
        let s0 = log_binom
            + i_f * q.ln()
            + j * (-q).ln_1p()
            + (i_f * i_f - i_f) / (2.0 * s2)
            + 0.5f64.ln()
            + log_erfc((i_f - z0) / (SQRT_2 * sigma));
        let s1 = log_binom
            + j * q.ln()
            + i_f * (-q).ln_1p()
            + (j * j - j) / (2.0 * s2)
            + 0.5f64.ln()
            + log_erfc((z0 - j) / (SQRT_2 * sigma));
        a0 = log_add(a0, s0);
        a1 = log_add(a1, s1);
        let total = log_add(a0, a1);
        if s0 < last0 && s1 < last1 && s0.max(s1) < total - 30.0 {
            return total;
        }
        (last0, last1) = (s0, s1);
    }
    f64::INFINITY
}

/// The RDP of one step at `alpha`.
fn rdp(q: f64, sigma: f64, alpha: f64) -> f64 {
    let log_a = if alpha.fract() == 0.0 {
        log_a_int(q, sigma, alpha as u32)
    } else {
        log_a_frac(q, sigma, alpha)
    };
    log_a / (alpha - 1.0)
}

/// Epsilon at `delta` after `steps` steps of the Gaussian mechanism with
/// noise multiplier `sigma` on batches sampled with probability `q`, the
/// least over JAX's orders (as its example, shuffled batches counted as
/// Poisson-sampled ones).
pub fn epsilon(q: f64, sigma: f64, steps: usize, delta: f64) -> f64 {
    orders()
        .into_iter()
        .map(|a| {
            let r = steps as f64 * rdp(q, sigma, a);
            if delta * delta + (-r).exp_m1() > 0.0 {
                0.0
            } else if a > 1.01 {
                r + (-1.0 / a).ln_1p() - (delta * a).ln() / (a - 1.0)
            } else {
                f64::INFINITY
            }
        })
        .fold(f64::INFINITY, f64::min)
        .max(0.0)
}
