//! Macros in a body: `jax::debug::print!` becomes a `debug_callback`
//! equation; the others (`println!`, `vec!`, ...) are errors that say what
//! to write instead.

use syn::spanned::Spanned;

use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};

impl Tracer {
    pub(crate) fn mac(&mut self, m: &syn::Macro) -> Result<Value> {
        let segs: Vec<String> = m
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segs.ends_with(&["debug".to_string(), "print".to_string()]) {
            return self.debug_print(m);
        }
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let msg = match name.as_str() {
            "vec" => "`vec!` makes a Rust Vec, not an array (JAX: \"sum requires ndarray or scalar arguments\"); write `jnp::array([...])`".to_string(),
            "println" | "print" | "eprintln" | "eprint" | "dbg" | "format" | "write" | "writeln" => format!(
                "`{name}!` on traced values is not supported in #[jax::jit]: the function is traced once and compiled, so the print would show no values and would not run per call; use `jax::debug::print!`, which prints at run time"
            ),
            _ => format!("`{name}!` is not supported in #[jax::jit]: the function is traced once and compiled, so side effects would not run as written"),
        };
        err(m.span(), msg)
    }

    /// `jax::debug::print!("x = {}", x)`: a `debug_callback` equation that
    /// prints the values when the function runs (arrays shown as numpy's
    /// `str`, as JAX's `jax.debug.print` does). Arguments are arrays or
    /// scalars, positional or `name = value`.
    fn debug_print(&mut self, m: &syn::Macro) -> Result<Value> {
        use syn::parse::Parser;
        let args = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated
            .parse2(m.tokens.clone())?;
        let mut args = args.into_iter();
        let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(format),
            ..
        })) = args.next()
        else {
            return err(
                m.span(),
                "`jax::debug::print!` takes a format string first, as `println!`",
            );
        };
        let mut ins = Vec::new();
        let mut names = Vec::new();
        for a in args {
            let (name, value) = match a {
                syn::Expr::Assign(asg) => match &*asg.left {
                    syn::Expr::Path(p) if p.path.get_ident().is_some() => (
                        Some(p.path.get_ident().unwrap().to_string()),
                        (*asg.right).clone(),
                    ),
                    other => return err(other.span(), "a named argument is `name = value`"),
                },
                e => (None, e),
            };
            let v = self.expr(&value)?;
            let atom = match v {
                Value::Traced(_) | Value::Static(_) => self.atom(v, value.span())?,
                _ => {
                    return err(
                        value.span(),
                        "`jax::debug::print!` prints arrays and scalars; print a tuple's or a struct's fields one by one",
                    )
                }
            };
            ins.push(atom);
            names.push(name);
        }
        // A name in the format string must be an argument: the traced
        // values are not Rust variables.
        let text = format.value();
        let mut rest = text.as_str();
        while let Some(open) = rest.find('{') {
            rest = &rest[open + 1..];
            if rest.starts_with('{') {
                rest = &rest[1..];
                continue;
            }
            let close = rest.find('}').unwrap_or(rest.len());
            let name = rest[..close].split(':').next().unwrap_or("").trim();
            let is_name = name
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_');
            if is_name && !names.iter().any(|n| n.as_deref() == Some(name)) {
                return err(
                    format.span(),
                    format!("`{{{name}}}` names no argument: pass it as one, `jax::debug::print!(\"{{{name}}}\", {name} = {name})`"),
                );
            }
            rest = &rest[close..];
        }
        self.b.bind(
            &crate::prims::DEBUG_CALLBACK,
            crate::prims::Params::DebugPrint {
                format: text,
                names,
            },
            ins,
            m.span(),
        )?;
        Ok(Value::Tuple(Vec::new()))
    }
}
