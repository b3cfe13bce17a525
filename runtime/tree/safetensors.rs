//! Saving and loading pytrees as safetensors files (the format of Hugging
//! Face's `safetensors`, which Python's `safetensors.numpy` reads).
//!
//! Each leaf is one tensor, named by its path in the tree as JAX's
//! `jax.tree_util.keystr(path, simple=True, separator=".")` writes it:
//! struct fields by name, tuple and list items by index (`w1`,
//! `layers.0.w`, `1.0`). A tree that is a single array is saved under the
//! name `array`. Element types are stored as they are (`float32` as `F32`,
//! `bfloat16` as `BF16`, ...); complex leaves are not supported.

use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use safetensors::tensor::{Dtype, SafeTensors, TensorView, View};

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
/// The file is written beside `path` as `.{file name}.{process id}-{n}.jax-tmp`
/// and renamed over `path` once complete, so a save that fails or is killed
/// leaves the old file whole. A temporary file such a save left is removed
/// by the next save of the same `path`, once no process holds its lock (a
/// writer locks its own) and it is a minute old, so a concurrent save of
/// the same file, in this process or another, is never disturbed. The saved
/// file has the mode `File::create` would give it: the old file's when
/// there was one, else 0666 less the umask.
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
    // The header as `safetensors` writes it (tensors by descending dtype,
    // then name), then their bytes in that order.
    let header = safetensors::tensor::serialize(
        views.iter().map(|(name, v)| (name.as_str(), HeaderOnly(v))),
        None,
    )
    .map_err(|e| TreeError::new(format!("cannot write {}: {e}", path.display())))?;
    views.sort_by(|(l, lv), (r, rv)| rv.dtype().cmp(&lv.dtype()).then(l.cmp(r)));
    write_atomically(path, |out| {
        out.write_all(&header)?;
        for (_, v) in &views {
            out.write_all(v.data())?;
        }
        Ok(())
    })
    .map_err(|e| TreeError::new(format!("cannot write {}: {e}", path.display())))
}

/// A tensor's header entry without its bytes: `serialize` of these writes
/// the file's header alone, which [`save_safetensors`] streams the bytes
/// after (no second copy of the whole file in memory).
struct HeaderOnly<'a, 'b>(&'a TensorView<'b>);

impl View for HeaderOnly<'_, '_> {
    fn dtype(&self) -> Dtype {
        self.0.dtype()
    }
    fn shape(&self) -> &[usize] {
        self.0.shape()
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&[])
    }
    fn data_len(&self) -> usize {
        self.0.data_len()
    }
}

/// The temporary files of a save end in this, after `.{file name}.{process
/// id}-{sequence number}`, beside the file they replace.
const TEMP_SUFFIX: &str = ".jax-tmp";

/// A temporary file unlocked and untouched for this long was left by a save
/// that did not finish (its process killed, the machine down): the next
/// save of the same file removes it. (A writer locks its file right after
/// creating it, and writing keeps its modification time fresh.)
const STALE_AFTER: Duration = Duration::from_secs(60);

/// Whether `name` is one of our temporary files for the file `target`.
fn is_temp_of(name: &str, target: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_prefix('.')
        .and_then(|n| n.strip_prefix(target))
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
        .and_then(|n| n.split_once('-'))
        .is_some_and(|(pid, seq)| digits(pid) && digits(seq))
}

/// Removes the temporary files earlier saves of `target` left in `dir`:
/// only ours for that file, only if no process holds their lock (a save in
/// progress, in this process or another) and they are older than
/// [`STALE_AFTER`]. Best effort: a file it cannot inspect is left alone.
fn remove_stale_temps(dir: &Path, target: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|n| is_temp_of(n, target)) {
            continue;
        }
        let path = entry.path();
        let old = fs::symlink_metadata(&path).is_ok_and(|m| {
            m.is_file()
                && m.modified()
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= STALE_AFTER)
        });
        if !old {
            continue;
        }
        let Ok(file) = fs::OpenOptions::new().write(true).open(&path) else {
            continue;
        };
        if file.try_lock().is_ok() {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Writes `path` through a temporary file beside it, renamed over `path`
/// once complete: a save that fails or is killed leaves the old file whole.
/// The new file gets the mode `File::create` would give it: the old file's
/// permissions when it exists, else 0666 less the umask.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> io::Result<()>,
) -> io::Result<()> {
    let target = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    remove_stale_temps(dir, target);

    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let (temp, file) = loop {
        let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(
            ".{target}.{}-{seq}{TEMP_SUFFIX}",
            std::process::id()
        ));
        // `create_new` with the default mode: 0666 less the umask.
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(file) => break (temp, file),
            // Left by an earlier process of the same id.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let written = (|| {
        // Held while writing: no other save takes the file for stale. A
        // file system without locks still has the age rule.
        match file.lock() {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {}
            Err(e) => return Err(e),
        }
        if let Ok(old) = fs::metadata(path) {
            file.set_permissions(old.permissions())?;
        }
        let mut out = BufWriter::with_capacity(1 << 20, &file);
        write(&mut out)?;
        out.flush()
    })();
    drop(file);
    match written.and_then(|()| fs::rename(&temp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e)
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    /// The streamed file is byte for byte what `safetensors` serializes:
    /// the same header, the tensors' bytes in its order (descending dtype,
    /// then name).
    #[test]
    fn streamed_file_is_what_safetensors_serializes() {
        let tree = (
            Array::<u8, 3>::from([1, 2, 3]),
            Array::<f64, 2>::from([0.5, -1.0]),
            [
                Array::<bf16, 1>::from([bf16::from_f32(2.0)]),
                Array::<bf16, 1>::from([bf16::ONE]),
            ],
            Array::<i32>::from(-7),
            Array::<bool, 2>::from([true, false]),
        );
        let path = std::env::temp_dir().join(format!(
            "jax_unit_streamed_{}.safetensors",
            std::process::id()
        ));
        save_safetensors(&tree, &path).unwrap();
        let written = fs::read(&path).unwrap();
        fs::remove_file(&path).unwrap();

        let names = leaf_names(&tree.def());
        let leaves = super::super::leaves(&tree);
        let bytes: Vec<Vec<u8>> = leaves.iter().map(|l| to_bytes(l.data())).collect();
        let views = names.iter().zip(&leaves).zip(&bytes).map(|((n, l), b)| {
            let dtype = to_safetensors_dtype(l.dtype()).unwrap();
            (
                n.as_str(),
                TensorView::new(dtype, l.shape().to_vec(), b).unwrap(),
            )
        });
        let want = safetensors::tensor::serialize(views, None).unwrap();
        assert_eq!(written, want);
    }

    #[test]
    fn temp_names_of_a_target_only() {
        assert!(is_temp_of(".ckpt.st.12-0.jax-tmp", "ckpt.st"));
        assert!(!is_temp_of(".ckpt.st.12-0.jax-tmp", "ckpt"));
        assert!(!is_temp_of(".ckpt.st.12-.jax-tmp", "ckpt.st"));
        assert!(!is_temp_of(".ckpt.st.a-0.jax-tmp", "ckpt.st"));
        assert!(!is_temp_of("ckpt.st.12-0.jax-tmp", "ckpt.st"));
        assert!(!is_temp_of(".ckpt.st.12-0.tmp", "ckpt.st"));
    }
}
