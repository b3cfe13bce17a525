// A struct defined outside a jit mod without `#[derive(jax::Pytree)]`.
use jax::prelude::*;

#[derive(Clone)]
pub struct Params {
    pub w: Array<f32, 3>,
}

#[jax::jit]
fn f(p: &Params) -> Array<f32> {
    jnp::sum(&p.w)
}

fn main() {}
