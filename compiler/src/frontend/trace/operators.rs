//! Rust's operators (`+`, `<`, `&`, `-x`, `!x`, `+=`): folded when the
//! operands are known now (static numbers, or const generics as Rust
//! arithmetic), else traced as JAX's binary and unary primitives.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{Symbolic, Value};
use crate::ir::builder::{err, Result};
use crate::ir::Scalar;
use crate::prims::{self, Prim};

impl Tracer {
    pub(crate) fn binary(&mut self, e: &syn::ExprBinary) -> Result<Value> {
        use syn::BinOp::*;
        let span = e.span();
        // Compound assignment rebinds: `acc += x` is `acc = acc + x`.
        let compound = match e.op {
            AddAssign(_) => Some(&prims::ADD),
            SubAssign(_) => Some(&prims::SUB),
            MulAssign(_) => Some(&prims::MUL),
            DivAssign(_) => Some(&prims::DIV),
            _ => None,
        };
        if let Some(prim) = compound {
            let syn::Expr::Path(p) = &*e.left else {
                return Err(syn::Error::new_spanned(
                    &e.left,
                    "arrays are immutable: use `x.at(i).add(v)`, which returns the updated array",
                ));
            };
            let name = p
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let l = self.expr(&e.left)?;
            let r = self.expr(&e.right)?;
            let v = self.arith(prim, l, r, span)?;
            self.assign(&name, v, span)?;
            return Ok(Value::Unit);
        }
        let l = self.expr(&e.left)?;
        match e.op {
            And(_) | Or(_) => {
                let r = self.expr(&e.right)?;
                match (&l, &r) {
                    (Value::Static(Scalar::Bool(a)), Value::Static(Scalar::Bool(b))) => {
                        Ok(Value::Static(Scalar::Bool(if matches!(e.op, And(_)) { *a && *b } else { *a || *b })))
                    }
                    _ => err(
                        e.op.span(),
                        "TracerBoolConversionError: `&&` and `||` need a concrete bool, but this value is traced; use `&` / `|` (or jnp::logical_and / jnp::logical_or) for elementwise logic",
                    ),
                }
            }
            _ => {
                let r = self.expr(&e.right)?;
                let prim: Prim = match e.op {
                    Add(_) => &prims::ADD,
                    Sub(_) => &prims::SUB,
                    Mul(_) => &prims::MUL,
                    Div(_) => &prims::DIV,
                    Rem(_) => &prims::REM,
                    BitAnd(_) => &prims::AND,
                    BitOr(_) => &prims::OR,
                    BitXor(_) => &prims::XOR,
                    Lt(_) => &prims::LT,
                    Le(_) => &prims::LE,
                    Gt(_) => &prims::GT,
                    Ge(_) => &prims::GE,
                    Eq(_) => &prims::EQ,
                    Ne(_) => &prims::NE,
                    _ => return err(e.op.span(), "this operator is not supported in #[jax::jit]"),
                };
                self.arith(prim, l, r, span)
            }
        }
    }

    /// A binary operation: folded when both sides are static, else traced.
    fn arith(&mut self, prim: Prim, l: Value, r: Value, span: Span) -> Result<Value> {
        if let (Value::Static(a), Value::Static(b)) = (&l, &r) {
            if let Some(v) = fold(prim.name, *a, *b) {
                return Ok(Value::Static(v));
            }
        }
        if let Some(v) = symbolic_arith(prim.name, &l, &r) {
            return Ok(Value::Symbolic(v));
        }
        let (x, y) = (self.atom(l, span)?, self.atom(r, span)?);
        Ok(Value::Traced(jnp::binary(&mut self.b, prim, x, y, span)?))
    }

    pub(crate) fn unary(&mut self, u: &syn::ExprUnary) -> Result<Value> {
        let v = self.expr(&u.expr)?;
        let span = u.span();
        match u.op {
            syn::UnOp::Neg(_) => match v {
                Value::Static(Scalar::Int(i)) => Ok(Value::Static(Scalar::Int(-i))),
                Value::Static(Scalar::Float(f)) => Ok(Value::Static(Scalar::Float(-f))),
                v => {
                    let x = self.atom(v, span)?;
                    Ok(Value::Traced(jnp::unary(
                        &mut self.b,
                        &prims::NEG,
                        x,
                        span,
                    )?))
                }
            },
            syn::UnOp::Not(_) => match v {
                Value::Static(Scalar::Bool(b)) => Ok(Value::Static(Scalar::Bool(!b))),
                v => {
                    let x = self.atom(v, span)?;
                    Ok(Value::Traced(jnp::unary(
                        &mut self.b,
                        &prims::NOT,
                        x,
                        span,
                    )?))
                }
            },
            syn::UnOp::Deref(_) => Ok(v),
            _ => err(span, "this operator is not supported in #[jax::jit]"),
        }
    }
}

/// Arithmetic of const generics (with each other or with static numbers)
/// in Rust's own types: `N * 2`, `(N as f32) / 2.0`. `None` when a side is
/// traced, or the two sides' Rust types differ (a traced value then mixes
/// them with JAX's promotion).
fn symbolic_arith(prim: &str, l: &Value, r: &Value) -> Option<Symbolic> {
    let op = match prim {
        "add" => "+",
        "sub" => "-",
        "mul" => "*",
        "div" => "/",
        "rem" => "%",
        _ => return None,
    };
    let (a, b, dtype) = match (l, r) {
        (Value::Symbolic(a), Value::Symbolic(b)) if a.dtype == b.dtype => {
            (a.expr.clone(), b.expr.clone(), a.dtype)
        }
        (Value::Symbolic(a), Value::Static(s)) => (a.expr.clone(), a.static_expr(*s)?, a.dtype),
        (Value::Static(s), Value::Symbolic(b)) => (b.static_expr(*s)?, b.expr.clone(), b.dtype),
        _ => return None,
    };
    Some(Symbolic {
        expr: format!("({a} {op} {b})"),
        dtype,
    })
}

/// Folds an operation on two static numbers, as Python computes on ints.
fn fold(op: &str, a: Scalar, b: Scalar) -> Option<Scalar> {
    use Scalar::*;
    Some(match (a, b) {
        (Int(x), Int(y)) => match op {
            "add" => Int(x.checked_add(y)?),
            "sub" => Int(x.checked_sub(y)?),
            "mul" => Int(x.checked_mul(y)?),
            "div" if y != 0 => Int(x / y),
            "rem" if y != 0 => Int(x % y),
            "lt" => Bool(x < y),
            "le" => Bool(x <= y),
            "gt" => Bool(x > y),
            "ge" => Bool(x >= y),
            "eq" => Bool(x == y),
            "ne" => Bool(x != y),
            _ => return None,
        },
        (Bool(x), Bool(y)) => match op {
            "and" => Bool(x & y),
            "or" => Bool(x | y),
            "xor" => Bool(x ^ y),
            "eq" => Bool(x == y),
            "ne" => Bool(x != y),
            _ => return None,
        },
        _ => return None,
    })
}
