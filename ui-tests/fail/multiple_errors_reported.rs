// One build reports every independent error; uses of a name whose
// definition failed (`b`, `c`) add no secondary errors.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>, n: Array<i32>) -> Array<f32, 3> {
    let a: f32 = x.iter().sum();
    let b = a * 2.0;
    println!("{:?}", x);
    let c = if n > 0 { x } else { b };
    let d = x + 1.0;
    d[0] = 1.0;
    d + c
}

fn main() {
    // Callers still type-check against the fallback signature.
    let _y: Array<f32, 3> = f(Array::zeros(), Array::from(1));
}
