//! `jax.numpy.linalg`'s compositions of the decompositions, written once
//! over [`Lax`]: `norm` (vector, matrix and spectral norms), `pinv` (a
//! custom derivative, JAX's `_pinv_jvp`), `matrix_rank` and `lstsq`, with
//! the ops JAX's `numpy/linalg.py` binds, so jitted bodies trace the jaxprs
//! `jax.make_jaxpr` prints and eager calls run the same text.
//!
//! The checks of arguments and options are functions of their own
//! ([`matrix_shape`], [`norm_axes`], [`lstsq_shapes`]) returning a
//! [`Rejected`] that names the argument or option at fault: the compiler
//! points its error at those tokens, the runtime panics with the message;
//! the composites run the same checks, so each message is written once.

use jax_dtypes::DType;

use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{self, raise, rejected, Fault, Reduction, Rejected, Res};
use crate::lax::Lax;
use crate::prims;
use crate::prims::linalg::matrix::{is_complex, lit_dim};

/// `finfo(dtype).eps`.
fn eps(dtype: DType) -> f64 {
    if dtype == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// `v` rounded to `dtype`, as JAX computes a constant in it.
fn round(v: f64, dtype: DType) -> f64 {
    if dtype == DType::F32 {
        v as f32 as f64
    } else {
        v
    }
}

/// A (strongly typed) scalar of `dtype`.
fn typed<L: Lax>(l: &mut L, v: f64, dtype: DType) -> L::V {
    l.literal(
        cast_scalar(Scalar::Float(v), dtype),
        Aval::scalar(dtype, false),
    )
}

/// The last two sizes of a matrix operand (or a batch of them) of
/// `jnp::linalg::{name}`, the argument at `arg`; real only (these compose
/// real-valued steps: cutoffs against `eps`, orders of singular values).
pub fn matrix_shape(a: &Aval, name: &str, arg: usize) -> Result<(usize, usize), Rejected> {
    if is_complex(a.dtype) {
        return rejected(
            Fault::Arg(arg),
            format!("`jnp::linalg::{name}` of a complex matrix is not supported yet; call it on a real matrix"),
        );
    }
    if a.rank() < 2 {
        return rejected(
            Fault::Arg(arg),
            format!(
                "`jnp::linalg::{name}` takes a matrix or a batch of them ([.., M, N]), got {a}"
            ),
        );
    }
    let r = a.rank();
    let size = |d: &Dim| {
        lit_dim(d, name).map_err(|msg| Rejected {
            what: Fault::Arg(arg),
            msg,
        })
    };
    Ok((size(&a.shape[r - 2])?, size(&a.shape[r - 1])?))
}

/// The operand as an inexact matrix, and its last two sizes.
fn matrix<L: Lax>(l: &mut L, x: L::V, name: &str) -> Res<L, (L::V, usize, usize)> {
    let x = jnp::to_float(l, x)?;
    let (m, n) = raise(l, matrix_shape(&l.aval(&x), name, 0))?;
    Ok((x, m, n))
}

/// `_T(x)`: the last two axes swapped.
fn mt<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let r = l.aval(&x).rank();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    l.transpose(x, perm)
}

/// `lax.dot` of two matrices, or `lax.batch_matmul` over equal leading axes.
fn matmul<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    let r = l.aval(&x).rank();
    let batch: Vec<usize> = (0..r - 2).collect();
    let preferred = l.aval(&x).dtype;
    l.dot_general(
        x,
        y,
        (vec![r - 1], vec![r - 2]),
        (batch.clone(), batch),
        preferred,
    )
}

/// `(a + aᵀ) / 2` over the last two axes (`hermitian=True`'s input).
fn symmetrize<L: Lax>(l: &mut L, a: L::V) -> Res<L, L::V> {
    let at = mt(l, a.clone())?;
    let sum = jnp::binary(l, &prims::ADD, a, at)?;
    let two = jnp::weak_literal(l, Scalar::Float(2.0));
    jnp::binary(l, &prims::DIV, sum, two)
}

/// The square-matrix check of `hermitian=True` (JAX's eigh-based path).
fn check_square<L: Lax>(l: &L, m: usize, n: usize, name: &str) -> Res<L, ()> {
    if m != n {
        return Err(l.expression_error(format!("Argument to symmetric eigendecomposition must have shape [..., n, n], got shape ({m}, {n}): `jnp::linalg::{name}` with `hermitian: true` needs a square matrix")));
    }
    Ok(())
}

// ---- svd ----

/// `jnp.linalg.svd(a, full_matrices, hermitian=..)` with its factors:
/// `[s, u, vt]`.
pub fn svd<L: Lax>(l: &mut L, a: L::V, full_matrices: bool, hermitian: bool) -> Res<L, Vec<L::V>> {
    let (a, m, n) = matrix(l, a, "svd_with")?;
    let a = if hermitian {
        check_square(l, m, n, "svd_with")?;
        symmetrize(l, a)?
    } else {
        a
    };
    l.svd(a, full_matrices, true)
}

// ---- pinv ----

/// `jnp.linalg.pinv`'s options (`pinv_with`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PinvOptions {
    /// Singular values at or below `rtol · s_max` count as zero; `None` is
    /// JAX's `10 · max(M, N) · eps`.
    pub rtol: Option<f64>,
    /// `a` is Hermitian: its symmetric part is used.
    pub hermitian: bool,
}

/// `jnp.linalg.pinv(a, rtol, hermitian)`: the pseudo-inverse of a matrix
/// or of each of a batch, JAX's `custom_jvp` `_pinv` with Golub and
/// Pereyra's derivative (`_pinv_jvp`).
pub fn pinv<L: Lax>(l: &mut L, a: L::V, opts: PinvOptions) -> Res<L, L::V> {
    let name = if opts == PinvOptions::default() {
        "pinv"
    } else {
        "pinv_with"
    };
    let (a, m, n) = matrix(l, a, name)?;
    let dtype = l.aval(&a).dtype;
    if opts.hermitian {
        check_square(l, m, n, name)?;
    }
    if m == 0 || n == 0 {
        // JAX: `jnp.empty(a.shape[:-2] + (n, m))`.
        let mut shape = l.aval(&a).shape;
        let r = shape.len();
        shape[r - 2] = Dim::Lit(n);
        shape[r - 1] = Dim::Lit(m);
        let zero = typed(l, 0.0, dtype);
        return l.broadcast_in_dim(zero, shape, vec![]);
    }
    // JAX: `10. * max(M, N) * eps` in the element type.
    let rtol = round(
        opts.rtol
            .unwrap_or_else(|| round(10.0 * m.max(n) as f64, dtype) * eps(dtype)),
        dtype,
    );
    let herm = opts.hermitian;
    l.custom_jvp(
        "pinv",
        vec![a],
        &|l, ins| {
            let a = if herm {
                symmetrize(l, ins[0].clone())?
            } else {
                ins[0].clone()
            };
            pinv_value(l, a, rtol)
        },
        &|l, ins, tans, out| {
            let (mut a, mut da) = (ins[0].clone(), tans[0].clone());
            if herm {
                // svd(hermitian=True) symmetrizes its input; so does the jvp.
                a = symmetrize(l, a)?;
                da = symmetrize(l, da)?;
            }
            pinv_tangent(l, a, da, out, m >= n)
        },
    )
}

/// `_pinv`'s value: `vhᵀ · (uᵀ / s[.., None])` of the thin SVD, with
/// singular values at or below `rtol · s_max` replaced by infinity.
fn pinv_value<L: Lax>(l: &mut L, a: L::V, rtol: f64) -> Res<L, L::V> {
    let dtype = l.aval(&a).dtype;
    let r = l.aval(&a).rank();
    let outs = l.svd(a, false, true)?;
    let (s, u, vh) = (outs[0].clone(), outs[1].clone(), outs[2].clone());
    // s is descending, so its max is `s[.., 0:1]`.
    let s0 = jnp::reduce(l, Reduction::Max, s.clone(), Some(vec![r - 2]), true)?;
    let rtol = typed(l, rtol, dtype);
    let cutoff = l.binary(&prims::MUL, rtol, s0)?;
    let keep = jnp::binary(l, &prims::GT, s.clone(), cutoff)?;
    let inf = typed(l, f64::INFINITY, dtype);
    let s = jnp::where_(l, keep, s, inf)?;
    let s_col = jnp::expand_dims(l, s, (r - 1) as i128)?;
    let ut = mt(l, u)?;
    let scaled = jnp::binary(l, &prims::DIV, ut, s_col)?;
    let v = mt(l, vh)?;
    matmul(l, v, scaled)
}

/// `_pinv_jvp`: ṗ from `a`, `ȧ` and `p` (m ≥ n and m < n associate the
/// products differently, as JAX does).
fn pinv_tangent<L: Lax>(l: &mut L, a: L::V, da: L::V, p: L::V, tall: bool) -> Res<L, L::V> {
    let pt = mt(l, p.clone())?;
    let dat = mt(l, da.clone())?;
    let (term1, s, sap, t, pat);
    if tall {
        // s = (p pᵀ) ȧᵀ; t = (ȧᵀ pᵀ) p
        let ppt = matmul(l, p.clone(), pt.clone())?;
        s = matmul(l, ppt, dat.clone())?;
        let datpt = matmul(l, dat, pt)?;
        t = matmul(l, datpt, p.clone())?;
        // -(p ȧ) p + s - (s a) p + t - (p a) t
        let pda = matmul(l, p.clone(), da)?;
        let pdap = matmul(l, pda, p.clone())?;
        term1 = l.unary(&prims::NEG, pdap)?;
        let sa = matmul(l, s.clone(), a.clone())?;
        sap = matmul(l, sa, p.clone())?;
        let pa = matmul(l, p, a)?;
        pat = matmul(l, pa, t.clone())?;
    } else {
        // s = p (pᵀ ȧᵀ); t = ȧᵀ (pᵀ p)
        let ptdat = matmul(l, pt.clone(), dat.clone())?;
        s = matmul(l, p.clone(), ptdat)?;
        let ptp = matmul(l, pt, p.clone())?;
        t = matmul(l, dat, ptp)?;
        // -p (ȧ p) + s - s (a p) + t - p (a t)
        let dap = matmul(l, da, p.clone())?;
        let pdap = matmul(l, p.clone(), dap)?;
        term1 = l.unary(&prims::NEG, pdap)?;
        let ap = matmul(l, a.clone(), p.clone())?;
        sap = matmul(l, s.clone(), ap)?;
        let at = matmul(l, a, t.clone())?;
        pat = matmul(l, p, at)?;
    }
    let x = l.binary(&prims::ADD, term1, s)?;
    let x = l.binary(&prims::SUB, x, sap)?;
    let x = l.binary(&prims::ADD, x, t)?;
    l.binary(&prims::SUB, x, pat)
}

// ---- matrix_rank ----

/// `jnp.linalg.matrix_rank(a, tol)`: the count of singular values above
/// `tol` (by default `s_max · max(M, N) · eps`), in JAX's default integer.
pub fn matrix_rank<L: Lax>(l: &mut L, a: L::V, tol: Option<L::V>) -> Res<L, L::V> {
    let name = if tol.is_some() {
        "matrix_rank_with"
    } else {
        "matrix_rank"
    };
    let (a, m, n) = matrix(l, a, name)?;
    let dtype = l.aval(&a).dtype;
    let r = l.aval(&a).rank();
    let s = l.svd(a, false, false)?.remove(0);
    let tol = match tol {
        Some(tol) => {
            let rank = l.aval(&tol).rank();
            jnp::expand_dims(l, tol, rank as i128)?
        }
        None => {
            let smax = jnp::reduce(l, Reduction::Max, s.clone(), Some(vec![r - 2]), false)?;
            let big = typed(l, m.max(n) as f64, dtype);
            let x = jnp::binary(l, &prims::MUL, smax, big)?;
            let e = typed(l, eps(dtype), dtype);
            let x = jnp::binary(l, &prims::MUL, x, e)?;
            jnp::expand_dims(l, x, (r - 2) as i128)?
        }
    };
    let above = jnp::binary(l, &prims::GT, s, tol)?;
    jnp::reduce(l, Reduction::Sum, above, Some(vec![r - 2]), false)
}

// ---- lstsq ----

/// `lstsq`'s operands: `a` one matrix, `b` a vector or a matrix with as
/// many rows.
pub fn lstsq_shapes(a: &Aval, b: &Aval) -> Result<(), Rejected> {
    if a.rank() != 2 {
        return rejected(
            Fault::Arg(0),
            format!("{}-dimensional array given. Array must be two-dimensional (`jnp::linalg::lstsq` takes one matrix `a`)", a.rank()),
        );
    }
    if b.rank() != 1 && b.rank() != 2 {
        return rejected(
            Fault::Arg(1),
            format!(
                "{}-dimensional array given. Array must be one or two-dimensional",
                b.rank()
            ),
        );
    }
    if a.shape[0] != b.shape[0] {
        return rejected(
            Fault::Call,
            format!("Leading dimensions of input arrays must match: `a` is {a}, `b` is {b}"),
        );
    }
    matrix_shape(a, "lstsq", 0).map(|_| ())
}

/// `jnp.linalg.lstsq(a, b)`: `(x, resid, rank, s)` as JAX's `_lstsq` with
/// `rcond=None` and `numpy_resid=False`.
pub fn lstsq<L: Lax>(l: &mut L, a: L::V, b: L::V) -> Res<L, [L::V; 4]> {
    let ab = jnp::promote(l, vec![a, b])?;
    let a = jnp::to_float(l, ab[0].clone())?;
    let b = jnp::to_float(l, ab[1].clone())?;
    let (aa, ba) = (l.aval(&a), l.aval(&b));
    raise(l, lstsq_shapes(&aa, &ba))?;
    let (m, n) = raise(l, matrix_shape(&aa, "lstsq", 0))?;
    let dtype = aa.dtype;
    let vector = ba.rank() == 1;
    let b = if vector {
        jnp::reshape(l, b, vec![Dim::Lit(m), Dim::Lit(1)])?
    } else {
        b
    };
    let kb = l.aval(&b).shape[1].clone();
    let (x, rank, s) = if m == 0 || n == 0 {
        // JAX: `x` and `s` empty, the rank 0.
        let zero = typed(l, 0.0, dtype);
        let x = l.broadcast_in_dim(zero.clone(), vec![Dim::Lit(n), kb], vec![])?;
        let s = l.broadcast_in_dim(zero, vec![Dim::Lit(0)], vec![])?;
        let no = typed(l, 0.0, DType::Bool);
        let none = l.broadcast_in_dim(no, vec![Dim::Lit(0)], vec![])?;
        let rank = jnp::reduce(l, Reduction::Sum, none, None, false)?;
        (x, rank, s)
    } else {
        let outs = l.svd(a.clone(), false, true)?;
        let (s, u, vt) = (outs[0].clone(), outs[1].clone(), outs[2].clone());
        let rcond = typed(l, round(eps(dtype) * m.max(n) as f64, dtype), dtype);
        // s is descending: s[0] is its max.
        let s0 = jnp::reduce(l, Reduction::Max, s.clone(), None, false)?;
        let limit = jnp::binary(l, &prims::MUL, rcond, s0)?;
        let zero = typed(l, 0.0, dtype);
        let pos = jnp::binary(l, &prims::GT, s.clone(), zero)?;
        let big = jnp::binary(l, &prims::GE, s.clone(), limit)?;
        let mask = jnp::binary(l, &prims::AND, pos, big)?;
        let rank = jnp::reduce(l, Reduction::Sum, mask.clone(), None, false)?;
        let one = typed(l, 1.0, dtype);
        let safe = jnp::where_(l, mask.clone(), s.clone(), one)?;
        let one = typed(l, 1.0, dtype);
        let inv = jnp::binary(l, &prims::DIV, one, safe)?;
        let zero = typed(l, 0.0, dtype);
        let s_inv = jnp::where_(l, mask, inv, zero)?;
        let s_inv = jnp::expand_dims(l, s_inv, 1)?;
        let ut = l.transpose(u, vec![1, 0])?;
        let utb = jnp::matmul(l, ut, b.clone())?;
        let scaled = jnp::binary(l, &prims::MUL, s_inv, utb)?;
        let v = l.transpose(vt, vec![1, 0])?;
        (jnp::matmul(l, v, scaled)?, rank, s)
    };
    // resid = norm(b - a x, axis=0) ** 2
    let est = jnp::matmul(l, a, x.clone())?;
    let diff = jnp::binary(l, &prims::SUB, b, est)?;
    let sq = jnp::binary(l, &prims::MUL, diff.clone(), diff)?;
    let sum = jnp::reduce(l, Reduction::Sum, sq, Some(vec![0]), false)?;
    let nrm = l.unary(&prims::SQRT, sum)?;
    let resid = jnp::binary(l, &prims::MUL, nrm.clone(), nrm)?;
    let x = if vector {
        jnp::reshape(l, x, vec![Dim::Lit(n)])?
    } else {
        x
    };
    Ok([x, resid, rank, s])
}

// ---- norm ----

/// `jnp.linalg.norm`'s `ord`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum NormOrd {
    /// `None`: the 2-norm of a vector, the Frobenius norm of a matrix.
    #[default]
    Default,
    /// `'fro'`.
    Fro,
    /// `'nuc'`: the sum of the singular values.
    Nuc,
    /// A number, `inf` and `-inf` included.
    P(f64),
}

impl std::fmt::Display for NormOrd {
    /// As JAX's messages print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            NormOrd::Default => write!(f, "None"),
            NormOrd::Fro => write!(f, "fro"),
            NormOrd::Nuc => write!(f, "nuc"),
            NormOrd::P(p) if p == f64::INFINITY => write!(f, "inf"),
            NormOrd::P(p) if p == f64::NEG_INFINITY => write!(f, "-inf"),
            NormOrd::P(p) => write!(f, "{p}"),
        }
    }
}

/// `jnp.linalg.norm`'s `axis`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NormAxis {
    /// `None`: every axis.
    #[default]
    All,
    /// One axis (negative counts from the end): a vector norm along it.
    Vector(i128),
    /// Two axes, rows then columns: a matrix norm over them.
    Matrix(i128, i128),
}

/// `jnp.linalg.norm`'s keyword arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormOptions {
    pub ord: NormOrd,
    pub axis: NormAxis,
    pub keepdims: bool,
}

/// The axes `norm` reduces for an operand of `rank` axes (one for a vector
/// norm, rows then columns for a matrix norm), or what is wrong with the
/// options.
pub fn norm_axes(rank: usize, o: NormOptions) -> Result<Vec<usize>, Rejected> {
    let axis = |a: i128| {
        jnp::normalize_axis(a, rank).map_err(|msg| Rejected {
            what: Fault::Option("axis"),
            msg,
        })
    };
    let axes: Vec<usize> = match o.axis {
        NormAxis::All if o.ord == NormOrd::Default => return Ok((0..rank).collect()),
        NormAxis::All if rank != 1 && rank != 2 => {
            return rejected(
                Fault::Option("axis"),
                format!("Improper number of axes for norm: axis={}. Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm (`axis: NormAxis::Vector(..)` or `NormAxis::Matrix(..)`).", prims::tuple(&(0..rank).collect::<Vec<_>>())),
            );
        }
        NormAxis::All => (0..rank).collect(),
        NormAxis::Vector(v) => vec![axis(v)?],
        NormAxis::Matrix(r, c) => {
            let (r, c) = (axis(r)?, axis(c)?);
            if r == c {
                return rejected(
                    Fault::Option("axis"),
                    format!("Duplicate axes given: ({r}, {c})"),
                );
            }
            vec![r, c]
        }
    };
    let ok = match (axes.len(), o.ord) {
        (1, NormOrd::Fro | NormOrd::Nuc) => false,
        (1, _) => true,
        (_, NormOrd::P(p)) => p.abs() == 1.0 || p.abs() == 2.0 || p.is_infinite(),
        _ => true,
    };
    if !ok {
        let msg = if axes.len() == 1 {
            format!("Invalid order '{}' for vector norm: a vector norm takes `NormOrd::Default`, `Inf`, `NegInf` or `P(p)`", o.ord)
        } else {
            format!("Invalid order '{}' for matrix norm: a matrix norm takes `NormOrd::Default`, `Fro`, `Nuc`, `Inf`, `NegInf` or `P(p)` with p = 1, -1, 2 or -2", o.ord)
        };
        return rejected(Fault::Option("ord"), msg);
    }
    Ok(axes)
}

/// `sqrt(sum(real(x * conj(x)), axes, keepdims))` (for a real `x`, `x * x`).
fn two_norm<L: Lax>(l: &mut L, x: L::V, axes: Vec<usize>, keepdims: bool) -> Res<L, L::V> {
    let sq = if is_complex(l.aval(&x).dtype) {
        let xc = l.unary(&prims::CONJ, x.clone())?;
        let p = jnp::binary(l, &prims::MUL, x, xc)?;
        l.unary(&prims::REAL, p)?
    } else {
        jnp::binary(l, &prims::MUL, x.clone(), x)?
    };
    let s = jnp::reduce(l, Reduction::Sum, sq, Some(axes), keepdims)?;
    l.unary(&prims::SQRT, s)
}

/// `jnp.max(.., initial=0)`: the reduction, then `max(0, ·)`.
fn max0<L: Lax>(l: &mut L, x: L::V, axis: usize, keepdims: bool) -> Res<L, L::V> {
    let dtype = l.aval(&x).dtype;
    let r = jnp::reduce(l, Reduction::Max, x, Some(vec![axis]), keepdims)?;
    let zero = typed(l, 0.0, dtype);
    jnp::binary(l, &prims::MAX, zero, r)
}

/// `jnp.linalg.norm(x, ord, axis, keepdims)` as JAX composes it: a vector
/// norm over one axis, a matrix norm over two (the spectral ones through
/// `svd`), the 2-norm of every element by default.
pub fn norm<L: Lax>(l: &mut L, x: L::V, o: NormOptions) -> Res<L, L::V> {
    let x = jnp::to_float(l, x)?;
    let a = l.aval(&x);
    let (rank, dtype, keep) = (a.rank(), a.dtype, o.keepdims);
    let axes = raise(l, norm_axes(rank, o))?;
    let two = match (axes.len(), o.ord) {
        (_, NormOrd::Default) => true,
        (1, NormOrd::P(p)) => p == 2.0,
        (2, NormOrd::Fro) => true,
        _ => false,
    };
    if two {
        return two_norm(l, x, axes, keep);
    }
    if is_complex(dtype) {
        return Err(l.expression_error(format!(
            "`jnp::linalg::norm_with` of a complex array with `ord` {} is not supported yet: only its 2-norms (`NormOrd::Default`) are",
            o.ord
        )));
    }
    let abs = |l: &mut L, x: L::V| l.unary(&prims::ABS, x);
    if let [ax] = axes[..] {
        let p = match o.ord {
            NormOrd::P(p) => p,
            _ => unreachable!("norm_axes took only numbers for a vector norm"),
        };
        return if p == f64::INFINITY {
            let x = abs(l, x)?;
            max0(l, x, ax, keep)
        } else if p == f64::NEG_INFINITY {
            let x = abs(l, x)?;
            jnp::reduce(l, Reduction::Min, x, Some(axes), keep)
        } else if p == 0.0 {
            let zero = typed(l, 0.0, dtype);
            let nz = jnp::binary(l, &prims::NE, x, zero)?;
            let nz = jnp::convert(l, nz, dtype, false)?;
            jnp::reduce(l, Reduction::Sum, nz, Some(axes), keep)
        } else if p == 1.0 {
            let x = abs(l, x)?;
            jnp::reduce(l, Reduction::Sum, x, Some(axes), keep)
        } else {
            let x = abs(l, x)?;
            let pv = typed(l, p, dtype);
            let pw = l.binary(&prims::POW, x, pv)?;
            let s = jnp::reduce(l, Reduction::Sum, pw, Some(axes), keep)?;
            let inv = typed(l, round(1.0 / round(p, dtype), dtype), dtype);
            l.binary(&prims::POW, s, inv)
        };
    }
    let (row, col) = (axes[0], axes[1]);
    // The absolute sums over one axis.
    let sums = |l: &mut L, x: L::V, over: usize| {
        let x = abs(l, x)?;
        jnp::reduce(l, Reduction::Sum, x, Some(vec![over]), keep)
    };
    // After summing one axis away (without keepdims), the other shifts.
    let shifted = |other: usize, gone: usize| {
        if !keep && other > gone {
            other - 1
        } else {
            other
        }
    };
    match o.ord {
        NormOrd::P(1.0) => {
            let s = sums(l, x, row)?;
            max0(l, s, shifted(col, row), keep)
        }
        NormOrd::P(-1.0) => {
            let s = sums(l, x, row)?;
            jnp::reduce(l, Reduction::Min, s, Some(vec![shifted(col, row)]), keep)
        }
        NormOrd::P(p) if p == f64::INFINITY => {
            let s = sums(l, x, col)?;
            max0(l, s, shifted(row, col), keep)
        }
        NormOrd::P(p) if p == f64::NEG_INFINITY => {
            let s = sums(l, x, col)?;
            jnp::reduce(l, Reduction::Min, s, Some(vec![shifted(row, col)]), keep)
        }
        _ => {
            // Nuc, 2, -2: moveaxis(x, (row, col), (-2, -1)), then the
            // singular values.
            let mut perm: Vec<usize> = (0..rank).filter(|d| *d != row && *d != col).collect();
            perm.extend([row, col]);
            let moved = if perm.iter().enumerate().all(|(i, &d)| i == d) {
                x
            } else {
                l.transpose(x, perm)?
            };
            let s = l.svd(moved, true, false)?.remove(0);
            let last = rank - 2;
            let mut y = match o.ord {
                NormOrd::P(2.0) => max0(l, s, last, false)?,
                NormOrd::P(_) => jnp::reduce(l, Reduction::Min, s, Some(vec![last]), false)?,
                _ => jnp::reduce(l, Reduction::Sum, s, Some(vec![last]), false)?,
            };
            if keep {
                let (lo, hi) = (row.min(col), row.max(col));
                y = jnp::expand_dims(l, y, lo as i128)?;
                y = jnp::expand_dims(l, y, hi as i128)?;
            }
            Ok(y)
        }
    }
}
