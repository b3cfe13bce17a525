//! `lu` (`lax.linalg.lu_p`): LU with partial pivoting of `[.., m, n]`
//! matrices, three results `lu, pivots, permutation` (`f32[.., m, n]
//! i32[.., min(m, n)] i32[.., m]`), no parameters. Kernel:
//! `__rt::linalg::lu_{f32,f64,c64,c128}` over faer; jvp as JAX's `_lu_jvp_rule`
//! (two triangular solves); batching moves the batch axis first
//! (`expand_dims_batcher`).

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

// `matmul` and `eye_like` stay reachable as `prims::matmul`/`prims::eye_like`
// for the frontend's handlers.
#[allow(unused_imports)]
pub use super::matrix::{batch_matmul as matmul, eye_like};
use super::matrix::{
    block, check_matrix_rank, decomposition, entry, eye, linalg_operand, matrix_dims,
    matrix_transpose, pad_block, real_derivative_only, tril, triu, zero_tokens,
};
use crate::ir::rules::Ctx;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::{self, dim_tokens, size_tokens, Ad, Bind, KernelArgs, Params, PrimDef, Res};

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
pub static LU: PrimDef = decomposition(
    "lu",
    |ops, _, _| {
        let [a] = ops else {
            return Err("lu takes one operand".into());
        };
        check_matrix_rank("lu", a)?;
        linalg_operand("lu", a)?;
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
    |_, _| Vec::new(),
    |_, _, _| Ok(Params::None),
    lu_call,
    lu_jvp,
    Some(lu_flops),
    // LU of an n×n matrix is 2n³/3 flops, about 2n/3 per element; the
    // kernel's cost per element of a typical 64×64 matrix.
    48,
);

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
    let f = entry("lu", av.dtype);
    let zero = zero_tokens(av.dtype);
    quote!({
        let mut __lu = ::std::vec![#zero; #size];
        let mut __piv = ::std::vec![0i32; #piv];
        let mut __perm = ::std::vec![0i32; #perm];
        ::jax::__rt::linalg::#f(&#x[..], &mut __lu, &mut __piv, &mut __perm, #batch, #m_t, #n_t);
        (__lu, __piv, __perm)
    })
}

/// The permutation matrix of `perm` ([.., m]) in `dtype`: `P[i, j] =
/// (perm[i] == j)`, so `P·x = x[perm, :]` and `Pᵀ·x` undoes it.
pub fn permutation_matrix(cx: &mut Ctx, perm: Atom, dtype: DType) -> Res<Atom> {
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
    cx.convert(onehot, dtype)
}

/// The rows of `x` ([.., m, c]) permuted: row `i` of the result is row
/// `perm[i]` (`x[perm, :]`), as a product with the permutation matrix,
/// which is linear in `x` (so reverse mode transposes it as a product).
pub fn permute_rows(cx: &mut Ctx, perm: Atom, x: Atom) -> Res<Atom> {
    let dtype = cx.aval(&x).dtype;
    let p = permutation_matrix(cx, perm, dtype)?;
    matmul(cx, p, x)
}

/// JAX's `_lu_solve_core` with `trans=1` (`trans=2` for real matrices):
/// `aᵀ·x = b` from `a`'s LU (`P a = L U`), `x = Pᵀ L⁻ᵀ U⁻ᵀ b`.
pub fn lu_solve_transposed(cx: &mut Ctx, lu: Atom, perm: Atom, b: Atom) -> Res<Atom> {
    let y = tri_solve(cx, lu.clone(), b, true, false, true, false)?;
    let z = tri_solve(cx, lu, y, true, true, true, true)?;
    let dtype = cx.aval(&z).dtype;
    let p = permutation_matrix(cx, perm, dtype)?;
    let pt = matrix_transpose(cx, p)?;
    matmul(cx, pt, z)
}

/// JAX's `_lu_jvp_rule` (`_lu_jvp_inner`), square or not: with `k =
/// min(m, n)`, `L` (`m × m`) the unit-lower part of `lu[.., :, :k]` padded
/// with the identity's columns, `U` (`n × n`) the upper part of
/// `lu[.., :k, :]` padded with the identity's rows, `X = L⁻¹·(P·ȧ)·U⁻¹` by
/// two triangular solves, and `l̇u = L·tril(X, -1) + triu(X)·U`; the integer
/// results get no tangent.
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
    real_derivative_only("lu", &lu_aval)?;
    let (_, m, n) = matrix_dims("the derivative of lu", &lu_aval)?;
    let k = m.min(n);
    let cx: &mut Ctx = ad;
    let lu = outs[0].clone();
    let r = lu_aval.rank();
    let square = |size: usize| {
        let mut shape = lu_aval.shape[..r - 2].to_vec();
        shape.extend([Dim::Lit(size), Dim::Lit(size)]);
        shape
    };
    let left = block(cx, lu.clone(), 0..m, 0..k)?;
    let strict = tril(cx, left, -1)?;
    let strict = pad_block(cx, strict, m, m, (0, 0))?;
    let eye_m = eye(cx, lu_aval.dtype, &square(m))?;
    let l = cx.add(strict, eye_m)?;
    let top = block(cx, lu, 0..k, 0..n)?;
    let upper = triu(cx, top, 0)?;
    let mut u = pad_block(cx, upper, n, n, (0, 0))?;
    if n > k {
        let eye_rest = eye(cx, lu_aval.dtype, &square(n - k))?;
        let eye_rest = pad_block(cx, eye_rest, n, n, (k, k))?;
        u = cx.add(u, eye_rest)?;
    }
    let pa = permute_rows(cx, outs[2].clone(), a_dot.clone())?;
    let la = tri_solve(cx, l.clone(), pa, true, true, false, true)?;
    let lau = tri_solve(cx, u.clone(), la, false, false, false, false)?;
    let lower = tril(cx, lau.clone(), -1)?;
    let l_dot = matmul(cx, l, lower)?;
    let upper = triu(cx, lau, 0)?;
    let u_dot = matmul(cx, upper, u)?;
    let lu_dot = cx.add(l_dot, u_dot)?;
    Ok(vec![Some(lu_dot), None, None])
}

/// LAPACK's flop count of `lu` of a `[.., m, n]` operand
/// (`m·n·k - (m+n)·k²/2 + k³/3`, twice for multiply-adds), for
/// `cost_analysis`; `None` for symbolic shapes.
fn lu_flops(ins: &[Aval], _: &[Aval], _: &Params) -> Option<f64> {
    let (batch, m, n) = matrix_dims("lu", &ins[0]).ok()?;
    let (b, m, n) = (batch as f64, m as f64, n as f64);
    let k = m.min(n);
    Some(b * (2.0 * m * n * k - (m + n) * k * k + 2.0 * k * k * k / 3.0))
}

/// `triangular_solve(a, b, left_side, lower, transpose_a, unit_diagonal)`
/// (`conjugate_a=False`), through the `triangular_solve` family's helper.
pub fn tri_solve(
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
