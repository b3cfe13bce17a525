// Shapes are types: passing a 4x3 array where a 4x4 is expected does not compile.
use jax::Array;

fn square(x: Array<f32, 4, 4>) -> Array<f32, 4, 4> {
    x
}

fn main() {
    let x: Array<f32, 4, 3> = Array::zeros();
    square(x);
}
