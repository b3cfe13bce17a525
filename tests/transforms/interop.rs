//! Conversions between `jax::Array` and `ndarray`.

use jax::interop::ndarray::{self, s, ArrayD, Axis};
use jax::{bf16, Array, ShapeError};
use proptest::prelude::*;

#[test]
fn round_trip_keeps_shape_and_order() {
    let x: Array<f32, 2, 3, 4> = Array::arange();
    let m = x.to_ndarray();
    assert_eq!(m.shape(), &[2, 3, 4]);
    assert_eq!(m[[1, 2, 3]], 23.0);
    assert_eq!(m[[0, 1, 2]], 6.0);
    let back = Array::<f32, 2, 3, 4>::try_from(&m).unwrap();
    assert_eq!(back, x);
    assert_eq!(Array::<f32, 2, 3, 4>::try_from(m).unwrap(), x);
}

#[test]
fn every_element_type_round_trips() {
    let b = Array::from([true, false, true]);
    assert_eq!(Array::<bool, 3>::try_from(b.to_ndarray()).unwrap(), b);
    let h = Array::from([bf16::from_f32(1.5), bf16::from_f32(-2.0)]);
    assert_eq!(Array::<bf16, 2>::try_from(h.to_ndarray()).unwrap(), h);
    let u = Array::from([[u64::MAX, 0], [1, 2]]);
    assert_eq!(Array::<u64, 2, 2>::try_from(&u.to_ndarray()).unwrap(), u);
}

#[test]
fn into_arrayd_moves_the_data() {
    let x = Array::from([[1i32, 2], [3, 4]]);
    let shared = x.clone();
    let m: ArrayD<i32> = x.into();
    assert_eq!(m, ndarray::arr2(&[[1, 2], [3, 4]]).into_dyn());
    assert_eq!(shared.to_vec(), [1, 2, 3, 4]);
}

#[test]
fn view_shares_the_buffer() {
    let x: Array<f64, 3, 2> = Array::arange();
    let v = x.as_ndarray();
    assert!(std::ptr::eq(v.as_ptr(), x.as_slice().as_ptr()));
    assert_eq!(v.sum_axis(Axis(0)), ndarray::arr1(&[6.0, 9.0]).into_dyn());
}

#[test]
fn transposed_view_converts_in_logical_order() {
    let m = ndarray::arr2(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let t = m.t();
    assert!(!t.is_standard_layout());
    let x = Array::<f32, 3, 2>::try_from(t).unwrap();
    assert_eq!(x.to_vec(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let x3 = Array::<i32, 4, 3, 2>::try_from(
        &ndarray::Array::from_shape_fn((2, 3, 4), |(i, j, k)| (100 * i + 10 * j + k) as i32)
            .permuted_axes([2, 1, 0]),
    )
    .unwrap();
    assert_eq!(&x3.to_vec()[..4], [0, 100, 10, 110]);
}

#[test]
fn stepped_and_reversed_slices_convert() {
    let m = ndarray::Array::from_shape_fn((5, 6), |(i, j)| (10 * i + j) as i64);
    let x = Array::<i64, 3, 2>::try_from(m.slice(s![..;2, 1..;3])).unwrap();
    assert_eq!(x.to_vec(), [1, 4, 21, 24, 41, 44]);
    let r = Array::<i64, 2, 3>::try_from(m.slice(s![..2;-1, ..3;-1])).unwrap();
    assert_eq!(r.to_vec(), [12, 11, 10, 2, 1, 0]);
}

#[test]
fn wrong_shape_is_an_error() {
    let m = ndarray::Array::<f32, _>::zeros((2, 3));
    assert_eq!(
        Array::<f32, 3, 2>::try_from(&m),
        Err(ShapeError::Shape {
            expected: vec![3, 2],
            found: vec![2, 3]
        })
    );
    assert!(Array::<f32, 2, 3, 1>::try_from(&m).is_err());
    assert!(Array::<f32>::try_from(m.view()).is_err());
    let err = Array::<f32, 4>::try_from(ndarray::arr1(&[1.0f32])).unwrap_err();
    assert_eq!(err.to_string(), "expected shape [4], got [1]");
}

#[test]
fn empty_arrays_convert() {
    let m = ndarray::Array::<u8, _>::zeros((0, 3));
    let x = Array::<u8, 0, 3>::try_from(&m).unwrap();
    assert_eq!(x.to_ndarray().shape(), &[0, 3]);
}

proptest! {
    #[test]
    fn ndarray_round_trip(data in proptest::collection::vec(any::<i32>(), 24)) {
        let x = Array::<i32, 2, 3, 4>::from_vec(data.clone()).unwrap();
        let m = x.to_ndarray();
        prop_assert_eq!(m.iter().copied().collect::<Vec<_>>(), data);
        prop_assert_eq!(Array::<i32, 2, 3, 4>::try_from(&m).unwrap(), x.clone());
        let owned: ArrayD<i32> = x.clone().into();
        prop_assert_eq!(Array::<i32, 2, 3, 4>::try_from(owned).unwrap(), x);
    }

    #[test]
    fn permuted_views_match_indexing(data in proptest::collection::vec(-1e6f32..1e6, 24), perm in Just([0usize, 1, 2]).prop_shuffle()) {
        let m = ndarray::Array::from_shape_vec((2, 3, 4), data).unwrap();
        let view = m.view().permuted_axes(perm);
        let shape = view.shape().to_vec();
        // Whatever the permutation, the target type is the flat size checked by shape.
        let flat: Vec<f32> = match (shape[0], shape[1], shape[2]) {
            (2, 3, 4) => Array::<f32, 2, 3, 4>::try_from(&view).unwrap().to_vec(),
            (2, 4, 3) => Array::<f32, 2, 4, 3>::try_from(&view).unwrap().to_vec(),
            (3, 2, 4) => Array::<f32, 3, 2, 4>::try_from(&view).unwrap().to_vec(),
            (3, 4, 2) => Array::<f32, 3, 4, 2>::try_from(&view).unwrap().to_vec(),
            (4, 2, 3) => Array::<f32, 4, 2, 3>::try_from(&view).unwrap().to_vec(),
            (4, 3, 2) => Array::<f32, 4, 3, 2>::try_from(&view).unwrap().to_vec(),
            other => panic!("unexpected shape {other:?}"),
        };
        let mut k = 0;
        for i in 0..shape[0] {
            for j in 0..shape[1] {
                for l in 0..shape[2] {
                    prop_assert_eq!(flat[k].to_bits(), view[[i, j, l]].to_bits());
                    k += 1;
                }
            }
        }
    }
}
