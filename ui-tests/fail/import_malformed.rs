// Malformed jaxpr text: the line and column of the first problem.
use jax::prelude::*;

#[jax::jit(import = "import_malformed.jaxpr")]
fn f(x: &Array<f32, 3>) -> Array<f32, 3>;

#[jax::jit(import = "import_undefined_var.jaxpr")]
fn g(x: &Array<f32, 3>) -> Array<f32, 3>;

fn main() {}
