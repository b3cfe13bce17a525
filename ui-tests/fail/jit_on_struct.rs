// #[jax::jit] applies to functions and inline modules only.
#[jax::jit]
struct Params {
    w: f32,
}

fn main() {}
