// A const generic of a mod function that no argument's type names: the
// call must give it.
#[jax::jit]
mod model {
    use jax::prelude::*;

    fn ones<const B: usize>() -> Array<f32, B> {
        Array::<f32, B>::ones()
    }

    pub fn f(x: &Array<f32, 4>) -> Array<f32, 4> {
        x + ones()
    }
}

fn main() {}
