//! A fused loop writes over a dead operand's buffer when this function owns
//! it (as XLA reuses buffers), and never over a parameter or a buffer that
//! is read again.

mod common;

use common::{buffers, expanded};

/// The emitted function itself, without its companion module.
fn body(src: &str) -> String {
    let code = expanded(src);
    match code.find("mod f") {
        Some(m) => code[..m].to_string(),
        None => code,
    }
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
    let step = &code[code.find("for __step").expect("a loop")..];
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
