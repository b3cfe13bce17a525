//! `jax_debug_nans` and `jax_debug_infs`: a jitted function's NaN is
//! traced back to the operation that made it, with its place in this file.

use crate::common;

use jax::prelude::*;

/// The seed's example: `b` divides zero by zero when x = y = 0.
#[jax::jit]
fn f(x: &Array<f32, 2>, y: &Array<f32, 2>) -> Array<f32, 2> {
    let a = x * y;
    let b = (x + y) / (x - y);
    let c = &a + 2.0;
    a + b * c
}

#[jax::jit]
fn ratio(x: f32, y: f32) -> f32 {
    x / y
}

#[jax::jit]
fn doubled(x: &Array<f32, 3>) -> Array<f32, 3> {
    x * 2.0
}

/// `file:line` of the first line of this file containing `needle`.
fn line_of(needle: &str) -> String {
    let src = include_str!("nans.rs");
    let line = src
        .lines()
        .position(|l| l.contains(needle))
        .expect("in this file")
        + 1;
    format!("tests/debug/nans.rs:{line}:")
}

#[test]
fn the_division_that_made_the_nan_is_reported() {
    let _flags = crate::flags();
    let c = common::case("seed_examples", "debug_nans_jit_function");
    let x = Array::<f32, 2>::from([2.0, 0.0]);
    let y = Array::<f32, 2>::from([3.0, 0.0]);
    let err = jax::debug::checked(|| f(&x, &y)).unwrap_err();
    // JAX's message, then where.
    assert!(
        err.to_string()
            .contains(c["error"]["message"].as_str().unwrap()),
        "{err}"
    );
    assert_eq!((err.value, err.primitive), ("nan", "div"));
    assert!(
        err.location
            .starts_with(&line_of("let b = (x + y) / (x - y);")),
        "{}",
        err.location
    );
    // Without a NaN, the result.
    let ok = jax::debug::checked(|| f(&x, &Array::from([3.0, 1.0]))).unwrap();
    assert_eq!(ok.to_vec()[1], -2.0);
}

#[test]
fn infinities_are_not_nans() {
    let _flags = crate::flags();
    let c = common::case("seed_examples", "debug_nans_inf_not_flagged");
    let got = jax::debug::checked(|| ratio(1.0, 0.0)).unwrap();
    assert_eq!(got.to_string(), c["output"]["data"][0].as_str().unwrap());
    let c = common::case("seed_examples", "debug_nans_divide_zero_by_zero");
    let err = jax::debug::checked(|| ratio(0.0, 0.0)).unwrap_err();
    assert!(err
        .to_string()
        .contains(c["error"]["message"].as_str().unwrap()));
    assert!(
        err.location.starts_with(&line_of("    x / y")),
        "{}",
        err.location
    );
}

#[test]
fn a_nan_from_an_argument_has_no_operation() {
    let _flags = crate::flags();
    let x = Array::<f32, 3>::from([1.0, f32::NAN, 2.0]);
    let err = jax::debug::checked(|| doubled(&x)).unwrap_err();
    assert_eq!(err.primitive, "an argument");
    assert!(err.location.contains("doubled"), "{}", err.location);
}

/// The flags are process-wide, so one test sets and clears them.
#[test]
fn flags_switch_the_checks() {
    let _flags = crate::flags();
    let (x, y) = (
        Array::<f32, 2>::from([2.0, 0.0]),
        Array::<f32, 2>::from([3.0, 0.0]),
    );
    // Off: the NaN comes back.
    assert!(f(&x, &y).to_vec()[1].is_nan());
    jax::config::update("jax_debug_nans", true).unwrap();
    // The panic is at the call of `f` (here), not inside its expansion.
    let at = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = at.clone();
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        *seen.lock().unwrap() = info.location().map(|l| (l.file().to_string(), l.line()));
    }));
    let call_line = line!() + 1;
    let panic = std::panic::catch_unwind(|| f(&x, &y)).unwrap_err();
    std::panic::set_hook(previous_hook);
    assert_eq!(
        at.lock().unwrap().clone(),
        Some(("tests/debug/nans.rs".to_string(), call_line))
    );
    let msg = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.starts_with(
            "FloatingPointError: invalid value (nan) encountered in div at tests/debug/nans.rs:"
        ),
        "{msg}"
    );
    // Infinities need jax_debug_infs.
    assert_eq!(ratio(1.0, 0.0), f32::INFINITY);
    jax::config::update("jax_debug_infs", true).unwrap();
    let err = jax::debug::checked(|| ratio(1.0, 0.0)).unwrap_err();
    assert_eq!((err.value, err.primitive), ("inf", "div"));
    jax::config::update("jax_debug_infs", false).unwrap();
    jax::config::update("jax_debug_nans", false).unwrap();
    assert!(!jax::config::read("jax_debug_nans").unwrap());
    assert!(f(&x, &y).to_vec()[1].is_nan());
    // The read-only and unknown flags.
    assert_eq!(
        jax::config::read("jax_enable_x64").unwrap(),
        cfg!(feature = "x64")
    );
    assert!(jax::config::update("jax_enable_x64", !cfg!(feature = "x64")).is_err());
    let err = jax::config::update("jax_debug_nan", true).unwrap_err();
    assert!(
        err.to_string().contains("jax_debug_nans, jax_debug_infs"),
        "{err}"
    );
}

#[jax::jit]
fn cumulative(xs: &Array<f32, 3>) -> Array<f32> {
    let (total, _) = lax::scan(
        |c: Array<f32>, x: Array<f32>| {
            let next = &c + &x;
            jax::debug::print!("step: {} + {} = {}", c, x, next);
            (next, 0.0)
        },
        0.0,
        xs.clone(),
    );
    jax::debug::print!("total {t}", t = total);
    total * 2.0
}

#[test]
fn debug_print_runs_each_step_in_order() {
    let _flags = crate::flags();
    let xs = Array::<f32, 3>::from([1.0, 2.0, 4.0]);
    let (y, printed) = jax::debug::capture_prints(|| cumulative(&xs));
    assert_eq!(y.item(), 14.0);
    assert_eq!(
        printed,
        "step: 0.0 + 1.0 = 1.0\nstep: 1.0 + 2.0 = 3.0\nstep: 3.0 + 4.0 = 7.0\ntotal 7.0\n"
    );
    // The jaxpr shows the effect, as JAX's `debug_callback`.
    let text = cumulative::jaxpr().to_string();
    assert!(text.contains("debug_callback["), "{text}");
    // Derivatives print in their forward pass, once per step.
    let (g, printed) = jax::debug::capture_prints(|| cumulative::grad(&xs));
    assert_eq!(g.to_vec(), [2.0, 2.0, 2.0]);
    assert_eq!(printed.lines().count(), 4, "{printed}");
    // Eagerly, the same macro prints the arrays.
    let ((), printed) = jax::debug::capture_prints(|| jax::debug::print!("xs = {}", xs));
    assert_eq!(printed, "xs = [1. 2. 4.]\n");
}

/// `jax_enable_x64` is the `x64` feature: the default types of literals
/// follow it, as JAX's defaults follow the flag.
#[jax::jit]
fn literals() -> (Array<DefaultInt>, Array<DefaultFloat>, Array<bool>) {
    (jnp::array(1), jnp::array(1.0), jnp::array(true))
}

#[test]
fn default_dtypes_follow_x64() {
    let _flags = crate::flags();
    let name = if cfg!(feature = "x64") {
        "default_dtypes_with_x64"
    } else {
        "default_dtypes_without_x64"
    };
    let want = &common::seed_output(name)["items"];
    let s = |k: usize| want[k]["value"].as_str().unwrap().to_string();
    let (i, f, b) = literals();
    assert_eq!(i.dtype().name(), s(0));
    assert_eq!(f.dtype().name(), s(1));
    assert_eq!(b.dtype().name(), s(7));
    assert_eq!(
        jax::config::read("jax_enable_x64").unwrap(),
        cfg!(feature = "x64")
    );
}

/// A panic inside `checked` propagates, and the enclosing `checked` is back
/// in place: the inner call's error stays with it.
#[test]
fn a_panic_inside_checked_restores_the_outer_state() {
    let _flags = crate::flags();
    let outer = jax::debug::checked(|| {
        let inner = std::panic::catch_unwind(|| {
            jax::debug::checked(|| {
                let _ = ratio(0.0, 0.0);
                panic!("inside checked");
            })
        });
        let payload = inner.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"inside checked"));
        ratio(1.0, 2.0)
    });
    assert_eq!(outer, Ok(0.5));
}

/// A panic inside `capture_prints` propagates, and later prints go where
/// they went before it: here to the enclosing capture.
#[test]
fn a_panic_inside_capture_prints_restores_the_outer_state() {
    let _flags = crate::flags();
    let ((), printed) = jax::debug::capture_prints(|| {
        let inner = std::panic::catch_unwind(|| {
            jax::debug::capture_prints(|| {
                jax::debug::print!("inner");
                panic!("inside capture_prints");
            })
        });
        let payload = inner.unwrap_err();
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"inside capture_prints")
        );
        jax::debug::print!("after");
    });
    assert_eq!(printed, "after\n");
}
