//! Operators on arrays: type-level promotion, broadcasting, and the
//! promotion.json / seed_examples.json cases about operators.

use crate::common;

use common::{assert_matches, case, config_id, seed_output};
use jax::prelude::*;
use proptest::prelude::*;

fn value(file: &str, id: &str) -> serde_json::Value {
    case(file, id)["result"]["value"].clone()
}

// ---- type-level checks: these lines only compile with JAX's promotion ----

#[test]
fn operator_result_types() {
    let x_i32 = Array::<i32, 2>::from([1, 2]);
    let x_f32 = Array::<f32, 2>::from([1.0, 2.0]);
    let x_u8 = Array::<u8, 2>::from([1, 2]);
    let x_f16 = Array::<f16, 2>::ones();
    let x_bool = Array::<bool, 2>::from([true, false]);

    let a: Array<DefaultFloat, 2> = &x_i32 + 1.0; // int array + float literal -> default float
    let b: Array<f32, 2> = &x_f32 * 2.0; // f64 literal is weak: stays f32
    let c: Array<u8, 2> = &x_u8 + 300; // weak int literal keeps u8 (and wraps)
    let d: Array<f16, 2> = 2.0 * &x_f16;
    let e: Array<f32, 2> = &x_i32 + &x_f32; // strong promotion
    let f: Array<i32, 2> = &x_bool + &x_i32;
    let g: Array<bool, 2> = &x_bool * &x_bool;
    let h: Array<i32, 2> = !&x_i32;
    let i: Array<bool, 2> = &x_bool ^ true;
    let j: Array<f64, 2> = &x_f32 + Array::<f64, 2>::ones();
    let k: Array<i16, 2> = &x_u8 + Array::<i8, 2>::ones();
    assert_eq!(a.to_vec(), [2.0, 3.0]);
    assert_eq!(b.to_vec(), [2.0, 4.0]);
    assert_eq!(c.to_vec(), [45, 46]);
    assert_eq!(d.to_vec(), [f16::from_f32(2.0); 2]);
    assert_eq!(e.to_vec(), [2.0, 4.0]);
    assert_eq!(f.to_vec(), [2, 2]);
    assert_eq!(g.to_vec(), [true, false]);
    assert_eq!(h.to_vec(), [-2, -3]);
    assert_eq!(i.to_vec(), [false, true]);
    assert_eq!(j.to_vec(), [2.0, 3.0]);
    assert_eq!(k.to_vec(), [2, 3]);
    // The result's shape is known before the literal's type is, so methods chain.
    assert_eq!((&x_f32 + 1.0).to_vec(), [2.0f32, 3.0]);
    assert_eq!(jnp::maximum(&x_f32, 1.5).to_vec(), [1.5f32, 2.0]);
}

#[test]
fn owned_and_borrowed_operands() {
    let x = Array::<i32, 3>::from([1, 2, 3]);
    let y = Array::<i32, 3>::from([10, 20, 30]);
    let expected = [11, 22, 33];
    assert_eq!((&x + &y).to_vec(), expected);
    assert_eq!((x.clone() + &y).to_vec(), expected);
    assert_eq!((&x + y.clone()).to_vec(), expected);
    assert_eq!((x.clone() + y.clone()).to_vec(), expected);
    // A literal on the left picks its impl only at the end of inference, so
    // bind the result before calling methods on it.
    let l: Array<i32, 3> = 10 - &x;
    assert_eq!(l.to_vec(), [9, 8, 7]);
    let l: Array<i32, 3> = 10 - x.clone();
    assert_eq!(l.to_vec(), [9, 8, 7]);
    assert_eq!((-&x).to_vec(), [-1, -2, -3]);
    assert_eq!((-x).to_vec(), [-1, -2, -3]);
}

#[test]
fn right_operand_broadcasts_to_the_left_shape() {
    let w: Array<f32, 2, 3> = Array::arange();
    let bias = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    assert_eq!((&w + &bias).to_vec(), [1.0, 3.0, 5.0, 4.0, 6.0, 8.0]);
    let col = Array::<f32, 2, 1>::from([[1.0], [2.0]]);
    assert_eq!((&w - &col).to_vec(), [-1.0, 0.0, 1.0, 1.0, 2.0, 3.0]);
    let s = Array::<f32>::from(2.0);
    assert_eq!((&w * &s).to_vec(), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    assert_eq!(
        w.lt(&bias).to_vec(),
        [true, true, true, false, false, false]
    );
}

#[test]
fn bias_broadcast_matches_jax() {
    let c = case("elementwise", "bcast:add_2x3_3");
    let expected = &c["output"];
    let x = Array::<f32, 2, 3>::from_fn(|i| i as f32 * 1.5);
    let b = Array::<f32, 3>::from([10.0, 20.0, -30.0]);
    assert_matches(&(&x + &b), expected);
    let c = case("elementwise", "bcast:sub_4x3_4x1");
    let x: Array<i32, 4, 3> = Array::arange();
    let y = Array::<i32, 4, 1>::from([[1], [2], [3], [4]]);
    assert_matches(&(x - y), &c["output"]);
    let c = case("elementwise", "bcast:scalar_array_times_2x2");
    let x = Array::from([[1.0f32, 2.0], [3.0, 4.0]]);
    assert_matches(&(x * Array::<f32>::from(2.5)), &c["output"]);
}

#[test]
fn weak_flag_follows_jax() {
    let x = Array::<i32, 2>::ones();
    assert!((&x + 1.0).weak_type()); // i32 + weak float -> weak f32
    assert!(!(&x + 1).weak_type()); // strong i32 wins
    let w: Array<DefaultFloat, 2> = &x + 1.0; // weak default float
    assert!((-&w).weak_type()); // unary ops keep the flag
    assert!((&w * 2.0).weak_type()); // weak with weak stays weak
    assert!(!(&w * Array::<DefaultFloat, 2>::ones()).weak_type()); // strong float wins
    assert!(!x.gt(0).weak_type());
    assert!(!w.gt(0).weak_type()); // bool results are never weak
}

// ---- promotion.json `expr` cases about operators ----

#[test]
fn bool_plus_and_times_are_or_and_and() {
    let t = Array::<bool, 2>::ones();
    assert_matches(
        &(&t + &t),
        &value("promotion", &config_id("op:bool_plus_bool")),
    );
    assert_matches(
        &(&t * &t),
        &value("promotion", &config_id("op:bool_times_bool")),
    );
    let f = Array::<bool, 2>::from([true, false]);
    assert_eq!((&f + &f.clone().not_()).to_vec(), [true, true]);
    assert_eq!((&f * &f.clone().not_()).to_vec(), [false, false]);
    // op:bool_minus_bool is a TypeError in JAX and a compile error here (see
    // the compile_fail example in the `ops` module docs).
    let err = &case("promotion", &config_id("op:bool_minus_bool"))["result"]["error"]["message"];
    assert!(err
        .as_str()
        .unwrap()
        .starts_with("sub does not accept dtype bool"));
}

trait NotExt {
    fn not_(self) -> Self;
}
impl NotExt for Array<bool, 2> {
    fn not_(self) -> Self {
        !self
    }
}

#[test]
fn true_divide_and_floor_divide() {
    let i = Array::<i32, 2>::ones();
    let d: Array<f32, 2> = jnp::divide(&i, &i);
    assert_matches(&d, &value("promotion", &config_id("op:true_divide_int32")));
    let u = Array::<u8, 2>::ones();
    let d: Array<f32, 2> = jnp::divide(&u, &u);
    assert_matches(&d, &value("promotion", &config_id("op:true_divide_uint8")));
    let i8s = Array::<i8, 2>::ones();
    assert_matches(
        &jnp::divide(&i8s, 2),
        &value("promotion", &config_id("op:true_divide_int_literal")),
    );
    let q: Array<i32, 2> = jnp::floor_divide(&i, &i);
    assert_matches(&q, &value("promotion", &config_id("op:floor_divide_int32")));
}

#[test]
fn float_math_on_ints_promotes() {
    assert_matches(
        &jnp::sqrt(Array::<i32, 2>::ones()),
        &value("promotion", &config_id("op:sqrt_int32")),
    );
    assert_matches(
        &jnp::sqrt(Array::<i8, 2>::ones()),
        &value("promotion", &config_id("op:sqrt_int8")),
    );
    assert_matches(
        &jnp::sqrt(Array::<u16, 2>::ones()),
        &value("promotion", &config_id("op:sqrt_uint16")),
    );
    assert_matches(
        &jnp::sin(Array::<bool, 2>::ones()),
        &value("promotion", &config_id("op:sin_bool")),
    );
}

#[test]
#[should_panic(
    expected = "Integers cannot be raised to negative powers, got integer_pow(int32[2], -1)"
)]
fn power_of_int_by_negative_literal_panics() {
    let msg = case("promotion", &config_id("op:power_int_negative"))["result"]["error"]["message"]
        .clone();
    assert_eq!(
        msg,
        "Integers cannot be raised to negative powers, got integer_pow(int32[2], -1)"
    );
    let _ = jnp::power(Array::<i32, 2>::ones(), -1);
}

#[test]
fn where_with_literals() {
    let c = Array::<bool, 2>::ones();
    let w: Array<DefaultFloat, 2> = jnp::where_(&c, Array::<i32, 2>::ones(), 0.0);
    assert_matches(
        &w,
        &value("promotion", &config_id("op:where_int32_float_literal")),
    );
    let w: Array<f16, 2> = jnp::where_(&c, Array::<f16, 2>::ones(), 0);
    assert_matches(
        &w,
        &value("promotion", &config_id("op:where_float16_int_literal")),
    );
}

#[test]
fn weak_literal_overflow_wraps() {
    let u8s = Array::<u8, 2>::ones();
    assert_matches(
        &(&u8s + 256),
        &value("promotion", &config_id("overflow:uint8+256")),
    );
    assert_matches(
        &(&u8s + 255),
        &value("promotion", &config_id("overflow:uint8+255")),
    );
    assert_matches(
        &(&u8s + -1),
        &value("promotion", &config_id("overflow:uint8+-1")),
    );
    let i8s = Array::<i8, 2>::ones();
    assert_matches(
        &(&i8s + 128),
        &value("promotion", &config_id("overflow:int8+128")),
    );
    assert_matches(
        &(&i8s + -129),
        &value("promotion", &config_id("overflow:int8+-129")),
    );
    assert_matches(
        &(&i8s + 1e10),
        &value("promotion", &config_id("overflow:int8+1e10")),
    );
    let f16s = Array::<f16, 2>::ones();
    assert_matches(
        &(&f16s + 1e6),
        &value("promotion", &config_id("overflow:float16+1e6")),
    );
    // overflow:int32+2**31 is an OverflowError in JAX; in Rust the literal
    // 2147483648 does not fit the default i32 and is rejected at compile time.
}

// ---- seed_examples.json ----

#[test]
fn int32_wraparound() {
    let x = Array::<i32>::from(i32::MAX);
    assert_matches(&(x + 1), &seed_output("int32_wraparound"));
}

#[test]
fn integer_division_by_zero() {
    let out = seed_output("integer_division_by_zero");
    let x = Array::<i32, 3>::from([1, -1, 0]);
    let q: Array<i32, 3> = jnp::floor_divide(&x, 0);
    let r: Array<i32, 3> = jnp::remainder(&x, 0);
    assert_matches(&q, &out["items"][0]);
    assert_matches(&r, &out["items"][1]);
    // The operators are lax.div / lax.rem: no panic either.
    assert_eq!((&x / 0).to_vec(), [-1, -1, -1]);
    assert_eq!((&x % 0).to_vec(), [1, -1, 0]);
}

#[test]
fn float_division_by_zero() {
    let x = Array::<f32, 3>::from([1.0, -1.0, 0.0]);
    let out = seed_output("float_division_by_zero");
    let got: Array<f32, 3> = &x / 0.0;
    // inf, -inf exactly; 0/0 is NaN (x86 gives JAX's negative quiet NaN bits).
    assert_eq!(got.to_vec()[..2], [f32::INFINITY, f32::NEG_INFINITY]);
    assert!(got.to_vec()[2].is_nan());
    if cfg!(target_arch = "x86_64") {
        assert_matches(&got, &out);
    }
}

#[test]
fn maximum_with_nan() {
    let a = Array::<f32, 2>::from([1.0, f32::NAN]);
    let b = Array::<f32, 2>::from([f32::NAN, 2.0]);
    let m: Array<f32, 2> = jnp::maximum(&a, &b);
    assert_matches(&m, &seed_output("maximum_with_nan"));
}

#[test]
fn nansum_where() {
    let x = Array::<f32, 5>::from([1.0, 2.0, f32::NAN, 3.0, 4.0]);
    let kept: Array<f32, 5> = jnp::where_(!jnp::isnan(&x), &x, 0);
    let total: f32 = kept.as_slice().iter().sum();
    assert_matches(&Array::<f32>::from(total), &seed_output("nansum_where"));
}

// ---- properties ----

proptest! {
    #[test]
    fn add_then_subtract_is_identity(
        x in prop::array::uniform8(any::<i32>()),
        y in prop::array::uniform8(any::<i32>()),
    ) {
        let (x, y) = (Array::from(x), Array::from(y));
        prop_assert_eq!((&x + &y - &y).to_vec(), x.to_vec());
    }

    #[test]
    fn double_negation_is_identity(
        x in prop::array::uniform8(any::<i8>()),
        f in prop::array::uniform4(any::<f32>()),
    ) {
        let x = Array::from(x);
        prop_assert_eq!((-(-&x)).to_vec(), x.to_vec());
        let f = Array::from(f);
        let back = -(-&f);
        prop_assert!(back.as_slice().iter().zip(f.as_slice()).all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    #[test]
    fn operators_agree_with_jnp_and_lax(
        x in prop::array::uniform8(any::<i16>()),
        y in prop::array::uniform8(any::<i16>()),
    ) {
        let (x, y) = (Array::from(x), Array::from(y));
        let add: Array<i16, 8> = jnp::add(&x, &y);
        let sub: Array<i16, 8> = jnp::subtract(&x, &y);
        let mul: Array<i16, 8> = jnp::multiply(&x, &y);
        let less: Array<bool, 8> = jnp::less(&x, &y);
        prop_assert_eq!((&x + &y).to_vec(), add.to_vec());
        prop_assert_eq!((&x + &y).to_vec(), lax::add(&x, &y).to_vec());
        prop_assert_eq!((&x - &y).to_vec(), sub.to_vec());
        prop_assert_eq!((&x - &y).to_vec(), lax::sub(&x, &y).to_vec());
        prop_assert_eq!((&x * &y).to_vec(), mul.to_vec());
        prop_assert_eq!((&x * &y).to_vec(), lax::mul(&x, &y).to_vec());
        prop_assert_eq!((&x / &y).to_vec(), lax::div(&x, &y).to_vec());
        prop_assert_eq!((&x % &y).to_vec(), lax::rem(&x, &y).to_vec());
        prop_assert_eq!((&x & &y).to_vec(), lax::bitwise_and(&x, &y).to_vec());
        prop_assert_eq!((&x | &y).to_vec(), lax::bitwise_or(&x, &y).to_vec());
        prop_assert_eq!((&x ^ &y).to_vec(), lax::bitwise_xor(&x, &y).to_vec());
        prop_assert_eq!((-&x).to_vec(), lax::neg(&x).to_vec());
        prop_assert_eq!((!&x).to_vec(), lax::bitwise_not(&x).to_vec());
        prop_assert_eq!(x.lt(&y).to_vec(), lax::lt(&x, &y).to_vec());
        prop_assert_eq!(x.lt(&y).to_vec(), less.to_vec());
        prop_assert_eq!(x.ge(&y).to_vec(), lax::ge(&x, &y).to_vec());
        prop_assert_eq!(x.eq_(&y).to_vec(), lax::eq(&x, &y).to_vec());
        prop_assert_eq!(x.ne_(&y).to_vec(), lax::ne(&x, &y).to_vec());
        // Truncating and floor division agree where the signs match.
        let fd: Array<i16, 8> = jnp::floor_divide(&x, &y);
        for k in 0..8 {
            let (a, b) = (x.as_slice()[k], y.as_slice()[k]);
            if b != 0 && (a >= 0) == (b > 0) && !(a == i16::MIN && b == -1) {
                prop_assert_eq!(fd.as_slice()[k], a / b);
            }
        }
    }

    #[test]
    fn float_operators_agree_with_jnp(
        x in prop::array::uniform8(-1e6f32..1e6),
        y in prop::array::uniform8(-1e6f32..1e6),
    ) {
        let (x, y) = (Array::from(x), Array::from(y));
        let div: Array<f32, 8> = jnp::divide(&x, &y);
        let max: Array<f32, 8> = jnp::maximum(&x, &y);
        let left: Array<f32, 8> = 2.0 * &x;
        prop_assert_eq!((&x / &y).to_vec(), div.to_vec());
        prop_assert_eq!((&x / &y).to_vec(), lax::div(&x, &y).to_vec());
        prop_assert_eq!(max.to_vec(), lax::max(&x, &y).to_vec());
        prop_assert_eq!((&x * 2.0).to_vec(), jnp::multiply(&x, 2.0).to_vec());
        prop_assert_eq!(left.to_vec(), jnp::multiply(2.0, &x).to_vec());
    }
}
