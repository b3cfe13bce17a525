//! Programs printed by Python JAX, imported (`#[jax::jit(import = ..)]`)
//! and run: every case of tests/fixtures/jaxpr.json this compiler reads
//! gives JAX's values, bit for bit (tests/fixtures/jaxpr_import.json, by
//! tests/fixtures/gen/jaxpr_import.py, holds its arguments, constants and
//! outputs).
//!
//! Beyond jaxpr.json's programs, the generator's value cases cover
//! total-order comparisons, shifts, bitcasts, `reshape`'s `dimensions` and
//! sharding annotations, and
//! its gradient cases the derivatives of imported programs.

use crate::common;

use jax::{Array, ArrayType, Element};
use serde_json::Value;

/// Reads fixture leaf `v` as an array of type `A` (floats from their bits;
/// a key as its words, `u32[.., 2]`).
fn leaf<A: ArrayType>(v: &Value) -> A {
    if let Some(words) = v.get("key_data") {
        return leaf(words);
    }
    let data = v["data"].as_array().unwrap();
    let bits = v.get("bits").and_then(Value::as_array);
    A::from_data(
        data.iter()
            .enumerate()
            .map(|(i, d)| match (bits, <A::Elem as Element>::DTYPE) {
                (Some(b), jax::DType::F32) => {
                    let s = b[i].as_str().unwrap().trim_start_matches("0x");
                    A::Elem::from_f64(f32::from_bits(u32::from_str_radix(s, 16).unwrap()) as f64)
                }
                (Some(b), jax::DType::F64) => {
                    let s = b[i].as_str().unwrap().trim_start_matches("0x");
                    A::Elem::from_f64(f64::from_bits(u64::from_str_radix(s, 16).unwrap()))
                }
                _ => match d {
                    Value::Bool(b) => A::Elem::from_f64(*b as u8 as f64),
                    d => A::Elem::from_f64(d.as_f64().unwrap()),
                },
            })
            .collect(),
    )
}

/// `got` is JAX's output leaf: dtype, shape and bits, within `ulps` for
/// floats (the text has no weak types, so the weak-type flag is not
/// compared).
#[track_caller]
fn same<A: ArrayType>(what: &str, got: &A, want: &Value, ulps: u64) {
    let want = want.get("key_data").unwrap_or(want);
    assert_eq!(
        <A::Elem as Element>::DTYPE.name(),
        want["dtype"].as_str().unwrap(),
        "{what}: dtype"
    );
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "{what}: shape");
    let expected: A = leaf(want);
    for (i, (g, e)) in got.data().iter().zip(expected.data()).enumerate() {
        let (g, e) = (common::element_bits(*g), common::element_bits(*e));
        assert!(
            g.abs_diff(e) <= ulps,
            "{what}: element {i}: got bits {g:#x}, JAX {e:#x}"
        );
    }
}

/// An imported case: the jaxpr file, the signature (constants first); the
/// check runs it on the fixture's leaves and compares every output.
macro_rules! imported {
    ($name:ident, $file:literal, ($($x:ident: &$t:ty),*) -> ($($r:ty),+,)) => {
        mod $name {
            use super::*;

            #[jax::jit(import = $file)]
            pub fn f($($x: &$t),*) -> ($($r,)+);

            #[allow(unused_assignments, unused_mut)]
            pub fn check() {
                let c = common::case("jaxpr_import", stringify!($name).trim_end_matches('_'));
                let leaves: Vec<Value> = c["consts"].as_array().unwrap().iter().chain(c["args"].as_array().unwrap()).cloned().collect();
                let mut k = 0;
                $(let $x: $t = leaf(&leaves[k]); k += 1;)*
                let outs = f($(&$x),*);
                let want = c["outputs"].as_array().unwrap();
                // XLA's tanh is its own polynomial, which the runtime
                // matches within 2 ulps (tests/elementwise.rs); the
                // gradient's `1 - tanh²` cancels to 0.0099, which scales
                // that to 127 ulps. All else is bit for bit.
                let ulps = match stringify!($name) {
                    "grad_two_args_array" => 256,
                    _ if c["jaxpr"].as_str().unwrap().contains("tanh") => 2,
                    _ => 0,
                };
                imported!(@compare outs, want, ulps, $($r),+);
            }
        }
    };
    (@compare $outs:ident, $want:ident, $ulps:ident, $r0:ty) => { same("0", &$outs.0, &$want[0], $ulps); };
    (@compare $outs:ident, $want:ident, $ulps:ident, $r0:ty, $r1:ty) => {
        same("0", &$outs.0, &$want[0], $ulps);
        same("1", &$outs.1, &$want[1], $ulps);
    };
    (@compare $outs:ident, $want:ident, $ulps:ident, $r0:ty, $r1:ty, $r2:ty) => {
        same("0", &$outs.0, &$want[0], $ulps);
        same("1", &$outs.1, &$want[1], $ulps);
        same("2", &$outs.2, &$want[2], $ulps);
    };
    (@compare $outs:ident, $want:ident, $ulps:ident, $r0:ty, $r1:ty, $r2:ty, $r3:ty) => {
        same("0", &$outs.0, &$want[0], $ulps);
        same("1", &$outs.1, &$want[1], $ulps);
        same("2", &$outs.2, &$want[2], $ulps);
        same("3", &$outs.3, &$want[3], $ulps);
    };
}

imported!(elementwise_chain, "../fixtures/jaxpr_import/elementwise_chain.jaxpr", (x0: &Array<f32, 3>) -> (Array<f32, 3>,));
imported!(elementwise_exp_log_tanh, "../fixtures/jaxpr_import/elementwise_exp_log_tanh.jaxpr", (x0: &Array<f32, 2, 3>, x1: &Array<f32, 2, 3>) -> (Array<f32, 2, 3>,));
imported!(scalar_weak_literals, "../fixtures/jaxpr_import/scalar_weak_literals.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(int_plus_python_int, "../fixtures/jaxpr_import/int_plus_python_int.jaxpr", (x0: &Array<i32, 4>) -> (Array<i32, 4>,));
imported!(int_times_python_float, "../fixtures/jaxpr_import/int_times_python_float.jaxpr", (x0: &Array<i32, 4>) -> (Array<f32, 4>,));
imported!(astype, "../fixtures/jaxpr_import/astype.jaxpr", (x0: &Array<f32, 3>) -> (Array<i32, 3>,));
imported!(dot, "../fixtures/jaxpr_import/dot.jaxpr", (x0: &Array<f32, 2, 3>, x1: &Array<f32, 3, 4>) -> (Array<f32, 2, 4>,));
imported!(matmul_operator, "../fixtures/jaxpr_import/matmul_operator.jaxpr", (x0: &Array<f32, 2, 3>, x1: &Array<f32, 3>) -> (Array<f32, 2>,));
imported!(dot_vector_vector, "../fixtures/jaxpr_import/dot_vector_vector.jaxpr", (x0: &Array<f32, 3>, x1: &Array<f32, 3>) -> (Array<f32>,));
imported!(einsum_batched, "../fixtures/jaxpr_import/einsum_batched.jaxpr", (x0: &Array<f32, 2, 3, 4>, x1: &Array<f32, 2, 4, 5>) -> (Array<f32, 2, 3, 5>,));
imported!(reduction_sum_axis0, "../fixtures/jaxpr_import/reduction_sum_axis0.jaxpr", (x0: &Array<f32, 2, 3>) -> (Array<f32, 3>,));
imported!(reduction_sum_all, "../fixtures/jaxpr_import/reduction_sum_all.jaxpr", (x0: &Array<f32, 2, 3>) -> (Array<f32>,));
imported!(reduction_max, "../fixtures/jaxpr_import/reduction_max.jaxpr", (x0: &Array<f32, 2, 3>) -> (Array<f32>,));
imported!(reduction_mean_keepdims, "../fixtures/jaxpr_import/reduction_mean_keepdims.jaxpr", (x0: &Array<f32, 2, 3>) -> (Array<f32, 2, 1>,));
imported!(argmax, "../fixtures/jaxpr_import/argmax.jaxpr", (x0: &Array<f32, 5>) -> (Array<i32>,));
imported!(permissive_sum, "../fixtures/jaxpr_import/permissive_sum.jaxpr", (x0: &Array<i32>, x1: &Array<i32>, x2: &Array<i32>, x3: &Array<i32>, x4: &Array<i32>, x5: &Array<i32>, x6: &Array<i32>, x7: &Array<i32>, x8: &Array<i32>, x9: &Array<i32>) -> (Array<i32>,));
imported!(grad_simple, "../fixtures/jaxpr_import/grad_simple.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(grad_two_args_array, "../fixtures/jaxpr_import/grad_two_args_array.jaxpr", (x0: &Array<f32, 2, 3>, x1: &Array<f32, 3>) -> (Array<f32, 2, 3>,));
imported!(value_and_grad_square, "../fixtures/jaxpr_import/value_and_grad_square.jaxpr", (x0: &Array<f32>) -> (Array<f32>, Array<f32>,));
imported!(jvp_sin, "../fixtures/jaxpr_import/jvp_sin.jaxpr", (x0: &Array<f32>, x1: &Array<f32>) -> (Array<f32>, Array<f32>,));
imported!(vjp_square, "../fixtures/jaxpr_import/vjp_square.jaxpr", (x0: &Array<f32>, x1: &Array<f32>) -> (Array<f32>, Array<f32>,));
imported!(hessian_cube, "../fixtures/jaxpr_import/hessian_cube.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(cond, "../fixtures/jaxpr_import/cond.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(cond_python_bool_pred_array, "../fixtures/jaxpr_import/cond_python_bool_pred_array.jaxpr", (x0: &Array<f32, 1>) -> (Array<f32, 1>,));
imported!(switch, "../fixtures/jaxpr_import/switch.jaxpr", (x0: &Array<i32>, x1: &Array<f32>) -> (Array<f32>,));
imported!(fori_loop_static, "../fixtures/jaxpr_import/fori_loop_static.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(fori_loop_sum_arange, "../fixtures/jaxpr_import/fori_loop_sum_arange.jaxpr", (x0: &Array<i32, 10>) -> (Array<i32>,));
imported!(fori_loop_dynamic_bound, "../fixtures/jaxpr_import/fori_loop_dynamic_bound.jaxpr", (x0: &Array<f32>, x1: &Array<i32>) -> (Array<f32>,));
imported!(while_loop, "../fixtures/jaxpr_import/while_loop.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(scan_cumsum_and_products, "../fixtures/jaxpr_import/scan_cumsum_and_products.jaxpr", (x0: &Array<f32, 4>) -> (Array<f32>, Array<f32, 4>,));
imported!(scan_func11, "../fixtures/jaxpr_import/scan_func11.jaxpr", (x0: &Array<i32, 16>, x1: &Array<f32>) -> (Array<f32>, Array<f32, 16>,));
imported!(where_, "../fixtures/jaxpr_import/where.jaxpr", (x0: &Array<f32, 4>) -> (Array<f32, 4>,));
imported!(nansum_where, "../fixtures/jaxpr_import/nansum_where.jaxpr", (x0: &Array<f32, 5>) -> (Array<f32>,));
imported!(nested_jit, "../fixtures/jaxpr_import/nested_jit.jaxpr", (x0: &Array<f32, 3>) -> (Array<f32, 3>,));
imported!(closure_constant, "../fixtures/jaxpr_import/closure_constant.jaxpr", (x0: &Array<f32, 3>, x1: &Array<f32, 3>) -> (Array<f32>,));
imported!(closure_numpy_constant, "../fixtures/jaxpr_import/closure_numpy_constant.jaxpr", (x0: &Array<f32, 3>, x1: &Array<f32, 3>) -> (Array<f32>,));
imported!(integer_pow_and_pow, "../fixtures/jaxpr_import/integer_pow_and_pow.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(broadcast_outer, "../fixtures/jaxpr_import/broadcast_outer.jaxpr", (x0: &Array<f32, 2>, x1: &Array<f32, 3>) -> (Array<f32, 2, 3>,));
imported!(reshape_transpose, "../fixtures/jaxpr_import/reshape_transpose.jaxpr", (x0: &Array<f32, 2, 3>) -> (Array<f32, 2, 3>,));
imported!(concatenate, "../fixtures/jaxpr_import/concatenate.jaxpr", (x0: &Array<f32, 2>, x1: &Array<f32, 3>) -> (Array<f32, 5>,));
imported!(static_slice, "../fixtures/jaxpr_import/static_slice.jaxpr", (x0: &Array<f32, 5>) -> (Array<f32, 2>,));
imported!(index_scalar_static, "../fixtures/jaxpr_import/index_scalar_static.jaxpr", (x0: &Array<f32, 5>) -> (Array<f32>,));
imported!(index_negative_static, "../fixtures/jaxpr_import/index_negative_static.jaxpr", (x0: &Array<f32, 5>) -> (Array<f32>,));
imported!(index_traced, "../fixtures/jaxpr_import/index_traced.jaxpr", (x0: &Array<f32, 5>, x1: &Array<i32>) -> (Array<f32>,));
imported!(gather_index_array, "../fixtures/jaxpr_import/gather_index_array.jaxpr", (x0: &Array<i32, 2>, x1: &Array<f32, 5>) -> (Array<f32, 2>,));
imported!(at_set, "../fixtures/jaxpr_import/at_set.jaxpr", (x0: &Array<f32, 5>) -> (Array<f32, 5>,));
imported!(at_add_index_array, "../fixtures/jaxpr_import/at_add_index_array.jaxpr", (x0: &Array<i32, 2>, x1: &Array<f32, 5>) -> (Array<f32, 5>,));
imported!(at_get_fill, "../fixtures/jaxpr_import/at_get_fill.jaxpr", (x0: &Array<f32, 5>) -> (Array<f32>,));
imported!(stop_gradient, "../fixtures/jaxpr_import/stop_gradient.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(softmax, "../fixtures/jaxpr_import/softmax.jaxpr", (x0: &Array<f32, 3>) -> (Array<f32, 3>,));
imported!(logsumexp, "../fixtures/jaxpr_import/logsumexp.jaxpr", (x0: &Array<f32, 3>) -> (Array<f32>,));
imported!(random_uniform, "../fixtures/jaxpr_import/random_uniform.jaxpr", (x0: &Array<u32, 2>) -> (Array<f32, 3>,));
imported!(random_split, "../fixtures/jaxpr_import/random_split.jaxpr", (x0: &Array<u32, 2>) -> (Array<u32, 2, 2>,));
imported!(random_normal_legacy_key, "../fixtures/jaxpr_import/random_normal_legacy_key.jaxpr", (x0: &Array<u32, 2>) -> (Array<f32, 2>,));
imported!(random_key_from_seed, "../fixtures/jaxpr_import/random_key_from_seed.jaxpr", (x0: &Array<i32>) -> (Array<u32, 2>,));
imported!(random_uniform_x64, "../fixtures/jaxpr_import/random_uniform_x64.jaxpr", (x0: &Array<u32, 2>) -> (Array<f64, 3>,));
imported!(searchsorted_total_order, "../fixtures/jaxpr_import/searchsorted_total_order.jaxpr", (x0: &Array<f32, 7>, x1: &Array<f32, 8>) -> (Array<i32, 8>, Array<i32, 8>,));
imported!(bits_of_floats, "../fixtures/jaxpr_import/bits_of_floats.jaxpr", (x0: &Array<f32, 6>, x1: &Array<u32, 6>) -> (Array<u32, 6>, Array<u32, 6>, Array<i32, 6>, Array<f32, 6>,));
imported!(reshape_dimensions, "../fixtures/jaxpr_import/reshape_dimensions.jaxpr", (x0: &Array<f32, 2, 3, 2>) -> (Array<f32, 3, 4>,));
imported!(sharding_constraint, "../fixtures/jaxpr_import/sharding_constraint.jaxpr", (x0: &Array<f32, 4>) -> (Array<f32, 4>,));
imported!(pure_uses_internal_state, "../fixtures/jaxpr_import/pure_uses_internal_state.jaxpr", (x0: &Array<f32>) -> (Array<f32>,));
imported!(multiple_outputs_pytree, "../fixtures/jaxpr_import/multiple_outputs_pytree.jaxpr", (x0: &Array<f32, 2>) -> (Array<f32, 2>, Array<f32, 2>, Array<f32>,));
imported!(vmap_dot, "../fixtures/jaxpr_import/vmap_dot.jaxpr", (x0: &Array<f32, 4, 3>, x1: &Array<f32, 3>) -> (Array<f32, 4>,));
imported!(elementwise_chain_x64, "../fixtures/jaxpr_import/elementwise_chain_x64.jaxpr", (x0: &Array<f64, 3>) -> (Array<f64, 3>,));
imported!(permissive_sum_x64, "../fixtures/jaxpr_import/permissive_sum_x64.jaxpr", (x0: &Array<i64>, x1: &Array<i64>, x2: &Array<i64>, x3: &Array<i64>, x4: &Array<i64>, x5: &Array<i64>, x6: &Array<i64>, x7: &Array<i64>, x8: &Array<i64>, x9: &Array<i64>) -> (Array<i64>,));
imported!(scalar_weak_literals_x64, "../fixtures/jaxpr_import/scalar_weak_literals_x64.jaxpr", (x0: &Array<f64>) -> (Array<f64>,));
imported!(grad_simple_x64, "../fixtures/jaxpr_import/grad_simple_x64.jaxpr", (x0: &Array<f64>) -> (Array<f64>,));

#[test]
fn jax_programs_imported_give_jax_values() {
    let cases: &[(&str, fn())] = &[
        ("elementwise_chain", elementwise_chain::check),
        ("elementwise_exp_log_tanh", elementwise_exp_log_tanh::check),
        ("scalar_weak_literals", scalar_weak_literals::check),
        ("int_plus_python_int", int_plus_python_int::check),
        ("int_times_python_float", int_times_python_float::check),
        ("astype", astype::check),
        ("dot", dot::check),
        ("matmul_operator", matmul_operator::check),
        ("dot_vector_vector", dot_vector_vector::check),
        ("einsum_batched", einsum_batched::check),
        ("reduction_sum_axis0", reduction_sum_axis0::check),
        ("reduction_sum_all", reduction_sum_all::check),
        ("reduction_max", reduction_max::check),
        ("reduction_mean_keepdims", reduction_mean_keepdims::check),
        ("argmax", argmax::check),
        ("permissive_sum", permissive_sum::check),
        ("grad_simple", grad_simple::check),
        ("grad_two_args_array", grad_two_args_array::check),
        ("value_and_grad_square", value_and_grad_square::check),
        ("jvp_sin", jvp_sin::check),
        ("vjp_square", vjp_square::check),
        ("hessian_cube", hessian_cube::check),
        ("cond", cond::check),
        (
            "cond_python_bool_pred_array",
            cond_python_bool_pred_array::check,
        ),
        ("switch", switch::check),
        ("fori_loop_static", fori_loop_static::check),
        ("fori_loop_sum_arange", fori_loop_sum_arange::check),
        ("fori_loop_dynamic_bound", fori_loop_dynamic_bound::check),
        ("while_loop", while_loop::check),
        ("scan_cumsum_and_products", scan_cumsum_and_products::check),
        ("scan_func11", scan_func11::check),
        ("where_", where_::check),
        ("nansum_where", nansum_where::check),
        ("nested_jit", nested_jit::check),
        ("closure_constant", closure_constant::check),
        ("closure_numpy_constant", closure_numpy_constant::check),
        ("integer_pow_and_pow", integer_pow_and_pow::check),
        ("broadcast_outer", broadcast_outer::check),
        ("reshape_transpose", reshape_transpose::check),
        ("concatenate", concatenate::check),
        ("static_slice", static_slice::check),
        ("index_scalar_static", index_scalar_static::check),
        ("index_negative_static", index_negative_static::check),
        ("index_traced", index_traced::check),
        ("gather_index_array", gather_index_array::check),
        ("at_set", at_set::check),
        ("at_add_index_array", at_add_index_array::check),
        ("at_get_fill", at_get_fill::check),
        ("stop_gradient", stop_gradient::check),
        ("softmax", softmax::check),
        ("logsumexp", logsumexp::check),
        ("random_uniform", random_uniform::check),
        ("random_split", random_split::check),
        ("random_normal_legacy_key", random_normal_legacy_key::check),
        ("random_key_from_seed", random_key_from_seed::check),
        ("random_uniform_x64", random_uniform_x64::check),
        ("searchsorted_total_order", searchsorted_total_order::check),
        ("bits_of_floats", bits_of_floats::check),
        ("reshape_dimensions", reshape_dimensions::check),
        ("sharding_constraint", sharding_constraint::check),
        ("pure_uses_internal_state", pure_uses_internal_state::check),
        ("multiple_outputs_pytree", multiple_outputs_pytree::check),
        ("vmap_dot", vmap_dot::check),
        ("elementwise_chain_x64", elementwise_chain_x64::check),
        ("permissive_sum_x64", permissive_sum_x64::check),
        ("scalar_weak_literals_x64", scalar_weak_literals_x64::check),
        ("grad_simple_x64", grad_simple_x64::check),
    ];
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|(name, check)| {
            std::panic::catch_unwind(check).err().map(|e| {
                format!(
                    "{name}: {}",
                    e.downcast_ref::<String>().cloned().unwrap_or_default()
                )
            })
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Imported programs whose derivatives are checked against `jax.grad`
/// (the fixture's `grad`): a `custom_jvp` function of JAX's own keeps JAX's
/// rule (`relu'(0) = 0`), loops and layers differentiate as traced ones.
mod grads {
    use jax::Array;

    #[jax::jit(import = "../fixtures/jaxpr_import/grad_relu.jaxpr")]
    pub fn relu(x: &Array<f32, 4>) -> Array<f32>;

    #[jax::jit(import = "../fixtures/jaxpr_import/grad_softplus.jaxpr")]
    pub fn softplus(x: &Array<f32, 4>) -> Array<f32>;

    #[jax::jit(import = "../fixtures/jaxpr_import/grad_tanh_layer.jaxpr")]
    pub fn tanh_layer(w: &Array<f32, 3, 4>, x: &Array<f32, 2, 3>) -> Array<f32>;

    #[jax::jit(import = "../fixtures/jaxpr_import/grad_scan.jaxpr")]
    pub fn scan(x: &Array<f32, 4>) -> Array<f32>;

    #[jax::jit(import = "../fixtures/jaxpr_import/grad_while_free.jaxpr")]
    pub fn while_free(x: &Array<f32>) -> Array<f32>;

    /// Its rules are Python functions the text names but cannot hold: the
    /// value is the body's (its gradient is a compile error, see
    /// ui-tests/fail/import_custom_vjp_grad.rs).
    #[jax::jit(import = "../fixtures/jaxpr_import/custom_vjp_forward.jaxpr")]
    pub fn custom_vjp_forward(x: &Array<f32, 3>) -> Array<f32>;
}

/// The case's value and gradient (`ulps` for the value and gradient).
#[track_caller]
fn check_grad<A: ArrayType>(name: &str, value: &Array<f32>, grad: &A, ulps: u64) {
    let c = common::case("jaxpr_import", name);
    same(&format!("{name} value"), value, &c["outputs"][0], ulps);
    same(&format!("{name} grad"), grad, &c["grad"][0], ulps);
}

#[test]
fn imported_programs_differentiate_as_jax() {
    let arg = |name: &str, k: usize| common::case("jaxpr_import", name)["args"][k].clone();
    let x: Array<f32, 4> = leaf(&arg("grad_relu", 0));
    check_grad("grad_relu", &grads::relu(&x), &grads::relu::grad(&x), 0);
    let x: Array<f32, 4> = leaf(&arg("grad_softplus", 0));
    check_grad(
        "grad_softplus",
        &grads::softplus(&x),
        &grads::softplus::grad(&x),
        0,
    );
    let (w, x): (Array<f32, 3, 4>, Array<f32, 2, 3>) = (
        leaf(&arg("grad_tanh_layer", 0)),
        leaf(&arg("grad_tanh_layer", 1)),
    );
    // XLA's tanh within 2 ulps, as above, through a sum of squares.
    check_grad(
        "grad_tanh_layer",
        &grads::tanh_layer(&w, &x),
        &grads::tanh_layer::grad(&w, &x),
        8,
    );
    let x: Array<f32, 4> = leaf(&arg("grad_scan", 0));
    check_grad("grad_scan", &grads::scan(&x), &grads::scan::grad(&x), 0);
    let x: Array<f32> = leaf(&arg("grad_while_free", 0));
    check_grad(
        "grad_while_free",
        &grads::while_free(&x),
        &grads::while_free::grad(&x),
        0,
    );
    let x: Array<f32, 3> = leaf(&arg("custom_vjp_forward", 0));
    let c = common::case("jaxpr_import", "custom_vjp_forward");
    same(
        "custom_vjp_forward",
        &grads::custom_vjp_forward(&x),
        &c["outputs"][0],
        0,
    );
}
