//! `lgamma` and `digamma` of one element, with XLA's Lanczos algorithms
//! (CHLO's decomposition, as `jax.lax.lgamma` lowers: g = 7, nine
//! coefficients, Euler's reflection below 1/2), step by step in the
//! element's precision, with the one multiply-add XLA's CPU backend fuses,
//! so results agree with JAX's to an ulp or so. `f16` and `bf16` compute in
//! `f32`.

use crate::element::Float;
use crate::math;

const LANCZOS_GAMMA: f64 = 7.0;
const BASE_LANCZOS_COEFF: f64 = 0.999_999_999_999_809_9;
const LANCZOS_COEFFICIENTS: [f64; 8] = [
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

macro_rules! gamma_fns {
    ($t:ident, $lgamma:ident, $digamma:ident, $log:path, $log1p:path, $sin:path, $cos:path) => {
        /// `log|Γ(x)|`, as XLA's `Lgamma`.
        pub fn $lgamma(input: $t) -> $t {
            let c = |v: f64| v as $t;
            let one_half = c(0.5);
            let one = c(1.0);
            let pi = c(std::f64::consts::PI);
            let log_pi = c(std::f64::consts::PI.ln());
            let log_sqrt_two_pi = c((2f64.ln() + std::f64::consts::PI.ln()) / 2.0);
            let lg_half = c(LANCZOS_GAMMA + 0.5);
            let log_lg_half = c((LANCZOS_GAMMA + 0.5).ln());
            let need_to_reflect = input < one_half;
            let z = if need_to_reflect { -input } else { input - one };
            let mut x = c(BASE_LANCZOS_COEFF);
            for (i, &k) in LANCZOS_COEFFICIENTS.iter().enumerate() {
                x += c(k) / (z + c(i as f64 + 1.0));
            }
            let t = lg_half + z;
            let log_t = log_lg_half + $log1p(z / lg_half);
            // XLA's CPU backend contracts this multiply-add into one FMA.
            let log_y = (z + one_half - t / log_t).mul_add(log_t, log_sqrt_two_pi) + $log(x);
            let abs_input = input.abs();
            let abs_frac = abs_input - abs_input.floor();
            let reduced = if abs_frac > c(0.5) {
                one - abs_frac
            } else {
                abs_frac
            };
            let reflection_denom = $log($sin(pi * reduced));
            let reflection = if reflection_denom.is_finite() {
                log_pi - reflection_denom - log_y
            } else {
                -reflection_denom
            };
            let result = if need_to_reflect { reflection } else { log_y };
            if input.is_infinite() {
                <$t>::INFINITY
            } else {
                result
            }
        }

        /// `ψ(x) = Γ'(x)/Γ(x)`, as XLA's `Digamma` (NaN at 0 and the negative integers).
        pub fn $digamma(input: $t) -> $t {
            let c = |v: f64| v as $t;
            let zero = c(0.0);
            let one_half = c(0.5);
            let one = c(1.0);
            let pi = c(std::f64::consts::PI);
            let lanczos_gamma = c(LANCZOS_GAMMA);
            let lg_half = c(LANCZOS_GAMMA + 0.5);
            let log_lg_half = c((LANCZOS_GAMMA + 0.5).ln());
            let need_to_reflect = input < one_half;
            let z = if need_to_reflect { -input } else { input - one };
            let mut num = zero;
            let mut denom = c(BASE_LANCZOS_COEFF);
            for (i, &k) in LANCZOS_COEFFICIENTS.iter().enumerate() {
                let zi = z + c(i as f64 + 1.0);
                num -= c(k) / (zi * zi);
                denom += c(k) / zi;
            }
            let t = lg_half + z;
            let log_t = log_lg_half + $log1p(z / lg_half);
            let y = log_t + num / denom - lanczos_gamma / t;
            let reduced = input + (input + one_half).floor().abs();
            let reflection = y - pi * $cos(pi * reduced) / $sin(pi * reduced);
            let real = if need_to_reflect { reflection } else { y };
            if input <= zero && input == input.floor() {
                <$t>::NAN
            } else {
                real
            }
        }
    };
}

gamma_fns!(
    f32,
    lgamma_f32,
    digamma_f32,
    math::log_f32,
    math::log1p_f32,
    math::sin_f32,
    math::cos_f32
);
gamma_fns!(
    f64,
    lgamma_f64,
    digamma_f64,
    math::log_f64,
    math::log1p_f64,
    math::sin_f64,
    math::cos_f64
);

/// `lgamma` of any float element.
#[inline]
pub fn lgamma<F: Float>(x: F) -> F {
    crate::ops::float_apply(x, lgamma_f32, lgamma_f64)
}

/// `digamma` of any float element.
#[inline]
pub fn digamma<F: Float>(x: F) -> F {
    crate::ops::float_apply(x, digamma_f32, digamma_f64)
}
