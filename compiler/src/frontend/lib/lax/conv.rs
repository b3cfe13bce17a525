//! `lax::conv_general_dilated`, `lax::conv` and `lax::conv_transpose` with
//! their eager signatures: strides and dilations as slices, padding as
//! JAX's strings, `lax::Padding::..` or `(low, high)` pairs, layouts as
//! JAX's dimension-number strings. The padding is resolved and the call
//! checked by the shape rule the runtime uses, then bound as one
//! `conv_general_dilated`, as JAX binds it.

use jax_dtypes::conv::{
    conv_permutations, conv_transpose_layouts, conv_transpose_padding, dilate_dim, ConvSpec,
    Padding,
};
use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Dim};
use crate::prims::{self, ConvParams, Params};
use jax_core::lax::Lax;

/// `padding`: a string, a `lax::Padding` variant, or `(low, high)` pairs.
pub(crate) fn padding(t: &Tracer, v: &Value, span: Span) -> Result<Padding> {
    let help = "the padding is \"SAME\", \"VALID\", \"SAME_LOWER\", a `lax::Padding`, or `(low, high)` pairs known when the function compiles: `&[(1, 1), (0, 2)]`";
    match v {
        Value::Str(s) => Padding::parse(s).or_else(|e| err(span, e)),
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|item| match item {
                Value::Tuple(pair) if pair.len() == 2 => Ok((
                    t.static_int(&pair[0], span, "padding")? as i64,
                    t.static_int(&pair[1], span, "padding")? as i64,
                )),
                _ => err(span, help),
            })
            .collect::<Result<Vec<_>>>()
            .map(Padding::Explicit),
        _ => err(span, help),
    }
}

/// Static sizes (strides, dilations): a slice of positive integers.
pub(crate) fn sizes(t: &Tracer, v: &Value, span: Span, what: &str) -> Result<Vec<usize>> {
    t.static_ints(v, span, what)?
        .into_iter()
        .map(|k| {
            usize::try_from(k).or_else(|_| err(span, format!("{what} must be positive, got {k}")))
        })
        .collect()
}

/// An optional argument: `None`, or `Some(x)` / `x`.
pub(crate) fn optional(v: &Value) -> Option<&Value> {
    (!matches!(v, Value::Unit)).then_some(v)
}

/// `Some(("NHWC", "HWIO", "NHWC"))` or `None`.
fn layouts(v: &Value, span: Span) -> Result<Option<[String; 3]>> {
    let help = "the dimension numbers are `None` or three strings known when the function compiles: `Some((\"NHWC\", \"HWIO\", \"NHWC\"))`";
    match optional(v) {
        None => Ok(None),
        Some(Value::Tuple(items)) if items.len() == 3 => {
            let mut out = Vec::new();
            for i in items {
                match i {
                    Value::Str(s) => out.push(s.clone()),
                    _ => return err(span, help),
                }
            }
            Ok(Some(out.try_into().expect("three")))
        }
        Some(_) => err(span, help),
    }
}

/// The operands' sizes for the shape rule: numbers, a const generic of a
/// batch or feature axis standing as 1 (the primitive's own rule passes
/// it through to the result).
fn static_shape(t: &Tracer, x: &Atom) -> Vec<usize> {
    t.b.aval(x)
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 1,
        })
        .collect()
}

/// A checked convolution of `lhs` and `rhs`, bound.
#[allow(clippy::too_many_arguments)]
fn bind_conv(
    t: &mut Tracer,
    c: &Call,
    lhs: Atom,
    rhs: Atom,
    window_strides: &[usize],
    padding: &Padding,
    lhs_dilation: Option<&[usize]>,
    rhs_dilation: Option<&[usize]>,
    layouts: Option<&[String; 3]>,
    feature_group_count: usize,
) -> Result<Value> {
    let (ls, rs) = (static_shape(t, &lhs), static_shape(t, &rhs));
    let dn = layouts.map(|[a, b, o]| (a.as_str(), b.as_str(), o.as_str()));
    let checked = conv_permutations(ls.len(), dn).and_then(|perms| {
        if ls.len() != rs.len() {
            return Err(format!(
                "convolution requires lhs and rhs ndim to be equal, got {} and {}.",
                ls.len(),
                rs.len()
            ));
        }
        ConvSpec::with_perms(
            &ls,
            &rs,
            window_strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            perms,
            feature_group_count,
            1,
        )
    });
    let spec = match checked {
        Ok(s) => s,
        Err(e) => return call_err(c.span, e),
    };
    let params = Params::Conv(ConvParams {
        window_strides: spec.window_strides,
        padding: spec.padding,
        lhs_dilation: spec.lhs_dilation,
        rhs_dilation: spec.rhs_dilation,
        specs: [spec.lhs_perm, spec.rhs_perm, spec.out_perm],
        feature_group_count,
        batch_group_count: 1,
    });
    Ok(Value::Traced(t.b.bind1(
        &prims::CONV_GENERAL_DILATED,
        params,
        vec![lhs, rhs],
        c.span,
    )?))
}

/// `lax::conv_general_dilated(lhs, rhs, window_strides, padding,
/// lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count)`.
pub(crate) fn conv_general_dilated(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(8)?;
    let (lhs, rhs) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let a = &c.args;
    let strides = sizes(t, &a[2].0, a[2].1, "window_strides")?;
    let pad = padding(t, &a[3].0, a[3].1)?;
    let ld = optional(&a[4].0)
        .map(|v| sizes(t, v, a[4].1, "lhs_dilation"))
        .transpose()?;
    let rd = optional(&a[5].0)
        .map(|v| sizes(t, v, a[5].1, "rhs_dilation"))
        .transpose()?;
    let dn = layouts(&a[6].0, a[6].1)?;
    let groups = t.static_int(&a[7].0, a[7].1, "feature_group_count")?;
    let groups = usize::try_from(groups).or_else(|_| {
        err(
            a[7].1,
            format!("conv_general_dilated feature_group_count must be a positive integer, got {groups}."),
        )
    })?;
    bind_conv(
        t,
        &c,
        lhs,
        rhs,
        &strides,
        &pad,
        ld.as_deref(),
        rd.as_deref(),
        dn.as_ref(),
        groups,
    )
}

/// `lax::conv(lhs, rhs, window_strides, padding)`: NCHW / OIHW.
pub(crate) fn conv(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(4)?;
    let (lhs, rhs) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let strides = sizes(t, &c.args[2].0, c.args[2].1, "window_strides")?;
    let pad = padding(t, &c.args[3].0, c.args[3].1)?;
    bind_conv(t, &c, lhs, rhs, &strides, &pad, None, None, None, 1)
}

/// `lax::conv_transpose(lhs, rhs, strides, padding, rhs_dilation,
/// dimension_numbers, transpose_kernel)`, as JAX composes it: the kernel
/// flipped and its features swapped when asked, then a convolution of the
/// input dilated by `strides`.
pub(crate) fn conv_transpose(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(7)?;
    let (lhs, mut rhs) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let a = &c.args;
    let strides = sizes(t, &a[2].0, a[2].1, "strides")?;
    let pad = padding(t, &a[3].0, a[3].1)?;
    let rd = optional(&a[4].0)
        .map(|v| sizes(t, v, a[4].1, "rhs_dilation"))
        .transpose()?;
    let rank = t.b.aval(&lhs).rank();
    let dn = match layouts(&a[5].0, a[5].1)? {
        Some(dn) => dn,
        None => match conv_transpose_layouts(rank) {
            Ok((l, r, o)) => [l.into(), r.into(), o.into()],
            Err(e) => return call_err(c.span, e),
        },
    };
    let Value::Static(crate::ir::Scalar::Bool(flip)) = a[6].0 else {
        return err(a[6].1, "transpose_kernel must be `true` or `false`");
    };
    let [_, rp, _] = match conv_permutations(rank, Some((&dn[0], &dn[1], &dn[2]))) {
        Ok(p) => p,
        Err(e) => return call_err(c.span, e),
    };
    let nsp = rank.saturating_sub(2);
    if strides.len() != nsp {
        return err(
            a[2].1,
            format!(
                "conv_transpose needs one stride per spatial axis ({nsp}), got {}",
                strides.len()
            ),
        );
    }
    let ones = vec![1; nsp];
    let rdil = rd.clone().unwrap_or_else(|| ones.clone());
    let pads = match &pad {
        Padding::Explicit(p) => p.clone(),
        Padding::SameLower => {
            return err(
                a[3].1,
                "conv_transpose: padding must be 'SAME', 'VALID' or explicit pairs",
            )
        }
        p => {
            let rs = static_shape(t, &rhs);
            (0..nsp.min(rdil.len()))
                .map(|d| conv_transpose_padding(dilate_dim(rs[rp[2 + d]], rdil[d]), strides[d], p))
                .collect()
        }
    };
    if flip {
        for &axis in &rp[2..] {
            rhs = t.at(c.span).rev(rhs, vec![axis])?;
        }
        let mut perm: Vec<usize> = (0..rank).collect();
        perm.swap(rp[0], rp[1]);
        rhs = t.at(c.span).transpose(rhs, perm)?;
    }
    bind_conv(
        t,
        &c,
        lhs,
        rhs,
        &ones,
        &Padding::Explicit(pads),
        Some(&strides),
        rd.as_deref(),
        Some(&dn),
        1,
    )
}
