// `#[derive(jax::Pytree)]` is for structs with named fields.
use jax::prelude::*;

#[derive(Clone, jax::Pytree)]
pub enum Params {
    A(Array<f32, 3>),
}

#[derive(Clone, jax::Pytree)]
pub struct Pair(Array<f32, 3>, Array<f32, 3>);

fn main() {}
