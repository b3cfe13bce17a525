// JAX raises TypeError for `<` on complex arrays; here it does not compile.
use jax::prelude::*;

fn main() {
    let x = Array::<Complex<f32>, 2>::zeros();
    let _ = x.lt(&x);
}
