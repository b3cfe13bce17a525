//! The kernels of primitives with several operands or structured
//! parameters: the random primitives, `sort`, `gather`, `svd`, `select_n`,
//! `clamp`, `concatenate` and the reductions.

// Loops over several index arrays at once read better with indices.
#![allow(clippy::needless_range_loop)]

use jax_core::ir::primitive::Params;

use super::*;

/// The random primitives of one key (`u32[2]`): split keys, a folded-in
/// key, or samples (element `i` from threefry counter `i`, by the functions
/// jitted code and the eager samplers use, so every draw is the same).
pub(super) fn random(
    name: &str,
    params: &Params,
    ins: &[&DynArray],
    out: &[usize],
) -> Result<Vec<DynData>, Unsupported> {
    use crate::__rt::random as r;
    let DynData::U32(k) = ins[0].data() else {
        return unsupported();
    };
    if k.len() != 2 {
        // Batched keys appear only under `vmap`, inside jitted code.
        return unsupported();
    }
    let key = [k[0], k[1]];
    let n: usize = out.iter().product();
    let bounds = match params {
        Params::Random { bounds, .. } => *bounds,
        _ => None,
    };
    macro_rules! each {
        ($T:ty, $f:expr) => {
            Ok(DynData::wrap(
                (0..n).map(|i| $f(key, i)).collect::<Vec<$T>>(),
            ))
        };
    }
    macro_rules! floats_of {
        ($dtype:expr, |$T:ident| $body:expr) => {
            match $dtype {
                DType::F32 => {
                    type $T = f32;
                    $body
                }
                DType::F64 => {
                    type $T = f64;
                    $body
                }
                DType::BF16 => {
                    type $T = bf16;
                    $body
                }
                DType::F16 => {
                    type $T = f16;
                    $body
                }
                _ => unsupported(),
            }
        };
    }
    let dtype = match params {
        Params::Random { dtype, .. } => *dtype,
        _ => DType::U32,
    };
    use jax_dtypes::DType;
    let d = match name {
        "random_split" => Ok(DynData::U32(r::split_keys(k, n / 2))),
        "random_fold_in" => match ins[1].data() {
            DynData::U32(data) => Ok(DynData::U32(r::fold_in_keys(k, data))),
            _ => unsupported(),
        },
        "random_bits" => match dtype {
            DType::U8 => each!(u8, r::bits::<u8>),
            DType::U16 => each!(u16, r::bits::<u16>),
            DType::U32 => each!(u32, r::bits::<u32>),
            DType::U64 => each!(u64, r::bits::<u64>),
            _ => unsupported(),
        },
        "random_uniform" => match bounds {
            None => floats_of!(dtype, |T| each!(T, r::uniform::<T>)),
            Some((lo, hi)) => floats_of!(dtype, |T| each!(T, |key, i| r::uniform_range::<T>(
                key, i, lo, hi
            ))),
        },
        "random_normal" => floats_of!(dtype, |T| each!(T, r::normal::<T>)),
        "random_exponential" => floats_of!(dtype, |T| each!(T, r::exponential::<T>)),
        "random_gumbel" => floats_of!(dtype, |T| each!(T, r::gumbel::<T>)),
        "random_truncated_normal" => {
            let (lo, hi) = bounds.ok_or(Unsupported)?;
            floats_of!(dtype, |T| each!(T, |key, i| r::truncated_normal::<T>(
                key, i, lo, hi
            )))
        }
        _ => unsupported(),
    }?;
    Ok(vec![d])
}

/// `sort`'s kernel: the stable permutation of each lane along `dim` by the
/// first `num_keys` operands (`__rt::sort`, as jitted code sorts), applied
/// to every operand.
pub(super) fn sort(
    ins: &[&DynArray],
    dim: usize,
    num_keys: usize,
) -> Result<Vec<DynData>, Unsupported> {
    use crate::__rt::sort::{permutation, permute, SortKey};
    fn key(d: &DynData) -> Result<Box<dyn SortKey + '_>, Unsupported> {
        ordered!(dispatch, d, |v: T| Ok(
            Box::new(v.as_slice()) as Box<dyn SortKey + '_>
        ))
    }
    let keys = ins[..num_keys]
        .iter()
        .map(|x| key(x.data()))
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<&dyn SortKey> = keys.iter().map(|k| k.as_ref()).collect();
    let perm = permutation(&refs, ins[0].shape(), dim);
    ins.iter()
        .map(|x| {
            any!(dispatch, x.data(), |v: T| Ok(DynData::wrap(permute(
                v, &perm
            ))))
        })
        .collect()
}

/// `gather`'s kernel (`__rt::gather::gather`, which jitted code calls).
pub(super) fn gather(
    x: &DynArray,
    idx: &DynArray,
    g: &jax_core::ir::primitive::GatherParams,
    out: &[usize],
) -> K {
    use crate::__rt::gather as rt;
    use jax_core::ir::primitive::IndexMode;
    let mode = match g.mode {
        IndexMode::Clip => rt::CLIP,
        IndexMode::FillOrDrop => rt::FILL_OR_DROP,
        IndexMode::PromiseInBounds => rt::PROMISE_IN_BOUNDS,
    };
    let dims = rt::Dims {
        offset: &g.dims.offset,
        collapsed: &g.dims.collapsed,
        index_map: &g.dims.index_map,
        operand_batching: &g.dims.operand_batching,
        indices_batching: &g.dims.indices_batching,
    };
    // The indices as i64, so one kernel per element type is compiled
    // (unsigned ones past i64's range are out of bounds either way).
    let wide = |v: &[u64]| v.iter().map(|&i| i.min(i64::MAX as u64) as i64).collect();
    let i: Vec<i64> = match idx.data() {
        DynData::I64(i) => i.clone(),
        DynData::I32(i) => i.iter().map(|&i| i as i64).collect(),
        DynData::I16(i) => i.iter().map(|&i| i as i64).collect(),
        DynData::I8(i) => i.iter().map(|&i| i as i64).collect(),
        DynData::U64(i) => wide(i),
        DynData::U32(i) => i.iter().map(|&i| i as i64).collect(),
        DynData::U16(i) => i.iter().map(|&i| i as i64).collect(),
        DynData::U8(i) => i.iter().map(|&i| i as i64).collect(),
        _ => return unsupported(),
    };
    let (xs, is, sizes) = (x.shape(), idx.shape(), &g.slice_sizes[..]);
    any!(dispatch, x.data(), |v: T| Ok(DynData::wrap(rt::gather::<
        T,
        i64,
    >(
        v,
        xs,
        &i,
        is,
        dims,
        sizes,
        out,
        mode,
        rt::fill_value::<T>(g.fill_value)
    ))))
}

/// `svd`'s kernel (`__rt::linalg::svd_*`) on a batch of matrices: the
/// singular values, then `u` and `vt` with `uv`.
pub(super) fn svd(
    a: &DynData,
    shape: &[usize],
    outs: &[Aval],
    full: bool,
    uv: bool,
) -> Result<Vec<DynData>, Unsupported> {
    use crate::__rt::linalg as la;
    let r = shape.len();
    let (m, n) = (shape[r - 2], shape[r - 1]);
    let batch: usize = shape[..r - 2].iter().product();
    let len = |i: usize| {
        outs.get(i)
            .map_or(0, |o| sizes(o).iter().product::<usize>())
    };
    macro_rules! run {
        ($a:expr, $svd:path, $V:ident, $R:ident, $t:ty, $rt:ty) => {{
            let mut s = vec![<$rt as Element>::ZERO; len(0)];
            let mut u = vec![<$t as Element>::ZERO; if uv { len(1) } else { 0 }];
            let mut vt = vec![<$t as Element>::ZERO; if uv { len(2) } else { 0 }];
            $svd($a, &mut s, &mut u, &mut vt, batch, m, n, full, uv);
            let mut o = vec![DynData::$R(s)];
            if uv {
                o.extend([DynData::$V(u), DynData::$V(vt)]);
            }
            Ok(o)
        }};
    }
    match a {
        DynData::F32(a) => run!(a, la::svd_f32, F32, F32, f32, f32),
        DynData::F64(a) => run!(a, la::svd_f64, F64, F64, f64, f64),
        DynData::C64(a) => run!(a, la::svd_c64, C64, F32, Complex<f32>, f32),
        DynData::C128(a) => run!(a, la::svd_c128, C128, F64, Complex<f64>, f64),
        _ => unsupported(),
    }
}

/// `select_n(which, cases..)`: a bool or int32 `which`, a scalar or of the
/// cases' shape.
pub(super) fn select_n(ins: &[&DynArray], out: &[usize], work: usize) -> K {
    use std::borrow::Cow;
    let n: usize = out.iter().product();
    // Each operand is of the result's size or a single element.
    let at = |len: usize, i: usize| if len == 1 { 0 } else { i };
    any!(dispatch, ins[1].data(), |first: T| {
        let cases: Vec<&[T]> = std::iter::once(Ok(first.as_slice()))
            .chain(
                ins[2..]
                    .iter()
                    .map(|c| c.data().as_slice_of::<T>().ok_or(Unsupported)),
            )
            .collect::<Result<_, _>>()?;
        let mut o = crate::__rt::buffer::<T>(n);
        match (ins[0].data(), &cases[..]) {
            // `where`: a predicate of the result's size and two cases, each
            // of that size or one element.
            (DynData::Bool(p), [f, t])
                if p.len() == n
                    && (f.len() == n || f.len() == 1)
                    && (t.len() == n || t.len() == 1) =>
            {
                // A single element is read as a case of the result's size
                // whose elements are all that one (a chunk-sized copy).
                let (f0, f1, f2) = three!(|(start, o): (usize, &mut [T])| {
                    let end = start + o.len();
                    let p = &p[start..end];
                    fn side<C: Clone>(c: &[C], n: usize, start: usize, end: usize) -> Cow<'_, [C]> {
                        if c.len() == n {
                            Cow::Borrowed(&c[start..end])
                        } else {
                            Cow::Owned(vec![c[0].clone(); end - start])
                        }
                    }
                    let (f, t) = (side(f, n, start, end), side(t, n, start, end));
                    let (f, t) = (&f[..], &t[..]);
                    for i in 0..o.len() {
                        o[i] = if p[i] { t[i] } else { f[i] };
                    }
                });
                par::for_each_chunk3(&mut o, par::grain(work), f0, f1, f2);
            }
            (DynData::Bool(p), _) => {
                for (i, e) in o.iter_mut().enumerate() {
                    let c = cases[p[at(p.len(), i)] as usize];
                    *e = c[at(c.len(), i)];
                }
            }
            (which, _) => {
                // Any integer index, clamped into range (`ops::Which`).
                fn pick<W: ops::Which, T: Copy>(p: &[W], cases: &[&[T]], o: &mut [T]) {
                    let at = |len: usize, i: usize| if len == 1 { 0 } else { i };
                    for (i, e) in o.iter_mut().enumerate() {
                        let c = cases[p[at(p.len(), i)].case(cases.len())];
                        *e = c[at(c.len(), i)];
                    }
                }
                match which {
                    DynData::I8(p) => pick(p, &cases, &mut o),
                    DynData::I16(p) => pick(p, &cases, &mut o),
                    DynData::I32(p) => pick(p, &cases, &mut o),
                    DynData::I64(p) => pick(p, &cases, &mut o),
                    DynData::U8(p) => pick(p, &cases, &mut o),
                    DynData::U16(p) => pick(p, &cases, &mut o),
                    DynData::U32(p) => pick(p, &cases, &mut o),
                    DynData::U64(p) => pick(p, &cases, &mut o),
                    _ => return Err(Unsupported),
                }
            }
        }
        Ok(DynData::wrap(o))
    })
}

/// `clamp(lo, x, hi)`, the bounds scalars or of `x`'s shape.
pub(super) fn clamp(ins: &[&DynArray]) -> K {
    let (lo, x, hi) = (ins[0].data(), ins[1].data(), ins[2].data());
    ordered!(dispatch, x, |v: T| {
        let lo = lo.as_slice_of::<T>().ok_or(Unsupported)?;
        let hi = hi.as_slice_of::<T>().ok_or(Unsupported)?;
        let at = |s: &[T], i: usize| if s.len() == 1 { s[0] } else { s[i] };
        let out: Vec<T> = v
            .iter()
            .enumerate()
            .map(|(i, &e)| ops::clamp(at(lo, i), e, at(hi, i)))
            .collect();
        Ok(DynData::wrap(out))
    })
}

/// `concatenate` along `dim`: for each index before `dim`, each part's block.
pub(super) fn concatenate(ins: &[&DynArray], dim: usize) -> K {
    let outer: usize = ins[0].shape()[..dim].iter().product();
    let blocks: Vec<usize> = ins
        .iter()
        .map(|p| p.shape()[dim..].iter().product())
        .collect();
    any!(dispatch, ins[0].data(), |first: T| {
        let parts: Vec<&[T]> = std::iter::once(Ok(first.as_slice()))
            .chain(
                ins[1..]
                    .iter()
                    .map(|p| p.data().as_slice_of::<T>().ok_or(Unsupported)),
            )
            .collect::<Result<_, _>>()?;
        let mut out: Vec<T> = Vec::with_capacity(blocks.iter().sum::<usize>() * outer);
        for o in 0..outer {
            for (part, &b) in parts.iter().zip(&blocks) {
                out.extend_from_slice(&part[o * b..(o + 1) * b]);
            }
        }
        Ok(DynData::wrap(out))
    })
}

/// `f` of each lane of `axes` of `v` (of `shape`), as a result.
fn lanes<T: Copy, R: Element>(
    v: &[T],
    shape: &[usize],
    axes: &[usize],
    f: impl FnMut(&[T]) -> R,
) -> K {
    Ok(DynData::wrap(reduce_lanes(v, shape, axes, f)))
}

/// The fold of `name` over `axes` of `x`. `f32`/`f64` sums and extremes
/// over every axis or one axis take jitted code's order (`lax::fast`); the
/// rest fold each lane as the eager `lax` reductions do, an empty lane
/// giving the identity.
pub(super) fn reduce(name: &str, x: &DynArray, axes: &[usize]) -> K {
    let shape = x.shape();
    let fold = match name {
        "reduce_sum" => Some(Fold::Sum),
        "reduce_max" => Some(Fold::Max),
        "reduce_min" => Some(Fold::Min),
        _ => None,
    };
    let every = axes.len() == shape.len();
    if let Some(f) = fold.filter(|_| x.size() > 0 && (every || axes.len() == 1)) {
        macro_rules! fast {
            ($t:ty, $v:expr) => {{
                let r: Option<Vec<$t>> = if every {
                    fast::try_all::<$t, $t>($v, f).map(|r| vec![r])
                } else {
                    fast::try_along::<$t, $t>($v, shape, axes[0], f, false)
                };
                if let Some(r) = r {
                    return Ok(DynData::wrap(r));
                }
            }};
        }
        match x.data() {
            DynData::F32(v) => fast!(f32, v),
            DynData::F64(v) => fast!(f64, v),
            _ => {}
        }
    }
    let mut axes = axes.to_vec();
    axes.sort_unstable();
    match name {
        "reduce_sum" => numbers!(dispatch, x.data(), |v: T| lanes(
            v,
            shape,
            &axes,
            sum_lane::<T, T>
        )),
        "reduce_prod" => numbers!(dispatch, x.data(), |v: T| lanes(
            v,
            shape,
            &axes,
            prod_lane::<T, T>
        )),
        "reduce_max" => ordered!(dispatch, x.data(), |v: T| lanes(
            v,
            shape,
            &axes,
            |l: &[T]| if l.is_empty() {
                <T as Extremes>::LOWEST
            } else {
                max_lane(name, l)
            }
        )),
        "reduce_min" => ordered!(dispatch, x.data(), |v: T| lanes(
            v,
            shape,
            &axes,
            |l: &[T]| if l.is_empty() {
                <T as Extremes>::HIGHEST
            } else {
                min_lane(name, l)
            }
        )),
        "reduce_and" => logical!(dispatch, x.data(), |v: T| lanes(
            v,
            shape,
            &axes,
            |l: &[T]| l
                .iter()
                .fold(<T as Extremes>::HIGHEST, |a, &b| ops::and(a, b))
        )),
        "reduce_or" => logical!(dispatch, x.data(), |v: T| lanes(
            v,
            shape,
            &axes,
            |l: &[T]| l
                .iter()
                .fold(<T as Extremes>::LOWEST, |a, &b| ops::or(a, b))
        )),
        _ => unsupported(),
    }
}
