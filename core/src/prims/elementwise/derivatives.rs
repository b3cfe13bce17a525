//! The derivatives of the table's primitives: partial derivatives as
//! functions of the primals (`NAME_dx`, `NAME_dy`, which `jvp1!`/`jvp2!`
//! turn into jvp rules), the rules that are not a product of factors, and
//! the transposes of the linear ones.

use super::*;
use crate::ir::rules::single_ct;
use crate::prims::Ctx;

/// No derivative: the result is piecewise constant (or not a float).
pub fn zero_jvp(
    _: &mut Ad,
    _: &[Atom],
    _: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![None; outs.len()])
}
pub(super) const ZERO: Option<JvpRule> = Some(zero_jvp as JvpRule);

pub(super) fn add_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    // A missing tangent of a broadcast operand needs no term; a present one
    // broadcasts like its primal, and alone it is broadcast to the output's
    // shape (JAX's `_add_jvp`), so the tangent has its primal's type.
    let _ = ins;
    let sum = ad.sum(t.to_vec())?;
    Ok(vec![like_output(ad, sum, &outs[0])?])
}

/// A tangent given the output's shape where implicit broadcasting left it
/// smaller (a rank-0 or size-1 operand's tangent alone).
fn like_output(ad: &mut Ad, t: Option<Atom>, out: &Atom) -> Res<Option<Atom>> {
    use crate::ir::Dim;
    use crate::prims::{BROADCAST_IN_DIM, RESHAPE};
    let Some(t) = t else { return Ok(None) };
    let (have, want) = (ad.aval(&t), ad.aval(out));
    if have.shape == want.shape || (have.rank() != 0 && have.rank() != want.rank()) {
        return Ok(Some(t));
    }
    // The axes the tangent keeps (a size-1 axis facing a longer one is
    // dropped, then broadcast back along it).
    let one = Dim::Lit(1);
    let kept: Vec<usize> = (0..have.rank())
        .filter(|&k| have.shape[k] != one || want.shape[k] == one)
        .collect();
    let t = if kept.len() == have.rank() {
        t
    } else {
        let shape: Vec<Dim> = kept.iter().map(|&k| have.shape[k].clone()).collect();
        ad.bind(&RESHAPE, Params::Reshape { new_sizes: shape }, vec![t])?
    };
    Ok(Some(ad.bind(
        &BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: want.shape.clone(),
            dims: kept,
            np_ints: 0,
        },
        vec![t],
    )?))
}

pub(super) fn sub_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let ty = match &t[1] {
        Some(ty) => Some(ad.neg(ty.clone())?),
        None => None,
    };
    let sum = ad.sum(vec![t[0].clone(), ty])?;
    Ok(vec![like_output(ad, sum, &outs[0])?])
}

pub(super) fn neg_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![match &t[0] {
        Some(t) => Some(ad.neg(t.clone())?),
        None => None,
    }])
}

/// `add`: the cotangent goes to both operands, summed over their broadcasts.
pub(super) fn add_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = single_ct(cts);
    (0..2)
        .map(|k| {
            if ins[k].is_some() {
                return Ok(None);
            }
            Ok(Some(ad.unbroadcast(ct.clone(), &avals[k])?))
        })
        .collect()
}

pub(super) fn sub_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = single_ct(cts);
    let x = if ins[0].is_none() {
        Some(ad.unbroadcast(ct.clone(), &avals[0])?)
    } else {
        None
    };
    let y = if ins[1].is_none() {
        let n = ad.neg(ct)?;
        Some(ad.unbroadcast(n, &avals[1])?)
    } else {
        None
    };
    Ok(vec![x, y])
}

/// `copy` (`jnp.array` of a traced value) is the identity: its tangent and
/// its cotangent pass through.
pub fn copy_jvp(
    _: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![t[0].clone()])
}

pub fn copy_transpose(
    _: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![Some(single_ct(cts))])
}

pub(super) fn neg_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = single_ct(cts);
    Ok(vec![Some(ad.neg(ct)?)])
}

/// `mul` with one linear operand: the cotangent times the other.
pub(super) fn mul_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = single_ct(cts);
    match (&ins[0], &ins[1]) {
        (None, Some(y)) => {
            let c = ad.mul(ct, y.clone())?;
            Ok(vec![Some(ad.unbroadcast(c, &avals[0])?), None])
        }
        (Some(x), None) => {
            let c = ad.mul(x.clone(), ct)?;
            Ok(vec![None, Some(ad.unbroadcast(c, &avals[1])?)])
        }
        _ => Err("mul of two linear values is not linear".into()),
    }
}

/// `div` linear in its numerator.
pub(super) fn div_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = single_ct(cts);
    match &ins[1] {
        Some(y) if ins[0].is_none() => {
            let c = ad.div(ct, y.clone())?;
            Ok(vec![Some(ad.unbroadcast(c, &avals[0])?), None])
        }
        _ => Err("div is linear in its numerator only".into()),
    }
}

/// JAX's `_balanced_eq(x, z, y)`: 1 where `x == z != y`, 0.5 where both
/// equal `z` (ties split the gradient), 0 elsewhere.
fn balanced_eq(ad: &mut Ctx, x: Atom, z: Atom, y: Atom) -> Res<Atom> {
    let (one, half, zero) = (ad.lit(1.0, &x), ad.lit(0.5, &x), ad.lit(0.0, &x));
    let x_eq = ad.bin(&EQ, x, z.clone())?;
    let y_eq = ad.bin(&EQ, y, z)?;
    let share = ad.select(y_eq, one, half)?;
    ad.select(x_eq, zero, share)
}

/// `select(x == 0, 1, x)`: JAX's `_replace_zero`.
fn replace_zero(ad: &mut Ctx, x: Atom) -> Res<Atom> {
    let (zero, one) = (ad.lit(0.0, &x), ad.lit(1.0, &x));
    let is_zero = ad.bin(&EQ, x.clone(), zero)?;
    ad.select(is_zero, x, one)
}

pub(super) fn pow_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let (x, y, ans) = (ins[0].clone(), ins[1].clone(), outs[0].clone());
    // d/dx: select(y == 0, 0, y * x^(y - 1)) (JAX's `_pow_jvp_lhs`).
    let tx = match &t[0] {
        Some(tx) => {
            let one = ad.lit(1.0, &y);
            let ym1 = ad.bin(&SUB, y.clone(), one)?;
            let p = ad.bin(&POW, x.clone(), ym1)?;
            let ry = replace_zero(ad, y.clone())?;
            let jac = ad.mul(ry, p)?;
            let zero = ad.lit(0.0, &y);
            let y0 = ad.bin(&EQ, y.clone(), zero.clone())?;
            let jac = ad.select(y0, jac, zero)?;
            Some(ad.mul(tx.clone(), jac)?)
        }
        None => None,
    };
    // d/dy: log(replace_zero(x)) * ans (`_pow_jvp_rhs`).
    let ty = match &t[1] {
        Some(ty) => {
            let rx = replace_zero(ad, x)?;
            let l = ad.un(&LOG, rx)?;
            let f = ad.mul(l, ans)?;
            Some(ad.mul(ty.clone(), f)?)
        }
        None => None,
    };
    Ok(vec![ad.sum(vec![tx, ty])?])
}

/// `rem(x, y) = x - y * trunc(x / y)`: d/dx = 1, d/dy = -trunc(x / y).
pub(super) fn rem_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let (x, y) = (ins[0].clone(), ins[1].clone());
    let ty = match &t[1] {
        Some(ty) => {
            let q = ad.div(x.clone(), y)?;
            let zero = ad.lit(0.0, &x);
            let nonneg = ad.bin(&GE, q.clone(), zero)?;
            let down = ad.un(&FLOOR, q.clone())?;
            let up = ad.un(&CEIL, q)?;
            let trunc = ad.select(nonneg, up, down)?;
            let f = ad.neg(trunc)?;
            Some(ad.mul(ty.clone(), f)?)
        }
        None => None,
    };
    Ok(vec![ad.sum(vec![t[0].clone(), ty])?])
}

pub(super) fn clamp_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    // clamp(lo, x, hi): the tangent of whichever operand the result is.
    let (lo, x, hi) = (ins[0].clone(), ins[1].clone(), ins[2].clone());
    let mut terms = Vec::new();
    let shape = ad.aval(&x);
    let zeros = ad.full(0.0, &shape)?;
    let ones = ad.full(1.0, &shape)?;
    if let Some(tx) = &t[1] {
        let above = ad.bin(&GT, x.clone(), lo.clone())?;
        let below = ad.bin(&LT, x.clone(), hi.clone())?;
        let inside = ad.bin(&AND, above, below)?;
        let m = ad.select(inside, zeros.clone(), ones.clone())?;
        terms.push(Some(ad.mul(tx.clone(), m)?));
    }
    if let Some(tl) = &t[0] {
        let under = ad.bin(&LT, x.clone(), lo.clone())?;
        let m = ad.select(under, zeros.clone(), ones.clone())?;
        terms.push(Some(ad.mul(tl.clone(), m)?));
    }
    if let Some(th) = &t[2] {
        let over = ad.bin(&GT, x, hi)?;
        let m = ad.select(over, zeros, ones)?;
        terms.push(Some(ad.mul(th.clone(), m)?));
    }
    Ok(vec![ad.sum(terms)?])
}

/// sign(x), as a select (`x >= 0`: 1, else -1)
pub(super) fn abs_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let z = ad.lit(0.0, &x);
    let ge = ad.bin(&GE, x.clone(), z)?;
    let a = ad.aval(&x);
    let one = ad.full(1.0, &a)?;
    let m = ad.neg(one.clone())?;
    ad.select(ge, m, one)
}

/// 2x
pub(super) fn square_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let two = ad.lit(2.0, &x);
    ad.mul(x, two)
}

/// exp(x), the result
pub(super) fn exp_dx(_ad: &mut Ctx, _x: Atom, ans: Atom) -> Res<Atom> {
    Ok(ans)
}

/// ln 2 · 2^x
pub(super) fn exp2_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let l = ad.lit(std::f64::consts::LN_2, &x);
    ad.mul(ans, l)
}

/// 1 / x
pub(super) fn log_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    ad.div(one, x)
}

/// 1 / (1 + x)
pub(super) fn log1p_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let d = ad.bin(&ADD, x, one.clone())?;
    ad.div(one, d)
}

/// exp(x) = expm1(x) + 1
pub(super) fn expm1_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    ad.bin(&ADD, ans, one)
}

/// cos x
pub(super) fn sin_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    ad.un(&COS, x)
}

/// -sin x
pub(super) fn cos_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let s = ad.un(&SIN, x)?;
    ad.neg(s)
}

/// 1 + tan² x
pub(super) fn tan_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let sq = ad.mul(ans.clone(), ans)?;
    ad.bin(&ADD, one, sq)
}

/// 1 - tanh² x
pub(super) fn tanh_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let sq = ad.mul(ans.clone(), ans)?;
    ad.bin(&SUB, one, sq)
}

/// cosh x
pub(super) fn sinh_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    ad.un(&COSH, x)
}

/// sinh x
pub(super) fn cosh_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    ad.un(&SINH, x)
}

/// 1 / √(1 - x²)
pub(super) fn asin_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let sq = ad.mul(x.clone(), x)?;
    let d = ad.bin(&SUB, one, sq)?;
    ad.un(&RSQRT, d)
}

/// -1 / √(1 - x²)
pub(super) fn acos_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let sq = ad.mul(x.clone(), x)?;
    let d = ad.bin(&SUB, one, sq)?;
    let r = ad.un(&RSQRT, d)?;
    ad.neg(r)
}

/// 1 / (1 + x²)
pub(super) fn atan_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let sq = ad.mul(x.clone(), x)?;
    let d = ad.bin(&ADD, one.clone(), sq)?;
    ad.div(one, d)
}

/// 1 / √(x² + 1)
pub(super) fn asinh_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let sq = ad.mul(x.clone(), x)?;
    let d = ad.bin(&ADD, sq, one)?;
    ad.un(&RSQRT, d)
}

/// 1 / √((x - 1)(x + 1))
pub(super) fn acosh_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let a = ad.bin(&SUB, x.clone(), one.clone())?;
    let b = ad.bin(&ADD, x, one)?;
    let d = ad.mul(a, b)?;
    ad.un(&RSQRT, d)
}

/// 1 / (1 - x²)
pub(super) fn atanh_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let sq = ad.mul(x.clone(), x)?;
    let d = ad.bin(&SUB, one.clone(), sq)?;
    ad.div(one, d)
}

/// 1 / (2 √x)
pub(super) fn sqrt_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let half = ad.lit(0.5, &x);
    ad.div(half, ans)
}

/// -x^(-3/2) / 2 = -(rsqrt x / x) / 2
pub(super) fn rsqrt_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let m = ad.lit(-0.5, &x);
    let q = ad.div(ans, x)?;
    ad.mul(q, m)
}

/// cbrt(x)^-2 / 3
pub(super) fn cbrt_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let third = ad.lit(1.0 / 3.0, &x);
    let p = ad.bind(&INTEGER_POW, Params::IntegerPow(-2), vec![ans])?;
    ad.mul(third, p)
}

/// σ(x) (1 - σ(x))
pub(super) fn logistic_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let one = ad.lit(1.0, &x);
    let d = ad.bin(&SUB, one, ans.clone())?;
    ad.mul(ans, d)
}

/// 2/√π · exp(-x²)
pub(super) fn erf_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let k = ad.lit(2.0 / std::f64::consts::PI.sqrt(), &x);
    let sq = ad.mul(x.clone(), x)?;
    let n = ad.neg(sq)?;
    let e = ad.un(&EXP, n)?;
    ad.mul(k, e)
}

/// -2/√π · exp(-x²)
pub(super) fn erfc_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    let k = ad.lit(-2.0 / std::f64::consts::PI.sqrt(), &x);
    let sq = ad.mul(x.clone(), x)?;
    let n = ad.neg(sq)?;
    let e = ad.un(&EXP, n)?;
    ad.mul(k, e)
}

/// √π/2 · exp(erf_inv(x)²)
pub(super) fn erf_inv_dx(ad: &mut Ctx, x: Atom, ans: Atom) -> Res<Atom> {
    let k = ad.lit(std::f64::consts::PI.sqrt() / 2.0, &x);
    let sq = ad.mul(ans.clone(), ans)?;
    let e = ad.un(&EXP, sq)?;
    ad.mul(k, e)
}

/// lgamma' = digamma
pub(super) fn lgamma_dx(ad: &mut Ctx, x: Atom, _ans: Atom) -> Res<Atom> {
    ad.un(&DIGAMMA, x)
}

/// ∂(x y)/∂x = y
pub(super) fn mul_dx(_ad: &mut Ctx, _x: Atom, y: Atom, _ans: Atom) -> Res<Atom> {
    Ok(y)
}

/// ∂(x y)/∂y = x
pub(super) fn mul_dy(_ad: &mut Ctx, x: Atom, _y: Atom, _ans: Atom) -> Res<Atom> {
    Ok(x)
}

/// JAX's jvp of `div`: `t_x / y` (a division, as JAX computes it: its
/// transpose divides the cotangent) and `(-t_y · x) · y⁻²`.
pub(super) fn div_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let (x, y) = (ins[0].clone(), ins[1].clone());
    let tx = match &t[0] {
        Some(tx) => Some(ad.div(tx.clone(), y.clone())?),
        None => None,
    };
    let ty = match &t[1] {
        Some(ty) => {
            let n = ad.neg(ty.clone())?;
            let nx = ad.mul(n, x)?;
            let p = ad.bind(&INTEGER_POW, Params::IntegerPow(-2), vec![y])?;
            Some(ad.mul(nx, p)?)
        }
        None => None,
    };
    Ok(vec![ad.sum(vec![tx, ty])?])
}

/// 1 where x is the max, ½ on ties (JAX's balanced_eq)
pub(super) fn max_dx(ad: &mut Ctx, x: Atom, y: Atom, ans: Atom) -> Res<Atom> {
    balanced_eq(ad, x, ans, y)
}

/// 1 where y is the max, ½ on ties
pub(super) fn max_dy(ad: &mut Ctx, x: Atom, y: Atom, ans: Atom) -> Res<Atom> {
    balanced_eq(ad, y, ans, x)
}

/// 1 where x is the min, ½ on ties
pub(super) fn min_dx(ad: &mut Ctx, x: Atom, y: Atom, ans: Atom) -> Res<Atom> {
    balanced_eq(ad, x, ans, y)
}

/// 1 where y is the min, ½ on ties
pub(super) fn min_dy(ad: &mut Ctx, x: Atom, y: Atom, ans: Atom) -> Res<Atom> {
    balanced_eq(ad, y, ans, x)
}

/// ∂atan2(x, y)/∂x = y / (x² + y²)
pub(super) fn atan2_dx(ad: &mut Ctx, x: Atom, y: Atom, _ans: Atom) -> Res<Atom> {
    let d = {
        let a = ad.mul(x.clone(), x.clone())?;
        let b = ad.mul(y.clone(), y.clone())?;
        ad.bin(&ADD, a, b)?
    };
    ad.div(y, d)
}

/// ∂atan2(x, y)/∂y = -x / (x² + y²)
pub(super) fn atan2_dy(ad: &mut Ctx, x: Atom, y: Atom, _ans: Atom) -> Res<Atom> {
    let d = {
        let a = ad.mul(x.clone(), x.clone())?;
        let b = ad.mul(y.clone(), y.clone())?;
        ad.bin(&ADD, a, b)?
    };
    let n = ad.neg(x)?;
    ad.div(n, d)
}
