//! The eager `jax.tree` functions: `map`, `leaves`, `reduce`, `structure`,
//! `unflatten`.

use super::{DynArray, Pytree, TreeDef, TreeError};

/// JAX's error for trees whose structures differ, found as JAX finds it:
/// depth first, the first node where `full` differs from `prefix`.
fn check_structure(prefix: &TreeDef, full: &TreeDef, path: &mut String) -> Result<(), TreeError> {
    let kind_name = |d: &TreeDef| -> String {
        match d {
            TreeDef::Leaf => "jaxlib._jax.ArrayImpl".into(),
            TreeDef::None => "NoneType".into(),
            TreeDef::Tuple(_) => "tuple".into(),
            TreeDef::List(_) => "list".into(),
            TreeDef::Node { name, .. } => (*name).into(),
        }
    };
    let different_types = |path: &str| {
        TreeError::new(format!(
            "pytree structure error: different types at key path\n    tree_map tree{path}\n\
             At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class '{}'>\n\
             but at the same key path the full pytree has a subtree of different type\n    <class '{}'>.",
            kind_name(prefix),
            kind_name(full)
        ))
    };
    match (prefix, full) {
        (TreeDef::Leaf, TreeDef::Leaf) | (TreeDef::None, TreeDef::None) => Ok(()),
        // JAX would call the function on the whole subtree; here every leaf of
        // the first tree must meet a leaf.
        (TreeDef::Leaf, _) => Err(TreeError::new(format!(
            "pytree structure error: at key path\n    tree_map tree{path}\n\
             the first tree has a leaf but another tree has a subtree of type\n    <class '{}'>\n\
             (jax::tree::map calls the function on leaves only: give every tree the first tree's structure).",
            kind_name(full)
        ))),
        (TreeDef::Tuple(a), TreeDef::Tuple(b)) | (TreeDef::List(a), TreeDef::List(b)) => {
            if a.len() != b.len() {
                let kind = kind_name(prefix);
                return Err(TreeError::new(format!(
                    "pytree structure error: different lengths of {kind} at key path\n    tree_map tree{path}\n\
                     At that key path, the prefix pytree tree_map tree has a subtree of type {kind} of length {}, \
                     but the full pytree has a subtree of the same type but of length {}.",
                    a.len(),
                    b.len()
                )));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                check_structure(x, y, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        (
            TreeDef::Node {
                name: n1,
                fields: f1,
                children: c1,
            },
            TreeDef::Node {
                name: n2,
                fields: f2,
                children: c2,
            },
        ) if n1 == n2 && f1 == f2 && c1.len() == c2.len() => {
            for ((field, x), y) in f1.iter().zip(c1).zip(c2) {
                let len = path.len();
                path.push('.');
                path.push_str(field);
                check_structure(x, y, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Err(different_types(path)),
    }
}

/// `Ok` if every tree in `rest` has the structure of `first`, else JAX's error.
fn check_all(first: &TreeDef, rest: &[TreeDef]) -> Result<(), TreeError> {
    rest.iter()
        .try_for_each(|d| check_structure(first, d, &mut String::new()))
}

/// Rebuilds `template` with `f`'s result for each leaf; `f` gets the leaf's index.
fn map_leaves<T: Pytree>(
    template: &T,
    mut f: impl FnMut(usize, DynArray) -> DynArray,
) -> Result<T, TreeError> {
    let mut out = template.clone();
    let mut i = 0;
    let mut err = None;
    out.for_each_leaf_mut(&mut |leaf| {
        if err.is_none() {
            let v = f(i, leaf.to_dyn());
            if let Err(e) = leaf.assign(v) {
                err = Some(TreeError::new(format!(
                    "the function's result for leaf {i} does not fit the tree: {e}"
                )));
            }
        }
        i += 1;
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// `jax.tree.map(f, tree)`: applies `f` to every leaf and returns a tree of
/// the same structure. `f` must return the leaf's dtype and shape (a Rust
/// tree's leaves have fixed types); otherwise the error names the leaf.
///
/// Inside a `#[jax::jit]` body, `jax::tree::map(f, &a, &b, ..)` takes any
/// number of trees; eagerly use [`map2`] and [`map3`] for two and three.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let t = (Array::<f32, 2>::from([1.0, 2.0]), [Array::<f32>::from(3.0)]);
/// let doubled = tree::map(|x| x * 2.0, &t).unwrap();
/// assert_eq!(doubled.0.to_vec(), [2.0, 4.0]);
/// assert_eq!(doubled.1[0].item(), 6.0);
/// ```
pub fn map<T: Pytree>(mut f: impl FnMut(DynArray) -> DynArray, tree: &T) -> Result<T, TreeError> {
    map_leaves(tree, |_, x| f(x))
}

/// `jax.tree.map(f, a, b)`: applies `f` to the corresponding leaves of two
/// trees of the same structure, giving a tree of `a`'s type. Different
/// structures are an error with JAX's message.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let params = (Array::<f32, 2>::from([1.0, 2.0]), Array::<f32>::from(3.0));
/// let grads = (Array::<f32, 2>::from([10.0, 20.0]), Array::<f32>::from(30.0));
/// let new = tree::map2(|p, g| p - 0.01 * g, &params, &grads).unwrap();
/// assert_eq!(new.0.to_vec(), [0.9, 1.8]);
///
/// let short = (Array::<f32, 2>::zeros(),);
/// let err = tree::map2(|p, _| p, &params, &short).unwrap_err();
/// assert!(err.to_string().starts_with("pytree structure error: different lengths of tuple"));
/// ```
pub fn map2<T: Pytree, U: Pytree>(
    mut f: impl FnMut(DynArray, DynArray) -> DynArray,
    a: &T,
    b: &U,
) -> Result<T, TreeError> {
    check_all(&a.def(), &[b.def()])?;
    let mut bs = leaves(b).into_iter();
    map_leaves(a, |_, x| f(x, bs.next().expect("same number of leaves")))
}

/// `jax.tree.map(f, a, b, c)`: as [`map2`] with three trees.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let (m, v, g) = ([Array::<f32>::from(1.0)], [Array::<f32>::from(2.0)], [Array::<f32>::from(4.0)]);
/// let r = tree::map3(|m, v, g| m + v * g, &m, &v, &g).unwrap();
/// assert_eq!(r[0].item(), 9.0);
/// ```
pub fn map3<T: Pytree, U: Pytree, V: Pytree>(
    mut f: impl FnMut(DynArray, DynArray, DynArray) -> DynArray,
    a: &T,
    b: &U,
    c: &V,
) -> Result<T, TreeError> {
    check_all(&a.def(), &[b.def(), c.def()])?;
    let mut bs = leaves(b).into_iter();
    let mut cs = leaves(c).into_iter();
    map_leaves(a, |_, x| {
        f(
            x,
            bs.next().expect("same number of leaves"),
            cs.next().expect("same number of leaves"),
        )
    })
}

/// `jax.tree.leaves(tree)`: copies of the leaves in JAX's flattening order.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let t = ((Array::<i32>::from(1), Array::<f32, 2>::zeros()), [Array::<f32>::from(2.0)]);
/// let l = tree::leaves(&t);
/// assert_eq!(l.len(), 3);
/// assert_eq!(l[0].to_vec::<i32>().unwrap(), [1]);
/// assert_eq!(l[1].shape(), &[2]);
/// ```
pub fn leaves<T: Pytree>(tree: &T) -> Vec<DynArray> {
    let mut out = Vec::new();
    tree.for_each_leaf(&mut |l| out.push(l.to_dyn()));
    out
}

/// `jax.tree.reduce(f, tree, initializer)`: folds `f` over the leaves from
/// the left, starting from `init` (a [`DynArray`] or a Rust scalar, which is
/// weakly typed as a Python scalar is).
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let t = (Array::<f32, 2>::from([1.0, 2.0]), Array::<f32>::from(3.0));
/// // The sum of squares of every element (a global norm, squared).
/// let s = tree::reduce(|acc, x| acc + x.square().sum(), &t, 0.0f32);
/// assert_eq!(s.to_vec::<f32>().unwrap(), [14.0]);
/// ```
pub fn reduce<T: Pytree>(
    mut f: impl FnMut(DynArray, DynArray) -> DynArray,
    tree: &T,
    init: impl Into<DynArray>,
) -> DynArray {
    leaves(tree).into_iter().fold(init.into(), &mut f)
}

/// `jax.tree.structure(tree)`: the tree's [`TreeDef`].
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let t = (Array::<f32>::zeros(), [Array::<f32>::zeros(), Array::<f32>::zeros()]);
/// assert_eq!(tree::structure(&t).to_string(), "PyTreeDef((*, [*, *]))");
/// ```
pub fn structure<T: Pytree>(tree: &T) -> TreeDef {
    tree.def()
}

/// `jax.tree.unflatten(treedef, leaves)`: a tree of `template`'s structure
/// whose leaves are `leaves` in order. JAX's error for a wrong number of
/// leaves; an error naming the leaf for a wrong dtype or shape.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree::{self, DynArray};
///
/// let template = (Array::<f32, 2>::zeros(), Array::<i32>::zeros());
/// let t = tree::unflatten(
///     &template,
///     vec![DynArray::from_vec(vec![2], vec![1.0f32, 2.0]).unwrap(), DynArray::scalar(7i32)],
/// )
/// .unwrap();
/// assert_eq!((t.0.to_vec(), t.1.item()), (vec![1.0, 2.0], 7));
/// let err = tree::unflatten(&template, vec![]).unwrap_err();
/// assert_eq!(err.to_string(), "Too few leaves for PyTreeDef; expected 2, got 0");
/// ```
pub fn unflatten<T: Pytree>(template: &T, leaves: Vec<DynArray>) -> Result<T, TreeError> {
    let expected = template.def().num_leaves();
    if leaves.len() < expected {
        return Err(TreeError::new(format!(
            "Too few leaves for PyTreeDef; expected {expected}, got {}",
            leaves.len()
        )));
    }
    if leaves.len() > expected {
        return Err(TreeError::new(format!(
            "Too many leaves for PyTreeDef; expected {expected}."
        )));
    }
    let mut it = leaves.into_iter();
    map_leaves(template, |_, _| it.next().expect("counted"))
}
