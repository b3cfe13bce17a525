//! Elementwise primitives: each result element depends only on the operand
//! elements at the same index. They run as `::jax::__rt::ops::NAME` on
//! scalars inside fused loops, so the runtime holds their arithmetic.

use jax_dtypes::DType;

use proc_macro2::TokenStream;
use quote::quote;

use super::{no_params, Lowering, Params, PrimDef, TRANSCENDENTAL_WORK};
use super::{Ad, JvpRule, Res, TransposeRule};
use crate::ir::shapes::{broadcast, Constraints};
use crate::ir::Atom;
use crate::ir::{Aval, Shape};

/// Which operand dtypes a primitive accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Accepts {
    /// Floating point only (`sin`, `exp`, `atan2`).
    Float,
    /// Integers and floats, not bool (`neg`, `sub`, `max`).
    Number,
    /// Anything (`add`, `eq`, `select_n` cases).
    Any,
    /// Bool and integers (`and`, `not`).
    Logical,
}

fn accepts(a: Accepts, d: DType) -> bool {
    match a {
        Accepts::Float => d.is_float(),
        Accepts::Number => d.is_integer() || d.is_float(),
        Accepts::Any => true,
        Accepts::Logical => d == DType::Bool || d.is_integer(),
    }
}

fn describe(a: Accepts) -> &'static str {
    match a {
        Accepts::Float => "floating",
        Accepts::Number => "integer, floating",
        Accepts::Any => "bool, integer, floating",
        Accepts::Logical => "bool, integer",
    }
}

/// The shape of an n-ary elementwise result. Operands have equal ranks and
/// each dim is equal or 1 (JAX's jaxprs broadcast size-1 dims implicitly);
/// rank-0 operands (scalars) combine with anything.
fn nary_shape(name: &str, ops: &[Aval], c: &mut Constraints) -> Result<Shape, String> {
    let mut acc: Option<Aval> = None;
    for op in ops.iter().filter(|a| a.rank() > 0) {
        acc = Some(match acc {
            None => op.clone(),
            Some(s) => {
                let err =
                    || format!("{name} got incompatible shapes for broadcasting: {s} and {op}");
                if s.rank() != op.rank() {
                    return Err(err());
                }
                let shape = broadcast(&s, op, c).map_err(|_| err())?;
                Aval { shape, ..s.clone() }
            }
        });
    }
    Ok(acc.map(|s| s.shape).unwrap_or_default())
}

/// Operands must share one dtype, which the primitive accepts.
fn common_dtype(name: &str, ops: &[Aval], a: Accepts) -> Result<DType, String> {
    let d = ops[0].dtype;
    if ops.iter().any(|o| o.dtype != d) {
        let got: Vec<&str> = ops.iter().map(|o| o.dtype.name()).collect();
        return Err(format!(
            "lax.{name} requires arguments to have the same dtypes, got {}. \
             (Tip: jnp.{name} is a similar function that does automatic type promotion on inputs).",
            got.join(", ")
        ));
    }
    for (i, op) in ops.iter().enumerate() {
        if !accepts(a, op.dtype) {
            return Err(format!(
                "{name} does not accept dtype {} at position {i}. Accepted dtypes at position {i} are subtypes of {}.",
                op.dtype.name(),
                describe(a)
            ));
        }
    }
    Ok(d)
}

/// A weak result only when every operand is weak, as JAX's lax ops.
fn all_weak(ops: &[Aval]) -> bool {
    ops.iter().all(|o| o.weak)
}

macro_rules! elementwise {
    ($($id:ident = $name:literal, $arity:literal, $accepts:ident, $out:ident, $jvp:expr, $transpose:expr $(, work: $work:expr)? $(, forward: $forward:expr)?;)*) => {
        $(
            pub static $id: PrimDef = PrimDef {
                name: $name,
                abstract_eval: |ops, _params, c| {
                    if ops.len() != $arity {
                        return Err(format!("{} takes {} operands, got {}", $name, $arity, ops.len()));
                    }
                    let d = common_dtype($name, ops, Accepts::$accepts)?;
                    let shape = nary_shape($name, ops, c)?;
                    Ok(vec![out_aval(OutRule::$out, d, shape, all_weak(ops))])
                },
                print_params: no_params,
                lowering: Lowering::Elementwise,
                jvp: $jvp,
                transpose: $transpose,
                $(work: $work,)?
                $(forward: Some($forward),)?
                ..PrimDef::BASE
            };
        )*
        /// The table-driven elementwise primitives.
        #[cfg(test)]
        const TABLE: &[&PrimDef] = &[$(&$id),*];
    };
}

/// A unary jvp rule `t * factor`, the factor a function of the operand
/// `$x` and the result `$ans` (primals only).
macro_rules! jvp1 {
    (|$ad:ident, $x:ident, $ans:ident| $factor:expr) => {{
        fn rule(
            $ad: &mut Ad,
            ins: &[Atom],
            t: &[Option<Atom>],
            _: &Params,
            outs: &[Atom],
        ) -> Res<Vec<Option<Atom>>> {
            #[allow(unused_variables)]
            let ($x, $ans) = (ins[0].clone(), outs[0].clone());
            let factor: Atom = $factor;
            Ok(vec![$ad.scale(&t[0], factor)?])
        }
        Some(rule as JvpRule)
    }};
}

/// A binary jvp rule `tx * fx + ty * fy`, the factors functions of the
/// operands and the result.
macro_rules! jvp2 {
    (|$ad:ident, $x:ident, $y:ident, $ans:ident| $fx:expr, $fy:expr) => {{
        fn rule(
            $ad: &mut Ad,
            ins: &[Atom],
            t: &[Option<Atom>],
            _: &Params,
            outs: &[Atom],
        ) -> Res<Vec<Option<Atom>>> {
            let tx = match &t[0] {
                Some(tx) => {
                    #[allow(unused_variables)]
                    let ($x, $y, $ans) = (ins[0].clone(), ins[1].clone(), outs[0].clone());
                    let f: Atom = $fx;
                    Some($ad.mul(tx.clone(), f)?)
                }
                None => None,
            };
            let ty = match &t[1] {
                Some(ty) => {
                    #[allow(unused_variables)]
                    let ($x, $y, $ans) = (ins[0].clone(), ins[1].clone(), outs[0].clone());
                    let f: Atom = $fy;
                    Some($ad.mul(ty.clone(), f)?)
                }
                None => None,
            };
            Ok(vec![$ad.sum(vec![tx, ty])?])
        }
        Some(rule as JvpRule)
    }};
}

/// No derivative: the result is piecewise constant (or not a float).
pub(crate) fn zero_jvp(
    _: &mut Ad,
    _: &[Atom],
    _: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![None; outs.len()])
}
const ZERO: Option<JvpRule> = Some(zero_jvp as JvpRule);

fn add_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    // A missing tangent of a broadcast operand needs no term; a present one
    // broadcasts like its primal.
    let _ = ins;
    Ok(vec![ad.sum(t.to_vec())?])
}

fn sub_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let ty = match &t[1] {
        Some(ty) => Some(ad.neg(ty.clone())?),
        None => None,
    };
    Ok(vec![ad.sum(vec![t[0].clone(), ty])?])
}

fn neg_jvp(
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
fn add_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    (0..2)
        .map(|k| {
            if ins[k].is_some() {
                return Ok(None);
            }
            Ok(Some(ad.unbroadcast(ct.clone(), &avals[k])?))
        })
        .collect()
}

fn sub_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
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
fn copy_jvp(
    _: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![t[0].clone()])
}

fn copy_transpose(
    _: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![Some(crate::ir::rules::single_ct(cts))])
}

fn neg_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    Ok(vec![Some(ad.neg(ct)?)])
}

/// `mul` with one linear operand: the cotangent times the other.
fn mul_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
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
fn div_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    match &ins[1] {
        Some(y) if ins[0].is_none() => {
            let c = ad.div(ct, y.clone())?;
            Ok(vec![Some(ad.unbroadcast(c, &avals[0])?), None])
        }
        _ => Err("div is linear in its numerator only".into()),
    }
}

/// `1 - ans^2`-style factors need constants of the operand's dtype.
fn c(ad: &Ad, v: f64, like: &Atom) -> Atom {
    ad.lit(v, like)
}

/// JAX's `_balanced_eq(x, z, y)`: 1 where `x == z != y`, 0.5 where both
/// equal `z` (ties split the gradient), 0 elsewhere.
fn balanced_eq(ad: &mut Ad, x: Atom, z: Atom, y: Atom) -> Res<Atom> {
    let (one, half, zero) = (c(ad, 1.0, &x), c(ad, 0.5, &x), c(ad, 0.0, &x));
    let x_eq = ad.bin(&EQ, x, z.clone())?;
    let y_eq = ad.bin(&EQ, y, z)?;
    let share = ad.select(y_eq, one, half)?;
    ad.select(x_eq, zero, share)
}

/// `select(x == 0, 1, x)`: JAX's `_replace_zero`.
fn replace_zero(ad: &mut Ad, x: Atom) -> Res<Atom> {
    let (zero, one) = (c(ad, 0.0, &x), c(ad, 1.0, &x));
    let is_zero = ad.bin(&EQ, x.clone(), zero)?;
    ad.select(is_zero, x, one)
}

fn pow_jvp(
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
            let one = c(ad, 1.0, &y);
            let ym1 = ad.bin(&SUB, y.clone(), one)?;
            let p = ad.bin(&POW, x.clone(), ym1)?;
            let ry = replace_zero(ad, y.clone())?;
            let jac = ad.mul(ry, p)?;
            let zero = c(ad, 0.0, &y);
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
fn rem_jvp(
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
            let zero = c(ad, 0.0, &x);
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

fn clamp_jvp(
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

#[derive(Clone, Copy)]
enum OutRule {
    /// The operands' dtype.
    Same,
    /// `bool` (comparisons, `is_finite`).
    Bool,
}

fn out_aval(rule: OutRule, d: DType, shape: Shape, weak: bool) -> Aval {
    match rule {
        OutRule::Same => Aval {
            dtype: d,
            shape,
            weak,
        },
        OutRule::Bool => Aval {
            dtype: DType::Bool,
            shape,
            weak: false,
        },
    }
}

elementwise! {
    NEG = "neg", 1, Number, Same, Some(neg_jvp as JvpRule), Some(neg_transpose as TransposeRule);
    SIGN = "sign", 1, Number, Same, ZERO, None;
    ABS = "abs", 1, Number, Same, jvp1!(|ad, x, ans| { let z = c(ad, 0.0, &x); let ge = ad.bin(&GE, x.clone(), z)?; let a = ad.aval(&x); let one = ad.full(1.0, &a)?; let m = ad.neg(one.clone())?; ad.select(ge, m, one)? }), None;
    SQUARE = "square", 1, Number, Same, jvp1!(|ad, x, ans| { let two = c(ad, 2.0, &x); ad.mul(x, two)? }), None;
    FLOOR = "floor", 1, Float, Same, ZERO, None;
    CEIL = "ceil", 1, Float, Same, ZERO, None;
    EXP = "exp", 1, Float, Same, jvp1!(|ad, x, ans| ans), None, work: TRANSCENDENTAL_WORK;
    EXP2 = "exp2", 1, Float, Same, jvp1!(|ad, x, ans| { let l = c(ad, std::f64::consts::LN_2, &x); ad.mul(ans, l)? }), None, work: TRANSCENDENTAL_WORK;
    LOG = "log", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); ad.div(one, x)? }), None, work: TRANSCENDENTAL_WORK;
    LOG1P = "log1p", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let d = ad.bin(&ADD, x, one.clone())?; ad.div(one, d)? }), None, work: TRANSCENDENTAL_WORK;
    EXPM1 = "expm1", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); ad.bin(&ADD, ans, one)? }), None, work: TRANSCENDENTAL_WORK;
    SIN = "sin", 1, Float, Same, jvp1!(|ad, x, ans| ad.un(&COS, x)?), None, work: TRANSCENDENTAL_WORK;
    COS = "cos", 1, Float, Same, jvp1!(|ad, x, ans| { let s = ad.un(&SIN, x)?; ad.neg(s)? }), None, work: TRANSCENDENTAL_WORK;
    TAN = "tan", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let sq = ad.mul(ans.clone(), ans)?; ad.bin(&ADD, one, sq)? }), None, work: TRANSCENDENTAL_WORK;
    TANH = "tanh", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let sq = ad.mul(ans.clone(), ans)?; ad.bin(&SUB, one, sq)? }), None, work: TRANSCENDENTAL_WORK;
    SINH = "sinh", 1, Float, Same, jvp1!(|ad, x, ans| ad.un(&COSH, x)?), None, work: TRANSCENDENTAL_WORK;
    COSH = "cosh", 1, Float, Same, jvp1!(|ad, x, ans| ad.un(&SINH, x)?), None, work: TRANSCENDENTAL_WORK;
    ASIN = "asin", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let sq = ad.mul(x.clone(), x)?; let d = ad.bin(&SUB, one, sq)?; ad.un(&RSQRT, d)? }), None, work: TRANSCENDENTAL_WORK;
    ACOS = "acos", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let sq = ad.mul(x.clone(), x)?; let d = ad.bin(&SUB, one, sq)?; let r = ad.un(&RSQRT, d)?; ad.neg(r)? }), None, work: TRANSCENDENTAL_WORK;
    ATAN = "atan", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let sq = ad.mul(x.clone(), x)?; let d = ad.bin(&ADD, one.clone(), sq)?; ad.div(one, d)? }), None, work: TRANSCENDENTAL_WORK;
    ASINH = "asinh", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let sq = ad.mul(x.clone(), x)?; let d = ad.bin(&ADD, sq, one)?; ad.un(&RSQRT, d)? }), None, work: TRANSCENDENTAL_WORK;
    ACOSH = "acosh", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let a = ad.bin(&SUB, x.clone(), one.clone())?; let b = ad.bin(&ADD, x, one)?; let d = ad.mul(a, b)?; ad.un(&RSQRT, d)? }), None, work: TRANSCENDENTAL_WORK;
    ATANH = "atanh", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let sq = ad.mul(x.clone(), x)?; let d = ad.bin(&SUB, one.clone(), sq)?; ad.div(one, d)? }), None, work: TRANSCENDENTAL_WORK;
    SQRT = "sqrt", 1, Float, Same, jvp1!(|ad, x, ans| { let half = c(ad, 0.5, &x); ad.div(half, ans)? }), None, work: 4;
    RSQRT = "rsqrt", 1, Float, Same, jvp1!(|ad, x, ans| { let m = c(ad, -0.5, &x); let q = ad.div(ans, x)?; ad.mul(q, m)? }), None, work: 4;
    CBRT = "cbrt", 1, Float, Same, jvp1!(|ad, x, ans| { let third = c(ad, 1.0 / 3.0, &x); let p = ad.bind(&INTEGER_POW, Params::IntegerPow(-2), vec![ans])?; ad.mul(third, p)? }), None, work: TRANSCENDENTAL_WORK;
    LOGISTIC = "logistic", 1, Float, Same, jvp1!(|ad, x, ans| { let one = c(ad, 1.0, &x); let d = ad.bin(&SUB, one, ans.clone())?; ad.mul(ans, d)? }), None, work: TRANSCENDENTAL_WORK;
    ERF = "erf", 1, Float, Same, jvp1!(|ad, x, ans| { let k = c(ad, 2.0 / std::f64::consts::PI.sqrt(), &x); let sq = ad.mul(x.clone(), x)?; let n = ad.neg(sq)?; let e = ad.un(&EXP, n)?; ad.mul(k, e)? }), None, work: TRANSCENDENTAL_WORK;
    ERFC = "erfc", 1, Float, Same, jvp1!(|ad, x, ans| { let k = c(ad, -2.0 / std::f64::consts::PI.sqrt(), &x); let sq = ad.mul(x.clone(), x)?; let n = ad.neg(sq)?; let e = ad.un(&EXP, n)?; ad.mul(k, e)? }), None, work: TRANSCENDENTAL_WORK;
    ERF_INV = "erf_inv", 1, Float, Same, jvp1!(|ad, x, ans| { let k = c(ad, std::f64::consts::PI.sqrt() / 2.0, &x); let sq = ad.mul(ans.clone(), ans)?; let e = ad.un(&EXP, sq)?; ad.mul(k, e)? }), None, work: TRANSCENDENTAL_WORK;
    IS_FINITE = "is_finite", 1, Float, Bool, ZERO, None;
    NOT = "not", 1, Logical, Same, ZERO, None;
    STOP_GRADIENT = "stop_gradient", 1, Any, Same, ZERO, None, forward: |_, e, _| Some(e.ins[0].clone());
    COPY = "copy", 1, Any, Same, Some(copy_jvp as JvpRule), Some(copy_transpose as TransposeRule);
    ADD = "add", 2, Any, Same, Some(add_jvp as JvpRule), Some(add_transpose as TransposeRule), forward: forward_int_zero;
    ADD_ANY = "add_any", 2, Any, Same, Some(add_jvp as JvpRule), Some(add_transpose as TransposeRule);
    SUB = "sub", 2, Number, Same, Some(sub_jvp as JvpRule), Some(sub_transpose as TransposeRule), forward: forward_int_zero;
    MUL = "mul", 2, Any, Same, jvp2!(|ad, x, y, ans| y, x), Some(mul_transpose as TransposeRule), forward: forward_one;
    DIV = "div", 2, Number, Same, jvp2!(|ad, x, y, ans| { let one = c(ad, 1.0, &y); ad.div(one, y)? }, { let n = ad.neg(x)?; let p = ad.bind(&INTEGER_POW, Params::IntegerPow(-2), vec![y])?; ad.mul(n, p)? }), Some(div_transpose as TransposeRule), work: 4, forward: forward_right_one;
    REM = "rem", 2, Number, Same, Some(rem_jvp as JvpRule), None, work: 4;
    POW = "pow", 2, Float, Same, Some(pow_jvp as JvpRule), None, work: TRANSCENDENTAL_WORK;
    MAX = "max", 2, Any, Same, jvp2!(|ad, x, y, ans| balanced_eq(ad, x, ans, y)?, balanced_eq(ad, y, ans, x)?), None;
    MIN = "min", 2, Any, Same, jvp2!(|ad, x, y, ans| balanced_eq(ad, x, ans, y)?, balanced_eq(ad, y, ans, x)?), None;
    ATAN2 = "atan2", 2, Float, Same, jvp2!(|ad, x, y, ans| { let d = { let a = ad.mul(x.clone(), x.clone())?; let b = ad.mul(y.clone(), y.clone())?; ad.bin(&ADD, a, b)? }; ad.div(y, d)? }, { let d = { let a = ad.mul(x.clone(), x.clone())?; let b = ad.mul(y.clone(), y.clone())?; ad.bin(&ADD, a, b)? }; let n = ad.neg(x)?; ad.div(n, d)? }), None, work: TRANSCENDENTAL_WORK;
    AND = "and", 2, Logical, Same, ZERO, None;
    OR = "or", 2, Logical, Same, ZERO, None;
    XOR = "xor", 2, Logical, Same, ZERO, None;
    EQ = "eq", 2, Any, Bool, ZERO, None;
    NE = "ne", 2, Any, Bool, ZERO, None;
    LT = "lt", 2, Any, Bool, ZERO, None;
    LE = "le", 2, Any, Bool, ZERO, None;
    GT = "gt", 2, Any, Bool, ZERO, None;
    GE = "ge", 2, Any, Bool, ZERO, None;
    CLAMP = "clamp", 3, Any, Same, Some(clamp_jvp as JvpRule), None;
}

/// `round`: half away from zero (`rounding_method=0`, `lax.round`'s default)
/// or half to even (`1`, `jnp.round`).
pub static ROUND: PrimDef = PrimDef {
    name: "round",
    abstract_eval: |ops, _, c| {
        let d = common_dtype("round", ops, Accepts::Float)?;
        Ok(vec![Aval {
            dtype: d,
            shape: nary_shape("round", ops, c)?,
            weak: all_weak(ops),
        }])
    },
    print_params: |_, p| {
        let method = match p {
            Params::Rounding(m) => *m,
            _ => 0,
        };
        vec![("rounding_method", method.to_string())]
    },
    lowering: Lowering::Elementwise,
    jvp: ZERO,
    transpose: None,
    scalar: Some(round_scalar),
    ..PrimDef::BASE
};

/// A number rustc knows when the function compiles and the tracer does
/// not (a const generic `N`, `N as f32`, `N * 2`): no operands, a weakly
/// typed scalar, as JAX would have the static value as a Python scalar.
pub static STATIC_VALUE: PrimDef = PrimDef {
    name: "static_value",
    abstract_eval: |_, p, _| match p {
        Params::Symbol { dtype, .. } => Ok(vec![Aval::scalar(*dtype, true)]),
        _ => Err("static_value needs its expression".into()),
    },
    print_params: |_, p| match p {
        Params::Symbol { expr, .. } => vec![("value", expr.clone())],
        _ => Vec::new(),
    },
    lowering: Lowering::Elementwise,
    jvp: ZERO,
    transpose: None,
    scalar: Some(static_value_scalar),
    ..PrimDef::BASE
};

/// `x ** y` for a static integer `y`.
pub static INTEGER_POW: PrimDef = PrimDef {
    name: "integer_pow",
    abstract_eval: |ops, p, c| {
        let d = common_dtype("integer_pow", ops, Accepts::Number)?;
        if let Params::IntegerPow(y) = p {
            if *y < 0 && d.is_integer() {
                return Err(format!(
                    "Integers cannot be raised to negative powers, got integer_pow({}, {y})",
                    ops[0]
                ));
            }
        }
        Ok(vec![Aval {
            dtype: d,
            shape: nary_shape("integer_pow", ops, c)?,
            weak: all_weak(ops),
        }])
    },
    print_params: |_, p| match p {
        Params::IntegerPow(y) => vec![("y", y.to_string())],
        _ => Vec::new(),
    },
    lowering: Lowering::Elementwise,
    jvp: Some(integer_pow_jvp as JvpRule),
    transpose: None,
    work: 4,
    scalar: Some(integer_pow_scalar),
    ..PrimDef::BASE
};

/// Converts dtypes with XLA's semantics (saturating float to int, NaN to 0).
pub static CONVERT_ELEMENT_TYPE: PrimDef = PrimDef {
    name: "convert_element_type",
    abstract_eval: |ops, p, _| match p {
        Params::Convert { new_dtype, weak } => Ok(vec![ops[0].with_dtype(*new_dtype, *weak)]),
        _ => Err("convert_element_type needs new_dtype".into()),
    },
    print_params: |_, p| match p {
        Params::Convert { new_dtype, weak } => vec![
            ("new_dtype", new_dtype.name().to_string()),
            (
                "weak_type",
                if *weak { "True" } else { "False" }.to_string(),
            ),
        ],
        _ => Vec::new(),
    },
    lowering: Lowering::Elementwise,
    jvp: Some(convert_jvp as JvpRule),
    transpose: Some(convert_transpose as TransposeRule),
    forward: Some(forward_same_type),
    scalar: Some(convert_scalar),
    ..PrimDef::BASE
};

/// `select_n(which, *cases)`: the case chosen by a bool (false, true) or an
/// int32 index, per element.
pub static SELECT_N: PrimDef = PrimDef {
    name: "select_n",
    abstract_eval: |ops, _, c| {
        let (which, cases) = ops.split_first().ok_or("select_n needs a predicate")?;
        if cases.is_empty() {
            return Err("select_n needs at least one case".into());
        }
        if which.dtype != DType::Bool && which.dtype != DType::I32 {
            return Err(format!(
                "select_n `which` must be boolean or int32, got {}",
                which.dtype.name()
            ));
        }
        let d = common_dtype("select_n", cases, Accepts::Any)?;
        let shape = nary_shape("select_n", ops, c)?;
        Ok(vec![Aval {
            dtype: d,
            shape,
            weak: all_weak(cases),
        }])
    },
    print_params: no_params,
    lowering: Lowering::Elementwise,
    jvp: Some(select_jvp as JvpRule),
    transpose: Some(select_transpose as TransposeRule),
    scalar: Some(select_n_scalar),
    ..PrimDef::BASE
};

fn integer_pow_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::IntegerPow(n) = p else {
        unreachable!()
    };
    let x = ins[0].clone();
    let factor = match *n {
        0 => return Ok(vec![None]),
        1 => c(ad, 1.0, &x),
        n => {
            let pw = if n == 2 {
                x.clone()
            } else {
                ad.bind(&INTEGER_POW, Params::IntegerPow(n - 1), vec![x.clone()])?
            };
            let k = c(ad, n as f64, &x);
            ad.mul(k, pw)?
        }
    };
    Ok(vec![ad.scale(&t[0], factor)?])
}

fn convert_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Convert { new_dtype, .. } = p else {
        unreachable!()
    };
    if !new_dtype.is_float() || !ad.aval(&ins[0]).dtype.is_float() {
        return Ok(vec![None]);
    }
    Ok(vec![match &t[0] {
        Some(t) => Some(ad.convert(t.clone(), *new_dtype)?),
        None => None,
    }])
}

fn convert_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    Ok(vec![Some(ad.convert(ct, avals[0].dtype)?)])
}

fn select_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if t[1..].iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let out = crate::ir::rules::tangent_aval(&ad.aval(&outs[0]));
    let mut cases = vec![ins[0].clone()];
    for tc in &t[1..] {
        cases.push(match tc {
            Some(tc) => tc.clone(),
            None => ad.zeros(&out)?,
        });
    }
    Ok(vec![Some(ad.bind(&SELECT_N, Params::None, cases)?)])
}

fn select_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let which = ins[0].clone().ok_or("select_n's predicate is not linear")?;
    let ct_aval = ad.aval(&ct);
    let zeros = ad.zeros(&ct_aval)?;
    let mut out = vec![None];
    for k in 1..ins.len() {
        if ins[k].is_some() {
            out.push(None);
            continue;
        }
        let mut cases = vec![which.clone()];
        for j in 1..ins.len() {
            cases.push(if j == k { ct.clone() } else { zeros.clone() });
        }
        let c = ad.bind(&SELECT_N, Params::None, cases)?;
        out.push(Some(ad.unbroadcast(c, &avals[k])?));
    }
    Ok(out)
}

/// All elementwise primitives.
#[cfg(test)]
pub static ELEMENTWISE: std::sync::LazyLock<Vec<&'static PrimDef>> =
    std::sync::LazyLock::new(|| {
        let mut v = TABLE.to_vec();
        v.extend([
            &ROUND,
            &INTEGER_POW,
            &CONVERT_ELEMENT_TYPE,
            &SELECT_N,
            &STATIC_VALUE,
        ]);
        v
    });

/// `round`'s runtime function: half away from zero, or half to even.
fn round_scalar(p: &Params, args: &[TokenStream]) -> TokenStream {
    let x = &args[0];
    match p {
        Params::Rounding(1) => quote!(::jax::__rt::ops::round_even(#x)),
        _ => quote!(::jax::__rt::ops::round(#x)),
    }
}

/// The Rust expression of a `static_value`, in its dtype.
fn static_value_scalar(p: &Params, _: &[TokenStream]) -> TokenStream {
    let Params::Symbol { expr, dtype } = p else {
        unreachable!("static_value carries Params::Symbol")
    };
    let e: TokenStream = expr.parse().expect("a Rust expression the tracer wrote");
    let ty = crate::ir::rust_type(*dtype);
    quote!(((#e) as #ty))
}

fn integer_pow_scalar(p: &Params, args: &[TokenStream]) -> TokenStream {
    let Params::IntegerPow(y) = p else {
        unreachable!("integer_pow carries Params::IntegerPow")
    };
    let (x, y) = (&args[0], *y as i32);
    quote!(::jax::__rt::ops::integer_pow(#x, #y))
}

/// XLA's conversion (saturating float to int, NaN to 0) to the new dtype.
fn convert_scalar(p: &Params, args: &[TokenStream]) -> TokenStream {
    let Params::Convert { new_dtype, .. } = p else {
        unreachable!("convert_element_type carries Params::Convert")
    };
    let (x, to) = (&args[0], crate::ir::rust_type(*new_dtype));
    quote!(::jax::__rt::ops::convert::<_, #to>(#x))
}

/// `select_n` of two cases is `select`; more go through an array.
fn select_n_scalar(_: &Params, args: &[TokenStream]) -> TokenStream {
    let (which, cases) = (&args[0], &args[1..]);
    if let [f, t] = cases {
        quote!(::jax::__rt::ops::select(#which, #f, #t))
    } else {
        quote!(::jax::__rt::ops::select_n(#which, [#(#cases),*]))
    }
}

/// `x * 1` and `1 * x` are `x` (of `x`'s type).
fn forward_one<'a>(
    j: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    use crate::ir::is_literal;
    match e.ins.as_slice() {
        [x, y] | [y, x] if is_literal(y, 1.0) && super::same_type(j, e, x) => Some(x.clone()),
        _ => None,
    }
}

/// `x / 1` is `x`.
fn forward_right_one<'a>(
    j: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    match e.ins.as_slice() {
        [x, y] if crate::ir::is_literal(y, 1.0) && super::same_type(j, e, x) => Some(x.clone()),
        _ => None,
    }
}

/// `x + 0` and `x - 0` are `x` for integers (for floats, `-0 + 0` is `+0`).
fn forward_int_zero<'a>(
    j: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    match e.ins.as_slice() {
        [x, y]
            if crate::ir::is_literal(y, 0.0)
                && super::same_type(j, e, x)
                && !j.aval(e.outs[0]).dtype.is_float() =>
        {
            Some(x.clone())
        }
        _ => None,
    }
}

/// A conversion to the operand's own type is the operand.
fn forward_same_type<'a>(
    j: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    super::same_type(j, e, &e.ins[0]).then(|| e.ins[0].clone())
}
