//! A fused loop writes over a dead operand's buffer when this function owns
//! it (as XLA reuses buffers), and never over a parameter or a buffer that
//! is read again.

use super::common;

use common::{buffers, expanded};

/// The emitted function itself, without its companion module.
fn body(src: &str) -> String {
    let code = expanded(src);
    match code.find("mod f") {
        Some(m) => code[..m].to_string(),
        None => code,
    }
}

/// The first `for __step` loop of `code`, through its closing brace (what
/// follows the loop, such as the pool taking back dead buffers, is not the
/// step's).
fn first_step_loop(code: &str) -> &str {
    let start = code.find("for __step").expect("a loop");
    let mut depth = 0usize;
    for (i, c) in code[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return &code[start..start + i + 1],
            '}' => depth -= 1,
            _ => {}
        }
    }
    panic!("an unclosed loop in {code}")
}

#[test]
fn a_product_is_activated_in_its_own_buffer() {
    let code = body(
        "fn f(x: &Array<f32, 4, 3>, w: &Array<f32, 3, 2>, b: &Array<f32, 2>) -> Array<f32, 4, 2> { jnp::tanh(x.matmul(w) + b) }",
    );
    assert!(code.contains("gemm"), "{code}");
    assert_eq!(buffers(&code), 0, "{code}");
}

#[test]
fn a_buffer_read_twice_is_written_over_at_its_last_read() {
    // `sum(y)` runs first; the fused loop is `y`'s last reader, and reads
    // each element before writing it.
    let code = body(
        "fn f(x: &Array<f32, 4, 3>, w: &Array<f32, 3, 2>) -> Array<f32, 4, 2> { let y = x.matmul(w); jnp::tanh(&y) * &y + jnp::sum(&y) }",
    );
    assert_eq!(buffers(&code), 0, "{code}");
}

#[test]
fn a_buffer_read_again_later_is_not_written_over() {
    // `y` is also a result: the loop computing `tanh(y)` needs its own buffer.
    let code = body(
        "fn f(x: &Array<f32, 4, 3>, w: &Array<f32, 3, 2>) -> (Array<f32, 4, 2>, Array<f32, 4, 2>) { let y = x.matmul(w); (jnp::tanh(&y), y) }",
    );
    assert_eq!(buffers(&code), 1, "{code}");
}

#[test]
fn parameters_are_never_written_over() {
    let code = body("fn f(x: &Array<f32, 8>) -> Array<f32, 8> { x * 2.0 + 1.0 }");
    assert_eq!(buffers(&code), 1, "{code}");
}

#[test]
fn a_scan_updates_its_carry_in_place() {
    let code = body(
        "fn f(xs: &Array<f32, 10, 4>) -> Array<f32, 4> { lax::scan(|c: Array<f32, 4>, x: Array<f32, 4>| (c * 0.5 + x, 0.0), Array::<f32, 4>::zeros(), xs.clone()).0 }",
    );
    assert!(code.contains("mem :: take (& mut __carry"), "{code}");
    // The new carry is written over the old one: no buffer per step.
    let step = first_step_loop(&code);
    assert_eq!(buffers(step), 0, "{code}");
}

#[test]
fn a_fused_value_read_twice_keeps_its_operands() {
    // `t = tanh(y + 1)` may be computed inside both of its readers' loops,
    // so `y`'s buffer must stay readable for the second.
    let code = body(
        "fn f(x: &Array<f32, 4, 3>, w: &Array<f32, 3, 2>) -> (Array<f32, 4, 2>, Array<f32, 4, 2>) { let t = jnp::tanh(x.matmul(w) + 1.0); (t * 2.0, t * 3.0) }",
    );
    assert!(buffers(&code) >= 1, "{code}");
}

#[test]
fn a_step_takes_over_its_dead_carry() {
    // The product is computed before the body, so the body never reads the
    // old carry: its buffer holds the new one, without a trip through the
    // pool.
    let code = body(
        "fn f(w: &Array<f32, 8, 8>, xs: &Array<f32, 10, 8>, h: &Array<f32, 8>) -> Array<f32, 8> { lax::scan(|h: Array<f32, 8>, x: Array<f32, 8>| (jnp::tanh(w.matmul(&h) + x), 0.0), h.clone(), xs.clone()).0 }",
    );
    let step = first_step_loop(&code);
    assert_eq!(buffers(step), 0, "{code}");
    assert!(!step.contains("recycle"), "{code}");
}

#[test]
fn a_small_loop_body_runs_in_the_loop_s_one_dispatch() {
    // Every value of the body is small: the loop is compiled once per SIMD
    // level as a whole, and the body's loops are plain.
    let code = body(
        "fn f(w: &Array<f32, 8, 8>, xs: &Array<f32, 10, 8>, h: &Array<f32, 8>) -> Array<f32, 8> { lax::scan(|h: Array<f32, 8>, x: Array<f32, 8>| (jnp::tanh(w.matmul(&h) + x), 0.0), h.clone(), xs.clone()).0 }",
    );
    let whole = code.find("dispatch3").expect("the loop's dispatch");
    let step = first_step_loop(&code);
    assert!(whole < code.find("for __step").unwrap(), "{code}");
    assert!(!step.contains("dispatch3"), "{code}");
    // A while loop too, its condition included.
    let code = body(
        "fn f(x: &Array<f32, 16>) -> Array<f32, 16> { lax::while_loop(|c: (Array<DefaultInt>, Array<f32, 16>)| c.0.lt(5), |(i, y)| (i + 1, jnp::tanh(y) * 1.5), (0, x.clone())).1 }",
    );
    let body_at = code.find("loop {").expect("a loop");
    assert!(code[..body_at].contains("dispatch3"), "{code}");
    assert!(!code[body_at..].contains("dispatch3"), "{code}");
}

#[test]
fn a_large_loop_body_keeps_its_loops_own_dispatch() {
    // A 4096-element carry: its loops may split over threads, each chunk
    // dispatched per level.
    let code = body(
        "fn f(xs: &Array<f32, 10, 4096>) -> Array<f32, 4096> { lax::scan(|c: Array<f32, 4096>, x: Array<f32, 4096>| (jnp::tanh(c * 0.5 + x), 0.0), Array::<f32, 4096>::zeros(), xs.clone()).0 }",
    );
    let step = first_step_loop(&code);
    assert!(
        step.contains("dispatch3") || step.contains("for_each_chunk3"),
        "{code}"
    );
}
