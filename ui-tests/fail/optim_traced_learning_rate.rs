use jax::optim;
use jax::prelude::*;

#[jax::jit]
fn step(
    p: Array<f32, 3>,
    s: optim::AdamState<Array<f32, 3>>,
    g: &Array<f32, 3>,
    lr: Array<f32>,
) -> (Array<f32, 3>, optim::AdamState<Array<f32, 3>>) {
    let opt = optim::adam(lr);
    let (u, s) = opt.update(g, s, &p);
    (optim::apply_updates(&p, &u), s)
}

fn main() {}
