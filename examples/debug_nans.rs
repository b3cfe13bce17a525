//! `jax_debug_nans`: the seed's example. Run with
//! `JAX_DEBUG_NANS=1 cargo run --release --example debug_nans`; without the
//! variable, the flag is switched on in code.

use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 2>, y: &Array<f32, 2>) -> Array<f32, 2> {
    let a = x * y;
    let b = (x + y) / (x - y);
    let c = &a + 2.0;
    a + b * c
}

fn main() {
    let x = Array::<f32, 2>::from([2.0, 0.0]);
    let y = Array::<f32, 2>::from([3.0, 0.0]);
    // Off (the default): the NaN comes back, as from JAX.
    if !jax::config::read("jax_debug_nans").unwrap() {
        println!("f(x, y) = {}", f(&x, &y));
    }
    // The non-panicking form checks whatever the flag says.
    match jax::debug::checked(|| f(&x, &y)) {
        Ok(v) => println!("no NaN: {v}"),
        Err(e) => println!("{e}"),
    }
    // On: the call panics, as JAX raises, naming the operation, where it is
    // in `f`, and (the panic's location) the line that called `f`.
    jax::config::update("jax_debug_nans", true).unwrap();
    let outcome = std::panic::catch_unwind(|| f(&x, &y));
    assert!(outcome.is_err(), "f(x, y) panics with jax_debug_nans on");
    println!("f(x, y) panicked, as JAX raises FloatingPointError");
}
