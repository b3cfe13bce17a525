//! One API (branch `einsum`): each function below is called inside a
//! `#[jax::jit]` function and compared with the eager call of the same name
//! on the same inputs (f32 and integer inputs; exact equality, since both
//! compute the same operations in the same order).

use jax::prelude::*;

fn f32s<const M: usize, const N: usize>(seed: i32) -> Array<f32, M, N> {
    Array::from_data(
        (0..(M * N) as i32)
            .map(|i| ((i * (7 + 2 * seed)) % 11 - 4) as f32 * 0.37)
            .collect(),
    )
}

fn vec_f32<const N: usize>(seed: i32) -> Array<f32, N> {
    Array::from_data(
        (0..N as i32)
            .map(|i| ((i * (5 + seed)) % 7 - 3) as f32 * 0.61)
            .collect(),
    )
}

fn ints<const M: usize, const N: usize>() -> Array<i32, M, N> {
    Array::from_data((0..(M * N) as i32).map(|i| i * 3 % 7 - 2).collect())
}

fn cube() -> Array<f32, 2, 3, 4> {
    Array::from_data((0..24).map(|i| (i % 5) as f32 - 1.5).collect())
}

#[jax::jit]
fn einsum_matmul(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>) -> Array<f32, 2, 4> {
    jnp::einsum("ij,jk->ik", (&a, &b))
}

#[jax::jit]
fn einsum_three(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>, c: Array<f32, 4, 2>) -> Array<f32> {
    jnp::einsum("ij,jk,ki->", (&a, &b, &c))
}

#[jax::jit]
fn einsum_ints(a: Array<i32, 3, 3>) -> Array<i32, 3> {
    jnp::einsum("ii->i", (&a,))
}

#[test]
fn einsum_agrees() {
    let (a, b, c) = (f32s::<2, 3>(0), f32s::<3, 4>(1), f32s::<4, 2>(2));
    let eager: Array<f32, 2, 4> = jnp::einsum("ij,jk->ik", (&a, &b));
    assert_eq!(einsum_matmul(a.clone(), b.clone()).to_vec(), eager.to_vec());
    let eager: Array<f32> = jnp::einsum("ij,jk,ki->", (&a, &b, &c));
    assert_eq!(einsum_three(a, b, c).to_vec(), eager.to_vec());
    let m = ints::<3, 3>();
    let eager: Array<i32, 3> = jnp::einsum("ii->i", (&m,));
    assert_eq!(einsum_ints(m).to_vec(), eager.to_vec());
}

#[jax::jit]
fn outer(a: Array<f32, 3>, b: Array<f32, 4>) -> Array<f32, 3, 4> {
    jnp::outer(&a, &b)
}

#[jax::jit]
fn vdot(a: Array<f32, 5>, b: Array<f32, 5>) -> Array<f32> {
    jnp::vdot(&a, &b)
}

#[jax::jit]
fn inner(a: Array<i32, 4>, b: Array<i32, 4>) -> Array<i32> {
    jnp::inner(&a, &b)
}

#[jax::jit]
fn batch_matmul(a: Array<f32, 2, 3, 4>, b: Array<f32, 2, 4, 5>) -> Array<f32, 2, 3, 5> {
    jnp::batch_matmul(&a, &b)
}

#[jax::jit]
fn lax_batch_matmul(a: Array<f32, 2, 3, 4>, b: Array<f32, 2, 4, 5>) -> Array<f32, 2, 3, 5> {
    lax::batch_matmul(&a, &b)
}

#[test]
fn products_agree() {
    let (a, b) = (vec_f32::<3>(0), vec_f32::<4>(1));
    assert_eq!(
        outer(a.clone(), b.clone()).to_vec(),
        jnp::outer(&a, &b).to_vec()
    );
    let (a, b) = (vec_f32::<5>(0), vec_f32::<5>(2));
    assert_eq!(
        vdot(a.clone(), b.clone()).to_vec(),
        jnp::vdot(&a, &b).to_vec()
    );
    let (a, b) = (
        Array::<i32, 4>::from([1, -2, 3, 4]),
        Array::<i32, 4>::from([5, 6, -7, 8]),
    );
    assert_eq!(
        inner(a.clone(), b.clone()).to_vec(),
        jnp::inner(&a, &b).to_vec()
    );
    let a = cube();
    let b: Array<f32, 2, 4, 5> =
        Array::from_data((0..40).map(|i| (i % 7) as f32 * 0.5 - 1.0).collect());
    assert_eq!(
        batch_matmul(a.clone(), b.clone()).to_vec(),
        jnp::batch_matmul(&a, &b).to_vec()
    );
    assert_eq!(
        lax_batch_matmul(a.clone(), b.clone()).to_vec(),
        lax::batch_matmul(&a, &b).to_vec()
    );
}

#[jax::jit]
fn swapaxes(x: Array<f32, 2, 3, 4>) -> Array<f32, 4, 3, 2> {
    jnp::swapaxes(&x, 0, 2)
}

#[jax::jit]
fn moveaxis(x: Array<f32, 2, 3, 4>) -> Array<f32, 3, 4, 2> {
    jnp::moveaxis(&x, 0, -1)
}

#[jax::jit]
fn transpose_axes(x: Array<f32, 2, 3, 4>) -> Array<f32, 3, 2, 4> {
    jnp::transpose_axes(&x, &[1, 0, 2])
}

#[jax::jit]
fn squeeze_axis(x: Array<i32, 2, 1, 3>) -> Array<i32, 2, 3> {
    jnp::squeeze_axis(&x, 1)
}

#[test]
fn axes_agree() {
    let x = cube();
    let e: Array<f32, 4, 3, 2> = jnp::swapaxes(&x, 0, 2);
    assert_eq!(swapaxes(x.clone()).to_vec(), e.to_vec());
    let e: Array<f32, 3, 4, 2> = jnp::moveaxis(&x, 0, -1);
    assert_eq!(moveaxis(x.clone()).to_vec(), e.to_vec());
    let e: Array<f32, 3, 2, 4> = jnp::transpose_axes(&x, &[1, 0, 2]);
    assert_eq!(transpose_axes(x).to_vec(), e.to_vec());
    let x: Array<i32, 2, 1, 3> = Array::from_data(vec![1, 2, 3, 4, 5, 6]);
    let e: Array<i32, 2, 3> = jnp::squeeze_axis(&x, 1);
    assert_eq!(squeeze_axis(x).to_vec(), e.to_vec());
}

#[jax::jit]
fn repeat_axis(x: Array<f32, 2, 3>) -> Array<f32, 2, 6> {
    jnp::repeat(&x, 2, Some(1))
}

#[jax::jit]
fn repeat_flat(x: Array<i32, 2, 3>) -> Array<i32, 18> {
    jnp::repeat(&x, 3, None)
}

#[jax::jit]
fn tile(x: Array<f32, 2, 3>) -> Array<f32, 2, 4, 3> {
    jnp::tile(&x, &[2, 2, 1])
}

#[jax::jit]
fn roll(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::roll(&x, -4, 1)
}

#[jax::jit]
fn roll_ints(x: Array<i32, 2, 3>) -> Array<i32, 2, 3> {
    jnp::roll(&x, 1, 0)
}

#[test]
fn repeats_and_rolls_agree() {
    let x = f32s::<2, 3>(3);
    let e: Array<f32, 2, 6> = jnp::repeat(&x, 2, Some(1));
    assert_eq!(repeat_axis(x.clone()).to_vec(), e.to_vec());
    let e: Array<f32, 2, 4, 3> = jnp::tile(&x, &[2, 2, 1]);
    assert_eq!(tile(x.clone()).to_vec(), e.to_vec());
    assert_eq!(roll(x.clone()).to_vec(), jnp::roll(&x, -4, 1).to_vec());
    let m = ints::<2, 3>();
    let e: Array<i32, 18> = jnp::repeat(&m, 3, None);
    assert_eq!(repeat_flat(m.clone()).to_vec(), e.to_vec());
    assert_eq!(roll_ints(m.clone()).to_vec(), jnp::roll(&m, 1, 0).to_vec());
}

#[jax::jit]
fn vstack(a: Array<f32, 3>, b: Array<f32, 3>) -> Array<f32, 2, 3> {
    jnp::vstack((&a, &b))
}

#[jax::jit]
fn hstack(a: Array<i32, 2, 3>, b: Array<i32, 2, 3>) -> Array<i32, 2, 6> {
    jnp::hstack((&a, &b))
}

#[jax::jit]
fn atleast_1d(s: Array<f32>) -> Array<f32, 1> {
    jnp::atleast_1d(&s)
}

#[jax::jit]
fn meshgrid(x: Array<f32, 3>, y: Array<f32, 2>) -> (Array<f32, 2, 3>, Array<f32, 2, 3>) {
    jnp::meshgrid(&x, &y)
}

#[test]
fn stacks_and_grids_agree() {
    let (a, b) = (vec_f32::<3>(0), vec_f32::<3>(1));
    let e: Array<f32, 2, 3> = jnp::vstack((&a, &b));
    assert_eq!(vstack(a.clone(), b.clone()).to_vec(), e.to_vec());
    let (m, n): (Array<i32, 2, 3>, Array<i32, 2, 3>) =
        (ints(), Array::from_data(vec![9, 8, 7, -6, 5, 4]));
    let e: Array<i32, 2, 6> = jnp::hstack((&m, &n));
    assert_eq!(hstack(m, n).to_vec(), e.to_vec());
    let s = Array::<f32>::from(1.25);
    let e: Array<f32, 1> = jnp::atleast_1d(&s);
    assert_eq!(atleast_1d(s).to_vec(), e.to_vec());
    let (x, y) = (vec_f32::<3>(2), vec_f32::<2>(3));
    let (gx, gy) = meshgrid(x.clone(), y.clone());
    let (ex, ey) = jnp::meshgrid(&x, &y);
    assert_eq!((gx.to_vec(), gy.to_vec()), (ex.to_vec(), ey.to_vec()));
}

#[jax::jit]
fn lax_slice(x: Array<f32, 4, 5>) -> Array<f32, 2, 2> {
    lax::slice(&x, &[1, 0], &[3, 4], Some(&[1, 2]))
}

#[jax::jit]
fn lax_slice_unit(x: Array<i32, 2, 3>) -> Array<i32, 1, 2> {
    lax::slice(&x, &[1, 1], &[2, 3], None)
}

#[jax::jit]
fn lax_broadcast_in_dim(x: Array<f32, 3>) -> Array<f32, 2, 3> {
    lax::broadcast_in_dim(&x, &[1])
}

#[test]
fn lax_views_agree() {
    let x = f32s::<4, 5>(1);
    let e: Array<f32, 2, 2> = lax::slice(&x, &[1, 0], &[3, 4], Some(&[1, 2]));
    assert_eq!(lax_slice(x).to_vec(), e.to_vec());
    let m = ints::<2, 3>();
    let e: Array<i32, 1, 2> = lax::slice(&m, &[1, 1], &[2, 3], None);
    assert_eq!(lax_slice_unit(m).to_vec(), e.to_vec());
    let v = vec_f32::<3>(4);
    let e: Array<f32, 2, 3> = lax::broadcast_in_dim(&v, &[1]);
    assert_eq!(lax_broadcast_in_dim(v).to_vec(), e.to_vec());
}

#[jax::jit]
fn flip(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::flip(&x, 1)
}

#[jax::jit]
fn flip_all(x: Array<i32, 2, 3>) -> Array<i32, 2, 3> {
    jnp::flip_all(&x)
}

#[jax::jit]
fn lax_rev(x: Array<f32, 2, 3, 4>) -> Array<f32, 2, 3, 4> {
    lax::rev(&x, &[0, 2])
}

#[jax::jit]
fn jnp_pad(x: Array<f32, 2, 3>) -> Array<f32, 5, 4> {
    jnp::pad(&x, &[(1, 2), (0, 1)])
}

#[jax::jit]
fn lax_pad(x: Array<f32, 2, 3>) -> Array<f32, 4, 5> {
    lax::pad(&x, -1.5, &[(1, 0, 1), (-1, 1, 1)])
}

#[jax::jit]
fn lax_pad_ints(x: Array<i32, 2, 3>) -> Array<i32, 3, 3> {
    lax::pad(&x, 7, &[(0, 1, 0), (0, 0, 0)])
}

#[test]
fn flips_and_pads_agree() {
    let x = f32s::<2, 3>(5);
    assert_eq!(flip(x.clone()).to_vec(), jnp::flip(&x, 1).to_vec());
    let m = ints::<2, 3>();
    assert_eq!(flip_all(m.clone()).to_vec(), jnp::flip_all(&m).to_vec());
    let c = cube();
    assert_eq!(lax_rev(c.clone()).to_vec(), lax::rev(&c, &[0, 2]).to_vec());
    let e: Array<f32, 5, 4> = jnp::pad(&x, &[(1, 2), (0, 1)]);
    assert_eq!(jnp_pad(x.clone()).to_vec(), e.to_vec());
    let e: Array<f32, 4, 5> = lax::pad(&x, -1.5, &[(1, 0, 1), (-1, 1, 1)]);
    assert_eq!(lax_pad(x).to_vec(), e.to_vec());
    let e: Array<i32, 3, 3> = lax::pad(&m, 7, &[(0, 1, 0), (0, 0, 0)]);
    assert_eq!(lax_pad_ints(m).to_vec(), e.to_vec());
}

#[jax::jit]
fn jnp_eye() -> Array<f32, 3, 4> {
    jnp::eye()
}

#[jax::jit]
fn array_eye(x: Array<i32, 3, 3>) -> Array<i32, 3, 3> {
    x + Array::<i32, 3, 3>::eye()
}

#[jax::jit]
fn jnp_linspace(lo: Array<f32>) -> Array<f32, 7> {
    jnp::linspace(lo, 2.5)
}

#[jax::jit]
fn array_linspace() -> Array<f32, 6> {
    Array::<f32, 6>::linspace(-1.0, 0.3)
}

#[test]
fn eye_and_linspace_agree() {
    let e: Array<f32, 3, 4> = jnp::eye();
    assert_eq!(jnp_eye().to_vec(), e.to_vec());
    let m = ints::<3, 3>();
    let e = &m + &Array::<i32, 3, 3>::eye();
    assert_eq!(array_eye(m).to_vec(), e.to_vec());
    let e: Array<f32, 7> = jnp::linspace(-0.7, 2.5);
    assert_eq!(jnp_linspace(Array::from(-0.7f32)).to_vec(), e.to_vec());
    let e = Array::<f32, 6>::linspace(-1.0, 0.3);
    assert_eq!(array_linspace().to_vec(), e.to_vec());
}

mod random_inputs {
    //! The same comparisons on random inputs: data movement bit for bit,
    //! contractions within a few ulps (the same kernels; sums may group
    //! differently).
    use super::*;
    use proptest::prelude::*;

    #[jax::jit]
    fn contractions(
        a: Array<f32, 3, 4>,
        b: Array<f32, 4, 5>,
        c: Array<f32, 5, 3>,
    ) -> (Array<f32, 3, 3>, Array<f32, 4>, Array<f32>) {
        (
            jnp::einsum("ij,jk,kl->il", (&a, &b, &c)),
            jnp::einsum("ij,jk,ki->j", (&a, &b, &c)),
            jnp::einsum("ij,jk,ki->", (&a, &b, &c)),
        )
    }

    #[jax::jit]
    fn moves(
        x: Array<f32, 3, 4>,
    ) -> (
        Array<f32, 6, 6>,
        Array<f32, 3, 4>,
        Array<f32, 6, 8>,
        Array<f32, 3, 4>,
    ) {
        (
            lax::pad(&x, 0.5, &[(1, 2, 0), (-1, 0, 1)]),
            jnp::flip(&x, 0),
            jnp::tile(&x, &[2, 2]),
            jnp::roll(&x, 3, 1),
        )
    }

    fn close(what: &str, jit: &[f32], eager: &[f32]) {
        for (i, (j, e)) in jit.iter().zip(eager).enumerate() {
            let tol = 1e-5 * e.abs().max(1.0);
            assert!((j - e).abs() <= tol, "{what}[{i}]: jit {j} vs eager {e}");
        }
    }

    fn array<const M: usize, const N: usize>() -> impl Strategy<Value = Array<f32, M, N>> {
        prop::collection::vec(-10.0f32..10.0, M * N).prop_map(Array::from_data)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        #[test]
        fn einsum_jit_equals_eager(a in array::<3, 4>(), b in array::<4, 5>(), c in array::<5, 3>()) {
            let (chain, diag, total) = contractions(a.clone(), b.clone(), c.clone());
            let e: Array<f32, 3, 3> = jnp::einsum("ij,jk,kl->il", (&a, &b, &c));
            close("chain", chain.data(), e.data());
            let e: Array<f32, 4> = jnp::einsum("ij,jk,ki->j", (&a, &b, &c));
            close("diag", diag.data(), e.data());
            let e: Array<f32> = jnp::einsum("ij,jk,ki->", (&a, &b, &c));
            close("total", total.data(), e.data());
        }

        #[test]
        fn moves_jit_equal_eager(x in array::<3, 4>()) {
            let (p, f, t, r) = moves(x.clone());
            let e: Array<f32, 6, 6> = lax::pad(&x, 0.5, &[(1, 2, 0), (-1, 0, 1)]);
            prop_assert_eq!(p.to_vec(), e.to_vec());
            prop_assert_eq!(f.to_vec(), jnp::flip(&x, 0).to_vec());
            let e: Array<f32, 6, 8> = jnp::tile(&x, &[2, 2]);
            prop_assert_eq!(t.to_vec(), e.to_vec());
            prop_assert_eq!(r.to_vec(), jnp::roll(&x, 3, 1).to_vec());
        }
    }
}
