//! JAX's "sharp bits" (the first seed document), snippet by snippet and in
//! its order, in Rust with this crate. Values print as JAX's `repr` prints
//! them; `tests/sharp_bits.rs` compares every line with the output of real
//! JAX (`seed_examples.json`). Snippets JAX rejects are compile errors here:
//! each is a UI test (`ui-tests/fail/NAME.rs`), its error is quoted in a
//! comment above it, and the example prints it from the UI test's `.stderr`.
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

/// The seed's `f` of the NaN section: `0/0` in its second element.
#[jax::jit]
fn nan_maker(x: &Array<f32, 2>, y: &Array<f32, 2>) -> Array<f32, 2> {
    let a = x * y;
    let b = (x + y) / (x - y);
    let c = &a + 2.0;
    a + b * c
}

/// What a snippet shows.
#[derive(Debug)]
pub enum Shown {
    /// Its value, formatted as JAX's `repr`.
    Value(String),
    /// The error it raised when run (JAX raises at run time too).
    Raised(String),
    /// JAX rejects the snippet, and so does Rust, when the crate compiles:
    /// the snippet in Rust is `ui-tests/fail/{ui}.rs`, the error is `stderr`.
    Rejected {
        ui: &'static str,
        stderr: &'static str,
    },
}

/// Every snippet of the seed with its name in `seed_examples.json`, in the
/// seed's order, with what it shows here.
///
/// Not shown, and why:
/// - NumPy's own behaviour (`numpy_inplace_row_update`,
///   `oob_numpy_index_error`, `numpy_sum_list`, `astype_uint8_wraps_numpy`,
///   `nanargmin_all_nan_numpy`): the contrast the seed draws, not ours.
/// - `nansum_boolean_mask_eager`: a boolean mask's result has a shape that
///   depends on values, which `Array<T, N>` cannot hold; `where` is shown.
/// - `permissive_sum`, `static_argnums_ok`: shapes and element types are in
///   Rust's types, so these are ordinary const generics and arrays.
/// - The `*_without_x64` float64 cases: an explicit `f64` stays `f64` here
///   (`runtime/guide/limitations.md`); `default_dtypes_*` are checked in
///   `tests/debug.rs`; `int64_overflow_without_x64` is Rust's own
///   literal-out-of-range error.
/// - `python_not_on_traced_error`: `!x` on a bool array is elementwise in
///   Rust (JAX's `~x`), so there is nothing to reject.
pub fn snippets() -> Vec<(&'static str, Shown)> {
    let mut all = Vec::new();
    each_snippet(&mut |name, shown| all.push((name, shown)));
    all
}

/// Hands each snippet to `out` as soon as it has run, in the seed's order.
pub fn each_snippet(out: &mut dyn FnMut(&'static str, Shown)) {
    macro_rules! show {
        ($name:literal, $value:expr) => {
            out($name, Shown::Value(format!("{:?}", $value)))
        };
    }
    macro_rules! reject {
        ($name:literal, $ui:literal) => {
            out(
                $name,
                Shown::Rejected {
                    ui: $ui,
                    stderr: include_str!(concat!("../ui-tests/fail/", $ui, ".stderr")),
                },
            )
        };
    }
    let weak = |v: f32| Array::from(v).set_weak(true);

    // 🔪 Pure functions. JAX prints while tracing, bakes a global's value
    // in, and leaks a tracer into a global; here each is a compile error.
    // error: `println!` on traced values is not supported in #[jax::jit]: the function is
    //     traced once and compiled, so the print would show no values and would not run per
    //     call; use `jax::debug::print!`, which prints at run time
    reject!("impure_print_side_effect", "println_traced_error");
    // error: cannot read `SCALE` in #[jax::jit]: a `static` (or a const outside the jit
    //     mod) is global state the compiler cannot see, and its value would be baked in when
    //     the function is compiled; pass it as an argument, or declare `const SCALE` inside the
    //     #[jax::jit] mod
    reject!("impure_uses_globals", "static_read_error");
    // error: cannot write `CALLS` in #[jax::jit]: a `static mut` is global state; the
    //     function is traced once and compiled, so the write would not happen on each call.
    //     Return the new value instead
    reject!("impure_saves_global", "static_mut_write_error");
    show!(
        "pure_uses_internal_state",
        Array::from(pure_uses_internal_state(5.0)).set_weak(true)
    );
    show!(
        "fori_loop_sum_arange",
        fori_loop_sum(&Array::<i32, 10>::arange())
    );
    // JAX silently gives 0: the iterator is consumed once, while tracing.
    // error: `.into_iter()`: iterators are not supported in #[jax::jit]; use array
    //     operations, lax::fori_loop or lax::scan
    reject!(
        "fori_loop_iterator_unexpected",
        "fori_loop_iterator_unexpected"
    );
    show!("scan_func11", func11(&Array::<i32, 16>::arange(), 5.0));
    // error: `.iter()`: iterators are not supported in #[jax::jit]; use array operations,
    //     lax::fori_loop or lax::scan
    reject!("scan_func11_iterator_error", "scan_func11_iterator_error");
    show!(
        "cond_true_array_operand",
        lax::cond(
            true,
            |x: Array<f32, 1>| x + 1.0f32,
            |x| x - 1.0f32,
            Array::<f32, 1>::from([0.0])
        )
    );
    // error: `.into_iter()`: iterators are not supported in #[jax::jit]; use array
    //     operations, lax::fori_loop or lax::scan
    reject!("cond_iterator_operand_error", "cond_iterator_operand_error");

    // 🔪 In-place updates: `jax_array[1, :] = 1.0` is an error; `.at[].set`
    // makes a new array and leaves the original alone.
    // error: arrays are immutable: use `x.at(i).set(v)`, which returns the updated array
    reject!("inplace_assignment_error", "inplace_assignment_error");
    show!(
        "at_set_row",
        Array::<f32, 3, 3>::zeros().at((1, ..)).set(1.0)
    );
    let jax_array = Array::<f32, 3, 3>::zeros();
    let _updated = (&jax_array).at((1, ..)).set(1.0);
    show!("at_set_row_original_unchanged", jax_array);
    show!(
        "at_add_strided_slice",
        Array::<f32, 5, 6>::ones().at(s![..;2, 3..]).add(7.0)
    );
    // error: arrays are immutable: use `x.at(i).set(v)`, which returns the updated array
    reject!(
        "inplace_assignment_error_scalar_index",
        "inplace_assignment_error_scalar_index"
    );
    // error: arrays are immutable: use `x.at(i).add(v)`, which returns the updated array
    reject!(
        "inplace_augmented_assignment_error",
        "inplace_augmented_assignment_error"
    );
    show!(
        "at_mul",
        Array::<f32, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0])
            .at(Array::<i32, 2>::from([0, 2]))
            .mul(10.0)
    );
    let a5 = Array::<f32, 5>::arange;
    show!("at_min", a5().at(Array::<i32, 2>::from([3, 4])).min(2.5));
    show!("at_max", a5().at(Array::<i32, 2>::from([0, 1])).max(0.5));
    show!(
        "at_set_int_array_float_value",
        Array::<DefaultInt, 5>::arange().at(1).set(2.7)
    );

    // 🔪 Out-of-bounds indexing: `np.arange(10)[11]` raises; JAX clamps
    // gathers, drops scatters, and `.at[].get` can fill.
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

    // 🔪 Non-array inputs: `jnp.sum([1, 2, 3])` is an error; an array of
    // the same numbers works.
    // error: `vec!` makes a Rust Vec, not an array (JAX: "sum requires ndarray or scalar
    //     arguments"); write `jnp::array([...])`
    reject!("jnp_sum_list_error", "jnp_sum_list_error");
    show!(
        "jnp_sum_array_of_list",
        jnp::sum(Array::<DefaultInt, 10>::arange())
    );
    // error: a tuple is not an array; convert it explicitly: `jnp::array([...])`
    reject!("jnp_sum_tuple_error", "jnp_sum_tuple_error");
    // error: TracerArrayConversionError: `.to_vec()` converts the traced array f32[3] to
    //     Rust data, but its values are only known when the function runs; use `jnp::` and
    //     `lax::` functions on the array itself (as JAX needs `jnp.sin(x)`, not `np.sin(x)`)
    reject!("numpy_on_tracer_error", "numpy_on_tracer_error");

    // 🔪 Random numbers: the seed points to the PRNG tutorial; `jax::random`
    // is bit for bit JAX's (`tests/random.rs`, `tests/random_samplers.rs`).

    // 🔪 Control flow (JAX's "control flow and logical operators with JIT"):
    // Rust's `if`, `while`, `&&`, `||`, `as` and `for` need values known when
    // the crate compiles.
    // error: TracerBoolConversionError: Attempted boolean conversion of traced array with
    //     shape bool[]. `if` needs a concrete bool, but this value depends on the function's
    //     arguments; use lax::cond, lax::switch or jnp::where_ instead
    reject!("if_on_traced_value_error", "if_on_traced_value_error");
    // error: TracerBoolConversionError: Attempted boolean conversion of traced array with
    //     shape bool[]. `while` needs a concrete bool, but this value depends on the function's
    //     arguments; use lax::while_loop instead
    reject!("while_on_traced_value_error", "while_on_traced_value_error");
    // error: TracerBoolConversionError: `&&` and `||` need a concrete bool, but this value
    //     is traced; use `&` / `|` (or jnp::logical_and / jnp::logical_or) for elementwise
    //     logic
    reject!("python_and_on_traced_error", "python_and_on_traced_error");
    // error: TracerBoolConversionError: `&&` and `||` need a concrete bool, but this value
    //     is traced; use `&` / `|` (or jnp::logical_and / jnp::logical_or) for elementwise
    //     logic
    reject!("python_or_on_traced_error", "python_or_on_traced_error");
    show!("bitwise_and_on_traced_ok", bitwise_and_on_traced_ok(5.0));
    // error: ConcretizationTypeError: Abstract tracer value encountered where concrete
    //     value is expected: traced array with shape f32[]; `as` needs a value known at compile
    //     time. To convert an array's dtype, use `.astype::<f32>()`
    reject!("float_of_tracer_error", "float_of_tracer_error");
    // error: ConcretizationTypeError: Abstract tracer value encountered where concrete
    //     value is expected: traced array with shape i32[]; `.item()` needs the value, which is
    //     only known when the function runs. Keep it an array (arrays and scalars mix freely in
    //     array expressions)
    reject!("int_of_tracer_error", "int_of_tracer_error");
    // error: TracerIntegerConversionError: a loop bound must be static (a literal or
    //     const), but this one is traced; for a traced bound use lax::fori_loop
    reject!("range_of_tracer_error", "range_of_tracer_error");
    show!(
        "iter_over_traced_array",
        iter_over_traced_array(&Array::<f32, 4>::arange())
    );
    show!(
        "concretization_in_fori_loop_bound_ok",
        Array::<DefaultInt>::from(lax::fori_loop(0, 3, |i, c| c + i, 0)).set_weak(true)
    );

    // 🔪 Dynamic shapes: `x[mask]` has a shape that depends on values.
    // error: NonConcreteBooleanIndexError: Array boolean indices must be concrete; the
    //     result's shape would depend on the mask's values. Keep the shape and mask the values
    //     instead: `jnp::where_(mask, x, 0.0)`
    reject!(
        "nansum_boolean_mask_jit_error",
        "nansum_boolean_mask_jit_error"
    );
    let x = Array::<f32, 5>::from([1.0, 2.0, f32::NAN, 3.0, 4.0]);
    let kept: Array<f32, 5> = jnp::where_(jnp::logical_not(jnp::isnan(&x)), &x, 0.0);
    show!("nansum_where", jnp::sum(kept));
    show!("nansum_2_jit", nansum_2(&x));
    show!("jnp_nansum", jnp::nansum(&x));
    // error: ConcretizationTypeError: Abstract tracer value encountered where concrete
    //     value is expected: traced array with shape i32[]; `arange` would make an array whose
    //     shape depends on a run-time value, but shapes are static (they are part of `Array<T,
    //     ...>`). Make the size a const or const generic `N`, which the function is compiled
    //     for
    reject!("dynamic_shape_arange_error", "dynamic_shape_arange_error");
    // error: Slice entries must be static integers: a traced bound would make the result's
    //     shape depend on run-time values. Use literals, consts or static loop indices; for a
    //     window of static size at a traced start write `let w: Array<f32, 3> =
    //     lax::dynamic_slice(&x, &[i]);` (the window's size is its type) or
    //     `lax::dynamic_slice_in_dim(&x, i, 3, 0)`
    reject!("dynamic_slice_size_error", "dynamic_slice_size_error");
    // Shapes that do not fit are found when the crate compiles, too.
    // error: Incompatible shapes for broadcasting: f32[3,4] and f32[5]
    reject!("shape_mismatch_add_error", "shape_mismatch_add_error");
    // error: dot_general requires contracting dimensions to have the same shape, got [4]
    //     and [5] (from f32[3,4] and f32[5,2])
    reject!("matmul_shape_error", "matmul_shape_error");
    // error: add got incompatible shapes for broadcasting: (3,), (4,); lax needs equal
    //     shapes: use jnp::add, which broadcasts, or broadcast one operand first with
    //     jnp::broadcast_to
    reject!("lax_add_shape_error", "lax_add_shape_error");
    // error: cannot reshape array of shape [6] (size 6) into shape [4,2] (size 8)
    reject!("reshape_size_error", "reshape_size_error");

    // 🔪 NaNs: with `jax_debug_nans`, a jitted function whose output has a
    // NaN runs again one operation at a time and reports the first one that
    // made it (the `debug_nans` example shows the panic and the source line).
    jax::config::update("jax_debug_nans", true).unwrap();
    fn raised<T: std::fmt::Debug>(r: Result<T, jax::debug::FloatingPointError>) -> Shown {
        match r {
            Ok(v) => Shown::Value(format!("{v:?}")),
            Err(e) => Shown::Raised(e.to_string()),
        }
    }
    out(
        "debug_nans_divide_zero_by_zero",
        raised(jax::debug::checked(|| divide(0.0, 0.0))),
    );
    let (x, y) = (Array::from([2.0f32, 0.0]), Array::from([3.0f32, 0.0]));
    out(
        "debug_nans_jit_function",
        raised(jax::debug::checked(|| nan_maker(&x, &y))),
    );
    show!(
        "debug_nans_no_nan_ok",
        weak(jax::debug::checked(|| divide(1.0, 2.0)).unwrap())
    );
    show!(
        "debug_nans_inf_not_flagged",
        weak(jax::debug::checked(|| divide(1.0, 0.0)).unwrap())
    );
    jax::config::update("jax_debug_nans", false).unwrap();
    show!("divide_zero_by_zero", weak(divide(0.0, 0.0)));

    // 🔪 Double precision: see "Not shown" above.

    // 🔪 Other differences from NumPy: unsafe casts saturate as XLA's
    // ConvertElementType (NumPy wraps).
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
    // Overflow wraps and division by zero gives XLA's values, no panic.
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

    // Transformations the seed uses: a Rust scalar is what JAX calls weakly
    // typed.
    show!("grad_sin_at_1", weak(my_function::grad(1.0)));
    show!("grad_my_function_sin", weak(my_function::grad(1.0)));
    show!("grad_square_at_2", weak(func::grad(2.0)));
    let (y, t) = func::jvp((2.0,), (1.0,));
    show!("jvp_square", (weak(y), weak(t)));
    let (y, pullback) = func::vjp(2.0);
    show!("vjp_square", (weak(y), (weak(pullback(1.0).0),)));

    // Printing: `repr` and `str`.
    out(
        "str_2d_float",
        Shown::Value(format!("{:?}", Array::<f32, 2, 3>::ones().to_string()).replace('"', "'")),
    );
    show!("repr_float_vector", Array::<f32, 2>::from([1.0, 2.0]));
    show!(
        "repr_int_scalar",
        Array::<DefaultInt, 10>::arange()
            .at(3)
            .get::<Array<DefaultInt>>()
    );
    show!("repr_bool", Array::<bool, 2>::from([true, false]));
}

fn main() {
    // Each line as soon as its snippet has run, so the replay's messages of
    // the NaN section appear where it runs.
    each_snippet(&mut |name, shown| match shown {
        Shown::Value(repr) => println!("{name}: {repr}"),
        Shown::Raised(error) => println!("{name}: raises {error}"),
        Shown::Rejected { ui, stderr } => {
            let message = stderr.lines().next().unwrap_or_default();
            println!("{name}: compile error (ui-tests/fail/{ui}.rs) {message}");
        }
    });
}
