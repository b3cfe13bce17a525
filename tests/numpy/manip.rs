//! Shape operations (`jnp` and `lax`) against `tests/fixtures/index.json`
//! (real JAX), and their algebraic properties on random inputs.

use crate::common;

use jax::prelude::*;
use jax::ArrayType;
use proptest::prelude::*;

#[track_caller]
fn fx<A: ArrayType>(name: &str, got: A) {
    common::assert_matches(&got, &common::case("index", name)["output"]);
}

fn x() -> Array<f32, 10> {
    Array::arange()
}
fn y() -> Array<f32, 4, 5> {
    Array::arange()
}
fn z() -> Array<i32, 2, 3, 4> {
    Array::arange()
}
fn pair() -> (Array<i32, 2, 3>, Array<i32, 2, 3>) {
    (Array::arange(), Array::from([[6, 7, 8], [9, 10, 11]]))
}

#[test]
fn reshape_and_ravel() {
    fx::<Array<f32, 2, 3>>("reshape_2_3", Array::<f32, 6>::arange().reshape());
    fx::<Array<f32, 2, 3>>("reshape_2_3", jnp::reshape(Array::<f32, 6>::arange()));
    fx::<Array<f32, 20>>("reshape_ravel", y().ravel());
    fx::<Array<f32, 20>>("reshape_ravel", y().flatten());
    fx::<Array<f32, 20>>("reshape_ravel", lax::reshape(&y()));
}

#[test]
fn transposes() {
    fx::<Array<i32, 4, 3, 2>>("transpose_3d", jnp::transpose(&z()));
    fx::<Array<i32, 4, 3, 2>>("transpose_3d", z().transpose());
    fx::<Array<i32, 3, 4, 2>>("transpose_3d_axes", jnp::transpose_axes(&z(), &[1, 2, 0]));
    fx::<Array<i32, 3, 4, 2>>("transpose_3d_axes", jnp::transpose_axes(z(), &[-2, -1, 0]));
    fx::<Array<i32, 3, 4, 2>>("transpose_3d_axes", lax::transpose(&z(), &[1, 2, 0]));
    fx::<Array<i32, 3, 4, 2>>("moveaxis_3d", jnp::moveaxis(&z(), 0, -1));
    fx::<Array<i32, 3, 4, 2>>("moveaxis_3d", z().moveaxis(0, 2));
    fx::<Array<i32, 4, 3, 2>>("swapaxes_3d", z().swapaxes(0, 2));
    let m: Array<i32, 2, 3> = Array::arange();
    assert_eq!(
        m.t().to_vec(),
        jnp::transpose::<Array<i32, 3, 2>, _>(&m).to_vec()
    );
}

#[test]
#[should_panic(expected = "transpose: repeated axis")]
fn transpose_axes_must_be_a_permutation() {
    let _: Array<i32, 2, 2, 4> = jnp::transpose_axes(&z(), &[0, 0, 2]);
}

#[test]
fn concatenate_and_stack() {
    let b = Array::<i32, 2, 2>::from([[10, 11], [12, 13]]);
    fx::<Array<i32, 2, 5>>(
        "concatenate_axis1",
        jnp::concatenate((Array::<i32, 2, 3>::arange(), &b), 1),
    );
    fx::<Array<i32, 2, 5>>(
        "concatenate_axis1",
        jnp::concatenate((Array::<i32, 2, 3>::arange(), &b), -1),
    );
    let top: Array<f32, 1, 5> = y().slice(s![..1]);
    fx::<Array<f32, 5, 5>>("concatenate_axis0", jnp::concatenate((y(), &top), 0));
    fx::<Array<f32, 5, 5>>("concatenate_axis0", lax::concatenate((y(), top), 0));
    let (a, b) = pair();
    fx::<Array<i32, 2, 2, 3>>("stack_axis0", jnp::stack(&[&a, &b], 0));
    fx::<Array<i32, 2, 2, 3>>("stack_axis0", jnp::stack(vec![a.clone(), b.clone()], 0));
    fx::<Array<i32, 2, 2, 3>>("stack_axis1", jnp::stack([&a, &b], 1));
    fx::<Array<i32, 2, 3, 2>>("stack_axis_last", jnp::stack(&[a, b][..], -1));
}

#[test]
#[should_panic(expected = "all input array dimensions other than the specified axis must match")]
fn concatenate_checks_other_axes() {
    let _: Array<i32, 4, 3> = jnp::concatenate(
        (Array::<i32, 2, 3>::zeros(), Array::<i32, 2, 2>::zeros()),
        0,
    );
}

#[test]
fn flips() {
    fx("flip_axis0", y().flip(0));
    fx("flip_axis1", jnp::flip(&y(), -1));
    fx("flip_all", z().flip_all());
    fx("lax_rev", lax::rev(&y(), &[0, 1]));
}

#[test]
fn squeeze_and_expand_dims() {
    let a: Array<f32, 1, 3, 1> = Array::arange();
    fx::<Array<f32, 3>>("squeeze_all", a.squeeze());
    fx::<Array<f32, 3>>("squeeze_all", lax::squeeze(&a, &[0, 2]));
    fx::<Array<f32, 1, 3>>("squeeze_axis_last", jnp::squeeze_axis(&a, -1));
    fx::<Array<f32, 1, 4, 5>>("expand_dims_0", y().expand_dims(0));
    fx::<Array<f32, 4, 1, 5>>("expand_dims_1", jnp::expand_dims(y(), 1));
    fx::<Array<f32, 4, 5, 1>>("expand_dims_last", y().expand_dims(-1));
    fx::<Array<f32, 4, 5, 1>>("expand_dims_last", lax::expand_dims(&y(), &[2]));
}

#[test]
#[should_panic(expected = "cannot select an axis to squeeze out which has size not equal to one")]
fn squeeze_axis_needs_length_one() {
    let _: Array<f32, 1, 1> = jnp::squeeze_axis(Array::<f32, 1, 3, 1>::zeros(), 1);
}

#[test]
#[should_panic(expected = "expand_dims gives f32[4,1,5] but the result type is f32[1,4,5]")]
fn expand_dims_result_type_is_checked() {
    let _: Array<f32, 1, 4, 5> = y().expand_dims(1);
}

#[test]
fn broadcasts() {
    fx::<Array<f32, 2, 3>>("broadcast_to_row", Array::<f32, 3>::arange().broadcast_to());
    fx::<Array<f32, 3, 4>>(
        "broadcast_to_col",
        jnp::broadcast_to(Array::<f32, 3, 1>::arange()),
    );
    fx::<Array<f32, 2, 2>>(
        "broadcast_to_scalar_like",
        jnp::broadcast_to(Array::<f32, 1>::ones()),
    );
    fx::<Array<f32, 3, 2>>(
        "broadcast_in_dim_col",
        lax::broadcast_in_dim(Array::<f32, 3>::arange(), &[0]),
    );
    fx::<Array<f32, 2, 3, 2>>(
        "broadcast_in_dim_stretch",
        lax::broadcast_in_dim(Array::<f32, 1, 3>::arange(), &[0, 1]),
    );
}

#[test]
fn tile_and_repeat() {
    fx::<Array<i32, 2, 6>>("tile_2d", jnp::tile(Array::<i32, 3>::arange(), &[2, 2]));
    let a: Array<i32, 2, 3> = Array::arange();
    fx::<Array<i32, 4, 3>>("repeat_axis0", jnp::repeat(&a, 2, Some(0)));
    fx::<Array<i32, 12>>("repeat_flat", jnp::repeat(&a, 2, None));
}

#[test]
fn dynamic_slices_clamp() {
    fx::<Array<f32, 3>>("dynamic_slice_clamped_end", lax::dynamic_slice(&x(), &[8]));
    fx::<Array<f32, 2>>(
        "dynamic_slice_negative_start",
        lax::dynamic_slice(&x(), &[-3]),
    );
    fx::<Array<f32, 2>>(
        "dynamic_slice_very_negative",
        lax::dynamic_slice(&x(), &[-20i64]),
    );
    fx::<Array<f32, 2, 3>>("dynamic_slice_2d_clamped", lax::dynamic_slice(y(), &[3, 4]));
    fx(
        "dynamic_update_slice_clamped",
        lax::dynamic_update_slice(x(), Array::<f32, 3>::ones(), &[9]),
    );
    fx(
        "dynamic_update_slice_negative",
        lax::dynamic_update_slice(&x(), Array::<f32, 3>::ones(), &[-5]),
    );
    fx(
        "dynamic_update_slice_2d",
        lax::dynamic_update_slice(y(), Array::<f32, 2, 2>::full(-1.0), &[-1, 1]),
    );
}

#[test]
fn lax_slice_and_pad() {
    fx::<Array<f32, 2, 3>>(
        "lax_slice_strided",
        lax::slice(&y(), &[1, 0], &[4, 5], Some(&[2, 2])),
    );
    let a = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    fx::<Array<f32, 8>>("lax_pad_interior", lax::pad(&a, 0.0, &[(1, 2, 1)]));
    fx::<Array<f32, 4, 7>>(
        "lax_pad_negative_2d",
        lax::pad(&y(), -1.0, &[(-1, 1, 0), (0, -2, 1)]),
    );
}

#[test]
#[should_panic(expected = "slice: invalid bounds")]
fn lax_slice_bounds_must_be_in_range() {
    let _: Array<f32, 11> = lax::slice(&x(), &[0], &[11], None);
}

#[test]
fn shape_ops_keep_weak_type() {
    let w = Array::<f32, 2, 3>::arange().set_weak(true);
    assert!(w.reshape::<Array<f32, 6>>().weak_type());
    assert!(w.t().weak_type());
    assert!(w.flip(0).weak_type());
    assert!(jnp::concatenate::<Array<f32, 4, 3>, _>((&w, &w), 0).weak_type());
    let strong = Array::<f32, 2, 3>::arange();
    assert!(!jnp::concatenate::<Array<f32, 4, 3>, _>((&w, &strong), 0).weak_type());
}

fn finite() -> impl Strategy<Value = f32> {
    -1e6f32..1e6
}

proptest! {
    #[test]
    fn reshape_round_trip(v in prop::collection::vec(finite(), 24)) {
        let a = Array::<f32, 2, 3, 4>::from_vec(v).unwrap();
        let b: Array<f32, 6, 4> = a.reshape();
        let c: Array<f32, 24> = b.ravel();
        let d: Array<f32, 2, 3, 4> = c.reshape();
        prop_assert!(d == a);
    }

    #[test]
    fn transpose_twice_is_identity(v in prop::collection::vec(finite(), 24), k in 0usize..6) {
        let a = Array::<f32, 2, 3, 4>::from_vec(v).unwrap();
        let t: Array<f32, 4, 3, 2> = a.transpose();
        let back: Array<f32, 2, 3, 4> = t.transpose();
        prop_assert!(back == a);
        // A permutation and its inverse.
        let perms: [[isize; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
        let p = perms[k];
        let mut inv = [0isize; 3];
        for (i, &q) in p.iter().enumerate() {
            inv[q as usize] = i as isize;
        }
        let shape_p: Vec<usize> = p.iter().map(|&q| [2, 3, 4][q as usize]).collect();
        // Route through a fixed 3-D type of the right shape for each permutation.
        macro_rules! round_trip {
            ($($d0:literal $d1:literal $d2:literal),*) => {$(
                if shape_p == [$d0, $d1, $d2] {
                    let t: Array<f32, $d0, $d1, $d2> = jnp::transpose_axes(&a, &p);
                    let back: Array<f32, 2, 3, 4> = jnp::transpose_axes(&t, &inv);
                    prop_assert!(back == a);
                }
            )*};
        }
        round_trip!(2 3 4, 2 4 3, 3 2 4, 3 4 2, 4 2 3, 4 3 2);
    }

    #[test]
    fn set_what_get_gives_is_identity(v in prop::collection::vec(finite(), 15), i in -8i32..8, j in -7i64..7) {
        let a = Array::<f32, 3, 5>::from_vec(v).unwrap();
        let row: Array<f32, 5> = a.clone().at(i).get();
        prop_assert!(a.clone().at(i).set(&row) == a);
        let e: Array<f32> = a.clone().at((i, j)).get();
        prop_assert!(a.clone().at((i, j)).set(e) == a);
        let col: Array<f32, 3> = a.clone().at((.., j)).get();
        prop_assert!(a.clone().at(s![.., j]).set(col) == a);
    }

    #[test]
    fn flip_twice_is_identity(v in prop::collection::vec(finite(), 24), axis in -3isize..3) {
        let a = Array::<f32, 2, 3, 4>::from_vec(v).unwrap();
        prop_assert!(a.flip(axis).flip(axis) == a);
        prop_assert!(a.flip_all().flip_all() == a);
        prop_assert!(a.flip(0).flip(1).flip(2) == a.flip_all());
    }

    #[test]
    fn concatenate_then_slice_gives_the_parts(
        va in prop::collection::vec(finite(), 6),
        vb in prop::collection::vec(finite(), 8),
    ) {
        let a = Array::<f32, 2, 3>::from_vec(va).unwrap();
        let b = Array::<f32, 2, 4>::from_vec(vb).unwrap();
        let c: Array<f32, 2, 7> = jnp::concatenate((&a, &b), 1);
        prop_assert!(c.slice::<Array<f32, 2, 3>>(s![.., ..3]) == a);
        prop_assert!(c.slice::<Array<f32, 2, 4>>(s![.., 3..]) == b);
        let a2: Array<f32, 3, 2> = a.t();
        let b2: Array<f32, 4, 2> = b.t();
        let r: Array<f32, 7, 2> = jnp::concatenate((&a2, &b2), 0);
        prop_assert!(lax::dynamic_slice::<Array<f32, 3, 2>, _, _>(&r, &[0, 0]) == a2);
        prop_assert!(lax::dynamic_slice::<Array<f32, 4, 2>, _, _>(&r, &[3, 0]) == b2);
    }

    #[test]
    fn dynamic_update_slice_then_dynamic_slice(v in prop::collection::vec(finite(), 4), start in -12i32..12) {
        let u = Array::<f32, 4>::from_vec(v).unwrap();
        let x: Array<f32, 10> = Array::zeros();
        let y = lax::dynamic_update_slice(&x, &u, &[start]);
        let back: Array<f32, 4> = lax::dynamic_slice(&y, &[start]);
        prop_assert!(back == u);
    }
}
