//! Calls and method calls: the callee named by a path or a method is found
//! (a transformation, a closure or pullback in scope, a function of the mod,
//! an `Array::<..>::zeros()` constructor, else an operation of `jnp::`,
//! `lax::`, `random::` or a method, lowered by the table in `lib/lower.rs`);
//! method calls of iterators, mutation and conversion to Rust data are
//! reported first.

use syn::spanned::Spanned;

use crate::frontend::trace::layers::Module;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::{type_spec_in, TypeSpec};
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::Scalar;
use jax_core::lax::Lax;

impl Tracer {
    /// Calls of `jnp::*`, `lax::*`: the path's last two segments name the function.
    pub(crate) fn call_expr(&mut self, c: &syn::ExprCall, hint: Option<TypeSpec>) -> Result<Value> {
        if let Some(v) = self.call_transformation(c)? {
            return Ok(v);
        }
        if let Some(v) = crate::frontend::lib::tree::call_tree(self, c)? {
            return Ok(v);
        }
        if let Some(v) = self.call_lax_control(c)? {
            return Ok(v);
        }
        // Its computation is a function, read before it is evaluated.
        if let Some(v) = crate::frontend::lib::lax::window::call(self, c)? {
            return Ok(v);
        }
        // Its options are a struct literal, read before it is evaluated.
        if crate::frontend::bodies::callables::is_path(&c.func, "linalg", "solve_triangular_with") {
            return crate::frontend::lib::linalg::cholesky::solve_triangular_with(self, c);
        }
        if let Some(v) = crate::frontend::lib::linalg::more::call_with_options(self, c)? {
            return Ok(v);
        }
        let syn::Expr::Path(p) = &*c.func else {
            return err(
                c.func.span(),
                "only functions of jnp:: and lax:: can be called in #[jax::jit]",
            );
        };
        // An optional argument (`repeat(x, 2, Some(0))`): the value itself.
        if p.path.is_ident("Some") && c.args.len() == 1 {
            return self.expr(&c.args[0]);
        }
        // `lax::Padding::Explicit(pairs)`: the pairs themselves.
        let mut segments = p.path.segments.iter().rev();
        if let (Some(last), Some(ty)) = (segments.next(), segments.next()) {
            if ty.ident == "Padding" && last.ident == "Explicit" && c.args.len() == 1 {
                // Its eager form takes a `Vec`: `vec![..]` here lists the pairs.
                if let syn::Expr::Macro(m) = &c.args[0] {
                    if m.mac.path.is_ident("vec") {
                        let tokens = &m.mac.tokens;
                        let list: syn::Expr = syn::parse2(quote::quote!([#tokens]))?;
                        return self.expr(&list);
                    }
                }
                return self.expr(&c.args[0]);
            }
        }
        if let Some(v) = crate::frontend::lib::jnp::complex::complex_literal(self, p, c)? {
            return Ok(v);
        }
        if let Some(id) = p.path.get_ident() {
            if let Some(Value::Pullback(pb)) = self.lookup(&id.to_string()).cloned() {
                let args = self.args(&c.args)?;
                return self.call_pullback(&pb, args, c.span());
            }
            if let Some(Value::Closure(cl)) = self.lookup(&id.to_string()).cloned() {
                let args = self.args(&c.args)?;
                return self.call_closure_by_name(&id.to_string(), &cl, args, c.span());
            }
        }
        if let Some(v) = self.call_item(p, c)? {
            return Ok(v);
        }
        if let Some(v) = crate::frontend::lib::optim::call(self, p, c)? {
            return Ok(v);
        }
        if let Some(v) = self.array_constructor(p, c)? {
            return Ok(v);
        }
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let span = c.span();
        // `logsumexp(x)` after `use jax::scipy::special::logsumexp;`.
        let bare = match (segs.as_slice(), p.path.get_ident()) {
            ([name], Some(id)) => self.bare_library_function(name, id)?,
            _ => None,
        };
        let known = match (bare, segs.as_slice()) {
            (Some(m), [n]) => Some((m, n.as_str())),
            _ => crate::frontend::trace::layers::library_module(&segs),
        };
        let (module, name) = match known {
            Some(known) => known,
            None => {
                let path = segs.join("::");
                // `jnp::linalg::solve`, `jax::fft::fft`: a JAX function this crate
                // does not have; "move the helper" would mislead.
                let jax_api = matches!(segs.first().map(String::as_str), Some("jnp" | "lax"))
                    || (segs.first().is_some_and(|s| s == "jax")
                        && segs.iter().all(|s| !s.starts_with(char::is_uppercase)));
                if jax_api {
                    return Err(syn::Error::new_spanned(
                        &c.func,
                        crate::frontend::lib::call::not_available_msg(&path),
                    ));
                }
                let effectful = segs.iter().any(|s| {
                    matches!(
                        s.as_str(),
                        "fs" | "io"
                            | "time"
                            | "env"
                            | "process"
                            | "net"
                            | "thread"
                            | "sync"
                            | "atomic"
                            | "cell"
                            | "Cell"
                            | "RefCell"
                            | "Mutex"
                            | "RwLock"
                            | "Instant"
                            | "SystemTime"
                            | "File"
                    ) || s.starts_with("Atomic")
                });
                let ops_module = match segs.as_slice() {
                    [n] => crate::frontend::lib::lower::OPS
                        .iter()
                        .filter(|(names, _, _)| names.contains(&n.as_str()))
                        .flat_map(|(_, written, _)| written.iter())
                        .find(|m| matches!(m, Module::Jnp | Module::Lax))
                        .map(|m| m.prefix()),
                    _ => None,
                };
                let why = if effectful {
                    "this has side effects or global state, and the function is traced once and compiled, so they would not run as written on each call; do it outside the jitted function and pass the result in as an argument".to_string()
                } else if let Some(prefix) = ops_module {
                    format!("if it is `{prefix}{path}`, write `{prefix}{path}(..)`: a bare jnp:: or lax:: name is not read as one (the compiler cannot see `use` items); if it is a helper of yours, move it into a `#[jax::jit] mod` beside this function")
                } else {
                    "the compiler sees only this function's tokens, so it can trace jnp:: and lax:: calls and helpers of the same #[jax::jit] mod; move the helper into a `#[jax::jit] mod` beside this function".to_string()
                };
                return Err(syn::Error::new_spanned(
                    &c.func,
                    format!("cannot call `{path}` in #[jax::jit]: {why}"),
                ));
            }
        };
        // A turbofish names the result type: `random::normal::<Array<f32, 3>>(k)`.
        let hint = match &p.path.segments.last().unwrap().arguments {
            // `random::split::<N>(k)`: N keys (a bare `N` parses as a type).
            syn::PathArguments::AngleBracketed(a)
                if module == Module::Random && name == "split" && a.args.len() == 1 =>
            {
                crate::frontend::trace::statements::key_count_arg(self, &a.args[0]).or(hint)
            }
            syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                // (`random::bernoulli::<A, F>`, `lax::convert_element_type::<f64, _>`:
                // the first names the result.)
                Some(syn::GenericArgument::Type(ty))
                    if a.args.len() == 1
                        || module == Module::Random
                        || a.args.iter().skip(1).all(|g| {
                            matches!(g, syn::GenericArgument::Type(syn::Type::Infer(_)))
                        }) =>
                {
                    Some(type_spec_in(ty, &self.items)?)
                }
                // `random::split::<3>(k)`: three keys.
                Some(syn::GenericArgument::Const(n)) if module == Module::Random => {
                    crate::frontend::trace::statements::key_count_hint(self, n).or(hint)
                }
                _ => hint,
            },
            _ => hint,
        };
        // Its subscripts are a string literal, read before the operands.
        if module == Module::Jnp && name == "einsum" {
            return self.einsum(c);
        }
        let args = if module == Module::Random && name == "bernoulli" {
            // `bernoulli(k, 0.5f32)`: the suffix picks the eager `F`.
            crate::frontend::lib::random::suffixed_args(self, &c.args)?
        } else {
            self.args(&c.args)?
        };
        self.op(module, name, args, hint, span)
    }

    /// A bare name that is a function of a library module (`nn::`,
    /// `special::`, `norm::`, `jnp::linalg::`, `scipy::linalg::`): that
    /// module, the call recorded so the emitted function checks the name in
    /// scope is that function. A name of several modules lowered
    /// differently is an error naming their paths.
    pub(crate) fn bare_library_function(
        &mut self,
        name: &str,
        id: &syn::Ident,
    ) -> Result<Option<Module>> {
        let found = crate::frontend::lib::call::library_functions(name);
        let Some(&(module, path, handler)) = found.first() else {
            return Ok(None);
        };
        // `nn::logsumexp` is `special::logsumexp`, as in JAX.
        if found
            .iter()
            .any(|(_, _, h)| !std::ptr::fn_addr_eq(*h, handler))
        {
            let paths: Vec<String> = found
                .iter()
                .map(|(_, p, _)| format!("`{p}::{name}(..)`"))
                .collect();
            return err(
                id.span(),
                format!(
                    "`{name}` is the name of several library functions: write the one you mean with its path, {}",
                    paths.join(" or ")
                ),
            );
        }
        self.library_uses.push((id.clone(), path));
        Ok(Some(module))
    }

    pub(crate) fn method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        hint: Option<TypeSpec>,
    ) -> Result<Value> {
        let name = m.method.to_string();
        // Iterators and mutation are reported before the receiver, which is
        // often itself an iterator (`(0..n).into_iter()`).
        if matches!(
            name.as_str(),
            "iter"
                | "into_iter"
                | "iter_mut"
                | "next"
                | "map"
                | "fold"
                | "zip"
                | "filter"
                | "enumerate"
                | "for_each"
                | "collect"
                | "rev"
                | "chain"
                | "windows"
                | "chunks"
        ) {
            return err(
                m.method.span(),
                format!("`.{name}()`: iterators are not supported in #[jax::jit]; use array operations, lax::fori_loop or lax::scan"),
            );
        }
        if matches!(
            name.as_str(),
            "fill"
                | "fill_with"
                | "push"
                | "pop"
                | "insert"
                | "remove"
                | "extend"
                | "clear"
                | "swap"
                | "sort"
                | "sort_unstable"
                | "reverse"
                | "as_mut_slice"
                | "as_mut"
                | "get_mut"
                | "copy_from_slice"
                | "clone_from_slice"
                | "assign"
                | "mapv_inplace"
        ) {
            return err(
                m.method.span(),
                format!("`.{name}()` would mutate an array, and arrays are immutable in #[jax::jit]: use `x.at(i).set(v)` (or `jnp::full_like`, `jnp::where_`), which returns the updated array"),
            );
        }
        let recv = self.expr(&m.receiver)?;
        let span = m.span();
        if let Value::Optim(o) = &recv {
            return crate::frontend::lib::optim::method(self, o, m, hint);
        }
        if name == "astype" {
            let Some(turbofish) = &m.turbofish else {
                return err(
                    m.method.span(),
                    "write the target type: `x.astype::<f32>()`",
                );
            };
            let Some(syn::GenericArgument::Type(t)) = turbofish.args.first() else {
                return err(
                    turbofish.span(),
                    "write the target type: `x.astype::<f32>()`",
                );
            };
            let Some(d) = crate::frontend::trace::types::element_dtype(t) else {
                if crate::frontend::trace::types::is_complex_type(t) {
                    return err(t.span(), crate::frontend::trace::types::COMPLEX_NOT_IN_JIT);
                }
                return err(
                    t.span(),
                    "astype takes an element type: bool, u8..u64, i8..i64, bf16, f16, f32, f64, Complex<f32>, Complex<f64>",
                );
            };
            let x = self.atom(recv, m.receiver.span())?;
            return Ok(Value::Traced(
                self.at(span).convert_element_type(x, d, false)?,
            ));
        }
        if let (
            "to_vec" | "as_slice" | "to_ndarray" | "as_ndarray" | "into_vec",
            Value::Traced(a),
        ) = (name.as_str(), &recv)
        {
            // JAX's error for `np.asarray(tracer)` / `np.sin(tracer)`.
            let aval = self.b.aval(a);
            return Err(syn::Error::new_spanned(
                m,
                format!("TracerArrayConversionError: `.{name}()` converts the traced array {aval} to Rust data, but its values are only known when the function runs; use `jnp::` and `lax::` functions on the array itself (as JAX needs `jnp.sin(x)`, not `np.sin(x)`)"),
            ));
        }
        if let ("item" | "into" | "to_f32" | "to_f64" | "as_f32" | "as_f64", Value::Traced(a)) =
            (name.as_str(), &recv)
        {
            let aval = self.b.aval(a);
            return Err(syn::Error::new_spanned(
                m,
                crate::ir::builder::concretization_error(
                    &aval,
                    &format!("`.{name}()` needs the value, which is only known when the function runs. Keep it an array (arrays and scalars mix freely in array expressions)"),
                ),
            ));
        }
        if let Some(v) = self.call_method_item(&recv, m)? {
            return Ok(v);
        }
        // Values are immutable and shared: a clone is the same value.
        if name == "clone" && m.args.is_empty() {
            return Ok(recv);
        }
        match (name.as_str(), &recv) {
            ("at", Value::Traced(x)) if m.args.len() == 1 => {
                let items = self.index_items(&m.args[0])?;
                return Ok(Value::At(x.clone(), items));
            }
            ("slice", Value::Traced(x)) if m.args.len() == 1 => {
                let items = self.index_items(&m.args[0])?;
                return Ok(Value::Traced(self.static_get(x.clone(), &items, span)?));
            }
            ("get", Value::At(x, items)) if m.args.is_empty() => {
                return Ok(Value::Traced(self.static_get(x.clone(), items, span)?));
            }
            ("get_with" | "get_fill", Value::At(x, items)) if m.args.len() == 1 => {
                let (mode, fill) = if name == "get_with" {
                    (self.index_mode(&m.args[0])?, None)
                } else {
                    (crate::prims::IndexMode::FillOrDrop, Some(self.fill_value(&m.args[0])?))
                };
                return Ok(Value::Traced(self.gather_get(x.clone(), items, Some(mode), fill, span)?));
            }
            ("set" | "add" | "mul" | "min" | "max", Value::At(x, items)) if m.args.len() == 1 => {
                let v = self.expr(&m.args[0])?;
                let v = self.atom(v, m.args[0].span())?;
                let mode = crate::prims::IndexMode::FillOrDrop;
                return Ok(Value::Traced(self.static_update(x.clone(), items, &name, v, mode, span)?));
            }
            ("set_with" | "add_with" | "mul_with" | "min_with" | "max_with", Value::At(x, items))
                if m.args.len() == 2 =>
            {
                let v = self.expr(&m.args[0])?;
                let v = self.atom(v, m.args[0].span())?;
                let mode = self.index_mode(&m.args[1])?;
                let kind = name.trim_end_matches("_with");
                return Ok(Value::Traced(self.static_update(x.clone(), items, kind, v, mode, span)?));
            }
            (_, Value::At(..)) => {
                return err(
                    m.method.span(),
                    format!("`x.at(i).{name}(..)` is not supported in #[jax::jit]; use get, get_with, get_fill, set, add, mul, min or max (or their `_with(v, mode)` forms)"),
                )
            }
            _ => {}
        }
        let mut args = vec![(recv, m.receiver.span())];
        args.extend(self.args(&m.args)?);
        self.op(Module::Method, &name, args, hint, span)
    }

    /// `Array::<T, dims..>::zeros()`, `::ones()` and `::full(v)`: a
    /// broadcast literal of that type, as `jnp.zeros(shape, dtype)`;
    /// `::arange()`: a constant (`0, 1, ..` in row-major order), as JAX
    /// makes `jnp.arange` of known bounds.
    fn array_constructor(&mut self, p: &syn::ExprPath, c: &syn::ExprCall) -> Result<Option<Value>> {
        let segs = &p.path.segments;
        let n = segs.len();
        if n < 2 || segs[n - 2].ident != "Array" {
            return Ok(None);
        }
        let name = segs[n - 1].ident.to_string();
        let fill = match (name.as_str(), c.args.len()) {
            ("eye", 0) | ("linspace", 2) => None,
            ("zeros", 0) => Some(Value::Static(Scalar::Int(0))),
            ("ones", 0) => Some(Value::Static(Scalar::Int(1))),
            ("full", 1) => Some(self.expr(&c.args[0])?),
            ("arange", 0) => None,
            _ => return Ok(None),
        };
        let syn::PathArguments::AngleBracketed(args) = &segs[n - 2].arguments else {
            return err(
                segs[n - 2].span(),
                format!("name the array type: `Array::<f32, 3>::{name}(..)`"),
            );
        };
        let ty: syn::Type = syn::parse_quote!(Array #args);
        let crate::frontend::trace::types::TypeSpec::Array { aval, .. } =
            crate::frontend::trace::types::type_spec_in(&ty, &self.items)?
        else {
            return Ok(None);
        };
        // `eye()` and `linspace(start, stop)`, as JAX builds them.
        if name == "eye" {
            let out = crate::frontend::lib::jnp::ranges::eye_of(self, aval, c.span())?;
            return Ok(Some(Value::Traced(out)));
        }
        if name == "linspace" {
            let start = self.expr(&c.args[0])?;
            let start = self.atom(start, c.args[0].span())?;
            let stop = self.expr(&c.args[1])?;
            let stop = self.atom(stop, c.args[1].span())?;
            let out =
                crate::frontend::lib::jnp::ranges::linspace_of(self, aval, start, stop, c.span())?;
            return Ok(Some(Value::Traced(out)));
        }
        let Some(fill) = fill else {
            let Some(n) = aval.shape.iter().try_fold(1usize, |acc, d| match d {
                crate::ir::Dim::Lit(n) => Some(acc * n),
                crate::ir::Dim::Sym(_) => None,
            }) else {
                return err(
                    c.span(),
                    "`arange()` needs a shape known when the function compiles",
                );
            };
            let values = (0..n as i128)
                .map(|i| crate::ir::cast_scalar(Scalar::Int(i), aval.dtype))
                .collect();
            let strong = crate::ir::Aval {
                weak: false,
                ..aval
            };
            return Ok(Some(Value::Traced(self.b.constant(strong, values))));
        };
        let v = match fill {
            Value::Static(v) => crate::ir::builder::literal(
                crate::ir::cast_scalar(v, aval.dtype),
                crate::ir::Aval::scalar(aval.dtype, false),
            ),
            other => {
                let v = self.atom(other, c.span())?;
                crate::frontend::trace::jnp::convert(&mut self.b, v, aval.dtype, false, c.span())?
            }
        };
        let out = crate::frontend::trace::jnp::broadcast_to(&mut self.b, v, aval.shape, c.span())?;
        Ok(Some(Value::Traced(out)))
    }
}
