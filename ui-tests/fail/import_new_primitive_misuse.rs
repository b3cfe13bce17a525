// The primitives imported programs bring (`bitcast_convert_type`, `split`)
// check their operands as JAX does: a bitcast that changes the element
// width is not supported, and is named with its line and column.
use jax::prelude::*;

#[jax::jit(import = "import_new_primitive_misuse.jaxpr")]
fn f(x: &Array<f32, 3>, y: &Array<f32, 6>) -> (Array<u16, 3, 2>, Array<f32, 2>, Array<f32, 3>);

#[jax::jit(import = "import_split_sizes.jaxpr")]
fn g(y: &Array<f32, 6>) -> (Array<f32, 2>, Array<f32, 3>);

fn main() {}
