// A custom_vjp function's rules are Python code the jaxpr text only names:
// its value imports, its gradient is a compile error saying why.
use jax::prelude::*;

#[jax::jit(import = "../../tests/fixtures/jaxpr_import/custom_vjp_forward.jaxpr")]
fn f(x: &Array<f32, 3>) -> Array<f32>;

fn main() {
    let x = Array::<f32, 3>::from_data(vec![0.0, 1.0, 2.0]);
    let _ = f(&x);
    let _ = f::grad(&x);
}
