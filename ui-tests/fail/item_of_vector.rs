// `item()` needs exactly one element; on a vector it is a build error.
use jax::Array;

fn main() {
    let x: Array<f32, 3> = Array::ones();
    let _ = x.item();
}
