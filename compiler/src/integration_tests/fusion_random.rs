//! A sample is computed inside the loop of its consumer: `x + normal(k)`
//! allocates one buffer (the result), never one for the noise.

use super::common;

use common::{buffers, expanded};

#[test]
fn noise_fuses_into_its_consumer() {
    let code = expanded(
        "fn f(x: &Array<f32, 1000>, k: Key) -> Array<f32, 1000> { x + random::normal::<Array<f32, 1000>>(k) * 0.5 }",
    );
    assert!(code.contains("__rt :: random :: normal"), "{code}");
    assert_eq!(buffers(&code), 1, "{code}");
}

#[test]
fn noise_used_twice_is_stored_once() {
    let code = expanded(
        "fn f(k: Key) -> Array<f32, 1000> { let z: Array<f32, 1000> = random::normal(k); z * z }",
    );
    // The samples' buffer, written over by `z * z` at its last read.
    assert_eq!(buffers(&code), 1, "{code}");
}

#[test]
fn noise_summed_is_never_stored() {
    let code =
        expanded("fn f(k: Key) -> Array<f32> { random::uniform::<Array<f32, 4096>>(k).sum() }");
    assert_eq!(buffers(&code), 0, "{code}");
}
