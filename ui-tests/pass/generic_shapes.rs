// A function generic over a dimension is compiled once per shape it is used with.
use jax::Array;

fn first_dim<const N: usize>(x: &Array<f32, N, 3>) -> usize {
    x.shape()[0]
}

fn main() {
    assert_eq!(first_dim(&Array::<f32, 4, 3>::zeros()), 4);
    assert_eq!(first_dim(&Array::<f32, 7, 3>::zeros()), 7);
}
