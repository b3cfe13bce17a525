//! `eigh`: the eigendecomposition of a batch of symmetric matrices (JAX's
//! `lax.linalg.eigh_p`), results `v` (eigenvectors as columns) and `w`
//! (eigenvalues, ascending), reading only the `lower` (else upper)
//! triangle as LAPACK's `syevd` does. Its kernel is
//! `__rt::linalg::eigh_{f32,f64}` over faer. Also the matrix helpers the
//! spectral rules (`eigh`, `svd`) are written with.

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::builder::literal;
use crate::ir::primitive::size_tokens;
use crate::ir::{rust_type, Atom, Aval, Dim, Scalar};
use crate::prims::{
    self, tuple, Ad, BDim, Batch, Bind, Ctx, JvpRule, Kernel, KernelArgs, Lowering, Params,
    PrimDef, Res,
};

pub(crate) fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The dtypes the factorizations run on: f32, f64, complex64, complex128.
pub(crate) fn check_float(what: &str, a: &Aval) -> Result<(), String> {
    match a.dtype {
        d if super::triangular::linalg_dtype(d) => Ok(()),
        d => Err(format!(
            "{what} takes a float32, float64, complex64 or complex128 matrix, got {}: convert it first",
            d.short_name()
        )),
    }
}

/// The last two axes as a Python tuple, as JAX's linalg shape rules print them.
pub(crate) fn matrix_shape(a: &Aval) -> String {
    tuple(&a.shape[a.rank().saturating_sub(2)..])
}

pub(crate) fn lit_dim(d: &Dim, what: &str) -> Result<usize, String> {
    match d {
        Dim::Lit(n) => Ok(*n),
        Dim::Sym(s) => Err(format!(
            "{what} of a matrix with the symbolic dimension {s} is not supported yet: use a literal size"
        )),
    }
}

/// `eigh`'s abstract evaluation: `v` of the operand's aval, `w` of its
/// shape without the last axis.
fn eigh_eval(ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Eigh { .. } = p else {
        return Err("internal error: eigh got the wrong parameters".into());
    };
    let a = &ops[0];
    if a.rank() < 2 {
        return Err(format!(
            "eigh: the operand must have at least two dimensions (a batch of matrices), got shape {}",
            tuple(&a.shape)
        ));
    }
    check_float("eigh", a)?;
    let r = a.rank();
    let (m, n) = (
        lit_dim(&a.shape[r - 2], "eigh")?,
        lit_dim(&a.shape[r - 1], "eigh")?,
    );
    if m != n {
        return Err(format!(
            "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape {}",
            matrix_shape(a)
        ));
    }
    for d in &a.shape[..r - 2] {
        lit_dim(d, "eigh")?;
    }
    let v = Aval {
        weak: false,
        ..a.clone()
    };
    let w = Aval {
        // Real eigenvalues, also of a Hermitian complex matrix.
        dtype: super::triangular::real_dtype(a.dtype),
        shape: a.shape[..r - 1].to_vec(),
        weak: false,
    };
    Ok(vec![v, w])
}

/// `lax.linalg.eigh_p`.
pub static EIGH: PrimDef = PrimDef {
    name: "eigh",
    abstract_eval: |ops, p, _| eigh_eval(ops, p),
    print_params: |_, p| match p {
        Params::Eigh {
            lower,
            sort_eigenvalues,
        } => vec![
            ("algorithm", "None".into()),
            ("lower", py_bool(*lower).into()),
            ("sort_eigenvalues", py_bool(*sort_eigenvalues).into()),
            ("subset_by_index", "None".into()),
        ],
        _ => Vec::new(),
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: eigh_call,
    }),
    jvp: Some(eigh_jvp as JvpRule),
    batch: Some(eigh_batch),
    flops: Some(eigh_flops),
    // About 9n³ flops (LAPACK's count for `syevd` with vectors) over the
    // n² results: 9n per element; 64 stands for a typical n.
    work: 64,
    ..PrimDef::BASE
};

/// The batch size, `n`, and the element type's entry-point suffix.
fn batch_and_n(a: &Aval) -> (TokenStream, usize) {
    let r = a.rank();
    let n = match a.shape[r - 1] {
        Dim::Lit(n) => n,
        Dim::Sym(_) => 0,
    };
    (size_tokens(&a.shape[..r - 2]), n)
}

fn eigh_call(k: KernelArgs<'_>) -> TokenStream {
    let Params::Eigh { lower, .. } = k.params else {
        unreachable!("eigh carries Params::Eigh")
    };
    let a = &k.avals[0];
    let ty = rust_type(a.dtype);
    let f = format_ident!("eigh_{}", a.dtype.short_name());
    let (batch, n) = batch_and_n(a);
    let x = (k.bind)(0, Bind::Buffer);
    let _ = &ty;
    let zero = super::triangular::zero_tokens(a.dtype);
    let real_zero = super::triangular::zero_tokens(super::triangular::real_dtype(a.dtype));
    quote!({
        let mut __v = ::std::vec![#zero; #batch * #n * #n];
        let mut __w = ::std::vec![#real_zero; #batch * #n];
        ::jax::__rt::linalg::#f(&#x[..], &mut __v, &mut __w, #batch, #n, #lower);
        (__v, __w)
    })
}

// The matrix helpers of the spectral rules: batched over leading axes.

/// `x @ y` over the last two axes, the leading ones a batch (`lax.batch_matmul`).
pub(crate) fn matmul(cx: &mut Ctx, x: Atom, y: Atom) -> Res<Atom> {
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

/// The last two axes swapped (`_T`, and `_H` of a real matrix).
pub(crate) fn mt(cx: &mut Ctx, x: Atom) -> Res<Atom> {
    let r = cx.aval(&x).rank();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    cx.bind(&prims::TRANSPOSE, Params::Transpose { perm }, vec![x])
}

pub(crate) fn sub(cx: &mut Ctx, x: Atom, y: Atom) -> Res<Atom> {
    cx.bin(&prims::SUB, x, y)
}

/// A scalar of `dtype`.
pub(crate) fn scalar(v: f64, dtype: DType) -> Atom {
    literal(
        crate::ir::cast_scalar(Scalar::Float(v), dtype),
        Aval::scalar(dtype, false),
    )
}

/// The identity of `shape`'s last two axes (both `n`), broadcast over the
/// leading ones: `eq(iota0, iota1)` converted to `dtype`.
pub(crate) fn eye(cx: &mut Ctx, dtype: DType, shape: &[Dim]) -> Res<Atom> {
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

/// `x` (shape `[.., k]`) along a new axis `at` of `shape` (`x[.., None, :]`
/// for `at = r - 2`, `x[.., :, None]` for `at = r - 1`).
pub(crate) fn spread(cx: &mut Ctx, x: Atom, shape: &[Dim], at: usize) -> Res<Atom> {
    let dims: Vec<usize> = (0..shape.len()).filter(|&d| d != at).collect();
    prims::broadcast_dims(cx, x, shape, &dims)
}

/// The diagonal of the last two axes (`_extract_diagonal`): a mask with
/// the identity and a sum, linear in `x`.
pub(crate) fn diagonal(cx: &mut Ctx, x: Atom) -> Res<Atom> {
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

/// JAX's `_eigh_jvp_rule`: with `F = 1/(w_j - w_i)` off the diagonal
/// (0 on it), `vᵀ ȧ v` gives `ẇ` (its diagonal) and `v̇ = v (F ∘ vᵀ ȧ v)`.
/// JAX recomputes the decomposition of the symmetrized operand; the
/// primal results are used here (the same for a symmetric operand, which
/// `jnp::linalg::eigh` always passes).
fn eigh_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(da) = &t[0] else {
        return Ok(vec![None, None]);
    };
    let (v, w) = (outs[0].clone(), outs[1].clone());
    let av = ad.aval(&v);
    super::triangular::real_derivative_only("eigh", &av)?;
    let (r, dtype) = (av.rank(), av.dtype);
    let shape = av.shape.clone();
    let eye_n = eye(ad, dtype, &shape)?;
    let w_row = spread(ad, w.clone(), &shape, r - 2)?;
    let w_col = spread(ad, w, &shape, r - 1)?;
    let gap = sub(ad, w_row, w_col)?;
    let shifted = ad.add(eye_n.clone(), gap)?;
    let inv = ad.bind(&prims::INTEGER_POW, Params::IntegerPow(-1), vec![shifted])?;
    let f = sub(ad, inv, eye_n)?;
    let vt = mt(ad, v.clone())?;
    let vt_da = matmul(ad, vt, da.clone())?;
    let proj = matmul(ad, vt_da, v.clone())?;
    let scaled = ad.mul(f, proj.clone())?;
    let dv = matmul(ad, v, scaled)?;
    let dw = diagonal(ad, proj)?;
    Ok(vec![Some(dv), Some(dw)])
}

/// The batch axis moved first: the leading axes are already a batch.
fn eigh_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let x = bx.moveaxis(ins[0].clone(), dims[0].expect("batched"), 0)?;
    let outs = bx.bind_all(&EIGH, p.clone(), vec![x])?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}

/// Binds `eigh` (for the frontend's `jnp::linalg` functions): `(v, w)`.
pub(crate) fn bind_eigh(cx: &mut Ctx, a: Atom, lower: bool) -> Res<(Atom, Atom)> {
    let outs = cx.bind_all(
        &EIGH,
        Params::Eigh {
            lower,
            sort_eigenvalues: true,
        },
        vec![a],
    )?;
    Ok((outs[0].clone(), outs[1].clone()))
}

/// `eigh`'s flops for `cost_analysis`: `9n³` per matrix, the textbook
/// count for the symmetric QR algorithm with eigenvectors (Golub & Van
/// Loan, *Matrix Computations*, §8.3). XLA's cost analysis has no count
/// of its own here: on CPU `eigh` is a LAPACK custom call, which it counts
/// as zero.
fn eigh_flops(ins: &[Aval], _: &[Aval], _: &Params) -> Option<f64> {
    let s = &ins[0].shape;
    let n = super::triangular::lit(&s[s.len() - 1])?;
    let batch: f64 = s[..s.len() - 2]
        .iter()
        .map(super::triangular::lit)
        .product::<Option<f64>>()?;
    Some(batch * 9.0 * n * n * n)
}
