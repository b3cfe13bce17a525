//! `transform::scan_sums`'s tests that trace Rust source.

use crate::ir::*;
use crate::prims::*;

use super::simplified_source as simplified;

fn prims(j: &Jaxpr) -> Vec<&'static str> {
    j.eqns.iter().map(|e| e.prim.name).collect()
}

fn scan_of(j: &Jaxpr) -> &Scan {
    match &j
        .eqns
        .iter()
        .find(|e| e.prim.name == "scan")
        .unwrap()
        .params
    {
        Params::Scan(s) => &s.0,
        _ => unreachable!(),
    }
}

/// A scan over 30 rows `x` of width `n` whose `n × n` carry becomes
/// `update` of `acc` and the outer product `col · row` of `x`.
fn summing(n: usize, update: &str) -> Jaxpr {
    simplified(&format!(
        "fn f(acc: Array<f32, {n}, {n}>, xs: Array<f32, 30, {n}>) -> Array<f32, {n}, {n}> {{
            lax::scan(|acc: Array<f32, {n}, {n}>, x: Array<f32, {n}>| {{
                let col: Array<f32, {n}, 1> = x.reshape();
                let row: Array<f32, 1, {n}> = x.reshape();
                ({update}, 0.0)
            }}, acc, xs).0
        }}"
    ))
}

#[test]
fn a_summed_product_carry_becomes_one_contraction_after_the_loop() {
    let j = summing(16, "acc + col.matmul(&row)");
    assert_eq!(prims(&j), ["scan", "dot_general", "add"]);
    let s = scan_of(&j);
    assert_eq!(s.n_carry, 0);
    assert!(!prims(&s.body).contains(&"dot_general"));
    // The step axis and the size-1 axis are contracted.
    match &j.eqns[1].params {
        Params::DotGeneral {
            lhs_contract,
            rhs_contract,
            ..
        } => assert_eq!(
            (&lhs_contract[..], &rhs_contract[..]),
            (&[0, 2][..], &[0, 1][..])
        ),
        _ => unreachable!(),
    }
}

#[test]
fn a_carry_read_besides_its_sum_is_kept() {
    let j = summing(16, "acc * 0.5 + col.matmul(&row)");
    assert_eq!(prims(&j), ["scan"]);
    assert_eq!(scan_of(&j).n_carry, 1);
}

#[test]
fn a_small_accumulator_stays_in_the_loop() {
    assert_eq!(scan_of(&summing(4, "acc + col.matmul(&row)")).n_carry, 1);
}
