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

/// `depth` `jit`s inside one another around a `sin`: `depth + 1` programs.
fn nested_jits(depth: usize) -> String {
    let mut body = "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }".to_string();
    for _ in 0..depth {
        body = format!(
            "{{ lambda ; a:f32[3]. let\n    b:f32[3] = jit[name=g jaxpr={body}] a\n  in (b,) }}"
        );
    }
    body
}

/// `depth` `cond`s, each in the second branch of the one around it.
fn nested_conds(depth: usize) -> String {
    let mut body = "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }".to_string();
    for _ in 0..depth {
        body = format!(
            "{{ lambda ; a:f32[3]. let\n    b:f32[3] = cond[\n      branches=(\n        {{ lambda ; c:f32[3]. let d:f32[3] = cos c in (d,) }}\n        {body}\n      )\n    ] 1:i32[] a\n  in (b,) }}"
        );
    }
    body
}

#[test]
fn programs_nested_deeper_than_64_are_an_error_where_the_65th_starts() {
    // 64 programs read (and print back, JAX's indentation aside).
    assert!(jax_compiler::reprint_jaxpr(&nested_jits(63)).is_ok());
    // The 65th program starts on line 65, after `jaxpr=`.
    let e = error(&nested_jits(64));
    assert!(
        e.starts_with("65:33: ")
            && e.contains(
                "programs nest more than 64 deep here: this compiler takes at most 64 levels"
            ),
        "{e}"
    );
    // 5000 deep: the same error, not a stack overflow.
    let e = error(&nested_jits(5000));
    assert!(
        e.starts_with("65:33: programs nest more than 64 deep"),
        "{e}"
    );
    let e = error(&nested_conds(5000));
    assert!(e.contains("programs nest more than 64 deep"), "{e}");
}

#[test]
fn brackets_nested_deeper_than_64_are_an_error_where_the_65th_opens() {
    let value = |depth: usize| {
        format!(
            "{{ lambda ; a:f32[3]. let b:f32[3] = sin[accuracy={}None{}] a in (b,) }}",
            "(".repeat(depth),
            ")".repeat(depth)
        )
    };
    // 63 brackets around a name are 64 values, read; the 65th bracket is
    // too many.
    let e = error(&value(63));
    assert!(!e.contains("nest"), "{e}");
    let at = "{ lambda ; a:f32[3]. let b:f32[3] = sin[accuracy=".len() + 65;
    for depth in [64, 100_000] {
        let e = error(&value(depth));
        assert!(
            e.starts_with(&format!("1:{at}: brackets nest more than 64 deep here")),
            "{e}"
        );
    }
}

/// A program nested in another is batched once per batching of its
/// caller, not once per question the caller's rule asks: 20 `cond`s
/// inside one another (whose companions batch them, for the jacobians)
/// expand in well under a second, where batching each branch again to
/// force its outputs' axes took 2^20 times one level's work.
#[test]
fn nested_programs_expand_in_time_linear_in_their_depth() {
    let path = std::env::temp_dir().join(format!("jax_nested_conds_{}.jaxpr", std::process::id()));
    std::fs::write(&path, nested_conds(20)).unwrap();
    let attr: proc_macro2::TokenStream = format!("import = {:?}", path.display().to_string())
        .parse()
        .unwrap();
    let item: proc_macro2::TokenStream =
        "fn f(x: &Array<f32, 3>) -> Array<f32, 3>;".parse().unwrap();
    let out = jax_compiler::expand_jit(attr, item).to_string();
    std::fs::remove_file(&path).ok();
    assert!(!out.contains("compile_error"), "{out}");
}
