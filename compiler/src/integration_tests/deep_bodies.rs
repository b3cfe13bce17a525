//! Deep and long bodies through the compiler's entry point, on a thread with
//! the stack rustc gives a proc macro (8 MiB): each either compiles or is a
//! spanned compile error, never a stack overflow (which would abort this
//! test process, as it aborts rustc).

use proc_macro2::TokenStream;

/// rustc runs proc macros on its main thread, whose stack is 8 MiB.
const RUSTC_STACK: usize = 8 << 20;

/// Expands `src` (a `fn` item) the way the proc macro does, on a thread with
/// rustc's stack.
fn expand(src: String) -> String {
    std::thread::Builder::new()
        .stack_size(RUSTC_STACK)
        .spawn(move || {
            let item: TokenStream = src.parse().expect("the source tokenizes");
            jax_compiler::expand_jit(TokenStream::new(), item).to_string()
        })
        .unwrap()
        .join()
        .expect("the expansion does not panic")
}

fn function(body: &str) -> String {
    format!("fn f(x: &Array<f32, 3>) -> Array<f32, 3> {{ {body} }}")
}

#[test]
fn five_hundred_nested_blocks_compile() {
    let body = format!("{}x * 2.0{}", "{ ".repeat(500), " }".repeat(500));
    let out = expand(function(&body));
    assert!(
        !out.contains("compile_error"),
        "{}",
        &out[..out.len().min(2000)]
    );
    assert!(out.contains("mul"), "the jaxpr multiplies");
}

#[test]
fn a_three_thousand_term_sum_compiles() {
    let body = vec!["x"; 3000].join(" + ");
    let out = expand(function(&body));
    assert!(
        !out.contains("compile_error"),
        "{}",
        &out[..out.len().min(2000)]
    );
}

fn nested_conds(depth: usize) -> String {
    let mut body = "x * 2.0".to_string();
    for _ in 0..depth {
        body = format!("lax::cond(true, |v| {{ {body} }}, |v| v, x)");
    }
    function(&body)
}

#[test]
fn forty_nested_conds_compile() {
    let out = expand(nested_conds(40));
    let error = out
        .find("compile_error")
        .map(|i| &out[i..(i + 600).min(out.len())]);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        out.matches("cond[").count(),
        40,
        "40 nested conds in the jaxpr"
    );
}

#[test]
fn five_hundred_nested_conds_are_a_spanned_error() {
    let out = expand(nested_conds(500));
    assert!(out.contains("compile_error"), "an error");
    assert!(
        out.contains("at most 64 deep"),
        "{}",
        &out[..out.len().min(2000)]
    );
}

#[test]
fn nesting_beyond_the_limit_is_a_spanned_error() {
    // Deeper than any body a person writes: a compile error at the
    // innermost tokens, saying how deep bodies may nest.
    let depth = 100_000;
    let body = format!("{}x{}", "(".repeat(depth), ")".repeat(depth));
    let out = expand(function(&body));
    assert!(out.contains("compile_error"), "deep nesting is an error");
    assert!(out.contains("nest"), "{}", &out[..out.len().min(2000)]);
}

#[test]
fn a_loop_unrolling_past_the_limit_is_an_error_at_the_loop() {
    // Three equations an iteration (sin, mul, add): 30,000 in all.
    let body =
        "let mut acc = x.clone(); for i in 0..10000 { acc = acc + jnp::sin(x) * (i as f32); } acc";
    let start = std::time::Instant::now();
    let out = expand(function(body));
    assert!(out.contains("compile_error"), "the loop is an error");
    assert!(
        out.contains("unrolls into more than 10000 equations"),
        "{}",
        &out[..out.len().min(2000)]
    );
    assert!(
        out.contains("lax::fori_loop"),
        "it says what to write instead"
    );
    // Stopped once past the limit, not after tracing every iteration.
    assert!(
        out.contains("about 30000 in all"),
        "{}",
        &out[..out.len().min(2000)]
    );
    eprintln!("rejected in {:?}", start.elapsed());
}

#[test]
fn nested_loops_count_together() {
    let body =
        "let mut acc = x.clone(); for i in 0..200 { for j in 0..30 { acc = acc * 0.5 + x; } } acc";
    let out = expand(function(body));
    assert!(
        out.contains("unrolls into more than 10000 equations"),
        "{}",
        &out[..out.len().min(2000)]
    );
}

#[test]
fn a_loop_below_the_limit_compiles() {
    let body = "let mut acc = x.clone(); for i in 0..1000 { acc = acc * 0.5 + x; } acc";
    let out = expand(function(body));
    assert!(
        !out.contains("compile_error"),
        "{}",
        &out[..out.len().min(2000)]
    );
}
