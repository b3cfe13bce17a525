//! `#[jax::jit(import = "model.jaxpr")] fn f(..) -> ..;`: a jaxpr printed
//! by Python JAX (`str(jax.make_jaxpr(f)(*args))`) read at compile time
//! (`ir/parse.rs`) in place of a traced body, and checked against the
//! Rust signature, which it then compiles like any jitted function.
//!
//! The program's inputs are its constant variables, then its inputs, as
//! JAX's `convert_constvars_jaxpr` orders them: the text holds no values,
//! so the signature takes the constants first. Pytree parameters flatten
//! as everywhere (a struct's fields in declaration order), which is how
//! they must line up with the leaves JAX flattened.

use std::path::PathBuf;

use crate::frontend::trace::signature::Signature;
use crate::frontend::trace::types::TypeSpec;
use crate::ir::{Aval, Jaxpr};

/// The file named by `import = "..."`: relative to the directory of the
/// source file holding the attribute, as `include_str!` resolves its path
/// (the crate's manifest directory when the span has no file, outside
/// rustc).
pub(crate) fn resolve(lit: &syn::LitStr) -> PathBuf {
    let rel = PathBuf::from(lit.value());
    if rel.is_absolute() {
        return rel;
    }
    let source = lit.span().local_file().filter(|f| f.is_file());
    let base = match source.as_deref().and_then(|f| f.parent()) {
        Some(dir) => dir.to_path_buf(),
        None => std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_default(),
    };
    base.join(rel)
}

/// Reads and parses the file, errors at the attribute's string with the
/// file's line and column.
pub(crate) fn read(lit: &syn::LitStr) -> syn::Result<(PathBuf, Jaxpr)> {
    let path = resolve(lit);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        syn::Error::new(
            lit.span(),
            format!(
                "cannot read `{}`: {e} (the path is relative to this source file's directory, as for `include_str!`)",
                path.display()
            ),
        )
    })?;
    let mut j = crate::ir::parse::parse_jaxpr(
        &text,
        &crate::prims::by_name,
        crate::frontend::parse::known_custom_jvp,
        lit.span(),
    )
    .map_err(|e| syn::Error::new(lit.span(), format!("{}:{e}", lit.value())))?;
    // Absolute, for the `include_str!` that makes cargo rebuild on a change.
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    // The constants are the leading inputs.
    let consts: Vec<_> = j.constvars.drain(..).map(|(v, _)| v).collect();
    j.invars.splice(0..0, consts);
    Ok((path, j))
}

fn leaves(spec: &TypeSpec, out: &mut Vec<Aval>) {
    match spec {
        TypeSpec::Tuple(items) | TypeSpec::List(items) => {
            items.iter().for_each(|s| leaves(s, out));
        }
        TypeSpec::Struct { fields, .. } => fields.iter().for_each(|(_, s)| leaves(s, out)),
        s => out.extend(s.aval()),
    }
}

fn list(avals: &[Aval]) -> String {
    let v: Vec<String> = avals.iter().map(|a| a.to_string()).collect();
    format!("({})", v.join(", "))
}

/// The signature's leaves have the program's types, in order (weak types
/// aside: the text does not show them).
pub(crate) fn check_signature(
    sig: &syn::Signature,
    spec: &Signature,
    j: &Jaxpr,
    file: &str,
) -> syn::Result<()> {
    let same = |a: &[Aval], b: &[Aval]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.dtype == y.dtype && x.shape == y.shape)
    };
    let mut ins = Vec::new();
    spec.params.iter().for_each(|(_, s)| leaves(s, &mut ins));
    let want: Vec<Aval> = j.invars.iter().map(|v| j.aval(*v).clone()).collect();
    if !same(&ins, &want) {
        return Err(syn::Error::new_spanned(
            &sig.inputs,
            format!(
                "the parameters do not match `{file}`: their leaves are {} but the jaxpr takes {} (its constants first, then its inputs; a struct's fields flatten in declaration order)",
                list(&ins),
                list(&want)
            ),
        ));
    }
    let mut outs = Vec::new();
    leaves(&spec.ret, &mut outs);
    let got: Vec<Aval> = j.outvars.iter().map(|a| j.atom_aval(a).clone()).collect();
    if !same(&outs, &got) {
        return Err(syn::Error::new_spanned(
            &sig.output,
            format!(
                "the result does not match `{file}`: its leaves are {} but the jaxpr returns {}",
                list(&outs),
                list(&got)
            ),
        ));
    }
    Ok(())
}
