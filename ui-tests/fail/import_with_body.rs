// An imported function's program is the file's: a body is an error.
use jax::prelude::*;

#[jax::jit(import = "import_unknown_primitive.jaxpr")]
fn f(x: &Array<f32, 3>) -> Array<f32, 3> {
    x.clone()
}

fn main() {}
