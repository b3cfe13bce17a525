//! `triangular_solve` (JAX's `lax.linalg.triangular_solve_p`): `op(a) x = b`
//! or `x op(a) = b` for triangular `a`, over the leading batch axes, run by
//! `::jax::__rt::linalg::triangular_solve_{f32,f64}` (faer), the entry
//! points eager `scipy::linalg::solve_triangular` calls too. Nonlinear in
//! `a`, linear in `b` (its transpose is the solve with `op` transposed).
//!
//! Also the matrix helpers other linear-algebra rules are written with, as
//! JAX's `lax/linalg.py` has them: [`triangular_solve`] (the bind helper),
//! [`tril`]/[`triu`] (`_tril`, `_triu`), [`matrix_transpose`] (`_T`) and
//! [`batch_matmul`].

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::builder::literal;
use crate::ir::rules::single_ct;
use crate::ir::shapes::same_dim;
use crate::ir::{rust_type, Atom, Aval, Dim, Scalar};
use crate::prims::{
    self, dim_tokens, size_tokens, tuple, Ad, BDim, Batch, Bind, Ctx, Kernel, KernelArgs, Lowering,
    Params, PrimDef, Res, TriangularSolveParams,
};

/// The shape's dims as JAX prints a shape tuple: `(3, 2)`.
pub(crate) fn shape_tuple(dims: &[Dim]) -> String {
    tuple(dims)
}

/// JAX's `linalg_shape_rule` and dtype rule for the operands of a linear-algebra
/// primitive whose operands are batches of matrices (`ranks[i]` trailing
/// axes each) over the same batch axes: float operands of one dtype.
pub(crate) fn check_linalg_operands(
    name: &str,
    ops: &[Aval],
    ranks: &[usize],
    c: &mut crate::ir::shapes::Constraints,
) -> Result<(), String> {
    for (i, x) in ops.iter().enumerate() {
        if !linalg_dtype(x.dtype) {
            return Err(format!(
                "{name} does not accept dtype {} at position {i}. Accepted dtypes at position {i} are subtypes of floating, complexfloating.",
                x.dtype.name()
            ));
        }
    }
    for (i, (x, &r)) in ops.iter().zip(ranks).enumerate() {
        if x.rank() < r {
            return Err(format!(
                "Input {i} to {name} must have rank at least {r}, but got shape={}",
                shape_tuple(&x.shape)
            ));
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

fn params(p: &Params) -> TriangularSolveParams {
    match p {
        Params::TriangularSolve(t) => *t,
        _ => unreachable!("triangular_solve carries Params::TriangularSolve"),
    }
}

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.to_string()
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
        ("conjugate_a", py_bool(t.conjugate_a)),
        ("left_side", py_bool(t.left_side)),
        ("lower", py_bool(t.lower)),
        ("transpose_a", py_bool(t.transpose_a)),
        ("unit_diagonal", py_bool(t.unit_diagonal)),
    ]
}

/// The runtime entry point of a dtype: `NAME_f32`, `NAME_f64`, `NAME_c64`
/// or `NAME_c128`.
pub(crate) fn entry(name: &str, dtype: DType) -> proc_macro2::Ident {
    let suffix = match dtype {
        DType::F64 | DType::C64 | DType::C128 => dtype.short_name(),
        _ => "f32",
    };
    quote::format_ident!("{name}_{suffix}")
}

/// The dtypes the runtime's factorizations run on (as LAPACK's: f32, f64,
/// complex64, complex128).
pub(crate) fn linalg_dtype(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F64 | DType::C64 | DType::C128)
}

/// complex64 or complex128.
pub(crate) fn is_complex(d: DType) -> bool {
    matches!(d, DType::C64 | DType::C128)
}

/// The real dtype of a complex one (itself for a real one): the dtype of
/// singular values and of `eigh`'s eigenvalues.
pub(crate) fn real_dtype(d: DType) -> DType {
    match d {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    }
}

/// A derivative rule written for real matrices only: an error naming `what`
/// for a complex operand, never a wrong answer.
pub(crate) fn real_derivative_only(what: &str, a: &Aval) -> Res<()> {
    if is_complex(a.dtype) {
        return Err(format!(
            "the derivative of {what} of a {} matrix is not supported yet (complex matrices work in jit without derivatives, and eagerly)",
            a.dtype.name()
        ));
    }
    Ok(())
}

/// `<T as Element>::ZERO` of `dtype`'s Rust type, to fill output buffers.
pub(crate) fn zero_tokens(dtype: DType) -> TokenStream {
    let ty = rust_type(dtype);
    quote!(<#ty as ::jax::Element>::ZERO)
}

fn triangular_solve_call(a: KernelArgs<'_>) -> TokenStream {
    let t = params(a.params);
    let ty = rust_type(a.out_aval.dtype);
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
    let _ = &ty;
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

pub(crate) fn lit(d: &Dim) -> Option<f64> {
    match d {
        Dim::Lit(n) => Some(*n as f64),
        Dim::Sym(_) => None,
    }
}

/// `lax.linalg.triangular_solve_p`.
pub static TRIANGULAR_SOLVE: PrimDef = PrimDef {
    name: "triangular_solve",
    abstract_eval: triangular_solve_eval,
    print_params: print_triangular_solve,
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
pub(crate) fn triangular_solve(
    cx: &mut Ctx,
    a: Atom,
    b: Atom,
    p: TriangularSolveParams,
) -> Res<Atom> {
    cx.bind(&TRIANGULAR_SOLVE, Params::TriangularSolve(p), vec![a, b])
}

/// `_T(x)`: the last two axes swapped.
pub(crate) fn matrix_transpose(cx: &mut Ctx, x: Atom) -> Res<Atom> {
    let r = cx.aval(&x).rank();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    cx.bind(&prims::TRANSPOSE, Params::Transpose { perm }, vec![x])
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
pub(crate) fn tril(cx: &mut Ctx, x: Atom, k: i64) -> Res<Atom> {
    let a = cx.aval(&x);
    let mask = tri_mask(cx, &a.shape, k)?;
    let z = cx.zeros(&crate::ir::rules::tangent_aval(&a))?;
    cx.select(mask, z, x)
}

/// `_triu(m, k)`: the elements on and above diagonal `k`, zeros below.
pub(crate) fn triu(cx: &mut Ctx, x: Atom, k: i64) -> Res<Atom> {
    let a = cx.aval(&x);
    let mask = tri_mask(cx, &a.shape, k - 1)?;
    let z = cx.zeros(&crate::ir::rules::tangent_aval(&a))?;
    cx.select(mask, x, z)
}

/// `lax.dot` of two matrices, or `lax.batch_matmul` over equal leading axes.
pub(crate) fn batch_matmul(cx: &mut Ctx, x: Atom, y: Atom) -> Res<Atom> {
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
