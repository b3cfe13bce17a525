use super::*;
use crate::prelude::*;
use jax_core::prims;

fn f32s(shape: &[usize], v: &[f32]) -> Value {
    Value::new(DynArray::from_vec(shape.to_vec(), v.to_vec()).unwrap())
}

fn bits(x: &Value) -> Vec<u32> {
    x.to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

fn array_bits<A: ArrayType<Elem = f32>>(a: &A) -> Vec<u32> {
    a.data().iter().map(|v| v.to_bits()).collect()
}

const X: [f32; 6] = [-2.5, -0.75, 0.0, 0.3, 1.7, 88.5];

/// Each elementwise kernel computes what the eager `lax` function of the
/// same name computes, bit for bit.
#[test]
fn kernels_are_the_eager_lax_functions() {
    let x = Array::<f32, 2, 3>::from_vec(X.to_vec()).unwrap();
    let y = Array::<f32, 2, 3>::from([[1.5, -3.0, 2.0], [0.25, -0.5, 7.0]]);
    let unary: [(Prim, Array<f32, 2, 3>); 7] = [
        (&prims::EXP, crate::lax::exp(&x)),
        (&prims::LOG, crate::lax::log(crate::lax::abs(&x))),
        (&prims::TANH, crate::lax::tanh(&x)),
        (&prims::SIN, crate::lax::sin(&x)),
        (&prims::NEG, crate::lax::neg(&x)),
        (&prims::FLOOR, crate::lax::floor(&x)),
        (&prims::LOGISTIC, crate::lax::logistic(&x)),
    ];
    for (p, want) in unary {
        let arg = if p.name == "log" {
            arg(crate::lax::abs(&x))
        } else {
            arg(&x)
        };
        let got = call(|l| l.unary(p, arg));
        assert_eq!(bits(&got), array_bits(&want), "{}", p.name);
    }
    let binary: [(Prim, Array<f32, 2, 3>); 5] = [
        (&prims::ADD, crate::lax::add(&x, &y)),
        (&prims::SUB, crate::lax::sub(&x, &y)),
        (&prims::MUL, crate::lax::mul(&x, &y)),
        (&prims::DIV, crate::lax::div(&x, &y)),
        (&prims::MAX, crate::lax::max(&x, &y)),
    ];
    for (p, want) in binary {
        let got = call(|l| l.binary(p, arg(&x), arg(&y)));
        assert_eq!(bits(&got), array_bits(&want), "{}", p.name);
    }
}

/// Structural kernels against values worked out by hand.
#[test]
fn structural_kernels_move_elements() {
    let x = f32s(&[2, 3], &[0., 1., 2., 3., 4., 5.]);
    let t = call(|l| l.transpose(x.clone(), vec![1, 0]));
    assert_eq!(
        (t.shape(), t.to_vec::<f32>().unwrap()),
        (&[3, 2][..], vec![0., 3., 1., 4., 2., 5.])
    );
    let b = call(|l| {
        let row = l.slice(x.clone(), vec![1, 0], vec![2, 3], None)?;
        l.broadcast_in_dim(row, vec![Dim::Lit(2), Dim::Lit(3)], vec![0, 1])
    });
    assert_eq!(b.to_vec::<f32>().unwrap(), [3., 4., 5., 3., 4., 5.]);
    let r = call(|l| l.rev(x.clone(), vec![1]));
    assert_eq!(r.to_vec::<f32>().unwrap(), [2., 1., 0., 5., 4., 3.]);
    let c = call(|l| l.concatenate(vec![x.clone(), x.clone()], 1));
    assert_eq!(c.shape(), &[2, 6]);
    assert_eq!(c.to_vec::<f32>().unwrap()[..6], [0., 1., 2., 0., 1., 2.]);
    let i = call(|l| l.iota(DType::I32, vec![Dim::Lit(2), Dim::Lit(3)], 1));
    assert_eq!(i.to_vec::<i32>().unwrap(), [0, 1, 2, 0, 1, 2]);
    let s = call(|l| l.reduce(&prims::REDUCE_SUM, x.clone(), vec![0]));
    assert_eq!(s.to_vec::<f32>().unwrap(), [3., 5., 7.]);
    let m = call(|l| l.reduce(&prims::REDUCE_MAX, x.clone(), vec![0, 1]));
    assert_eq!(m.to_vec::<f32>().unwrap(), [5.]);
}

/// A bind is checked by the primitive's own rule, with its message.
#[test]
fn binds_are_checked_by_the_primitives_rules() {
    let mut e = Eager::new();
    let x = f32s(&[2], &[1., 2.]);
    let y = f32s(&[3], &[1., 2., 3.]);
    let err = e.binary(&prims::ADD, x.clone(), y).unwrap_err();
    assert!(err.contains("add"), "{err}");
    let i = Value::new(DynArray::from_vec(vec![2], vec![1i32, 2]).unwrap());
    let err = e.binary(&prims::ADD, x, i).unwrap_err();
    assert_eq!(
        err,
        "lax.add requires arguments to have the same dtypes, got float32, int32. \
         (Tip: jnp.add is a similar function that does automatic type promotion on inputs)."
    );
}

/// A primitive without an eager kernel is a message naming it, never a value.
#[test]
fn a_primitive_without_a_kernel_is_named() {
    let x = f32s(&[2], &[1., 2.]);
    let start = Value::new(DynArray::from_vec(vec![], vec![1i32]).unwrap());
    let err = Eager::new()
        .dynamic_slice(x, vec![start], vec![1])
        .unwrap_err();
    assert!(err.contains("`dynamic_slice` has no eager kernel"), "{err}");
}

/// An eager bind is run as JAX runs an eager operation, a compiled program
/// of one operation: the rewrites XLA makes inside any program apply (a
/// division by a broadcast divisor is a multiplication by its reciprocal),
/// as the typed eager division makes them.
#[test]
fn binds_take_the_rewrites_of_a_compiled_program() {
    let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [0.1, 0.7, 1e30]]);
    let s = Array::<f32, 2, 1>::from([[3.0], [7.0]]);
    let got = call(|l| l.binary(&prims::DIV, arg(&x), arg(&s)));
    let want: Array<f32, 2, 3> = crate::jnp::divide(&x, &s);
    assert_eq!(bits(&got), array_bits(&want));
    // Not a true division: 0.1 / 7 differs from 0.1 * (1 / 7) in the last bit.
    let exact: Vec<u32> = [1.0f32, 2.0, 3.0, 0.1, 0.7, 1e30]
        .iter()
        .zip([3.0f32, 3.0, 3.0, 7.0, 7.0, 7.0])
        .map(|(a, b)| (a / b).to_bits())
        .collect();
    assert_ne!(bits(&got), exact);
}
