//! Reductions: sums, products, extremes and logical folds over axes, and
//! the index of an extreme along one axis.

use super::params_err;
use super::views::BROADCAST_IN_DIM;
use crate::ir::{Atom, Aval};
use crate::prims::{
    np_tuple, Ad, BDim, Batch, JvpRule, Lowering, Monoid, Params, PrimDef, Reduction, Res,
    TransposeRule,
};

pub fn reduce_eval(name: &str, ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Axes(axes, _) = p else {
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
    ($($id:ident = $name:literal, $monoid:ident, out_sharding: $sharding:literal, $jvp:expr, $transpose:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| reduce_eval($name, ops, p),
            print_params: |_, p| {
                let mut v = match p {
                    Params::Axes(a, np_ints) => vec![("axes", np_tuple(a, *np_ints))],
                    _ => Vec::new(),
                };
                if $sharding {
                    v.push(("out_sharding", "None".into()));
                }
                v
            },
            parse_params: |r, _, _| {
                r.ignore("out_sharding");
                let (axes, np_ints) = r.usizes_np("axes")?;
                Ok(Params::Axes(axes, np_ints))
            },
            lowering: Lowering::Reduce,
            reduction: Some(Reduction::Fold(Monoid::$monoid)),
            jvp: $jvp,
            transpose: $transpose,
            batch: Some(reduce_batch),
            ..PrimDef::BASE
        };
    )*};
}

/// A reduction of a batched operand: the same axes, counted past the batch
/// axis, which stays where it falls among the kept axes
/// (`batching.reducer_batcher`).
pub fn reduce_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (Params::Axes(axes, _), Some(d)) = (p, dims[0]) else {
        return Err(params_err("a reduction"));
    };
    let axes: Vec<usize> = axes
        .iter()
        .map(|&a| if a < d { a } else { a + 1 })
        .collect();
    let out_dim = d - axes.iter().filter(|&&a| a < d).count();
    let np_ints = (1u32 << axes.len()) - 1;
    let prim = bx.prim;
    let out = bx.bind(prim, Params::Axes(axes, np_ints), vec![ins[0].clone()])?;
    Ok(vec![(out, Some(out_dim))])
}

reduction! {
    REDUCE_SUM = "reduce_sum", Add, out_sharding: true, same_op_jvp!(REDUCE_SUM), Some(reduce_sum_transpose as TransposeRule);
    REDUCE_MAX = "reduce_max", Max, out_sharding: false, Some(chooser_jvp as JvpRule), None;
    REDUCE_MIN = "reduce_min", Min, out_sharding: false, Some(chooser_jvp as JvpRule), None;
    REDUCE_PROD = "reduce_prod", Mul, out_sharding: true, Some(reduce_prod_jvp as JvpRule), None;
    REDUCE_AND = "reduce_and", And, out_sharding: false, Some(crate::prims::zero_jvp), None;
    REDUCE_OR = "reduce_or", Or, out_sharding: false, Some(crate::prims::zero_jvp), None;
}

fn arg_reduce_eval(name: &str, ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::ArgReduce {
        axis, index_dtype, ..
    } = p
    else {
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
        Params::ArgReduce {
            axis,
            index_dtype,
            np_int,
        } => vec![
            ("axes", np_tuple(&[*axis], *np_int as u32)),
            ("index_dtype", index_dtype.name().into()),
        ],
        _ => Vec::new(),
    }
}

fn arg_reduce_parse(
    r: &mut crate::ir::parse::ParamReader,
    _: &[Aval],
    _: &[Aval],
) -> Result<Params, String> {
    let (axes, np) = r.usizes_np("axes")?;
    let [axis] = axes[..] else {
        return Err(format!("`{}` reduces one axis", r.prim));
    };
    Ok(Params::ArgReduce {
        axis,
        index_dtype: r.dtype("index_dtype")?,
        np_int: np != 0,
    })
}

/// The index of the largest element along an axis (the first of equals; NaN is largest).
pub static ARGMAX: PrimDef = PrimDef {
    name: "argmax",
    abstract_eval: |ops, p, _| arg_reduce_eval("argmax", ops, p),
    print_params: |_, p| arg_reduce_params(p),
    parse_params: arg_reduce_parse,
    lowering: Lowering::Reduce,
    reduction: Some(Reduction::ArgMax),
    jvp: Some(crate::prims::zero_jvp),
    transpose: None,
    batch: Some(arg_reduce_batch),
    ..PrimDef::BASE
};

/// The index of the smallest element along an axis.
pub static ARGMIN: PrimDef = PrimDef {
    name: "argmin",
    abstract_eval: |ops, p, _| arg_reduce_eval("argmin", ops, p),
    print_params: |_, p| arg_reduce_params(p),
    parse_params: arg_reduce_parse,
    lowering: Lowering::Reduce,
    reduction: Some(Reduction::ArgMin),
    jvp: Some(crate::prims::zero_jvp),
    transpose: None,
    batch: Some(arg_reduce_batch),
    ..PrimDef::BASE
};

/// `argmax`/`argmin` of a batched operand: as any reduction, the axis
/// counted past the batch axis, which stays where it falls
/// (`batching.defreducer`, whose axis is a NumPy integer).
fn arg_reduce_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (
        Params::ArgReduce {
            axis, index_dtype, ..
        },
        Some(d),
    ) = (p, dims[0])
    else {
        return Err(params_err("an argument reduction"));
    };
    let axis = if *axis < d { *axis } else { axis + 1 };
    let out_dim = if axis < d { d - 1 } else { d };
    let params = Params::ArgReduce {
        axis,
        index_dtype: *index_dtype,
        np_int: true,
    };
    let prim = bx.prim;
    let out = bx.bind(prim, params, vec![ins[0].clone()])?;
    Ok(vec![(out, Some(out_dim))])
}

/// `reduce_sum`: the cotangent broadcast back over the reduced axes.
pub fn reduce_sum_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Axes(axes, _) = p else {
        unreachable!()
    };
    let operand = &avals[0];
    let dims: Vec<usize> = (0..operand.rank()).filter(|k| !axes.contains(k)).collect();
    Ok(vec![Some(ad.bind(
        &BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: operand.shape.clone(),
            dims,
            np_ints: 0,
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
    let Params::Axes(axes, _) = p else {
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
            np_ints: 0,
        },
        vec![outs[0].clone()],
    )?;
    let hit = ad.bin(&crate::prims::EQ, x.clone(), ans)?;
    let hit = ad.convert(hit, xa.dtype)?;
    let counts = ad.bind(
        &REDUCE_SUM,
        Params::Axes(axes.clone(), 0),
        vec![hit.clone()],
    )?;
    let picked = ad.mul(t0.clone(), hit)?;
    let summed = ad.bind(&REDUCE_SUM, Params::Axes(axes.clone(), 0), vec![picked])?;
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
    let Params::Axes(axes, _) = p else {
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
                np_ints: 0,
            },
            vec![v],
        )
    };
    let (zero, one) = (ad.lit(0.0, &x), ad.lit(1.0, &x));
    let is_zero = ad.bin(&crate::prims::EQ, x.clone(), zero.clone())?;
    let safe = ad.select(is_zero.clone(), x.clone(), one.clone())?;
    let others_nonzero = ad.bind(
        &REDUCE_PROD,
        Params::Axes(axes.clone(), 0),
        vec![safe.clone()],
    )?;
    let zeros_f = ad.convert(is_zero.clone(), xa.dtype)?;
    let count = ad.bind(&REDUCE_SUM, Params::Axes(axes.clone(), 0), vec![zeros_f])?;
    let (p, count) = (back(ad, others_nonzero)?, back(ad, count)?);
    let none = ad.bin(&crate::prims::EQ, count.clone(), zero.clone())?;
    let one_zero = ad.bin(&crate::prims::EQ, count, one)?;
    let divided = ad.div(p.clone(), safe)?;
    let this_one = ad.bin(&crate::prims::AND, one_zero, is_zero)?;
    let lone = ad.select(this_one, zero, p)?;
    let factor = ad.select(none, lone, divided)?;
    let terms = ad.mul(t0.clone(), factor)?;
    Ok(vec![Some(ad.bind(
        &REDUCE_SUM,
        Params::Axes(axes.clone(), 0),
        vec![terms],
    )?)])
}
