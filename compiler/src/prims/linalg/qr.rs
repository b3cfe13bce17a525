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

use super::triangular::{batch_matmul as matmul, matrix_transpose as mt, triangular_solve, tril};
use crate::ir::primitive::TriangularSolveParams;
use crate::ir::rules::Ctx;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::{
    self, tuple, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs, Lowering, Params, PrimDef, Res,
};

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

/// The last two axes' sizes and the batch's element count of a linalg
/// operand, or JAX's rank error; symbolic sizes are not supported yet.
fn matrix_dims(name: &str, a: &Aval) -> Result<(usize, usize, usize), String> {
    if a.rank() < 2 {
        return Err(format!(
            "Input 0 to {name} must have rank at least 2, but got shape={}",
            tuple(&a.shape)
        ));
    }
    let mut lits = Vec::new();
    for d in &a.shape {
        match d {
            Dim::Lit(n) => lits.push(*n),
            Dim::Sym(s) => {
                return Err(format!(
                    "{name} of an array with the symbolic dimension {s} is not supported yet"
                ))
            }
        }
    }
    let r = lits.len();
    Ok((lits[..r - 2].iter().product(), lits[r - 2], lits[r - 1]))
}

/// JAX's dtype rule for the linalg primitives (`_float | _complex`).
fn float_operand(name: &str, a: &Aval) -> Result<(), String> {
    if matches!(a.dtype, DType::F32 | DType::F64) {
        return Ok(());
    }
    if a.dtype.is_inexact() {
        return Err(format!(
            "{name} of {} is not supported yet: use f32 or f64",
            a.dtype.name()
        ));
    }
    Err(format!(
        "{name} does not accept dtype {} at position 0. Accepted dtypes at position 0 are subtypes of floating, complexfloating.",
        a.dtype.name()
    ))
}

fn with_last_two(a: &Aval, rows: usize, cols: usize, dtype: DType) -> Aval {
    let r = a.rank();
    let mut shape = a.shape[..r - 2].to_vec();
    shape.extend([Dim::Lit(rows), Dim::Lit(cols)]);
    Aval {
        dtype,
        shape,
        weak: false,
    }
}

/// `lax.linalg.qr_p`: `q [.., m, k]`, `r [.., k, n]`, `k = m` with
/// `full_matrices`, else `min(m, n)`.
pub static QR: PrimDef = PrimDef {
    name: "qr",
    abstract_eval: |ops, p, _| {
        let Params::Qr {
            full_matrices,
            pivoting,
        } = p
        else {
            return Err("internal error: qr got the wrong parameters".into());
        };
        let a = &ops[0];
        let (_, m, n) = matrix_dims("qr", a)?;
        float_operand("qr", a)?;
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
    print_params: |_, p| match p {
        Params::Qr {
            full_matrices,
            pivoting,
        } => vec![
            ("full_matrices", py_bool(*full_matrices)),
            ("pivoting", py_bool(*pivoting)),
            ("use_magma", "None".into()),
        ],
        _ => Vec::new(),
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: qr_call,
    }),
    jvp: Some(qr_jvp as JvpRule),
    batch: Some(front_batch),
    flops: Some(qr_flops),
    work: 1,
    ..PrimDef::BASE
};

/// LAPACK's counts: `geqrf` (`2mnk - (m + n)k² + 2k³/3`, `k = min(m, n)`)
/// then `orgqr` forming `q`'s `kq` columns from the `k` reflections
/// (`4m·kq·k - 2(m + kq)k² + 4k³/3`), per matrix of the batch.
fn qr_flops(ins: &[Aval], outs: &[Aval], _: &Params) -> Option<f64> {
    let (batch, m, n) = matrix_dims("qr", &ins[0]).ok()?;
    let kq = super::triangular::lit(&outs[0].shape[outs[0].rank() - 1])?;
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

/// JAX's `expand_dims_batcher`: the batch axis moved first, where these
/// primitives take their batch of matrices; results batched on axis 0.
fn front_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let size = bx.size.clone();
    let x = bx.at_front(ins[0].clone(), dims[0], size)?;
    let prim = bx.prim;
    let outs = bx.bind_all(prim, p.clone(), vec![x])?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}

/// `x[..., rows, cols]` with static ranges over the last two axes.
fn block(
    cx: &mut Ctx,
    x: Atom,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> Res<Atom> {
    let a = cx.aval(&x);
    let r = a.rank();
    let mut start = vec![0; r];
    let mut limit: Vec<usize> = a
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 0,
        })
        .collect();
    if rows == (0..limit[r - 2]) && cols == (0..limit[r - 1]) {
        return Ok(x);
    }
    start[r - 2] = rows.start;
    limit[r - 2] = rows.end;
    start[r - 1] = cols.start;
    limit[r - 1] = cols.end;
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
        return Err(
            "the derivative of qr with full_matrices=True (mode \"complete\") of a tall matrix is not supported yet: it needs lu; use the reduced mode"
                .into(),
        );
    }
    let (dq, dr) = thin_qr_jvp(ad, q, r, dx)?;
    Ok(vec![Some(dq), Some(dr)])
}

/// `lax.linalg.eig_p` of a real matrix: eigenvalues `[.., n]` (complex64
/// for f32, complex128 for f64), then right eigenvectors `[.., n, n]` when
/// asked. Left eigenvectors are not supported yet.
pub static EIG: PrimDef = PrimDef {
    name: "eig",
    abstract_eval: |ops, p, _| {
        let Params::Eig { left, right } = p else {
            return Err("internal error: eig got the wrong parameters".into());
        };
        let a = &ops[0];
        let (_, m, n) = matrix_dims("eig", a)?;
        float_operand("eig", a)?;
        if m != n {
            let r = a.rank();
            return Err(format!(
                "The input to eig must be a square matrix. Got shape {}.",
                tuple(&a.shape[r - 2..])
            ));
        }
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
    print_params: |_, p| match p {
        Params::Eig { left, right } => vec![
            ("compute_left_eigenvectors", py_bool(*left)),
            ("compute_right_eigenvectors", py_bool(*right)),
            ("enable_eigvec_derivs", "False".into()),
            ("implementation", "None".into()),
        ],
        _ => Vec::new(),
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: eig_call,
    }),
    jvp: Some(eig_jvp as JvpRule),
    batch: Some(front_batch),
    flops: Some(eig_flops),
    work: 1,
    ..PrimDef::BASE
};

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
pub(crate) fn bind_qr(cx: &mut Ctx, x: Atom, full_matrices: bool) -> Res<(Atom, Atom)> {
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
