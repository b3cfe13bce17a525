//! The expression walker: each Rust expression evaluated abstractly, as JAX
//! traces a Python function. Literals, names, paths and casts are handled
//! here; operators, calls, control flow, closures and indexing are handed to
//! the files that hold them, and the unsupported forms are reported with
//! what to write instead.

use syn::spanned::Spanned;

use crate::frontend::trace::tracer::{is_global_name, poisoned, Tracer};
use crate::frontend::trace::value::{Symbolic, Value};
use crate::ir::builder::{err, Result};
use crate::ir::Scalar;

/// Re-spans an error raised about a whole expression with only its first
/// token's span ([`crate::ir::builder::expression_error`]) over all of
/// `e`'s tokens.
fn over_expression(e: &syn::Expr, err: syn::Error) -> syn::Error {
    if crate::ir::builder::take_expression_mark() {
        syn::Error::new_spanned(e, err.to_string())
    } else {
        err
    }
}

impl Tracer {
    /// The arguments of a call, each traced, with its span.
    pub(crate) fn args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> Result<Vec<(Value, proc_macro2::Span)>> {
        args.iter().map(|a| Ok((self.expr(a)?, a.span()))).collect()
    }

    pub(crate) fn expr(&mut self, e: &syn::Expr) -> Result<Value> {
        use crate::limits;
        if self.nesting >= limits::MAX_EXPR_NESTING {
            return Err(limits::too_deep(e));
        }
        self.nesting += 1;
        let r = limits::deeper(|| self.expr_inner(e)).map_err(|err| over_expression(e, err));
        self.nesting -= 1;
        r
    }

    fn expr_inner(&mut self, e: &syn::Expr) -> Result<Value> {
        // Only the outermost call of an annotated expression sees its type.
        let hint = self.hint.take();
        match e {
            syn::Expr::Lit(l) => self.lit(&l.lit),
            // A `macro_rules!` fragment: its value and the type hint pass through.
            syn::Expr::Group(g) => {
                self.hint = hint;
                self.expr(&g.expr)
            }
            syn::Expr::Block(b) => self.block(&b.block),
            syn::Expr::Path(p) => self.path(p),
            syn::Expr::Tuple(t) => Ok(Value::Tuple(
                t.elems
                    .iter()
                    .map(|e| self.expr(e))
                    .collect::<Result<_>>()?,
            )),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Assign(a) => {
                let v = self.expr(&a.right)?;
                let syn::Expr::Path(p) = &*a.left else {
                    return Err(syn::Error::new_spanned(&a.left, "arrays are immutable: use `x.at(i).set(v)`, which returns the updated array"));
                };
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                self.assign(&name, v, a.span())?;
                Ok(Value::Unit)
            }
            syn::Expr::If(i) => self.if_(i),
            syn::Expr::Match(m) => self.match_(m),
            syn::Expr::Array(a) => Ok(Value::List(
                a.elems.iter().map(|e| self.expr(e)).collect::<Result<_>>()?,
            )),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::Closure(c) => Ok(Value::Closure(std::rc::Rc::new((c.clone(), self.scopes.clone())))),
            syn::Expr::Field(f) => self.field(f),
            // Arrays are immutable, so a shared reference is the value itself.
            syn::Expr::Reference(r) if r.mutability.is_none() => {
                self.hint = hint;
                self.expr(&r.expr)
            }
            syn::Expr::Reference(r) => Err(syn::Error::new_spanned(
                r,
                "arrays are immutable in #[jax::jit]: `&mut` borrows are not allowed; use `x.at(i).set(v)`, which returns the updated array",
            )),
            syn::Expr::Struct(st) => self.struct_literal(st),
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::MethodCall(m) => self.method(m, hint),
            syn::Expr::Call(c) => self.call(c, hint),
            syn::Expr::Paren(p) => {
                self.hint = hint;
                self.expr(&p.expr)
            }
            syn::Expr::Macro(m) => self.mac(&m.mac),
            syn::Expr::Return(r) => err(
                r.span(),
                "`return` is not supported in #[jax::jit]: end the body with the result",
            ),
            // A lone `;` is an empty statement.
            syn::Expr::Verbatim(t) if t.is_empty() => Ok(Value::Unit),
            syn::Expr::Index(ix) => self.index_expr(ix),
            syn::Expr::While(w) => {
                self.static_bool(&w.cond, "while")?;
                err(
                    w.while_token.span,
                    "`while` is not supported in #[jax::jit]: the trip count must be known when the function is compiled; use a static `for i in 0..N` or lax::while_loop",
                )
            }
            syn::Expr::Loop(l) => err(
                l.loop_token.span,
                "`loop` is not supported in #[jax::jit]: the trip count must be known when the function is compiled; use a static `for i in 0..N` or lax::while_loop",
            ),
            syn::Expr::Break(_) | syn::Expr::Continue(_) => err(
                e.span(),
                "`break` and `continue` are not supported in #[jax::jit]: loops run all their steps; mask the remaining steps with jnp::where_",
            ),
            syn::Expr::Try(t) => err(
                t.question_token.span,
                "`?` is not supported in #[jax::jit]: a jitted function cannot return early; array errors are compile errors, so no `Result` is needed",
            ),
            syn::Expr::Async(_) | syn::Expr::Await(_) => err(
                e.span(),
                "`async` and `.await` are not supported in #[jax::jit]: the body is a pure array function",
            ),
            syn::Expr::Unsafe(u) => err(
                u.unsafe_token.span,
                "`unsafe` blocks are not supported in #[jax::jit]: the compiler traces the body once and cannot see what unsafe code does; write array operations instead",
            ),
            syn::Expr::Let(l) => err(
                l.span(),
                "`if let` / `while let` are not supported in #[jax::jit]: use `match` on a static value, or lax::cond",
            ),
            other => err(
                other.span(),
                "this expression is not supported in #[jax::jit]: write array operations, `let`, blocks, closures, static `for`/`if`/`match`, and jnp::/lax:: calls",
            ),
        }
    }

    /// `x[i]`: Rust's `Index` returns a reference, so arrays are indexed with
    /// `x.at(i).get()`; a traced boolean mask would make the shape dynamic.
    fn index_expr(&mut self, ix: &syn::ExprIndex) -> Result<Value> {
        // A Rust array (`random::split`'s keys, a `[Layer; 3]` of pytrees,
        // also as a field: `p.layers[0]`) indexed by a static number.
        let list = match &*ix.expr {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|id| self.lookup(&id.to_string()))
                .cloned(),
            syn::Expr::Field(_) => self.expr(&ix.expr).ok(),
            _ => None,
        };
        if let Some(Value::List(items)) = list {
            return match self.expr(&ix.index)? {
                Value::Static(Scalar::Int(i)) if (0..items.len() as i128).contains(&i) => {
                    Ok(items[i as usize].clone())
                }
                _ => err(
                    ix.index.span(),
                    format!(
                        "index this Rust array of {} values with a number known when the function compiles, in 0..{}",
                        items.len(),
                        items.len()
                    ),
                ),
            };
        }
        if let Ok(Value::Traced(m)) = self.expr(&ix.index) {
            if self.b.aval(&m).dtype == jax_dtypes::DType::Bool {
                return Err(syn::Error::new_spanned(
                    &ix.index,
                    "NonConcreteBooleanIndexError: Array boolean indices must be concrete; the result's shape would depend on the mask's values. \
                     Keep the shape and mask the values instead: `jnp::where_(mask, x, 0.0)`",
                ));
            }
        }
        Err(syn::Error::new_spanned(
            ix,
            "index arrays with `x.at(i).get()` in #[jax::jit] (and `x.at(i).set(v)` to update): `x[i]` would borrow from the array",
        ))
    }

    /// `expr as T` on a static number (a loop index, a const) gives a static
    /// number; on a traced value it is JAX's ConcretizationTypeError.
    fn cast(&mut self, c: &syn::ExprCast) -> Result<Value> {
        let v = self.expr(&c.expr)?;
        let Some(d) = crate::frontend::trace::types::element_dtype(&c.ty) else {
            return err(c.ty.span(), "cast to a number type: f32, i32, ...");
        };
        match v {
            Value::Static(s) => Ok(Value::Static(crate::ir::cast_scalar(s, d))),
            Value::Symbolic(sym) if d.is_float() || d.is_integer() => {
                Ok(Value::Symbolic(Symbolic {
                    expr: format!("({} as {})", sym.expr, crate::ir::rust_type(d)),
                    dtype: Some(d),
                }))
            }
            Value::Traced(a) => {
                let aval = self.b.aval(&a);
                Err(syn::Error::new_spanned(
                    c,
                    crate::ir::builder::concretization_error(
                        &aval,
                        &format!(
                            "`as` needs a value known at compile time. To convert an array's dtype, use `.astype::<{}>()`",
                            crate::ir::rust_type(d)
                        ),
                    ),
                ))
            }
            _ => err(c.span(), "only numbers can be cast"),
        }
    }

    fn lit(&mut self, l: &syn::Lit) -> Result<Value> {
        match l {
            syn::Lit::Int(i) => Ok(Value::Static(Scalar::Int(i.base10_parse()?))),
            syn::Lit::Float(f) => Ok(Value::Static(Scalar::Float(f.base10_parse()?))),
            syn::Lit::Bool(b) => Ok(Value::Static(Scalar::Bool(b.value))),
            syn::Lit::Str(s) => Ok(Value::Str(s.value())),
            other => err(other.span(), "only number and bool literals are arrays"),
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> Result<Value> {
        if let Some(id) = p.path.get_ident() {
            // An absent optional argument (`repeat(x, 2, None)`).
            if id == "None" && self.lookup("None").is_none() {
                return Ok(Value::Unit);
            }
            if let Some(v) = self.lookup(&id.to_string()) {
                if matches!(v, Value::Poison) {
                    return Err(poisoned());
                }
                return Ok(v.clone());
            }
            if let Some(v) = self.const_item(&id.to_string())? {
                return Ok(v);
            }
            // A layer of `stax` imported by name (`Relu`), the import
            // checked to be stax's.
            if let Some(s) = crate::frontend::trace::optim::stax_constant(&id.to_string()) {
                self.library_uses
                    .push((id.clone(), "jax::example_libraries::stax"));
                return Ok(Value::Optim(std::rc::Rc::new(s)));
            }
            let global = is_global_name(&id.to_string());
            return err(
                id.span(),
                if global {
                    format!("cannot read `{id}` in #[jax::jit]: a `static` (or a const outside the jit mod) is global state the compiler cannot see, and its value would be baked in when the function is compiled; pass it as an argument, or declare `const {id}` inside the #[jax::jit] mod")
                } else {
                    format!("cannot find `{id}` in this scope")
                },
            );
        }
        let names: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let last = names.last().unwrap().as_str();
        if names.len() >= 2 && names[names.len() - 2] == "stax" {
            if let Some(s) = crate::frontend::trace::optim::stax_constant(last) {
                if names.len() == 2 {
                    let id = p.path.segments[0].ident.clone();
                    self.library_uses.push((id, "jax::example_libraries"));
                }
                return Ok(Value::Optim(std::rc::Rc::new(s)));
            }
        }
        // `jnp::linalg::QrMode`'s variants: JAX's mode strings.
        if names.len() >= 2 && names[names.len() - 2] == "QrMode" {
            match last {
                "Reduced" => return Ok(Value::Str("reduced".into())),
                "Complete" => return Ok(Value::Str("complete".into())),
                "R" => return Ok(Value::Str("r".into())),
                _ => {}
            }
        }
        // `lax::Padding`'s variants: JAX's padding strings.
        if names.len() >= 2 && names[names.len() - 2] == "Padding" {
            match last {
                "Valid" => return Ok(Value::Str("VALID".into())),
                "Same" => return Ok(Value::Str("SAME".into())),
                "SameLower" => return Ok(Value::Str("SAME_LOWER".into())),
                _ => {}
            }
        }
        // `lax::RoundingMethod`'s variants, as JAX numbers them.
        if names.len() >= 2 && names[names.len() - 2] == "RoundingMethod" {
            match last {
                "AwayFromZero" => return Ok(Value::Static(Scalar::Int(0))),
                "ToNearestEven" => return Ok(Value::Static(Scalar::Int(1))),
                _ => {}
            }
        }
        let f = match last {
            "PI" => std::f64::consts::PI,
            "E" => std::f64::consts::E,
            "INFINITY" | "inf" => f64::INFINITY,
            "NEG_INFINITY" => f64::NEG_INFINITY,
            "NAN" | "nan" => f64::NAN,
            _ => {
                return err(
                    p.span(),
                    format!("cannot find `{}` in #[jax::jit]", names.join("::")),
                )
            }
        };
        Ok(Value::Static(Scalar::Float(f)))
    }
}
