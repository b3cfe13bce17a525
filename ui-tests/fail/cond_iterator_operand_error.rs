// Seed: an iterator as an operand of lax::cond is not a valid JAX type; iterators are rejected where they are made.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<i32>) -> Array<i32> {
    let iter_operand = (0..10).into_iter();
    lax::cond(true, |mut it| it.next() + 1, |mut it| it.next() - 1, iter_operand) + x
}

fn main() {}
