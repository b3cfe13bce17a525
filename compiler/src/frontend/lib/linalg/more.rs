//! `jnp::linalg::pinv`, `pinv_with`, `matrix_rank`, `matrix_rank_with`,
//! `lstsq` and `norm_with` in `#[jax::jit]`, composed of the `svd`
//! primitive as `jax.numpy.linalg` composes them, and the reading of the
//! options structs of the `_with` forms (`pinv_with`, `norm_with`,
//! `eigh_with`, `svd_with`) from the literal the user writes.
//!
//! `pinv` is a `custom_jvp_call` with JAX's `_pinv_jvp` rule (Golub and
//! Pereyra's derivative of the pseudo-inverse); `lstsq` and the norms
//! differentiate through `svd`'s rule, as in JAX. JAX wraps these in named
//! `jit`s, which jaxprs here inline.

use syn::spanned::Spanned;

use crate::frontend::bodies::callables::is_path;
use crate::frontend::lib::call::{call_err, reject, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Scalar};
use jax_core::linalg::{self as la, NormAxis, NormOptions, NormOrd, PinvOptions};

/// An error over the tokens of `e` (an option the user wrote), not the
/// whole call.
fn at<T>(e: &impl quote::ToTokens, msg: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new_spanned(e, msg.to_string()))
}

/// The operand `i` as an inexact matrix or batch of them, its shape
/// checked at the argument's tokens.
fn matrix_arg(t: &mut Tracer, c: &Call, i: usize) -> Result<Atom> {
    let x = c.atom(t, i)?;
    let x = jnp::to_float(&mut t.b, x, c.span)?;
    reject(c, &[], la::matrix_shape(&t.b.aval(&x), c.name, i))?;
    Ok(x)
}

/// `jnp::linalg::pinv(a)` (`pinv_with` reads its options first).
pub(crate) fn pinv(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    pinv_with(t, c, PinvOptions::default())
}

fn pinv_with(t: &mut Tracer, c: Call, opts: PinvOptions) -> Result<Value> {
    let a = matrix_arg(t, &c, 0)?;
    let p = la::pinv(&mut t.at(c.span), a, opts)?;
    Ok(Value::Traced(p))
}

/// `jnp::linalg::matrix_rank(a)` and `matrix_rank_with(a, tol)`.
pub(crate) fn matrix_rank(t: &mut Tracer, c: Call) -> Result<Value> {
    let with = c.name == "matrix_rank_with";
    c.want(if with { 2 } else { 1 })?;
    let a = matrix_arg(t, &c, 0)?;
    let tol = if with { Some(c.atom(t, 1)?) } else { None };
    Ok(Value::Traced(la::matrix_rank(&mut t.at(c.span), a, tol)?))
}

/// `jnp::linalg::lstsq(a, b)`: `(x, resid, rank, s)`.
pub(crate) fn lstsq(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (a, b) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let (aa, ba) = (t.b.aval(&a), t.b.aval(&b));
    reject(&c, &[], la::lstsq_shapes(&aa, &ba))?;
    let outs = la::lstsq(&mut t.at(c.span), a, b)?;
    Ok(Value::Tuple(outs.into_iter().map(Value::Traced).collect()))
}

/// `jnp::linalg::norm_with(x, opts)`, the options' tokens for errors.
fn norm_with(
    t: &mut Tracer,
    c: Call,
    opts: NormOptions,
    tokens: [(&str, &proc_macro2::TokenStream); 2],
) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, c.span)?;
    let rank = t.b.aval(&x).rank();
    reject(&c, &tokens, la::norm_axes(rank, opts))?;
    Ok(Value::Traced(la::norm(&mut t.at(c.span), x, opts)?))
}

/// `jnp::linalg::norm(x)`: the 2-norm of every element.
pub(crate) fn norm(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    Ok(Value::Traced(la::norm(
        &mut t.at(c.span),
        x,
        NormOptions::default(),
    )?))
}

// ---- the options structs, read from their literals ----

/// The fields of an options struct written as a literal
/// (`XOptions { a: .., ..Default::default() }`) or `XOptions::default()`;
/// anything else is an error saying to write it literally.
fn option_fields<'a>(
    e: &'a syn::Expr,
    ty: &str,
    fields: &[&str],
    usage: &str,
) -> Result<Vec<(String, &'a syn::Expr)>> {
    match peel(e) {
        syn::Expr::Struct(s) => {
            let mut out = Vec::new();
            for f in &s.fields {
                let name = match &f.member {
                    syn::Member::Named(n) => n.to_string(),
                    _ => return at(&f.member, usage),
                };
                if !fields.contains(&name.as_str()) {
                    return at(
                        &f.member,
                        format!("`{ty}` has no field `{name}`: it has {}", fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")),
                    );
                }
                out.push((name, &f.expr));
            }
            Ok(out)
        }
        syn::Expr::Call(c) if c.args.is_empty() && is_default_path(&c.func) => Ok(Vec::new()),
        _ => at(
            e,
            format!("the options must be written literally here: {usage}, with values known when the function compiles (a variable holding the options cannot be read by #[jax::jit])"),
        ),
    }
}

fn is_default_path(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "default"))
}

/// A number known when the function compiles.
fn static_number(t: &mut Tracer, e: &syn::Expr, what: &str) -> Result<f64> {
    match t.expr(e)? {
        Value::Static(Scalar::Float(v)) => Ok(v),
        Value::Static(Scalar::Int(v)) => Ok(v as f64),
        _ => at(
            e,
            format!("{what} must be a number known when the function compiles"),
        ),
    }
}

fn static_int(t: &mut Tracer, e: &syn::Expr, what: &str) -> Result<i128> {
    match t.expr(e)? {
        Value::Static(Scalar::Int(v)) => Ok(v),
        _ => at(
            e,
            format!("{what} must be an integer known when the function compiles"),
        ),
    }
}

/// `e` without parentheses and the invisible groups of macro arguments.
fn peel(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => peel(&p.expr),
        syn::Expr::Group(g) => peel(&g.expr),
        _ => e,
    }
}

/// The last segment of a path expression (`Uplo::U` → `U`).
fn path_tail(e: &syn::Expr) -> Option<String> {
    match peel(e) {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// `Variant(args..)`: the variant's name and its arguments.
fn variant_call(e: &syn::Expr) -> Option<(String, Vec<&syn::Expr>)> {
    match peel(e) {
        syn::Expr::Call(c) => path_tail(&c.func).map(|n| (n, c.args.iter().collect())),
        _ => None,
    }
}

/// `rtol: None` or `rtol: Some(x)`.
fn option_f64(t: &mut Tracer, e: &syn::Expr) -> Result<Option<f64>> {
    if path_tail(e).as_deref() == Some("None") {
        return Ok(None);
    }
    match variant_call(e) {
        Some((n, args)) if n == "Some" && args.len() == 1 => {
            Ok(Some(static_number(t, args[0], "`rtol`")?))
        }
        _ => at(
            e,
            "`rtol` is `None` or `Some(x)` with a number known when the function compiles",
        ),
    }
}

fn read_ord(t: &mut Tracer, e: &syn::Expr) -> Result<NormOrd> {
    let usage =
        "`ord` is `NormOrd::Default`, `Fro`, `Nuc`, `Inf`, `NegInf` or `P(p)` with a number p";
    if let Some(n) = path_tail(e) {
        return match n.as_str() {
            "Default" => Ok(NormOrd::Default),
            "Fro" => Ok(NormOrd::Fro),
            "Nuc" => Ok(NormOrd::Nuc),
            "Inf" => Ok(NormOrd::P(f64::INFINITY)),
            "NegInf" => Ok(NormOrd::P(f64::NEG_INFINITY)),
            _ => at(e, usage),
        };
    }
    match variant_call(e) {
        Some((n, args)) if n == "P" && args.len() == 1 => {
            Ok(NormOrd::P(static_number(t, args[0], "`NormOrd::P`'s p")?))
        }
        _ => at(e, usage),
    }
}

fn read_axis(t: &mut Tracer, e: &syn::Expr) -> Result<NormAxis> {
    let usage = "`axis` is `NormAxis::All`, `NormAxis::Vector(axis)` or `NormAxis::Matrix(row_axis, col_axis)` with integers";
    if path_tail(e).as_deref() == Some("All") {
        return Ok(NormAxis::All);
    }
    match variant_call(e) {
        Some((n, args)) if n == "Vector" && args.len() == 1 => {
            Ok(NormAxis::Vector(static_int(t, args[0], "the axis")?))
        }
        Some((n, args)) if n == "Matrix" && args.len() == 2 => Ok(NormAxis::Matrix(
            static_int(t, args[0], "the row axis")?,
            static_int(t, args[1], "the column axis")?,
        )),
        _ => at(e, usage),
    }
}

/// The arguments before the options, as a `Call` for the usual helpers.
fn leading_call(
    t: &mut Tracer,
    call: &syn::ExprCall,
    name: &'static str,
    n: usize,
    usage: &str,
) -> Result<Call<'static>> {
    let span = call.span();
    if call.args.len() != n + 1 {
        return call_err(
            span,
            format!("`{name}` takes {n} array argument(s) and the options: {usage}"),
        );
    }
    let mut args = Vec::new();
    for a in call.args.iter().take(n) {
        args.push((t.expr(a)?, a.span()));
    }
    Ok(Call {
        module: crate::frontend::lib::call::Module::Linalg,
        name,
        args,
        hint: None,
        span,
    })
}

/// The options structs and the function reading each.
const OPTIONS: &[(&str, &str)] = &[
    ("PinvOptions", "pinv_with"),
    ("NormOptions", "norm_with"),
    ("EighOptions", "eigh_with"),
    ("SvdOptions", "svd_with"),
];

/// `pinv_with`, `norm_with`, `eigh_with` and `svd_with`, whose options
/// are read from the literal before anything is evaluated; `None` for
/// other calls.
pub(crate) fn call_with_options(t: &mut Tracer, call: &syn::ExprCall) -> Result<Option<Value>> {
    let f = &*call.func;
    let span = call.span();
    let opts_expr = call.args.last();
    if let syn::Expr::Path(p) = f {
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let [.., ty, d] = segs.as_slice() {
            if d == "default" && OPTIONS.iter().any(|(o, _)| o == ty) {
                let with = OPTIONS.iter().find(|(o, _)| o == ty).unwrap().1;
                return at(
                    call,
                    format!("`{ty}` is read from the literal written in the call when the function compiles: write `jnp::linalg::{with}(a, {ty}::default())` or `{ty} {{ .., ..Default::default() }}` inside the call, not in a variable"),
                );
            }
        }
    }
    if is_path(f, "linalg", "pinv_with") {
        let usage = "`PinvOptions { rtol: None, hermitian: false }` (or `..Default::default()`)";
        let mut o = PinvOptions::default();
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(e, "PinvOptions", &["rtol", "hermitian"], usage)? {
                match name.as_str() {
                    "rtol" => o.rtol = option_f64(t, e)?,
                    _ => o.hermitian = t.static_bool(e, "`hermitian`")?,
                }
            }
        }
        let c = leading_call(t, call, "pinv_with", 1, usage)?;
        return pinv_with(t, c, o).map(Some);
    }
    if is_path(f, "linalg", "norm_with") {
        let usage = "`NormOptions { ord: NormOrd::Nuc, axis: NormAxis::Matrix(-2, -1), keepdims: false }` (or `..Default::default()`)";
        let whole = quote::ToTokens::to_token_stream(call);
        let (mut ord_tokens, mut axis_tokens) = (whole.clone(), whole);
        let mut o = NormOptions::default();
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(e, "NormOptions", &["ord", "axis", "keepdims"], usage)? {
                match name.as_str() {
                    "ord" => {
                        o.ord = read_ord(t, e)?;
                        ord_tokens = quote::ToTokens::to_token_stream(e);
                    }
                    "axis" => {
                        o.axis = read_axis(t, e)?;
                        axis_tokens = quote::ToTokens::to_token_stream(e);
                    }
                    _ => o.keepdims = t.static_bool(e, "`keepdims`")?,
                }
            }
        }
        let c = leading_call(t, call, "norm_with", 1, usage)?;
        let tokens = [("ord", &ord_tokens), ("axis", &axis_tokens)];
        return norm_with(t, c, o, tokens).map(Some);
    }
    if is_path(f, "linalg", "eigh_with") {
        let usage =
            "`EighOptions { uplo: Uplo::L, symmetrize_input: true }` (or `..Default::default()`)";
        let (mut lower, mut sym) = (true, true);
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(e, "EighOptions", &["uplo", "symmetrize_input"], usage)?
            {
                match name.as_str() {
                    "uplo" => {
                        lower = match path_tail(e).as_deref() {
                            Some("L") => true,
                            Some("U") => false,
                            _ => return at(e, "`uplo` is `Uplo::L` or `Uplo::U`"),
                        }
                    }
                    _ => sym = t.static_bool(e, "`symmetrize_input`")?,
                }
            }
        }
        let c = leading_call(t, call, "eigh_with", 1, usage)?;
        return crate::frontend::lib::linalg::eigh::eigh_with(t, c, lower, sym).map(Some);
    }
    if is_path(f, "linalg", "svd_with") {
        let usage =
            "`SvdOptions { full_matrices: false, hermitian: false }` (or `..Default::default()`)";
        let (mut full, mut herm) = (true, false);
        if let Some(e) = opts_expr {
            for (name, e) in option_fields(
                e,
                "SvdOptions",
                &["full_matrices", "hermitian", "compute_uv"],
                usage,
            )? {
                match name.as_str() {
                    "full_matrices" => full = t.static_bool(e, "`full_matrices`")?,
                    "hermitian" => herm = t.static_bool(e, "`hermitian`")?,
                    _ => {
                        return at(
                            e,
                            "`SvdOptions` has no `compute_uv`: for the singular values alone call `jnp::linalg::svdvals(a)` (JAX's `svd(a, compute_uv=False)`)",
                        )
                    }
                }
            }
        }
        let c = leading_call(t, call, "svd_with", 1, usage)?;
        let a = matrix_arg(t, &c, 0)?;
        let outs = la::svd(&mut t.at(span), a, full, herm)?;
        return Ok(Some(Value::Tuple(vec![
            Value::Traced(outs[1].clone()),
            Value::Traced(outs[0].clone()),
            Value::Traced(outs[2].clone()),
        ])));
    }
    Ok(None)
}
