//! One API: `jnp::linalg::pinv`, `pinv_with`, `matrix_rank`,
//! `matrix_rank_with`, `lstsq`, `norm_with`, `eigh_with` and `svd_with`,
//! jitted, equal their eager calls on the same inputs (f32 and f64,
//! square, tall, wide and batched). Both run the same faer kernel; the
//! arithmetic after it may sum in another order, so floats are compared
//! within a few ulps of the result's scale; ranks exactly.

use jax::jnp::linalg::{
    EighOptions, NormAxis, NormOptions, NormOrd, PinvOptions, SvdOptions, Uplo,
};
use jax::prelude::*;
use jax::DefaultInt;

fn input<A: ArrayType>() -> A
where
    A::Elem: Element,
{
    A::from_data(
        (0..A::SIZE)
            .map(|i| <A::Elem as Element>::from_f64(((i * 7) % 11) as f64 * 0.25 - 1.2))
            .collect(),
    )
}

#[track_caller]
fn same<A: ArrayType>(jit: &A, eager: &A) {
    let (j, e): (Vec<f64>, Vec<f64>) = (
        jit.data().iter().map(|v| v.to_f64()).collect(),
        eager.data().iter().map(|v| v.to_f64()).collect(),
    );
    let f32s = <A::Elem as Element>::DTYPE == jax::DType::F32;
    let tol = if f32s { 1e-5 } else { 1e-13 };
    let scale = e.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for (i, (a, b)) in j.iter().zip(&e).enumerate() {
        assert!((a - b).abs() <= tol * scale, "[{i}]: jit {a}, eager {b}");
    }
}

#[jax::jit]
fn pinv_tall_f32(a: Array<f32, 4, 3>) -> Array<f32, 3, 4> {
    jnp::linalg::pinv(&a)
}

#[jax::jit]
fn pinv_batched_f64(a: Array<f64, 2, 2, 3>) -> Array<f64, 2, 3, 2> {
    jnp::linalg::pinv(&a)
}

#[jax::jit]
fn pinv_with_f64(a: Array<f64, 3, 3>) -> Array<f64, 3, 3> {
    jnp::linalg::pinv_with(
        &a,
        PinvOptions {
            rtol: Some(0.05),
            hermitian: true,
        },
    )
}

#[test]
fn pinv_jit_equals_eager() {
    let a = input::<Array<f32, 4, 3>>();
    same(&pinv_tall_f32(a.clone()), &jnp::linalg::pinv(&a));
    let a = input::<Array<f64, 2, 2, 3>>();
    same(&pinv_batched_f64(a.clone()), &jnp::linalg::pinv(&a));
    let a = input::<Array<f64, 3, 3>>();
    let opts = PinvOptions {
        rtol: Some(0.05),
        hermitian: true,
    };
    same(&pinv_with_f64(a.clone()), &jnp::linalg::pinv_with(&a, opts));
}

#[jax::jit]
fn rank_f32(a: Array<f32, 3, 4>) -> Array<DefaultInt> {
    jnp::linalg::matrix_rank(&a)
}

#[jax::jit]
fn rank_batched_f64(a: Array<f64, 2, 3, 3>) -> Array<DefaultInt, 2> {
    jnp::linalg::matrix_rank(&a)
}

#[jax::jit]
fn rank_with_f64(a: Array<f64, 3, 3>) -> Array<DefaultInt> {
    jnp::linalg::matrix_rank_with(&a, 0.5)
}

#[test]
fn matrix_rank_jit_equals_eager() {
    let a = input::<Array<f32, 3, 4>>();
    let eager: Array<DefaultInt> = jnp::linalg::matrix_rank(&a);
    assert_eq!(rank_f32(a).to_vec(), eager.to_vec());
    let a = input::<Array<f64, 2, 3, 3>>();
    let eager: Array<DefaultInt, 2> = jnp::linalg::matrix_rank(&a);
    assert_eq!(rank_batched_f64(a).to_vec(), eager.to_vec());
    let a = input::<Array<f64, 3, 3>>();
    let eager: Array<DefaultInt> = jnp::linalg::matrix_rank_with(&a, 0.5);
    assert_eq!(rank_with_f64(a).to_vec(), eager.to_vec());
}

type Lstsq<T, const N: usize, const K: usize> =
    (Array<T, N, K>, Array<T, K>, Array<DefaultInt>, Array<T, N>);

#[jax::jit]
fn lstsq_f64(
    a: Array<f64, 4, 3>,
    b: Array<f64, 4, 2>,
) -> (
    Array<f64, 3, 2>,
    Array<f64, 2>,
    Array<DefaultInt>,
    Array<f64, 3>,
) {
    jnp::linalg::lstsq(&a, &b)
}

#[jax::jit]
fn lstsq_vec_f32(
    a: Array<f32, 3, 3>,
    b: Array<f32, 3>,
) -> (
    Array<f32, 3>,
    Array<f32, 1>,
    Array<DefaultInt>,
    Array<f32, 3>,
) {
    jnp::linalg::lstsq(&a, &b)
}

#[test]
fn lstsq_jit_equals_eager() {
    let (a, b) = (input::<Array<f64, 4, 3>>(), input::<Array<f64, 4, 2>>());
    let eager: Lstsq<f64, 3, 2> = jnp::linalg::lstsq(&a, &b);
    let jit = lstsq_f64(a, b);
    same(&jit.0, &eager.0);
    same(&jit.1, &eager.1);
    assert_eq!(jit.2.to_vec(), eager.2.to_vec());
    same(&jit.3, &eager.3);
    let (a, b) = (input::<Array<f32, 3, 3>>(), input::<Array<f32, 3>>());
    let eager: (
        Array<f32, 3>,
        Array<f32, 1>,
        Array<DefaultInt>,
        Array<f32, 3>,
    ) = jnp::linalg::lstsq(&a, &b);
    let jit = lstsq_vec_f32(a, b);
    same(&jit.0, &eager.0);
    assert_eq!(jit.2.to_vec(), eager.2.to_vec());
    same(&jit.3, &eager.3);
}

#[jax::jit]
fn norm_nuc_f32(x: Array<f32, 3, 4>) -> Array<f32> {
    jnp::linalg::norm_with(
        &x,
        NormOptions {
            ord: NormOrd::Nuc,
            ..Default::default()
        },
    )
}

#[jax::jit]
fn norm_rows_f64(x: Array<f64, 2, 3, 4>) -> Array<f64, 2, 1, 4> {
    jnp::linalg::norm_with(
        &x,
        NormOptions {
            ord: NormOrd::P(3.0),
            axis: NormAxis::Vector(1),
            keepdims: true,
        },
    )
}

#[jax::jit]
fn norm_inf_batched_f64(x: Array<f64, 2, 3, 4>) -> Array<f64, 2> {
    jnp::linalg::norm_with(
        &x,
        NormOptions {
            ord: NormOrd::Inf,
            axis: NormAxis::Matrix(-2, -1),
            keepdims: false,
        },
    )
}

#[test]
fn norm_with_jit_equals_eager() {
    let x = input::<Array<f32, 3, 4>>();
    let opts = NormOptions {
        ord: NormOrd::Nuc,
        ..Default::default()
    };
    same(&norm_nuc_f32(x.clone()), &jnp::linalg::norm_with(&x, opts));
    let x = input::<Array<f64, 2, 3, 4>>();
    let opts = NormOptions {
        ord: NormOrd::P(3.0),
        axis: NormAxis::Vector(1),
        keepdims: true,
    };
    same(&norm_rows_f64(x.clone()), &jnp::linalg::norm_with(&x, opts));
    let opts = NormOptions {
        ord: NormOrd::Inf,
        axis: NormAxis::Matrix(-2, -1),
        keepdims: false,
    };
    same(
        &norm_inf_batched_f64(x.clone()),
        &jnp::linalg::norm_with(&x, opts),
    );
}

#[jax::jit]
fn eigh_upper_f64(a: Array<f64, 3, 3>) -> (Array<f64, 3>, Array<f64, 3, 3>) {
    jnp::linalg::eigh_with(
        &a,
        EighOptions {
            uplo: Uplo::U,
            symmetrize_input: false,
        },
    )
}

#[jax::jit]
fn svd_thin_f32(
    a: Array<f32, 2, 4, 3>,
) -> (Array<f32, 2, 4, 3>, Array<f32, 2, 3>, Array<f32, 2, 3, 3>) {
    jnp::linalg::svd_with(
        &a,
        SvdOptions {
            full_matrices: false,
            hermitian: false,
        },
    )
}

#[test]
fn eigh_with_and_svd_with_jit_equal_eager() {
    let a = input::<Array<f64, 3, 3>>();
    let opts = EighOptions {
        uplo: Uplo::U,
        symmetrize_input: false,
    };
    let eager: (Array<f64, 3>, Array<f64, 3, 3>) = jnp::linalg::eigh_with(&a, opts);
    let jit = eigh_upper_f64(a);
    same(&jit.0, &eager.0);
    same(&jit.1, &eager.1);
    let a = input::<Array<f32, 2, 4, 3>>();
    let opts = SvdOptions {
        full_matrices: false,
        hermitian: false,
    };
    let eager: (Array<f32, 2, 4, 3>, Array<f32, 2, 3>, Array<f32, 2, 3, 3>) =
        jnp::linalg::svd_with(&a, opts);
    let jit = svd_thin_f32(a);
    same(&jit.0, &eager.0);
    same(&jit.1, &eager.1);
    same(&jit.2, &eager.2);
}
