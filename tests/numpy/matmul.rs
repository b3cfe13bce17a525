//! Matrix products against JAX (`tests/fixtures/reduce.json`, `promotion.json`)
//! and their algebraic properties.

use crate::common;
use crate::reduce_common;

use jax::prelude::*;
use proptest::prelude::*;
use reduce_common::Fixture;

#[test]
fn products_match_jax() {
    let fx = Fixture::load();
    let a34: Array<f32, 3, 4> = fx.input("a34");
    let b45: Array<f32, 4, 5> = fx.input("b45");
    let v4: Array<f32, 4> = fx.input("v4");
    let v3: Array<f32, 3> = fx.input("v3");
    let c234: Array<f32, 2, 3, 4> = fx.input("c234");
    let d245: Array<f32, 2, 4, 5> = fx.input("d245");
    let h34: Array<f16, 3, 4> = fx.input("h34");
    let h42: Array<f16, 4, 2> = fx.input("h42");
    let i34: Array<i32, 3, 4> = fx.input("i34");
    let i45: Array<i32, 4, 5> = fx.input("i45");
    let s34: Array<i8, 3, 4> = fx.input("s34");
    let s45: Array<i8, 4, 5> = fx.input("s45");
    let g45: Array<f16, 4, 5> = fx.input("g45");
    let a43: Array<f32, 4, 3> = fx.input("a43");

    fx.check("matmul|a34|b45", &a34.matmul(&b45), false);
    fx.check("matmul|a34|v4", &jnp::matmul(&a34, &v4), false);
    fx.check("matmul|v4|b45", &jnp::matmul(&v4, &b45), false);
    fx.check("matmul|v4|v4", &jnp::dot(&v4, &v4), false);
    fx.check(
        "batch_matmul|c234|d245",
        &jnp::batch_matmul(&c234, &d245),
        false,
    );
    fx.check(
        "batch_matmul|c234|d245",
        &lax::batch_matmul(&c234, &d245),
        false,
    );
    fx.check("matmul|h34|h42", &h34.matmul(&h42), false);
    fx.check("matmul|i34|i45", &i34.matmul(&i45), true);
    fx.check("matmul|s34|s45", &s34.matmul(&s45), true); // wraps in i8
    fx.check("matmul|s34|g45", &s34.matmul(&g45), false);
    fx.check("matmul|a34|g45", &a34.matmul(&g45), false);
    fx.check("outer|v3|v4", &jnp::outer(&v3, &v4), false);
    fx.check("vdot|v4|v4", &jnp::vdot(&v4, &v4), false);
    fx.check("vdot|v4|v4", &jnp::inner(&v4, &v4), false);
    let tn: Array<f32, 3, 5> = lax::dot_general(&a43, &b45, ((&[0], &[0]), (&[], &[])));
    fx.check("dot_general_tn|a43|b45", &tn, false);
    let bd: Array<f32, 2, 3, 5> = lax::dot_general(&c234, &d245, ((&[2], &[1]), (&[0], &[0])));
    fx.check("dot_general_batch|c234|d245", &bd, false);
    fx.check("matmul|a34|b45", &lax::dot(&a34, &b45), false);
    fx.check("matmul|a34|v4", &lax::dot(&a34, &v4), false);

    fx.assert_all_visited(|c| c["kind"] == "product");
    fx.assert_no_failures();
}

#[test]
fn promotion_cases() {
    let config = if cfg!(feature = "x64") {
        "x64_on"
    } else {
        "x64_off"
    };
    let want =
        &common::case("promotion", &format!("op:matmul_int8_float16@{config}"))["result"]["value"];
    let c = jnp::matmul(Array::<i8, 2, 2>::ones(), Array::<f16, 2, 2>::ones());
    common::assert_matches(&c, want);
}

fn naive<const M: usize, const K: usize, const N: usize>(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; M * N];
    for i in 0..M {
        for j in 0..N {
            for p in 0..K {
                c[i * N + j] += a[i * K + p] * b[p * N + j];
            }
        }
    }
    c
}

fn small() -> impl Strategy<Value = f32> {
    // Multiples of 1/4 up to 16 in size: products and short sums are exact in f32.
    (-64i32..=64).prop_map(|i| i as f32 / 4.0)
}

proptest! {
    #[test]
    fn matmul_is_the_triple_loop(
        a in proptest::collection::vec(small(), 5 * 7),
        b in proptest::collection::vec(small(), 7 * 3),
    ) {
        let x = Array::<f32, 5, 7>::from_vec(a.clone()).unwrap();
        let w = Array::<f32, 7, 3>::from_vec(b.clone()).unwrap();
        let a64: Vec<f64> = a.iter().map(|&v| v as f64).collect();
        let b64: Vec<f64> = b.iter().map(|&v| v as f64).collect();
        let want: Vec<f32> = naive::<5, 7, 3>(&a64, &b64).iter().map(|&v| v as f32).collect();
        prop_assert_eq!(x.matmul(&w).to_vec(), want.clone());
        // The integer loop kernel on the same values times 4 (exact).
        let xi = Array::<i32, 5, 7>::from_fn(|i| (a[i] * 4.0) as i32);
        let wi = Array::<i32, 7, 3>::from_fn(|i| (b[i] * 4.0) as i32);
        let scaled: Vec<i32> = want.iter().map(|&v| (v * 16.0) as i32).collect();
        prop_assert_eq!(xi.matmul(&wi).to_vec(), scaled);
        let x64 = x.astype::<f64>();
        let w64 = w.astype::<f64>();
        prop_assert_eq!(x64.matmul(&w64).to_vec(), naive::<5, 7, 3>(&a64, &b64));
    }

    #[test]
    fn transpose_twice_is_identity(v in proptest::collection::vec(any::<i32>(), 12)) {
        let x = Array::<i32, 3, 4>::from_vec(v).unwrap();
        prop_assert_eq!(x.t().t(), x);
    }

    #[test]
    fn transpose_of_product(
        a in proptest::collection::vec(small(), 4 * 6),
        b in proptest::collection::vec(small(), 6 * 2),
    ) {
        let x = Array::<f32, 4, 6>::from_vec(a).unwrap();
        let w = Array::<f32, 6, 2>::from_vec(b).unwrap();
        prop_assert_eq!(x.matmul(&w).t(), w.t().matmul(x.t()));
    }

    #[test]
    fn dot_general_equals_matmul_of_transposes(
        a in proptest::collection::vec(small(), 6 * 4),
        b in proptest::collection::vec(small(), 3 * 6),
    ) {
        // aᵀ bᵀ through strides on both operands.
        let x = Array::<f32, 6, 4>::from_vec(a).unwrap();
        let w = Array::<f32, 3, 6>::from_vec(b).unwrap();
        let got: Array<f32, 4, 3> = lax::dot_general(&x, &w, ((&[0], &[1]), (&[], &[])));
        prop_assert_eq!(got, x.t().matmul(w.t()));
    }
}
