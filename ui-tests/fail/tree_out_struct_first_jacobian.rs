// The Jacobian companions differentiate an array or scalar first argument;
// with a struct first they are an error saying so (they used to be no
// function at all).
#[jax::jit]
mod m {
    use jax::prelude::*;

    #[derive(Clone)]
    pub struct P {
        pub w: Array<f32, 3>,
    }

    pub fn f(p: &P, x: &Array<f32, 3>) -> Array<f32> {
        jnp::sum(&p.w * x)
    }
}

fn main() {
    let p = m::P {
        w: jax::Array::<f32, 3>::from([1.0, 2.0, 3.0]),
    };
    let x = jax::Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = m::f::jacrev(&p, &x);
}
