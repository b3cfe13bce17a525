//! `lu` (`lax.linalg.lu_p`): LU with partial pivoting of `[.., m, n]`
//! matrices, three results `lu, pivots, permutation` (`f32[.., m, n]
//! i32[.., min(m, n)] i32[.., m]`), no parameters. Kernel:
//! `__rt::linalg::lu_f32`/`lu_f64` over faer; jvp as JAX's `_lu_jvp_rule`
//! (two triangular solves); batching moves the batch axis first
//! (`expand_dims_batcher`).

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::rules::Ctx;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::{
    self, dim_tokens, size_tokens, tuple, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs,
    Lowering, Params, PrimDef, Res,
};

/// The batch size and the two matrix dims of an operand of `lu`.
fn split(shape: &[Dim]) -> (&[Dim], &Dim, &Dim) {
    let r = shape.len();
    (&shape[..r - 2], &shape[r - 2], &shape[r - 1])
}

fn min_dim(m: &Dim, n: &Dim) -> Result<Dim, String> {
    match (m, n) {
        (Dim::Lit(m), Dim::Lit(n)) => Ok(Dim::Lit(*m.min(n))),
        (m, n) if m == n => Ok(m.clone()),
        _ => Err(format!(
            "lu of a matrix with symbolic dimensions {m} and {n} is not supported: make it square or give literal sizes"
        )),
    }
}

/// `lax.linalg.lu_p`.
pub static LU: PrimDef = PrimDef {
    name: "lu",
    abstract_eval: |ops, _, _| {
        let [a] = ops else {
            return Err("lu takes one operand".into());
        };
        if a.rank() < 2 {
            return Err(format!(
                "Input 0 to lu must have rank at least 2, but got shape={}",
                tuple(&a.shape)
            ));
        }
        if !super::triangular::linalg_dtype(a.dtype) {
            return Err(format!(
                "lu does not accept dtype {} at position 0. Accepted dtypes at position 0 are subtypes of floating, complexfloating (f32, f64, complex64 and complex128 here)",
                a.dtype.name()
            ));
        }
        let (batch, m, n) = split(&a.shape);
        let k = min_dim(m, n)?;
        let with = |last: Dim| {
            let mut s = batch.to_vec();
            s.push(last);
            Aval {
                dtype: DType::I32,
                shape: s,
                weak: false,
            }
        };
        Ok(vec![a.clone(), with(k), with(m.clone())])
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: lu_call,
    }),
    jvp: Some(lu_jvp as JvpRule),
    batch: Some(lu_batch),
    // LU of an n×n matrix is 2n³/3 flops, about 2n/3 per element; the
    // kernel's cost per element of a typical 64×64 matrix.
    work: 48,
    flops: Some(lu_flops),
    ..PrimDef::BASE
};

/// `lu_f32(&a, &mut lu, &mut pivots, &mut perm, batch, m, n)`, the three
/// buffers as the result tuple.
fn lu_call(a: KernelArgs<'_>) -> TokenStream {
    let av = &a.avals[0];
    let (batch, m, n) = split(&av.shape);
    let (batch, m_t, n_t) = (size_tokens(batch), dim_tokens(m), dim_tokens(n));
    let size = size_tokens(&av.shape);
    let piv = size_tokens(&a.out_avals[1].shape);
    let perm = size_tokens(&a.out_avals[2].shape);
    let x = (a.bind)(0, Bind::Buffer);
    let f = super::triangular::entry("lu", av.dtype);
    let zero = super::triangular::zero_tokens(av.dtype);
    quote!({
        let mut __lu = ::std::vec![#zero; #size];
        let mut __piv = ::std::vec![0i32; #piv];
        let mut __perm = ::std::vec![0i32; #perm];
        ::jax::__rt::linalg::#f(&#x[..], &mut __lu, &mut __piv, &mut __perm, #batch, #m_t, #n_t);
        (__lu, __piv, __perm)
    })
}

/// `x @ y` over the last two axes, batched over the others (JAX's
/// `HIGHEST`-precision matmul of the rule).
pub(crate) fn matmul(cx: &mut Ctx, x: Atom, y: Atom) -> Res<Atom> {
    let r = cx.aval(&x).rank();
    let preferred = cx.aval(&x).dtype;
    let batch: Vec<usize> = (0..r - 2).collect();
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

/// `iota(rows) + k >= iota(cols)` over `x`'s last two axes, broadcast to its
/// shape (`jnp.tri`'s mask).
pub(crate) fn tri_mask(cx: &mut Ctx, like: &Aval, k: i64) -> Res<Atom> {
    let r = like.rank();
    let last2 = like.shape[r - 2..].to_vec();
    let iota = |cx: &mut Ctx, d: usize| {
        cx.bind(
            &prims::IOTA,
            Params::Iota {
                dtype: DType::I32,
                shape: last2.clone(),
                dimension: d,
            },
            vec![],
        )
    };
    let rows = iota(cx, 0)?;
    let cols = iota(cx, 1)?;
    let k = cx.lit(k as f64, &rows);
    let rows = cx.add(rows, k)?;
    let mask = cx.bin(&prims::GE, rows, cols)?;
    if r == 2 {
        return Ok(mask);
    }
    cx.bind(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: like.shape.clone(),
            dims: vec![r - 2, r - 1],
            np_ints: 0,
        },
        vec![mask],
    )
}

/// `tril(x, k)` (`lower`) or `triu(x, k)` over the last two axes.
pub(crate) fn triangle(cx: &mut Ctx, x: Atom, k: i64, lower: bool) -> Res<Atom> {
    let a = cx.aval(&x);
    let zeros = cx.zeros(&crate::ir::rules::tangent_aval(&a))?;
    if lower {
        let mask = tri_mask(cx, &a, k)?;
        cx.select(mask, zeros, x)
    } else {
        let mask = tri_mask(cx, &a, k - 1)?;
        cx.select(mask, x, zeros)
    }
}

/// The identity of `like`'s (square) last two axes, broadcast to its shape.
pub(crate) fn eye_like(cx: &mut Ctx, like: &Aval) -> Res<Atom> {
    let lower = tri_mask(cx, like, 0)?;
    let upper = tri_mask(cx, like, -1)?;
    let not_below = cx.un(&prims::NOT, upper)?;
    let diag = cx.bin(&prims::AND, lower, not_below)?;
    cx.convert(diag, like.dtype)
}

/// The rows of `x` ([.., m, c]) permuted: row `i` of the result is row
/// `perm[i]` (`x[perm, :]`), as a product with the permutation matrix
/// `P[i, j] = (perm[i] == j)`, which is linear in `x` (so reverse mode
/// transposes it as a product).
pub(crate) fn permute_rows(cx: &mut Ctx, perm: Atom, x: Atom) -> Res<Atom> {
    let xa = cx.aval(&x);
    let pa = cx.aval(&perm);
    let r = pa.rank();
    let m = pa.shape[r - 1].clone();
    let mut sq = pa.shape.clone();
    sq.push(m);
    let dims: Vec<usize> = (0..r).collect();
    let rows = cx.bind(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: sq.clone(),
            dims,
            np_ints: 0,
        },
        vec![perm],
    )?;
    let cols = cx.bind(
        &prims::IOTA,
        Params::Iota {
            dtype: DType::I32,
            shape: sq,
            dimension: r,
        },
        vec![],
    )?;
    let onehot = cx.bin(&prims::EQ, rows, cols)?;
    let p = cx.convert(onehot, xa.dtype)?;
    matmul(cx, p, x)
}

/// JAX's `_lu_jvp_rule` for square matrices: with `L`, `U` from the
/// factors, `X = L⁻¹·(P·ȧ)·U⁻¹` by two triangular solves, and
/// `l̇u = L·tril(X, -1) + triu(X)·U`; the integer results get no tangent.
fn lu_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(a_dot) = &t[0] else {
        return Ok(vec![None, None, None]);
    };
    let lu_aval = ad.aval(&outs[0]);
    super::triangular::real_derivative_only("lu", &lu_aval)?;
    let (_, m, n) = split(&lu_aval.shape);
    if m != n {
        return Err(
            "the derivative of lu of a non-square matrix is not supported yet: differentiate through a square one".into(),
        );
    }
    let cx: &mut Ctx = ad;
    let lu = outs[0].clone();
    let strict = triangle(cx, lu.clone(), -1, true)?;
    let eye = eye_like(cx, &lu_aval)?;
    let l = cx.add(strict, eye)?;
    let u = triangle(cx, lu, 0, false)?;
    let pa = permute_rows(cx, outs[2].clone(), a_dot.clone())?;
    let la = tri_solve(cx, l.clone(), pa, true, true, false, true)?;
    let lau = tri_solve(cx, u.clone(), la, false, false, false, false)?;
    let lower = triangle(cx, lau.clone(), -1, true)?;
    let l_dot = matmul(cx, l, lower)?;
    let upper = triangle(cx, lau, 0, false)?;
    let u_dot = matmul(cx, upper, u)?;
    let lu_dot = cx.add(l_dot, u_dot)?;
    Ok(vec![Some(lu_dot), None, None])
}

/// `expand_dims_batcher`: the batch axis first, then `lu` again; every
/// result batched on axis 0.
fn lu_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let size = bx.size.clone();
    let x = bx.at_front(ins[0].clone(), dims[0], size)?;
    let outs = bx.bind_all(&LU, p.clone(), vec![x])?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}

/// LAPACK's flop count of `lu` of a `[.., m, n]` operand
/// (`m·n·k - (m+n)·k²/2 + k³/3`, twice for multiply-adds), for
/// `cost_analysis`; `None` for symbolic shapes.
fn lu_flops(ins: &[Aval], _: &[Aval], _: &Params) -> Option<f64> {
    let a = &ins[0];
    let mut f = 1.0;
    for d in &a.shape[..a.rank() - 2] {
        f *= match d {
            Dim::Lit(n) => *n as f64,
            Dim::Sym(_) => return None,
        };
    }
    let (_, m, n) = split(&a.shape);
    let (Dim::Lit(m), Dim::Lit(n)) = (m, n) else {
        return None;
    };
    let (m, n) = (*m as f64, *n as f64);
    let k = m.min(n);
    Some(f * (2.0 * m * n * k - (m + n) * k * k + 2.0 * k * k * k / 3.0))
}

/// `triangular_solve(a, b, left_side, lower, transpose_a, unit_diagonal)`
/// (`conjugate_a=False`), through the `triangular_solve` family's helper.
pub(crate) fn tri_solve(
    cx: &mut Ctx,
    a: Atom,
    b: Atom,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    unit_diagonal: bool,
) -> Res<Atom> {
    super::triangular_solve(
        cx,
        a,
        b,
        crate::prims::TriangularSolveParams {
            left_side,
            lower,
            transpose_a,
            conjugate_a: false,
            unit_diagonal,
        },
    )
}
