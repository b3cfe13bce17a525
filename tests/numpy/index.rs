//! Indexing against real JAX: every out-of-bounds, negative-index, `.at[]`
//! and scatter case of the seed examples, and the generated
//! `tests/fixtures/index.json` (slices, gathers, scatters, fill defaults).

// Python's empty reversed slices and updates given by reference are what
// these tests check.
#![allow(
    clippy::reversed_empty_ranges,
    clippy::needless_borrows_for_generic_args
)]

use crate::common;

use jax::index::{Mode, NewAxis};
use jax::prelude::*;
use jax::ArrayType;

/// Compares with a seed example's output.
#[track_caller]
fn seed<A: ArrayType>(name: &str, got: A) {
    common::assert_matches(&got, &common::seed_output(name));
}

/// Compares with a case of `tests/fixtures/index.json`.
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
fn idx<const N: usize>(v: [i32; N]) -> Array<i32, N> {
    Array::from(v)
}

// ---- seed examples ---------------------------------------------------------

#[test]
fn seed_out_of_bounds_gathers() {
    seed::<Array<i32>>(
        "oob_gather_int_index",
        Array::<i32, 10>::arange().at(11).get(),
    );
    seed::<Array<i64>>(
        "oob_gather_int_index_x64",
        Array::<i64, 10>::arange().at(11).get(),
    );
    seed::<Array<f32>>("oob_at_get_default", x().at(11).get());
    seed::<Array<f32>>("oob_at_get_fill_nan", x().at(11).get_fill(f32::NAN));
    seed::<Array<f32>>(
        "oob_at_get_fill_default_fill_value",
        x().at(11).get_with(Mode::FillOrDrop),
    );
    seed::<Array<i32>>(
        "oob_at_get_fill_int_default_fill_value",
        Array::<i32, 10>::arange().at(11).get_with(Mode::FillOrDrop),
    );
    seed::<Array<f32>>("oob_at_get_clip", x().at(11).get_with(Mode::Clip));
    seed::<Array<f32, 8>>(
        "oob_gather_array_index",
        x().at(idx([0, 9, 10, 100, -1, -10, -11, -100])).get(),
    );
    seed::<Array<f32, 2>>("oob_slice_past_end", x().slice(s![8..20]));
}

#[test]
fn seed_out_of_bounds_scatters() {
    let a5 = || Array::<f32, 5>::arange();
    seed("oob_scatter_set_dropped", a5().at(7).set(9.0));
    seed("oob_scatter_add_partial", a5().at(idx([1, 7])).add(1.0));
    seed(
        "oob_scatter_set_mode_clip",
        a5().at(7).set_with(9.0, Mode::Clip),
    );
    seed(
        "oob_scatter_add_duplicates",
        Array::<f32, 4>::zeros().at(idx([0, 0, 2, 0])).add(1.0),
    );
    seed(
        "scatter_set_duplicate_indices",
        Array::<f32, 4>::zeros()
            .at(idx([1, 1]))
            .set(Array::from([5.0f32, 6.0])),
    );
}

#[test]
fn seed_negative_indices() {
    let a5 = || Array::<f32, 5>::arange();
    seed::<Array<f32>>("neg_index_get", a5().at(-1).get());
    seed("neg_index_set", a5().at(-1).set(9.0));
    seed::<Array<f32>>("neg_index_get_oob_minus6", a5().at(-6).get());
    seed::<Array<f32>>("neg_index_get_oob_minus6_fill", a5().at(-6).get_fill(-1.0));
    seed("neg_index_set_oob_minus6", a5().at(-6).set(9.0));
    seed(
        "neg_index_array_set",
        a5().at(idx([-1, -2])).set(Array::from([7.0f32, 8.0])),
    );
    let m: Array<f32, 3, 4> = Array::arange();
    seed::<Array<f32>>("neg_index_2d", m.at((-1, -2)).get());
}

#[test]
fn seed_at_updates() {
    seed(
        "at_add_strided_slice",
        Array::<f32, 5, 6>::ones().at(s![..;2, 3..]).add(7.0),
    );
    seed(
        "at_set_row",
        Array::<f32, 3, 3>::zeros().at((1, ..)).set(1.0),
    );
    let ones = Array::<f32, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0]); // jnp.arange(1., 6.)
    seed("at_mul", ones.at(idx([0, 2])).mul(10.0));
    seed("at_min", Array::<f32, 5>::arange().at(idx([3, 4])).min(2.5));
    seed("at_max", Array::<f32, 5>::arange().at(idx([0, 1])).max(0.5));
    seed(
        "at_set_int_array_float_value",
        Array::<i32, 5>::arange().at(1).set(2.7),
    );
}

#[test]
fn seed_update_leaves_original_unchanged() {
    let jax_array = Array::<f32, 3, 3>::zeros();
    let updated = (&jax_array).at((1, ..)).set(1.0);
    seed("at_set_row_original_unchanged", jax_array.clone());
    seed("at_set_row", updated);
    // Through a clone too: the shared buffer is copied, not written.
    let copy = jax_array.clone();
    let _ = copy.at(0).set(5.0);
    seed("at_set_row_original_unchanged", jax_array);
}

#[test]
fn update_writes_in_place_when_the_buffer_is_not_shared() {
    let a = Array::<f32, 3, 3>::zeros();
    let p = a.as_slice().as_ptr();
    let b = a.at((1, ..)).set(1.0);
    assert_eq!(b.as_slice().as_ptr(), p);
    let c = b.at(idx([0, 0])).add(2.0);
    assert_eq!(c.as_slice().as_ptr(), p);
    // Shared: copied, and the other holder is untouched.
    let keep = c.clone();
    let d = c.at(0).set(9.0);
    assert_ne!(d.as_slice().as_ptr(), p);
    assert_eq!(keep.as_slice().as_ptr(), p);
    assert_eq!(keep.to_vec()[0], 4.0);
}

// ---- generated fixture: slicing -------------------------------------------

#[test]
fn slices_1d() {
    fx::<Array<f32, 4>>("slice_1d_step2", x().slice(s![1..8;2]));
    fx::<Array<f32, 10>>("slice_1d_reverse", x().slice(s![..;-1]));
    fx::<Array<f32, 3>>("slice_1d_range_then_neg_step", x().slice(s![2..9;-3]));
    fx::<Array<f32, 3>>("slice_1d_neg_bounds", x().slice(s![-4..-1]));
    fx::<Array<f32, 10>>("slice_1d_oob_both_bounds", x().slice(s![-20..20]));
    fx::<Array<f32, 0>>("slice_1d_empty_reversed_bounds", x().slice(s![7..3]));
    fx::<Array<f32, 0>>("slice_1d_start_past_end", x().slice(s![12..]));
    fx::<Array<f32, 3>>("slice_1d_to_step", x().slice(s![..5;2]));
    fx::<Array<f32, 9>>("slice_1d_inclusive_neg", x().slice(s![..=-2]));
    fx::<Array<f32>>("slice_1d_int_clamped", x().slice(s![11]));
}

#[test]
fn slices_2d() {
    fx::<Array<f32, 2, 3>>("slice_2d_rows_step_cols", y().slice(s![1..3, ..;2]));
    fx::<Array<f32, 4>>("slice_2d_reverse_rows_col", y().slice(s![..;-1, 1]));
    fx::<Array<f32, 5>>("slice_2d_last_row", y().slice(s![-1, ..]));
    fx::<Array<f32, 4, 2>>("slice_2d_last_two_cols", y().slice(s![.., -2..]));
    fx::<Array<f32, 2, 3>>("slice_2d_oob_step_neg_step", y().slice(s![1..10;2, ..;-2]));
    fx::<Array<f32, 1, 5>>("slice_2d_newaxis_front", y().slice(s![NewAxis, 1]));
    fx::<Array<f32, 4, 1>>("slice_2d_newaxis_middle", y().slice(s![.., NewAxis, 2]));
    fx::<Array<f32, 5>>("slice_2d_int_row_clamped", y().slice(s![5]));
    fx::<Array<f32, 2, 2>>("slice_2d_range_neg_step_rows", y().slice(s![0..3;-2, 3..]));
    // The same through `at(..).get()`.
    fx::<Array<f32, 2, 2>>(
        "slice_2d_range_neg_step_rows",
        y().at(s![0..3;-2, 3..]).get(),
    );
}

#[test]
#[should_panic(expected = "slice gives f32[2,3] but the result type is f32[3,2]")]
fn slice_result_type_is_checked() {
    let _: Array<f32, 3, 2> = y().slice(s![1..3, ..;2]);
}

#[test]
#[should_panic(expected = "too many indices for array")]
fn too_many_indices() {
    let _: Array<f32> = x().slice(s![1, 2]);
}

// ---- generated fixture: gathers -------------------------------------------

#[test]
fn gathers_with_index_arrays() {
    let i22 = Array::<i32, 2, 2>::from([[0, 3], [-1, 12]]);
    fx::<Array<f32, 2, 2>>("gather_1d_2d_index_array", x().at(&i22).get());
    fx::<Array<f32, 3, 5>>("gather_2d_rows", y().at(idx([0, 3, -1])).get());
    fx::<Array<f32, 2>>("gather_2d_pairs", y().at((idx([0, 2]), idx([1, -1]))).get());
    fx::<Array<f32, 4, 2>>("gather_2d_cols", y().at((.., idx([4, 0]))).get());
    fx::<Array<f32, 2, 2>>(
        "gather_2d_rows_then_slice",
        y().at((idx([1, 3]), 1..3)).get(),
    );
    fx::<Array<f32, 2>>("gather_2d_int_then_array", y().at((1, idx([0, 2]))).get());
    let z: Array<i32, 2, 3, 4> = Array::arange();
    fx::<Array<i32, 2, 3>>(
        "gather_3d_separated_arrays",
        z.at((idx([0, 1]), .., idx([1, 2]))).get(),
    );
}

#[test]
fn gathers_with_tuples_and_modes() {
    fx::<Array<f32>>("gather_2d_tuple_neg", y().at((-1, -2)).get());
    fx::<Array<f32>>("gather_2d_tuple_clamped", y().at((5i64, -7isize)).get());
    fx::<Array<f32, 2, 5>>("gather_2d_fill_rows", y().at(idx([0, 4])).get_fill(-1.0));
    fx::<Array<f32>>(
        "gather_2d_fill_default",
        y().at((1usize, 7u8)).get_with(Mode::FillOrDrop),
    );
    fx::<Array<f32, 2>>(
        "gather_2d_clip_array",
        y().at((idx([-9, 9]), 2)).get_with(Mode::Clip),
    );
    fx::<Array<f32, 4>>(
        "gather_1d_fill_neg",
        x().at(idx([-1, -10, -11, 10])).get_fill(5.0),
    );
    // The function form, on a borrowed array.
    let yy = y();
    fx::<Array<f32>>("gather_2d_tuple_neg", jax::index::get(&yy, (-1, -2)));
}

#[test]
fn fill_defaults_per_dtype() {
    macro_rules! fill {
        ($($t:ty => $name:literal),*) => {$(
            fx::<Array<$t>>($name, Array::<$t, 3>::zeros().at(5).get_with(Mode::FillOrDrop));
        )*};
    }
    fill!(
        bool => "fill_default_bool",
        u8 => "fill_default_uint8",
        u16 => "fill_default_uint16",
        u32 => "fill_default_uint32",
        u64 => "fill_default_uint64",
        i8 => "fill_default_int8",
        i16 => "fill_default_int16",
        i32 => "fill_default_int32",
        i64 => "fill_default_int64",
        bf16 => "fill_default_bfloat16",
        f16 => "fill_default_float16",
        f32 => "fill_default_float32",
        f64 => "fill_default_float64"
    );
}

// ---- generated fixture: scatters ------------------------------------------

#[test]
fn scatters_1d() {
    fx(
        "scatter_add_duplicates_array",
        x().at(idx([1, 1, 3])).add(Array::from([1.0f32, 2.0, 3.0])),
    );
    fx(
        "scatter_set_oob_dropped",
        x().at(idx([0, 11, -11, -1])).set(7.0),
    );
    fx(
        "scatter_set_clip",
        x().at(idx([0, 11, -11]))
            .set_with(Array::from([7.0f32, 8.0, 9.0]), Mode::Clip),
    );
    fx("scatter_mul_duplicates", x().at(idx([2, 2, 2])).mul(2.0));
    fx(
        "scatter_min_duplicates",
        x().at(idx([2, 2])).min(Array::from([1.0f32, -5.0])),
    );
    fx("scatter_max_nan", x().at(0).max(f32::NAN));
}

#[test]
fn scatters_2d() {
    fx(
        "scatter_2d_slice_broadcast",
        y().at(s![1..3, ..;2])
            .set(Array::from([[10.0f32, 11.0, 12.0]])),
    );
    fx(
        "scatter_2d_reversed_col",
        y().at(s![..;-1, 0]).set(Array::<f32, 4>::arange()),
    );
    fx(
        "scatter_2d_pairs_add_dup",
        y().at((idx([0, 0]), idx([1, 1]))).add(1.0),
    );
    fx(
        "scatter_2d_last_row",
        y().at(-1).set(&Array::<f32, 5>::arange()),
    );
    fx("scatter_2d_row_oob_dropped", y().at((5, 0)).set(100.0));
    fx("scatter_2d_col_oob_dropped", y().at((.., 7)).set(1.0));
    fx(
        "scatter_2d_add_clip",
        y().at((9, -9)).add_with(100.0, Mode::Clip),
    );
}

#[test]
fn scatters_convert_values_to_the_array_dtype() {
    fx(
        "scatter_int8_add_wraps",
        Array::<i8, 2>::from([127, 0]).at(0).add(1),
    );
    fx(
        "scatter_uint8_set_float_value",
        Array::<u8, 2>::from([1, 2]).at(1).set(300.7),
    );
    fx(
        "scatter_int_set_int_array_values",
        Array::<i32, 5>::arange().at(idx([0, 4])).set(idx([-1, -2])),
    );
}

#[test]
#[should_panic(expected = "do not broadcast to the indexed shape")]
fn scatter_values_must_broadcast() {
    let _ = y().at(s![1..3]).set(Array::<f32, 3>::zeros());
}

#[test]
fn weak_type_is_kept() {
    let w = Array::<f32, 3>::arange().set_weak(true);
    let g: Array<f32> = w.clone().at(1).get();
    assert!(g.weak_type());
    assert!(w.at(1).set(2.0).weak_type());
}

/// Unsigned index arrays never count from the end: a `u8` or `u16` value
/// past the axis is out of bounds, as a large positive index is. Expected
/// values follow from `x[i] == i`. (`u32` and `u64` values are converted to
/// int32 first, wrapping as JAX's do, so `u32::MAX` is -1 and clamps to 0:
/// tests/index_dtypes.rs checks them against JAX.)
#[test]
fn unsigned_index_arrays_beyond_the_axis_are_out_of_bounds() {
    macro_rules! check {
        ($($t:ty),*) => {$({
            // The largest value, the top bit alone (negative if wrapped to a
            // signed type of the same width), just past the axis, in bounds.
            let i = Array::<$t, 4>::from([<$t>::MAX, <$t>::MAX / 2 + 1, 10, 2]);
            let t = stringify!($t);
            let fill: Array<f32, 4> = x().at(&i).get_fill(-1.0);
            assert_eq!(fill.to_vec(), [-1.0, -1.0, -1.0, 2.0], "{t}");
            let clip: Array<f32, 4> = x().at(&i).get();
            assert_eq!(clip.to_vec(), [9.0, 9.0, 9.0, 2.0], "{t}");
            let mut want = x().to_vec();
            want[2] = -7.0;
            assert_eq!(x().at(&i).set(-7.0).to_vec(), want, "{t}");
            assert_eq!(x().at(&i).add(-9.0).to_vec(), {
                let mut w = x().to_vec();
                w[2] -= 9.0;
                w
            }, "{t}");
            want[9] = -7.0;
            assert_eq!(x().at(&i).set_with(-7.0, Mode::Clip).to_vec(), want, "{t}");
            // In a tuple with another axis, and against the scalar index.
            let rows = Array::<$t, 2>::from([<$t>::MAX, 1]);
            let got: Array<f32, 2> = y().at((&rows, 0)).get_fill(-1.0);
            assert_eq!(got.to_vec(), [-1.0, 5.0], "{t}");
            let scalar: Array<f32> = x().at(<$t>::MAX).get_fill(-1.0);
            assert_eq!(scalar.item(), -1.0, "{t}");
        })*};
    }
    check!(u8, u16);
}
