//! Elementwise primitives: each result element depends only on the operand
//! elements at the same index. They run as `::jax::__rt::ops::NAME` on
//! scalars inside fused loops, so the runtime holds their arithmetic.
//!
//! The family's rules are written once here: abstract evaluation (dtype
//! agreement, broadcasting of size-1 axes), printing, lowering, and the
//! defaults of [`FAMILY`]; a row of the table names what is particular to
//! one primitive (its derivative factors in `derivatives.rs`, its work).
//! Primitives with parameters are in `parameterized.rs`.

mod bits;
mod complex;
mod derivatives;
mod parameterized;

pub use bits::{SHIFT_LEFT, SHIFT_RIGHT_ARITHMETIC, SHIFT_RIGHT_LOGICAL};
pub use complex::*;

use derivatives::*;
pub use derivatives::{copy_jvp, copy_transpose, zero_jvp};
pub use parameterized::*;

use jax_dtypes::DType;

use proc_macro2::TokenStream;
use quote::quote;

use super::{no_params, Lowering, Params, PrimDef, TRANSCENDENTAL_WORK};
use super::{Ad, BDim, Batch, JvpRule, Res};
use crate::ir::shapes::{broadcast, Constraints};
use crate::ir::Atom;
use crate::ir::{Aval, Eqn, Jaxpr, Literal, Scalar, Shape, Var};

/// Which operand dtypes a primitive accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Accepts {
    /// Floating point only (`floor`, `atan2`, `erf`).
    Float,
    /// Floating point or complex (`sin`, `exp`, `sqrt`).
    Inexact,
    /// Integers, floats and complex, not bool (`neg`, `sub`, `mul`).
    Number,
    /// Integers and floats (`rem`).
    Real,
    /// Anything but complex, which has no order (`lt`, `max`).
    Ordered,
    /// Anything (`add`, `eq`, `select_n` cases).
    Any,
    /// Bool and integers (`and`, `not`).
    Logical,
}

fn accepts(a: Accepts, d: DType) -> bool {
    match a {
        Accepts::Float => d.is_float(),
        Accepts::Inexact => d.is_inexact(),
        Accepts::Number => d.is_integer() || d.is_inexact(),
        Accepts::Real => d.is_integer() || d.is_float(),
        Accepts::Ordered => d.kind() != jax_dtypes::Kind::Complex,
        Accepts::Any => true,
        Accepts::Logical => d == DType::Bool || d.is_integer(),
    }
}

fn describe(a: Accepts) -> &'static str {
    match a {
        Accepts::Float => "floating",
        Accepts::Inexact => "floating, complexfloating",
        Accepts::Number => "integer, floating, complexfloating",
        Accepts::Real => "integer, floating",
        Accepts::Ordered => "integer, floating, bool",
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
        if !accepts(a, op.dtype) && ops.len() == 1 {
            return Err(format!(
                "{name} does not accept dtype {}. Accepted dtypes are subtypes of {}.",
                op.dtype.name(),
                describe(a)
            ));
        }
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

/// What every elementwise primitive has unless its row says otherwise.
const FAMILY: PrimDef = PrimDef {
    print_params: no_params,
    lowering: Lowering::Elementwise,
    batch: Some(broadcasting_batch),
    ..PrimDef::BASE
};

/// Defines the table's primitives: `ID = "name", arity, accepted dtypes ->
/// result dtype, field: rule, ..;` where the fields are [`PrimDef`]'s
/// (`jvp`, `transpose`, `work`, `forward`, ..) and the rest come from
/// [`FAMILY`].
macro_rules! elementwise {
    ($($id:ident = $name:literal, $arity:literal, $accepts:ident -> $out:ident $(, $field:ident: $value:expr)*;)*) => {
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
                $($field: $value,)*
                ..FAMILY
            };
        )*
        /// The table-driven elementwise primitives.
        const TABLE: &[&PrimDef] = &[$(&$id),*];
    };
}

/// A unary jvp rule `t * f(x, ans)`, for a derivative `f` of the operand
/// and the result (primals only).
macro_rules! jvp1 {
    ($f:ident) => {{
        fn rule(
            ad: &mut Ad,
            ins: &[Atom],
            t: &[Option<Atom>],
            _: &Params,
            outs: &[Atom],
        ) -> Res<Vec<Option<Atom>>> {
            let factor = $f(ad, ins[0].clone(), outs[0].clone())?;
            Ok(vec![ad.scale(&t[0], factor)?])
        }
        Some(rule as JvpRule)
    }};
}

/// A binary jvp rule `tx * fx(x, y, ans) + ty * fy(x, y, ans)`, each
/// partial derivative computed only where its tangent is present.
macro_rules! jvp2 {
    ($fx:ident, $fy:ident) => {{
        fn rule(
            ad: &mut Ad,
            ins: &[Atom],
            t: &[Option<Atom>],
            _: &Params,
            outs: &[Atom],
        ) -> Res<Vec<Option<Atom>>> {
            let (x, y, ans) = (&ins[0], &ins[1], &outs[0]);
            let tx = match &t[0] {
                Some(tx) => {
                    let f = $fx(ad, x.clone(), y.clone(), ans.clone())?;
                    Some(ad.mul(tx.clone(), f)?)
                }
                None => None,
            };
            let ty = match &t[1] {
                Some(ty) => {
                    let f = $fy(ad, x.clone(), y.clone(), ans.clone())?;
                    Some(ad.mul(ty.clone(), f)?)
                }
                None => None,
            };
            Ok(vec![ad.sum(vec![tx, ty])?])
        }
        Some(rule as JvpRule)
    }};
}

elementwise! {
    NEG = "neg", 1, Number -> Same, jvp: Some(neg_jvp), transpose: Some(neg_transpose);
    SIGN = "sign", 1, Real -> Same, jvp: ZERO;
    SQUARE = "square", 1, Number -> Same, jvp: jvp1!(square_dx);
    FLOOR = "floor", 1, Float -> Same, jvp: ZERO;
    CEIL = "ceil", 1, Float -> Same, jvp: ZERO;
    EXP = "exp", 1, Inexact -> Same, jvp: jvp1!(exp_dx), work: TRANSCENDENTAL_WORK;
    EXP2 = "exp2", 1, Float -> Same, jvp: jvp1!(exp2_dx), work: TRANSCENDENTAL_WORK;
    LOG = "log", 1, Inexact -> Same, jvp: jvp1!(log_dx), work: TRANSCENDENTAL_WORK;
    LOG1P = "log1p", 1, Inexact -> Same, jvp: jvp1!(log1p_dx), work: TRANSCENDENTAL_WORK;
    EXPM1 = "expm1", 1, Inexact -> Same, jvp: jvp1!(expm1_dx), work: TRANSCENDENTAL_WORK;
    SIN = "sin", 1, Inexact -> Same, jvp: jvp1!(sin_dx), work: TRANSCENDENTAL_WORK;
    COS = "cos", 1, Inexact -> Same, jvp: jvp1!(cos_dx), work: TRANSCENDENTAL_WORK;
    TAN = "tan", 1, Float -> Same, jvp: jvp1!(tan_dx), work: TRANSCENDENTAL_WORK;
    TANH = "tanh", 1, Inexact -> Same, jvp: jvp1!(tanh_dx), work: TRANSCENDENTAL_WORK;
    SINH = "sinh", 1, Float -> Same, jvp: jvp1!(sinh_dx), work: TRANSCENDENTAL_WORK;
    COSH = "cosh", 1, Float -> Same, jvp: jvp1!(cosh_dx), work: TRANSCENDENTAL_WORK;
    ASIN = "asin", 1, Float -> Same, jvp: jvp1!(asin_dx), work: TRANSCENDENTAL_WORK;
    ACOS = "acos", 1, Float -> Same, jvp: jvp1!(acos_dx), work: TRANSCENDENTAL_WORK;
    ATAN = "atan", 1, Float -> Same, jvp: jvp1!(atan_dx), work: TRANSCENDENTAL_WORK;
    ASINH = "asinh", 1, Float -> Same, jvp: jvp1!(asinh_dx), work: TRANSCENDENTAL_WORK;
    ACOSH = "acosh", 1, Float -> Same, jvp: jvp1!(acosh_dx), work: TRANSCENDENTAL_WORK;
    ATANH = "atanh", 1, Float -> Same, jvp: jvp1!(atanh_dx), work: TRANSCENDENTAL_WORK;
    SQRT = "sqrt", 1, Inexact -> Same, jvp: jvp1!(sqrt_dx), work: 4;
    RSQRT = "rsqrt", 1, Float -> Same, jvp: jvp1!(rsqrt_dx), work: 4;
    CBRT = "cbrt", 1, Float -> Same, jvp: jvp1!(cbrt_dx), work: TRANSCENDENTAL_WORK;
    LOGISTIC = "logistic", 1, Float -> Same, jvp: jvp1!(logistic_dx), work: TRANSCENDENTAL_WORK;
    ERF = "erf", 1, Float -> Same, jvp: jvp1!(erf_dx), work: TRANSCENDENTAL_WORK;
    ERFC = "erfc", 1, Float -> Same, jvp: jvp1!(erfc_dx), work: TRANSCENDENTAL_WORK;
    ERF_INV = "erf_inv", 1, Float -> Same, jvp: jvp1!(erf_inv_dx), work: TRANSCENDENTAL_WORK;
    LGAMMA = "lgamma", 1, Float -> Same, jvp: jvp1!(lgamma_dx), work: TRANSCENDENTAL_WORK;
    // Its derivative is polygamma(1, x), which has no primitive yet.
    DIGAMMA = "digamma", 1, Float -> Same, work: TRANSCENDENTAL_WORK;
    IS_FINITE = "is_finite", 1, Float -> Bool, jvp: ZERO;
    NOT = "not", 1, Logical -> Same, jvp: ZERO;
    STOP_GRADIENT = "stop_gradient", 1, Any -> Same, jvp: ZERO, forward: Some(|_, e, _| Some(e.ins[0].clone()));
    COPY = "copy", 1, Any -> Same, jvp: Some(copy_jvp), transpose: Some(copy_transpose);
    ADD = "add", 2, Any -> Same, jvp: Some(add_jvp), transpose: Some(add_transpose), forward: Some(forward_int_zero);
    ADD_ANY = "add_any", 2, Any -> Same, jvp: Some(add_jvp), transpose: Some(add_transpose);
    SUB = "sub", 2, Number -> Same, jvp: Some(sub_jvp), transpose: Some(sub_transpose), forward: Some(forward_int_zero);
    MUL = "mul", 2, Any -> Same, jvp: jvp2!(mul_dx, mul_dy), transpose: Some(mul_transpose), forward: Some(forward_one);
    DIV = "div", 2, Number -> Same, jvp: Some(div_jvp as JvpRule), transpose: Some(div_transpose), work: 4, forward: Some(forward_right_one), rewrite: Some(reciprocal_of_broadcast);
    REM = "rem", 2, Real -> Same, jvp: Some(rem_jvp), work: 4;
    POW = "pow", 2, Float -> Same, jvp: Some(pow_jvp), work: TRANSCENDENTAL_WORK, forward: Some(pow_of_one), rewrite: Some(pow_of_small_integer);
    MAX = "max", 2, Ordered -> Same, jvp: jvp2!(max_dx, max_dy);
    MIN = "min", 2, Ordered -> Same, jvp: jvp2!(min_dx, min_dy);
    ATAN2 = "atan2", 2, Float -> Same, jvp: jvp2!(atan2_dx, atan2_dy), work: TRANSCENDENTAL_WORK;
    AND = "and", 2, Logical -> Same, jvp: ZERO;
    OR = "or", 2, Logical -> Same, jvp: ZERO;
    XOR = "xor", 2, Logical -> Same, jvp: ZERO;
    EQ = "eq", 2, Any -> Bool, jvp: ZERO;
    NE = "ne", 2, Any -> Bool, jvp: ZERO;
    LT = "lt", 2, Ordered -> Bool, jvp: ZERO;
    LE = "le", 2, Ordered -> Bool, jvp: ZERO;
    GT = "gt", 2, Ordered -> Bool, jvp: ZERO;
    GE = "ge", 2, Ordered -> Bool, jvp: ZERO;
    CLAMP = "clamp", 3, Ordered -> Same, jvp: Some(clamp_jvp), batch: Some(clamp_batch);
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

/// The family's batching: the lanes broadcast like any other axis.
fn broadcasting_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    bx.broadcasting(ins, dims, p)
}

/// All elementwise primitives.
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
        v.extend(complex::COMPLEX_FAMILY);
        v.extend(bits::BITS);
        v
    });

/// `x * 1` and `1 * x` are `x` (of `x`'s type).
fn forward_one<'a>(
    j: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    use crate::ir::is_literal;
    match e.ins.as_slice() {
        [x, y] | [y, x] if is_literal(y, 1.0) && crate::prims::same_type(j, e, x) => {
            Some(x.clone())
        }
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
        [x, y] if crate::ir::is_literal(y, 1.0) && crate::prims::same_type(j, e, x) => {
            Some(x.clone())
        }
        _ => None,
    }
}

/// `x + 0` and `x - 0` are `x` for integers (for floats and complex, `-0 + 0` is `+0`).
fn forward_int_zero<'a>(
    j: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    match e.ins.as_slice() {
        [x, y]
            if crate::ir::is_literal(y, 0.0)
                && crate::prims::same_type(j, e, x)
                && !j.aval(e.outs[0]).dtype.is_inexact() =>
        {
            Some(x.clone())
        }
        _ => None,
    }
}

/// The exponent of `pow(x, y)` when it is a constant: a literal, or a
/// literal broadcast.
fn constant_exponent<'a>(y: &Atom, producer: &dyn Fn(Var) -> Option<&'a Eqn>) -> Option<f64> {
    let lit = match y {
        Atom::Lit(l) => l,
        Atom::Var(v) => match producer(*v) {
            Some(b) if *b.prim == crate::prims::BROADCAST_IN_DIM => match &b.ins[0] {
                Atom::Lit(l) => l,
                Atom::Var(_) => return None,
            },
            _ => return None,
        },
    };
    match lit.value {
        Scalar::Float(v) => Some(v),
        Scalar::Int(n) => Some(n as f64),
        _ => None,
    }
}

/// `pow(x, 1.0)` is `x`, as XLA's algebraic simplifier has it (the
/// derivative of `x ** 2.0` is `2.0 * pow(x, 2.0 - 1.0)`).
fn pow_of_one<'a>(
    j: &'a Jaxpr,
    e: &'a Eqn,
    producer: &dyn Fn(Var) -> Option<&'a Eqn>,
) -> Option<Atom> {
    let [x, y] = e.ins.as_slice() else {
        return None;
    };
    (constant_exponent(y, producer) == Some(1.0) && crate::prims::same_type(j, e, x))
        .then(|| x.clone())
}

/// `pow(x, 2.0)` is `x * x`, `pow(x, 3.0)` is `x * x * x` and
/// `pow(x, -1.0)` is `1 / x`: XLA's algebraic simplifier rewrites a
/// constant exponent so, and JAX's jitted `x ** 2.0` gives those bits
/// (`tests/fixtures/gen/elementwise.py`, `pow_constant_exponent`), not a
/// power's.
fn pow_of_small_integer<'a>(
    j: &mut Jaxpr,
    e: &Eqn,
    producer: &dyn Fn(Var) -> Option<&'a Eqn>,
) -> Option<Vec<Eqn>> {
    let [x, y] = e.ins.as_slice() else {
        return None;
    };
    let n = constant_exponent(y, producer)?;
    if !crate::prims::same_type(j, e, x) || ![2.0, 3.0, -1.0].contains(&n) {
        return None;
    }
    let eqn = |prim: &'static PrimDef, ins: Vec<Atom>, out: Var| Eqn {
        prim,
        params: Params::None,
        ins,
        outs: vec![out],
        span: e.span,
    };
    let out = e.outs[0];
    Some(match n {
        2.0 => vec![eqn(&MUL, vec![x.clone(), x.clone()], out)],
        3.0 => {
            let sq = j.new_var(j.aval(out).clone());
            vec![
                eqn(&MUL, vec![x.clone(), x.clone()], sq),
                eqn(&MUL, vec![Atom::Var(sq), x.clone()], out),
            ]
        }
        _ => {
            let one = Atom::Lit(Literal {
                value: Scalar::Float(1.0),
                aval: Aval::scalar(j.aval(out).dtype, true),
            });
            vec![eqn(&DIV, vec![one, x.clone()], out)]
        }
    })
}

/// `x / broadcast(z)` becomes `x * broadcast(1 / z)` for floats, as XLA's
/// algebraic simplifier rewrites it: one division per element of `z`
/// instead of one per element of `x` (a softmax's row sums), and the same
/// rounding JAX's results have.
fn reciprocal_of_broadcast<'a>(
    j: &mut Jaxpr,
    e: &Eqn,
    producer: &dyn Fn(Var) -> Option<&'a Eqn>,
) -> Option<Vec<Eqn>> {
    /// How the divisor reaches the result's shape.
    enum Divisor {
        /// `broadcast_in_dim(z)`: take the reciprocal of `z`, then broadcast.
        Broadcast(Var, Params, Var),
        /// A smaller array or a scalar, broadcast implicitly.
        Implicit(Atom),
    }
    let out_aval = j.aval(e.outs[0]).clone();
    let [x, y] = e.ins.as_slice() else {
        return None;
    };
    if !out_aval.dtype.is_float() || j.atom_aval(y).shape == out_aval.shape {
        return None;
    }
    let bcast = match y {
        Atom::Var(yv) => producer(*yv)
            .filter(|b| *b.prim == crate::prims::BROADCAST_IN_DIM)
            .and_then(|b| match &b.ins[0] {
                Atom::Var(z) => Some(Divisor::Broadcast(*z, b.params.clone(), *yv)),
                Atom::Lit(_) => None,
            }),
        Atom::Lit(_) => None,
    };
    let divisor = bcast.unwrap_or(Divisor::Implicit(y.clone()));
    let span = e.span;
    let dtype = out_aval.dtype;
    let one = Atom::Lit(Literal {
        value: Scalar::Float(1.0),
        aval: Aval::scalar(dtype, true),
    });
    let mut out = Vec::new();
    let factor = match divisor {
        Divisor::Implicit(Atom::Lit(l)) => {
            // A literal's reciprocal, rounded as the division would be.
            let Scalar::Float(v) = crate::ir::cast_scalar(l.value, dtype) else {
                unreachable!()
            };
            let r = if dtype == DType::F64 {
                1.0 / v
            } else {
                (1.0f32 / v as f32) as f64
            };
            Atom::Lit(Literal {
                value: crate::ir::cast_scalar(Scalar::Float(r), dtype),
                aval: l.aval.clone(),
            })
        }
        Divisor::Implicit(y) => {
            let r = j.new_var(j.atom_aval(&y).clone());
            out.push(Eqn {
                prim: &DIV,
                params: Params::None,
                ins: vec![one, y],
                outs: vec![r],
                span,
            });
            Atom::Var(r)
        }
        Divisor::Broadcast(z, bparams, y) => {
            let r = j.new_var(j.aval(z).clone());
            let rb = j.new_var(j.aval(y).clone());
            out.push(Eqn {
                prim: &DIV,
                params: Params::None,
                ins: vec![one, Atom::Var(z)],
                outs: vec![r],
                span,
            });
            out.push(Eqn {
                prim: &crate::prims::BROADCAST_IN_DIM,
                params: bparams,
                ins: vec![Atom::Var(r)],
                outs: vec![rb],
                span,
            });
            Atom::Var(rb)
        }
    };
    out.push(Eqn {
        prim: &MUL,
        params: Params::None,
        ins: vec![x.clone(), factor],
        outs: e.outs.clone(),
        span,
    });
    Some(out)
}
