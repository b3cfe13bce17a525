//! Checks the fixture reader itself against arrays built directly.

use crate::common;
use jax::Array;

#[test]
fn arange_matches_fixture_encoding() {
    // jnp.arange(254.0, 258.0).astype('uint8') in JAX.
    let x = Array::<f32, 4>::from([254.0, 255.0, 256.0, 257.0]);
    common::assert_matches(
        &x.astype::<u8>(),
        &common::seed_output("astype_uint8_saturates_jax"),
    );
}
