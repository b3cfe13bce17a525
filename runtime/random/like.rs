//! `random::normal_like(key, &x)` and `random::uniform_like(key, &x)`:
//! JAX's `random.normal(key, x.shape, x.dtype)` and `random.uniform(..)`
//! where the shape is a value's rather than a written type's. A
//! `jax::tree::map` closure needs them: its leaves have shapes of their own
//! (JAX's DP-SGD adds `random.normal(rng, n.shape)` to every leaf of a
//! gradient). Typed arrays and the `DynArray` leaves of the eager
//! `tree::map` both draw what `normal::<A>` draws for their shape.

use half::{bf16, f16};

use super::continuous::normal_of_block;
use super::{fill, fills, Continuous, Key, Uniform, THREEFRY_COST};
use crate::array::ArrayType;
use crate::tree::{DynArray, DynData};

/// A value whose shape and float dtype a sample can take: a typed array
/// (`Array<T, ...>` of a float `T`) or a pytree leaf (`DynArray`).
pub trait SampleLike: Sized {
    /// `normal` in `like`'s shape and dtype.
    #[doc(hidden)]
    fn normal_like(k: Key, like: &Self) -> Self;
    /// `uniform` in `like`'s shape and dtype.
    #[doc(hidden)]
    fn uniform_like(k: Key, like: &Self) -> Self;
}

impl<A: ArrayType> SampleLike for A
where
    A::Elem: Continuous,
{
    fn normal_like(k: Key, _: &A) -> A {
        super::normal(k)
    }
    fn uniform_like(k: Key, _: &A) -> A {
        super::uniform(k)
    }
}

fn normal_vec<T: Continuous>(k: Key, n: usize) -> Vec<T> {
    if let Some(v) = fills::normal(k, n) {
        return v;
    }
    fill!(k, n, cost THREEFRY_COST + super::continuous::TRANSFORM_COST, |y| {
        normal_of_block(y)
    })
}

fn uniform_vec<T: Uniform>(k: Key, n: usize) -> Vec<T> {
    if let Some(v) = fills::uniform(k, n) {
        return v;
    }
    fill!(k, n, cost THREEFRY_COST, |y| T::unit(y))
}

/// A sample in `like`'s shape and float dtype: `normal` or `uniform`.
fn dyn_sample(k: Key, like: &DynArray, normal: bool, name: &str) -> DynArray {
    let n = like.size();
    macro_rules! draw {
        ($t:ty) => {
            if normal {
                normal_vec::<$t>(k, n)
            } else {
                uniform_vec::<$t>(k, n)
            }
        };
    }
    let data = match like.data() {
        DynData::F32(_) => DynData::F32(draw!(f32)),
        DynData::F64(_) => DynData::F64(draw!(f64)),
        DynData::BF16(_) => DynData::BF16(draw!(bf16)),
        DynData::F16(_) => DynData::F16(draw!(f16)),
        other => panic!(
            "`random::{name}` draws floats like its second argument, which holds {:?}: pass a float array",
            other.dtype()
        ),
    };
    DynArray::new(like.shape().to_vec(), data).expect("a sample of the leaf's size")
}

impl SampleLike for DynArray {
    fn normal_like(k: Key, like: &DynArray) -> DynArray {
        dyn_sample(k, like, true, "normal_like")
    }
    fn uniform_like(k: Key, like: &DynArray) -> DynArray {
        dyn_sample(k, like, false, "uniform_like")
    }
}

/// `jax.random.normal(key, x.shape, x.dtype)`: standard normal samples in
/// the shape and float dtype of `like` (a typed array, or a leaf inside
/// `jax::tree::map`), the bits `normal` draws for that shape. Also inside
/// `#[jax::jit]` bodies.
///
/// ```
/// use jax::{random, tree::DynArray, Array};
/// let x = Array::<f32, 2, 3>::zeros();
/// let k = random::key(0);
/// let z = random::normal_like(k, &x);
/// assert_eq!(z, random::normal::<Array<f32, 2, 3>>(k));
/// // A pytree leaf: the same draw.
/// let leaf = DynArray::from_vec(vec![2, 3], vec![0f32; 6]).unwrap();
/// assert_eq!(random::normal_like(k, &leaf).to_vec::<f32>().unwrap(), z.to_vec());
/// ```
pub fn normal_like<A: SampleLike>(k: Key, like: &A) -> A {
    A::normal_like(k, like)
}

/// `jax.random.uniform(key, x.shape, x.dtype)`: samples in [0, 1) in the
/// shape and float dtype of `like`, as [`normal_like`].
///
/// ```
/// use jax::{random, Array};
/// let x = Array::<f64, 4>::zeros();
/// let u = random::uniform_like(random::key(1), &x);
/// assert_eq!(u, random::uniform::<Array<f64, 4>>(random::key(1)));
/// ```
pub fn uniform_like<A: SampleLike>(k: Key, like: &A) -> A {
    A::uniform_like(k, like)
}
