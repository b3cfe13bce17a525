//! `jnp::einsum`, eagerly and in `#[jax::jit]`, against JAX
//! (tests/fixtures/einsum.json, made by tests/fixtures/gen/einsum.py):
//! values (exactly: the operands are multiples of 1/4, so every product
//! and sum is exact), jvp and vjp for a few cases, and the contraction
//! path against opt_einsum's greedy one. Jitted and eager results are also
//! compared with each other.

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

fn arg<A: ArrayType>(v: &Value) -> A {
    A::from_data(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| A::Elem::from_f64(d.as_f64().unwrap()))
            .collect(),
    )
}

/// The plan's contraction path is opt_einsum's greedy path.
fn path(c: &Value) {
    let shapes: Vec<Vec<usize>> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            a["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect()
        })
        .collect();
    let plan = jax_dtypes::einsum::plan(c["subscripts"].as_str().unwrap(), &shapes).unwrap();
    let want: Vec<Vec<usize>> = serde_json::from_value(c["path_greedy"].clone()).unwrap();
    assert_eq!(plan.path, want, "{}: contraction path", c["name"]);
}

/// A case: the jitted function, the eager call, and with `grads` its jvp
/// and vjp against JAX's.
macro_rules! case {
    ($kind:ident, $name:ident, $subs:literal, |$($x:ident: $t:ty),+| -> $r:ty) => {
        mod $name {
            use super::*;

            #[jax::jit]
            pub fn jitted($($x: $t),+) -> $r {
                jnp::einsum($subs, ($(&$x,)+))
            }

            #[allow(unused_assignments)]
            pub fn check() {
                let c = common::case("einsum", stringify!($name));
                let mut k = 0;
                $(let $x: $t = arg(&c["args"][k]); k += 1;)+
                assert_eq!(k, c["args"].as_array().unwrap().len());
                let eager: $r = jnp::einsum($subs, ($(&$x,)+));
                common::assert_matches(&eager, &c["output"]);
                let jit = jitted($($x.clone()),+);
                common::assert_matches(&jit, &c["output"]);
                assert_eq!(jit.to_vec(), eager.to_vec());
                path(&c);
                case!(@$kind c, $($x: $t),+);
            }
        }
    };
    (@values $c:ident, $($x:ident: $t:ty),+) => {};
    (@grads $c:ident, $($x:ident: $t:ty),+) => {{
        let mut k = 0;
        let tangents = ($({
            let t: $t = arg(&$c["tangents"][k]);
            k += 1;
            t
        },)+);
        let (_, ty) = jitted::jvp(($($x.clone(),)+), tangents);
        common::assert_matches(&ty, &$c["jvp"]);
        let (_, pullback) = jitted::vjp($($x.clone()),+);
        let ($($x,)+) = pullback(arg(&$c["cotangent"]));
        let mut k = 0;
        $(
            common::assert_matches(&$x, &$c["vjp"]["items"][k]);
            k += 1;
        )+
    }};
}

case!(grads, matmul, "ij,jk->ik", |a: Array<f32, 2, 3>, b: Array<f32, 3, 4>| -> Array<f32, 2, 4>);
case!(grads, batched_matmul, "bij,bjk->bik", |a: Array<f32, 5, 2, 3>, b: Array<f32, 5, 3, 4>| -> Array<f32, 5, 2, 4>);
case!(grads, outer, "i,j->ij", |a: Array<f32, 3>, b: Array<f32, 4>| -> Array<f32, 3, 4>);
case!(grads, trace, "ii->", |a: Array<f32, 3, 3>| -> Array<f32>);
case!(values, sum_all, "ij->", |a: Array<f32, 2, 3>| -> Array<f32>);
case!(values, transpose, "ij->ji", |a: Array<f32, 2, 3>| -> Array<f32, 3, 2>);
case!(grads, three, "ij,jk,kl->il", |a: Array<f32, 2, 3>, b: Array<f32, 3, 4>, c: Array<f32, 4, 5>| -> Array<f32, 2, 5>);
case!(values, three_wide, "ij,jk,kl->il", |a: Array<f32, 10, 3>, b: Array<f32, 3, 40>, c: Array<f32, 40, 5>| -> Array<f32, 10, 5>);
case!(values, four, "ij,jk,kl,lm->im", |a: Array<f32, 2, 3>, b: Array<f32, 3, 4>, c: Array<f32, 4, 5>, d: Array<f32, 5, 6>| -> Array<f32, 2, 6>);
case!(values, three_mixed, "abc,bd,cde->ae", |a: Array<f32, 2, 3, 4>, b: Array<f32, 3, 5>, c: Array<f32, 4, 5, 6>| -> Array<f32, 2, 6>);
case!(values, bilinear, "i,ij,j->", |a: Array<f32, 3>, b: Array<f32, 3, 4>, c: Array<f32, 4>| -> Array<f32>);
case!(grads, row_dot, "ij,ij->i", |a: Array<f32, 2, 3>, b: Array<f32, 2, 3>| -> Array<f32, 2>);
case!(values, implicit, "ij,jk", |a: Array<f32, 2, 3>, b: Array<f32, 3, 4>| -> Array<f32, 2, 4>);
case!(values, diagonal, "ii->i", |a: Array<f32, 3, 3>| -> Array<f32, 3>);
case!(values, matvec, "ij,j->i", |a: Array<f32, 2, 3>, b: Array<f32, 3>| -> Array<f32, 2>);
case!(values, dot, "i,i->", |a: Array<f32, 4>, b: Array<f32, 4>| -> Array<f32>);
case!(values, ellipsis, "...ij,...jk->...ik", |a: Array<f32, 2, 2, 3>, b: Array<f32, 2, 3, 4>| -> Array<f32, 2, 2, 4>);
case!(values, transposed_result, "ij,jk->ki", |a: Array<f32, 2, 3>, b: Array<f32, 3, 4>| -> Array<f32, 4, 2>);
case!(values, sum_unique, "ij,k->ik", |a: Array<f32, 2, 3>, b: Array<f32, 4>| -> Array<f32, 2, 4>);
case!(values, batched_outer, "bi,bj->bij", |a: Array<f32, 2, 3>, b: Array<f32, 2, 4>| -> Array<f32, 2, 3, 4>);
case!(values, int_matmul, "ij,jk->ik", |a: Array<i32, 2, 3>, b: Array<i32, 3, 4>| -> Array<i32, 2, 4>);
case!(grads, diagonal_partial, "iij->j", |a: Array<f32, 3, 3, 2>| -> Array<f32, 2>);
case!(values, diagonal_three, "iii->", |a: Array<f32, 3, 3, 3>| -> Array<f32>);

#[test]
fn values_derivatives_and_paths_match_jax() {
    matmul::check();
    batched_matmul::check();
    outer::check();
    trace::check();
    sum_all::check();
    transpose::check();
    three::check();
    three_wide::check();
    four::check();
    three_mixed::check();
    bilinear::check();
    row_dot::check();
    implicit::check();
    diagonal::check();
    matvec::check();
    dot::check();
    ellipsis::check();
    transposed_result::check();
    sum_unique::check();
    batched_outer::check();
    int_matmul::check();
    diagonal_partial::check();
    diagonal_three::check();
}

/// Every case of the fixture is checked above.
#[test]
fn every_fixture_case_is_written() {
    assert_eq!(common::cases("einsum").len(), 23);
}
