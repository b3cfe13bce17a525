//! Jitted functions whose output dtype differs from their inputs': every
//! pair of input and output dtypes compiles, computes what the eager path
//! computes, and has exactly the derivatives JAX defines (float outputs
//! have tangents of their own dtype; other outputs have JAX's float0, so
//! their derivative companions are compile errors at their use, see the UI
//! test `grad_integer_output`).

use jax::prelude::*;

/// One jitted `astype` per (input, output) pair, checked against eager.
macro_rules! astype_pairs {
    ($($name:ident: $from:ty => $to:ty),* $(,)?) => {
        $(
            #[jax::jit]
            fn $name(x: &Array<$from, 4>) -> Array<$to, 4> {
                x.astype::<$to>()
            }
        )*

        #[test]
        fn every_dtype_pair_compiles_and_matches_eager() {
            $(
                let x = Array::<$from, 4>::from([0.0f32, 1.5, -2.0, 3.0].map(|v| <$from as jax::Element>::from_f64(v as f64)));
                assert_eq!($name(&x).to_vec(), x.astype::<$to>().to_vec(), stringify!($name));
            )*
        }
    };
}

astype_pairs! {
    f32_f32: f32 => f32, f32_f64: f32 => f64, f32_i32: f32 => i32, f32_bool: f32 => bool, f32_u8: f32 => u8,
    f64_f32: f64 => f32, f64_f64: f64 => f64, f64_i32: f64 => i32, f64_bool: f64 => bool,
    i32_f32: i32 => f32, i32_f64: i32 => f64, i32_i32: i32 => i32, i32_bool: i32 => bool, i32_i64: i32 => i64,
    bool_f32: bool => f32, bool_i32: bool => i32, bool_bool: bool => bool,
    u8_f32: u8 => f32, i64_f16: i64 => jax::f16, bf16_f32: jax::bf16 => f32,
}

#[jax::jit]
fn argmax_of(x: &Array<f32, 4>) -> Array<i32> {
    // int32 with or without x64 (whose default int is int64).
    jnp::argmax(x).astype::<i32>()
}

#[jax::jit]
fn widen(x: &Array<f32, 3>) -> Array<f64, 3> {
    (x * x).astype::<f64>()
}

#[jax::jit]
fn narrow_sum(x: &Array<f64, 3>) -> Array<f32> {
    (x * x).astype::<f32>().sum()
}

#[test]
fn integer_outputs_compile() {
    let x = Array::<f32, 4>::from([0.5, 3.0, -1.0, 2.0]);
    assert_eq!(argmax_of(&x).item(), 1);
}

#[test]
fn derivatives_keep_each_side_dtype() {
    let x = Array::<f32, 3>::from([1.0, 2.0, -3.0]);
    // d(x²)/dx = 2x, on the diagonal.
    let expected = [2.0, 4.0, -6.0];
    // Forward mode: the output's tangent dtype (f64).
    let jf: Array<f64, 3, 3> = widen::jacfwd(&x);
    // Reverse mode: the argument's cotangent dtype (f32).
    let jr: Array<f32, 3, 3> = widen::jacrev(&x);
    for (i, &d) in expected.iter().enumerate() {
        for j in 0..3 {
            let want: f64 = if i == j { d } else { 0.0 };
            assert_eq!(jf.to_vec()[i * 3 + j], want);
            assert_eq!(jr.to_vec()[i * 3 + j], want as f32);
        }
    }
    let (y, ty) = widen::jvp((&x,), (&Array::<f32, 3>::ones(),));
    assert_eq!(y.to_vec(), [1.0f64, 4.0, 9.0]);
    assert_eq!(ty.to_vec(), [2.0f64, 4.0, -6.0]);
    let (_, pullback) = widen::vjp(&x);
    let (ct,): (Array<f32, 3>,) = pullback(Array::<f64, 3>::ones());
    assert_eq!(ct.to_vec(), [2.0f32, 4.0, -6.0]);

    let x64 = Array::<f64, 3>::from([1.0, 2.0, -3.0]);
    let g: Array<f64, 3> = narrow_sum::grad(&x64);
    assert_eq!(g.to_vec(), [2.0, 4.0, -6.0]);
    let h: Array<f64, 3, 3> = narrow_sum::hessian(&x64);
    assert_eq!(h.to_vec(), [2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0]);
}
