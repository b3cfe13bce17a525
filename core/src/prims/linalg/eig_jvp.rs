//! The derivative of `eig`'s eigenvalues, as JAX's `eig_jvp_rule`:
//! `dw = sum(solve(V, dA) * Vᵀ, -1)`, the diagonal of `V⁻¹ dA V`. The
//! complex solve runs as a real one of twice the size,
//! `[[Vr, -Vi], [Vi, Vr]] [Xr; Xi] = [dA; 0]`, through `lu` and
//! `triangular_solve` (whose rules differentiate and transpose it).

use super::lu::{permute_rows, tri_solve};
use super::matrix::matrix_transpose;
use crate::ir::primitive::Params;
use crate::ir::{Atom, Dim};
use crate::prims::{self, Ctx, Res};

/// `[x, y]` joined along `axis`.
fn concat(cx: &mut Ctx, x: Atom, y: Atom, axis: usize) -> Res<Atom> {
    cx.bind(
        &prims::CONCATENATE,
        Params::Concatenate { dim: axis },
        vec![x, y],
    )
}

/// `x[..., rows, :]`: rows `from..from + n` of the last-but-one axis.
fn rows(cx: &mut Ctx, x: Atom, from: usize, n: usize) -> Res<Atom> {
    let a = cx.aval(&x);
    let r = a.rank();
    let mut start = vec![0; r];
    let mut limit = Vec::with_capacity(r);
    for d in &a.shape {
        match d {
            Dim::Lit(k) => limit.push(*k),
            Dim::Sym(s) => {
                return Err(format!(
                    "the derivative of eigvals needs static sizes, got `{s}`"
                ))
            }
        }
    }
    start[r - 2] = from;
    limit[r - 2] = from + n;
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

/// The tangent of the eigenvalues of `a` for the tangent `da`.
pub fn eigvals_jvp(cx: &mut Ctx, a: Atom, da: Atom) -> Res<Atom> {
    let outs = cx.bind_all(
        &super::qr::EIG,
        Params::Eig {
            left: false,
            right: true,
        },
        vec![a.clone()],
    )?;
    let vr = outs[1].clone();
    let av = cx.aval(&a);
    let r = av.rank();
    let Dim::Lit(n) = av.shape[r - 1] else {
        return Err("the derivative of eigvals needs a static matrix size".into());
    };
    let (re, im) = (
        cx.un(&prims::REAL, vr.clone())?,
        cx.un(&prims::IMAG, vr.clone())?,
    );
    let minus_im = cx.neg(im.clone())?;
    let top = concat(cx, re.clone(), minus_im, r - 1)?;
    let bottom = concat(cx, im, re, r - 1)?;
    let m = concat(cx, top, bottom, r - 2)?;
    let zeros = {
        let z = cx.aval(&da);
        cx.zeros(&z)?
    };
    let b = concat(cx, da, zeros, r - 2)?;
    let lu = cx.bind_all(&prims::LU, Params::None, vec![m])?;
    let pb = permute_rows(cx, lu[2].clone(), b)?;
    let y = tri_solve(cx, lu[0].clone(), pb, true, true, false, true)?;
    let x = tri_solve(cx, lu[0].clone(), y, true, false, false, false)?;
    let (xr, xi) = (rows(cx, x.clone(), 0, n)?, rows(cx, x, n, n)?);
    let xc = cx.bin(&prims::COMPLEX, xr, xi)?;
    let vt = matrix_transpose(cx, vr)?;
    let prod = cx.mul(xc, vt)?;
    cx.bind(&prims::REDUCE_SUM, Params::Axes(vec![r - 1], 0), vec![prod])
}
