//! `qr` (Householder QR, results `q, r`) and `eig` (eigenvalues of a
//! general real matrix, complex, and optionally its right eigenvectors),
//! as JAX's `lax/linalg.py` defines them: shape and dtype rules with its
//! messages, its printing, `qr_jvp_rule` and `eig_jvp_rule` (eigenvalues
//! only; eigenvector derivatives are JAX's NotImplementedError), batching
//! over leading axes, and kernels calling `::jax::__rt::linalg::qr_f32` ..
//! `eig_f64` over faer.

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

use super::lu::lu_solve_transposed;
use super::matrix::{
    batch_matmul as matmul, block, check_square, decomposition, decomposition_operand, eye, lit,
    matrix_dims, matrix_transpose as mt, pad_block, py_bool, sub, tril, with_last_two,
};
use super::triangular::triangular_solve;
use crate::ir::primitive::TriangularSolveParams;
use crate::ir::rules::Ctx;
use crate::ir::{Atom, Aval};
use crate::prims::rules::expect_none;
use crate::prims::{self, Ad, Bind, KernelArgs, Params, PrimDef, Res};

/// `lax.linalg.qr_p`: `q [.., m, k]`, `r [.., k, n]`, `k = m` with
/// `full_matrices`, else `min(m, n)`.
pub static QR: PrimDef = decomposition(
    "qr",
    |ops, p, _| {
        let Params::Qr {
            full_matrices,
            pivoting,
        } = p
        else {
            return Err("internal error: qr got the wrong parameters".into());
        };
        let a = &ops[0];
        let (_, m, n) = decomposition_operand("qr", a)?;
        if *pivoting {
            return Err(
                "qr with pivoting=True (column-pivoted QR) is not supported yet: use pivoting=False"
                    .into(),
            );
        }
        let k = if *full_matrices { m } else { m.min(n) };
        Ok(vec![
            with_last_two(a, m, k, a.dtype),
            with_last_two(a, k, n, a.dtype),
        ])
    },
    |_, p| match p {
        Params::Qr {
            full_matrices,
            pivoting,
        } => vec![
            ("full_matrices", py_bool(*full_matrices).into()),
            ("pivoting", py_bool(*pivoting).into()),
            ("use_magma", "None".into()),
        ],
        _ => Vec::new(),
    },
    |r, _, _| {
        // A GPU (MAGMA) choice: only `None` (the default) is modeled.
        expect_none(r, "use_magma", "it chooses a GPU implementation")?;
        Ok(Params::Qr {
            full_matrices: r.bool("full_matrices")?,
            pivoting: r.bool("pivoting")?,
        })
    },
    qr_call,
    qr_jvp,
    Some(qr_flops),
    1,
);

/// LAPACK's counts: `geqrf` (`2mnk - (m + n)k² + 2k³/3`, `k = min(m, n)`)
/// then `orgqr` forming `q`'s `kq` columns from the `k` reflections
/// (`4m·kq·k - 2(m + kq)k² + 4k³/3`), per matrix of the batch.
fn qr_flops(ins: &[Aval], outs: &[Aval], _: &Params) -> Option<f64> {
    let (batch, m, n) = matrix_dims("qr", &ins[0]).ok()?;
    let kq = lit(&outs[0].shape[outs[0].rank() - 1])?;
    let (b, m, n) = (batch as f64, m as f64, n as f64);
    let k = m.min(n);
    let geqrf = 2.0 * m * n * k - (m + n) * k * k + 2.0 * k * k * k / 3.0;
    let orgqr = 4.0 * m * kq * k - 2.0 * (m + kq) * k * k + 4.0 * k * k * k / 3.0;
    Some(b * (geqrf + orgqr))
}

fn qr_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Qr { full_matrices, .. } = a.params else {
        unreachable!("qr carries Params::Qr")
    };
    let av = &a.avals[0];
    let (batch, m, n) = matrix_dims("qr", av).expect("checked by the abstract eval");
    let k = if *full_matrices { m } else { m.min(n) };
    let (f, ty) = match av.dtype {
        DType::F64 => (quote!(qr_f64), quote!(f64)),
        _ => (quote!(qr_f32), quote!(f32)),
    };
    let x = (a.bind)(0, Bind::Buffer);
    let (qlen, rlen) = (batch * m * k, batch * k * n);
    quote!({
        let mut __q = ::std::vec![0 as #ty; #qlen];
        let mut __r = ::std::vec![0 as #ty; #rlen];
        ::jax::__rt::linalg::#f(&#x[..], &mut __q, &mut __r, #batch, #m, #n, #full_matrices);
        (__q, __r)
    })
}

/// `triangular_solve(r, b)` with JAX's defaults as `_thin_qr_jvp` calls it
/// (`left_side=False, lower=False`): `b · r⁻¹` for an upper-triangular `r`.
fn solve_right_upper(ad: &mut Ad, r: Atom, b: Atom) -> Res<Atom> {
    let p = TriangularSolveParams {
        left_side: false,
        lower: false,
        ..TriangularSolveParams::default()
    };
    triangular_solve(ad, r, b, p)
}

/// JAX's `_thin_qr_jvp` for real `[.., m, n]`, `m >= n` (its complex
/// correction of the diagonal is zero for real matrices and left out).
fn thin_qr_jvp(ad: &mut Ad, q: Atom, r: Atom, dx: Atom) -> Res<(Atom, Atom)> {
    let dx_rinv = solve_right_upper(ad, r.clone(), dx)?;
    let qt = mt(ad, q.clone())?;
    let qt_dx_rinv = matmul(ad, qt, dx_rinv.clone())?;
    let lower = tril(ad, qt_dx_rinv.clone(), -1)?;
    let lower_t = mt(ad, lower.clone())?;
    let skew = ad.bin(&prims::SUB, lower, lower_t)?;
    let d = ad.bin(&prims::SUB, skew.clone(), qt_dx_rinv.clone())?;
    let q_d = matmul(ad, q, d)?;
    let dq = ad.add(q_d, dx_rinv)?;
    let e = ad.bin(&prims::SUB, qt_dx_rinv, skew)?;
    let dr = matmul(ad, e, r)?;
    Ok((dq, dr))
}

/// JAX's `qr_jvp_rule`: tall and square matrices through `_thin_qr_jvp`;
/// wide ones (`m < n`) through the square block `X₁ = Q R₁` and
/// `dR₂ = dQᵀ X₂ + Qᵀ dX₂`.
fn qr_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(dx) = t[0].clone() else {
        return Ok(vec![None, None]);
    };
    let Params::Qr { full_matrices, .. } = p else {
        unreachable!("qr carries Params::Qr")
    };
    let a = ad.aval(&ins[0]);
    let (_, m, n) = matrix_dims("qr", &a)?;
    let (q, r) = (outs[0].clone(), outs[1].clone());
    if m < n {
        let x2 = block(ad, ins[0].clone(), 0..m, m..n)?;
        let dx1 = block(ad, dx.clone(), 0..m, 0..m)?;
        let dx2 = block(ad, dx, 0..m, m..n)?;
        let r1 = block(ad, r, 0..m, 0..m)?;
        let (dq, dr1) = thin_qr_jvp(ad, q.clone(), r1, dx1)?;
        let dqt = mt(ad, dq.clone())?;
        let left = matmul(ad, dqt, x2)?;
        let qt = mt(ad, q)?;
        let right = matmul(ad, qt, dx2)?;
        let dr2 = ad.add(left, right)?;
        let dim = a.rank() - 1;
        let dr = ad.bind(
            &prims::CONCATENATE,
            Params::Concatenate { dim },
            vec![dr1, dr2],
        )?;
        return Ok(vec![Some(dq), Some(dr)]);
    }
    if *full_matrices && m > n {
        let (dq, dr) = complete_tall_qr_jvp(ad, q, r, dx, m, n)?;
        return Ok(vec![Some(dq), Some(dr)]);
    }
    let (dq, dr) = thin_qr_jvp(ad, q, r, dx)?;
    Ok(vec![Some(dq), Some(dr)])
}

/// `qr_jvp_rule`'s complete mode of a tall matrix (`m > n`, after Roberts
/// and Roberts, arXiv:2409.13374, eqs. 32-33): the thin rule on `Q[:, :n]`
/// and `R[:n, :n]`, then the remaining columns of `dQ` through
/// `Z = Q_pn (Q_nn - I)⁻¹` (an LU solve with the matrix transposed, as
/// JAX's `lu_solve(.., trans=2)`), and `dR`'s last `m - n` rows zero.
fn complete_tall_qr_jvp(
    ad: &mut Ad,
    q: Atom,
    r: Atom,
    dx: Atom,
    m: usize,
    n: usize,
) -> Res<(Atom, Atom)> {
    let q_mn = block(ad, q.clone(), 0..m, 0..n)?;
    let r_nn = block(ad, r, 0..n, 0..n)?;
    let (dq_mn, dr_nn) = thin_qr_jvp(ad, q_mn.clone(), r_nn, dx)?;
    let q_nn = block(ad, q_mn.clone(), 0..n, 0..n)?;
    let q_pn = block(ad, q_mn.clone(), n..m, 0..n)?;
    let q_mp = block(ad, q, 0..m, n..m)?;
    let dq_nn = block(ad, dq_mn.clone(), 0..n, 0..n)?;
    let dq_pn = block(ad, dq_mn.clone(), n..m, 0..n)?;
    let shape = ad.aval(&q_nn).shape;
    let dtype = ad.aval(&q_nn).dtype;
    let eye_n = eye(ad, dtype, &shape)?;
    let shifted = sub(ad, q_nn, eye_n)?;
    let f = ad.bind_all(&super::LU, Params::None, vec![shifted])?;
    let q_pn_t = mt(ad, q_pn)?;
    let z_t = lu_solve_transposed(ad, f[0].clone(), f[2].clone(), q_pn_t)?;
    let z = mt(ad, z_t.clone())?;
    let first = matmul(ad, dq_mn.clone(), z_t)?;
    let q_mp_z = matmul(ad, q_mp, z.clone())?;
    let left = ad.add(q_mn, q_mp_z)?;
    let z_dq_nn = matmul(ad, z, dq_nn)?;
    let gap = sub(ad, dq_pn, z_dq_nn)?;
    let gap_t = mt(ad, gap)?;
    let second = matmul(ad, left, gap_t)?;
    let dq_mp = sub(ad, first, second)?;
    let last = ad.aval(&dq_mn).rank() - 1;
    let dq = ad.bind(
        &prims::CONCATENATE,
        Params::Concatenate { dim: last },
        vec![dq_mn, dq_mp],
    )?;
    let dr = pad_block(ad, dr_nn, m, n, (0, 0))?;
    Ok((dq, dr))
}

/// `lax.linalg.eig_p` of a real matrix: eigenvalues `[.., n]` (complex64
/// for f32, complex128 for f64), then right eigenvectors `[.., n, n]` when
/// asked. Left eigenvectors are not supported yet.
pub static EIG: PrimDef = decomposition(
    "eig",
    |ops, p, _| {
        let Params::Eig { left, right } = p else {
            return Err("internal error: eig got the wrong parameters".into());
        };
        let a = &ops[0];
        let dims = decomposition_operand("eig", a)?;
        check_square(a, (dims.1, dims.2), |s| {
            format!("The input to eig must be a square matrix. Got shape {s}.")
        })?;
        let n = dims.2;
        if *left {
            return Err("eig with compute_left_eigenvectors=True is not supported yet".into());
        }
        let c = if a.dtype == DType::F64 {
            DType::C128
        } else {
            DType::C64
        };
        let mut w = with_last_two(a, n, n, c);
        w.shape.pop();
        let mut outs = vec![w];
        if *right {
            outs.push(with_last_two(a, n, n, c));
        }
        Ok(outs)
    },
    |_, p| match p {
        Params::Eig { left, right } => vec![
            ("compute_left_eigenvectors", py_bool(*left).into()),
            ("compute_right_eigenvectors", py_bool(*right).into()),
            ("enable_eigvec_derivs", "False".into()),
            ("implementation", "None".into()),
        ],
        _ => Vec::new(),
    },
    |r, _, _| {
        // Checked `False` when printed back: eigenvector derivatives are
        // not supported (JAX's NotImplementedError).
        r.skip("enable_eigvec_derivs");
        expect_none(r, "implementation", "eig runs one implementation here")?;
        Ok(Params::Eig {
            left: r.bool("compute_left_eigenvectors")?,
            right: r.bool("compute_right_eigenvectors")?,
        })
    },
    eig_call,
    eig_jvp,
    Some(eig_flops),
    1,
);

/// Golub and Van Loan's counts for the real Schur form by the Francis QR
/// iteration: about `10n³` for eigenvalues alone, `25n³` with
/// eigenvectors, per matrix of the batch.
fn eig_flops(ins: &[Aval], outs: &[Aval], _: &Params) -> Option<f64> {
    let (batch, n, _) = matrix_dims("eig", &ins[0]).ok()?;
    let n = n as f64;
    let per = if outs.len() > 1 { 25.0 } else { 10.0 };
    Some(batch as f64 * per * n * n * n)
}

fn eig_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Eig { right, .. } = a.params else {
        unreachable!("eig carries Params::Eig")
    };
    let av = &a.avals[0];
    let (batch, n, _) = matrix_dims("eig", av).expect("checked by the abstract eval");
    let (f, ty) = match av.dtype {
        DType::F64 => (quote!(eig_f64), quote!(f64)),
        _ => (quote!(eig_f32), quote!(f32)),
    };
    let x = (a.bind)(0, Bind::Buffer);
    let zero = quote!(::jax::Complex::<#ty>::new(0.0, 0.0));
    let (wlen, vlen) = (batch * n, batch * n * n);
    if *right {
        quote!({
            let mut __w = ::std::vec![#zero; #wlen];
            let mut __v = ::std::vec![#zero; #vlen];
            ::jax::__rt::linalg::#f(&#x[..], &mut __w, ::std::option::Option::Some(&mut __v), #batch, #n);
            (__w, __v)
        })
    } else {
        quote!({
            let mut __w = ::std::vec![#zero; #wlen];
            ::jax::__rt::linalg::#f(&#x[..], &mut __w, ::std::option::Option::None, #batch, #n);
            __w
        })
    }
}

/// JAX's `eig_jvp_rule`: eigenvector derivatives are its NotImplementedError;
/// the eigenvalues' is `diag(V⁻¹ dA V)` (see `eig_jvp.rs`).
fn eig_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Eig { left, right } = p else {
        unreachable!("eig carries Params::Eig")
    };
    if t[0].is_none() {
        return Ok(vec![None; 1 + usize::from(*left) + usize::from(*right)]);
    }
    if *left || *right {
        return Err("Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input that JAX cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See https://github.com/jax-ml/jax/issues/2748 for discussion.".into());
    }
    let da = t[0].clone().expect("checked above");
    Ok(vec![Some(super::eig_jvp::eigvals_jvp(
        ad,
        ins[0].clone(),
        da,
    )?)])
}

/// Binds `qr` for the frontend: `(q, r)`.
pub fn bind_qr(cx: &mut Ctx, x: Atom, full_matrices: bool) -> Res<(Atom, Atom)> {
    let outs = cx.bind_all(
        &QR,
        Params::Qr {
            full_matrices,
            pivoting: false,
        },
        vec![x],
    )?;
    Ok((outs[0].clone(), outs[1].clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::builder::Builder;
    use crate::ir::Dim;

    fn fixture_jaxpr(name: &str) -> String {
        let path = format!(
            "{}/../tests/fixtures/linalg_qr.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        json["jaxprs"][name].as_str().unwrap().to_string()
    }

    /// One `eig` equation on a square input, printed as JAX prints
    /// `lax.linalg.eig` (jitted code cannot return its complex results yet,
    /// so this builds the equation directly).
    fn eig_jaxpr(dtype: DType, right: bool) -> String {
        let mut b = Builder::new(true);
        let x = b.input(Aval {
            dtype,
            shape: vec![Dim::Lit(3), Dim::Lit(3)],
            weak: false,
        });
        let outs = b
            .bind(
                &EIG,
                Params::Eig { left: false, right },
                vec![x],
                proc_macro2::Span::call_site(),
            )
            .unwrap();
        b.jaxpr.outvars = outs;
        crate::ir::print::print_jaxpr(&b.jaxpr)
    }

    #[test]
    fn eig_prints_as_jax() {
        assert_eq!(eig_jaxpr(DType::F32, true), fixture_jaxpr("eig_f32"));
        assert_eq!(eig_jaxpr(DType::F64, false), fixture_jaxpr("eigvals_f64"));
    }

    #[test]
    fn eig_rejects_non_square_and_left_eigenvectors() {
        let a = Aval {
            dtype: DType::F32,
            shape: vec![Dim::Lit(3), Dim::Lit(2)],
            weak: false,
        };
        let mut c = crate::ir::shapes::Constraints::default();
        let e = (EIG.abstract_eval)(
            std::slice::from_ref(&a),
            &Params::Eig {
                left: false,
                right: false,
            },
            &mut c,
        );
        assert_eq!(
            e.unwrap_err(),
            "The input to eig must be a square matrix. Got shape (3, 2)."
        );
        let sq = Aval {
            shape: vec![Dim::Lit(2), Dim::Lit(2)],
            ..a
        };
        let e = (EIG.abstract_eval)(
            &[sq],
            &Params::Eig {
                left: true,
                right: false,
            },
            &mut c,
        );
        assert!(e.unwrap_err().contains("not supported yet"));
        let p = Params::Qr {
            full_matrices: false,
            pivoting: true,
        };
        let m = Aval {
            shape: vec![Dim::Lit(3), Dim::Lit(2)],
            dtype: DType::F32,
            weak: false,
        };
        let e = (QR.abstract_eval)(&[m], &p, &mut c);
        assert!(e
            .unwrap_err()
            .contains("pivoting=True (column-pivoted QR) is not supported yet"));
    }
}
