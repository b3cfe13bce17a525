//! Each primitive's eager kernel over [`DynArray`]s: what [`Eager`](super::Eager)
//! runs when a composite binds it. The element operations are the
//! functions jitted code calls (`__rt::ops`, one per elementwise primitive)
//! and the reductions of `f32`/`f64` fold in jitted code's order
//! (`lax::fast`), so an eager call computes what its primitives compute in
//! a jitted body.
//!
//! The operands were checked by the primitive's abstract evaluation before
//! a kernel runs, and the results' avals are given: a kernel only computes.

// Loops over several index arrays at once read better with indices.
#![allow(clippy::needless_range_loop)]

use jax_core::ir::primitive::{Params, Prim};
use jax_core::ir::{Aval, Dim};

use crate::__rt::axis::three;
use crate::__rt::identity::Extremes;
use crate::__rt::{ops, par};
use crate::element::{bf16, f16, Complex, Element};
use crate::lax::fast::{self, Fold};
use crate::lax::{arg_lane, max_lane, min_lane, prod_lane, reduce_lanes, sum_lane};
use crate::shape::{next_index, strides};
use crate::tree::{DynArray, DynData};

/// `match` on the dtype of `$d`, for the variants listed: in the arm, `$v`
/// is the elements (`&Vec<T>`) and `$T` their type.
macro_rules! dispatch {
    ($d:expr, |$v:ident: $T:ident| $body:expr, [$($V:ident $t:ty),*], $or:expr) => {
        match $d {
            $(DynData::$V($v) => {
                #[allow(dead_code)]
                type $T = $t;
                $body
            })*
            #[allow(unreachable_patterns)]
            _ => $or,
        }
    };
}

/// Two operands of one dtype (the primitive's rule checked that).
macro_rules! dispatch2 {
    ($a:expr, $b:expr, |$x:ident, $y:ident: $T:ident| $body:expr, [$($V:ident $t:ty),*], $or:expr) => {
        match ($a, $b) {
            $((DynData::$V($x), DynData::$V($y)) => {
                #[allow(dead_code)]
                type $T = $t;
                $body
            })*
            #[allow(unreachable_patterns)]
            _ => $or,
        }
    };
}

// The dtype families, as JAX's rules name them.
macro_rules! floats {
    ($m:ident, $($a:tt)*) => { $m!($($a)*, [BF16 bf16, F16 f16, F32 f32, F64 f64], unsupported()) };
}
macro_rules! inexact {
    ($m:ident, $($a:tt)*) => {
        $m!($($a)*, [BF16 bf16, F16 f16, F32 f32, F64 f64, C64 Complex<f32>, C128 Complex<f64>], unsupported())
    };
}
macro_rules! reals {
    ($m:ident, $($a:tt)*) => {
        $m!($($a)*, [U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64,
            BF16 bf16, F16 f16, F32 f32, F64 f64], unsupported())
    };
}
macro_rules! numbers {
    ($m:ident, $($a:tt)*) => {
        $m!($($a)*, [U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64,
            BF16 bf16, F16 f16, F32 f32, F64 f64, C64 Complex<f32>, C128 Complex<f64>], unsupported())
    };
}
macro_rules! ordered {
    ($m:ident, $($a:tt)*) => {
        $m!($($a)*, [Bool bool, U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64,
            BF16 bf16, F16 f16, F32 f32, F64 f64], unsupported())
    };
}
macro_rules! logical {
    ($m:ident, $($a:tt)*) => {
        $m!($($a)*, [Bool bool, U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64],
            unsupported())
    };
}
macro_rules! any {
    ($m:ident, $($a:tt)*) => {
        $m!($($a)*, [Bool bool, U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64,
            BF16 bf16, F16 f16, F32 f32, F64 f64, C64 Complex<f32>, C128 Complex<f64>], unsupported())
    };
}

/// The marker a kernel returns for a dtype it does not handle; [`run`]
/// turns it into a message naming the primitive and the dtype.
struct Unsupported;

fn unsupported<T>() -> Result<T, Unsupported> {
    Err(Unsupported)
}

type K = Result<DynData, Unsupported>;

mod structured;
use structured::{clamp, concatenate, gather, random, reduce, select_n, sort, svd};

/// `f` of each element of `v`, over the team's threads in chunks sized by
/// the primitive's `work`, each chunk compiled for the CPU's SIMD level (as
/// jitted loops run).
fn map<T: Copy + Sync, O: Element + Send>(v: &[T], work: usize, f: impl Fn(T) -> O + Sync) -> K {
    let mut out = crate::__rt::buffer::<O>(v.len());
    let (f0, f1, f2) = three!(|(start, o): (usize, &mut [O])| {
        let v = &v[start..start + o.len()];
        for i in 0..o.len() {
            o[i] = f(v[i]);
        }
    });
    par::for_each_chunk3(&mut out, par::grain(work), f0, f1, f2);
    Ok(DynData::wrap(out))
}

/// Where each row (along the last axis) of `out` starts in an operand of
/// `shape` (its axes of size 1, or all of them for a scalar, broadcast),
/// and the operand's step along a row (0 when the last axis is broadcast).
fn rows(shape: &[usize], out: &[usize]) -> (Vec<usize>, usize) {
    let rank = out.len();
    if rank == 0 {
        return (vec![0], 0);
    }
    let shape: Vec<usize> = if shape.len() == rank {
        shape.to_vec()
    } else {
        vec![1; rank]
    };
    let st = strides(&shape);
    let step = if shape[rank - 1] == 1 { 0 } else { 1 };
    let offsets = index_map(&out[..rank - 1], |m| {
        (0..rank - 1)
            .map(|k| if shape[k] == 1 { 0 } else { m[k] * st[k] })
            .sum()
    });
    (offsets, step)
}

/// `f` of two operands elementwise, broadcast to `out` (a jaxpr broadcasts
/// scalars and axes of size 1 implicitly), as [`map`] runs.
fn zip<T: Copy + Sync, O: Element + Send>(
    (a, sa): (&[T], &[usize]),
    (b, sb): (&[T], &[usize]),
    out: &[usize],
    work: usize,
    f: impl Fn(T, T) -> O + Sync,
) -> K {
    if sa == out && sb == out {
        let mut o = crate::__rt::buffer::<O>(a.len());
        let (f0, f1, f2) = three!(|(start, o): (usize, &mut [O])| {
            let (a, b) = (&a[start..start + o.len()], &b[start..start + o.len()]);
            for i in 0..o.len() {
                o[i] = f(a[i], b[i]);
            }
        });
        par::for_each_chunk3(&mut o, par::grain(work), f0, f1, f2);
        return Ok(DynData::wrap(o));
    }
    if a.len() == 1 && sb == out {
        return map(b, work, |y| f(a[0], y));
    }
    if b.len() == 1 && sa == out {
        return map(a, work, |x| f(x, b[0]));
    }
    let len = out.last().copied().unwrap_or(1);
    let ((ra, step_a), (rb, step_b)) = (rows(sa, out), rows(sb, out));
    let mut o = crate::__rt::buffer::<O>(out.iter().product());
    let (f0, f1, f2) = three!(|(row0, o): (usize, &mut [O])| {
        for (r, o) in o.chunks_exact_mut(len.max(1)).enumerate() {
            let (oa, ob) = (ra[row0 + r], rb[row0 + r]);
            // Each pair of steps its own loop, so that each vectorizes.
            match (step_a, step_b) {
                (1, 0) => {
                    let (a, y) = (&a[oa..oa + o.len()], b[ob]);
                    for i in 0..o.len() {
                        o[i] = f(a[i], y);
                    }
                }
                (0, 1) => {
                    let (x, b) = (a[oa], &b[ob..ob + o.len()]);
                    for i in 0..o.len() {
                        o[i] = f(x, b[i]);
                    }
                }
                (1, 1) => {
                    let (a, b) = (&a[oa..oa + o.len()], &b[ob..ob + o.len()]);
                    for i in 0..o.len() {
                        o[i] = f(a[i], b[i]);
                    }
                }
                _ => o.fill(f(a[oa], b[ob])),
            }
        }
    });
    par::for_each_rows3(&mut o, len, par::rows_per_chunk(len * work), f0, f1, f2);
    Ok(DynData::wrap(o))
}

/// `index`'s elements of `d`, of any dtype.
/// For each element of `out` (row-major), the position in the operand that
/// `source(multi_index)` names.
fn index_map(out: &[usize], source: impl Fn(&[usize]) -> usize) -> Vec<usize> {
    let n: usize = out.iter().product();
    let mut idx = vec![0usize; out.len()];
    let mut map = Vec::with_capacity(n);
    for _ in 0..n {
        map.push(source(&idx));
        next_index(&mut idx, out);
    }
    map
}

/// `x` read through an affine map: result element `m` (a multi-index of
/// `out`, row-major) is operand element `source(m)`. The map is affine, so
/// along the last axis it moves by one stride: each result row is a copy,
/// a fill or a strided read from its first element's position.
fn affine_any(d: &DynData, out: &[usize], source: &dyn Fn(&[usize]) -> usize) -> K {
    any!(dispatch, d, |v: T| Ok(DynData::wrap(affine_rows::<T>(
        v, out, source
    ))))
}

fn affine_rows<T: Copy>(v: &[T], out: &[usize], source: &dyn Fn(&[usize]) -> usize) -> Vec<T> {
    let n: usize = out.iter().product();
    let mut o = Vec::with_capacity(n);
    if n == 0 {
        return o;
    }
    let r = out.len();
    if r == 0 {
        o.push(v[source(&[])]);
        return o;
    }
    let len = out[r - 1];
    let mut idx = vec![0usize; r];
    let base0 = source(&idx) as isize;
    let stride = if len > 1 {
        idx[r - 1] = 1;
        let s = source(&idx) as isize - base0;
        idx[r - 1] = 0;
        s
    } else {
        0
    };
    for _ in 0..n / len {
        let b = source(&idx) as isize;
        match stride {
            1 => o.extend_from_slice(&v[b as usize..b as usize + len]),
            0 => o.extend(std::iter::repeat_n(v[b as usize], len)),
            s => o.extend((0..len as isize).map(|j| v[(b + j * s) as usize])),
        }
        next_index(&mut idx[..r - 1], &out[..r - 1]);
    }
    o
}

/// The literal sizes of an aval (an eager value has no symbolic ones).
fn sizes(a: &Aval) -> Vec<usize> {
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(s) => unreachable!("an eager value has no symbolic size ({s})"),
        })
        .collect()
}

/// Runs `p[params]` on `ins`, whose results abstract evaluation gave as
/// `outs`.
pub(super) fn run(
    p: Prim,
    params: &Params,
    ins: &[&DynArray],
    outs: &[Aval],
) -> Result<Vec<DynArray>, String> {
    let unsupported = || {
        let dtypes: Vec<_> = ins.iter().map(|x| x.dtype().name()).collect();
        format!(
            "`{}` has no eager kernel for {}: call it inside a `#[jax::jit]` function",
            p.name,
            dtypes.join(", ")
        )
    };
    // Elementwise operands of one rank may differ in axes of size 1 (a
    // jaxpr broadcasts them implicitly): those are expanded first.
    let expanded: Vec<DynArray>;
    let refs: Vec<&DynArray>;
    let ins = if BROADCASTING.contains(&p.name) && ins.iter().any(|x| needs_expanding(x, &outs[0]))
    {
        let out = sizes(&outs[0]);
        expanded = ins
            .iter()
            .filter(|x| needs_expanding(x, &outs[0]))
            .map(|x| expand(x, &out))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|Unsupported| unsupported())?;
        let mut big = expanded.iter();
        refs = ins
            .iter()
            .map(|&x| {
                if needs_expanding(x, &outs[0]) {
                    big.next().expect("one expansion per such operand")
                } else {
                    x
                }
            })
            .collect();
        &refs[..]
    } else {
        ins
    };
    let datas = kernel(p, params, ins, outs).map_err(|Unsupported| unsupported())?;
    Ok(datas
        .into_iter()
        .zip(outs)
        .map(|(d, a)| {
            DynArray::new(sizes(a), d)
                .expect("a kernel computes its result's size")
                .with_weak(a.weak)
        })
        .collect())
}

/// The elementwise primitives of two operands, whose kernels broadcast an
/// operand's axes of size 1 as they read it.
pub(super) const ZIPPED: &[&str] = &[
    "add", "add_any", "mul", "sub", "div", "rem", "pow", "max", "min", "and", "or", "xor", "eq",
    "ne", "lt", "le", "gt", "ge",
];

/// The elementwise primitives of several operands whose kernels read
/// them at one index (the binary ones broadcast as they go).
const BROADCASTING: &[&str] = &["select_n", "clamp"];

/// Whether an operand of an elementwise primitive must be expanded to the
/// result's shape: neither a scalar nor of that shape.
fn needs_expanding(x: &DynArray, out: &Aval) -> bool {
    x.size() != 1 && x.shape().len() == out.rank() && x.shape() != sizes(out).as_slice()
}

/// `x` broadcast to `out` (same rank, its axes of size 1 repeated).
fn expand(x: &DynArray, out: &[usize]) -> Result<DynArray, Unsupported> {
    let d = any!(dispatch, x.data(), |v: T| Ok(DynData::wrap(
        broadcast::<T>(v, x.shape(), out)
    )))?;
    Ok(DynArray::new(out.to_vec(), d)
        .expect("sized by the shape")
        .with_weak(x.weak_type()))
}

/// `v` (of `shape`, same rank as `out` or a scalar) broadcast to `out`, row
/// by row.
fn broadcast<T: Copy>(v: &[T], shape: &[usize], out: &[usize]) -> Vec<T> {
    let len = out.last().copied().unwrap_or(1);
    let (offsets, step) = rows(shape, out);
    let mut o = Vec::with_capacity(out.iter().product());
    for at in offsets {
        if step == 1 {
            o.extend_from_slice(&v[at..at + len]);
        } else {
            o.extend(std::iter::repeat_n(v[at], len));
        }
    }
    o
}

fn kernel(
    p: Prim,
    params: &Params,
    ins: &[&DynArray],
    outs: &[Aval],
) -> Result<Vec<DynData>, Unsupported> {
    let x = || ins[0].data();
    let y = || ins[1].data();
    let sx = || ins[0].shape();
    let sy = || ins[1].shape();
    let w = p.work;
    let out = outs.first().map(sizes).unwrap_or_default();
    let one = |d: K| d.map(|d| vec![d]);
    match p.name {
        // Elementwise, one operand.
        "exp" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::exp::<T>))),
        "log" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::log::<T>))),
        "log1p" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::log1p::<T>))),
        "expm1" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::expm1::<T>))),
        "sin" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::sin::<T>))),
        "cos" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::cos::<T>))),
        "tanh" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::tanh::<T>))),
        "sqrt" => one(inexact!(dispatch, x(), |v: T| map(v, w, ops::sqrt::<T>))),
        "rsqrt" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::rsqrt::<T>))),
        "logistic" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::logistic::<T>))),
        "exp2" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::exp2::<T>))),
        "tan" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::tan::<T>))),
        "erf" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::erf::<T>))),
        "erfc" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::erfc::<T>))),
        "erf_inv" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::erf_inv::<T>))),
        "lgamma" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::lgamma::<T>))),
        "digamma" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::digamma::<T>))),
        "floor" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::floor::<T>))),
        "ceil" => one(floats!(dispatch, x(), |v: T| map(v, w, ops::ceil::<T>))),
        "is_finite" => one(floats!(dispatch, x(), |v: T| map(
            v,
            w,
            ops::is_finite::<T>
        ))),
        "round" => {
            let even = matches!(params, Params::Rounding(1));
            one(reals!(dispatch, x(), |v: T| if even {
                map(v, w, ops::round_even::<T>)
            } else {
                map(v, w, ops::round::<T>)
            }))
        }
        "neg" => one(numbers!(dispatch, x(), |v: T| map(v, w, ops::neg::<T>))),
        "sign" => one(reals!(dispatch, x(), |v: T| map(v, w, ops::sign::<T>))),
        "abs" => one(reals!(dispatch, x(), |v: T| map(v, w, ops::abs::<T>))),
        "square" => one(numbers!(dispatch, x(), |v: T| map(v, w, ops::square::<T>))),
        "not" => one(logical!(dispatch, x(), |v: T| map(v, w, ops::not::<T>))),
        "stop_gradient" | "copy" => Ok(vec![x().clone()]),
        "integer_pow" => {
            let Params::IntegerPow(n) = params else {
                return unsupported();
            };
            let n = *n as i32;
            one(numbers!(dispatch, x(), |v: T| map(v, w, |e| {
                ops::integer_pow::<T>(e, n)
            })))
        }
        "convert_element_type" => Ok(vec![ins[0].astype(outs[0].dtype).into_parts().1]),
        // Elementwise, two operands.
        "add" | "add_any" => one(numbers!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::add::<T>
        ))
        .or_else(|_| match (x(), y()) {
            (DynData::Bool(a), DynData::Bool(b)) => {
                zip((a, sx()), (b, sy()), &out, w, |p, q| p | q)
            }
            _ => unsupported(),
        })),
        "mul" => one(numbers!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::mul::<T>
        ))
        .or_else(|_| match (x(), y()) {
            (DynData::Bool(a), DynData::Bool(b)) => {
                zip((a, sx()), (b, sy()), &out, w, |p, q| p & q)
            }
            _ => unsupported(),
        })),
        "sub" => one(numbers!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::sub::<T>
        ))),
        "div" => one(numbers!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::div::<T>
        ))),
        "rem" => one(reals!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::rem::<T>
        ))),
        "pow" => one(floats!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::pow::<T>
        ))),
        "atan2" => one(floats!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::atan2::<T>
        ))),
        "max" => one(ordered!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::max::<T>
        ))),
        "min" => one(ordered!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::min::<T>
        ))),
        "and" => one(logical!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::and::<T>
        ))),
        "or" => one(logical!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::or::<T>
        ))),
        "xor" => one(logical!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::xor::<T>
        ))),
        "eq" => one(any!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            |p: T, q: T| p == q
        ))),
        "ne" => one(any!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            |p: T, q: T| p != q
        ))),
        "lt" => one(ordered!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::lt::<T>
        ))),
        "le" => one(ordered!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::le::<T>
        ))),
        "gt" => one(ordered!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::gt::<T>
        ))),
        "ge" => one(ordered!(dispatch2, x(), y(), |a, b: T| zip(
            (a, sx()),
            (b, sy()),
            &out,
            w,
            ops::ge::<T>
        ))),
        "select_n" => one(select_n(ins, &out, w)),
        "clamp" => one(clamp(ins)),
        // Reductions.
        "reduce_sum" | "reduce_max" | "reduce_min" | "reduce_prod" | "reduce_and" | "reduce_or" => {
            let Params::Axes(axes, _) = params else {
                return unsupported();
            };
            one(reduce(p.name, ins[0], axes))
        }
        "argmax" | "argmin" => {
            let Params::ArgReduce { axis, .. } = params else {
                return unsupported();
            };
            let (shape, axis, max) = (ins[0].shape(), *axis, p.name == "argmax");
            let idx: Vec<i64> = ordered!(dispatch, x(), |v: T| Ok(reduce_lanes(
                v,
                shape,
                &[axis],
                |l: &[T]| arg_lane::<T>(p.name, l, max)
            )))?;
            let d = DynArray::from_vec(vec![idx.len()], idx).expect("one index per lane");
            Ok(vec![d.astype(outs[0].dtype).into_parts().1])
        }
        // Shapes.
        "reshape" | "squeeze" => Ok(vec![x().clone()]),
        "broadcast_in_dim" => {
            let Params::BroadcastInDim { dims, .. } = params else {
                return unsupported();
            };
            let (shape, st) = (ins[0].shape(), strides(ins[0].shape()));
            one(affine_any(x(), &sizes(&outs[0]), &|m| {
                dims.iter()
                    .enumerate()
                    .map(|(k, &d)| if shape[k] == 1 { 0 } else { m[d] * st[k] })
                    .sum()
            }))
        }
        "transpose" => {
            let Params::Transpose { perm } = params else {
                return unsupported();
            };
            let st = strides(ins[0].shape());
            one(affine_any(x(), &sizes(&outs[0]), &|m| {
                perm.iter().enumerate().map(|(k, &p)| m[k] * st[p]).sum()
            }))
        }
        "rev" => {
            let Params::Rev { dims } = params else {
                return unsupported();
            };
            let (shape, st) = (ins[0].shape(), strides(ins[0].shape()));
            one(affine_any(x(), shape, &|m| {
                (0..shape.len())
                    .map(|k| {
                        let i = if dims.contains(&k) {
                            shape[k] - 1 - m[k]
                        } else {
                            m[k]
                        };
                        i * st[k]
                    })
                    .sum()
            }))
        }
        "slice" => {
            let Params::Slice {
                start,
                strides: step,
                ..
            } = params
            else {
                return unsupported();
            };
            let st = strides(ins[0].shape());
            one(affine_any(x(), &sizes(&outs[0]), &|m| {
                (0..m.len())
                    .map(|k| (start[k] + m[k] * step.as_ref().map_or(1, |s| s[k])) * st[k])
                    .sum()
            }))
        }
        "concatenate" => {
            let Params::Concatenate { dim } = params else {
                return unsupported();
            };
            one(concatenate(ins, *dim))
        }
        // The operands seen with a size-1 axis at `axis`: the same blocks
        // in the same order as concatenating along it.
        "stack" => {
            let Params::Stack { axis } = params else {
                return unsupported();
            };
            one(concatenate(ins, *axis))
        }
        "iota" => {
            let Params::Iota {
                dtype, dimension, ..
            } = params
            else {
                return unsupported();
            };
            let shape = sizes(&outs[0]);
            let d = match dtype {
                jax_dtypes::DType::I32 => DynData::I32(crate::__rt::iota(&shape, *dimension)),
                jax_dtypes::DType::I64 => DynData::I64(crate::__rt::iota(&shape, *dimension)),
                jax_dtypes::DType::U32 => DynData::U32(crate::__rt::iota(&shape, *dimension)),
                jax_dtypes::DType::U64 => DynData::U64(crate::__rt::iota(&shape, *dimension)),
                jax_dtypes::DType::F32 => DynData::F32(crate::__rt::iota(&shape, *dimension)),
                jax_dtypes::DType::F64 => DynData::F64(crate::__rt::iota(&shape, *dimension)),
                _ => {
                    let st = strides(&shape);
                    let n: usize = shape.iter().product();
                    let v: Vec<f64> = (0..n)
                        .map(|i| ((i / st[*dimension]) % shape[*dimension]) as f64)
                        .collect();
                    DynArray::from_f64(*dtype, shape, &v)
                        .expect("sized by the shape")
                        .into_parts()
                        .1
                }
            };
            Ok(vec![d])
        }
        "real" => one(match x() {
            DynData::C64(v) => Ok(DynData::F32(v.iter().map(|c| c.re).collect())),
            DynData::C128(v) => Ok(DynData::F64(v.iter().map(|c| c.re).collect())),
            _ => unsupported(),
        }),
        "conj" => one(match x() {
            DynData::C64(v) => Ok(DynData::C64(v.iter().map(|c| c.conj()).collect())),
            DynData::C128(v) => Ok(DynData::C128(v.iter().map(|c| c.conj()).collect())),
            _ => unsupported(),
        }),
        "dot_general" => {
            let Params::DotGeneral {
                lhs_contract,
                rhs_contract,
                lhs_batch,
                rhs_batch,
                ..
            } = params
            else {
                return unsupported();
            };
            if outs[0].dtype != ins[0].dtype() {
                return unsupported();
            }
            let dims = (
                (&lhs_contract[..], &rhs_contract[..]),
                (&lhs_batch[..], &rhs_batch[..]),
            );
            one(numbers!(dispatch2, x(), y(), |a, b: T| Ok(DynData::wrap(
                crate::lax::dot_general_raw::<T>(a, sx(), b, sy(), dims)
            ))))
        }
        "qr" => {
            let Params::Qr { full_matrices, .. } = params else {
                return unsupported();
            };
            let s = sx();
            let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
            let batch: usize = s[..s.len() - 2].iter().product();
            let k = if *full_matrices { m } else { m.min(n) };
            let full = *full_matrices;
            match x() {
                DynData::F32(a) => {
                    let (mut q, mut r) = (vec![0f32; batch * m * k], vec![0f32; batch * k * n]);
                    crate::__rt::linalg::qr_f32(a, &mut q, &mut r, batch, m, n, full);
                    Ok(vec![DynData::F32(q), DynData::F32(r)])
                }
                DynData::F64(a) => {
                    let (mut q, mut r) = (vec![0f64; batch * m * k], vec![0f64; batch * k * n]);
                    crate::__rt::linalg::qr_f64(a, &mut q, &mut r, batch, m, n, full);
                    Ok(vec![DynData::F64(q), DynData::F64(r)])
                }
                _ => unsupported(),
            }
        }
        "conv_general_dilated" => {
            let Params::Conv(c) = params else {
                return unsupported();
            };
            if outs[0].dtype != ins[0].dtype() {
                return unsupported();
            }
            // The checked convolution the jitted kernel runs, from the
            // primitive's parameters (padding already explicit).
            let spec = jax_dtypes::conv::ConvSpec::with_perms(
                sx(),
                sy(),
                &c.window_strides,
                &jax_dtypes::conv::Padding::Explicit(c.padding.clone()),
                Some(&c.lhs_dilation),
                Some(&c.rhs_dilation),
                c.specs.clone(),
                c.feature_group_count,
                c.batch_group_count,
            )
            .map_err(|_| Unsupported)?;
            one(numbers!(dispatch2, x(), y(), |a, b: T| Ok(DynData::wrap(
                crate::lax::conv::conv_raw::<T>(a, b, &spec)
            ))))
        }
        "pad" => {
            let Params::Pad { config, .. } = params else {
                return unsupported();
            };
            let (x, value) = (ins[0], ins[1]);
            one(any!(dispatch, x.data(), |v: T| {
                let fill = value.data().as_slice_of::<T>().ok_or(Unsupported)?[0];
                Ok(DynData::wrap(crate::__rt::pad(v, x.shape(), config, fill)))
            }))
        }
        "random_split"
        | "random_fold_in"
        | "random_bits"
        | "random_uniform"
        | "random_normal"
        | "random_exponential"
        | "random_gumbel"
        | "random_truncated_normal" => random(p.name, params, ins, &out),
        "cumsum" | "cumprod" | "cummax" | "cummin" => {
            let Params::Cumulative { axis, reverse } = params else {
                return unsupported();
            };
            use crate::__rt::cumulative as c;
            let (axis, reverse, name) = (*axis, *reverse, p.name);
            one(ordered!(dispatch, x(), |v: T| Ok(DynData::wrap(
                match name {
                    "cumsum" => c::cumsum(v, sx(), axis, reverse),
                    "cumprod" => c::cumprod(v, sx(), axis, reverse),
                    "cummax" => c::cummax(v, sx(), axis, reverse),
                    _ => c::cummin(v, sx(), axis, reverse),
                }
            ))))
        }
        "reduce_window_sum" | "reduce_window_max" | "reduce_window_min" => {
            let Params::Window(w) = params else {
                return unsupported();
            };
            use crate::__rt::WindowFold;
            let fold = match p.name {
                "reduce_window_sum" => WindowFold::Sum,
                "reduce_window_max" => WindowFold::Max,
                _ => WindowFold::Min,
            };
            one(reals!(dispatch, x(), |v: T| Ok(DynData::wrap(
                crate::__rt::reduce_window(
                    v,
                    sx(),
                    &w.window_dimensions,
                    &w.window_strides,
                    &w.padding,
                    &w.base_dilation,
                    &w.window_dilation,
                    fold,
                )
            ))))
        }
        "sort" => {
            let Params::Sort {
                dimension,
                num_keys,
                ..
            } = params
            else {
                return unsupported();
            };
            sort(ins, *dimension, *num_keys)
        }
        "tile" => {
            let Params::Tile { reps } = params else {
                return unsupported();
            };
            one(any!(dispatch, x(), |v: T| Ok(DynData::wrap(
                crate::__rt::tile(v, sx(), reps)
            ))))
        }
        "gather" => {
            let Params::Gather(g) = params else {
                return unsupported();
            };
            one(gather(ins[0], ins[1], g, &out))
        }
        "svd" => {
            let Params::Svd {
                full_matrices,
                compute_uv,
            } = params
            else {
                return unsupported();
            };
            svd(x(), sx(), outs, *full_matrices, *compute_uv)
        }
        _ => unsupported(),
    }
}
