//! The emitted code grows with the fused program, not with tokens times
//! copies: bytes of `#[jax::jit]`'s expansion per traced equation, for
//! programs that are long (elementwise chains, a 200-line body, an unrolled
//! loop), checked against bounds measured when they were set, so a change
//! that makes rustc compile much more code per operation fails here.
//! `benches/compile_time.py` times the same programs' builds.

use quote::quote;

/// The expansion's size in bytes, and the number of traced equations.
fn measure(src: &str) -> (usize, usize) {
    let f: syn::ItemFn = syn::parse_str(src).unwrap();
    let eqns = jax_compiler::jaxpr_text(&f)
        .unwrap()
        .lines()
        .filter(|l| l.contains(" = "))
        .count();
    let out = jax_compiler::expand_jit(Default::default(), quote!(#f)).to_string();
    assert!(!out.contains("compile_error"), "{src} did not compile");
    (out.len(), eqns)
}

fn check(name: &str, src: &str, max_bytes_per_eqn: usize) {
    let (bytes, eqns) = measure(src);
    let per = bytes / eqns.max(1);
    println!("{name}: {bytes} bytes, {eqns} equations, {per} bytes per equation");
    assert!(
        per <= max_bytes_per_eqn,
        "{name}: {per} bytes of expansion per equation, over the bound {max_bytes_per_eqn}"
    );
}

#[test]
fn an_elementwise_chain() {
    let terms = vec!["x"; 200].join(" + ");
    check(
        "chain200",
        &format!("fn f(x: &Array<f32, 8>) -> Array<f32, 8> {{ {terms} }}"),
        BOUND_CHAIN,
    );
}

#[test]
fn a_long_body() {
    let body = "let h = jnp::tanh(h * 0.5 + x);\n".repeat(100);
    check(
        "body100",
        &format!("fn f(x: &Array<f32, 64>) -> Array<f32, 64> {{ let h = x * 1.0; {body} h }}"),
        BOUND_BODY,
    );
}

#[test]
fn an_unrolled_loop() {
    check(
        "unroll300",
        "fn f(x: &Array<f32, 8>) -> Array<f32, 8> { let mut acc = x * 0.0; for i in 0..300 { acc = acc + x * (i as f32) * 0.001; } acc }",
        BOUND_UNROLL,
    );
}

// Measured when set (bytes per equation): chain200 1209, body100 2344,
// unroll300 1189; each bound leaves about a quarter for growth. Before the
// compact replay, the SIMD copies only where they pay and the Jacobians
// made of `jvp` and `__pullback`, the same programs took about 6000, 9000
// and 6100.
const BOUND_CHAIN: usize = 1500;
const BOUND_BODY: usize = 2900;
const BOUND_UNROLL: usize = 1500;

#[test]
fn element_values_are_typed() {
    // An untyped `let __t5 = ops::tanh(__t4);` leaves rustc an inference
    // variable per element operation; in a long fused body type checking
    // then grew faster than the body (a 1000-step unrolled loop: 40 s of
    // build instead of 11 s).
    let body = "let h = jnp::tanh(h * 0.5 + x);\n".repeat(10);
    let f: syn::ItemFn = syn::parse_str(&format!(
        "fn f(x: &Array<f32, 64>) -> Array<f32, 64> {{ let h = x * 1.0; {body} h }}"
    ))
    .unwrap();
    let out = jax_compiler::expand_jit(Default::default(), quote!(#f)).to_string();
    assert!(out.contains("let __t0 : f32 ="), "{out}");
    let untyped = out
        .split("let __t")
        .skip(1)
        .filter(|rest| {
            let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            after.trim_start().starts_with('=')
        })
        .count();
    assert_eq!(untyped, 0, "untyped element values in {out}");
}

#[test]
fn a_large_static_shape_costs_no_tokens_per_element() {
    // The Jacobian companions batch over the identity basis; built from a
    // constant index vector, a 16M-element argument made a 324 MB
    // expansion (rustc then ran out of memory), now two iotas.
    let start = std::time::Instant::now();
    let (bytes, _) =
        measure("fn f(x: &Array<f32, 16777216>) -> Array<f32> { jnp::sum(jnp::sin(x) * x) }");
    assert!(bytes < 200_000, "{bytes} bytes of expansion");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(10),
        "expansion took {:?}",
        start.elapsed()
    );
}

#[test]
fn a_long_body_with_a_tuple_output() {
    // Its Jacobians are trees of one Jacobian per output; past the batched
    // budget each is made of `jvp` and `__pullback` calls, as one output's
    // is: the expansion stays that of the same program with one output
    // (measured when set: 872 kB against 854 kB; batched per output it
    // was 1340 kB).
    let body = "let h = jnp::tanh(h * 0.5 + x);\n".repeat(100);
    let (tuple, _) = measure(&format!(
        "fn f(x: &Array<f32, 64>) -> (Array<f32, 64>, Array<f32>) {{ let h = x * 1.0; {body} (jnp::sin(&h), jnp::sum(h)) }}"
    ));
    let (one, _) = measure(&format!(
        "fn f(x: &Array<f32, 64>) -> Array<f32, 64> {{ let h = x * 1.0; {body} jnp::sin(&h) }}"
    ));
    println!("body100_tuple: {tuple} bytes, {one} with one output");
    assert!(
        tuple * 10 <= one * 11,
        "a tuple output's expansion is {tuple} bytes, the same program with one output's {one}"
    );
}
