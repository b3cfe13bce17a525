// Jaxpr text beyond what the compiler takes: a name bound twice, a
// negative size, programs nested more than 64 deep. Each error gives the
// file's line and column.
use jax::prelude::*;

#[jax::jit(import = "import_duplicate_binder.jaxpr")]
fn twice(x: &Array<f32, 3>) -> Array<f32, 3>;

#[jax::jit(import = "import_negative_dim.jaxpr")]
fn negative(x: &Array<f32, 3>) -> Array<f32, 3>;

#[jax::jit(import = "import_too_deep.jaxpr")]
fn deep(x: &Array<f32, 3>) -> Array<f32, 3>;

fn main() {}
