use jax::prelude::*;

#[jax::jit]
fn take_rows(x: Array<f32, 5, 3>, i: Array<i32, 4>) -> Array<f32, 4, 3> {
    x.at(i).get()
}

#[jax::jit]
fn add_rows(x: Array<f32, 5, 3>, i: Array<i32, 4>) -> Array<f32, 5, 3> {
    x.at(i).add(1.0)
}

#[jax::jit]
fn lookup_loss(emb: Array<f32, 5, 3>, i: Array<i32, 4>, w: Array<f32, 4, 3>) -> f32 {
    jnp::sum(emb.at(i).get() * w)
}

#[jax::jit]
fn grad_lookup(emb: Array<f32, 5, 3>, i: Array<i32, 4>, w: Array<f32, 4, 3>) -> Array<f32, 5, 3> {
    jax::grad(|e| jnp::sum(e.at(i).get() * w))(emb)
}

#[test]
fn smoke() {
    let x = Array::<f32, 5, 3>::from_data((0..15).map(|v| v as f32).collect());
    let i = Array::<i32, 4>::from([0, -1, 3, 3]);
    println!("{:?}", take_rows(x.clone(), i.clone()).to_vec());
    println!("{:?}", add_rows(x.clone(), i.clone()).to_vec());
    println!("{}", take_rows::jaxpr());
    let w = Array::<f32, 4, 3>::from_data((0..12).map(|v| v as f32 * 0.5).collect());
    println!("{}", grad_lookup::jaxpr());
    println!("{:?}", grad_lookup(x.clone(), i.clone(), w.clone()).to_vec());
}
