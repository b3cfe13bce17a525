//! `transform::simplify`'s tests that trace Rust source.

use crate::ir::*;
use crate::prims::*;
use crate::transform::simplify::*;

use super::traced_source as traced;

fn prims(j: &Jaxpr) -> Vec<&'static str> {
    j.eqns.iter().map(|e| e.prim.name).collect()
}

#[test]
fn loop_invariant_work_moves_out_of_the_loop() {
    let mut j = traced(
        "fn f(w: Array<f32, 4, 4>, h: Array<f32, 4>) -> Array<f32, 4> {
            lax::fori_loop(0, 5, |_i, h| jnp::tanh((w * 0.5).matmul(&h)), h)
        }",
    );
    let body_prims = |j: &Jaxpr| match &j.eqns.last().unwrap().params {
        Params::Scan(s) => prims(&s.0.body),
        _ => panic!("a scan"),
    };
    assert!(body_prims(&j).contains(&"mul"));
    simplify(&mut j);
    // `w * 0.5` runs once, before the loop; the product stays inside.
    assert!(!body_prims(&j).contains(&"mul"), "{:?}", body_prims(&j));
    assert!(body_prims(&j).contains(&"dot_general"));
    assert_eq!(prims(&j), ["mul", "scan"]);
}

#[test]
fn dead_sign_of_logsumexp_goes() {
    let mut j = traced("fn f(x: Array<f32, 3>) -> Array<f32> { jnp::logsumexp(x) }");
    assert!(prims(&j).contains(&"sign"));
    simplify(&mut j);
    assert!(!prims(&j).contains(&"sign"));
    assert!(!prims(&j).contains(&"stop_gradient"));
}

#[test]
fn division_by_a_broadcast_multiplies_by_its_reciprocal() {
    let mut j = traced("fn f(x: Array<f32, 4, 8>) -> Array<f32, 4, 8> { jnp::softmax(x, -1) }");
    simplify(&mut j);
    let p = prims(&j);
    assert!(
        !p.contains(&"div") || p.iter().filter(|n| **n == "div").count() == 1,
        "{p:?}"
    );
    assert_eq!(p.last(), Some(&"mul"), "{p:?}");
}

#[test]
fn common_subexpressions_and_identities() {
    let mut j =
        traced("fn f(x: Array<f32, 3>) -> Array<f32, 3> { (jnp::sin(x) * 1.0) + jnp::sin(x) }");
    simplify(&mut j);
    assert_eq!(prims(&j), ["sin", "add"]);
    let mut j = traced("fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { x.t().t() }");
    simplify(&mut j);
    assert!(j.eqns.is_empty());
}
