//! Primitives that move, select or combine elements: broadcasts, reshapes,
//! transposes, slices, reductions, contractions.

use super::{tuple, Lowering, Params, PrimDef};
use crate::ir::{Aval, Dim, Shape};
use crate::shapes::{fmt, same_dim};

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
};

/// Same elements in row-major order, another shape.
pub static RESHAPE: PrimDef = PrimDef {
    name: "reshape",
    abstract_eval: |ops, p, c| {
        let Params::Reshape { new_sizes } = p else {
            return Err(params_err("reshape"));
        };
        let x = &ops[0];
        let (la, sa) = crate::shapes::size_parts(&x.shape);
        let (lb, sb) = crate::shapes::size_parts(new_sizes);
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
};

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
    ($($id:ident = $name:literal, out_sharding: $sharding:literal;)*) => {$(
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
        };
    )*};
}

reduction! {
    REDUCE_SUM = "reduce_sum", out_sharding: true;
    REDUCE_MAX = "reduce_max", out_sharding: false;
    REDUCE_MIN = "reduce_min", out_sharding: false;
    REDUCE_PROD = "reduce_prod", out_sharding: true;
    REDUCE_AND = "reduce_and", out_sharding: false;
    REDUCE_OR = "reduce_or", out_sharding: false;
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
};

/// The index of the smallest element along an axis.
pub static ARGMIN: PrimDef = PrimDef {
    name: "argmin",
    abstract_eval: |ops, p, _| arg_reduce_eval("argmin", ops, p),
    print_params: |_, p| arg_reduce_params(p),
    lowering: Lowering::Reduce,
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
                Some(op) => format!("{}{op}", crate::print::SCALAR_JAXPR),
                None => "None".into(),
            },
        ),
    ]
}

macro_rules! scatter {
    ($($id:ident = $name:literal, $combine:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| scatter_eval($name, ops, p),
            print_params: |_, p| scatter_params(p, $combine),
            lowering: Lowering::Kernel,
        };
    )*};
}

scatter! {
    SCATTER = "scatter", None;
    SCATTER_ADD = "scatter-add", Some("add");
    SCATTER_MUL = "scatter-mul", Some("mul");
    SCATTER_MIN = "scatter-min", Some("min");
    SCATTER_MAX = "scatter-max", Some("max");
}

/// All structural primitives.
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
