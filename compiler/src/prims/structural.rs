//! Primitives that move, select or combine elements: broadcasts, reshapes,
//! transposes, slices, reductions, contractions.

use super::{tuple, Lowering, Params, PrimDef};
use super::{Ad, JvpRule, Res, TransposeRule};
use crate::ir::shapes::{fmt, same_dim};
use crate::ir::Atom;
use crate::ir::{Aval, Dim, Shape};

fn params_err(name: &str) -> String {
    format!("internal error: {name} got the wrong parameters")
}

fn dims_tuple(s: &Shape) -> String {
    tuple(&s.iter().map(|d| d.to_string()).collect::<Vec<_>>())
}

/// Places operand axis `i` at result axis `dims[i]`; every other result axis is new.
pub static BROADCAST_IN_DIM: PrimDef = PrimDef {
    name: "broadcast_in_dim",
    abstract_eval: |ops, p, c| {
        let Params::BroadcastInDim { shape, dims } = p else {
            return Err(params_err("broadcast_in_dim"));
        };
        let x = &ops[0];
        if dims.len() != x.rank() || dims.iter().any(|&d| d >= shape.len()) {
            return Err(format!(
                "broadcast_in_dim: cannot place the axes of {x} at {} in shape {}",
                tuple(dims),
                fmt(shape)
            ));
        }
        for (i, &d) in dims.iter().enumerate() {
            let ok = x.shape[i] == Dim::Lit(1)
                || same_dim(
                    &x.shape[i],
                    &shape[d],
                    &format!("cannot broadcast {x} to shape {}", fmt(shape)),
                    c,
                );
            if !ok {
                return Err(format!(
                    "Incompatible shapes for broadcasting: {x} to {}",
                    fmt(shape)
                ));
            }
        }
        Ok(vec![Aval {
            dtype: x.dtype,
            shape: shape.clone(),
            weak: x.weak,
        }])
    },
    // The shape is implied by the result's type, and an empty mapping is not shown.
    print_params: |_, p| match p {
        Params::BroadcastInDim { dims, .. } if !dims.is_empty() => {
            vec![("broadcast_dimensions", tuple(dims))]
        }
        _ => Vec::new(),
    },
    lowering: Lowering::IndexMap,
    jvp: same_op_jvp!(BROADCAST_IN_DIM),
    transpose: Some(broadcast_transpose as TransposeRule),
    ..PrimDef::BASE
};

/// Same elements in row-major order, another shape.
pub static RESHAPE: PrimDef = PrimDef {
    name: "reshape",
    abstract_eval: |ops, p, c| {
        let Params::Reshape { new_sizes } = p else {
            return Err(params_err("reshape"));
        };
        let x = &ops[0];
        let (la, sa) = crate::ir::shapes::size_parts(&x.shape);
        let (lb, sb) = crate::ir::shapes::size_parts(new_sizes);
        let mut sa_sorted = sa.clone();
        let mut sb_sorted = sb.clone();
        sa_sorted.sort();
        sb_sorted.sort();
        if sa.is_empty() && sb.is_empty() {
            if la != lb {
                return Err(format!(
                    "cannot reshape array of shape {} (size {la}) into shape {} (size {lb})",
                    fmt(&x.shape),
                    fmt(new_sizes)
                ));
            }
        } else if !(la == lb && sa_sorted == sb_sorted) {
            // Sizes with symbols: rustc checks the products.
            c.equal.push((
                Dim::Sym(product_expr(la, &sa)),
                Dim::Sym(product_expr(lb, &sb)),
                format!(
                    "cannot reshape array of shape {} into shape {}",
                    fmt(&x.shape),
                    fmt(new_sizes)
                ),
            ));
        }
        Ok(vec![Aval {
            dtype: x.dtype,
            shape: new_sizes.clone(),
            weak: x.weak,
        }])
    },
    print_params: |_, p| match p {
        Params::Reshape { new_sizes } => vec![
            ("dimensions", "None".into()),
            ("new_sizes", dims_tuple(new_sizes)),
            ("sharding", "None".into()),
        ],
        _ => Vec::new(),
    },
    lowering: Lowering::IndexMap,
    jvp: same_op_jvp!(RESHAPE),
    transpose: Some(reshape_back as TransposeRule),
    ..PrimDef::BASE
};

/// `2 * N * M` as a Rust expression.
fn product_expr(lit: usize, syms: &[String]) -> String {
    let mut parts = vec![lit.to_string()];
    parts.extend(syms.iter().cloned());
    parts.join(" * ")
}

/// A window at start indices known only at run time (one integer scalar
/// operand per axis after the array), clamped so the window fits, as XLA.
pub static DYNAMIC_SLICE: PrimDef = PrimDef {
    name: "dynamic_slice",
    abstract_eval: |ops, p, _| {
        let Params::DynamicSlice { sizes } = p else {
            return Err(params_err("dynamic_slice"));
        };
        let x = &ops[0];
        if ops.len() != x.rank() + 1 || sizes.len() != x.rank() {
            return Err(format!(
                "dynamic_slice of {x} needs one start index per axis"
            ));
        }
        if let Some(i) = ops[1..]
            .iter()
            .find(|i| i.rank() != 0 || !i.dtype.is_integer())
        {
            return Err(format!(
                "dynamic_slice start indices are integer scalars, got {i}"
            ));
        }
        for (d, &s) in x.shape.iter().zip(sizes) {
            if let Dim::Lit(n) = d {
                if s > *n {
                    return Err(format!(
                        "dynamic_slice window {} does not fit {x}",
                        tuple(sizes)
                    ));
                }
            }
        }
        Ok(vec![Aval {
            dtype: x.dtype,
            shape: sizes.iter().map(|&s| Dim::Lit(s)).collect(),
            weak: x.weak,
        }])
    },
    print_params: |_, p| match p {
        Params::DynamicSlice { sizes } => vec![("slice_sizes", tuple(sizes))],
        _ => Vec::new(),
    },
    lowering: Lowering::IndexMap,
    jvp: same_op_jvp!(DYNAMIC_SLICE),
    transpose: Some(dynamic_slice_transpose as TransposeRule),
    ..PrimDef::BASE
};

/// Permutes axes: result axis `i` is operand axis `perm[i]`.
pub static TRANSPOSE: PrimDef = PrimDef {
    name: "transpose",
    abstract_eval: |ops, p, _| {
        let Params::Transpose { perm } = p else {
            return Err(params_err("transpose"));
        };
        let x = &ops[0];
        let mut seen = perm.clone();
        seen.sort();
        if seen != (0..x.rank()).collect::<Vec<_>>() {
            return Err(format!(
                "transpose permutation isn't a permutation of operand dimensions, got permutation {} for operand shape {}",
                tuple(perm),
                fmt(&x.shape)
            ));
        }
        Ok(vec![Aval {
            dtype: x.dtype,
            shape: perm.iter().map(|&i| x.shape[i].clone()).collect(),
            weak: x.weak,
        }])
    },
    print_params: |_, p| match p {
        Params::Transpose { perm } => vec![("permutation", tuple(perm))],
        _ => Vec::new(),
    },
    lowering: Lowering::IndexMap,
    jvp: same_op_jvp!(TRANSPOSE),
    transpose: Some(transpose_transpose as TransposeRule),
    forward: Some(transpose_of_transpose),
    ..PrimDef::BASE
};

/// A transpose of a transpose whose permutations compose to the identity
/// is the inner one's operand.
fn transpose_of_transpose<'a>(
    _: &'a crate::ir::Jaxpr,
    e: &'a crate::ir::Eqn,
    producer: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Atom> {
    let (Params::Transpose { perm }, [Atom::Var(x)]) = (&e.params, e.ins.as_slice()) else {
        return None;
    };
    let inner = producer(*x)?;
    let (Params::Transpose { perm: p0 }, [src]) = (&inner.params, inner.ins.as_slice()) else {
        return None;
    };
    perm.iter()
        .enumerate()
        .all(|(i, &k)| p0[k] == i)
        .then(|| src.clone())
}

/// Removes size-1 axes.
pub static SQUEEZE: PrimDef = PrimDef {
    name: "squeeze",
    abstract_eval: |ops, p, _| {
        let Params::Squeeze { dims } = p else {
            return Err(params_err("squeeze"));
        };
        let x = &ops[0];
        for &d in dims {
            if x.shape.get(d) != Some(&Dim::Lit(1)) {
                return Err(format!(
                    "cannot select an axis to squeeze out which has size not equal to one, got shape={} and dimensions={}",
                    fmt(&x.shape),
                    tuple(dims)
                ));
            }
        }
        let shape = (0..x.rank())
            .filter(|i| !dims.contains(i))
            .map(|i| x.shape[i].clone())
            .collect();
        Ok(vec![Aval {
            dtype: x.dtype,
            shape,
            weak: x.weak,
        }])
    },
    print_params: |_, p| match p {
        Params::Squeeze { dims } => vec![("dimensions", tuple(dims))],
        _ => Vec::new(),
    },
    lowering: Lowering::IndexMap,
    jvp: same_op_jvp!(SQUEEZE),
    transpose: Some(reshape_back as TransposeRule),
    ..PrimDef::BASE
};

/// A static strided window.
pub static SLICE: PrimDef = PrimDef {
    name: "slice",
    abstract_eval: |ops, p, _| {
        let Params::Slice {
            start,
            limit,
            strides,
        } = p
        else {
            return Err(params_err("slice"));
        };
        let x = &ops[0];
        let mut shape = Vec::with_capacity(x.rank());
        for k in 0..x.rank() {
            let step = strides.as_ref().map_or(1, |s| s[k]);
            let Dim::Lit(n) = x.shape[k] else {
                return Err(format!(
                    "slice of an axis with symbolic size {} is not supported",
                    x.shape[k]
                ));
            };
            if start[k] > limit[k] || limit[k] > n || step == 0 {
                return Err(format!(
                    "slice start_indices {} and limit_indices {} do not fit operand shape {}",
                    tuple(start),
                    tuple(limit),
                    fmt(&x.shape)
                ));
            }
            shape.push(Dim::Lit((limit[k] - start[k]).div_ceil(step)));
        }
        Ok(vec![Aval {
            dtype: x.dtype,
            shape,
            weak: x.weak,
        }])
    },
    print_params: |_, p| match p {
        Params::Slice {
            start,
            limit,
            strides,
        } => vec![
            ("limit_indices", tuple(limit)),
            ("start_indices", tuple(start)),
            (
                "strides",
                strides.as_ref().map_or("None".into(), |s| tuple(s)),
            ),
        ],
        _ => Vec::new(),
    },
    lowering: Lowering::IndexMap,
    jvp: same_op_jvp!(SLICE),
    transpose: Some(slice_transpose as TransposeRule),
    ..PrimDef::BASE
};

fn reduce_eval(name: &str, ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Axes(axes) = p else {
        return Err(params_err(name));
    };
    let x = &ops[0];
    if let Some(a) = axes.iter().find(|&&a| a >= x.rank()) {
        return Err(format!("{name}: axis {a} is out of bounds for {x}"));
    }
    let shape = (0..x.rank())
        .filter(|i| !axes.contains(i))
        .map(|i| x.shape[i].clone())
        .collect();
    Ok(vec![Aval {
        dtype: x.dtype,
        shape,
        weak: x.weak,
    }])
}

macro_rules! reduction {
    ($($id:ident = $name:literal, out_sharding: $sharding:literal, $jvp:expr, $transpose:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| reduce_eval($name, ops, p),
            print_params: |_, p| {
                let mut v = match p {
                    Params::Axes(a) => vec![("axes", tuple(a))],
                    _ => Vec::new(),
                };
                if $sharding {
                    v.push(("out_sharding", "None".into()));
                }
                v
            },
            lowering: Lowering::Reduce,
            jvp: $jvp,
            transpose: $transpose,
            ..PrimDef::BASE
        };
    )*};
}

reduction! {
    REDUCE_SUM = "reduce_sum", out_sharding: true, same_op_jvp!(REDUCE_SUM), Some(reduce_sum_transpose as TransposeRule);
    REDUCE_MAX = "reduce_max", out_sharding: false, Some(chooser_jvp as JvpRule), None;
    REDUCE_MIN = "reduce_min", out_sharding: false, Some(chooser_jvp as JvpRule), None;
    REDUCE_PROD = "reduce_prod", out_sharding: true, Some(reduce_prod_jvp as JvpRule), None;
    REDUCE_AND = "reduce_and", out_sharding: false, Some(super::zero_jvp), None;
    REDUCE_OR = "reduce_or", out_sharding: false, Some(super::zero_jvp), None;
}

fn arg_reduce_eval(name: &str, ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::ArgReduce { axis, index_dtype } = p else {
        return Err(params_err(name));
    };
    let x = &ops[0];
    if *axis >= x.rank() {
        return Err(format!("{name}: axis {axis} is out of bounds for {x}"));
    }
    let shape = (0..x.rank())
        .filter(|i| i != axis)
        .map(|i| x.shape[i].clone())
        .collect();
    Ok(vec![Aval {
        dtype: *index_dtype,
        shape,
        weak: false,
    }])
}

fn arg_reduce_params(p: &Params) -> Vec<(&'static str, String)> {
    match p {
        Params::ArgReduce { axis, index_dtype } => vec![
            ("axes", tuple(&[*axis])),
            ("index_dtype", index_dtype.name().into()),
        ],
        _ => Vec::new(),
    }
}

/// The index of the largest element along an axis (the first of equals; NaN is largest).
pub static ARGMAX: PrimDef = PrimDef {
    name: "argmax",
    abstract_eval: |ops, p, _| arg_reduce_eval("argmax", ops, p),
    print_params: |_, p| arg_reduce_params(p),
    lowering: Lowering::Reduce,
    jvp: Some(super::zero_jvp),
    transpose: None,
    ..PrimDef::BASE
};

/// The index of the smallest element along an axis.
pub static ARGMIN: PrimDef = PrimDef {
    name: "argmin",
    abstract_eval: |ops, p, _| arg_reduce_eval("argmin", ops, p),
    print_params: |_, p| arg_reduce_params(p),
    lowering: Lowering::Reduce,
    jvp: Some(super::zero_jvp),
    transpose: None,
    ..PrimDef::BASE
};

/// Joins arrays along an axis.
pub static CONCATENATE: PrimDef = PrimDef {
    name: "concatenate",
    abstract_eval: |ops, p, c| {
        let Params::Concatenate { dim } = p else {
            return Err(params_err("concatenate"));
        };
        let first = &ops[0];
        let mut total = 0usize;
        for op in ops {
            if op.rank() != first.rank() || op.dtype != first.dtype || *dim >= op.rank() {
                return Err(format!(
                    "Cannot concatenate arrays with different numbers of dimensions or dtypes: got {first} and {op}"
                ));
            }
            for k in (0..op.rank()).filter(|k| k != dim) {
                if !same_dim(
                    &op.shape[k],
                    &first.shape[k],
                    "concatenated arrays must match off the axis",
                    c,
                ) {
                    return Err(format!(
                        "Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: {first} and {op}"
                    ));
                }
            }
            match op.shape[*dim] {
                Dim::Lit(n) => total += n,
                Dim::Sym(_) => {
                    return Err("concatenate along a symbolic axis is not supported".into())
                }
            }
        }
        let mut shape = first.shape.clone();
        shape[*dim] = Dim::Lit(total);
        Ok(vec![Aval {
            dtype: first.dtype,
            shape,
            weak: ops.iter().all(|o| o.weak),
        }])
    },
    print_params: |_, p| match p {
        Params::Concatenate { dim } => vec![("dimension", dim.to_string())],
        _ => Vec::new(),
    },
    lowering: Lowering::Kernel,
    jvp: Some(concatenate_jvp as JvpRule),
    transpose: Some(concatenate_transpose as TransposeRule),
    ..PrimDef::BASE
};

/// General contraction: batch axes, contracting axes, then the free axes of
/// the left and of the right operand.
pub static DOT_GENERAL: PrimDef = PrimDef {
    name: "dot_general",
    abstract_eval: |ops, p, c| {
        let Params::DotGeneral {
            lhs_contract,
            rhs_contract,
            lhs_batch,
            rhs_batch,
            preferred,
        } = p
        else {
            return Err(params_err("dot_general"));
        };
        let (l, r) = (&ops[0], &ops[1]);
        let picks = |x: &Aval, axes: &[usize]| -> Vec<Dim> {
            axes.iter().map(|&a| x.shape[a].clone()).collect()
        };
        let (lc, rc) = (picks(l, lhs_contract), picks(r, rhs_contract));
        let why = format!(
            "dot_general requires contracting dimensions to have the same shape, got {} and {}",
            fmt(&lc),
            fmt(&rc)
        );
        if lc.len() != rc.len() || !lc.iter().zip(&rc).all(|(a, b)| same_dim(a, b, &why, c)) {
            return Err(format!("{why} (from {l} and {r})"));
        }
        let (lb, rb) = (picks(l, lhs_batch), picks(r, rhs_batch));
        if lb.len() != rb.len()
            || !lb
                .iter()
                .zip(&rb)
                .all(|(a, b)| same_dim(a, b, "batch dims must match", c))
        {
            return Err(format!(
                "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got {} and {}",
                fmt(&lb),
                fmt(&rb)
            ));
        }
        let free = |x: &Aval, contract: &[usize], batch: &[usize]| -> Vec<Dim> {
            (0..x.rank())
                .filter(|i| !contract.contains(i) && !batch.contains(i))
                .map(|i| x.shape[i].clone())
                .collect()
        };
        let mut shape = lb.clone();
        shape.extend(free(l, lhs_contract, lhs_batch));
        shape.extend(free(r, rhs_contract, rhs_batch));
        Ok(vec![Aval {
            dtype: *preferred,
            shape,
            weak: false,
        }])
    },
    print_params: |_, p| match p {
        Params::DotGeneral {
            lhs_contract,
            rhs_contract,
            lhs_batch,
            rhs_batch,
            preferred,
        } => vec![
            (
                "dimension_numbers",
                format!(
                    "(({}, {}), ({}, {}))",
                    list(lhs_contract),
                    list(rhs_contract),
                    list(lhs_batch),
                    list(rhs_batch)
                ),
            ),
            ("preferred_element_type", preferred.name().into()),
        ],
        _ => Vec::new(),
    },
    lowering: Lowering::Kernel,
    jvp: Some(dot_general_jvp as JvpRule),
    transpose: Some(dot_general_transpose as TransposeRule),
    ..PrimDef::BASE
};

/// A Python list: `[1]`, `[]`, `[0, 1]`.
fn list(items: &[usize]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `scatter` (`x.at[i].set(v)`) and `scatter-add`/`-mul`/`-min`/`-max`:
/// operands are the array, the indices (`i32[k]`, one per leading axis) and
/// the update (a scalar, or an array of the window's shape). Out-of-bounds
/// indices drop the update, as JAX's default `FILL_OR_DROP` mode.
fn scatter_eval(name: &str, ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Scatter {
        inserted,
        window_rank,
        ..
    } = p
    else {
        return Err(params_err(name));
    };
    let (x, idx, upd) = (&ops[0], &ops[1], &ops[2]);
    if idx.shape != [Dim::Lit(*inserted)] || *inserted + *window_rank != x.rank() {
        return Err(format!("{name}: indices {idx} do not index {x}"));
    }
    if upd.dtype != x.dtype {
        return Err(format!(
            "{name}: the update {upd} must have the dtype of {x}"
        ));
    }
    if upd.rank() != 0 && upd.shape[..] != x.shape[*inserted..] {
        return Err(format!(
            "{name}: the update {upd} does not fit the window of {x}"
        ));
    }
    Ok(vec![x.clone()])
}

fn scatter_params(p: &Params, combine: Option<&str>) -> Vec<(&'static str, String)> {
    let Params::Scatter {
        inserted,
        window_rank,
        ..
    } = p
    else {
        return Vec::new();
    };
    let ins: Vec<usize> = (0..*inserted).collect();
    let win: Vec<usize> = (0..*window_rank).collect();
    vec![
        (
            "dimension_numbers",
            format!(
                "ScatterDimensionNumbers(update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={}, operand_batching_dims=(), scatter_indices_batching_dims=())",
                tuple(&win),
                tuple(&ins),
                tuple(&ins)
            ),
        ),
        ("indices_are_sorted", "True".into()),
        ("mode", "GatherScatterMode.FILL_OR_DROP".into()),
        ("unique_indices", "True".into()),
        ("update_consts", "()".into()),
        (
            "update_jaxpr",
            match combine {
                // The printer renders this as a one-equation jaxpr in its naming context.
                Some(op) => format!("{}{op}", crate::ir::print::SCALAR_JAXPR),
                None => "None".into(),
            },
        ),
    ]
}

macro_rules! scatter {
    ($($id:ident = $name:literal, $combine:expr, $jvp:expr, $transpose:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| scatter_eval($name, ops, p),
            print_params: |_, p| scatter_params(p, $combine),
            lowering: Lowering::Kernel,
            jvp: $jvp,
            transpose: $transpose,
            ..PrimDef::BASE
        };
    )*};
}

scatter! {
    SCATTER = "scatter", None, Some(scatter_set_jvp as JvpRule), Some(scatter_set_transpose as TransposeRule);
    SCATTER_ADD = "scatter-add", Some("add"), Some(scatter_add_jvp as JvpRule), Some(scatter_add_transpose as TransposeRule);
    SCATTER_MUL = "scatter-mul", Some("mul"), None, None;
    SCATTER_MIN = "scatter-min", Some("min"), None, None;
    SCATTER_MAX = "scatter-max", Some("max"), None, None;
}

/// `scatter` and `scatter-add` are linear in (operand, updates) together:
/// the same scatter of the tangents.
fn scatter_linear_jvp(
    prim: &'static PrimDef,
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    if t[0].is_none() && t[2].is_none() {
        return Ok(vec![None]);
    }
    let tx = ad.tangent_or_zeros(&t[0], &ins[0])?;
    let tu = ad.tangent_or_zeros(&t[2], &ins[2])?;
    Ok(vec![Some(ad.bind(
        prim,
        p.clone(),
        vec![tx, ins[1].clone(), tu],
    )?)])
}

fn scatter_set_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    scatter_linear_jvp(&SCATTER, ad, ins, t, p)
}

fn scatter_add_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    scatter_linear_jvp(&SCATTER_ADD, ad, ins, t, p)
}

fn scatter_set_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    scatter_transpose(true, ad, ct, ins, avals, p)
}

fn scatter_add_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    scatter_transpose(false, ad, ct, ins, avals, p)
}

/// The window a static scatter writes, as `(start, limit)` per axis, or
/// `None` when an index is out of bounds (the update is dropped).
fn scatter_window(p: &Params, x: &Aval) -> Res<Option<(Vec<usize>, Vec<usize>)>> {
    let Params::Scatter {
        inserted, indices, ..
    } = p
    else {
        unreachable!()
    };
    let mut start = Vec::new();
    let mut limit = Vec::new();
    for (k, d) in x.shape.iter().enumerate() {
        let Dim::Lit(n) = d else {
            return Err("reverse-mode differentiation of an update of a symbolic dimension is not supported yet".into());
        };
        if k < *inserted {
            let i = indices[k];
            let i = if i < 0 { i + *n as i128 } else { i };
            if i < 0 || i >= *n as i128 {
                return Ok(None);
            }
            start.push(i as usize);
            limit.push(i as usize + 1);
        } else {
            start.push(0);
            limit.push(*n);
        }
    }
    Ok(Some((start, limit)))
}

/// `scatter`/`scatter-add` transposed: the operand's cotangent is `ct`
/// (with the overwritten window zeroed, for `scatter`); the update's is the
/// window of `ct` (summed, for a broadcast scalar update).
fn scatter_transpose(
    overwrites: bool,
    ad: &mut Ad,
    ct: Atom,
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let (x, upd) = (&avals[0], &avals[2]);
    let window = scatter_window(p, x)?;
    let cx = match (&ins[0], overwrites) {
        (Some(_), _) => None,
        (None, false) => Some(ct.clone()),
        (None, true) => {
            let idx = ins[1].clone().ok_or("scatter indices are not linear")?;
            let zero = ad.lit(0.0, &ct);
            Some(ad.bind(&SCATTER, p.clone(), vec![ct.clone(), idx, zero])?)
        }
    };
    let cu = if ins[2].is_none() {
        Some(match &window {
            None => {
                let a = crate::ir::rules::tangent_aval(upd);
                ad.zeros(&a)?
            }
            Some((start, limit)) => {
                let w = ad.bind(
                    &SLICE,
                    Params::Slice {
                        start: start.clone(),
                        limit: limit.clone(),
                        strides: None,
                    },
                    vec![ct.clone()],
                )?;
                if upd.rank() == 0 {
                    let all: Vec<usize> = (0..x.rank()).collect();
                    ad.bind(&REDUCE_SUM, Params::Axes(all), vec![w])?
                } else {
                    reshape_to(ad, w, &upd.shape)?
                }
            }
        })
    } else {
        None
    };
    Ok(vec![cx, None, cu])
}

// ---------------------------------------------------------------------------
// Derivative rules. Every structural primitive but the reductions by max/min
// is linear in its array operand.
// ---------------------------------------------------------------------------

/// The jvp of a primitive linear in its first operand: the same primitive on
/// the tangent (other operands, such as indices, stay primal).
macro_rules! same_op_jvp {
    ($prim:ident) => {{
        fn rule(
            ad: &mut Ad,
            ins: &[Atom],
            t: &[Option<Atom>],
            p: &Params,
            _: &[Atom],
        ) -> Res<Vec<Option<Atom>>> {
            let Some(t0) = &t[0] else {
                return Ok(vec![None]);
            };
            let mut args = vec![t0.clone()];
            args.extend(ins[1..].iter().cloned());
            Ok(vec![Some(ad.bind(&$prim, p.clone(), args)?)])
        }
        Some(rule as JvpRule)
    }};
}
use same_op_jvp;

/// `broadcast_in_dim`: sum the cotangent over the new axes and the expanded
/// size-1 axes, then reshape to the operand.
fn broadcast_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::BroadcastInDim { shape, dims } = p else {
        unreachable!()
    };
    let operand = &avals[0];
    let one = Dim::Lit(1);
    let axes: Vec<usize> = (0..shape.len())
        .filter(|k| match dims.iter().position(|d| d == k) {
            None => true,
            Some(i) => operand.shape[i] == one && shape[*k] != one,
        })
        .collect();
    let summed = if axes.is_empty() {
        ct
    } else {
        ad.bind(&REDUCE_SUM, Params::Axes(axes), vec![ct])?
    };
    Ok(vec![Some(reshape_to(ad, summed, &operand.shape)?)])
}

fn reshape_to(ad: &mut Ad, x: Atom, shape: &[Dim]) -> Res<Atom> {
    if ad.aval(&x).shape == shape {
        return Ok(x);
    }
    ad.bind(
        &RESHAPE,
        Params::Reshape {
            new_sizes: shape.to_vec(),
        },
        vec![x],
    )
}

/// `reshape`, `squeeze`: the cotangent reshaped to the operand.
fn reshape_back(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    Ok(vec![Some(reshape_to(ad, ct, &avals[0].shape)?)])
}

fn transpose_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Transpose { perm } = p else {
        unreachable!()
    };
    let mut inverse = vec![0; perm.len()];
    for (i, &d) in perm.iter().enumerate() {
        inverse[d] = i;
    }
    Ok(vec![Some(ad.bind(
        &TRANSPOSE,
        Params::Transpose { perm: inverse },
        vec![ct],
    )?)])
}

/// `dynamic_slice` with windows of the whole axis or of one element (what
/// `x.at(i).get()` with a traced `i` traces to): the cotangent broadcast to
/// the operand and kept where each one-element axis equals its (clamped)
/// start, as an equality with a constant `0..n`.
fn dynamic_slice_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::DynamicSlice { sizes } = p else {
        unreachable!()
    };
    let x = &avals[0];
    let full = Aval {
        weak: false,
        ..x.clone()
    };
    let spread = ad.bind(
        &BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: x.shape.clone(),
            dims: (0..x.rank()).collect(),
        },
        vec![ct.clone()],
    )?;
    let mut keep: Option<Atom> = None;
    for (k, (d, &size)) in x.shape.iter().zip(sizes).enumerate() {
        let Dim::Lit(n) = *d else {
            return Err("reverse-mode differentiation of a traced index into a symbolic dimension is not supported yet".into());
        };
        if size == n {
            continue;
        }
        if size != 1 {
            return Err("reverse-mode differentiation of a dynamic_slice wider than one element is not supported yet".into());
        }
        let start = ins[k + 1]
            .clone()
            .ok_or("dynamic_slice indices are not linear")?;
        let d_idx = ad.aval(&start).dtype;
        let (lo, hi) = (ad.lit(0.0, &start), ad.lit((n - 1) as f64, &start));
        let start = ad.bind(&super::CLAMP, Params::None, vec![lo, start, hi])?;
        let positions = ad.b.constant(
            Aval {
                dtype: d_idx,
                shape: vec![Dim::Lit(n)],
                weak: false,
            },
            (0..n).map(|i| crate::ir::Scalar::Int(i as i128)).collect(),
        );
        let positions = ad.bind(
            &BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape: x.shape.clone(),
                dims: vec![k],
            },
            vec![positions],
        )?;
        let hit = ad.bin(&super::EQ, positions, start)?;
        keep = Some(match keep {
            None => hit,
            Some(prev) => ad.bin(&super::AND, prev, hit)?,
        });
    }
    let out = match keep {
        None => spread,
        Some(mask) => {
            let zeros = ad.zeros(&full)?;
            ad.select(mask, zeros, spread)?
        }
    };
    let mut cts = vec![Some(out)];
    cts.extend(std::iter::repeat_n(None, ins.len() - 1));
    Ok(cts)
}

/// `reduce_sum`: the cotangent broadcast back over the reduced axes.
fn reduce_sum_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Axes(axes) = p else {
        unreachable!()
    };
    let operand = &avals[0];
    let dims: Vec<usize> = (0..operand.rank()).filter(|k| !axes.contains(k)).collect();
    Ok(vec![Some(ad.bind(
        &BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: operand.shape.clone(),
            dims,
        },
        vec![ct],
    )?)])
}

/// `reduce_max`/`reduce_min`: the tangent averaged over the positions that
/// attain the extreme (ties share it equally), as JAX's chooser rule.
fn chooser_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Axes(axes) = p else {
        unreachable!()
    };
    let Some(t0) = &t[0] else {
        return Ok(vec![None]);
    };
    let x = &ins[0];
    let xa = ad.aval(x);
    let dims: Vec<usize> = (0..xa.rank()).filter(|k| !axes.contains(k)).collect();
    let ans = ad.bind(
        &BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: xa.shape.clone(),
            dims,
        },
        vec![outs[0].clone()],
    )?;
    let hit = ad.bin(&super::EQ, x.clone(), ans)?;
    let hit = ad.convert(hit, xa.dtype)?;
    let counts = ad.bind(&REDUCE_SUM, Params::Axes(axes.clone()), vec![hit.clone()])?;
    let picked = ad.mul(t0.clone(), hit)?;
    let summed = ad.bind(&REDUCE_SUM, Params::Axes(axes.clone()), vec![picked])?;
    Ok(vec![Some(ad.div(summed, counts)?)])
}

/// `reduce_prod`: each element's tangent times the product of the others,
/// exact where elements are zero (the product of the others is not the
/// product divided by a zero): with no zero in a reduced group, `prod / x`;
/// with one, that element gets the product of the rest and the others 0;
/// with two or more, everything is 0.
fn reduce_prod_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Axes(axes) = p else {
        unreachable!()
    };
    let Some(t0) = &t[0] else {
        return Ok(vec![None]);
    };
    let x = ins[0].clone();
    let xa = ad.aval(&x);
    let dims: Vec<usize> = (0..xa.rank()).filter(|k| !axes.contains(k)).collect();
    let back = |ad: &mut Ad, v: Atom| {
        ad.bind(
            &BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape: xa.shape.clone(),
                dims: dims.clone(),
            },
            vec![v],
        )
    };
    let (zero, one) = (ad.lit(0.0, &x), ad.lit(1.0, &x));
    let is_zero = ad.bin(&super::EQ, x.clone(), zero.clone())?;
    let safe = ad.select(is_zero.clone(), x.clone(), one.clone())?;
    let others_nonzero = ad.bind(&REDUCE_PROD, Params::Axes(axes.clone()), vec![safe.clone()])?;
    let zeros_f = ad.convert(is_zero.clone(), xa.dtype)?;
    let count = ad.bind(&REDUCE_SUM, Params::Axes(axes.clone()), vec![zeros_f])?;
    let (p, count) = (back(ad, others_nonzero)?, back(ad, count)?);
    let none = ad.bin(&super::EQ, count.clone(), zero.clone())?;
    let one_zero = ad.bin(&super::EQ, count, one)?;
    let divided = ad.div(p.clone(), safe)?;
    let this_one = ad.bin(&super::AND, one_zero, is_zero)?;
    let lone = ad.select(this_one, zero, p)?;
    let factor = ad.select(none, lone, divided)?;
    let terms = ad.mul(t0.clone(), factor)?;
    Ok(vec![Some(ad.bind(
        &REDUCE_SUM,
        Params::Axes(axes.clone()),
        vec![terms],
    )?)])
}

/// `slice` (unit strides): the cotangent padded with zeros back to the
/// operand's shape, one axis at a time, by concatenation.
fn slice_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Slice {
        start,
        limit,
        strides,
    } = p
    else {
        unreachable!()
    };
    if strides.as_ref().is_some_and(|s| s.iter().any(|&k| k != 1)) {
        return Err("reverse-mode differentiation of a strided slice is not supported yet".into());
    }
    let operand = &avals[0];
    let mut x = ct;
    for axis in 0..operand.rank() {
        let Dim::Lit(n) = operand.shape[axis] else {
            return Err("reverse-mode differentiation of a slice of a symbolic dimension is not supported yet".into());
        };
        let (lo, hi) = (start[axis], limit[axis]);
        if lo == 0 && hi == n {
            continue;
        }
        let mut parts = Vec::new();
        let cur = ad.aval(&x);
        for (from, to) in [(0, lo), (hi, n)] {
            if to > from {
                let mut shape = cur.shape.clone();
                shape[axis] = Dim::Lit(to - from);
                parts.push((
                    from,
                    ad.zeros(&Aval {
                        shape,
                        ..cur.clone()
                    })?,
                ));
            }
        }
        let mut ordered: Vec<Atom> = Vec::new();
        if let Some((_, z)) = parts.iter().find(|(f, _)| *f == 0) {
            ordered.push(z.clone());
        }
        ordered.push(x.clone());
        if let Some((_, z)) = parts.iter().find(|(f, _)| *f != 0) {
            ordered.push(z.clone());
        }
        x = ad.bind(&CONCATENATE, Params::Concatenate { dim: axis }, ordered)?;
    }
    Ok(vec![Some(x)])
}

fn concatenate_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if t.iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let mut parts = Vec::new();
    for (x, tx) in ins.iter().zip(t) {
        parts.push(ad.tangent_or_zeros(tx, x)?);
    }
    Ok(vec![Some(ad.bind(&CONCATENATE, p.clone(), parts)?)])
}

/// `concatenate`: each linear operand's slice of the cotangent.
fn concatenate_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Concatenate { dim } = p else {
        unreachable!()
    };
    let ct_aval = ad.aval(&ct);
    let mut offset = 0usize;
    let mut out = Vec::new();
    for (x, aval) in ins.iter().zip(avals) {
        let Dim::Lit(n) = aval.shape[*dim] else {
            return Err("reverse-mode differentiation of concatenate along a symbolic dimension is not supported yet".into());
        };
        if x.is_none() {
            let mut start = vec![0; ct_aval.rank()];
            let mut limit: Vec<usize> = Vec::new();
            for d in &ct_aval.shape {
                let Dim::Lit(d) = d else {
                    return Err("reverse-mode differentiation of concatenate with symbolic dimensions is not supported yet".into());
                };
                limit.push(*d);
            }
            start[*dim] = offset;
            limit[*dim] = offset + n;
            out.push(Some(ad.bind(
                &SLICE,
                Params::Slice {
                    start,
                    limit,
                    strides: None,
                },
                vec![ct.clone()],
            )?));
        } else {
            out.push(None);
        }
        offset += n;
    }
    Ok(out)
}

fn dot_general_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let (x, y) = (ins[0].clone(), ins[1].clone());
    let tx = match &t[0] {
        Some(tx) => Some(ad.bind(&DOT_GENERAL, p.clone(), vec![tx.clone(), y])?),
        None => None,
    };
    let ty = match &t[1] {
        Some(ty) => Some(ad.bind(&DOT_GENERAL, p.clone(), vec![x, ty.clone()])?),
        None => None,
    };
    Ok(vec![ad.sum(vec![tx, ty])?])
}

/// Consecutive index ranges of the given lengths.
fn ranges_like(lens: &[usize]) -> Vec<Vec<usize>> {
    let mut start = 0;
    lens.iter()
        .map(|&n| {
            let r = (start..start + n).collect();
            start += n;
            r
        })
        .collect()
}

/// JAX's `_dot_general_transpose_lhs`: the cotangent of `x` in
/// `dot_general(x, y)`, as a `dot_general` of the output cotangent with `y`
/// followed by a transpose into `x`'s axis order. `swap_ans` for the rhs.
#[allow(clippy::too_many_arguments)]
fn dot_transpose_lhs(
    ad: &mut Ad,
    ct: Atom,
    x_rank: usize,
    y: Atom,
    x_contract: &[usize],
    y_contract: &[usize],
    x_batch: &[usize],
    y_batch: &[usize],
    preferred: jax_dtypes::DType,
    swap_ans: bool,
) -> Res<Atom> {
    let y_rank = ad.aval(&y).rank();
    let remaining = |n: usize, a: &[usize], b: &[usize]| -> Vec<usize> {
        (0..n)
            .filter(|k| !a.contains(k) && !b.contains(k))
            .collect()
    };
    let x_kept = remaining(x_rank, x_contract, x_batch);
    let y_kept = remaining(y_rank, y_contract, y_batch);
    let (ans_batch, ans_y) = if swap_ans {
        let r = ranges_like(&[x_batch.len(), y_kept.len(), x_kept.len()]);
        (r[0].clone(), r[1].clone())
    } else {
        let r = ranges_like(&[x_batch.len(), x_kept.len(), y_kept.len()]);
        (r[0].clone(), r[2].clone())
    };
    let mut order: Vec<usize> = (0..y_contract.len()).collect();
    order.sort_by_key(|&i| y_contract[i]);
    let x_contract_sorted_by_y: Vec<usize> = order.iter().map(|&i| x_contract[i]).collect();
    let mut pre: Vec<usize> = x_batch.to_vec();
    pre.extend(&x_kept);
    pre.extend(&x_contract_sorted_by_y);
    let mut out_axes: Vec<usize> = (0..pre.len()).collect();
    out_axes.sort_by_key(|&i| pre[i]);
    // With the operands the other way round the result comes out as
    // batch, contracted-by-y, kept axes; when that is `x`'s own order, no
    // transpose is needed (a matmul's weight gradient `x^T @ ct`).
    let mut swapped: Vec<usize> = x_batch.to_vec();
    swapped.extend(&x_contract_sorted_by_y);
    swapped.extend(&x_kept);
    if swapped.iter().enumerate().all(|(i, &a)| i == a) {
        return ad.bind(
            &DOT_GENERAL,
            Params::DotGeneral {
                lhs_contract: y_kept,
                rhs_contract: ans_y,
                lhs_batch: y_batch.to_vec(),
                rhs_batch: ans_batch,
                preferred,
            },
            vec![y, ct],
        );
    }
    let d = ad.bind(
        &DOT_GENERAL,
        Params::DotGeneral {
            lhs_contract: ans_y,
            rhs_contract: y_kept,
            lhs_batch: ans_batch,
            rhs_batch: y_batch.to_vec(),
            preferred,
        },
        vec![ct, y],
    )?;
    if out_axes.iter().enumerate().all(|(i, &a)| i == a) {
        Ok(d)
    } else {
        ad.bind(&TRANSPOSE, Params::Transpose { perm: out_axes }, vec![d])
    }
}

fn dot_general_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::DotGeneral {
        lhs_contract,
        rhs_contract,
        lhs_batch,
        rhs_batch,
        ..
    } = p
    else {
        unreachable!()
    };
    let ct_dtype = ad.aval(&ct).dtype;
    match (&ins[0], &ins[1]) {
        (None, Some(y)) => {
            let c = dot_transpose_lhs(
                ad,
                ct,
                avals[0].rank(),
                y.clone(),
                lhs_contract,
                rhs_contract,
                lhs_batch,
                rhs_batch,
                ct_dtype,
                false,
            )?;
            Ok(vec![Some(c), None])
        }
        (Some(x), None) => {
            let c = dot_transpose_lhs(
                ad,
                ct,
                avals[1].rank(),
                x.clone(),
                rhs_contract,
                lhs_contract,
                rhs_batch,
                lhs_batch,
                ct_dtype,
                true,
            )?;
            Ok(vec![None, Some(c)])
        }
        _ => Err("dot_general of two linear values is not linear".into()),
    }
}

/// All structural primitives.
#[cfg(test)]
pub static STRUCTURAL: &[&PrimDef] = &[
    &BROADCAST_IN_DIM,
    &RESHAPE,
    &TRANSPOSE,
    &SQUEEZE,
    &SLICE,
    &REDUCE_SUM,
    &REDUCE_MAX,
    &REDUCE_MIN,
    &REDUCE_PROD,
    &REDUCE_AND,
    &REDUCE_OR,
    &ARGMAX,
    &ARGMIN,
    &CONCATENATE,
    &DOT_GENERAL,
    &DYNAMIC_SLICE,
    &SCATTER,
    &SCATTER_ADD,
    &SCATTER_MUL,
    &SCATTER_MIN,
    &SCATTER_MAX,
];
