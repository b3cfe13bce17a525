//! `jax::tree::map`, `tree::leaves` and `tree::reduce` inside `#[jax::jit]`
//! bodies. The trees are known when the macro traces, so these unroll: the
//! function is inlined once per leaf (as `jax.tree.map` calls it once per
//! leaf while JAX traces), and the result is rebuilt in the first tree's
//! structure. `map` takes any number of trees here (eagerly: `map`, `map2`,
//! `map3`); mismatched structures are a compile error with JAX's message.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};

/// `jax::tree::NAME(..)` (or `tree::NAME`) for a NAME handled here: its value;
/// `None` when `c` is another call.
pub(crate) fn call_tree(t: &mut Tracer, c: &syn::ExprCall) -> Result<Option<Value>> {
    let syn::Expr::Path(p) = &*c.func else {
        return Ok(None);
    };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let name = match segs.as_slice() {
        [.., m, n] if m == "tree" => n.clone(),
        _ => return Ok(None),
    };
    match name.as_str() {
        "map" | "map2" | "map3" => map(t, c, &name).map(Some),
        "leaves" => leaves(t, c).map(Some),
        "reduce" => reduce(t, c).map(Some),
        _ => err(
            c.func.span(),
            format!(
                "`tree::{name}` is not available in #[jax::jit] bodies: use `tree::map`, `tree::leaves` or `tree::reduce` (the others are eager functions of `jax::tree`)"
            ),
        ),
    }
}

/// A tree argument, checked to be a pytree.
fn tree_arg(t: &mut Tracer, e: &syn::Expr, what: &str) -> Result<(Value, Span)> {
    let v = t.expr(e)?;
    check_pytree(&v, e.span(), what)?;
    Ok((v, e.span()))
}

/// An error unless `v` is made of arrays, tuples, lists and structs.
fn check_pytree(v: &Value, span: Span, what: &str) -> Result<()> {
    let bad = match v {
        Value::Traced(_) | Value::Static(_) | Value::Symbolic(_) | Value::Unit | Value::Poison => {
            return Ok(())
        }
        Value::Tuple(items) | Value::List(items) => {
            return items.iter().try_for_each(|i| check_pytree(i, span, what))
        }
        Value::Struct(_, fields) => {
            return fields
                .iter()
                .try_for_each(|(_, f)| check_pytree(f, span, what))
        }
        Value::Closure(_) => "a closure",
        Value::Optim(_) => "an optimizer",
        Value::Pullback(_) => "a pullback (a function)",
        Value::Str(_) => "a string",
        Value::At(..) => "an `.at(..)` waiting for `.get()`",
    };
    err(
        span,
        format!(
            "{what} is {bad}, not a pytree: pass arrays, or tuples, lists (`[T; N]`) and structs of the #[jax::jit] mod made of arrays"
        ),
    )
}

/// The leaves of a tree, in JAX's order (fields in declaration order, tuple
/// and list items in order).
fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Tuple(items) | Value::List(items) => items.iter().for_each(|i| flatten(i, out)),
        Value::Struct(_, fields) => fields.iter().for_each(|(_, f)| flatten(f, out)),
        Value::Unit => {}
        v => out.push(v.clone()),
    }
}

/// `template` with its leaves replaced, in order, by `leaves`.
fn rebuild(template: &Value, leaves: &mut impl Iterator<Item = Value>) -> Value {
    match template {
        Value::Tuple(items) => Value::Tuple(items.iter().map(|i| rebuild(i, leaves)).collect()),
        Value::List(items) => Value::List(items.iter().map(|i| rebuild(i, leaves)).collect()),
        Value::Struct(name, fields) => Value::Struct(
            name.clone(),
            fields
                .iter()
                .map(|(f, v)| (f.clone(), rebuild(v, leaves)))
                .collect(),
        ),
        Value::Unit => Value::Unit,
        _ => leaves.next().unwrap_or(Value::Poison),
    }
}

/// How JAX names the type of a node in its structure errors.
fn type_name(v: &Value) -> String {
    match v {
        Value::Tuple(_) | Value::Unit => "tuple".into(),
        Value::List(_) => "list".into(),
        Value::Struct(name, _) => name.clone(),
        _ => "jaxlib._jax.ArrayImpl".into(),
    }
}

fn children(v: &Value) -> Option<Vec<(String, &Value)>> {
    match v {
        Value::Tuple(items) | Value::List(items) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("[{i}]"), v))
                .collect(),
        ),
        Value::Unit => Some(Vec::new()),
        Value::Struct(_, fields) => {
            Some(fields.iter().map(|(f, v)| (format!(".{f}"), v)).collect())
        }
        _ => None,
    }
}

/// JAX's message when `full` does not have the structure of `prefix`, as
/// `jax.tree.map` finds it (depth first); `None` when they match.
fn mismatch(prefix: &Value, full: &Value, path: &str) -> Option<String> {
    let (pk, fk) = (type_name(prefix), type_name(full));
    let (Some(pc), Some(fc)) = (children(prefix), children(full)) else {
        return match (children(prefix), children(full)) {
            (None, None) => None,
            // A leaf facing a subtree: JAX would pass the subtree to `f`.
            (None, Some(_)) => Some(format!(
                "pytree structure error: at key path\n    tree_map tree{path}\n\
                 the first tree has a leaf but another tree has a subtree of type\n    <class '{fk}'>\n\
                 (tree::map calls the function on leaves only: give every tree the first tree's structure)."
            )),
            _ => Some(different_types(path, &pk, &fk)),
        };
    };
    if pk != fk {
        return Some(different_types(path, &pk, &fk));
    }
    if pc.len() != fc.len() {
        return Some(format!(
            "pytree structure error: different lengths of {pk} at key path\n    tree_map tree{path}\n\
             At that key path, the prefix pytree tree_map tree has a subtree of type {pk} of length {}, \
             but the full pytree has a subtree of the same type but of length {}.",
            pc.len(),
            fc.len()
        ));
    }
    pc.iter()
        .zip(&fc)
        .find_map(|((k, p), (_, f))| mismatch(p, f, &format!("{path}{k}")))
}

fn different_types(path: &str, pk: &str, fk: &str) -> String {
    format!(
        "pytree structure error: different types at key path\n    tree_map tree{path}\n\
         At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class '{pk}'>\n\
         but at the same key path the full pytree has a subtree of different type\n    <class '{fk}'>."
    )
}

/// `tree::map(f, &a, &b, ..)`: `f` inlined on each leaf of `a` with the
/// matching leaves of the others.
fn map(t: &mut Tracer, c: &syn::ExprCall, name: &str) -> Result<Value> {
    if c.args.len() < 2 {
        return err(
            c.span(),
            format!("`tree::{name}` takes a function and at least one tree: `tree::map(|p, g| p - 0.01 * g, &params, &grads)`"),
        );
    }
    let f = t.callable(&c.args[0])?;
    let mut trees = Vec::new();
    for (k, e) in c.args.iter().enumerate().skip(1) {
        trees.push(tree_arg(
            t,
            e,
            &format!("argument {} of `tree::{name}`", k + 1),
        )?);
    }
    for (tree, span) in &trees[1..] {
        if let Some(msg) = mismatch(&trees[0].0, tree, "") {
            return err(*span, msg);
        }
    }
    let leaves: Vec<Vec<Value>> = trees
        .iter()
        .map(|(v, _)| {
            let mut out = Vec::new();
            flatten(v, &mut out);
            out
        })
        .collect();
    let mut results = Vec::with_capacity(leaves[0].len());
    for i in 0..leaves[0].len() {
        let args = leaves
            .iter()
            .zip(&trees)
            .map(|(l, (_, span))| (l[i].clone(), *span))
            .collect();
        results.push(t.apply(&f, args, c.span())?);
    }
    Ok(rebuild(&trees[0].0, &mut results.into_iter()))
}

/// `tree::leaves(&t)`: the leaves as a list (`[T; N]`).
fn leaves(t: &mut Tracer, c: &syn::ExprCall) -> Result<Value> {
    if c.args.len() != 1 {
        return err(
            c.span(),
            "`tree::leaves` takes one tree: `tree::leaves(&params)`",
        );
    }
    let (v, _) = tree_arg(t, &c.args[0], "the argument of `tree::leaves`")?;
    let mut out = Vec::new();
    flatten(&v, &mut out);
    Ok(Value::List(out))
}

/// `tree::reduce(f, &t, init)`: `f` folded over the leaves from the left.
fn reduce(t: &mut Tracer, c: &syn::ExprCall) -> Result<Value> {
    if c.args.len() != 3 {
        return err(
            c.span(),
            "`tree::reduce` takes a function, a tree and an initial value: `tree::reduce(|a, b| a + b, &t, 0.0)`",
        );
    }
    let f = t.callable(&c.args[0])?;
    let (v, span) = tree_arg(t, &c.args[1], "the tree of `tree::reduce`")?;
    let init = t.expr(&c.args[2])?;
    let mut out = Vec::new();
    flatten(&v, &mut out);
    let mut acc = (init, c.args[2].span());
    for leaf in out {
        acc = (t.apply(&f, vec![acc, (leaf, span)], c.span())?, c.span());
    }
    Ok(acc.0)
}
