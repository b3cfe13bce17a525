// `stax::params_of!` builds the model a function of the mod returns: a
// name that is not such a function is an error at the name.
#[jax::jit]
mod model {
    use jax::example_libraries::stax::{self, Dense, Relu};
    use jax::prelude::*;

    pub fn net() -> stax::Layer {
        stax::serial([Dense(3), Relu])
    }

    pub type Params = stax::params_of!(nett, [-1, 2]);

    pub fn predict(p: Params, x: &Array<f32, 4, 2>) -> Array<f32, 4, 3> {
        net().apply(&p, x)
    }
}

fn main() {}
