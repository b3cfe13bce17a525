//! Elementwise primitives with parameters or their own signature: `round`
//! (its rounding method), `static_value` (a const generic's value),
//! `integer_pow` (a static exponent), `convert_element_type` (the new
//! dtype) and `select_n` (a predicate and cases), each with all its rules.

use super::*;
use crate::ir::rules::single_ct;
use crate::prims::TransposeRule;

/// `round`: half away from zero (`rounding_method=0`, `lax.round`'s default)
/// or half to even (`1`, `jnp.round`).
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
    print_params: |_, p| {
        let method = match p {
            Params::Rounding(m) => *m,
            _ => 0,
        };
        vec![("rounding_method", method.to_string())]
    },
    parse_params: |r, _, _| {
        let m = r.int("rounding_method")?;
        u8::try_from(m)
            .ok()
            .filter(|m| *m <= 1)
            .map(Params::Rounding)
            .ok_or_else(|| format!("unknown rounding_method {m}"))
    },
    lowering: Lowering::Elementwise,
    jvp: ZERO,
    transpose: None,
    scalar: Some(round_scalar),
    // One operand: the lanes stay where they are.
    batch: Some(broadcasting_batch),
    ..PrimDef::BASE
};

/// A number rustc knows when the function compiles and the tracer does
/// not (a const generic `N`, `N as f32`, `N * 2`): no operands, a weakly
/// typed scalar, as JAX would have the static value as a Python scalar.
pub static STATIC_VALUE: PrimDef = PrimDef {
    name: "static_value",
    abstract_eval: |_, p, _| match p {
        Params::Symbol { dtype, .. } => Ok(vec![Aval::scalar(*dtype, true)]),
        _ => Err("static_value needs its expression".into()),
    },
    print_params: |_, p| match p {
        Params::Symbol { expr, .. } => vec![("value", expr.clone())],
        _ => Vec::new(),
    },
    // A Rust expression of const generics: an imported function declares
    // them (`fn f<const N: usize>(..)`), as its symbolic shapes need.
    parse_params: |r, _, outs| {
        let expr = r.raw("value").ok_or("`static_value` needs its `value`")?;
        if crate::ir::rust_expr::classify(&expr).is_none() {
            return Err(format!(
                "`static_value`'s value `{expr}` is not a Rust expression"
            ));
        }
        let dtype = match outs {
            [a] => a.dtype,
            _ => return Err("`static_value` has one result".into()),
        };
        Ok(Params::Symbol { expr, dtype })
    },
    lowering: Lowering::Elementwise,
    jvp: ZERO,
    transpose: None,
    scalar: Some(static_value_scalar),
    ..PrimDef::BASE
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
    parse_params: |r, _, _| {
        let y = r.int("y")?;
        i64::try_from(y)
            .map(Params::IntegerPow)
            .map_err(|_| format!("integer_pow's y={y} is out of range"))
    },
    lowering: Lowering::Elementwise,
    jvp: Some(integer_pow_jvp as JvpRule),
    transpose: None,
    work: 4,
    scalar: Some(integer_pow_scalar),
    // One operand: the lanes stay where they are.
    batch: Some(broadcasting_batch),
    ..PrimDef::BASE
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
    parse_params: |r, _, _| {
        Ok(Params::Convert {
            new_dtype: r.dtype("new_dtype")?,
            weak: r.bool("weak_type")?,
        })
    },
    lowering: Lowering::Elementwise,
    jvp: Some(convert_jvp as JvpRule),
    transpose: Some(convert_transpose as TransposeRule),
    forward: Some(forward_same_type),
    scalar: Some(convert_scalar),
    // One operand: the lanes stay where they are.
    batch: Some(broadcasting_batch),
    ..PrimDef::BASE
};

/// `select_n(which, *cases)`: the case chosen by a bool (false, true) or an
/// integer index, per element.
pub static SELECT_N: PrimDef = PrimDef {
    name: "select_n",
    abstract_eval: |ops, _, c| {
        let (which, cases) = ops.split_first().ok_or("select_n needs a predicate")?;
        if cases.is_empty() {
            return Err("select_n needs at least one case".into());
        }
        // JAX's `_select_dtype_rule`.
        if which.dtype != DType::Bool && !which.dtype.is_integer() {
            return Err(format!(
                "select `which` must be boolean or integer type, got {}.",
                which.dtype.name()
            ));
        }
        if which.dtype == DType::Bool && cases.len() > 2 {
            return Err("select with boolean `which` cannot have > 2 cases.".into());
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
    jvp: Some(select_jvp as JvpRule),
    transpose: Some(select_transpose as TransposeRule),
    scalar: Some(select_n_scalar),
    batch: Some(select_batch),
    ..PrimDef::BASE
};

fn integer_pow_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::IntegerPow(n) = p else {
        unreachable!()
    };
    let x = ins[0].clone();
    let factor = match *n {
        0 => return Ok(vec![None]),
        1 => ad.lit(1.0, &x),
        n => {
            let pw = if n == 2 {
                x.clone()
            } else {
                ad.bind(&INTEGER_POW, Params::IntegerPow(n - 1), vec![x.clone()])?
            };
            let k = ad.lit(n as f64, &x);
            ad.mul(k, pw)?
        }
    };
    Ok(vec![ad.scale(&t[0], factor)?])
}

fn convert_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Convert { new_dtype, .. } = p else {
        unreachable!()
    };
    if !new_dtype.is_inexact() || !ad.aval(&ins[0]).dtype.is_inexact() {
        return Ok(vec![None]);
    }
    Ok(vec![match &t[0] {
        Some(t) => Some(ad.convert(t.clone(), *new_dtype)?),
        None => None,
    }])
}

fn convert_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = single_ct(cts);
    Ok(vec![Some(ad.convert(ct, avals[0].dtype)?)])
}

fn select_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if t[1..].iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let out = crate::ir::rules::tangent_aval(&ad.aval(&outs[0]));
    let mut cases = vec![ins[0].clone()];
    for tc in &t[1..] {
        cases.push(match tc {
            Some(tc) => tc.clone(),
            None => ad.zeros(&out)?,
        });
    }
    Ok(vec![Some(ad.bind(&SELECT_N, Params::None, cases)?)])
}

fn select_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = single_ct(cts);
    let which = ins[0].clone().ok_or("select_n's predicate is not linear")?;
    let ct_aval = ad.aval(&ct);
    let zeros = ad.zeros(&ct_aval)?;
    let mut out = vec![None];
    for k in 1..ins.len() {
        if ins[k].is_some() {
            out.push(None);
            continue;
        }
        let mut cases = vec![which.clone()];
        for j in 1..ins.len() {
            cases.push(if j == k { ct.clone() } else { zeros.clone() });
        }
        let c = ad.bind(&SELECT_N, Params::None, cases)?;
        out.push(Some(ad.unbroadcast(c, &avals[k])?));
    }
    Ok(out)
}

/// `round`'s runtime function: half away from zero, or half to even.
fn round_scalar(p: &Params, args: &[TokenStream]) -> TokenStream {
    let x = &args[0];
    match p {
        Params::Rounding(1) => quote!(::jax::__rt::ops::round_even(#x)),
        _ => quote!(::jax::__rt::ops::round(#x)),
    }
}

/// The Rust expression of a `static_value`, in its dtype.
fn static_value_scalar(p: &Params, _: &[TokenStream]) -> TokenStream {
    let Params::Symbol { expr, dtype } = p else {
        unreachable!("static_value carries Params::Symbol")
    };
    let e: TokenStream = expr.parse().expect("a Rust expression the tracer wrote");
    let ty = crate::ir::rust_type(*dtype);
    quote!(((#e) as #ty))
}

fn integer_pow_scalar(p: &Params, args: &[TokenStream]) -> TokenStream {
    let Params::IntegerPow(y) = p else {
        unreachable!("integer_pow carries Params::IntegerPow")
    };
    let (x, y) = (&args[0], *y as i32);
    quote!(::jax::__rt::ops::integer_pow(#x, #y))
}

/// XLA's conversion (saturating float to int, NaN to 0) to the new dtype.
fn convert_scalar(p: &Params, args: &[TokenStream]) -> TokenStream {
    let Params::Convert { new_dtype, .. } = p else {
        unreachable!("convert_element_type carries Params::Convert")
    };
    let (x, to) = (&args[0], crate::ir::rust_type(*new_dtype));
    quote!(::jax::__rt::ops::convert::<_, #to>(#x))
}

/// `select_n` of two cases is `select`; more go through an array.
fn select_n_scalar(_: &Params, args: &[TokenStream]) -> TokenStream {
    let (which, cases) = (&args[0], &args[1..]);
    if let [f, t] = cases {
        quote!(::jax::__rt::ops::select(#which, #f, #t))
    } else {
        quote!(::jax::__rt::ops::select_n(#which, [#(#cases),*]))
    }
}
/// A conversion to the operand's own type is the operand.
fn forward_same_type<'a>(
    j: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    crate::prims::same_type(j, e, &e.ins[0]).then(|| e.ins[0].clone())
}

/// `x` placed in `shape` with its axes at `dims` (`lax.broadcast_in_dim`).
fn place(bx: &mut Batch, x: Atom, shape: &[crate::ir::Dim], dims: &[usize]) -> Res<Atom> {
    crate::prims::broadcast_dims(bx, x, shape, dims)
}

/// The number of lanes, from the first batched operand.
fn lanes(bx: &Batch, ins: &[Atom], dims: &[BDim]) -> crate::ir::Dim {
    ins.iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|d| bx.aval(x).shape[d].clone()))
        .unwrap_or_else(|| bx.size.clone())
}

/// `select_n` batched as JAX's `_select_batch_rule`: as it is when the
/// predicate and the cases agree on the batch axis (a predicate scalar per
/// lane placed along it), or when a shared scalar predicate picks among
/// cases batched alike; else everything with the batch axis first.
fn select_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], _: &Params) -> Res<Vec<(Atom, BDim)>> {
    let (which, cases) = (ins[0].clone(), &ins[1..]);
    let (wd, cds) = (dims[0], &dims[1..]);
    let size = lanes(bx, ins, dims);
    let shape = |bx: &Batch, x: &Atom| bx.aval(x).shape;
    if cds.iter().all(|d| *d == wd) {
        let c0 = shape(bx, &cases[0]);
        let which = if shape(bx, &which) == c0 {
            which
        } else {
            let d = wd.expect("a batched operand");
            place(bx, which, &c0, &[d])?
        };
        let mut args = vec![which];
        args.extend(cases.iter().cloned());
        return Ok(vec![(bx.bind(&SELECT_N, Params::None, args)?, wd)]);
    }
    if bx.aval(&which).rank() == 0 && cds.iter().all(Option::is_some) {
        let d0 = cds[0];
        if cds.iter().all(|d| *d == d0) {
            let mut args = vec![which];
            args.extend(cases.iter().cloned());
            return Ok(vec![(bx.bind(&SELECT_N, Params::None, args)?, d0)]);
        }
        let c0 = shape(bx, &cases[0]);
        if cases.iter().all(|c| shape(bx, c) == c0) {
            let d0 = d0.expect("checked");
            let mut args = vec![which, cases[0].clone()];
            for (c, d) in cases[1..].iter().zip(&cds[1..]) {
                args.push(bx.moveaxis(c.clone(), d.expect("checked"), d0)?);
            }
            return Ok(vec![(bx.bind(&SELECT_N, Params::None, args)?, Some(d0))]);
        }
    }
    let mut which = if bx.aval(&which).rank() > 0 {
        bx.at_front(which, wd, size.clone())?
    } else {
        which
    };
    let mut cases = cases.to_vec();
    if !cases.iter().all(|c| bx.aval(c).rank() == 0) {
        for (c, d) in cases.iter_mut().zip(cds) {
            // A shared scalar case (our derivative rules write literals
            // where JAX's would broadcast them) broadcasts as it is.
            if d.is_some() || bx.aval(c).rank() > 0 {
                *c = bx.at_front(c.clone(), *d, size.clone())?;
            }
        }
    }
    let widest = (0..cases.len())
        .max_by_key(|&k| bx.aval(&cases[k]).rank())
        .expect("select_n has cases");
    let (wr, cr) = (bx.aval(&which).rank(), bx.aval(&cases[widest]).rank());
    if 0 < wr && wr < cr {
        let c0 = shape(bx, &cases[widest]);
        which = place(bx, which, &c0, &[0])?;
    }
    if wr > cr {
        let w = shape(bx, &which);
        for c in cases.iter_mut() {
            let to: Vec<usize> = (w.len() - bx.aval(c).rank()..w.len()).collect();
            *c = place(bx, c.clone(), &w, &to)?;
        }
    }
    let mut args = vec![which];
    args.extend(cases);
    Ok(vec![(bx.bind(&SELECT_N, Params::None, args)?, Some(0))])
}

/// `clamp(lo, x, hi)` batched as JAX's `_clamp_batch_rule`: as it is when
/// the three agree on the batch axis (bounds scalar per lane placed along
/// it) or the bounds are scalars; else the batch axes first, scalar bounds
/// broadcast to `x`, per-lane bounds placed along the first axis.
pub(super) fn clamp_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    _: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (mut lo, mut x, mut hi) = (ins[0].clone(), ins[1].clone(), ins[2].clone());
    let (ld, xd, hd) = (dims[0], dims[1], dims[2]);
    let size = lanes(bx, ins, dims);
    let rank = |bx: &Batch, a: &Atom| bx.aval(a).rank();
    let clamp = |bx: &mut Batch, lo, x, hi| bx.bind(&super::CLAMP, Params::None, vec![lo, x, hi]);
    if ld == xd && xd == hd {
        let (ls, xs, hs) = (bx.aval(&lo).shape, bx.aval(&x).shape, bx.aval(&hi).shape);
        if (ls == xs && xs == hs) || (ls.is_empty() && hs.is_empty()) {
            return Ok(vec![(clamp(bx, lo, x, hi)?, xd)]);
        }
        if ls.len() == 1 && hs.len() == 1 {
            let (l, h) = (ld.expect("batched"), hd.expect("batched"));
            let lo = place(bx, lo, &xs, &[l])?;
            let hi = place(bx, hi, &xs, &[h])?;
            return Ok(vec![(clamp(bx, lo, x, hi)?, xd)]);
        }
    } else if rank(bx, &lo) == 0 && rank(bx, &hi) == 0 && xd.is_some() {
        return Ok(vec![(clamp(bx, lo, x, hi)?, xd)]);
    }
    if rank(bx, &lo) > 0 {
        lo = bx.at_front(lo, ld, size.clone())?;
    }
    if rank(bx, &hi) > 0 {
        hi = bx.at_front(hi, hd, size.clone())?;
    }
    if rank(bx, &x) > 0 {
        x = bx.at_front(x, xd, size)?;
    }
    let xs = bx.aval(&x).shape;
    // Scalar bounds first, then per-lane ones, as JAX's rule orders them.
    for b in [&mut lo, &mut hi] {
        if rank(bx, b) == 0 && !xs.is_empty() {
            *b = place(bx, b.clone(), &xs, &[])?;
        }
    }
    for b in [&mut lo, &mut hi] {
        let r = rank(bx, b);
        if 0 < r && r < xs.len() {
            *b = place(bx, b.clone(), &xs, &[0])?;
        }
    }
    let ls = bx.aval(&lo).shape;
    if ls.len() > xs.len() {
        x = place(bx, x, &ls, &[])?;
    }
    Ok(vec![(clamp(bx, lo, x, hi)?, Some(0))])
}
