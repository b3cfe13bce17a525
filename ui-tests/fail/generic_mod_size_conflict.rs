// Two arguments that give one const generic two sizes.
#[jax::jit]
mod model {
    use jax::prelude::*;

    fn add<const K: usize>(x: &Array<f32, K>, y: &Array<f32, K>) -> Array<f32, K> {
        x + y
    }

    pub fn f(x: &Array<f32, 4>, y: &Array<f32, 5>) -> Array<f32, 4> {
        add(x, y)
    }
}

fn main() {}
