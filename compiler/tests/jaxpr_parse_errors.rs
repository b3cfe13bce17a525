//! Jaxpr text that `#[jax::jit(import = ..)]` must refuse, with the line
//! and column of the problem: names bound twice, sizes no array can have,
//! nesting deeper than the compiler takes.

/// The error reading `text`, as `line:col: message`.
fn error(text: &str) -> String {
    match jax_compiler::reprint_jaxpr(text) {
        Ok(t) => panic!("read back without an error:\n{text}\nas\n{t}"),
        Err(e) => e,
    }
}

/// The error starts with `at` (`line:col: `) and contains `what`.
fn assert_error(text: &str, at: &str, what: &str) {
    let e = error(text);
    assert!(
        e.starts_with(at) && e.contains(what),
        "{text}\ngave: {e}\nexpected at {at}: {what}"
    );
}

#[test]
fn a_name_bound_twice_is_an_error_at_the_second_binder() {
    let text = "{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n    b:f32[3] = cos a\n  in (b,) }";
    assert_error(
        text,
        "3:5: ",
        "`b` is already bound at 2:5 (as a result of an equation)",
    );
    // Nested programs have names of their own: `a` inside a `jit` body is
    // another variable than the caller's `a`, as JAX prints them.
    let text = "{ lambda ; a:f32[3]. let\n    b:f32[3] = jit[\n      name=g\n      jaxpr={ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }\n    ] a\n  in (b,) }";
    assert_eq!(jax_compiler::reprint_jaxpr(text).as_deref(), Ok(text));
}

#[test]
fn a_binder_shadowing_an_input_or_a_constant_is_an_error() {
    assert_error(
        "{ lambda ; a:f32[3]. let a:f32[3] = sin a in (a,) }",
        "1:26: ",
        "`a` is already bound at 1:12 (as an input)",
    );
    assert_error(
        "{ lambda a:f32[3]; b:f32[3]. let\n    c:f32[3] = add a b\n    a:f32[3] = sin c\n  in (a,) }",
        "3:5: ",
        "`a` is already bound at 1:10 (as a constant)",
    );
    assert_error(
        "{ lambda a:f32[3]; a:f32[3]. let  in (a,) }",
        "1:20: ",
        "`a` is already bound at 1:10 (as a constant)",
    );
    assert_error(
        "{ lambda ; a:f32[3] a:f32[3]. let  in (a,) }",
        "1:21: ",
        "`a` is already bound at 1:12 (as an input)",
    );
}

#[test]
fn two_results_of_one_equation_with_one_name_are_an_error() {
    assert_error(
        "{ lambda ; a:f32[3]. let b:f32[3] b:i32[3] = sort[dimension=0 is_stable=True num_keys=1] a a in (b,) }",
        "1:35: ",
        "`b` is already bound at 1:26 (a result of this equation)",
    );
}

#[test]
fn a_shared_program_named_twice_is_an_error() {
    let text = "let f = { lambda ; a:f32[3]. let  in (a,) } in\nlet f = { lambda ; a:f32[3]. let  in (a,) } in\n{ lambda ; a:f32[3]. let  in (a,) }";
    assert_error(
        text,
        "2:5: ",
        "`f` is already defined (its program starts at 1:9)",
    );
}

#[test]
fn a_negative_dimension_is_an_error_at_it() {
    assert_error(
        "{ lambda ; a:f32[-3]. let  in (a,) }",
        "1:18: ",
        "the dimension `-3` is negative",
    );
    assert_error(
        "{ lambda ; a:f32[3]. let\n    b:f32[3] = mul a 2.0:f32[4, -1]\n  in (b,) }",
        "2:33: ",
        "the dimension `-1` is negative",
    );
    assert_error(
        "{ lambda ; a:f32[N]. let b:f32[-N] = sin a in (b,) }",
        "1:32: ",
        "the dimension `-N` is negative",
    );
    assert_error(
        "{ lambda ; a:f32[3.0]. let  in (a,) }",
        "1:18: ",
        "expected a dimension, found `3.0`",
    );
}

#[test]
fn a_dimension_beyond_i64_is_an_error_at_it() {
    let max = "{ lambda ; a:u8[9223372036854775807]. let  in (a,) }";
    assert_eq!(jax_compiler::reprint_jaxpr(max).as_deref(), Ok(max));
    assert_error(
        "{ lambda ; a:f32[3]. let\n    b:f32[99999999999999999999999] = sin a\n  in (b,) }",
        "2:11: ",
        "the dimension `99999999999999999999999` is larger than this compiler supports: a size is at most 9223372036854775807",
    );
    assert_error(
        "{ lambda ; a:f32[2,9223372036854775808]. let  in (a,) }",
        "1:20: ",
        "the dimension `9223372036854775808` is larger",
    );
    assert_error(
        "{ lambda ; a:f32[N*99999999999999999999]. let  in (a,) }",
        "1:18: ",
        "the dimension `99999999999999999999` is larger",
    );
}

#[test]
fn more_elements_than_i64_counts_are_an_error_at_the_type() {
    // 2^64 elements: the product overflows `usize`.
    assert_error(
        "{ lambda ; a:f32[4294967296,4294967296]. let  in (a,) }",
        "1:14: ",
        "`f32[4294967296,4294967296]` has more elements than this compiler supports: an array holds at most 9223372036854775807",
    );
    // Beyond 2^63 - 1, within `u64`.
    assert_error(
        "{ lambda ; a:f32[2]. let\n    b:f32[3037000500,3037000500] = sin a\n  in (b,) }",
        "2:7: ",
        "has more elements than this compiler supports",
    );
    // No elements at all.
    let empty = "{ lambda ; a:f32[0,4294967296,4294967296]. let  in (a,) }";
    assert_eq!(jax_compiler::reprint_jaxpr(empty).as_deref(), Ok(empty));
}
