//! Generated bodies, accepted and rejected, through the compiler's entry
//! point: it never panics, its output always parses, and every error points
//! inside the user's tokens.

use proc_macro2::{LineColumn, TokenStream, TokenTree};
use proptest::prelude::*;

/// Statements users write, correct or not.
const STATEMENTS: &[&str] = &[
    "let y = x + 1.0;",
    "let y = jnp::sin(x) * 2.0;",
    "let y: Array<f32, 3> = x.clone();",
    "let (a, b) = (x, x);",
    "let y = x.at(0).set(1.0);",
    "let s = x.sum();",
    "let m = jnp::mean(x, 0, false);",
    "let c = |v: Array<f32, 3>| v * v;",
    "let mut acc = x; for i in 0..3 { acc = acc + i as f32; }",
    "let mut acc = x; acc += x;",
    "if 1 > 0 { let z = x; }",
    "let k = match 2 { 0 => 1, _ => 2 };",
    "x[0] = 1.0;",
    "x[0] += 1.0;",
    "x.fill(0.0);",
    "let v = x.iter().sum();",
    "for v in x { }",
    "for i in 0..n { }",
    "println!(\"{:?}\", x);",
    "dbg!(x);",
    "let w = std::fs::read_to_string(\"f\");",
    "let r = std::cell::RefCell::new(1);",
    "let t = helper(x);",
    "unsafe { }",
    "loop { break; }",
    "while n > 0 { }",
    "let q = n as f32;",
    "let q = n.item();",
    "let m = x > 0.0; let z = x[m];",
    "let z = jnp::arange(n);",
    "let z = jnp::sum(vec![1, 2]);",
    "let z = lax::add(x, n);",
    "let z = x.matmul(x);",
    "let z: Array<f32, 4> = x.reshape();",
    "let z = (x > 0.0) && (x < 1.0);",
    "let z = &mut x;",
    "let z = async { 1 };",
    "let z = Some(x)?;",
    "return x;",
    "struct S;",
    "let z = x.at(n).get();",
    "let z = jnp::where_(x > 0.0, x, 0.0);",
    "let z = undefined_name + x;",
    "let z = y + y;",
];

/// Result expressions.
const TAILS: &[&str] = &[
    "x",
    "x + 1.0",
    "y",
    "z",
    "acc",
    "jnp::tanh(x)",
    "x.sum()",
    "n",
    "(x, x)",
    "if n > 0 { x } else { x }",
    "x * SCALE",
    "",
];

/// Tokens of nonsense bodies.
const WORDS: &[&str] = &[
    "x", "n", "jnp", "lax", "::", ".", ",", ";", "=", "+", "*", "-", "!", "&", "&&", "<", ">",
    "..", "?", "1", "2.5", "let", "mut", "if", "else", "for", "in", "match", "=>", "_", "fn",
    "sum", "at", "set", "get", "reshape", "as", "f32", "Array", "return", "loop", "|",
];

/// A balanced token soup.
fn nonsense() -> impl Strategy<Value = String> {
    let leaf = prop::collection::vec(prop::sample::select(WORDS), 0..8).prop_map(|w| w.join(" "));
    leaf.prop_recursive(3, 24, 3, |inner| {
        (
            prop::sample::select(&[("(", ")"), ("[", "]"), ("{", "}")][..]),
            prop::collection::vec(inner, 1..3),
        )
            .prop_map(|((open, close), parts)| format!("{open} {} {close}", parts.join(" ")))
    })
}

fn body() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(STATEMENTS), 0..5),
        prop::option::weighted(0.3, nonsense()),
        prop::sample::select(TAILS),
    )
        .prop_map(|(stmts, soup, tail)| {
            let mut lines: Vec<String> = stmts.iter().map(|s| s.to_string()).collect();
            lines.extend(soup);
            lines.push(tail.to_string());
            lines.join("\n    ")
        })
}

/// Where every `compile_error!` of the output points.
fn error_spans(out: TokenStream, found: &mut Vec<(LineColumn, LineColumn)>) {
    let mut tokens = out.into_iter().peekable();
    while let Some(t) = tokens.next() {
        match t {
            TokenTree::Ident(i) if i == "compile_error" => {
                let start = i.span().start();
                // `compile_error ! { "msg" }`: the group carries the end.
                let end = tokens
                    .by_ref()
                    .find_map(|t| match t {
                        TokenTree::Group(g) => Some(g.span().end()),
                        _ => None,
                    })
                    .unwrap_or(start);
                found.push((start, end));
            }
            TokenTree::Group(g) => error_spans(g.stream(), found),
            _ => {}
        }
    }
}

fn check(body: &str) -> Result<(), TestCaseError> {
    // Two blank lines first, so the call-site span (line 1) is outside the input.
    let src =
        format!("\n\nfn f(x: Array<f32, 3>, n: Array<i32>) -> Array<f32, 3> {{\n    {body}\n}}\n");
    let Ok(item) = src.parse::<TokenStream>() else {
        return Ok(()); // not a token stream at all: rustc would reject it first
    };
    let first = LineColumn { line: 3, column: 0 };
    let last = LineColumn {
        line: src.lines().count(),
        column: 1,
    };
    let out = jax_compiler::expand_jit(TokenStream::new(), item);
    prop_assert!(
        syn::parse2::<syn::File>(out.clone()).is_ok(),
        "output does not parse for:\n{src}"
    );
    let mut spans = Vec::new();
    error_spans(out, &mut spans);
    for (start, end) in spans {
        prop_assert!(
            start >= first && end <= last && start <= end,
            "error spans {start:?}..{end:?}, outside the input:\n{src}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_bodies_never_panic_and_errors_point_inside(body in body()) {
        check(&body)?;
    }
}
