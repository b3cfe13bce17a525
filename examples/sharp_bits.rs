//! JAX's "sharp bits" (the first seed document), snippet by snippet, in
//! Rust with this crate. Each value is printed as JAX's `repr` prints it;
//! `tests/sharp_bits.rs` compares every line with `seed_examples.json`.
//! Snippets JAX rejects are compile errors here: each is named by the UI
//! test (`ui-tests/fail/NAME.rs`) that holds the error we give.
//!
//! Run with `cargo run --release --example sharp_bits`.

use jax::index::Mode;
use jax::prelude::*;

/// 🔪 Pure functions: a global read while tracing is baked in, and JAX's
/// `jit` caches it; here a global is not readable at all (UI
/// `static_read_error`), and internal state is fine:
#[jax::jit]
fn pure_uses_internal_state(x: f32) -> f32 {
    let mut even = 0.0;
    let mut odd = 0.0;
    for i in 0..10 {
        if i % 2 == 0 {
            even += x;
        } else {
            odd += x;
        }
    }
    even + odd
}

/// A Python `for` over an array unrolls; a Rust `for` over a static range
/// does too.
#[jax::jit]
fn iter_over_traced_array(x: &Array<f32, 4>) -> Array<f32> {
    let mut s = x.at(0).get();
    for i in 1..4 {
        s = s + x.at(i).get();
    }
    s
}

#[jax::jit]
fn bitwise_and_on_traced_ok(x: f32) -> Array<bool> {
    jnp::logical_and(jnp::greater(x, 0.0), jnp::less(x, 10.0))
}

#[jax::jit]
fn nansum_2(x: &Array<f32, 5>) -> Array<f32> {
    let mask = jnp::logical_not(jnp::isnan(x));
    jnp::sum(jnp::where_(mask, x, 0.0))
}

#[jax::jit]
fn fori_loop_sum(array: &Array<i32, 10>) -> Array<i32> {
    lax::fori_loop(0, 10, |i, x| x + array.at(i).get(), 0)
}

#[jax::jit]
fn func11(arr: &Array<i32, 16>, extra: f32) -> (Array<f32>, Array<f32, 16>) {
    let ones = Array::<f32, 16>::ones();
    lax::scan(
        |carry, (ae1, ae2)| (carry + ae1 * ae2 + extra, carry),
        0.0,
        (arr.clone(), ones),
    )
}

#[jax::jit]
fn my_function(x: f32) -> f32 {
    jnp::sin(x)
}

#[jax::jit]
fn func(x: f32) -> f32 {
    x * x
}

#[jax::jit]
fn divide(x: f32, y: f32) -> f32 {
    x / y
}

/// Every snippet with a value: its name in `seed_examples.json` and our
/// result, formatted as JAX's `repr`.
///
/// Not printed here, and why:
/// - NumPy's own behaviour (`numpy_inplace_row_update`,
///   `astype_uint8_wraps_numpy`, `numpy_sum_list`, `oob_numpy_index_error`,
///   `nanargmin_all_nan_numpy`): the contrast the document draws, not ours.
/// - Impure functions (`impure_print_side_effect`, `impure_uses_globals`,
///   `impure_saves_global`): compile errors here (UI `println_traced_error`,
///   `static_read_error`, `static_mut_write_error`); `jax::debug::print!`
///   prints at run time.
/// - `fori_loop_iterator_unexpected`: JAX silently gives 0; here the
///   iterator is a compile error (UI `fori_loop_iterator_unexpected`).
/// - `nansum_boolean_mask_eager`: a boolean mask's result has a shape that
///   depends on values, which `Array<T, N>` cannot hold; `where` is shown.
/// - The `*_without_x64` float64 cases: an explicit `f64` stays `f64` here
///   (README, "Where this differs from JAX"); `default_dtypes_*` are checked
///   in `tests/debug.rs`; `int64_overflow_without_x64` is Rust's own
///   literal-out-of-range error.
/// - `static_argnums_ok`, `permissive_sum`: shapes and element types are in
///   Rust's types, so these are ordinary const generics and arrays.
pub fn snippets() -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    macro_rules! show {
        ($name:literal, $value:expr) => {
            out.push(($name, format!("{:?}", $value)))
        };
    }
    let idx = |v: Vec<i32>| -> Vec<i32> { v };
    let _ = idx;

    // 🔪 Out-of-bounds indexing: gathers clamp, `.at[].get` can fill,
    // scatters drop.
    let x10 = Array::<f32, 10>::arange;
    show!(
        "oob_gather_int_index",
        Array::<DefaultInt, 10>::arange()
            .at(11)
            .get::<Array<DefaultInt>>()
    );
    show!("oob_at_get_default", x10().at(11).get::<Array<f32>>());
    show!(
        "oob_at_get_fill_nan",
        x10().at(11).get_fill::<Array<f32>, _>(f32::NAN)
    );
    show!(
        "oob_at_get_fill_default_fill_value",
        x10().at(11).get_with::<Array<f32>>(Mode::FillOrDrop)
    );
    show!(
        "oob_at_get_fill_int_default_fill_value",
        Array::<DefaultInt, 10>::arange()
            .at(11)
            .get_with::<Array<DefaultInt>>(Mode::FillOrDrop)
    );
    show!(
        "oob_at_get_clip",
        x10().at(11).get_with::<Array<f32>>(Mode::Clip)
    );
    // `np.arange(10)[11]` raises IndexError; the same index on an array is
    // clamped, as in JAX (above).
    show!(
        "oob_gather_array_index",
        x10()
            .at(Array::<i32, 8>::from([0, 9, 10, 100, -1, -10, -11, -100]))
            .get::<Array<f32, 8>>()
    );
    show!(
        "oob_slice_past_end",
        x10().slice::<Array<f32, 2>>(s![8..20])
    );
    let a5 = Array::<f32, 5>::arange;
    show!("oob_scatter_set_dropped", a5().at(7).set(9.0));
    show!(
        "oob_scatter_add_partial",
        a5().at(Array::<i32, 2>::from([1, 7])).add(1.0)
    );
    show!(
        "oob_scatter_set_mode_clip",
        a5().at(7).set_with(9.0, Mode::Clip)
    );
    show!(
        "oob_scatter_add_duplicates",
        Array::<f32, 4>::zeros()
            .at(Array::<i32, 4>::from([0, 0, 2, 0]))
            .add(1.0)
    );
    show!(
        "scatter_set_duplicate_indices",
        Array::<f32, 4>::zeros()
            .at(Array::<i32, 2>::from([1, 1]))
            .set(Array::from([5.0f32, 6.0]))
    );

    // Negative indices count from the end.
    show!("neg_index_get", a5().at(-1).get::<Array<f32>>());
    show!("neg_index_set", a5().at(-1).set(9.0));
    show!("neg_index_get_oob_minus6", a5().at(-6).get::<Array<f32>>());
    show!(
        "neg_index_get_oob_minus6_fill",
        a5().at(-6).get_fill::<Array<f32>, _>(-1.0f32)
    );
    show!("neg_index_set_oob_minus6", a5().at(-6).set(9.0));
    show!(
        "neg_index_array_set",
        a5().at(Array::<i32, 2>::from([-1, -2]))
            .set(Array::from([7.0f32, 8.0]))
    );
    show!(
        "neg_index_2d",
        Array::<f32, 3, 4>::arange()
            .at((-1, -2))
            .get::<Array<f32>>()
    );

    // 🔪 In-place updates: `x[1, :] = 1.0` is a compile error (UI
    // `inplace_assignment_error`, `inplace_assignment_error_scalar_index`,
    // `inplace_augmented_assignment_error`); `.at[].set` makes a new array.
    show!(
        "at_add_strided_slice",
        Array::<f32, 5, 6>::ones().at(s![..;2, 3..]).add(7.0)
    );
    show!(
        "at_set_row",
        Array::<f32, 3, 3>::zeros().at((1, ..)).set(1.0)
    );
    let jax_array = Array::<f32, 3, 3>::zeros();
    let _updated = (&jax_array).at((1, ..)).set(1.0);
    show!("at_set_row_original_unchanged", jax_array);
    show!(
        "at_mul",
        Array::<f32, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0])
            .at(Array::<i32, 2>::from([0, 2]))
            .mul(10.0)
    );
    show!("at_min", a5().at(Array::<i32, 2>::from([3, 4])).min(2.5));
    show!("at_max", a5().at(Array::<i32, 2>::from([0, 1])).max(0.5));
    show!(
        "at_set_int_array_float_value",
        Array::<DefaultInt, 5>::arange().at(1).set(2.7)
    );

    // Conversions saturate (NumPy's wrap).
    show!(
        "astype_uint8_saturates_jax",
        Array::<f32, 4>::from([254.0, 255.0, 256.0, 257.0]).astype::<u8>()
    );
    show!(
        "astype_int8_from_float_jax",
        Array::<f32, 6>::from([-129.0, -128.5, 127.5, 128.0, 1e10, -1e10]).astype::<i8>()
    );
    show!(
        "astype_int32_from_nan_inf_jax",
        Array::<f32, 5>::from([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.9, -2.9])
            .astype::<i32>()
    );
    show!(
        "astype_uint8_from_negative_jax",
        Array::<f32, 3>::from([-1.0, -0.5, 0.5]).astype::<u8>()
    );
    show!(
        "astype_int_to_uint8_wraps_jax",
        Array::<i32, 5>::from([254, 255, 256, 257, -1]).astype::<u8>()
    );
    show!(
        "astype_float_to_bool_jax",
        Array::<f32, 4>::from([0.0, -0.0, 0.1, f32::NAN]).astype::<bool>()
    );

    // NaNs: `x[mask]` has a shape that depends on values, a compile error
    // in jit (UI `nansum_boolean_mask_jit_error`); `where` works.
    let x = Array::<f32, 5>::from([1.0, 2.0, f32::NAN, 3.0, 4.0]);
    let kept: Array<f32, 5> = jnp::where_(jnp::logical_not(jnp::isnan(&x)), &x, 0.0);
    show!("nansum_where", jnp::sum(kept));
    show!("nansum_2_jit", nansum_2(&x));
    show!("jnp_nansum", jnp::nansum(&x));

    // 🔪 Control flow: lax's primitives; an iterator inside them is a
    // compile error (UI `fori_loop_iterator_unexpected`,
    // `cond_iterator_operand_error`, `scan_func11_iterator_error`).
    show!(
        "fori_loop_sum_arange",
        fori_loop_sum(&Array::<i32, 10>::arange())
    );
    show!(
        "cond_true_array_operand",
        lax::cond(
            true,
            |x: Array<f32, 1>| x + 1.0f32,
            |x| x - 1.0f32,
            Array::<f32, 1>::from([0.0])
        )
    );
    show!("scan_func11", func11(&Array::<i32, 16>::arange(), 5.0));
    show!(
        "pure_uses_internal_state",
        Array::from(pure_uses_internal_state(5.0)).set_weak(true)
    );

    // Derivatives. A Rust scalar is what JAX calls weakly typed.
    let weak = |v: f32| Array::from(v).set_weak(true);
    show!("grad_sin_at_1", weak(my_function::grad(1.0)));
    show!("grad_my_function_sin", weak(my_function::grad(1.0)));
    show!("grad_square_at_2", weak(func::grad(2.0)));
    let (y, t) = func::jvp((2.0,), (1.0,));
    show!("jvp_square", (weak(y), weak(t)));
    let (y, pullback) = func::vjp(2.0);
    show!("vjp_square", (weak(y), (weak(pullback(1.0).0),)));

    // NaN-aware reductions and ties.
    let nan = f32::NAN;
    let rows = |last: f32| {
        Array::<f32, 4, 3>::from([
            [nan, nan, nan],
            [1.0, nan, 0.0],
            [nan, 2.0, 2.0],
            [3.0, 1.0, last],
        ])
    };
    show!(
        "nanargmin_rows",
        jnp::nanargmin_axis::<_, Array<DefaultInt, 4>>(rows(1.0), 1, false)
    );
    show!(
        "nanargmax_rows",
        jnp::nanargmax_axis::<_, Array<DefaultInt, 4>>(rows(3.0), 1, false)
    );
    show!(
        "nanargmin_all_nan_1d",
        jnp::nanargmin(Array::<f32, 2>::from([nan, nan]))
    );
    show!(
        "nanargmax_all_nan_1d",
        jnp::nanargmax(Array::<f32, 2>::from([nan, nan]))
    );
    show!(
        "argmax_with_nan",
        Array::<f32, 3>::from([1.0, nan, 3.0]).argmax()
    );
    show!(
        "argmin_ties_first",
        Array::<f32, 5>::from([2.0, 1.0, 1.0, 0.0, 0.0]).argmin()
    );
    show!("max_with_nan", Array::<f32, 3>::from([1.0, nan, 3.0]).max());
    show!(
        "maximum_with_nan",
        jnp::maximum::<_, _, Array<f32, 2>>(
            Array::<f32, 2>::from([1.0, nan]),
            Array::<f32, 2>::from([nan, 2.0])
        )
    );

    // 🔪 Non-array inputs: `jnp.sum([1, 2, 3])` is a compile error (UI
    // `jnp_sum_list_error`, `jnp_sum_tuple_error`); an array of them works.
    show!(
        "jnp_sum_array_of_list",
        jnp::sum(Array::<DefaultInt, 10>::arange())
    );

    // 🔪 Tracing: `if`/`while`/`and`/`or`/`not`/`float()`/`int()`/`range(n)`
    // on traced values are compile errors (UI `if_on_traced_value_error`,
    // `while_on_traced_value_error`, `python_and_on_traced_error`,
    // `python_or_on_traced_error`, `float_of_tracer_error`,
    // `int_of_tracer_error`, `range_of_tracer_error`), and so are shapes
    // from values (`dynamic_shape_arange_error`, `dynamic_slice_size_error`).
    show!("bitwise_and_on_traced_ok", bitwise_and_on_traced_ok(5.0));
    show!(
        "iter_over_traced_array",
        iter_over_traced_array(&Array::<f32, 4>::arange())
    );
    show!(
        "concretization_in_fori_loop_bound_ok",
        Array::<DefaultInt>::from(lax::fori_loop(0, 3, |i, c| c + i, 0)).set_weak(true)
    );

    // 🔪 Dynamic shapes and division.
    show!("int32_wraparound", Array::<i32>::from(i32::MAX) + 1);
    let ints = Array::<i32, 3>::from([1, -1, 0]);
    show!(
        "integer_division_by_zero",
        (
            jnp::floor_divide::<_, _, Array<i32, 3>>(&ints, 0),
            jnp::remainder::<_, _, Array<i32, 3>>(&ints, 0)
        )
    );
    show!(
        "float_division_by_zero",
        Array::<f32, 3>::from([1.0, -1.0, 0.0]) / 0.0f32
    );

    // 🔪 NaNs with `jax_debug_nans`: `0/0` is reported (see the
    // `debug_nans` example); a finite result and an infinity are not.
    show!("divide_zero_by_zero", weak(divide(0.0, 0.0)));
    show!(
        "debug_nans_no_nan_ok",
        weak(jax::debug::checked(|| divide(1.0, 2.0)).unwrap())
    );
    show!(
        "debug_nans_inf_not_flagged",
        weak(jax::debug::checked(|| divide(1.0, 0.0)).unwrap())
    );

    // Printing.
    out.push((
        "str_2d_float",
        format!("{:?}", Array::<f32, 2, 3>::ones().to_string()).replace('"', "'"),
    ));
    show!("repr_float_vector", Array::<f32, 2>::from([1.0, 2.0]));
    show!(
        "repr_int_scalar",
        Array::<DefaultInt, 10>::arange()
            .at(3)
            .get::<Array<DefaultInt>>()
    );
    show!("repr_bool", Array::<bool, 2>::from([true, false]));
    out
}

fn main() {
    for (name, repr) in snippets() {
        println!("{name}: {repr}");
    }
}
