//! Saving and loading pytrees as safetensors files (the format of Hugging
//! Face's `safetensors`, which Python's `safetensors.numpy` reads).
//!
//! Each leaf is one tensor, named by its path in the tree as JAX's
//! `jax.tree_util.keystr(path, simple=True, separator=".")` writes it:
//! struct fields by name, tuple and list items by index (`w1`,
//! `layers.0.w`, `1.0`). A tree that is a single array is saved under the
//! name `array`. Element types are stored as they are (`float32` as `F32`,
//! `bfloat16` as `BF16`, ...); complex leaves are not supported.

use std::path::Path;

use safetensors::tensor::{Dtype, SafeTensors, TensorView};

use super::{DynArray, DynData, Pytree, TreeDef, TreeError};
use crate::element::{bf16, f16, DType};

/// The name of every leaf, in flattening order.
fn leaf_names(def: &TreeDef) -> Vec<String> {
    fn walk(d: &TreeDef, prefix: &str, out: &mut Vec<String>) {
        let join = |k: &str| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            }
        };
        match d {
            TreeDef::Leaf => out.push(if prefix.is_empty() {
                "array".into()
            } else {
                prefix.into()
            }),
            TreeDef::None => {}
            TreeDef::Tuple(c) | TreeDef::List(c) => c
                .iter()
                .enumerate()
                .for_each(|(i, t)| walk(t, &join(&i.to_string()), out)),
            TreeDef::Node {
                fields, children, ..
            } => fields
                .iter()
                .zip(children)
                .for_each(|(f, t)| walk(t, &join(f), out)),
        }
    }
    let mut out = Vec::new();
    walk(def, "", &mut out);
    out
}

fn to_safetensors_dtype(d: DType) -> Option<Dtype> {
    Some(match d {
        DType::Bool => Dtype::BOOL,
        DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::BF16 => Dtype::BF16,
        DType::F16 => Dtype::F16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::C64 | DType::C128 => return None,
    })
}

/// The little-endian bytes of the elements.
fn to_bytes(d: &DynData) -> Vec<u8> {
    macro_rules! le {
        ($v:expr) => {
            $v.iter().flat_map(|x| x.to_le_bytes()).collect()
        };
    }
    match d {
        DynData::Bool(v) => v.iter().map(|&b| b as u8).collect(),
        DynData::U8(v) => v.clone(),
        DynData::U16(v) => le!(v),
        DynData::U32(v) => le!(v),
        DynData::U64(v) => le!(v),
        DynData::I8(v) => le!(v),
        DynData::I16(v) => le!(v),
        DynData::I32(v) => le!(v),
        DynData::I64(v) => le!(v),
        DynData::BF16(v) => le!(v),
        DynData::F16(v) => le!(v),
        DynData::F32(v) => le!(v),
        DynData::F64(v) => le!(v),
        DynData::C64(_) | DynData::C128(_) => unreachable!("rejected before"),
    }
}

/// Elements of `dtype` from little-endian bytes (whose length the
/// safetensors header check already matched to the shape).
fn from_bytes(dtype: DType, b: &[u8]) -> DynData {
    macro_rules! le {
        ($t:ty, $n:expr) => {
            b.chunks_exact($n)
                .map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk size")))
                .collect()
        };
    }
    match dtype {
        DType::Bool => DynData::Bool(b.iter().map(|&x| x != 0).collect()),
        DType::U8 => DynData::U8(b.to_vec()),
        DType::U16 => DynData::U16(le!(u16, 2)),
        DType::U32 => DynData::U32(le!(u32, 4)),
        DType::U64 => DynData::U64(le!(u64, 8)),
        DType::I8 => DynData::I8(le!(i8, 1)),
        DType::I16 => DynData::I16(le!(i16, 2)),
        DType::I32 => DynData::I32(le!(i32, 4)),
        DType::I64 => DynData::I64(le!(i64, 8)),
        DType::BF16 => DynData::BF16(le!(bf16, 2)),
        DType::F16 => DynData::F16(le!(f16, 2)),
        DType::F32 => DynData::F32(le!(f32, 4)),
        DType::F64 => DynData::F64(le!(f64, 8)),
        DType::C64 | DType::C128 => unreachable!("rejected before"),
    }
}

/// Saves every leaf of `tree` to the safetensors file `path`, each under its
/// path in the tree (struct fields by name, tuple and list items by index:
/// `w1`, `layers.0.w`, as `jax.tree_util.keystr(path, simple=True,
/// separator=".")`); an error for an I/O failure or
/// a complex leaf.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let params = (Array::<f32, 2>::from([1.0, 2.0]), [Array::<i32>::from(7)]);
/// let path = std::env::temp_dir().join("jax_doc_save_safetensors.safetensors");
/// tree::save_safetensors(&params, &path).unwrap();
/// // Tensors "0" and "1.0".
/// let back = tree::load_safetensors(&path, &params).unwrap();
/// assert_eq!(back.0.to_vec(), [1.0, 2.0]);
/// assert_eq!(back.1[0].item(), 7);
/// ```
pub fn save_safetensors<T: Pytree>(tree: &T, path: impl AsRef<Path>) -> Result<(), TreeError> {
    let path = path.as_ref();
    let names = leaf_names(&tree.def());
    let leaves = super::leaves(tree);
    let mut bytes = Vec::with_capacity(leaves.len());
    for (name, leaf) in names.iter().zip(&leaves) {
        if to_safetensors_dtype(leaf.dtype()).is_none() {
            return Err(TreeError::new(format!(
                "tensor `{name}`: dtype {} cannot be saved as safetensors",
                leaf.dtype().name()
            )));
        }
        bytes.push(to_bytes(leaf.data()));
    }
    let mut views = Vec::with_capacity(leaves.len());
    for ((name, leaf), b) in names.iter().zip(&leaves).zip(&bytes) {
        let dtype = to_safetensors_dtype(leaf.dtype()).expect("checked");
        let view = TensorView::new(dtype, leaf.shape().to_vec(), b)
            .map_err(|e| TreeError::new(format!("tensor `{name}`: {e}")))?;
        views.push((name.clone(), view));
    }
    safetensors::tensor::serialize_to_file(views, None, path)
        .map_err(|e| TreeError::new(format!("cannot write {}: {e}", path.display())))
}

/// Loads the safetensors file `path` into a tree of `template`'s structure,
/// leaf by leaf by name (the names [`save_safetensors`] writes). A missing tensor, a wrong
/// dtype or shape, or a truncated or corrupt file is an error naming the
/// tensor or the file, never a panic. Tensors the tree does not name are ignored.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree;
///
/// let path = std::env::temp_dir().join("jax_doc_load_safetensors.safetensors");
/// tree::save_safetensors(&(Array::<f32, 3>::ones(),), &path).unwrap();
/// let err = tree::load_safetensors(&path, &(Array::<f32, 2>::zeros(),)).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     format!("tensor `0` in {}: shape [3] in the file, the tree's leaf has shape [2]", path.display())
/// );
/// ```
pub fn load_safetensors<T: Pytree>(path: impl AsRef<Path>, template: &T) -> Result<T, TreeError> {
    let path = path.as_ref();
    let shown = path.display();
    let buffer =
        std::fs::read(path).map_err(|e| TreeError::new(format!("cannot read {shown}: {e}")))?;
    let file = SafeTensors::deserialize(&buffer)
        .map_err(|e| TreeError::new(format!("{shown} is not a valid safetensors file: {e:?}")))?;
    let names = leaf_names(&template.def());
    let mut leaves = Vec::with_capacity(names.len());
    let mut wanted = Vec::new();
    template.for_each_leaf(&mut |l| wanted.push((l.dtype(), l.shape().to_vec())));
    for (name, (dtype, shape)) in names.iter().zip(wanted) {
        let view = file
            .tensor(name)
            .map_err(|_| TreeError::new(format!("tensor `{name}` is missing from {shown}")))?;
        let want = to_safetensors_dtype(dtype).ok_or_else(|| {
            TreeError::new(format!(
                "tensor `{name}`: dtype {} cannot be loaded from safetensors",
                dtype.name()
            ))
        })?;
        if view.dtype() != want {
            return Err(TreeError::new(format!(
                "tensor `{name}` in {shown}: dtype {:?} in the file, the tree's leaf is {} ({want:?})",
                view.dtype(),
                dtype.name()
            )));
        }
        if view.shape() != shape.as_slice() {
            return Err(TreeError::new(format!(
                "tensor `{name}` in {shown}: shape {:?} in the file, the tree's leaf has shape {shape:?}",
                view.shape()
            )));
        }
        leaves.push(DynArray::new(shape, from_bytes(dtype, view.data()))?);
    }
    super::unflatten(template, leaves)
}
