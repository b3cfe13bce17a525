//! The operations the compiler knows, by name: `jnp::NAME(..)`,
//! `lax::NAME(..)` and methods `x.NAME(..)`, lowered to primitives through
//! the NumPy layer in [`crate::frontend::jnp`].

use proc_macro2::Span;

use crate::frontend::jnp::{self, Reduction};
use crate::frontend::parse::{Tracer, Value};
use crate::frontend::types::TypeSpec;
use crate::ir::builder::Result;
use crate::ir::{Atom, Dim, Scalar};
use crate::prims::{self, Params, Prim};

fn err<T>(span: Span, msg: impl std::fmt::Display) -> Result<T> {
    Err(crate::ir::builder::expression_error(span, msg))
}

/// Where an operation was written: `jnp::`, `lax::` or as a method.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Module {
    Jnp,
    Lax,
    Method,
    /// `jax::random`'s samplers.
    Random,
}

/// Float functions: integer and bool operands convert to the default float first.
fn unary_inexact(name: &str) -> Option<Prim> {
    Some(match name {
        "exp" => &prims::EXP,
        "exp2" => &prims::EXP2,
        "log" => &prims::LOG,
        "log1p" => &prims::LOG1P,
        "expm1" => &prims::EXPM1,
        "sin" => &prims::SIN,
        "cos" => &prims::COS,
        "tan" => &prims::TAN,
        "tanh" => &prims::TANH,
        "sinh" => &prims::SINH,
        "cosh" => &prims::COSH,
        "arcsin" | "asin" => &prims::ASIN,
        "arccos" | "acos" => &prims::ACOS,
        "arctan" | "atan" => &prims::ATAN,
        "arcsinh" | "asinh" => &prims::ASINH,
        "arccosh" | "acosh" => &prims::ACOSH,
        "arctanh" | "atanh" => &prims::ATANH,
        "sqrt" => &prims::SQRT,
        "rsqrt" => &prims::RSQRT,
        "cbrt" => &prims::CBRT,
        "logistic" | "sigmoid" => &prims::LOGISTIC,
        "erf" => &prims::ERF,
        "erfc" => &prims::ERFC,
        "erf_inv" => &prims::ERF_INV,
        "floor" => &prims::FLOOR,
        "ceil" => &prims::CEIL,
        _ => return None,
    })
}

/// Functions of one operand that keep its type.
fn unary_same(name: &str) -> Option<Prim> {
    Some(match name {
        "abs" => &prims::ABS,
        "sign" => &prims::SIGN,
        "negative" | "neg" => &prims::NEG,
        "square" => &prims::SQUARE,
        "logical_not" | "bitwise_not" => &prims::NOT,
        "stop_gradient" => &prims::STOP_GRADIENT,
        _ => return None,
    })
}

/// Binary functions with implicit promotion and broadcasting.
fn binary(module: Module, name: &str) -> Option<Prim> {
    Some(match name {
        "add" => &prims::ADD,
        "subtract" | "sub" => &prims::SUB,
        "multiply" | "mul" => &prims::MUL,
        "maximum" => &prims::MAX,
        "minimum" => &prims::MIN,
        "max" if module == Module::Lax => &prims::MAX,
        "min" if module == Module::Lax => &prims::MIN,
        "rem" if module == Module::Lax => &prims::REM,
        "arctan2" | "atan2" => &prims::ATAN2,
        "logical_and" | "bitwise_and" => &prims::AND,
        "logical_or" | "bitwise_or" => &prims::OR,
        "logical_xor" | "bitwise_xor" => &prims::XOR,
        "less" | "lt" => &prims::LT,
        "less_equal" | "le" => &prims::LE,
        "greater" | "gt" => &prims::GT,
        "greater_equal" | "ge" => &prims::GE,
        "equal" | "eq" | "eq_" => &prims::EQ,
        "not_equal" | "ne" | "ne_" => &prims::NE,
        _ => return None,
    })
}

fn reduction(name: &str) -> Option<Reduction> {
    Some(match name {
        "sum" => Reduction::Sum,
        "prod" => Reduction::Prod,
        "max" => Reduction::Max,
        "min" => Reduction::Min,
        "any" => Reduction::Any,
        "all" => Reduction::All,
        _ => return None,
    })
}

/// The shape a context-typed result (`let y: Array<f32, 3, 2> = x.reshape();`) must have.
fn hinted_shape(hint: &Option<TypeSpec>, span: Span, what: &str) -> Result<Vec<Dim>> {
    match hint.as_ref().and_then(TypeSpec::aval) {
        Some(a) => Ok(a.shape),
        None => err(
            span,
            format!("`{what}` takes its result shape from the context: annotate it (`let y: Array<f32, 3, 2> = x.{what}();`)"),
        ),
    }
}

impl Tracer {
    /// `random::NAME(key, bounds..)`: a sample of the annotated type, from a
    /// key parameter.
    fn random(
        &mut self,
        name: &str,
        args: Vec<(Value, Span)>,
        hint: Option<TypeSpec>,
        span: Span,
    ) -> Result<Value> {
        let (prim, nbounds): (Prim, usize) = match name {
            "bits" => (&prims::RANDOM_BITS, 0),
            "uniform" => (&prims::RANDOM_UNIFORM, 0),
            "uniform_range" => (&prims::RANDOM_UNIFORM, 2),
            "normal" => (&prims::RANDOM_NORMAL, 0),
            "exponential" => (&prims::RANDOM_EXPONENTIAL, 0),
            "gumbel" => (&prims::RANDOM_GUMBEL, 0),
            "truncated_normal" => (&prims::RANDOM_TRUNCATED_NORMAL, 2),
            "key" | "PRNGKey" | "split" | "fold_in" | "key_data" | "wrap_key_data" => {
                return err(
                    span,
                    format!("`random::{name}` is not supported inside #[jax::jit]: make keys outside the function (`random::split`, `random::fold_in`) and pass them in as `jax::random::Key` parameters"),
                )
            }
            _ => {
                return err(
                    span,
                    format!("`random::{name}` is not supported inside #[jax::jit]; the samplers that are: bits, uniform, uniform_range, normal, exponential, gumbel, truncated_normal (draw others outside and pass the array in)"),
                )
            }
        };
        if args.len() != 1 + nbounds {
            return err(
                span,
                format!(
                    "`random::{name}` takes {} argument(s), got {}",
                    1 + nbounds,
                    args.len()
                ),
            );
        }
        let (key, key_span) = args[0].clone();
        let key = self.atom(key, key_span)?;
        let is_input = matches!(&key, Atom::Var(v) if self.b.jaxpr.invars.contains(v));
        if !is_input || self.b.aval(&key) != crate::frontend::types::key_aval() {
            return err(
                key_span,
                "the key must be a parameter of type `jax::random::Key` (keys cannot be computed inside #[jax::jit]; split them outside)",
            );
        }
        let mut bounds = Vec::new();
        for (v, s) in &args[1..] {
            match v {
                Value::Static(Scalar::Float(f)) => bounds.push(*f),
                Value::Static(Scalar::Int(i)) => bounds.push(*i as f64),
                _ => {
                    return err(
                        *s,
                        format!("the bounds of `random::{name}` must be numbers known when the function compiles (literals or consts)"),
                    )
                }
            }
        }
        let Some(aval) = hint.as_ref().and_then(TypeSpec::aval) else {
            return err(
                span,
                format!("`random::{name}` takes its shape and dtype from the result type: annotate it (`let z: Array<f32, 3> = random::{name}(k);` or `random::{name}::<Array<f32, 3>>(k)`)"),
            );
        };
        let params = Params::Random {
            shape: aval.shape,
            dtype: aval.dtype,
            bounds: (nbounds == 2).then(|| (bounds[0], bounds[1])),
        };
        Ok(Value::Traced(self.b.bind1(
            prim,
            params,
            vec![key],
            span,
        )?))
    }

    /// Lowers `module::name(args)` (or `args[0].name(args[1..])`). `hint`
    /// is the written type of the result, when the call is the whole value of
    /// an annotated `let` or of the function body.
    pub fn op(
        &mut self,
        module: Module,
        name: &str,
        args: Vec<(Value, Span)>,
        hint: Option<TypeSpec>,
        span: Span,
    ) -> Result<Value> {
        if module == Module::Random {
            return self.random(name, args, hint, span);
        }
        let n = args.len();
        let want = |k: usize| -> Result<()> {
            if n == k {
                Ok(())
            } else {
                err(span, format!("`{name}` takes {k} argument(s), got {n}"))
            }
        };
        if n == 0 {
            if matches!(name, "zeros" | "ones" | "full" | "empty") {
                return err(
                    span,
                    format!("an array's shape and dtype are its type here: write `Array::<f32, 3, 4>::{name}()`, or `jnp::{name}_like(x)` for the shape and dtype of `x`"),
                );
            }
            return err(span, format!("`{name}` takes an array argument"));
        }
        let atom = |t: &mut Tracer, i: usize| -> Result<Atom> {
            match args.get(i) {
                Some((v, s)) => t.atom(v.clone(), *s),
                None => err(span, format!("`{name}` is missing argument {}", i + 1)),
            }
        };
        let traced = |a: Atom| Ok(Value::Traced(a));

        if let Some(prim) = unary_inexact(name) {
            want(1)?;
            let x = atom(self, 0)?;
            return traced(jnp::unary_inexact(&mut self.b, prim, x, span)?);
        }
        if name == "round" {
            // lax.round: half away from zero unless a `lax::RoundingMethod`
            // says otherwise; jnp.round: half to even, integers unchanged.
            let method = match (module, args.get(1)) {
                (Module::Lax, None) => 0,
                (Module::Lax, Some((Value::Static(Scalar::Int(m @ (0 | 1))), _))) => *m as u8,
                (Module::Lax, Some((_, s))) => {
                    return err(*s, "the rounding method is `lax::RoundingMethod::AwayFromZero` or `lax::RoundingMethod::ToNearestEven`")
                }
                _ => {
                    want(1)?;
                    1
                }
            };
            let x = atom(self, 0)?;
            let a = self.b.aval(&x);
            if module != Module::Lax && a.dtype.is_integer() {
                return traced(x);
            }
            return traced(
                self.b
                    .bind1(&prims::ROUND, Params::Rounding(method), vec![x], span)?,
            );
        }
        if let Some(prim) = unary_same(name) {
            want(1)?;
            let x = atom(self, 0)?;
            return traced(jnp::unary(&mut self.b, prim, x, span)?);
        }
        if let Some(prim) = binary(module, name) {
            want(2)?;
            let (x, y) = (atom(self, 0)?, atom(self, 1)?);
            let (ax, ay) = (self.b.aval(&x), self.b.aval(&y));
            // lax does not promote: two typed operands must agree, as in JAX.
            if module == Module::Lax && !ax.weak && !ay.weak && ax.dtype != ay.dtype {
                return traced(self.b.bind1(prim, Params::None, vec![x, y], span)?);
            }
            // lax does not broadcast arrays against each other, only scalars.
            if module == Module::Lax && ax.rank() > 0 && ay.rank() > 0 && ax.shape != ay.shape {
                let tuple = |a: &crate::ir::Aval| match a.shape.as_slice() {
                    [d] => format!("({d},)"),
                    dims => format!(
                        "({})",
                        dims.iter()
                            .map(|d| d.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                return Err(syn::Error::new(
                    span,
                    format!(
                        "{} got incompatible shapes for broadcasting: {}, {}; lax needs equal shapes: use jnp::{name}, which broadcasts, or broadcast one operand first with jnp::broadcast_to",
                        prim.name,
                        tuple(&ax),
                        tuple(&ay)
                    ),
                ));
            }
            return traced(jnp::binary(&mut self.b, prim, x, y, span)?);
        }
        if let Some(kind) = reduction(name) {
            let x = atom(self, 0)?;
            let (axes, keepdims) = self.axis_args(&x, &args[1..], name, span)?;
            return traced(jnp::reduce(&mut self.b, kind, x, axes, keepdims, span)?);
        }
        match name {
            "mean" => {
                let x = atom(self, 0)?;
                let (axes, keepdims) = self.axis_args(&x, &args[1..], name, span)?;
                traced(jnp::mean(&mut self.b, x, axes, keepdims, span)?)
            }
            "sum_axis" | "prod_axis" | "max_axis" | "min_axis" | "mean_axis" | "any_axis"
            | "all_axis" => {
                want(3)?;
                self.op(module, name.trim_end_matches("_axis"), args, hint, span)
            }
            "divide" | "true_divide" | "div" => {
                want(2)?;
                let (x, y) = (atom(self, 0)?, atom(self, 1)?);
                let (x, y) = if module == Module::Lax {
                    (x, y)
                } else {
                    (
                        jnp::to_float(&mut self.b, x, span)?,
                        jnp::to_float(&mut self.b, y, span)?,
                    )
                };
                traced(jnp::binary(&mut self.b, &prims::DIV, x, y, span)?)
            }
            // An array of `x`'s shape and dtype, filled.
            "zeros_like" | "ones_like" | "full_like" => {
                want(if name == "full_like" { 2 } else { 1 })?;
                let x = atom(self, 0)?;
                let a = self.b.aval(&x);
                let fill = match (name, args.get(1)) {
                    ("zeros_like", _) => Value::Static(Scalar::Int(0)),
                    ("ones_like", _) => Value::Static(Scalar::Int(1)),
                    (_, Some((v, _))) => v.clone(),
                    _ => unreachable!("checked by want"),
                };
                let v = match fill {
                    Value::Static(v) => crate::ir::builder::literal(
                        jnp::cast_scalar(v, a.dtype),
                        crate::ir::Aval::scalar(a.dtype, false),
                    ),
                    other => {
                        let v = self.atom(other, args[1].1)?;
                        jnp::convert(&mut self.b, v, a.dtype, false, span)?
                    }
                };
                traced(jnp::broadcast_to(&mut self.b, v, a.shape, span)?)
            }
            // JAX's `isnan` is `x != x`, which is false for every integer.
            "isnan" => {
                want(1)?;
                let x = atom(self, 0)?;
                traced(jnp::binary(&mut self.b, &prims::NE, x.clone(), x, span)?)
            }
            "arange" | "linspace" | "zeros" | "ones" | "full" | "empty" | "eye"
                if args.iter().any(|(v, _)| matches!(v, Value::Traced(_))) =>
            {
                let (aval, at) = args
                    .iter()
                    .find_map(|(v, at)| match v {
                        Value::Traced(a) => Some((self.b.aval(a), *at)),
                        _ => None,
                    })
                    .expect("the guard found a traced argument");
                err(
                    at,
                    crate::ir::builder::concretization_error(
                        &aval,
                        &format!(
                            "`{name}` would make an array whose shape depends on a run-time value, but shapes are static (they are part of `Array<T, ...>`). \
                             Make the size a const or const generic `N`, which the function is compiled for"
                        ),
                    ),
                )
            }
            "array" | "asarray" => {
                want(1)?;
                let (v, s) = args[0].clone();
                if let Value::Traced(x) = v {
                    // One traced value: `jnp.asarray` is the value itself,
                    // `jnp.array` a `copy` of it (weak type kept), as in JAX.
                    if name == "asarray" {
                        return traced(x);
                    }
                    return traced(self.b.bind1(&prims::COPY, Params::None, vec![x], s)?);
                }
                traced(self.array(v, s)?)
            }
            "reciprocal" => {
                want(1)?;
                let x = atom(self, 0)?;
                let x = jnp::to_float(&mut self.b, x, span)?;
                traced(
                    self.b
                        .bind1(&prims::INTEGER_POW, Params::IntegerPow(-1), vec![x], span)?,
                )
            }
            "power" | "pow" | "powf" | "powi" => {
                want(2)?;
                let (x, y) = (atom(self, 0)?, atom(self, 1)?);
                traced(jnp::power(&mut self.b, x, y, span)?)
            }
            "integer_pow" => {
                want(2)?;
                let x = atom(self, 0)?;
                let y = self.static_int(&args[1].0, args[1].1, "the exponent")?;
                traced(self.b.bind1(
                    &prims::INTEGER_POW,
                    Params::IntegerPow(y as i64),
                    vec![x],
                    span,
                )?)
            }
            "where_" | "select" => {
                want(3)?;
                let (c, x, y) = (atom(self, 0)?, atom(self, 1)?, atom(self, 2)?);
                traced(jnp::where_(&mut self.b, c, x, y, span)?)
            }
            "clip" => {
                want(3)?;
                let (x, lo, hi) = (atom(self, 0)?, atom(self, 1)?, atom(self, 2)?);
                traced(jnp::clip(&mut self.b, x, lo, hi, span)?)
            }
            "relu" => {
                want(1)?;
                let x = atom(self, 0)?;
                let zero = jnp::weak_literal(&self.b, Scalar::Float(0.0));
                traced(jnp::binary(&mut self.b, &prims::MAX, x, zero, span)?)
            }
            "matmul" | "dot" => {
                want(2)?;
                let (x, y) = (atom(self, 0)?, atom(self, 1)?);
                traced(jnp::matmul(&mut self.b, x, y, span)?)
            }
            "t" => {
                want(1)?;
                let x = atom(self, 0)?;
                let rank = self.b.aval(&x).rank();
                traced(jnp::transpose(
                    &mut self.b,
                    x,
                    (0..rank).rev().collect(),
                    span,
                )?)
            }
            "transpose" => {
                let x = atom(self, 0)?;
                let rank = self.b.aval(&x).rank();
                let perm = match n {
                    1 => (0..rank).rev().collect(),
                    2 => self
                        .static_ints(&args[1].0, args[1].1, "the permutation")?
                        .into_iter()
                        .map(|a| jnp::axis(&self.b, &x, a, args[1].1))
                        .collect::<Result<_>>()?,
                    _ => {
                        return err(
                            span,
                            "`transpose` takes the array and optionally a permutation",
                        )
                    }
                };
                traced(jnp::transpose(&mut self.b, x, perm, span)?)
            }
            "reshape" => {
                let x = atom(self, 0)?;
                let shape = match n {
                    1 => hinted_shape(&hint, span, "reshape")?,
                    2 => self
                        .static_ints(&args[1].0, args[1].1, "the new shape")?
                        .into_iter()
                        .map(|d| Dim::Lit(d as usize))
                        .collect(),
                    _ => {
                        return err(
                            span,
                            "`reshape` takes the array and optionally the new shape",
                        )
                    }
                };
                traced(jnp::reshape(&mut self.b, x, shape, span)?)
            }
            "ravel" | "flatten" => {
                want(1)?;
                let x = atom(self, 0)?;
                let a = self.b.aval(&x);
                let size = crate::ir::shapes::size_parts(&a.shape);
                let dim = if size.1.is_empty() {
                    Dim::Lit(size.0)
                } else {
                    return err(span, "ravel of an array with symbolic dimensions is not supported; use reshape with an annotated type");
                };
                traced(jnp::reshape(&mut self.b, x, vec![dim], span)?)
            }
            "broadcast_to" => {
                want(1)?;
                let x = atom(self, 0)?;
                let shape = hinted_shape(&hint, span, "broadcast_to")?;
                traced(jnp::broadcast_to(&mut self.b, x, shape, span)?)
            }
            "expand_dims" => {
                want(2)?;
                let x = atom(self, 0)?;
                let ax = self.static_int(&args[1].0, args[1].1, "the axis")?;
                traced(jnp::expand_dims(&mut self.b, x, ax, args[1].1)?)
            }
            "squeeze" => {
                let x = atom(self, 0)?;
                let a = self.b.aval(&x);
                let dims: Vec<usize> = match n {
                    1 => (0..a.rank())
                        .filter(|&k| a.shape[k] == Dim::Lit(1))
                        .collect(),
                    2 => vec![jnp::axis(
                        &self.b,
                        &x,
                        self.static_int(&args[1].0, args[1].1, "the axis")?,
                        args[1].1,
                    )?],
                    _ => return err(span, "`squeeze` takes the array and optionally an axis"),
                };
                traced(
                    self.b
                        .bind1(&prims::SQUEEZE, Params::Squeeze { dims }, vec![x], span)?,
                )
            }
            "softmax" | "log_softmax" => {
                let x = atom(self, 0)?;
                let axis = match n {
                    1 => -1,
                    2 => self.static_int(&args[1].0, args[1].1, "the axis")?,
                    _ => {
                        return err(
                            span,
                            format!("`{name}` takes the array and optionally an axis"),
                        )
                    }
                };
                let axis = jnp::axis(&self.b, &x, axis, span)?;
                traced(jnp::softmax(
                    &mut self.b,
                    x,
                    axis,
                    name == "log_softmax",
                    span,
                )?)
            }
            "logsumexp" => {
                let x = atom(self, 0)?;
                let (axes, keepdims) = self.axis_args(&x, &args[1..], name, span)?;
                traced(jnp::logsumexp(&mut self.b, x, axes, keepdims, span)?)
            }
            "argmax" | "argmin" => {
                let x = atom(self, 0)?;
                let rank = self.b.aval(&x).rank();
                let x = if n == 1 && rank > 1 {
                    let size = crate::ir::shapes::size_parts(&self.b.aval(&x).shape);
                    if !size.1.is_empty() {
                        return err(span, format!("{name} over all axes of an array with symbolic dimensions is not supported; give an axis"));
                    }
                    jnp::reshape(&mut self.b, x, vec![Dim::Lit(size.0)], span)?
                } else {
                    x
                };
                let axis = match n {
                    1 => 0,
                    2 => jnp::axis(
                        &self.b,
                        &x,
                        self.static_int(&args[1].0, args[1].1, "the axis")?,
                        args[1].1,
                    )?,
                    _ => {
                        return err(
                            span,
                            format!("`{name}` takes the array and optionally an axis"),
                        )
                    }
                };
                if self.b.aval(&x).shape.get(axis) == Some(&Dim::Lit(0)) {
                    // JAX's ValueError: the shape is static, so it is found now.
                    return err(span, format!("attempt to get {name} of an empty sequence"));
                }
                let prim: Prim = if name == "argmax" {
                    &prims::ARGMAX
                } else {
                    &prims::ARGMIN
                };
                let index_dtype = jax_dtypes::default_dtype(jax_dtypes::Kind::Int, self.b.x64);
                traced(self.b.bind1(
                    prim,
                    Params::ArgReduce { axis, index_dtype },
                    vec![x],
                    span,
                )?)
            }
            "concatenate" | "stack" => {
                let parts = match args.first().map(|a| &a.0) {
                    Some(Value::Tuple(items)) => items.clone(),
                    _ => {
                        return err(
                            span,
                            format!(
                                "`{name}` takes a tuple of arrays: `jnp::{name}((a, b), axis)`"
                            ),
                        )
                    }
                };
                let axis = match n {
                    1 => 0,
                    2 => self.static_int(&args[1].0, args[1].1, "the axis")?,
                    _ => {
                        return err(
                            span,
                            format!("`{name}` takes a tuple of arrays and an axis"),
                        )
                    }
                };
                let atoms = parts
                    .into_iter()
                    .map(|v| self.atom(v, args[0].1))
                    .collect::<Result<Vec<_>>>()?;
                traced(jnp::concatenate(
                    &mut self.b,
                    atoms,
                    axis,
                    name == "stack",
                    span,
                )?)
            }
            _ => err(
                span,
                format!(
                    "`{}{name}` is not supported in #[jax::jit] yet",
                    match module {
                        Module::Method => ".",
                        Module::Jnp => "jnp::",
                        Module::Lax => "lax::",
                        Module::Random => "random::",
                    }
                ),
            ),
        }
    }

    /// `jnp::array([..])`: a constant array when every element is known now
    /// (JAX's closed-over constants), else JAX's convert, broadcast and
    /// concatenate of the elements (one dimension).
    fn array(&mut self, v: Value, span: Span) -> Result<Atom> {
        fn leaves(
            v: &Value,
            depth: usize,
            shape: &mut Vec<usize>,
            out: &mut Vec<Value>,
            span: Span,
        ) -> Result<()> {
            match v {
                Value::List(items) => {
                    if shape.len() == depth {
                        shape.push(items.len());
                    } else if shape.get(depth) != Some(&items.len()) {
                        return err(span, "jnp::array needs a rectangular nesting of lists");
                    }
                    items
                        .iter()
                        .try_for_each(|i| leaves(i, depth + 1, shape, out, span))
                }
                other => {
                    if shape.len() != depth {
                        return err(span, "jnp::array needs a rectangular nesting of lists");
                    }
                    out.push(other.clone());
                    Ok(())
                }
            }
        }
        let mut shape = Vec::new();
        let mut items = Vec::new();
        leaves(&v, 0, &mut shape, &mut items, span)?;
        let operands: Vec<Atom> = items
            .iter()
            .map(|i| self.atom(i.clone(), span))
            .collect::<Result<_>>()?;
        let kinds: Vec<(jax_dtypes::DType, bool)> = operands
            .iter()
            .map(|a| {
                let av = self.b.aval(a);
                (av.dtype, av.weak)
            })
            .collect();
        let (dtype, _) = jax_dtypes::result_type(&kinds, self.b.x64);
        let dims: Vec<Dim> = shape.iter().map(|&n| Dim::Lit(n)).collect();
        if operands.iter().all(|a| matches!(a, Atom::Lit(_))) {
            let values = operands
                .iter()
                .map(|a| match a {
                    Atom::Lit(l) => jnp::cast_scalar(l.value, dtype),
                    Atom::Var(_) => unreachable!(),
                })
                .collect();
            let aval = crate::ir::Aval {
                dtype,
                shape: dims,
                weak: false,
            };
            return Ok(self.b.constant(aval, values));
        }
        if shape.len() != 1 {
            return err(
                span,
                "jnp::array of traced values takes a flat list in #[jax::jit] for now",
            );
        }
        let parts = operands
            .into_iter()
            .map(|a| {
                let a = self.b.bind1(
                    &prims::CONVERT_ELEMENT_TYPE,
                    Params::Convert {
                        new_dtype: dtype,
                        weak: false,
                    },
                    vec![a],
                    span,
                )?;
                self.b.bind1(
                    &prims::BROADCAST_IN_DIM,
                    Params::BroadcastInDim {
                        shape: vec![Dim::Lit(1)],
                        dims: vec![],
                    },
                    vec![a],
                    span,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        self.b.bind1(
            &prims::CONCATENATE,
            Params::Concatenate { dim: 0 },
            parts,
            span,
        )
    }

    /// `(axes, keepdims)` from optional `axis, keepdims` arguments.
    fn axis_args(
        &self,
        x: &Atom,
        rest: &[(Value, Span)],
        name: &str,
        span: Span,
    ) -> Result<(Option<Vec<usize>>, bool)> {
        match rest {
            [] => Ok((None, false)),
            [(axis, s1), (keep, s2)] => {
                let ax = self.static_int(axis, *s1, "the axis")?;
                let ax = jnp::axis(&self.b, x, ax, *s1)?;
                Ok((Some(vec![ax]), self.static_bool_arg(keep, *s2, "keepdims")?))
            }
            _ => err(
                span,
                format!("`{name}` takes the array, or the array, an axis and keepdims"),
            ),
        }
    }

    pub(crate) fn static_int(&self, v: &Value, span: Span, what: &str) -> Result<i128> {
        match v {
            Value::Static(Scalar::Int(i)) => Ok(*i),
            _ => err(
                span,
                format!("{what} must be a static integer (a literal or const)"),
            ),
        }
    }

    fn static_ints(&self, v: &Value, span: Span, what: &str) -> Result<Vec<i128>> {
        match v {
            Value::Tuple(items) => items
                .iter()
                .map(|i| self.static_int(i, span, what))
                .collect(),
            v => Ok(vec![self.static_int(v, span, what)?]),
        }
    }

    fn static_bool_arg(&self, v: &Value, span: Span, what: &str) -> Result<bool> {
        match v {
            Value::Static(Scalar::Bool(b)) => Ok(*b),
            _ => err(span, format!("{what} must be `true` or `false`")),
        }
    }
}
