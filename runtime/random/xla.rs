//! The float kernels the samplers need, computed exactly as XLA's CPU
//! backend computes them for JAX, so that samples match bit for bit.
//!
//! Each function follows the LLVM code XLA emits (its own f32 `log`
//! polynomial, the Cephes-style `log1p`, Giles' `erf_inv`, the rational f32
//! `erf`), including where LLVM contracts a multiply and an add into one FMA
//! (`mul_add` below, one rounding) and where it does not (a product used
//! twice stays a separate multiply). f64 `log` and `erf` are libm calls in
//! XLA as here.
//!
//! These are not the crate's general-purpose `jnp` kernels (`crate::math`),
//! which are tuned for accuracy and vectorization rather than for matching
//! XLA's rounding.

#![allow(clippy::excessive_precision)]

#[inline(always)]
const fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

#[inline(always)]
const fn d(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// XLA's vectorizable f32 natural log. XLA runs with denormals flushed, so
/// a subnormal input is zero.
#[inline(always)]
pub fn log_f32(a: f32) -> f32 {
    let a = if a.is_subnormal() { 0.0 } else { a };
    if a.is_nan() || a < 0.0 {
        return f32::from_bits(u32::MAX);
    }
    if a == 0.0 {
        return f32::NEG_INFINITY;
    }
    if a == f32::INFINITY {
        return a;
    }
    let bits = a.to_bits();
    let e = (bits >> 23) as i32 - 127;
    // The mantissa as a float in [0.5, 1).
    let mant = f((bits & 0x807f_ffff) | 0x3f00_0000);
    let below_sqrt_half = mant < f(0x3f35_04f3);
    let mut ef = e as f32 + 1.0;
    if below_sqrt_half {
        ef += -1.0;
    }
    let r = (mant + -1.0) + if below_sqrt_half { mant } else { 0.0 };
    let z = r * r;
    let r3 = z * r;
    let p1 = r
        .mul_add(f(0x3d90_21bb), f(0xbdeb_d1b8))
        .mul_add(r, f(0x3def_251a));
    let p2 = r
        .mul_add(f(0xbdfe_5d4f), f(0x3e11_e9bf))
        .mul_add(r, f(0xbe2a_ae50));
    let p3 = r
        .mul_add(f(0x3e4c_ceac), f(0xbe7f_fffc))
        .mul_add(r, f(0x3eaa_aaaa));
    let q = p1.mul_add(r3, p2).mul_add(r3, p3);
    let y = q.mul_add(r3, ef * f(0xb95e_8083));
    let s = z.mul_add(-0.5, r) + y;
    ef.mul_add(f(0x3f31_8000), s)
}

/// XLA's f32 `log1p`: `log(1 + t)` for |t| >= 1 - sqrt(2)/2, else
/// `t - t^2/2 + t^3 P(t)/Q(t)`.
#[inline(always)]
pub fn log1p_f32(t: f32) -> f32 {
    const DEN: [u32; 6] = [
        0x4171_01ad,
        0x42a6_185b,
        0x435d_c32d,
        0x439a_8ca3,
        0x4358_6d8a,
        0x4270_7982,
    ];
    const NUM: [u32; 6] = [
        0x3eff_40c5,
        0x40d2_84fa,
        0x41ef_4b9c,
        0x4273_cc76,
        0x4264_73ad,
        0x41a0_5101,
    ];
    if t.abs() >= f(0x3ed4_13cd) || t.is_nan() {
        return log_f32(t + 1.0);
    }
    let z2 = t * t;
    let t0 = t * 0.0;
    let den = DEN.iter().fold(t0 + 1.0, |acc, &c| acc.mul_add(t, f(c)));
    let num = NUM
        .iter()
        .fold(t0 + 4.527e-05, |acc, &c| acc.mul_add(t, f(c)));
    let w = (t * z2) * (num / den);
    t + z2.mul_add(-0.5, w)
}

/// XLA's f32 `erf_inv` (Giles' single-precision polynomials in
/// `w = -log1p(-x^2)`).
#[inline(always)]
pub fn erf_inv_f32(x: f32) -> f32 {
    // (w < 5, w >= 5) coefficients, highest degree first.
    const C: [(u32, u32); 9] = [
        (0x32f1_6588, 0xb951_f09b),
        (0x34b8_4b36, 0x38d3_b56b),
        (0xb66c_7357, 0x3ab0_dc72),
        (0xb693_5ac1, 0xbb70_bde7),
        (0x3965_32db, 0x3bbc_127b),
        (0xbaa4_5408, 0xbbf9_c5d7),
        (0xbb88_e4ef, 0x3c1a_a57e),
        (0x3e7c_8f63, 0x3f80_36db),
        (0x3fc0_2e2f, 0x4035_4f7e),
    ];
    let s = log1p_f32(x * -x);
    let central = s > -5.0;
    let v = if central {
        -2.5 - s
    } else {
        (-s).sqrt() + -3.0
    };
    let mut p = f(if central { C[0].0 } else { C[0].1 });
    for &(a, b) in &C[1..] {
        p = p.mul_add(v, f(if central { a } else { b }));
    }
    x * if x.abs() == 1.0 { f32::INFINITY } else { p }
}

/// XLA's f32 `erf`: a rational function of x^2, ±1 beyond |x| = 3.832.
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    const NUM: [u32; 5] = [
        0x3970_2d51,
        0x3b5f_5da2,
        0x3d50_b6eb,
        0x3e3d_a740,
        0x3f90_6eba,
    ];
    const DEN: [u32; 7] = [
        0xb3fd_3906,
        0x37c5_88df,
        0x3a85_6d28,
        0x3c66_87d4,
        0x3de3_4c21,
        0x3efe_b44a,
        0x3f80_0000,
    ];
    if x.abs() >= f(0x4075_47cb) {
        return 1.0f32.copysign(x);
    }
    let x2 = x * x;
    let num = NUM[1..].iter().fold(f(NUM[0]), |p, &c| x2.mul_add(p, f(c)));
    let den = DEN[1..].iter().fold(f(DEN[0]), |p, &c| x2.mul_add(p, f(c)));
    (x * num) / den
}

/// f64 `log` as XLA computes it: the C library's `log` of the input with
/// denormals flushed, with a NaN result as the positive quiet NaN.
#[inline(always)]
pub fn log_f64(x: f64) -> f64 {
    let x = if x.is_subnormal() { 0.0 } else { x };
    let y = x.ln();
    if y.is_nan() {
        f64::NAN
    } else {
        y
    }
}

/// XLA's f64 `log1p`, the f32 formula's structure with double-precision
/// coefficients; the large branch calls libm's `log`.
#[inline(always)]
pub fn log1p_f64(t: f64) -> f64 {
    const DEN: [u64; 6] = [
        0x402e_2035_9e90_3e37,
        0x4054_c30b_5221_3498,
        0x406b_b865_90fc_fb56,
        0x4073_5194_5dc9_08a5,
        0x406b_0db1_3e48_e066,
        0x404e_0f30_4466_448e,
    ];
    const NUM: [u64; 6] = [
        0x3fdf_e818_a0fe_1a83,
        0x401a_509f_46f4_fa53,
        0x403d_e973_8b8c_b9c9,
        0x404e_798e_b86c_3351,
        0x404c_8e75_9747_9a10,
        0x4034_0a20_2d99_830a,
    ];
    if t.abs() >= d(0x3fda_8279_99fc_ef32) || t.is_nan() {
        return log_f64(t + 1.0);
    }
    let z2 = t * t;
    let t0 = t * 0.0;
    let den = DEN.iter().fold(t0 + 1.0, |acc, &c| acc.mul_add(t, d(c)));
    let num = NUM.iter().fold(t0 + d(0x3f07_bc09_62b3_95ca), |acc, &c| {
        acc.mul_add(t, d(c))
    });
    let w = (t * z2) * (num / den);
    t + z2.mul_add(-0.5, w)
}

/// XLA's f64 `erf_inv` (Giles' double-precision polynomials: w < 6.25,
/// w < 16, beyond).
#[inline(always)]
pub fn erf_inv_f64(x: f64) -> f64 {
    const LT_6_25: [f64; 23] = [
        -3.6444120640178196996e-21,
        -1.685059138182016589e-19,
        1.2858480715256400167e-18,
        1.115787767802518096e-17,
        -1.333171662854620906e-16,
        2.0972767875968561637e-17,
        6.6376381343583238325e-15,
        -4.0545662729752068639e-14,
        -8.1519341976054721522e-14,
        2.6335093153082322977e-12,
        -1.2975133253453532498e-11,
        -5.4154120542946279317e-11,
        1.051212273321532285e-09,
        -4.1126339803469836976e-09,
        -2.9070369957882005086e-08,
        4.2347877827932403518e-07,
        -1.3654692000834678645e-06,
        -1.3882523362786468719e-05,
        0.0001867342080340571352,
        -0.00074070253416626697512,
        -0.0060336708714301490533,
        0.24015818242558961693,
        1.6536545626831027356,
    ];
    const LT_16: [f64; 19] = [
        2.2137376921775787049e-09,
        9.0756561938885390979e-08,
        -2.7517406297064545428e-07,
        1.8239629214389227755e-08,
        1.5027403968909827627e-06,
        -4.013867526981545969e-06,
        2.9234449089955446044e-06,
        1.2475304481671778723e-05,
        -4.7318229009055733981e-05,
        6.8284851459573175448e-05,
        2.4031110387097893999e-05,
        -0.0003550375203628474796,
        0.00095328937973738049703,
        -0.0016882755560235047313,
        0.0024914420961078508066,
        -0.0037512085075692412107,
        0.005370914553590063617,
        1.0052589676941592334,
        3.0838856104922207635,
    ];
    const GE_16: [f64; 17] = [
        -2.7109920616438573243e-11,
        -2.5556418169965252055e-10,
        1.5076572693500548083e-09,
        -3.7894654401267369937e-09,
        7.6157012080783393804e-09,
        -1.4960026627149240478e-08,
        2.9147953450901080826e-08,
        -6.7711997758452339498e-08,
        2.2900482228026654717e-07,
        -9.9298272942317002539e-07,
        4.5260625972231537039e-06,
        -1.9681778105531670567e-05,
        7.5995277030017761139e-05,
        -0.00021503011930044477347,
        -0.00013871931833623122026,
        1.0103004648645343977,
        4.8499064014085844221,
    ];
    let s = log1p_f64(x * -x);
    let (lt_6_25, lt_16) = (s > -6.25, s > -16.0);
    let v = if lt_6_25 {
        -3.125 - s
    } else {
        (-s).sqrt() - if lt_16 { 3.25 } else { 5.0 }
    };
    // The three polynomials share one loop: the shorter ones stop early.
    let coefficients: &[f64] = if lt_6_25 {
        &LT_6_25
    } else if lt_16 {
        &LT_16
    } else {
        &GE_16
    };
    let p = coefficients[1..]
        .iter()
        .fold(coefficients[0], |p, &c| p.mul_add(v, c));
    x * if x.abs() == 1.0 { f64::INFINITY } else { p }
}

mod libm_sys {
    // SAFETY: glibc's `erf` has this signature and no preconditions.
    unsafe extern "C" {
        /// The C library's `erf`, the function XLA's CPU code calls for f64
        /// (the pure-Rust `libm` crate differs from glibc in the last bit
        /// for about 2% of inputs).
        pub fn erf(x: f64) -> f64;
    }
}

/// f64 `erf` as XLA computes it: a call to the C library's `erf`.
pub fn erf_f64(x: f64) -> f64 {
    // SAFETY: `erf` is a pure C99 function of one double, present in the C
    // math library that std links on every supported platform.
    unsafe { libm_sys::erf(x) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(log_f32(1.0), 0.0);
        assert_eq!(log_f32(0.0), f32::NEG_INFINITY);
        assert!(log_f32(-1.0).is_nan());
        assert_eq!(log1p_f32(0.0), 0.0);
        assert_eq!(erf_inv_f32(1.0), f32::INFINITY);
        assert_eq!(erf_inv_f32(-1.0), f32::NEG_INFINITY);
        assert_eq!(erf_inv_f64(0.0), 0.0);
        assert_eq!(erf_f32(10.0), 1.0);
        assert_eq!(erf_f32(-10.0), -1.0);
    }

    type Kernel32 = fn(f32) -> f32;
    type Kernel64 = fn(f64) -> f64;

    fn hex(v: &serde_json::Value) -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|b| u64::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
            .collect()
    }

    /// Every kernel case of `tests/fixtures/prng_samplers.json`: JAX's
    /// `lax.log`, `log1p`, `erf_inv`, `erf` on a few thousand inputs each.
    #[test]
    fn kernels_match_jax_bit_for_bit() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/prng_samplers.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        let f32_kernels: [(&str, Kernel32); 4] = [
            ("log_f32", log_f32),
            ("log1p_f32", log1p_f32),
            ("erf_inv_f32", erf_inv_f32),
            ("erf_bounds_f32", erf_f32),
        ];
        let f64_kernels: [(&str, Kernel64); 4] = [
            ("log_f64", log_f64),
            ("log1p_f64", log1p_f64),
            ("erf_inv_f64", erf_inv_f64),
            ("erf_bounds_f64", erf_f64),
        ];
        let mut checked = 0;
        for case in file["cases"].as_array().unwrap() {
            let name = case["name"].as_str().unwrap();
            let is_kernel = |n: &&str| *n == name;
            if !f32_kernels.iter().map(|(n, _)| n).any(is_kernel)
                && !f64_kernels.iter().map(|(n, _)| n).any(is_kernel)
            {
                continue;
            }
            let (input, want) = (hex(&case["input_bits"]), hex(&case["output"]["bits"]));
            let got: Vec<u64> = if let Some((_, k)) = f32_kernels.iter().find(|(n, _)| *n == name) {
                input
                    .iter()
                    .map(|&b| k(f32::from_bits(b as u32)).to_bits() as u64)
                    .collect()
            } else if let Some((_, k)) = f64_kernels.iter().find(|(n, _)| *n == name) {
                input
                    .iter()
                    .map(|&b| k(f64::from_bits(b)).to_bits())
                    .collect()
            } else {
                continue;
            };
            let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
            assert!(
                bad.is_empty(),
                "{name}: {} of {} differ, e.g. input {:#x}: ours {:#x}, JAX {:#x}",
                bad.len(),
                want.len(),
                input[bad[0]],
                got[bad[0]],
                want[bad[0]]
            );
            checked += 1;
        }
        assert_eq!(checked, 8, "kernel cases checked");
    }

    #[test]
    fn close_to_std() {
        for i in 1..1000 {
            let x = i as f64 / 1000.0;
            // XLA's log1p uses its rational form up to |t| = sqrt(2) - 1,
            // beyond Cephes' range below -0.29 (and so is less accurate there).
            assert!((log_f32(x as f32) as f64 - x.ln()).abs() < 1e-6);
            let t = x - 0.29;
            assert!(
                (log1p_f64(t) - t.ln_1p()).abs() < 1e-14,
                "{t}: {} {}",
                log1p_f64(t),
                t.ln_1p()
            );
            let y = erf_inv_f64(2.0 * x - 1.0);
            assert!((libm::erf(y) - (2.0 * x - 1.0)).abs() < 1e-14, "{x}");
            let y = erf_inv_f32((2.0 * x - 1.0) as f32) as f64;
            assert!((libm::erf(y) - (2.0 * x - 1.0)).abs() < 1e-6, "{x}");
            assert!((erf_f32(x as f32) as f64 - libm::erf(x)).abs() < 1e-6);
        }
    }
}
