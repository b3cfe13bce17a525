//! Walking several trees of one structure leaf by leaf and element by
//! element: what every optimizer's `update` is made of.

use super::real::Real;
use crate::tree::{DynArray, Pytree};
use crate::DType;

/// A per-element formula of `I` inputs and `O` outputs, written once for
/// `f32` and `f64` leaves.
pub(crate) trait Elementwise<const I: usize, const O: usize> {
    fn apply<R: Real>(&self, x: [R; I]) -> [R; O];
}

/// A number computed both in `f32` and in `f64` (a bias correction, a
/// learning rate at this step), so each leaf uses the one of its dtype.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Both {
    pub(crate) f32: f32,
    pub(crate) f64: f64,
}

impl Both {
    pub(crate) fn get<R: Real>(self) -> R {
        // f64 leaves take the f64 value; f32 leaves the f32 one (exact in f64).
        if std::mem::size_of::<R>() == 8 {
            R::from_f64(self.f64)
        } else {
            R::from_f64(self.f32 as f64)
        }
    }
}

/// The leaves of a tree, in its flattening order.
pub(crate) fn leaves<P: Pytree>(t: &P) -> Vec<DynArray> {
    let mut out = Vec::new();
    t.for_each_leaf(&mut |l| out.push(l.to_dyn()));
    out
}

/// `template` with its leaves replaced by `new`, in order.
pub(crate) fn with_leaves<P: Pytree>(template: &P, new: Vec<DynArray>) -> P {
    let mut t = template.clone();
    let mut it = new.into_iter();
    t.for_each_leaf_mut(&mut |l| {
        let v = it
            .next()
            .expect("optim: fewer new leaves than the tree has");
        if let Err(e) = l.assign(v) {
            panic!("optim: {e}");
        }
    });
    t
}

/// Reads a float leaf's elements as `R`.
fn read<R: Real>(a: &DynArray) -> Vec<R> {
    a.to_vec_f64().into_iter().map(R::from_f64).collect()
}

fn check_float(d: DType) {
    assert!(
        matches!(d, DType::F32 | DType::F64),
        "optimizers update float32 and float64 leaves, got a {d:?} leaf"
    );
}

/// Maps `f` over the elements of `I` trees of one structure, giving `O`
/// trees of that structure (leaf dtypes and shapes those of `trees[0]`).
pub(crate) fn zip_map<P: Pytree, F: Elementwise<I, O>, const I: usize, const O: usize>(
    f: &F,
    trees: [&P; I],
) -> [P; O] {
    let flat: Vec<Vec<DynArray>> = trees.iter().map(|t| leaves(*t)).collect();
    let n = flat[0].len();
    for (k, l) in flat.iter().enumerate() {
        assert_eq!(
            l.len(),
            n,
            "optim: tree {k} has {} leaves where the first has {n}",
            l.len()
        );
    }
    let mut outs: [Vec<DynArray>; O] = std::array::from_fn(|_| Vec::with_capacity(n));
    for leaf in 0..n {
        let first = &flat[0][leaf];
        let shape = first.shape().to_vec();
        for (k, l) in flat.iter().enumerate() {
            assert_eq!(
                l[leaf].shape(),
                &shape[..],
                "optim: leaf {leaf} of tree {k} has shape {:?}, expected {shape:?}",
                l[leaf].shape()
            );
        }
        check_float(first.dtype());
        if first.dtype() == DType::F32 {
            let res = run::<f32, F, I, O>(f, &flat, leaf);
            for (o, data) in outs.iter_mut().zip(res) {
                o.push(
                    DynArray::from_vec::<f32>(shape.clone(), data).expect("one element per index"),
                );
            }
        } else {
            let res = run::<f64, F, I, O>(f, &flat, leaf);
            for (o, data) in outs.iter_mut().zip(res) {
                o.push(
                    DynArray::from_vec::<f64>(shape.clone(), data).expect("one element per index"),
                );
            }
        }
    }
    let mut outs = outs.into_iter();
    std::array::from_fn(|_| with_leaves(trees[0], outs.next().unwrap()))
}

// Element `e` of each of the `I` inputs: an index, not one iterator.
#[allow(clippy::needless_range_loop)]
fn run<R: Real, F: Elementwise<I, O>, const I: usize, const O: usize>(
    f: &F,
    flat: &[Vec<DynArray>],
    leaf: usize,
) -> [Vec<R>; O] {
    let inputs: Vec<Vec<R>> = flat.iter().map(|l| read::<R>(&l[leaf])).collect();
    let len = inputs[0].len();
    let mut outs: [Vec<R>; O] = std::array::from_fn(|_| Vec::with_capacity(len));
    for e in 0..len {
        let x: [R; I] = std::array::from_fn(|k| inputs[k][e]);
        for (o, y) in outs.iter_mut().zip(f.apply(x)) {
            o.push(y);
        }
    }
    outs
}

/// A tree of `template`'s structure with every element `value`.
pub(crate) fn full_like<P: Pytree>(template: &P, value: f64) -> P {
    struct Fill(f64);
    impl Elementwise<1, 1> for Fill {
        fn apply<R: Real>(&self, _: [R; 1]) -> [R; 1] {
            [R::from_f64(self.0)]
        }
    }
    let [t] = zip_map(&Fill(value), [template]);
    t
}

/// optax's `tree.norm` (the global L2 norm), summed leaf by leaf in order;
/// in `f32` when every leaf is `f32`.
pub(crate) fn global_norm<P: Pytree>(t: &P) -> Both {
    let ls = leaves(t);
    let all_f32 = ls.iter().all(|l| l.dtype() == DType::F32);
    let (mut s32, mut s64) = (0f32, 0f64);
    for l in &ls {
        check_float(l.dtype());
        let (mut leaf32, mut leaf64) = (0f32, 0f64);
        for x in l.to_vec_f64() {
            leaf32 += (x as f32) * (x as f32);
            leaf64 += x * x;
        }
        s32 += leaf32;
        s64 += leaf64;
    }
    let n64 = s64.sqrt();
    Both {
        f32: if all_f32 { s32.sqrt() } else { n64 as f32 },
        f64: n64,
    }
}
