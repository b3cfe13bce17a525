//! Index maps: each result element is one operand element (broadcasts,
//! reshapes, transposes, squeezes, static and dynamic slices), so the
//! backend reads the operand in place through the [`View`] each one gives.

use super::assemble::CONCATENATE;
use super::params_err;
use super::reductions::REDUCE_SUM;
use crate::ir::shapes::{fmt, same_dim};
use crate::ir::{Atom, Aval, Dim, Shape};
use crate::prims::{
    tuple, Ad, BDim, Batch, Ctx, JvpRule, Lowering, Params, PrimDef, Res, TransposeRule, View,
    Window,
};

fn dims_tuple(s: &Shape) -> String {
    tuple(&s.iter().map(|d| d.to_string()).collect::<Vec<_>>())
}

/// Places operand axis `i` at result axis `dims[i]`; every other result axis is new.
pub static BROADCAST_IN_DIM: PrimDef = PrimDef {
    name: "broadcast_in_dim",
    abstract_eval: |ops, p, c| {
        let Params::BroadcastInDim { shape, dims, .. } = p else {
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
        Params::BroadcastInDim { dims, np_ints, .. } if !dims.is_empty() => {
            vec![(
                "broadcast_dimensions",
                crate::prims::np_tuple(dims, *np_ints),
            )]
        }
        _ => Vec::new(),
    },
    parse_params: |r, _, outs| {
        let (dims, np_ints) = match r.opt("broadcast_dimensions") {
            Some(v) => v
                .usizes_np()
                .ok_or("`broadcast_dimensions` should be a tuple of axes")?,
            None => (Vec::new(), 0),
        };
        r.skip("shape");
        r.ignore("sharding");
        Ok(Params::BroadcastInDim {
            shape: crate::prims::result_shape(outs)?,
            dims,
            np_ints,
        })
    },
    lowering: Lowering::IndexMap,
    view: Some(|p, x, _| {
        let Params::BroadcastInDim { shape, dims, .. } = p else {
            unreachable!("{}", params_err("broadcast_in_dim"))
        };
        let one = Dim::Lit(1);
        let mut axes = vec![None; shape.len()];
        for (k, &d) in dims.iter().enumerate() {
            // A size-1 axis stretched to a longer one is read at one position.
            if x.shape[k] != one || shape[d] == one {
                axes[d] = Some(k);
            }
        }
        View::Axes { axes, window: None }
    }),
    jvp: same_op_jvp!(BROADCAST_IN_DIM),
    transpose: Some(broadcast_transpose as TransposeRule),
    batch: Some(broadcast_in_dim_batch),
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
    // JAX's `dimensions` transposes the operand first: that transpose is an
    // equation of its own.
    parse_params: |r, _, _| {
        if let Some(v) = r.opt("dimensions") {
            if v.name() != Some("None") {
                let perm = v
                    .usizes()
                    .ok_or("`reshape`'s `dimensions` should be None or a permutation")?;
                if perm.iter().enumerate().any(|(i, &p)| i != p) {
                    r.prologue.push((0, &TRANSPOSE, Params::Transpose { perm }));
                }
            }
        }
        r.ignore("dimensions");
        r.ignore("sharding");
        Ok(Params::Reshape {
            new_sizes: r.dims("new_sizes")?,
        })
    },
    lowering: Lowering::IndexMap,
    view: Some(|_, _, _| View::RowMajor),
    jvp: same_op_jvp!(RESHAPE),
    transpose: Some(reshape_back as TransposeRule),
    batch: Some(reshape_batch),
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
    parse_params: |r, _, _| {
        Ok(Params::DynamicSlice {
            sizes: r.usizes("slice_sizes")?,
        })
    },
    lowering: Lowering::IndexMap,
    view: Some(|_, _, _| View::Dynamic),
    jvp: same_op_jvp!(DYNAMIC_SLICE),
    transpose: Some(super::dynamic::dynamic_slice_transpose as TransposeRule),
    batch: Some(dynamic_slice_batch),
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
    parse_params: |r, _, _| {
        Ok(Params::Transpose {
            perm: r.usizes("permutation")?,
        })
    },
    lowering: Lowering::IndexMap,
    view: Some(|p, _, _| {
        let Params::Transpose { perm } = p else {
            unreachable!("{}", params_err("transpose"))
        };
        View::Axes {
            axes: perm.iter().map(|&i| Some(i)).collect(),
            window: None,
        }
    }),
    jvp: same_op_jvp!(TRANSPOSE),
    transpose: Some(transpose_transpose as TransposeRule),
    forward: Some(transpose_of_transpose),
    batch: Some(transpose_batch),
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
    parse_params: |r, _, _| {
        Ok(Params::Squeeze {
            dims: r.usizes("dimensions")?,
        })
    },
    lowering: Lowering::IndexMap,
    view: Some(|p, x, _| {
        let Params::Squeeze { dims } = p else {
            unreachable!("{}", params_err("squeeze"))
        };
        View::Axes {
            axes: (0..x.rank())
                .filter(|i| !dims.contains(i))
                .map(Some)
                .collect(),
            window: None,
        }
    }),
    jvp: same_op_jvp!(SQUEEZE),
    transpose: Some(reshape_back as TransposeRule),
    batch: Some(squeeze_batch),
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
    parse_params: |r, _, _| {
        let strides = match r.req("strides")? {
            v if v.name() == Some("None") => None,
            v => Some(v.usizes().ok_or("`strides` should be None or a tuple")?),
        };
        Ok(Params::Slice {
            start: r.usizes("start_indices")?,
            limit: r.usizes("limit_indices")?,
            strides,
        })
    },
    lowering: Lowering::IndexMap,
    view: Some(|p, x, _| {
        let Params::Slice { start, strides, .. } = p else {
            unreachable!("{}", params_err("slice"))
        };
        View::Axes {
            axes: (0..x.rank()).map(Some).collect(),
            window: Some(Window {
                start: start.clone(),
                step: (0..x.rank())
                    .map(|k| strides.as_ref().map_or(1, |s| s[k]))
                    .collect(),
            }),
        }
    }),
    jvp: same_op_jvp!(SLICE),
    transpose: Some(slice_transpose as TransposeRule),
    batch: Some(slice_batch),
    ..PrimDef::BASE
};

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
    let Params::BroadcastInDim { shape, dims, .. } = p else {
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
        ad.bind(&REDUCE_SUM, Params::Axes(axes, 0), vec![ct])?
    };
    Ok(vec![Some(reshape_to(ad, summed, &operand.shape)?)])
}

pub(super) fn reshape_to(ad: &mut Ad, x: Atom, shape: &[Dim]) -> Res<Atom> {
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

/// The batch axis first, and the operand's axes placed one further
/// (`_broadcast_in_dim_batch_rule`).
fn broadcast_in_dim_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (
        Params::BroadcastInDim {
            shape, dims: to, ..
        },
        Some(d),
    ) = (p, dims[0])
    else {
        return Err(params_err("broadcast_in_dim"));
    };
    let size = bx.aval(&ins[0]).shape[d].clone();
    let x = bx.moveaxis(ins[0].clone(), d, 0)?;
    let mut new_dims = vec![0];
    new_dims.extend(to.iter().map(|k| k + 1));
    let np_ints = ((1u32 << new_dims.len()) - 1) & !1;
    let mut new_shape = vec![size];
    new_shape.extend(shape.iter().cloned());
    let out = bx.bind(
        &BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: new_shape,
            dims: new_dims,
            np_ints,
        },
        vec![x],
    )?;
    Ok(vec![(out, Some(0))])
}

/// The batch axis first, kept first (`_reshape_batch_rule`).
fn reshape_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (Params::Reshape { new_sizes }, Some(d)) = (p, dims[0]) else {
        return Err(params_err("reshape"));
    };
    let size = bx.aval(&ins[0]).shape[d].clone();
    let x = bx.moveaxis(ins[0].clone(), d, 0)?;
    let mut sizes = vec![size];
    sizes.extend(new_sizes.iter().cloned());
    let out = bx.bind(&RESHAPE, Params::Reshape { new_sizes: sizes }, vec![x])?;
    Ok(vec![(out, Some(0))])
}

/// The batch axis moved first by the same transpose (`_transpose_batch_rule`).
fn transpose_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (Params::Transpose { perm }, Some(d)) = (p, dims[0]) else {
        return Err(params_err("transpose"));
    };
    let mut new_perm = vec![d];
    new_perm.extend(perm.iter().map(|&i| if i < d { i } else { i + 1 }));
    let out = bx.bind(
        &TRANSPOSE,
        Params::Transpose { perm: new_perm },
        vec![ins[0].clone()],
    )?;
    Ok(vec![(out, Some(0))])
}

/// `x` placed in `shape` with its axes at `dims`, as `lax.broadcast_in_dim`
/// with Python integers (nothing bound when that is `x` itself).
pub fn broadcast_dims(cx: &mut Ctx, x: Atom, shape: &[Dim], dims: &[usize]) -> Res<Atom> {
    let a = cx.aval(&x);
    if a.shape == shape && dims.iter().copied().eq(0..a.rank()) {
        return Ok(x);
    }
    cx.bind(
        &BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: shape.to_vec(),
            dims: dims.to_vec(),
            np_ints: 0,
        },
        vec![x],
    )
}

/// The batch axis moved first and the squeezed axes counted past it
/// (`_squeeze_batch_rule`).
fn squeeze_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (Params::Squeeze { dims: squeezed }, Some(d)) = (p, dims[0]) else {
        return Err(params_err("squeeze"));
    };
    let x = bx.moveaxis(ins[0].clone(), d, 0)?;
    if squeezed.is_empty() {
        return Ok(vec![(x, Some(0))]);
    }
    let mut squeezed: Vec<usize> = squeezed.iter().map(|k| k + 1).collect();
    squeezed.sort();
    let out = bx.bind(&SQUEEZE, Params::Squeeze { dims: squeezed }, vec![x])?;
    Ok(vec![(out, Some(0))])
}

/// The whole batch axis taken where it is (`_slice_batching_rule`).
fn slice_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let (
        Params::Slice {
            start,
            limit,
            strides,
        },
        Some(d),
    ) = (p, dims[0])
    else {
        return Err(params_err("slice"));
    };
    let Dim::Lit(n) = bx.aval(&ins[0]).shape[d] else {
        return Err("vmap of a slice over a symbolic number of lanes is not supported".into());
    };
    let (mut start, mut limit) = (start.clone(), limit.clone());
    start.insert(d, 0);
    limit.insert(d, n);
    let strides = strides.as_ref().map(|s| {
        let mut s = s.clone();
        s.insert(d, 1);
        s
    });
    let out = bx.bind(
        &SLICE,
        Params::Slice {
            start,
            limit,
            strides,
        },
        vec![ins[0].clone()],
    )?;
    Ok(vec![(out, Some(d))])
}

/// Start indices every lane shares: the batch axis moved first and taken
/// whole, a window of all the lanes starting at 0 (JAX's rule goes through
/// `gather`, which places the lanes first too). Start indices that differ
/// by lane need a gather.
fn dynamic_slice_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let Params::DynamicSlice { sizes } = p else {
        return Err(params_err("dynamic_slice"));
    };
    if dims[1..].iter().any(Option::is_some) {
        return super::gather::batched_dynamic_slice(bx, ins, dims, sizes);
    }
    let Some(d) = dims[0] else {
        return Err(params_err("dynamic_slice"));
    };
    let Dim::Lit(n) = bx.aval(&ins[0]).shape[d] else {
        return Err(
            "vmap of dynamic_slice over a symbolic number of lanes is not supported".into(),
        );
    };
    let x = bx.moveaxis(ins[0].clone(), d, 0)?;
    let index = ins
        .get(1)
        .map_or(jax_dtypes::DType::I32, |i| bx.aval(i).dtype);
    let zero = crate::ir::builder::literal(crate::ir::Scalar::Int(0), Aval::scalar(index, false));
    let mut args = vec![x, zero];
    args.extend(ins[1..].iter().cloned());
    let mut new_sizes = vec![n];
    new_sizes.extend(sizes.iter().copied());
    let out = bx.bind(
        &DYNAMIC_SLICE,
        Params::DynamicSlice { sizes: new_sizes },
        args,
    )?;
    Ok(vec![(out, Some(0))])
}

/// Lane `i` of `x` along `axis`, the axis removed (`lax.index_in_dim`
/// with `keepdims=False`: a slice and a squeeze).
pub fn index_in_dim(cx: &mut Ctx, x: Atom, axis: usize, i: usize) -> Res<Atom> {
    let a = cx.aval(&x);
    let mut start = vec![0; a.rank()];
    let mut limit = Vec::with_capacity(a.rank());
    for d in &a.shape {
        let Dim::Lit(n) = d else {
            return Err(format!(
                "vmap here needs a number of lanes known when the crate compiles, not {d}"
            ));
        };
        limit.push(*n);
    }
    start[axis] = i;
    limit[axis] = i + 1;
    let s = cx.bind(
        &SLICE,
        Params::Slice {
            start,
            limit,
            strides: None,
        },
        vec![x],
    )?;
    cx.bind(&SQUEEZE, Params::Squeeze { dims: vec![axis] }, vec![s])
}
