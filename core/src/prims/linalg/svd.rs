//! `svd`: the singular value decomposition of a batch of matrices (JAX's
//! `lax.linalg.svd_p`), results `s` (descending), then with `compute_uv`
//! `u` and `vt`, full or thin. Its kernel is `__rt::linalg::svd_{f32,f64}`
//! over faer.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::matrix::{
    batch_matmul as matmul, complex_decomposition_operand, decomposition, diagonal, eye,
    matrix_dims, matrix_transpose as mt, py_bool, real_derivative_only, real_dtype, scalar, spread,
    sub, with_last_two, zero_tokens,
};
use crate::ir::primitive::size_tokens;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::rules::expect_none;
use crate::prims::{self, Ad, Bind, Ctx, KernelArgs, Params, PrimDef, Res};

/// `svd`'s abstract evaluation (JAX's `_svd_shape_rule`).
fn svd_eval(ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Svd {
        full_matrices,
        compute_uv,
    } = p
    else {
        return Err("internal error: svd got the wrong parameters".into());
    };
    let a = &ops[0];
    let (_, m, n) = complex_decomposition_operand("svd", a)?;
    let k = m.min(n);
    // Real singular values, also of a complex matrix.
    let mut s = with_last_two(a, k, k, real_dtype(a.dtype));
    s.shape.pop();
    if !compute_uv {
        return Ok(vec![s]);
    }
    let (ku, kv) = if *full_matrices { (m, n) } else { (k, k) };
    Ok(vec![
        s,
        with_last_two(a, m, ku, a.dtype),
        with_last_two(a, kv, n, a.dtype),
    ])
}

/// `lax.linalg.svd_p`.
pub static SVD: PrimDef = decomposition(
    "svd",
    |ops, p, _| svd_eval(ops, p),
    |_, p| match p {
        Params::Svd {
            full_matrices,
            compute_uv,
        } => vec![
            ("algorithm", "None".into()),
            ("compute_uv", py_bool(*compute_uv).into()),
            ("full_matrices", py_bool(*full_matrices).into()),
            ("subset_by_index", "None".into()),
        ],
        _ => Vec::new(),
    },
    |r, _, _| {
        expect_none(r, "algorithm", "svd runs one algorithm here")?;
        expect_none(
            r,
            "subset_by_index",
            "every singular value is computed here",
        )?;
        Ok(Params::Svd {
            full_matrices: r.bool("full_matrices")?,
            compute_uv: r.bool("compute_uv")?,
        })
    },
    svd_call,
    svd_jvp,
    Some(svd_flops),
    // About 4mn² + 8n³ flops over its results.
    64,
);

/// Golub and Van Loan's counts for the R-SVD of an `m × n` matrix (`m >= n`,
/// else transposed): `4m²n + 8mn² + 9n³` with the vectors, `4mn² - 4n³/3`
/// for the values alone, per matrix.
fn svd_flops(ins: &[Aval], outs: &[Aval], _: &Params) -> Option<f64> {
    let (batch, m, n) = matrix_dims("svd", &ins[0]).ok()?;
    let (m, n) = (m.max(n) as f64, m.min(n) as f64);
    let per = if outs.len() > 1 {
        4.0 * m * m * n + 8.0 * m * n * n + 9.0 * n * n * n
    } else {
        4.0 * m * n * n - 4.0 * n * n * n / 3.0
    };
    Some(batch as f64 * per)
}

fn svd_call(k: KernelArgs<'_>) -> TokenStream {
    let Params::Svd {
        full_matrices,
        compute_uv,
    } = k.params
    else {
        unreachable!("svd carries Params::Svd")
    };
    let a = &k.avals[0];
    let r = a.rank();
    let f = format_ident!("svd_{}", a.dtype.short_name());
    let batch = size_tokens(&a.shape[..r - 2]);
    let dim = |d: &Dim| match d {
        Dim::Lit(n) => *n,
        Dim::Sym(_) => 0,
    };
    let (m, n) = (dim(&a.shape[r - 2]), dim(&a.shape[r - 1]));
    let sizes: Vec<TokenStream> = k.out_avals.iter().map(|o| size_tokens(&o.shape)).collect();
    let x = (k.bind)(0, Bind::Buffer);
    let s_size = &sizes[0];
    let zero = zero_tokens(a.dtype);
    let real_zero = zero_tokens(real_dtype(a.dtype));
    if *compute_uv {
        let (u_size, vt_size) = (&sizes[1], &sizes[2]);
        quote!({
            let mut __s = ::std::vec![#real_zero; #s_size];
            let mut __u = ::std::vec![#zero; #u_size];
            let mut __vt = ::std::vec![#zero; #vt_size];
            ::jax::__rt::linalg::#f(&#x[..], &mut __s, &mut __u, &mut __vt, #batch, #m, #n, #full_matrices, true);
            (__s, __u, __vt)
        })
    } else {
        quote!({
            let mut __s = ::std::vec![#real_zero; #s_size];
            ::jax::__rt::linalg::#f(&#x[..], &mut __s, &mut [], &mut [], #batch, #m, #n, false, false);
            __s
        })
    }
}

/// JAX's `_svd_jvp_rule`, from the thin decomposition `s, U, Vt`:
/// `dS = Uᵀ dA V`, `ds = diag(dS)`, and with `compute_uv` the vectors'
/// tangents through `F = 1/(s_j² - s_i²)` (0 on the diagonal), plus the
/// projections off `U`'s (or `V`'s) span for a non-square matrix. As
/// JAX's, it is not defined for full matrices of a non-square operand.
fn svd_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Svd {
        full_matrices,
        compute_uv,
    } = p
    else {
        unreachable!("svd carries Params::Svd")
    };
    let Some(da) = &t[0] else {
        return Ok(vec![None; outs.len()]);
    };
    let a = ad.aval(&ins[0]);
    real_derivative_only("svd", &a)?;
    let r = a.rank();
    let (_, m, n) = matrix_dims("svd", &a)?;
    if *compute_uv && *full_matrices && m != n {
        return Err(
            "Singular value decomposition JVP not implemented for full matrices: differentiate `jnp::linalg::svd_with(a, SvdOptions { full_matrices: false, .. })` or a square matrix"
                .into(),
        );
    }
    // The thin factors: the primal results when they are thin already.
    let (s, u, vt) = if *compute_uv {
        (outs[0].clone(), outs[1].clone(), outs[2].clone())
    } else {
        let thin = ad.bind_all(
            &SVD,
            Params::Svd {
                full_matrices: false,
                compute_uv: true,
            },
            vec![ins[0].clone()],
        )?;
        (thin[0].clone(), thin[1].clone(), thin[2].clone())
    };
    let dtype = a.dtype;
    let k = m.min(n);
    let ut = mt(ad, u.clone())?;
    let v = mt(ad, vt.clone())?;
    let ut_da = matmul(ad, ut.clone(), da.clone())?;
    let ds_mat = matmul(ad, ut_da, v.clone())?;
    let ds = diagonal(ad, ds_mat.clone())?;
    if !compute_uv {
        return Ok(vec![Some(ds)]);
    }
    let mut kk = a.shape[..r - 2].to_vec();
    kk.extend([Dim::Lit(k), Dim::Lit(k)]);
    let s_row = spread(ad, s.clone(), &kk, r - 2)?; // s_dim: s[.., None, :]
    let s_col = spread(ad, s.clone(), &kk, r - 1)?; // _T(s_dim)
    let plus = ad.add(s_row.clone(), s_col.clone())?;
    let minus = sub(ad, s_row.clone(), s_col.clone())?;
    let s_diffs = ad.mul(plus, minus)?;
    let eye_k = eye(ad, dtype, &kk)?;
    let shifted = ad.add(s_diffs, eye_k.clone())?;
    let one = scalar(1.0, dtype);
    let inv = ad.div(one.clone(), shifted)?;
    let f = sub(ad, inv, eye_k)?;
    let dss = ad.mul(s_row.clone(), ds_mat.clone())?;
    let sds = ad.mul(s_col, ds_mat.clone())?;
    // s_inv: 1/s where s ≠ 0, else 0.
    let zero = scalar(0.0, dtype);
    let s_shape = ad.aval(&s).shape;
    let zeros_s = prims::broadcast_dims(ad, zero, &s_shape, &[])?;
    let is_zero = ad.bin(&prims::EQ, s.clone(), zeros_s)?;
    let s_zeros = ad.convert(is_zero, dtype)?;
    let s_safe = ad.add(s.clone(), s_zeros.clone())?;
    let recip = ad.div(one, s_safe)?;
    let s_inv = sub(ad, recip, s_zeros)?;
    let s_inv_row = spread(ad, s_inv, &kk, r - 2)?;
    let eye_k2 = eye(ad, dtype, &kk)?;
    let s_inv_mat = ad.mul(s_inv_row, eye_k2)?;
    let ds_mat_t = mt(ad, ds_mat.clone())?;
    let skew = sub(ad, ds_mat, ds_mat_t)?;
    let half = scalar(0.5, dtype);
    let half = half_full(ad, half, &kk)?;
    let half_skew = ad.mul(skew, half)?;
    let dudv_diag = ad.mul(half_skew, s_inv_mat)?;
    let dss_t = mt(ad, dss.clone())?;
    let dss_sym = ad.add(dss, dss_t)?;
    let f_dss = ad.mul(f.clone(), dss_sym)?;
    let inner_u = ad.add(f_dss, dudv_diag)?;
    let mut du = matmul(ad, u.clone(), inner_u)?;
    let sds_t = mt(ad, sds.clone())?;
    let sds_sym = ad.add(sds, sds_t)?;
    let f_sds = ad.mul(f, sds_sym)?;
    let mut dv = matmul(ad, v.clone(), f_sds)?;
    if m > n {
        let dav = matmul(ad, da.clone(), v.clone())?;
        let ut_dav = matmul(ad, ut, dav.clone())?;
        let proj = matmul(ad, u.clone(), ut_dav)?;
        let off = sub(ad, dav, proj)?;
        let shape = ad.aval(&off).shape;
        let s_div = spread(ad, s.clone(), &shape, r - 2)?;
        let term = ad.div(off, s_div)?;
        du = ad.add(du, term)?;
    }
    if n > m {
        let da_t = mt(ad, da.clone())?;
        let dahu = matmul(ad, da_t, u)?;
        let vt_dahu = matmul(ad, vt, dahu.clone())?;
        let proj = matmul(ad, v, vt_dahu)?;
        let off = sub(ad, dahu, proj)?;
        let shape = ad.aval(&off).shape;
        let s_div = spread(ad, s, &shape, r - 2)?;
        let term = ad.div(off, s_div)?;
        dv = ad.add(dv, term)?;
    }
    let dvt = mt(ad, dv)?;
    Ok(vec![Some(ds), Some(du), Some(dvt)])
}

/// A scalar broadcast to `shape`.
fn half_full(cx: &mut Ctx, x: Atom, shape: &[Dim]) -> Res<Atom> {
    prims::broadcast_dims(cx, x, shape, &[])
}
