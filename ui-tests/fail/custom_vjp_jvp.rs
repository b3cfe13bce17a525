// A custom_vjp function has no forward mode, as in JAX.
use jax::prelude::*;

#[jax::jit]
mod m {
    use jax::prelude::*;

    #[custom_vjp(f_fwd, f_bwd)]
    pub fn f(x: Array<f32, 2>) -> Array<f32> {
        jnp::sum(x)
    }

    pub fn f_fwd(x: Array<f32, 2>) -> (Array<f32>, (Array<f32, 2>,)) {
        (jnp::sum(&x), (x,))
    }

    pub fn f_bwd(res: (Array<f32, 2>,), g: Array<f32>) -> (Array<f32, 2>,) {
        let (x,) = res;
        (x * g,)
    }
}

fn main() {
    let x = Array::<f32, 2>::from([1.0, 2.0]);
    let _ = m::f::jvp((x.clone(),), (x,));
}
