//! `jax.scipy.stats.norm` and the special functions it is made of
//! (`ndtr`, `log_ndtr`, `ndtri`), with JAX's polynomials and rules, written
//! once over [`Lax`]: a jitted body traces them, an eager call runs them.

use jax_dtypes::DType;

use crate::ir::{cast_scalar, Aval, Scalar};
use crate::jnp::{binary, weak_literal, where_, Res};
use crate::lax::Lax;
use crate::nn::inexact_args;
use crate::prims;

/// A scalar of `like`'s dtype, not weak (`np.array(v, dtype)`).
fn typed<L: Lax>(l: &mut L, like: &L::V, v: f64) -> L::V {
    let d = l.aval(like).dtype;
    l.literal(cast_scalar(Scalar::Float(v), d), Aval::scalar(d, false))
}

/// `jax.scipy.stats.norm`'s function `name` (`pdf`, `logpdf`, `cdf`,
/// `logcdf`, `ppf`) at `x` for the normal distribution of mean `loc` and
/// standard deviation `scale` (`None`: JAX's defaults 0 and 1).
pub fn norm<L: Lax>(
    l: &mut L,
    name: &str,
    x: L::V,
    loc_scale: Option<(L::V, L::V)>,
) -> Res<L, L::V> {
    let (loc, scale) = match loc_scale {
        Some(ls) => ls,
        None => (
            weak_literal(l, Scalar::Int(0)),
            weak_literal(l, Scalar::Int(1)),
        ),
    };
    let xs = inexact_args(l, vec![x, loc, scale])?;
    let [x, loc, scale]: [L::V; 3] = xs.try_into().ok().expect("three operands");
    match name {
        "logpdf" | "pdf" => {
            let ss = l.unary(&prims::SQUARE, scale)?;
            let two_pi = typed(l, &x, 2.0 * std::f64::consts::PI);
            let m = binary(l, &prims::MUL, two_pi, ss.clone())?;
            let log_norm = l.unary(&prims::LOG, m)?;
            let d = binary(l, &prims::SUB, x.clone(), loc)?;
            let d2 = l.unary(&prims::SQUARE, d)?;
            let quad = binary(l, &prims::DIV, d2, ss)?;
            let sum = binary(l, &prims::ADD, log_norm, quad)?;
            let m2 = typed(l, &x, -2.0);
            let lp = binary(l, &prims::DIV, sum, m2)?;
            if name == "pdf" {
                l.unary(&prims::EXP, lp)
            } else {
                Ok(lp)
            }
        }
        "cdf" | "logcdf" => {
            let d = binary(l, &prims::SUB, x, loc)?;
            let z = binary(l, &prims::DIV, d, scale)?;
            if name == "cdf" {
                ndtr(l, z)
            } else {
                log_ndtr(l, z)
            }
        }
        "ppf" => {
            let q = ndtri(l, x)?;
            let m = binary(l, &prims::MUL, q, scale)?;
            binary(l, &prims::ADD, m, loc)
        }
        other => Err(l.error(format!(
            "`{other}` is not a function of jax::scipy::stats::norm; it has: pdf, logpdf, cdf, logcdf, ppf"
        ))),
    }
}

/// `jax.scipy.special.log_ndtr` (series order 3), with JAX's rule.
pub fn log_ndtr<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    l.custom_jvp(
        "log_ndtr",
        vec![x],
        &|l, x| log_ndtr_body(l, x[0].clone()),
        &|l, x, t, out| log_ndtr_rule(l, x, t, out),
    )
}

/// JAX's `_log_ndtr_jvp`: `t exp(norm_logpdf(x) - log_ndtr(x))`.
fn log_ndtr_rule<L: Lax>(l: &mut L, x: &[L::V], t: &[L::V], out: L::V) -> Res<L, L::V> {
    let x = x[0].clone();
    let neg_half = typed(l, &x, -0.5);
    let sq = l.unary(&prims::SQUARE, x.clone())?;
    let m = binary(l, &prims::MUL, neg_half, sq)?;
    let k = typed(l, &x, (2.0 * std::f64::consts::PI).sqrt().ln());
    let lp = binary(l, &prims::SUB, m, k)?;
    let d = binary(l, &prims::SUB, lp, out)?;
    let e = l.unary(&prims::EXP, d)?;
    binary(l, &prims::MUL, t[0].clone(), e)
}

/// `log_ndtr`'s body (series order 3), as JAX composes it.
fn log_ndtr_body<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let (lo, hi) = if l.aval(&x).dtype == DType::F64 {
        (-20.0, 8.0)
    } else {
        (-10.0, 5.0)
    };
    let (lower, upper) = (typed(l, &x, lo), typed(l, &x, hi));
    let above = binary(l, &prims::GT, x.clone(), upper)?;
    let nx = l.unary(&prims::NEG, x.clone())?;
    let xl = binary(l, &prims::MAX, x.clone(), lower.clone())?;
    let arg = where_(l, above.clone(), nx, xl)?;
    let r = ndtr(l, arg)?;
    let nr = l.unary(&prims::NEG, r.clone())?;
    let lr = l.unary(&prims::LOG, r)?;
    // The asymptotic series below the lower segment.
    let xm = binary(l, &prims::MIN, x.clone(), lower.clone())?;
    let x2 = l.unary(&prims::SQUARE, xm.clone())?;
    let neg_half = typed(l, &x, -0.5);
    let a = binary(l, &prims::MUL, neg_half, x2.clone())?;
    let nxm = l.unary(&prims::NEG, xm.clone())?;
    let lnx = l.unary(&prims::LOG, nxm)?;
    let a = binary(l, &prims::SUB, a, lnx)?;
    let c = typed(l, &x, 0.5 * (2.0 * std::f64::consts::PI).ln());
    let log_scale = binary(l, &prims::SUB, a, c)?;
    let x2s = l.unary(&prims::SQUARE, xm)?;
    let zero = typed(l, &x, 0.0);
    let (mut even, mut odd) = (zero.clone(), zero);
    let mut x2n = x2s.clone();
    for (n, df) in [1.0, 3.0, 15.0].into_iter().enumerate() {
        let dfl = typed(l, &x, df);
        let y = binary(l, &prims::DIV, dfl, x2n.clone())?;
        if n % 2 == 0 {
            odd = binary(l, &prims::ADD, odd, y)?;
        } else {
            even = binary(l, &prims::ADD, even, y)?;
        }
        x2n = binary(l, &prims::MUL, x2n, x2s.clone())?;
    }
    let one = typed(l, &x, 1.0);
    let series = binary(l, &prims::ADD, one, even)?;
    let series = binary(l, &prims::SUB, series, odd)?;
    let ls = l.unary(&prims::LOG, series)?;
    let low = binary(l, &prims::ADD, log_scale, ls)?;
    let mid = binary(l, &prims::GT, x, lower)?;
    let inner = where_(l, mid, lr, low)?;
    where_(l, above, nr, inner)
}

/// Horner's rule from the highest coefficient, as `jnp.polyval`.
fn polyval<L: Lax>(l: &mut L, p: &[f64], x: &L::V) -> Res<L, L::V> {
    let mut y = typed(l, x, 0.0);
    for &c in p {
        let m = binary(l, &prims::MUL, y, x.clone())?;
        let cl = typed(l, x, c);
        y = binary(l, &prims::ADD, m, cl)?;
    }
    Ok(y)
}

/// `jax.scipy.special.ndtri`, as JAX's `_ndtri` composes it.
pub fn ndtri<L: Lax>(l: &mut L, p: L::V) -> Res<L, L::V> {
    use jax_norm_coefficients::*;
    let e2 = (-2.0f64).exp();
    let hi = typed(l, &p, -(-2.0f64).exp_m1());
    let gt = binary(l, &prims::GT, p.clone(), hi)?;
    let one = typed(l, &p, 1.0);
    let comp = binary(l, &prims::SUB, one.clone(), p.clone())?;
    let mc = where_(l, gt, comp, p.clone())?;
    let zero = typed(l, &p, 0.0);
    let is0 = binary(l, &prims::EQ, mc.clone(), zero.clone())?;
    let half = typed(l, &p, 0.5);
    let sm = where_(l, is0, half.clone(), mc)?;
    let w = binary(l, &prims::SUB, sm.clone(), half)?;
    let ww = l.unary(&prims::SQUARE, w.clone())?;
    let pn = polyval(l, &P0, &ww)?;
    let qn = polyval(l, &Q0, &ww)?;
    let ratio = binary(l, &prims::DIV, pn, qn)?;
    let wcube = binary(l, &prims::MUL, w.clone(), ww)?;
    let t = binary(l, &prims::MUL, wcube, ratio)?;
    let big = binary(l, &prims::ADD, w, t)?;
    let k = typed(l, &p, -(2.0 * std::f64::consts::PI).sqrt());
    let big = binary(l, &prims::MUL, big, k)?;
    let m2 = typed(l, &p, -2.0);
    let ls = l.unary(&prims::LOG, sm.clone())?;
    let z = binary(l, &prims::MUL, m2, ls)?;
    let z = l.unary(&prims::SQRT, z)?;
    let lz = l.unary(&prims::LOG, z.clone())?;
    let q = binary(l, &prims::DIV, lz, z.clone())?;
    let first = binary(l, &prims::SUB, z.clone(), q)?;
    let iz = binary(l, &prims::DIV, one.clone(), z.clone())?;
    let mut tails = Vec::new();
    for (pc, qc) in [(&P2[..], &Q2[..]), (&P1[..], &Q1[..])] {
        let pn = polyval(l, pc, &iz)?;
        let qn = polyval(l, qc, &iz)?;
        let r = binary(l, &prims::DIV, pn, qn)?;
        let r = binary(l, &prims::DIV, r, z.clone())?;
        tails.push(binary(l, &prims::SUB, first.clone(), r)?);
    }
    let eight = typed(l, &p, 8.0);
    let far = binary(l, &prims::GE, z, eight)?;
    let small = where_(l, far, tails[0].clone(), tails[1].clone())?;
    let e2l = typed(l, &p, e2);
    let is_big = binary(l, &prims::GT, sm, e2l)?;
    let x = where_(l, is_big, big, small)?;
    let up = typed(l, &p, 1.0 - e2);
    let upper = binary(l, &prims::GT, p.clone(), up)?;
    let nx = l.unary(&prims::NEG, x.clone())?;
    let x = where_(l, upper, x, nx)?;
    let inf = typed(l, &p, f64::INFINITY);
    let ninf = typed(l, &p, f64::NEG_INFINITY);
    let p1 = binary(l, &prims::EQ, p.clone(), one)?;
    let x = where_(l, p1, inf, x)?;
    let p0 = binary(l, &prims::EQ, p, zero)?;
    where_(l, p0, ninf, x)
}

/// Cephes' coefficients of `ndtri`, as JAX's `_ndtri` uses them.
mod jax_norm_coefficients {
    pub(super) const P0: [f64; 5] = [
        -5.996_335_010_141_079e1,
        9.800_107_541_859_997e1,
        -5.667_628_574_690_703e1,
        1.393_126_093_872_796_8e1,
        -1.239_165_838_673_812_6,
    ];
    pub(super) const Q0: [f64; 9] = [
        1.0,
        1.954_488_583_381_417_6,
        4.676_279_128_988_815,
        8.636_024_213_908_906e1,
        -2.254_626_878_541_193_7e2,
        2.002_602_123_800_606_6e2,
        -8.203_722_561_683_334e1,
        1.590_562_251_262_117e1,
        -1.183_316_211_213_3,
    ];
    pub(super) const P1: [f64; 9] = [
        4.055_448_923_059_624_5,
        3.152_510_945_998_938_6e1,
        5.716_281_922_464_213e1,
        4.408_050_738_932_008e1,
        1.468_495_619_288_580_2e1,
        2.186_633_068_507_902_7,
        -1.402_560_791_713_545e-1,
        -3.504_246_268_278_482e-2,
        -8.574_567_851_546_854e-4,
    ];
    pub(super) const Q1: [f64; 9] = [
        1.0,
        1.577_998_832_564_667_4e1,
        4.539_076_351_288_792e1,
        4.131_720_382_546_72e1,
        1.504_253_856_929_075e1,
        2.504_649_462_083_094,
        -1.421_829_228_547_877_9e-1,
        -3.808_064_076_915_783e-2,
        -9.332_594_808_954_574e-4,
    ];
    pub(super) const P2: [f64; 9] = [
        3.237_748_917_769_460_4,
        6.915_228_890_689_842,
        3.938_810_252_924_744_4,
        1.333_034_608_158_075_5,
        2.014_853_895_491_790_8e-1,
        1.237_166_348_178_200_2e-2,
        3.015_815_535_082_354e-4,
        2.658_069_746_867_375_6e-6,
        6.239_745_391_849_833e-9,
    ];
    pub(super) const Q2: [f64; 9] = [
        1.0,
        6.024_270_393_647_42,
        3.679_835_638_561_608_7,
        1.377_020_994_890_813_3,
        2.162_369_935_944_966_3e-1,
        1.342_040_060_885_431_9e-2,
        3.280_144_646_821_277_4e-4,
        2.892_478_647_453_806_8e-6,
        6.790_194_080_099_813e-9,
    ];
}

/// `jax.scipy.special.ndtr` (`lax.special.ndtr`): `0.5 (1 + erf(w))` near
/// 0, `0.5 erfc(|w|)` or `0.5 (2 - erfc(|w|))` in the tails, `w = x/√2`.
pub fn ndtr<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let half_sqrt2 = typed(l, &x, 0.5 * 2f64.sqrt());
    let w = binary(l, &prims::MUL, x, half_sqrt2.clone())?;
    let z = l.unary(&prims::ABS, w.clone())?;
    let small = binary(l, &prims::LT, z.clone(), half_sqrt2)?;
    let one = typed(l, &w, 1.0);
    let e = l.unary(&prims::ERF, w.clone())?;
    let mid = binary(l, &prims::ADD, one, e)?;
    let zero = typed(l, &w, 0.0);
    let pos = binary(l, &prims::GT, w.clone(), zero)?;
    let two = typed(l, &w, 2.0);
    let ec = l.unary(&prims::ERFC, z)?;
    let upper = binary(l, &prims::SUB, two, ec.clone())?;
    let tails = l.apply(&prims::SELECT_N, vec![pos, ec, upper])?;
    let y = l.apply(&prims::SELECT_N, vec![small, tails, mid])?;
    let half = typed(l, &w, 0.5);
    binary(l, &prims::MUL, half, y)
}
