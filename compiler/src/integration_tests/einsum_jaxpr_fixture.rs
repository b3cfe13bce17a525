//! Printed jaxprs of `jnp::einsum` against `jax.make_jaxpr` of
//! `jnp.einsum(.., optimize='greedy')` (tests/fixtures/einsum.json, made by
//! tests/fixtures/gen/einsum.py), diagonals (`iota`, `eq`, `select_n`)
//! included.

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "trace",
        r#"fn f(a: Array<f32, 3, 3>) -> Array<f32> { jnp::einsum("ii->", (&a,)) }"#,
    ),
    (
        "diagonal",
        r#"fn f(a: Array<f32, 3, 3>) -> Array<f32, 3> { jnp::einsum("ii->i", (&a,)) }"#,
    ),
    (
        "diagonal_partial",
        r#"fn f(a: Array<f32, 3, 3, 2>) -> Array<f32, 2> { jnp::einsum("iij->j", (&a,)) }"#,
    ),
    (
        "diagonal_three",
        r#"fn f(a: Array<f32, 3, 3, 3>) -> Array<f32> { jnp::einsum("iii->", (&a,)) }"#,
    ),
    (
        "matmul",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>) -> Array<f32, 2, 4> { jnp::einsum("ij,jk->ik", (&a, &b)) }"#,
    ),
    (
        "batched_matmul",
        r#"fn f(a: Array<f32, 5, 2, 3>, b: Array<f32, 5, 3, 4>) -> Array<f32, 5, 2, 4> { jnp::einsum("bij,bjk->bik", (&a, &b)) }"#,
    ),
    (
        "outer",
        r#"fn f(a: Array<f32, 3>, b: Array<f32, 4>) -> Array<f32, 3, 4> { jnp::einsum("i,j->ij", (&a, &b)) }"#,
    ),
    (
        "sum_all",
        r#"fn f(a: Array<f32, 2, 3>) -> Array<f32> { jnp::einsum("ij->", (&a,)) }"#,
    ),
    (
        "transpose",
        r#"fn f(a: Array<f32, 2, 3>) -> Array<f32, 3, 2> { jnp::einsum("ij->ji", (&a,)) }"#,
    ),
    (
        "three",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>, c: Array<f32, 4, 5>) -> Array<f32, 2, 5> { jnp::einsum("ij,jk,kl->il", (&a, &b, &c)) }"#,
    ),
    (
        "three_wide",
        r#"fn f(a: Array<f32, 10, 3>, b: Array<f32, 3, 40>, c: Array<f32, 40, 5>) -> Array<f32, 10, 5> { jnp::einsum("ij,jk,kl->il", (&a, &b, &c)) }"#,
    ),
    (
        "four",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>, c: Array<f32, 4, 5>, d: Array<f32, 5, 6>) -> Array<f32, 2, 6> { jnp::einsum("ij,jk,kl,lm->im", (&a, &b, &c, &d)) }"#,
    ),
    (
        "three_mixed",
        r#"fn f(a: Array<f32, 2, 3, 4>, b: Array<f32, 3, 5>, c: Array<f32, 4, 5, 6>) -> Array<f32, 2, 6> { jnp::einsum("abc,bd,cde->ae", (&a, &b, &c)) }"#,
    ),
    (
        "bilinear",
        r#"fn f(a: Array<f32, 3>, b: Array<f32, 3, 4>, c: Array<f32, 4>) -> Array<f32> { jnp::einsum("i,ij,j->", (&a, &b, &c)) }"#,
    ),
    (
        "row_dot",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 2, 3>) -> Array<f32, 2> { jnp::einsum("ij,ij->i", (&a, &b)) }"#,
    ),
    (
        "implicit",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>) -> Array<f32, 2, 4> { jnp::einsum("ij,jk", (&a, &b)) }"#,
    ),
    (
        "matvec",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 3>) -> Array<f32, 2> { jnp::einsum("ij,j->i", (&a, &b)) }"#,
    ),
    (
        "dot",
        r#"fn f(a: Array<f32, 4>, b: Array<f32, 4>) -> Array<f32> { jnp::einsum("i,i->", (&a, &b)) }"#,
    ),
    (
        "ellipsis",
        r#"fn f(a: Array<f32, 2, 2, 3>, b: Array<f32, 2, 3, 4>) -> Array<f32, 2, 2, 4> { jnp::einsum("...ij,...jk->...ik", (&a, &b)) }"#,
    ),
    (
        "transposed_result",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>) -> Array<f32, 4, 2> { jnp::einsum("ij,jk->ki", (&a, &b)) }"#,
    ),
    (
        "sum_unique",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 4>) -> Array<f32, 2, 4> { jnp::einsum("ij,k->ik", (&a, &b)) }"#,
    ),
    (
        "batched_outer",
        r#"fn f(a: Array<f32, 2, 3>, b: Array<f32, 2, 4>) -> Array<f32, 2, 3, 4> { jnp::einsum("bi,bj->bij", (&a, &b)) }"#,
    ),
    (
        "int_matmul",
        r#"fn f(a: Array<i32, 2, 3>, b: Array<i32, 3, 4>) -> Array<i32, 2, 4> { jnp::einsum("ij,jk->ik", (&a, &b)) }"#,
    ),
];

#[test]
fn einsum_prints_as_jax() {
    jaxpr_cases::assert_print_as_jax("einsum", "jaxpr", CASES);
}
