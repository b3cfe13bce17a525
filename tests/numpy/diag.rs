//! `jnp::tril`, `triu`, `trace`, `diag` and `diagonal` against JAX
//! (tests/fixtures/diag.json, made by tests/fixtures/gen/diag.py): values
//! exactly, eagerly and in `#[jax::jit]` (f32 and i32; offsets positive,
//! negative and out of range; 3-D with axes), and jvp and vjp where the
//! generator took them. An empty `diagonal` is checked eagerly only.

use crate::common;

use jax::prelude::*;

/// A case of `diag.json` (`common::fixture_case!`).
macro_rules! case {
    ($($case:tt)*) => {
        fixture_case!("diag", $($case)*);
    };
}

case!(
    grads,
    tril,
    |x: Array<f32, 3, 4>| -> Array<f32, 3, 4> { jnp::tril(&x, 0) },
    jnp::tril(&x, 0)
);
case!(
    grads,
    tril_k1_3d,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 2, 3, 4> { jnp::tril(&x, 1) },
    jnp::tril(&x, 1)
);
case!(
    values,
    tril_neg_i32,
    |x: Array<i32, 4, 3>| -> Array<i32, 4, 3> { jnp::tril(&x, -1) },
    jnp::tril(&x, -1)
);
case!(
    values,
    tril_out,
    |x: Array<f32, 3, 4>| -> Array<f32, 3, 4> { jnp::tril(&x, 5) },
    jnp::tril(&x, 5)
);
case!(
    grads,
    triu,
    |x: Array<f32, 3, 4>| -> Array<f32, 3, 4> { jnp::triu(&x, 0) },
    jnp::triu(&x, 0)
);
case!(
    values,
    triu_neg,
    |x: Array<f32, 3, 4>| -> Array<f32, 3, 4> { jnp::triu(&x, -1) },
    jnp::triu(&x, -1)
);
case!(
    values,
    triu_out_i32,
    |x: Array<i32, 3, 4>| -> Array<i32, 3, 4> { jnp::triu(&x, -7) },
    jnp::triu(&x, -7)
);
case!(
    grads,
    triu_k2_3d,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 2, 3, 4> { jnp::triu(&x, 2) },
    jnp::triu(&x, 2)
);
case!(
    grads,
    trace,
    |x: Array<f32, 3, 4>| -> Array<f32> { jnp::trace(&x, 0, 0, 1) },
    jnp::trace(&x, 0, 0, 1)
);
case!(
    values,
    trace_k1,
    |x: Array<f32, 3, 4>| -> Array<f32> { jnp::trace(&x, 1, 0, 1) },
    jnp::trace(&x, 1, 0, 1)
);
case!(
    grads,
    trace_3d,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 3> { jnp::trace(&x, -1, 0, 2) },
    jnp::trace(&x, -1, 0, 2)
);
case!(
    values,
    trace_out,
    |x: Array<f32, 3, 4>| -> Array<f32> { jnp::trace(&x, 5, 0, 1) },
    jnp::trace(&x, 5, 0, 1)
);
case!(
    grads,
    diag_vec,
    |v: Array<f32, 3>| -> Array<f32, 3, 3> { jnp::diag(&v, 0) },
    jnp::diag(&v, 0)
);
case!(
    values,
    diag_vec_k1_i32,
    |v: Array<i32, 2>| -> Array<i32, 3, 3> { jnp::diag(&v, 1) },
    jnp::diag(&v, 1)
);
case!(
    grads,
    diag_vec_neg,
    |v: Array<f32, 3>| -> Array<f32, 5, 5> { jnp::diag(&v, -2) },
    jnp::diag(&v, -2)
);

/// Eager only (an empty diagonal is a compile error in jit): the value.
macro_rules! eager {
    ($name:ident, |$x:ident: $t:ty| -> $r:ty { $eager:expr }) => {
        fn $name() {
            let c = common::case("diag", stringify!($name));
            let $x: $t = common::array_arg(&c["args"][0]);
            let got: $r = $eager;
            common::assert_matches(&got, &c["output"]);
        }
    };
}

case!(
    values,
    diag_mat,
    |x: Array<f32, 3, 4>| -> Array<f32, 3> { jnp::diag(&x, 1) },
    jnp::diag(&x, 1)
);
case!(
    values,
    diag_mat_neg_i32,
    |x: Array<i32, 3, 4>| -> Array<i32, 1> { jnp::diag(&x, -2) },
    jnp::diag(&x, -2)
);
case!(
    values,
    diagonal,
    |x: Array<f32, 3, 4>| -> Array<f32, 3> { jnp::diagonal(&x, 0, 0, 1) },
    jnp::diagonal(&x, 0, 0, 1)
);
case!(
    values,
    diagonal_3d,
    |x: Array<f32, 2, 3, 4>| -> Array<f32, 3, 1> { jnp::diagonal(&x, 1, 2, 0) },
    jnp::diagonal(&x, 1, 2, 0)
);
case!(
    values,
    diagonal_neg_i32,
    |x: Array<i32, 4, 3>| -> Array<i32, 3> { jnp::diagonal(&x, -1, 0, 1) },
    jnp::diagonal(&x, -1, 0, 1)
);
eager!(diagonal_out, |x: Array<f32, 3, 4>| -> Array<f32, 0> {
    jnp::diagonal(&x, -3, 0, 1)
});

#[test]
fn diag_against_jax() {
    tril::check();
    tril_k1_3d::check();
    tril_neg_i32::check();
    tril_out::check();
    triu::check();
    triu_neg::check();
    triu_out_i32::check();
    triu_k2_3d::check();
    trace::check();
    trace_k1::check();
    trace_3d::check();
    trace_out::check();
    diag_vec::check();
    diag_vec_k1_i32::check();
    diag_vec_neg::check();
    diag_mat::check();
    diag_mat_neg_i32::check();
    diagonal::check();
    diagonal_3d::check();
    diagonal_neg_i32::check();
    diagonal_out();
}

/// Every case of the fixture is checked above.
#[test]
fn every_fixture_case_is_written() {
    assert_eq!(common::cases("diag").len(), 21);
}
