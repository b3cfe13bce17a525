//! `cholesky` (JAX's `lax.linalg.cholesky_p`): the lower factor `L` of
//! `A = L Lᵀ` over the leading batch axes, reading only `A`'s lower
//! triangle, NaN everywhere for a matrix that is not positive definite (as
//! JAX on CPU). Run by `::jax::__rt::linalg::cholesky_{f32,f64,c64,c128}` (faer),
//! the entry points eager `jnp::linalg::cholesky` calls too.

use proc_macro2::TokenStream;
use quote::quote;

use super::matrix::{
    batch_matmul, check_linalg_operands, decomposition, entry, lit, real_derivative_only,
    shape_tuple, tril, zero_tokens,
};
use super::triangular::triangular_solve;
use crate::ir::builder::literal;
use crate::ir::shapes::same_dim;
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{
    self, dim_tokens, size_tokens, Ad, Bind, Ctx, KernelArgs, Params, PrimDef, Res,
    TriangularSolveParams,
};
use jax_dtypes::DType;

/// `_cholesky_shape_rule` over `linalg_shape_rule`: a batch of square
/// float matrices; the result has the operand's type.
fn cholesky_eval(
    ops: &[Aval],
    _: &Params,
    c: &mut crate::ir::shapes::Constraints,
) -> Result<Vec<Aval>, String> {
    check_linalg_operands("cholesky", ops, &[2], c)?;
    let x = &ops[0];
    let m = &x.shape[x.rank() - 2..];
    if !same_dim(
        &m[0],
        &m[1],
        "the input to cholesky must be a square matrix",
        c,
    ) {
        return Err(format!(
            "The input to cholesky must be a square matrix. Got shape {}.",
            shape_tuple(m)
        ));
    }
    Ok(vec![x.clone()])
}

fn cholesky_call(a: KernelArgs<'_>) -> TokenStream {
    let av = &a.avals[0];
    let f = entry("cholesky", av.dtype);
    let r = av.rank();
    let batch = size_tokens(&av.shape[..r - 2]);
    let n = dim_tokens(&av.shape[r - 1]);
    let size = size_tokens(&av.shape);
    let x = (a.bind)(0, Bind::Buffer);
    let zero = zero_tokens(av.dtype);
    quote!({
        let mut __out = ::std::vec![#zero; #size];
        ::jax::__rt::linalg::#f(&#x[..], &mut __out[..], #batch, #n);
        __out
    })
}

/// LAPACK's count for `potrf`: `n³/3` per matrix.
fn cholesky_flops(ins: &[Aval], _: &[Aval], _: &Params) -> Option<f64> {
    let s = &ins[0].shape;
    let n = lit(&s[s.len() - 1])?;
    let batch: f64 = s[..s.len() - 2].iter().map(lit).product::<Option<f64>>()?;
    Some(batch * n * n * n / 3.0)
}

/// `lax.linalg.cholesky_p`.
pub static CHOLESKY: PrimDef = decomposition(
    "cholesky",
    cholesky_eval,
    |_, _| Vec::new(),
    |_, _, _| Ok(Params::None),
    cholesky_call,
    cholesky_jvp,
    Some(cholesky_flops),
    1,
);

/// Binds `cholesky(x)` (no symmetrization, no mask: the primitive alone).
pub fn cholesky(cx: &mut Ctx, x: Atom) -> Res<Atom> {
    cx.bind(&CHOLESKY, Params::None, vec![x])
}

/// `1 + eye(n)` of `like`'s float dtype, as JAX's `phi` builds it
/// (`lax._const(X, 1) + lax._eye(dtype, (n, n))`).
fn one_plus_eye(cx: &mut Ctx, n: &Dim, dtype: DType) -> Res<Atom> {
    let shape = vec![n.clone(), n.clone()];
    let iota = |cx: &mut Ctx, dimension| {
        cx.bind(
            &prims::IOTA,
            Params::Iota {
                dtype: DType::I32,
                shape: shape.clone(),
                dimension,
            },
            vec![],
        )
    };
    let rows = iota(cx, 0)?;
    let zero = literal(Scalar::Int(0), Aval::scalar(DType::I32, false));
    let rows = cx.bin(&prims::ADD, rows, zero)?;
    let cols = iota(cx, 1)?;
    let eye = cx.bin(&prims::EQ, rows, cols)?;
    let eye = cx.convert(eye, dtype)?;
    let one = literal(
        crate::ir::cast_scalar(Scalar::Float(1.0), dtype),
        Aval::scalar(dtype, false),
    );
    cx.bin(&prims::ADD, one, eye)
}

/// `_cholesky_jvp_rule` (Murray 2016, arXiv:1602.07527):
/// `L̇ = L Φ(L⁻¹ Σ̇ L⁻ᵀ)`, `Φ` taking the lower triangle with its diagonal
/// halved, the two solves by `triangular_solve`.
fn cholesky_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(sigma_dot) = t[0].clone() else {
        return Ok(vec![None]);
    };
    real_derivative_only("cholesky", &ad.aval(&outs[0]))?;
    let l = tril(ad, outs[0].clone(), 0)?;
    let right = TriangularSolveParams {
        left_side: false,
        lower: true,
        transpose_a: true,
        conjugate_a: false,
        unit_diagonal: false,
    };
    let tmp = triangular_solve(ad, l.clone(), sigma_dot, right)?;
    let left = TriangularSolveParams {
        left_side: true,
        transpose_a: false,
        ..right
    };
    let x = triangular_solve(ad, l.clone(), tmp, left)?;
    // phi(X) = tril(X) / (1 + eye), the divisor with X's batch axes as 1s.
    let xl = tril(ad, x, 0)?;
    let a = ad.aval(&xl);
    let r = a.rank();
    let mut divisor = one_plus_eye(ad, &a.shape[r - 1], a.dtype)?;
    if r > 2 {
        let axes: Vec<usize> = (0..r - 2).collect();
        divisor = ad.expand_dims(divisor, &axes)?;
    }
    let phi = ad.div(xl, divisor)?;
    Ok(vec![Some(batch_matmul(ad, l, phi)?)])
}
