// A parameter this compiler does not model is named, with its position,
// rather than ignored.
use jax::prelude::*;

#[jax::jit(import = "import_bad_param.jaxpr")]
fn f(x: &Array<f32, 2, 3>) -> Array<f32>;

fn main() {}
