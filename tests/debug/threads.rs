//! `jax_debug_nans` after a panic inside `jax::debug::checked`, and jitted
//! calls on other threads (rayon's workers) inside `checked`. The flags are
//! process-wide: the test holds `crate::flags()` while it sets and clears them.

use rayon::prelude::*;

#[jax::jit]
fn ratio(x: f32, y: f32) -> f32 {
    x / y
}

/// The text of a panic's payload.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

const NAN_IN_DIV: &str =
    "FloatingPointError: invalid value (nan) encountered in div at tests/debug/threads.rs:";

#[test]
fn the_flag_holds_after_a_panic_in_checked_and_on_worker_threads() {
    let _flags = crate::flags();
    jax::config::update("jax_debug_nans", true).unwrap();

    // A panic inside `checked` propagates and leaves this thread as it was:
    // the next NaN panics, as the flag says.
    let r = std::panic::catch_unwind(|| jax::debug::checked(|| -> f32 { panic!("boom") }));
    assert_eq!(message(&*r.unwrap_err()), "boom");
    let r = std::panic::catch_unwind(|| ratio(0.0, 0.0));
    let msg = message(&*r.expect_err("the flag is on: a NaN panics"));
    assert!(msg.starts_with(NAN_IN_DIV), "{msg}");

    // `checked` observes the calling thread only. A jitted call on a rayon
    // worker checks its output by the flag; its panic comes back through
    // rayon to the caller, out of `checked`, with the error's message.
    let r = std::panic::catch_unwind(|| {
        jax::debug::checked(|| {
            (0..4)
                .into_par_iter()
                .map(|i| ratio(i as f32 - 1.0, 0.0))
                .collect::<Vec<f32>>()
        })
    });
    let msg = message(&*r.expect_err("the worker's error is not lost"));
    assert!(msg.starts_with(NAN_IN_DIV), "{msg}");
    // This thread is not left in `checked`'s mode by that panic either.
    let r = std::panic::catch_unwind(|| ratio(0.0, 0.0));
    assert!(r.is_err());

    // With the flag off, a worker does not check: its NaN comes back as a
    // value, and only the calling thread's calls are checked.
    jax::config::update("jax_debug_nans", false).unwrap();
    let got = jax::debug::checked(|| {
        (0..4)
            .into_par_iter()
            .map(|i| ratio(i as f32 - 1.0, 0.0))
            .collect::<Vec<f32>>()
    })
    .unwrap();
    assert!(got[1].is_nan());
    assert_eq!(got[0], f32::NEG_INFINITY);
    let err = jax::debug::checked(|| ratio(0.0, 0.0)).unwrap_err();
    assert_eq!((err.value, err.primitive), ("nan", "div"));
    // `checked` inside the worker's closure observes the worker.
    let got: Vec<_> = (0..4)
        .into_par_iter()
        .map(|i| jax::debug::checked(|| ratio(i as f32 - 1.0, 0.0)).map_err(|e| e.value))
        .collect();
    assert_eq!(
        got,
        [
            Ok(f32::NEG_INFINITY),
            Err("nan"),
            Ok(f32::INFINITY),
            Ok(f32::INFINITY)
        ]
    );
}
