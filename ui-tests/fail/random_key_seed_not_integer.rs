// A key's seed is an integer (in JAX's examples, the step number:
// `random::PRNGKey(t)`), not a float.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 3>) -> Array<f32, 3> {
    x + jax::random::normal::<Array<f32, 3>>(jax::random::key(x.sum()))
}

fn main() {}
