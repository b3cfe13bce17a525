//! The complex-number primitives: `real`, `imag`, `conj`, `complex`, and
//! `abs` (whose result is real for a complex operand). `real`, `imag`,
//! `conj` and `complex` are linear, with JAX's transposes (`lax.py`): the
//! cotangent of `real` is `complex(t, 0)`, of `imag` `complex(0, -t)`, of
//! `complex` `(real(t), imag(-t))`, of `conj` `conj(t)`. With these, `grad`
//! of a real function through complex intermediates is JAX's.

use jax_dtypes::Kind;

use super::derivatives::abs_dx;
use super::*;
use crate::ir::builder::literal;
use crate::ir::rules::{single_ct, tangent_aval, TransposeRule};
use crate::prims::{Ctx, Prim};

/// The part type of a complex dtype (`complex64` -> `float32`).
fn part_dtype(d: DType) -> DType {
    match d {
        DType::C128 => DType::F64,
        _ => DType::F32,
    }
}

/// The complex dtype with parts of `d` (`float32` -> `complex64`).
fn complex_of(d: DType) -> DType {
    match d {
        DType::F64 | DType::C128 => DType::C128,
        _ => DType::C64,
    }
}

fn is_complex(d: DType) -> bool {
    d.kind() == Kind::Complex
}

/// One operand, of a dtype `ok` accepts (`what` names them as JAX does).
fn unary_operand<'a>(
    name: &str,
    ops: &'a [Aval],
    ok: fn(DType) -> bool,
    what: &str,
) -> Result<&'a Aval, String> {
    let [x] = ops else {
        return Err(format!("{name} takes 1 operand, got {}", ops.len()));
    };
    if !ok(x.dtype) {
        return Err(format!(
            "{name} does not accept dtype {}. Accepted dtypes are subtypes of {what}.",
            x.dtype.name()
        ));
    }
    Ok(x)
}

/// A linear unary primitive's jvp: the primitive applied to the tangent.
fn linear_unary_jvp(p: Prim) -> impl Fn(&mut Ad, &[Option<Atom>]) -> Res<Vec<Option<Atom>>> {
    move |ad, t| {
        Ok(vec![match &t[0] {
            Some(t) => Some(ad.un(p, t.clone())?),
            None => None,
        }])
    }
}

/// `real(x)`: the real part of a complex array.
pub static REAL: PrimDef = PrimDef {
    name: "real",
    abstract_eval: |ops, _, _| {
        let x = unary_operand("real", ops, is_complex, "complexfloating")?;
        Ok(vec![x.with_dtype(part_dtype(x.dtype), x.weak)])
    },
    jvp: Some(|ad, _, t, _, _| linear_unary_jvp(&REAL)(ad, t)),
    transpose: Some(real_transpose as TransposeRule),
    ..FAMILY
};

/// `imag(x)`: the imaginary part of a complex array.
pub static IMAG: PrimDef = PrimDef {
    name: "imag",
    abstract_eval: |ops, _, _| {
        let x = unary_operand("imag", ops, is_complex, "complexfloating")?;
        Ok(vec![x.with_dtype(part_dtype(x.dtype), x.weak)])
    },
    jvp: Some(|ad, _, t, _, _| linear_unary_jvp(&IMAG)(ad, t)),
    transpose: Some(imag_transpose as TransposeRule),
    ..FAMILY
};

/// `conj(x)`: the complex conjugate; a float32/float64 operand gives a
/// complex result, as `lax.conj`.
pub static CONJ: PrimDef = PrimDef {
    name: "conj",
    abstract_eval: |ops, _, _| {
        let x = unary_operand(
            "conj",
            ops,
            |d| matches!(d, DType::F32 | DType::F64) || is_complex(d),
            "float32, float64, complexfloating",
        )?;
        Ok(vec![x.with_dtype(complex_of(x.dtype), x.weak)])
    },
    print_params: |ops, _| vec![("input_dtype", ops[0].dtype.name().to_string())],
    parse_params: |r, _, _| {
        r.skip("input_dtype");
        Ok(Params::None)
    },
    jvp: Some(|ad, _, t, _, _| linear_unary_jvp(&CONJ)(ad, t)),
    transpose: Some(conj_transpose as TransposeRule),
    ..FAMILY
};

/// `complex(re, im)`: a complex array from float32 or float64 parts.
pub static COMPLEX: PrimDef = PrimDef {
    name: "complex",
    abstract_eval: |ops, _, c| {
        if ops.len() != 2 {
            return Err(format!("complex takes 2 operands, got {}", ops.len()));
        }
        let d = common_dtype("complex", ops, Accepts::Float)?;
        if !matches!(d, DType::F32 | DType::F64) {
            return Err(format!(
                "complex does not accept dtype {} at position 0. Accepted dtypes at position 0 are subtypes of float32, float64.",
                d.name()
            ));
        }
        let shape = nary_shape("complex", ops, c)?;
        Ok(vec![Aval {
            dtype: complex_of(d),
            shape,
            weak: all_weak(ops),
        }])
    },
    jvp: Some(complex_jvp as JvpRule),
    transpose: Some(complex_transpose as TransposeRule),
    ..FAMILY
};

/// `abs(x)`: the magnitude; real for a complex operand (`|3+4j| = 5`).
pub static ABS: PrimDef = PrimDef {
    name: "abs",
    abstract_eval: |ops, _, _| {
        let x = unary_operand(
            "abs",
            ops,
            |d| d.is_integer() || d.is_inexact(),
            "integer, floating, complexfloating",
        )?;
        let d = if is_complex(x.dtype) {
            part_dtype(x.dtype)
        } else {
            x.dtype
        };
        Ok(vec![x.with_dtype(d, x.weak)])
    },
    jvp: Some(abs_jvp as JvpRule),
    ..FAMILY
};

/// The primitives of this file.
pub(super) const COMPLEX_FAMILY: [&PrimDef; 5] = [&REAL, &IMAG, &CONJ, &COMPLEX, &ABS];

/// A zero scalar of `d`, as JAX's `np.zeros((), dtype)` in the transposes.
fn zero_scalar(d: DType) -> Atom {
    literal(
        crate::ir::cast_scalar(Scalar::Float(0.0), d),
        Aval::scalar(d, false),
    )
}

/// The cotangent of `real(x)`: `complex(t, 0)`.
fn real_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let t = single_ct(cts);
    let zero = zero_scalar(ad.aval(&t).dtype);
    Ok(vec![Some(ad.bin(&COMPLEX, t, zero)?)])
}

/// The cotangent of `imag(x)`: `complex(0, -t)`.
fn imag_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let t = single_ct(cts);
    let zero = zero_scalar(ad.aval(&t).dtype);
    let minus = ad.neg(t)?;
    Ok(vec![Some(ad.bin(&COMPLEX, zero, minus)?)])
}

/// The cotangent of `conj(x)`: `conj(t)` for a complex operand, `real(t)`
/// for a real one.
fn conj_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let t = single_ct(cts);
    let p: Prim = if is_complex(avals[0].dtype) {
        &CONJ
    } else {
        &REAL
    };
    Ok(vec![Some(ad.un(p, t)?)])
}

/// `complex` is linear in both operands: a missing tangent is zeros.
fn complex_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if t.iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let tx = ad.tangent_or_zeros(&t[0], &ins[0])?;
    let ty = ad.tangent_or_zeros(&t[1], &ins[1])?;
    Ok(vec![Some(ad.bin(&COMPLEX, tx, ty)?)])
}

/// The cotangents of `complex(x, y)`: `real(t)` and `imag(-t)`, each
/// summed over its operand's broadcast.
fn complex_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let t = single_ct(cts);
    let x = if ins[0].is_none() {
        let r = ad.un(&REAL, t.clone())?;
        Some(ad.unbroadcast(r, &avals[0])?)
    } else {
        None
    };
    let y = if ins[1].is_none() {
        let n = ad.neg(t)?;
        let i = ad.un(&IMAG, n)?;
        Some(ad.unbroadcast(i, &avals[1])?)
    } else {
        None
    };
    Ok(vec![x, y])
}

/// JAX's `_abs_jvp_rule`: for complex `x`,
/// `real(t * conj(x) / replace_zero(complex(|x|)))`; for real `x`,
/// `t * sign` (as `select(x >= 0, t, -t)`).
fn abs_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(t) = &t[0] else {
        return Ok(vec![None]);
    };
    let x = ins[0].clone();
    let d = ad.aval(&x).dtype;
    if !is_complex(d) {
        let factor = abs_dx(ad, x, outs[0].clone())?;
        return Ok(vec![Some(ad.mul(t.clone(), factor)?)]);
    }
    let cx = ad.un(&CONJ, x)?;
    let q = complex_over_magnitude(ad, cx, outs[0].clone(), d)?;
    let m = ad.mul(t.clone(), q)?;
    Ok(vec![Some(ad.un(&REAL, m)?)])
}

/// `num / replace_zero(convert(ans, d))`: `replace_zero` puts 1 where the
/// magnitude is 0, so the derivative at 0 is 0 rather than NaN.
fn complex_over_magnitude(ad: &mut Ctx, num: Atom, ans: Atom, d: DType) -> Res<Atom> {
    let a = ad.convert(ans, d)?;
    let zero = ad.lit(0.0, &a);
    let is_zero = ad.bin(&EQ, a.clone(), zero)?;
    let aval = tangent_aval(&ad.aval(&a));
    let one = ad.full(1.0, &aval)?;
    let safe = ad.select(is_zero, a, one)?;
    ad.div(num, safe)
}
