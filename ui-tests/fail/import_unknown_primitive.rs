// An imported jaxpr with a primitive this compiler has no rules for: the
// error names it, with its line and column in the file.
use jax::prelude::*;

#[jax::jit(import = "import_unknown_primitive.jaxpr")]
fn f(x: &Array<f32, 3>) -> Array<f32, 3>;

fn main() {}
