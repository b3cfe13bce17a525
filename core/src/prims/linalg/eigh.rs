//! `eigh`: the eigendecomposition of a batch of symmetric matrices (JAX's
//! `lax.linalg.eigh_p`), results `v` (eigenvectors as columns) and `w`
//! (eigenvalues, ascending), reading only the `lower` (else upper)
//! triangle as LAPACK's `syevd` does. Its kernel is
//! `__rt::linalg::eigh_{f32,f64}` over faer.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::matrix::{
    batch_matmul as matmul, check_square, complex_decomposition_operand, decomposition, diagonal,
    eye, matrix_dims, matrix_transpose as mt, py_bool, real_derivative_only, real_dtype, spread,
    sub, zero_tokens,
};
use crate::ir::primitive::size_tokens;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::rules::expect_none;
use crate::prims::{self, Ad, Bind, Ctx, KernelArgs, Params, PrimDef, Res};

/// `eigh`'s abstract evaluation: `v` of the operand's aval, `w` of its
/// shape without the last axis.
fn eigh_eval(ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Eigh { .. } = p else {
        return Err("internal error: eigh got the wrong parameters".into());
    };
    let a = &ops[0];
    let (_, m, n) = complex_decomposition_operand("eigh", a)?;
    check_square(a, (m, n), |s| {
        format!(
            "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape {s}"
        )
    })?;
    let r = a.rank();
    let v = Aval {
        weak: false,
        ..a.clone()
    };
    let w = Aval {
        // Real eigenvalues, also of a Hermitian complex matrix.
        dtype: real_dtype(a.dtype),
        shape: a.shape[..r - 1].to_vec(),
        weak: false,
    };
    Ok(vec![v, w])
}

/// `lax.linalg.eigh_p`.
pub static EIGH: PrimDef = decomposition(
    "eigh",
    |ops, p, _| eigh_eval(ops, p),
    |_, p| match p {
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
    |r, _, _| {
        expect_none(r, "algorithm", "eigh runs one algorithm here")?;
        expect_none(r, "subset_by_index", "every eigenvalue is computed here")?;
        Ok(Params::Eigh {
            lower: r.bool("lower")?,
            sort_eigenvalues: r.bool("sort_eigenvalues")?,
        })
    },
    eigh_call,
    eigh_jvp,
    Some(eigh_flops),
    // About 9n³ flops over the n² results: 9n per element; 64 stands for
    // a typical n.
    64,
);

/// Golub and Van Loan's count for the symmetric QR algorithm with
/// eigenvectors (LAPACK's `syevd` is of that order): about `9n³` per matrix.
fn eigh_flops(ins: &[Aval], _: &[Aval], _: &Params) -> Option<f64> {
    let (batch, n, _) = matrix_dims("eigh", &ins[0]).ok()?;
    let n = n as f64;
    Some(batch as f64 * 9.0 * n * n * n)
}

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
    let f = format_ident!("eigh_{}", a.dtype.short_name());
    let (batch, n) = batch_and_n(a);
    let x = (k.bind)(0, Bind::Buffer);
    let zero = zero_tokens(a.dtype);
    let real_zero = zero_tokens(real_dtype(a.dtype));
    quote!({
        let mut __v = ::std::vec![#zero; #batch * #n * #n];
        let mut __w = ::std::vec![#real_zero; #batch * #n];
        ::jax::__rt::linalg::#f(&#x[..], &mut __v, &mut __w, #batch, #n, #lower);
        (__v, __w)
    })
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
    real_derivative_only("eigh", &av)?;
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

/// Binds `eigh` (for the frontend's `jnp::linalg` functions): `(v, w)`.
pub fn bind_eigh(cx: &mut Ctx, a: Atom, lower: bool) -> Res<(Atom, Atom)> {
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
