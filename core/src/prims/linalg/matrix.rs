//! The matrix helpers every linear-algebra rule and `jnp::linalg` handler
//! is written with, in one place: JAX's `_T`, `_tril`, `_triu`, `lax._eye`,
//! batched matmul, `x[..., i:j, k:l]` and `lax.pad` of the last two axes;
//! and the `PrimDef` scaffolding the decomposition primitives (`lu`, `qr`,
//! `eigh`, `svd`, `eig`, `cholesky`) share: JAX's operand checks with its
//! messages, printing of Python values, and the batch rule that moves the
//! batch axis first.

use std::ops::Range;

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::builder::literal;
use crate::ir::primitive::{AbstractEval, FlopsRule, KernelCall, ParseParams, PrintParams};
use crate::ir::rules::tangent_aval;
use crate::ir::shapes::{same_dim, Constraints};
use crate::ir::{rust_type, Atom, Aval, Dim, Scalar};
use crate::prims::{
    self, tuple, BDim, Batch, Ctx, JvpRule, Kernel, Lowering, Params, PrimDef, Res,
};

// ---------------------------------------------------------------------------
// Printing and sizes.

/// A Python bool as `make_jaxpr` prints it.
pub fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The shape's dims as JAX prints a shape tuple: `(3, 2)`.
pub fn shape_tuple(dims: &[Dim]) -> String {
    tuple(dims)
}

/// The last two axes as a Python tuple, as JAX's linalg shape rules print them.
pub fn matrix_shape(a: &Aval) -> String {
    tuple(&a.shape[a.rank().saturating_sub(2)..])
}

/// A literal size as a float (flop counts); `None` for a symbolic one.
pub fn lit(d: &Dim) -> Option<f64> {
    match d {
        Dim::Lit(n) => Some(*n as f64),
        Dim::Sym(_) => None,
    }
}

/// A literal size, or the error of `what` for a symbolic one.
pub fn lit_dim(d: &Dim, what: &str) -> Result<usize, String> {
    match d {
        Dim::Lit(n) => Ok(*n),
        Dim::Sym(s) => Err(format!(
            "{what} of a matrix with the symbolic dimension {s} is not supported yet: use a literal size"
        )),
    }
}

/// Every size of a shape, symbolic ones as 0 (for slicing already-checked
/// static shapes).
fn static_sizes(shape: &[Dim]) -> Vec<usize> {
    shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 0,
        })
        .collect()
}

/// The runtime entry point of a dtype: `NAME_f32`, `NAME_f64`, `NAME_c64`
/// or `NAME_c128`.
pub fn entry(name: &str, dtype: DType) -> proc_macro2::Ident {
    let suffix = match dtype {
        DType::F64 | DType::C64 | DType::C128 => dtype.short_name(),
        _ => "f32",
    };
    quote::format_ident!("{name}_{suffix}")
}

/// `<T as Element>::ZERO` of `dtype`'s Rust type, to fill output buffers.
pub fn zero_tokens(dtype: DType) -> TokenStream {
    let ty = rust_type(dtype);
    quote!(<#ty as ::jax::Element>::ZERO)
}

// ---------------------------------------------------------------------------
// Dtypes: real and complex matrices.

/// The dtypes the runtime's factorizations run on (as LAPACK's: f32, f64,
/// complex64, complex128).
pub fn linalg_dtype(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F64 | DType::C64 | DType::C128)
}

/// complex64 or complex128.
pub fn is_complex(d: DType) -> bool {
    matches!(d, DType::C64 | DType::C128)
}

/// The real dtype of a complex one (itself for a real one): the dtype of
/// singular values and of `eigh`'s eigenvalues.
pub fn real_dtype(d: DType) -> DType {
    match d {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    }
}

/// A derivative rule written for real matrices only: an error naming `what`
/// for a complex operand, never a wrong answer.
pub fn real_derivative_only(what: &str, a: &Aval) -> Res<()> {
    if is_complex(a.dtype) {
        return Err(format!(
            "the derivative of {what} of a {} matrix is not supported yet (complex matrices work in jit without derivatives, and eagerly)",
            a.dtype.name()
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Operand checks (abstract evaluation), with JAX's messages.

/// JAX's `linalg_shape_rule` and dtype rule for the operands of a linear-algebra
/// primitive whose operands are batches of matrices (`ranks[i]` trailing
/// axes each) over the same batch axes: operands of one of the runtime's
/// dtypes ([`linalg_dtype`], complex included), all the same.
pub fn check_linalg_operands(
    name: &str,
    ops: &[Aval],
    ranks: &[usize],
    c: &mut Constraints,
) -> Result<(), String> {
    for (i, x) in ops.iter().enumerate() {
        if !linalg_dtype(x.dtype) {
            return Err(dtype_error(name, i, x.dtype));
        }
    }
    for (i, (x, &r)) in ops.iter().zip(ranks).enumerate() {
        if x.rank() < r {
            return Err(rank_error(name, i, r, x));
        }
    }
    let batch: Vec<&[Dim]> = ops
        .iter()
        .zip(ranks)
        .map(|(x, &r)| &x.shape[..x.rank() - r])
        .collect();
    if batch.iter().any(|b| b.len() != batch[0].len()) {
        let lens: Vec<String> = batch.iter().map(|b| b.len().to_string()).collect();
        return Err(format!(
            "All inputs to {name} must have the same number of batch dimensions, but got [{}] batch dimensions for the inputs.",
            lens.join(", ")
        ));
    }
    for (i, b) in batch.iter().enumerate().skip(1) {
        let why = format!("the batch dimensions of the inputs to {name} must be equal");
        if !b.iter().zip(batch[0]).all(|(x, y)| same_dim(x, y, &why, c)) {
            return Err(format!(
                "All inputs to {name} must have the same batch dimensions, but input {i} has {} and input 0 has {}.",
                shape_tuple(b),
                shape_tuple(batch[0])
            ));
        }
    }
    if ops.iter().any(|x| x.dtype != ops[0].dtype) {
        let names: Vec<&str> = ops.iter().map(|x| x.dtype.name()).collect();
        return Err(format!(
            "lax.{name} requires arguments to have the same dtypes, got {}.",
            names.join(", ")
        ));
    }
    Ok(())
}

/// `linalg_shape_rule`'s rank check of a one-operand primitive: a batch of
/// matrices, rank >= 2.
pub fn check_matrix_rank(name: &str, a: &Aval) -> Result<(), String> {
    if a.rank() < 2 {
        return Err(rank_error(name, 0, 2, a));
    }
    Ok(())
}

/// `linalg_shape_rule`'s rank message.
fn rank_error(name: &str, i: usize, rank: usize, a: &Aval) -> String {
    format!(
        "Input {i} to {name} must have rank at least {rank}, but got shape={}",
        tuple(&a.shape)
    )
}

/// `linalg_primitive`'s dtype message (`_float | _complex`).
fn dtype_error(name: &str, i: usize, dtype: DType) -> String {
    format!(
        "{name} does not accept dtype {} at position {i}. Accepted dtypes at position {i} are subtypes of floating, complexfloating.",
        dtype.name()
    )
}

/// The batch's element count and the last two axes' sizes of a one-operand
/// decomposition's operand, or JAX's rank error; symbolic sizes are not
/// supported yet.
pub fn matrix_dims(name: &str, a: &Aval) -> Result<(usize, usize, usize), String> {
    check_matrix_rank(name, a)?;
    let lits = a
        .shape
        .iter()
        .map(|d| lit_dim(d, name))
        .collect::<Result<Vec<_>, _>>()?;
    let r = lits.len();
    Ok((lits[..r - 2].iter().product(), lits[r - 2], lits[r - 1]))
}

/// JAX's dtype rule of the decompositions (`_float | _complex`) for those
/// still real-only here (`qr`, `eig`): f32 and f64, complex matrices not
/// supported yet.
pub fn float_operand(name: &str, a: &Aval) -> Result<(), String> {
    if matches!(a.dtype, DType::F32 | DType::F64) {
        return Ok(());
    }
    if a.dtype.is_inexact() {
        return Err(format!(
            "{name} of {} is not supported yet: use f32 or f64",
            a.dtype.name()
        ));
    }
    Err(dtype_error(name, 0, a.dtype))
}

/// The dtype rule of the decompositions that take complex matrices (`lu`,
/// `eigh`, `svd`): f32, f64, complex64 and complex128.
pub fn linalg_operand(name: &str, a: &Aval) -> Result<(), String> {
    if linalg_dtype(a.dtype) {
        return Ok(());
    }
    if a.dtype.is_inexact() {
        return Err(format!(
            "{name} of {} is not supported yet: use f32, f64, complex64 or complex128",
            a.dtype.name()
        ));
    }
    Err(dtype_error(name, 0, a.dtype))
}

/// A one-operand real-only decomposition's operand checked (rank >= 2,
/// f32/f64, literal sizes): `(batch, m, n)`.
pub fn decomposition_operand(name: &str, a: &Aval) -> Result<(usize, usize, usize), String> {
    let dims = matrix_dims(name, a)?;
    float_operand(name, a)?;
    Ok(dims)
}

/// A one-operand decomposition's operand checked as
/// [`decomposition_operand`] does, complex matrices accepted too.
pub fn complex_decomposition_operand(
    name: &str,
    a: &Aval,
) -> Result<(usize, usize, usize), String> {
    let dims = matrix_dims(name, a)?;
    linalg_operand(name, a)?;
    Ok(dims)
}

/// The aval of `a`'s batch with last two axes `rows × cols` of `dtype`.
pub fn with_last_two(a: &Aval, rows: usize, cols: usize, dtype: DType) -> Aval {
    let r = a.rank();
    let mut shape = a.shape[..r - 2].to_vec();
    shape.extend([Dim::Lit(rows), Dim::Lit(cols)]);
    Aval {
        dtype,
        shape,
        weak: false,
    }
}

/// The `PrimDef` of a one-operand decomposition (`cholesky`, `lu`, `qr`,
/// `eigh`, `svd`, `eig`): its parameters printed and read back, a kernel
/// call, a jvp, the batch rule that moves the batch axis first
/// ([`front_batch`]), a LAPACK flop count when known, and `work` per
/// element for the cost model.
#[allow(clippy::too_many_arguments)]
pub const fn decomposition(
    name: &'static str,
    abstract_eval: AbstractEval,
    print_params: PrintParams,
    parse_params: ParseParams,
    call: KernelCall,
    jvp: JvpRule,
    flops: Option<FlopsRule>,
    work: usize,
) -> PrimDef {
    PrimDef {
        name,
        abstract_eval,
        print_params,
        parse_params,
        lowering: Lowering::Kernel,
        kernel: Some(Kernel {
            updates: None,
            unread: &[],
            call,
        }),
        jvp: Some(jvp),
        batch: Some(front_batch),
        flops,
        work,
        ..PrimDef::BASE
    }
}

/// JAX's `expand_dims_batcher` for the one-operand decompositions: the batch
/// axis moved first, where these primitives take their batch of matrices;
/// every result batched on axis 0.
pub fn front_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let size = bx.size.clone();
    let x = bx.at_front(ins[0].clone(), dims[0], size)?;
    let prim = bx.prim;
    let outs = bx.bind_all(prim, p.clone(), vec![x])?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}

// ---------------------------------------------------------------------------
// Builders over the last two axes, the leading ones a batch.

/// `_T(x)` (and `_H` of a real matrix): the last two axes swapped.
pub fn matrix_transpose(cx: &mut Ctx, x: Atom) -> Res<Atom> {
    let r = cx.aval(&x).rank();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    cx.bind(&prims::TRANSPOSE, Params::Transpose { perm }, vec![x])
}

/// `lax.dot` of two matrices, or `lax.batch_matmul` over equal leading axes.
pub fn batch_matmul(cx: &mut Ctx, x: Atom, y: Atom) -> Res<Atom> {
    let r = cx.aval(&x).rank();
    let batch: Vec<usize> = (0..r - 2).collect();
    let preferred = cx.aval(&x).dtype;
    cx.bind(
        &prims::DOT_GENERAL,
        Params::DotGeneral {
            lhs_contract: vec![r - 1],
            rhs_contract: vec![r - 2],
            lhs_batch: batch.clone(),
            rhs_batch: batch,
            preferred,
        },
        vec![x, y],
    )
}

/// `x - y`.
pub fn sub(cx: &mut Ctx, x: Atom, y: Atom) -> Res<Atom> {
    cx.bin(&prims::SUB, x, y)
}

/// A scalar of `dtype`.
pub fn scalar(v: f64, dtype: DType) -> Atom {
    literal(
        crate::ir::cast_scalar(Scalar::Float(v), dtype),
        Aval::scalar(dtype, false),
    )
}

/// JAX's `lax._tri(bool, (n, m), k)` over the last two axes of `shape`,
/// broadcast over the leading ones: `iota0 + k >= iota1`.
fn tri_mask(cx: &mut Ctx, shape: &[Dim], k: i64) -> Res<Atom> {
    let r = shape.len();
    let last2 = shape[r - 2..].to_vec();
    let iota = |cx: &mut Ctx, dimension| {
        cx.bind(
            &prims::IOTA,
            Params::Iota {
                dtype: DType::I32,
                shape: last2.clone(),
                dimension,
            },
            vec![],
        )
    };
    let rows = iota(cx, 0)?;
    let k = literal(Scalar::Int(k as i128), Aval::scalar(DType::I32, false));
    let rows = cx.bin(&prims::ADD, rows, k)?;
    let cols = iota(cx, 1)?;
    let mask = cx.bin(&prims::GE, rows, cols)?;
    if r == 2 {
        return Ok(mask);
    }
    cx.bind(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: shape.to_vec(),
            dims: vec![r - 2, r - 1],
            np_ints: 0,
        },
        vec![mask],
    )
}

/// `_tril(m, k)`: the elements on and below diagonal `k`, zeros above.
pub fn tril(cx: &mut Ctx, x: Atom, k: i64) -> Res<Atom> {
    let a = cx.aval(&x);
    let mask = tri_mask(cx, &a.shape, k)?;
    let z = cx.zeros(&tangent_aval(&a))?;
    cx.select(mask, z, x)
}

/// `_triu(m, k)`: the elements on and above diagonal `k`, zeros below.
pub fn triu(cx: &mut Ctx, x: Atom, k: i64) -> Res<Atom> {
    let a = cx.aval(&x);
    let mask = tri_mask(cx, &a.shape, k - 1)?;
    let z = cx.zeros(&tangent_aval(&a))?;
    cx.select(mask, x, z)
}

/// The identity of `shape`'s last two axes, broadcast over the leading
/// ones: `eq(iota0, iota1)` converted to `dtype` (`lax._eye`; a rectangular
/// `shape` gives ones on the main diagonal).
pub fn eye(cx: &mut Ctx, dtype: DType, shape: &[Dim]) -> Res<Atom> {
    let r = shape.len();
    let iota = |cx: &mut Ctx, d| {
        cx.bind(
            &prims::IOTA,
            Params::Iota {
                dtype: DType::I32,
                shape: shape.to_vec(),
                dimension: d,
            },
            Vec::new(),
        )
    };
    let (i, j) = (iota(cx, r - 2)?, iota(cx, r - 1)?);
    let same = cx.bin(&prims::EQ, i, j)?;
    cx.convert(same, dtype)
}

/// The identity with `like`'s dtype and shape.
pub fn eye_like(cx: &mut Ctx, like: &Aval) -> Res<Atom> {
    eye(cx, like.dtype, &like.shape)
}

/// `x` (shape `[.., k]`) along a new axis `at` of `shape` (`x[.., None, :]`
/// for `at = r - 2`, `x[.., :, None]` for `at = r - 1`).
pub fn spread(cx: &mut Ctx, x: Atom, shape: &[Dim], at: usize) -> Res<Atom> {
    let dims: Vec<usize> = (0..shape.len()).filter(|&d| d != at).collect();
    prims::broadcast_dims(cx, x, shape, &dims)
}

/// The diagonal of the last two axes (`_extract_diagonal`): a mask with
/// the identity and a sum, linear in `x`.
pub fn diagonal(cx: &mut Ctx, x: Atom) -> Res<Atom> {
    let a = cx.aval(&x);
    let r = a.rank();
    let e = eye(cx, a.dtype, &a.shape)?;
    let masked = cx.mul(x, e)?;
    cx.bind(
        &prims::REDUCE_SUM,
        Params::Axes(vec![r - 1], 0),
        vec![masked],
    )
}

/// `x[..., r0, r1, ..]` with static ranges over the trailing axes (as many
/// as `ranges`); `x` itself when they cover it.
fn slice_trailing(cx: &mut Ctx, x: Atom, ranges: &[Range<usize>]) -> Res<Atom> {
    let a = cx.aval(&x);
    let first = a.rank() - ranges.len();
    let mut start = vec![0; a.rank()];
    let mut limit = static_sizes(&a.shape);
    if ranges
        .iter()
        .zip(&limit[first..])
        .all(|(r, &n)| *r == (0..n))
    {
        return Ok(x);
    }
    for (k, r) in ranges.iter().enumerate() {
        start[first + k] = r.start;
        limit[first + k] = r.end;
    }
    cx.bind(
        &prims::SLICE,
        Params::Slice {
            start,
            limit,
            strides: None,
        },
        vec![x],
    )
}

/// `x[..., rows, cols]`: a block of the last two axes (static ranges); `x`
/// itself when the block is all of it.
pub fn block(cx: &mut Ctx, x: Atom, rows: Range<usize>, cols: Range<usize>) -> Res<Atom> {
    slice_trailing(cx, x, &[rows, cols])
}

/// `x[..., i, j]`: element `(i, j)` of every matrix, as the batch's shape.
pub fn element(cx: &mut Ctx, x: Atom, i: usize, j: usize) -> Res<Atom> {
    let r = cx.aval(&x).rank();
    let s = slice_trailing(cx, x, &[i..i + 1, j..j + 1])?;
    squeeze(cx, s, vec![r - 2, r - 1])
}

/// `x[..., j]`: entry `j` of the last axis, as the batch's shape.
pub fn element_last(cx: &mut Ctx, x: Atom, j: usize) -> Res<Atom> {
    let r = cx.aval(&x).rank();
    let s = slice_trailing(cx, x, std::slice::from_ref(&(j..j + 1)))?;
    squeeze(cx, s, vec![r - 1])
}

fn squeeze(cx: &mut Ctx, x: Atom, dims: Vec<usize>) -> Res<Atom> {
    cx.bind(&prims::SQUEEZE, Params::Squeeze { dims }, vec![x])
}

/// `lax.pad(x, 0, ..)` of the last two axes: `x` placed at row `at.0`,
/// column `at.1` of a `rows × cols` matrix of zeros (the leading axes
/// unpadded).
pub fn pad_block(cx: &mut Ctx, x: Atom, rows: usize, cols: usize, at: (usize, usize)) -> Res<Atom> {
    let a = cx.aval(&x);
    let r = a.rank();
    let sizes = static_sizes(&a.shape);
    let (h, w) = (sizes[r - 2], sizes[r - 1]);
    if (h, w) == (rows, cols) {
        return Ok(x);
    }
    let mut config = vec![(0i64, 0i64, 0i64); r];
    config[r - 2] = (at.0 as i64, (rows - at.0 - h) as i64, 0);
    config[r - 1] = (at.1 as i64, (cols - at.1 - w) as i64, 0);
    let zero = scalar(0.0, a.dtype);
    cx.bind(
        &prims::PAD,
        Params::Pad { config, np_ints: 0 },
        vec![x, zero],
    )
}

/// A decomposition's square check: `m == n`, else the error `message`
/// makes of the last two axes' tuple (each primitive words it as JAX does).
pub fn check_square(
    a: &Aval,
    (m, n): (usize, usize),
    message: impl FnOnce(&str) -> String,
) -> Result<(), String> {
    if m == n {
        Ok(())
    } else {
        Err(message(&matrix_shape(a)))
    }
}
