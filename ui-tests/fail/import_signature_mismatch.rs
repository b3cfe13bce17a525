// The Rust signature must have the jaxpr's types: both are shown.
use jax::prelude::*;

#[jax::jit(import = "import_ok.jaxpr")]
fn wrong_input(x: &Array<f32, 4>) -> (Array<f32, 3>, Array<f32>);

#[jax::jit(import = "import_ok.jaxpr")]
fn wrong_result(x: &Array<f32, 3>) -> Array<f32, 3>;

fn main() {
    // Callers still type-check against the written signatures.
    let _ = wrong_result(&Array::<f32, 3>::default());
}
