// The Jacobian of a struct output is, in JAX, the struct with each field's
// Jacobian in it, which the struct's field types cannot hold.
#[jax::jit]
mod m {
    use jax::prelude::*;

    #[derive(Clone)]
    pub struct Stats {
        pub a: Array<f32, 3>,
        pub b: Array<f32>,
    }

    pub fn stats(x: &Array<f32, 3>) -> Stats {
        Stats {
            a: jnp::cos(x),
            b: jnp::sum(x),
        }
    }
}

fn main() {
    let x = jax::Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = m::stats::jacfwd(&x);
    let _ = m::stats::jacrev(&x);
}
