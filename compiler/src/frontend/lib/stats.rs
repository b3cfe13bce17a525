//! `jax::scipy::stats::norm::NAME` and the special functions it is made
//! of (`ndtr`, `log_ndtr`, `ndtri`), with JAX's polynomials and rules.

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::frontend::lib::call::Call;
use crate::frontend::lib::nn::*;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{Builder, Result};
use crate::ir::Atom;
use crate::prims::{self};
use jax_core::lax::{Lax, Trace};

/// `norm::pdf(x)` .. `norm::ppf(q)`, and `*_with(x, loc, scale)`, as
/// `jax.scipy.stats.norm` computes them.
pub(super) fn norm(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_with");
    let with = name.len() != c.name.len();
    c.want(if with { 3 } else { 1 })?;
    let x = c.atom(t, 0)?;
    let (loc, scale) = if with {
        (c.atom(t, 1)?, c.atom(t, 2)?)
    } else {
        (int_lit(&t.b, 0), int_lit(&t.b, 1))
    };
    let xs = inexact_args(t, vec![x, loc, scale], s)?;
    let (x, loc, scale) = (xs[0].clone(), xs[1].clone(), xs[2].clone());
    let b = &mut t.b;
    let v = match name {
        "logpdf" | "pdf" => {
            let ss = un(b, &prims::SQUARE, scale, s)?;
            let two_pi = typed_lit(b, &x, 2.0 * std::f64::consts::PI);
            let m = bin(b, &prims::MUL, two_pi, ss.clone(), s)?;
            let log_norm = un(b, &prims::LOG, m, s)?;
            let d = bin(b, &prims::SUB, x.clone(), loc, s)?;
            let d2 = un(b, &prims::SQUARE, d, s)?;
            let quad = bin(b, &prims::DIV, d2, ss, s)?;
            let sum = bin(b, &prims::ADD, log_norm, quad, s)?;
            let m2 = typed_lit(b, &x, -2.0);
            let lp = bin(b, &prims::DIV, sum, m2, s)?;
            if name == "pdf" {
                un(b, &prims::EXP, lp, s)?
            } else {
                lp
            }
        }
        "cdf" => {
            // ndtr((x - loc) / scale)
            let d = bin(b, &prims::SUB, x, loc, s)?;
            let z = bin(b, &prims::DIV, d, scale, s)?;
            ndtr(b, z, s)?
        }
        "logcdf" => {
            let d = bin(b, &prims::SUB, x, loc, s)?;
            let z = bin(b, &prims::DIV, d, scale, s)?;
            return traced(custom_jvp(
                t,
                "log_ndtr",
                vec![z],
                |b, z, s| log_ndtr(b, z[0].clone(), s),
                log_ndtr_rule,
                s,
            )?);
        }
        _ => {
            // ndtri(q) * scale + loc
            let q = ndtri(b, x, s)?;
            let m = bin(b, &prims::MUL, q, scale, s)?;
            bin(b, &prims::ADD, m, loc, s)?
        }
    };
    traced(v)
}

/// JAX's `_log_ndtr_jvp`: `t exp(norm_logpdf(x) - log_ndtr(x))`.
fn log_ndtr_rule(b: &mut Builder, x: &[Atom], t: &[Atom], out: Atom, s: Span) -> Result<Atom> {
    let x = x[0].clone();
    let neg_half = typed_lit(b, &x, -0.5);
    let sq = un(b, &prims::SQUARE, x.clone(), s)?;
    let m = bin(b, &prims::MUL, neg_half, sq, s)?;
    let k = typed_lit(b, &x, (2.0 * std::f64::consts::PI).sqrt().ln());
    let lp = bin(b, &prims::SUB, m, k, s)?;
    let d = bin(b, &prims::SUB, lp, out, s)?;
    let e = un(b, &prims::EXP, d, s)?;
    bin(b, &prims::MUL, t[0].clone(), e, s)
}

/// `jax.scipy.special.log_ndtr` (series order 3), as JAX composes it.
fn log_ndtr(b: &mut Builder, x: Atom, s: Span) -> Result<Atom> {
    let (lo, hi) = if b.aval(&x).dtype == DType::F64 {
        (-20.0, 8.0)
    } else {
        (-10.0, 5.0)
    };
    let (lower, upper) = (typed_lit(b, &x, lo), typed_lit(b, &x, hi));
    let above = bin(b, &prims::GT, x.clone(), upper, s)?;
    let nx = un(b, &prims::NEG, x.clone(), s)?;
    let xl = bin(b, &prims::MAX, x.clone(), lower.clone(), s)?;
    let arg = select(b, above.clone(), nx, xl, s)?;
    let r = ndtr(b, arg, s)?;
    let nr = un(b, &prims::NEG, r.clone(), s)?;
    let lr = un(b, &prims::LOG, r, s)?;
    // The asymptotic series below the lower segment.
    let xm = bin(b, &prims::MIN, x.clone(), lower.clone(), s)?;
    let x2 = un(b, &prims::SQUARE, xm.clone(), s)?;
    let neg_half = typed_lit(b, &x, -0.5);
    let a = bin(b, &prims::MUL, neg_half, x2.clone(), s)?;
    let nxm = un(b, &prims::NEG, xm.clone(), s)?;
    let lnx = un(b, &prims::LOG, nxm, s)?;
    let a = bin(b, &prims::SUB, a, lnx, s)?;
    let c = typed_lit(b, &x, 0.5 * (2.0 * std::f64::consts::PI).ln());
    let log_scale = bin(b, &prims::SUB, a, c, s)?;
    let x2s = un(b, &prims::SQUARE, xm, s)?;
    let zero = typed_lit(b, &x, 0.0);
    let (mut even, mut odd) = (zero.clone(), zero);
    let mut x2n = x2s.clone();
    for (n, df) in [1.0, 3.0, 15.0].into_iter().enumerate() {
        let dfl = typed_lit(b, &x, df);
        let y = bin(b, &prims::DIV, dfl, x2n.clone(), s)?;
        if n % 2 == 0 {
            odd = bin(b, &prims::ADD, odd, y, s)?;
        } else {
            even = bin(b, &prims::ADD, even, y, s)?;
        }
        x2n = bin(b, &prims::MUL, x2n, x2s.clone(), s)?;
    }
    let one = typed_lit(b, &x, 1.0);
    let series = bin(b, &prims::ADD, one, even, s)?;
    let series = bin(b, &prims::SUB, series, odd, s)?;
    let ls = un(b, &prims::LOG, series, s)?;
    let low = bin(b, &prims::ADD, log_scale, ls, s)?;
    let mid = bin(b, &prims::GT, x, lower, s)?;
    let inner = select(b, mid, lr, low, s)?;
    select(b, above, nr, inner, s)
}

/// Horner's rule from the highest coefficient, as `jnp.polyval`.
fn polyval(b: &mut Builder, p: &[f64], x: &Atom, s: Span) -> Result<Atom> {
    let mut y = typed_lit(b, x, 0.0);
    for &c in p {
        let m = bin(b, &prims::MUL, y, x.clone(), s)?;
        let cl = typed_lit(b, x, c);
        y = bin(b, &prims::ADD, m, cl, s)?;
    }
    Ok(y)
}

/// `jax.scipy.special.ndtri`, as JAX's `_ndtri` composes it.
fn ndtri(b: &mut Builder, p: Atom, s: Span) -> Result<Atom> {
    use jax_norm_coefficients::*;
    let e2 = (-2.0f64).exp();
    let c = |b: &Builder, v: f64| typed_lit(b, &p, v);
    let hi = c(b, -(-2.0f64).exp_m1());
    let gt = bin(b, &prims::GT, p.clone(), hi, s)?;
    let one = c(b, 1.0);
    let comp = bin(b, &prims::SUB, one.clone(), p.clone(), s)?;
    let mc = select(b, gt, comp, p.clone(), s)?;
    let zero = c(b, 0.0);
    let is0 = bin(b, &prims::EQ, mc.clone(), zero.clone(), s)?;
    let half = c(b, 0.5);
    let sm = select(b, is0, half.clone(), mc, s)?;
    let w = bin(b, &prims::SUB, sm.clone(), half, s)?;
    let ww = un(b, &prims::SQUARE, w.clone(), s)?;
    let pn = polyval(b, &P0, &ww, s)?;
    let qn = polyval(b, &Q0, &ww, s)?;
    let ratio = bin(b, &prims::DIV, pn, qn, s)?;
    let wcube = bin(b, &prims::MUL, w.clone(), ww, s)?;
    let t = bin(b, &prims::MUL, wcube, ratio, s)?;
    let big = bin(b, &prims::ADD, w, t, s)?;
    let k = c(b, -(2.0 * std::f64::consts::PI).sqrt());
    let big = bin(b, &prims::MUL, big, k, s)?;
    let m2 = c(b, -2.0);
    let ls = un(b, &prims::LOG, sm.clone(), s)?;
    let z = bin(b, &prims::MUL, m2, ls, s)?;
    let z = un(b, &prims::SQRT, z, s)?;
    let lz = un(b, &prims::LOG, z.clone(), s)?;
    let q = bin(b, &prims::DIV, lz, z.clone(), s)?;
    let first = bin(b, &prims::SUB, z.clone(), q, s)?;
    let iz = bin(b, &prims::DIV, one.clone(), z.clone(), s)?;
    let mut tails = Vec::new();
    for (pc, qc) in [(&P2[..], &Q2[..]), (&P1[..], &Q1[..])] {
        let pn = polyval(b, pc, &iz, s)?;
        let qn = polyval(b, qc, &iz, s)?;
        let r = bin(b, &prims::DIV, pn, qn, s)?;
        let r = bin(b, &prims::DIV, r, z.clone(), s)?;
        tails.push(bin(b, &prims::SUB, first.clone(), r, s)?);
    }
    let eight = c(b, 8.0);
    let far = bin(b, &prims::GE, z, eight, s)?;
    let small = select(b, far, tails[0].clone(), tails[1].clone(), s)?;
    let e2l = c(b, e2);
    let is_big = bin(b, &prims::GT, sm, e2l, s)?;
    let x = select(b, is_big, big, small, s)?;
    let up = c(b, 1.0 - e2);
    let upper = bin(b, &prims::GT, p.clone(), up, s)?;
    let nx = un(b, &prims::NEG, x.clone(), s)?;
    let x = select(b, upper, x, nx, s)?;
    let inf = c(b, f64::INFINITY);
    let ninf = c(b, f64::NEG_INFINITY);
    let p1 = bin(b, &prims::EQ, p.clone(), one, s)?;
    let x = select(b, p1, inf, x, s)?;
    let p0 = bin(b, &prims::EQ, p, zero, s)?;
    select(b, p0, ninf, x, s)
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
fn ndtr(b: &mut Builder, x: Atom, s: Span) -> Result<Atom> {
    let half_sqrt2 = typed_lit(b, &x, 0.5 * 2f64.sqrt());
    let w = bin(b, &prims::MUL, x, half_sqrt2.clone(), s)?;
    let z = un(b, &prims::ABS, w.clone(), s)?;
    let small = bin(b, &prims::LT, z.clone(), half_sqrt2, s)?;
    let one = typed_lit(b, &w, 1.0);
    let e = un(b, &prims::ERF, w.clone(), s)?;
    let mid = bin(b, &prims::ADD, one, e, s)?;
    let zero = typed_lit(b, &w, 0.0);
    let pos = bin(b, &prims::GT, w.clone(), zero, s)?;
    let two = typed_lit(b, &w, 2.0);
    let ec = un(b, &prims::ERFC, z, s)?;
    let upper = bin(b, &prims::SUB, two, ec.clone(), s)?;
    let tails = Trace::new(b, s).apply(&prims::SELECT_N, vec![pos, ec, upper])?;
    let y = Trace::new(b, s).apply(&prims::SELECT_N, vec![small, tails, mid])?;
    let half = typed_lit(b, &w, 0.5);
    bin(b, &prims::MUL, half, y, s)
}

// jnp math that is a composition.
