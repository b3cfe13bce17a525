use jax::prelude::*;

// No xs and no `length`: JAX's error, with what to write instead.
#[jax::jit]
fn no_length(x: Array<f32>) -> Array<f32> {
    let (c, _) = lax::scan(|c: Array<f32>, (): ()| (&c * &x, 0.0), 1.0, ());
    c
}

// `reverse` must be known when the function compiles.
#[jax::jit]
fn traced_reverse(xs: &Array<f32, 3>, flag: bool) -> Array<f32> {
    let (c, _) = lax::scan_with(
        |c: Array<f32>, x: Array<f32>| (&c + &x, 0.0),
        0.0,
        xs.clone(),
        lax::ScanOptions { length: None, reverse: flag },
    );
    c
}

// A reverse-mode derivative through a while loop.
#[jax::jit]
fn halvings(x: Array<f32>) -> Array<f32> {
    lax::while_loop(|c: Array<f32>| c.gt(1.0), |c| c * 0.5, x)
}

fn main() {
    let _ = halvings::grad(Array::from(8.0f32));
}
