//! Elementwise primitives: each result element depends only on the operand
//! elements at the same index. They run as `::jax::__rt::ops::NAME` on
//! scalars inside fused loops, so the runtime holds their arithmetic.

use jax_dtypes::DType;

use super::{no_params, Lowering, Params, PrimDef};
use crate::ir::{Aval, Shape};
use crate::shapes::{broadcast, Constraints};

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
    ($($id:ident = $name:literal, $arity:literal, $accepts:ident, $out:ident;)*) => {
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
            };
        )*
        /// The table-driven elementwise primitives.
        const TABLE: &[&PrimDef] = &[$(&$id),*];
    };
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
    NEG = "neg", 1, Number, Same;
    SIGN = "sign", 1, Number, Same;
    ABS = "abs", 1, Number, Same;
    SQUARE = "square", 1, Number, Same;
    FLOOR = "floor", 1, Float, Same;
    CEIL = "ceil", 1, Float, Same;
    EXP = "exp", 1, Float, Same;
    EXP2 = "exp2", 1, Float, Same;
    LOG = "log", 1, Float, Same;
    LOG1P = "log1p", 1, Float, Same;
    EXPM1 = "expm1", 1, Float, Same;
    SIN = "sin", 1, Float, Same;
    COS = "cos", 1, Float, Same;
    TAN = "tan", 1, Float, Same;
    TANH = "tanh", 1, Float, Same;
    SINH = "sinh", 1, Float, Same;
    COSH = "cosh", 1, Float, Same;
    ASIN = "asin", 1, Float, Same;
    ACOS = "acos", 1, Float, Same;
    ATAN = "atan", 1, Float, Same;
    ASINH = "asinh", 1, Float, Same;
    ACOSH = "acosh", 1, Float, Same;
    ATANH = "atanh", 1, Float, Same;
    SQRT = "sqrt", 1, Float, Same;
    RSQRT = "rsqrt", 1, Float, Same;
    CBRT = "cbrt", 1, Float, Same;
    LOGISTIC = "logistic", 1, Float, Same;
    ERF = "erf", 1, Float, Same;
    ERFC = "erfc", 1, Float, Same;
    ERF_INV = "erf_inv", 1, Float, Same;
    IS_FINITE = "is_finite", 1, Float, Bool;
    NOT = "not", 1, Logical, Same;
    STOP_GRADIENT = "stop_gradient", 1, Any, Same;
    ADD = "add", 2, Any, Same;
    ADD_ANY = "add_any", 2, Any, Same;
    SUB = "sub", 2, Number, Same;
    MUL = "mul", 2, Any, Same;
    DIV = "div", 2, Number, Same;
    REM = "rem", 2, Number, Same;
    POW = "pow", 2, Float, Same;
    MAX = "max", 2, Any, Same;
    MIN = "min", 2, Any, Same;
    ATAN2 = "atan2", 2, Float, Same;
    AND = "and", 2, Logical, Same;
    OR = "or", 2, Logical, Same;
    XOR = "xor", 2, Logical, Same;
    EQ = "eq", 2, Any, Bool;
    NE = "ne", 2, Any, Bool;
    LT = "lt", 2, Any, Bool;
    LE = "le", 2, Any, Bool;
    GT = "gt", 2, Any, Bool;
    GE = "ge", 2, Any, Bool;
    CLAMP = "clamp", 3, Any, Same;
}

/// `round`: half away from zero (`rounding_method=0`, XLA's default).
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
    print_params: |_, _| vec![("rounding_method", "0".into())],
    lowering: Lowering::Elementwise,
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
};

/// All elementwise primitives.
pub static ELEMENTWISE: std::sync::LazyLock<Vec<&'static PrimDef>> =
    std::sync::LazyLock::new(|| {
        let mut v = TABLE.to_vec();
        v.extend([&ROUND, &INTEGER_POW, &CONVERT_ELEMENT_TYPE, &SELECT_N]);
        v
    });
