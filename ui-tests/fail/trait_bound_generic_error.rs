// Only `const N: usize` generics: the function is compiled per shape, not per type.
use jax::prelude::*;

#[jax::jit]
fn f<T: jax::Element>(x: Array<T, 3>) -> Array<T, 3> {
    x
}

fn main() {}
