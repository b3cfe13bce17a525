//! Printed jaxprs against `jax.make_jaxpr` (tests/fixtures/jaxpr.json): each
//! fixture function that the accepted syntax can express, written in Rust.

use serde_json::Value;

fn fixture(id: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/jaxpr.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no fixture {id}"));
    case["jaxpr"].as_str().unwrap().to_string()
}

fn jaxpr(src: &str) -> String {
    let f: syn::ItemFn = syn::parse_str(src).unwrap();
    jax_compiler::jaxpr_text(&f).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// (fixture id, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "elementwise_chain@x64_off",
        "fn f(x: Array<f32, 3>) -> Array<f32, 3> { jnp::sin(x) * 2.0 + jnp::cos(x) }",
    ),
    (
        "elementwise_exp_log_tanh@x64_off",
        "fn f(x: Array<f32, 2, 3>, y: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jnp::tanh(jnp::exp(x) - jnp::log(y)) / y }",
    ),
    ("scalar_weak_literals@x64_off", "fn f(x: f32) -> f32 { x * 2.0 + 1 }"),
    ("int_plus_python_int@x64_off", "fn f(x: Array<i32, 4>) -> Array<i32, 4> { x + 1 }"),
    ("int_times_python_float@x64_off", "fn f(x: Array<i32, 4>) -> Array<f32, 4> { x * 1.5 }"),
    ("astype@x64_off", "fn f(x: Array<f32, 3>) -> Array<i32, 3> { x.astype::<i32>() }"),
    (
        "dot@x64_off",
        "fn f(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>) -> Array<f32, 2, 4> { jnp::dot(a, b) }",
    ),
    (
        "matmul_operator@x64_off",
        "fn f(a: Array<f32, 2, 3>, b: Array<f32, 3>) -> Array<f32, 2> { a.matmul(b) }",
    ),
    (
        "dot_vector_vector@x64_off",
        "fn f(a: Array<f32, 3>, b: Array<f32, 3>) -> Array<f32> { jnp::dot(a, b) }",
    ),
    (
        "einsum_batched@x64_off",
        "fn f(a: Array<f32, 2, 3, 4>, b: Array<f32, 2, 4, 5>) -> Array<f32, 2, 3, 5> { jnp::matmul(a, b) }",
    ),
    (
        "reduction_sum_axis0@x64_off",
        "fn f(x: Array<f32, 2, 3>) -> Array<f32, 3> { jnp::sum(x, 0, false) }",
    ),
    ("reduction_sum_all@x64_off", "fn f(x: Array<f32, 2, 3>) -> Array<f32> { x.sum() }"),
    ("reduction_max@x64_off", "fn f(x: Array<f32, 2, 3>) -> Array<f32> { jnp::max(x) }"),
    (
        "reduction_mean_keepdims@x64_off",
        "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 1> { jnp::mean(x, 1, true) }",
    ),
    (
        "integer_pow_and_pow@x64_off",
        "fn f(x: f32) -> f32 { jnp::power(x, 2) + jnp::power(x, 2.5) }",
    ),
    (
        "pure_uses_internal_state@x64_off",
        "fn f(x: f32) -> f32 {
            let mut even = 0;
            let mut odd = 0;
            for i in 0..10 {
                if i % 2 == 0 { even += x; } else { odd += x; }
            }
            even + odd
        }",
    ),
    (
        "multiple_outputs_pytree@x64_off",
        "fn f(x: Array<f32, 2>) -> (Array<f32, 2>, Array<f32, 2>, Array<f32>) { (x + 1.0, x * 2.0, jnp::sum(x)) }",
    ),
    (
        "stop_gradient@x64_off",
        "fn f(x: f32) -> f32 { x * lax::stop_gradient(x) }",
    ),
    (
        "softmax@x64_off",
        "fn f(x: Array<f32, 3>) -> Array<f32, 3> { jnp::softmax(x, -1) }",
    ),
    ("logsumexp@x64_off", "fn f(x: Array<f32, 3>) -> Array<f32> { jnp::logsumexp(x) }"),
    (
        "reshape_transpose@x64_off",
        "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { let y: Array<f32, 3, 2> = x.reshape(); y.t() }",
    ),
    (
        "broadcast_outer@x64_off",
        "fn f(x: Array<f32, 2>, y: Array<f32, 3>) -> Array<f32, 2, 3> { jnp::expand_dims(x, 1) + y }",
    ),
    (
        "concatenate@x64_off",
        "fn f(x: Array<f32, 2>, y: Array<f32, 3>) -> Array<f32, 5> { jnp::concatenate((x, y), 0) }",
    ),
    ("argmax@x64_off", "fn f(x: Array<f32, 5>) -> Array<i32> { jnp::argmax(x) }"),
    (
        "static_slice@x64_off",
        "fn f(x: Array<f32, 5>) -> Array<f32, 2> { x.slice(s![1..3]) }",
    ),
    ("index_scalar_static@x64_off", "fn f(x: Array<f32, 5>) -> Array<f32> { x.at(1).get() }"),
    ("index_negative_static@x64_off", "fn f(x: Array<f32, 5>) -> Array<f32> { x.at(-1).get() }"),
    ("at_set@x64_off", "fn f(x: Array<f32, 5>) -> Array<f32, 5> { x.at(1).set(5.0) }"),
    (
        "at_add_index_array@x64_off",
        "fn f(x: Array<f32, 5>) -> Array<f32, 5> { x.at(jnp::array([0, 0])).add(1.0) }",
    ),
    (
        "closure_constant@x64_off",
        "fn f(x: Array<f32, 3>) -> Array<f32> { let c = jnp::array([1.0, 2.0, 3.0]); jnp::sum(x * c) }",
    ),
    ("index_traced@x64_off", "fn f(x: Array<f32, 5>, i: i32) -> Array<f32> { x.at(i).get() }"),
    (
        "closure_numpy_constant@x64_off",
        "fn f(x: Array<f32, 3>) -> Array<f32> { let c = jnp::array([1.0f32, 2.0, 3.0]); jnp::sum(x * c) }",
    ),
    (
        "permissive_sum@x64_off",
        "fn f(a: i32, b: i32, c: i32, d: i32, e: i32, f: i32, g: i32, h: i32, i: i32, j: i32) -> Array<i32> {
            jnp::sum(jnp::array([a, b, c, d, e, f, g, h, i, j]))
        }",
    ),
    (
        "permissive_sum_x64@x64_on",
        "fn f(a: i64, b: i64, c: i64, d: i64, e: i64, f: i64, g: i64, h: i64, i: i64, j: i64) -> Array<i64> {
            jnp::sum(jnp::array([a, b, c, d, e, f, g, h, i, j]))
        }",
    ),
    ("scalar_weak_literals_x64@x64_on", "fn f(x: f64) -> f64 { x * 2.0 + 1 }"),
    ("cond@x64_off", "fn f(x: f32) -> f32 { lax::cond(x.gt(0.0), jnp::sin, jnp::cos, x) }"),
    (
        "cond_python_bool_pred_array@x64_off",
        "fn f(x: Array<f32, 1>) -> Array<f32, 1> { lax::cond(true, |x: Array<f32, 1>| x + 1.0, |x: Array<f32, 1>| x - 1.0, x) }",
    ),
    (
        "switch@x64_off",
        "fn f(i: i32, x: f32) -> f32 { lax::switch(i, [jnp::sin, jnp::cos, jnp::exp], x) }",
    ),
    (
        "fori_loop_static@x64_off",
        "fn f(x: f32) -> f32 { lax::fori_loop(0, 3, |_i, c| c + x, 0.0) }",
    ),
    (
        "fori_loop_dynamic_bound@x64_off",
        "fn f(x: f32, n: i32) -> f32 { lax::fori_loop(0, n, |_i, c| c + x, 0.0) }",
    ),
    (
        "while_loop@x64_off",
        "fn f(x: f32) -> f32 { lax::while_loop(|c| c.lt(10.0), |c| c * 2.0, x) }",
    ),
    (
        "scan_cumsum_and_products@x64_off",
        "fn f(xs: Array<f32, 4>) -> (Array<f32>, Array<f32, 4>) { lax::scan(|c, x| (c + x, c * x), 0.0, xs) }",
    ),
    (
        "scan_func11@x64_off",
        "fn f(arr: Array<i32, 16>, extra: f32) -> (Array<f32>, Array<f32, 16>) {
            let ones = Array::<f32, 16>::ones();
            lax::scan(|carry, (ae1, ae2)| (carry + ae1 * ae2 + extra, carry), 0.0, (arr, ones))
        }",
    ),
    (
        "elementwise_chain_x64@x64_on",
        "fn f(x: Array<f64, 3>) -> Array<f64, 3> { jnp::sin(x) * 2.0 + jnp::cos(x) }",
    ),
];

#[test]
fn jaxprs_match_jax() {
    let mut failures = Vec::new();
    for (id, src) in CASES {
        // The x64 cases are printed with x64 on; the others with it off.
        if id.ends_with("@x64_on") != jax_compiler::x64() {
            continue;
        }
        let got = jaxpr(src);
        let want = fixture(id);
        if got != want {
            failures.push(format!("{id}:\n--- ours\n{got}\n--- jax\n{want}\n"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
