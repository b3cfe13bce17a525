//! `transform::jacobian`'s tests that trace Rust source.

use crate::ir::*;
use crate::transform::jacobian::*;
use proc_macro2::Span;

use super::traced_source as traced;

fn count(j: &Jaxpr, name: &str) -> usize {
    j.eqns.iter().filter(|e| e.prim.name == name).count()
}

fn out_shape(j: &Jaxpr) -> Vec<Dim> {
    j.atom_aval(&j.outvars[0]).shape.clone()
}

#[test]
fn a_jacobian_is_one_batched_pass() {
    let j = traced("fn f(x: Array<f32, 4>) -> Array<f32, 4> { jnp::sin(x) * jnp::sum(x * x) }");
    let span = Span::call_site();
    let n = |k: usize| vec![Dim::Lit(k), Dim::Lit(k)];
    for forward in [true, false] {
        let batched = jacobian_batched(&j, 0, forward, false, span)
            .unwrap()
            .expect("every equation has a batching rule");
        let per = jacobian_per_basis(&j, 0, forward, false, span).unwrap();
        assert_eq!(out_shape(&batched), n(4));
        assert_eq!(out_shape(&per), n(4));
        // The basis is one `eye`, the derivative one pass over it: one
        // `cos` for all four basis vectors, nothing stacked.
        assert_eq!(count(&batched, "eq"), 1);
        assert_eq!(count(&batched, "cos"), 1);
        assert_eq!(count(&batched, "concatenate"), 0);
        assert_eq!(count(&per, "cos"), 4);
        assert_eq!(count(&per, "concatenate"), 1);
        // `jacfwd` and `jacrev` take the batched path.
        let public = if forward {
            jacfwd(&j, 0, false, span)
        } else {
            jacrev(&j, 0, false, span)
        };
        assert_eq!(count(&public.unwrap(), "cos"), 1);
    }
}

#[test]
fn indexing_jacobians_are_batched_and_agree_with_the_passes() {
    let j = traced("fn f(x: Array<f32, 3>) -> Array<f32> { x.at(0).get() * x.at(2).get() }");
    let span = Span::call_site();
    for forward in [true, false] {
        let batched = jacobian_batched(&j, 0, forward, false, span)
            .unwrap()
            .expect("slice and squeeze have batching rules");
        let per = jacobian_per_basis(&j, 0, forward, false, span).unwrap();
        assert_eq!(out_shape(&batched), vec![Dim::Lit(3)]);
        assert_eq!(out_shape(&per), vec![Dim::Lit(3)]);
    }
}

#[test]
fn the_hessian_of_a_scalar_function_is_a_scalar() {
    let j = traced("fn f(x: f32) -> f32 { x * x * x }");
    let h = hessian(&j, 0, false, Span::call_site()).unwrap();
    assert_eq!(out_shape(&h), Vec::<Dim>::new());
    // jacfwd of the gradient, batched over a basis of one vector.
    assert_eq!(count(&h, "eq"), 1);
    assert_eq!(count(&h, "concatenate"), 0);
}
