//! `triangular_solve` (JAX's `lax.linalg.triangular_solve_p`): `op(a) x = b`
//! or `x op(a) = b` for triangular `a`, over the leading batch axes, run by
//! `::jax::__rt::linalg::triangular_solve_{f32,f64,c64,c128}` (faer), the entry
//! points eager `scipy::linalg::solve_triangular` calls too. Nonlinear in
//! `a`, linear in `b` (its transpose is the solve with `op` transposed).
//! [`triangular_solve`] is the bind helper other rules (cholesky's, lu's,
//! qr's jvp) call; the matrix helpers live in `matrix.rs`.

use proc_macro2::TokenStream;
use quote::quote;

// The helpers moved to `matrix.rs`, still reachable here for callers
// that name them through this family.
use super::matrix::py_bool;
#[allow(unused_imports)]
pub use super::matrix::{
    batch_matmul, check_linalg_operands, entry, is_complex, linalg_dtype, lit, matrix_transpose,
    real_derivative_only, real_dtype, shape_tuple, tril, triu, zero_tokens,
};
use crate::ir::rules::single_ct;
use crate::ir::shapes::same_dim;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::{
    self, dim_tokens, size_tokens, Ad, BDim, Batch, Bind, Ctx, Kernel, KernelArgs, Lowering,
    Params, PrimDef, Res, TriangularSolveParams,
};

fn params(p: &Params) -> TriangularSolveParams {
    match p {
        Params::TriangularSolve(t) => *t,
        _ => unreachable!("triangular_solve carries Params::TriangularSolve"),
    }
}

/// `_triangular_solve_shape_rule`: `a` square, its size `b`'s common axis;
/// the result is `b`'s type.
fn triangular_solve_eval(
    ops: &[Aval],
    p: &Params,
    c: &mut crate::ir::shapes::Constraints,
) -> Result<Vec<Aval>, String> {
    let tp = params(p);
    check_linalg_operands("triangular_solve", ops, &[2, 2], c)?;
    let (a, b) = (&ops[0], &ops[1]);
    let am = &a.shape[a.rank() - 2..];
    let bm = &b.shape[b.rank() - 2..];
    if !same_dim(
        &am[0],
        &am[1],
        "the first input to triangular_solve must be a square matrix",
        c,
    ) {
        return Err(format!(
            "The first input to triangular_solve must be a square matrix. Got shape {}.",
            shape_tuple(am)
        ));
    }
    let common = if tp.left_side { &bm[0] } else { &bm[1] };
    if !same_dim(
        &am[1],
        common,
        "incompatible shapes for arguments to triangular_solve",
        c,
    ) {
        return Err(format!(
            "Incompatible shapes for arguments to triangular_solve: {} and {}.",
            shape_tuple(am),
            shape_tuple(bm)
        ));
    }
    Ok(vec![Aval {
        dtype: b.dtype,
        shape: b.shape.clone(),
        weak: a.weak && b.weak,
    }])
}

fn print_triangular_solve(_: &[Aval], p: &Params) -> Vec<(&'static str, String)> {
    let t = params(p);
    vec![
        ("conjugate_a", py_bool(t.conjugate_a).into()),
        ("left_side", py_bool(t.left_side).into()),
        ("lower", py_bool(t.lower).into()),
        ("transpose_a", py_bool(t.transpose_a).into()),
        ("unit_diagonal", py_bool(t.unit_diagonal).into()),
    ]
}

fn triangular_solve_call(a: KernelArgs<'_>) -> TokenStream {
    let t = params(a.params);
    let f = entry("triangular_solve", a.out_aval.dtype);
    let (aa, ba) = (&a.avals[0], &a.avals[1]);
    let r = ba.rank();
    let batch = size_tokens(&ba.shape[..r - 2]);
    let m = dim_tokens(&aa.shape[aa.rank() - 1]);
    let rows = dim_tokens(&ba.shape[r - 2]);
    let cols = dim_tokens(&ba.shape[r - 1]);
    let n = size_tokens(&ba.shape);
    let xa = (a.bind)(0, Bind::Buffer);
    let xb = (a.bind)(1, Bind::Buffer);
    let TriangularSolveParams {
        left_side,
        lower,
        transpose_a,
        unit_diagonal,
        conjugate_a,
    } = t;
    // The complex entry points take `conjugate_a` (no effect on real ones).
    let conjugate = if is_complex(a.out_aval.dtype) {
        quote!(, #conjugate_a)
    } else {
        quote!()
    };
    let zero = zero_tokens(a.out_aval.dtype);
    quote!({
        let mut __out = ::std::vec![#zero; #n];
        ::jax::__rt::linalg::#f(
            &#xa[..], &#xb[..], &mut __out[..], #batch, #m, #rows, #cols,
            ::jax::__rt::linalg::TriangularSolve {
                left_side: #left_side,
                lower: #lower,
                transpose_a: #transpose_a,
                unit_diagonal: #unit_diagonal,
            }
            #conjugate
        );
        __out
    })
}

/// LAPACK's count for `trsm`: `m² k` per matrix (`m` the triangle's size,
/// `k` the right-hand sides).
fn triangular_solve_flops(ins: &[Aval], outs: &[Aval], _: &Params) -> Option<f64> {
    let m = lit(&ins[0].shape[ins[0].rank() - 1])?;
    let n: f64 = outs[0].shape.iter().map(lit).product::<Option<f64>>()?;
    Some(m * n)
}

/// `lax.linalg.triangular_solve_p`.
pub static TRIANGULAR_SOLVE: PrimDef = PrimDef {
    name: "triangular_solve",
    abstract_eval: triangular_solve_eval,
    print_params: print_triangular_solve,
    parse_params: |r, _, _| {
        Ok(Params::TriangularSolve(TriangularSolveParams {
            left_side: r.bool("left_side")?,
            lower: r.bool("lower")?,
            transpose_a: r.bool("transpose_a")?,
            conjugate_a: r.bool("conjugate_a")?,
            unit_diagonal: r.bool("unit_diagonal")?,
        }))
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: triangular_solve_call,
    }),
    jvp: Some(triangular_solve_jvp),
    transpose: Some(triangular_solve_transpose),
    batch: Some(triangular_solve_batch),
    flops: Some(triangular_solve_flops),
    work: 1,
    ..PrimDef::BASE
};

/// Binds `triangular_solve(a, b)` with batch axes leading and equal: the
/// helper other linear-algebra rules (cholesky's, lu's, qr's jvp) call.
pub fn triangular_solve(cx: &mut Ctx, a: Atom, b: Atom, p: TriangularSolveParams) -> Res<Atom> {
    cx.bind(&TRIANGULAR_SOLVE, Params::TriangularSolve(p), vec![a, b])
}

/// `_triangular_solve_jvp_rule_a` plus the solve of `b`'s tangent
/// (`ad.defjvp2`): `-A⁻¹ ∂A X` (or `-X ∂A A⁻¹`), multiplied in the cheaper
/// order, with `∂A` masked to the triangle the solve reads.
fn triangular_solve_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let tp = params(p);
    let (a, ans) = (&ins[0], &outs[0]);
    let da = match &t[0] {
        None => None,
        Some(g) => {
            if tp.conjugate_a {
                real_derivative_only("triangular_solve with conjugate_a", &ad.aval(a))?;
            }
            let bs = ad.aval(&ins[1]).shape;
            let r = bs.len();
            let (m, n) = (lit(&bs[r - 2]), lit(&bs[r - 1]));
            let k = if tp.unit_diagonal { 1 } else { 0 };
            let g = if tp.lower {
                tril(ad, g.clone(), -k)?
            } else {
                triu(ad, g.clone(), k)?
            };
            let g = ad.neg(g)?;
            let g = if tp.transpose_a {
                matrix_transpose(ad, g)?
            } else {
                g
            };
            Some(if tp.left_side {
                if m > n {
                    let d = batch_matmul(ad, g, ans.clone())?;
                    triangular_solve(ad, a.clone(), d, tp)?
                } else {
                    let s = triangular_solve(ad, a.clone(), g, tp)?;
                    batch_matmul(ad, s, ans.clone())?
                }
            } else if m < n {
                let d = batch_matmul(ad, ans.clone(), g)?;
                triangular_solve(ad, a.clone(), d, tp)?
            } else {
                let s = triangular_solve(ad, a.clone(), g, tp)?;
                batch_matmul(ad, ans.clone(), s)?
            })
        }
    };
    let db = match &t[1] {
        None => None,
        Some(g) => Some(triangular_solve(ad, a.clone(), g.clone(), tp)?),
    };
    Ok(vec![ad.sum(vec![da, db])?])
}

/// `_triangular_solve_transpose_rule`: linear in `b` only; its cotangent is
/// the solve with `op(a)` transposed.
fn triangular_solve_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let Some(a) = ins[0].clone() else {
        return Err(
            "triangular_solve is not linear in its first operand: reverse mode cannot transpose it"
                .into(),
        );
    };
    let tp = params(p);
    let ct = single_ct(cts);
    let flipped = TriangularSolveParams {
        transpose_a: !tp.transpose_a,
        ..tp
    };
    let ct_b = triangular_solve(ad, a, ct, flipped)?;
    Ok(vec![None, Some(ct_b)])
}

/// `_triangular_solve_batching_rule`: with `a` unbatched, the lanes of `b`
/// become extra right-hand sides of one solve; otherwise both batch axes
/// move first.
fn triangular_solve_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let tp = params(p);
    let size = bx.size.clone();
    let (x, y) = (ins[0].clone(), ins[1].clone());
    let static_y = bx.aval(&y).shape.iter().all(|d| matches!(d, Dim::Lit(_)));
    match (dims[0], dims[1]) {
        (None, Some(by)) if static_y => {
            let r = bx.aval(&y).rank();
            let to = if tp.left_side { r - 1 } else { r - 2 };
            let y = bx.moveaxis(y, by, to)?;
            let shape = bx.aval(&y).shape;
            let mut flat = shape.clone();
            let merged = Dim::Lit(
                lit(&flat[to - 1]).expect("static") as usize
                    * lit(&flat[to]).expect("static") as usize,
            );
            flat.splice(to - 1..=to, [merged]);
            let y_flat = bx.bind(
                &prims::RESHAPE,
                Params::Reshape { new_sizes: flat },
                vec![y],
            )?;
            let out = triangular_solve(bx, x, y_flat, tp)?;
            let out = bx.bind(
                &prims::RESHAPE,
                Params::Reshape { new_sizes: shape },
                vec![out],
            )?;
            Ok(vec![(out, Some(to))])
        }
        (dx, dy) => {
            let x = bx.at_front(x, dx, size.clone())?;
            let y = bx.at_front(y, dy, size)?;
            Ok(vec![(triangular_solve(bx, x, y, tp)?, Some(0))])
        }
    }
}
