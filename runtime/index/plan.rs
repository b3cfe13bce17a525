//! Resolving an index against a shape (NumPy's basic and advanced indexing
//! rules), and the gather and scatter loops that follow the result.

use super::{IndexItem, IndexSpec, Mode};
use crate::element::{DType, Element};
use crate::shape;
use jax_dtypes::index;

/// Where each element of an indexing result comes from: its shape, and for
/// every result element one (possibly out-of-bounds) position per source axis.
pub(crate) struct Plan {
    pub(crate) out_shape: Vec<usize>,
    src_shape: Vec<usize>,
    raw: Vec<i64>,
}

impl Plan {
    /// Resolves an index against a shape with NumPy's rules: integers and
    /// slices are basic indices; index arrays (and integers, when an array is
    /// present) are advanced indices broadcast together, whose dimensions go
    /// where the first of them was if they are adjacent, else in front.
    pub(crate) fn new(op: &str, src_shape: &[usize], spec: &IndexSpec) -> Plan {
        let items = &spec.0;
        let used = items.iter().filter(|i| **i != IndexItem::NewAxis).count();
        let rank = src_shape.len();
        assert!(
            used <= rank,
            "{op}: too many indices for array: array is {rank}-dimensional, but {used} were indexed"
        );
        let any_array = items.iter().any(|i| matches!(i, IndexItem::Array { .. }));
        let is_adv = |i: &IndexItem| {
            matches!(i, IndexItem::Array { .. }) || (any_array && matches!(i, IndexItem::Int(_)))
        };
        // The broadcast shape of the advanced indices, and where its dims go.
        let mut adv_shape: Vec<usize> = Vec::new();
        let adv_pos: Vec<usize> = (0..items.len()).filter(|&k| is_adv(&items[k])).collect();
        for &k in &adv_pos {
            let s: &[usize] = match &items[k] {
                IndexItem::Array { shape, .. } => shape,
                _ => &[],
            };
            adv_shape = shape::broadcast_shapes(&adv_shape, s)
                .unwrap_or_else(|e| panic!("{op}: index arrays cannot be broadcast together: {e}"));
        }
        let adjacent = adv_pos.windows(2).all(|w| w[1] == w[0] + 1);

        // Output dims: a slice (its positions), a new axis, or the advanced block.
        enum Dim {
            Slice(Vec<usize>),
            New,
            Adv,
        }
        let mut dims: Vec<Dim> = Vec::new();
        let mut axis = 0;
        let mut adv_placed = false;
        if !adjacent && !adv_pos.is_empty() {
            dims.push(Dim::Adv);
            adv_placed = true;
        }
        // Per source axis: how to get its position.
        enum Src {
            Fixed(i64),
            Slice(usize),  // output dim index
            Adv(Vec<i64>), // values, broadcast to adv_shape
        }
        let mut src: Vec<Option<Src>> = (0..rank).map(|_| None).collect();
        let normalize = |i: i64, len: usize| if i < 0 { i + len as i64 } else { i };
        // Advanced indices follow JAX's rule (`jax_dtypes::index`): signed
        // ones normalized in their dtype, then all wrapped to the index dtype.
        let index_dtype = jax_dtypes::index::index_dtype(src_shape);
        for item in items {
            match item {
                IndexItem::NewAxis => dims.push(Dim::New),
                IndexItem::Slice(s) => {
                    let pos = s.positions(src_shape[axis]);
                    src[axis] = Some(Src::Slice(dims.len()));
                    dims.push(Dim::Slice(pos));
                    axis += 1;
                }
                IndexItem::Int(i) if !any_array => {
                    src[axis] = Some(Src::Fixed(normalize(*i, src_shape[axis])));
                    axis += 1;
                }
                IndexItem::Int(_) | IndexItem::Array { .. } => {
                    let len = src_shape[axis];
                    let (data, shape): (Vec<i64>, Vec<usize>) = match item {
                        IndexItem::Int(i) => (
                            vec![index::literal_position(*i as i128, len, index_dtype)],
                            vec![],
                        ),
                        IndexItem::Array { data, shape, dtype } => {
                            // JAX refuses a narrow signed dtype whatever the values.
                            if let Err(e) = index::axis_len_in(*dtype, len) {
                                panic!("{op}: {e}");
                            }
                            let position = |&v: &i64| {
                                let v = if *dtype == DType::U64 {
                                    v as u64 as i128
                                } else {
                                    v as i128
                                };
                                index::index_position(v, *dtype, len, index_dtype)
                                    .unwrap_or_else(|e| panic!("{op}: {e}"))
                            };
                            (data.iter().map(position).collect(), shape.clone())
                        }
                        _ => unreachable!(),
                    };
                    let map = shape::broadcast_indices(&shape, &adv_shape);
                    let vals = map.iter().map(|&m| data[m]).collect();
                    src[axis] = Some(Src::Adv(vals));
                    if !adv_placed {
                        dims.push(Dim::Adv);
                        adv_placed = true;
                    }
                    axis += 1;
                }
            }
        }
        // Trailing axes are taken whole.
        while axis < rank {
            src[axis] = Some(Src::Slice(dims.len()));
            dims.push(Dim::Slice((0..src_shape[axis]).collect()));
            axis += 1;
        }

        // Output shape, and where each output dim sits in it.
        let mut out_shape = Vec::new();
        let mut dim_start = Vec::with_capacity(dims.len());
        for d in &dims {
            dim_start.push(out_shape.len());
            match d {
                Dim::Slice(pos) => out_shape.push(pos.len()),
                Dim::New => out_shape.push(1),
                Dim::Adv => out_shape.extend_from_slice(&adv_shape),
            }
        }
        let adv_start = dims
            .iter()
            .position(|d| matches!(d, Dim::Adv))
            .map(|k| dim_start[k]);
        let out_size: usize = out_shape.iter().product();
        let out_strides = shape::strides(&out_shape);
        let adv_strides = shape::strides(&adv_shape);
        let mut raw = Vec::with_capacity(out_size * rank);
        let mut multi = vec![0usize; out_shape.len()];
        for o in 0..out_size {
            let mut rem = o;
            for (m, st) in multi.iter_mut().zip(&out_strides) {
                *m = rem / st;
                rem %= st;
            }
            let adv_flat = adv_start.map_or(0, |s| {
                adv_strides
                    .iter()
                    .enumerate()
                    .map(|(k, st)| multi[s + k] * st)
                    .sum::<usize>()
            });
            for s in &src {
                raw.push(match s.as_ref().expect("every axis is indexed") {
                    Src::Fixed(i) => *i,
                    Src::Slice(d) => match &dims[*d] {
                        Dim::Slice(pos) => pos[multi[dim_start[*d]]] as i64,
                        _ => unreachable!(),
                    },
                    Src::Adv(vals) => vals[adv_flat],
                });
            }
        }
        Plan {
            out_shape,
            src_shape: src_shape.to_vec(),
            raw,
        }
    }

    pub(crate) fn out_size(&self) -> usize {
        self.out_shape.iter().product()
    }

    /// The flat source offset of result element `o`; `None` if out of bounds
    /// and not clamped.
    fn offset(&self, o: usize, clamp: bool) -> Option<usize> {
        let rank = self.src_shape.len();
        let mut off = 0usize;
        for (k, &len) in self.src_shape.iter().enumerate() {
            let mut i = self.raw[o * rank + k];
            if i < 0 || i >= len as i64 {
                if !clamp || len == 0 {
                    return None;
                }
                i = i.clamp(0, len as i64 - 1);
            }
            off = off * len + i as usize;
        }
        Some(off)
    }

    /// Gathers the indexed elements; out-of-bounds ones are clamped or `fill`.
    pub(crate) fn gather<T: Element>(&self, data: &[T], mode: Mode, fill: T) -> Vec<T> {
        let clamp = mode != Mode::FillOrDrop;
        (0..self.out_size())
            .map(|o| self.offset(o, clamp).map_or(fill, |off| data[off]))
            .collect()
    }

    /// Applies `op(old, update)` at the indexed elements in row-major order of
    /// the result (so with duplicate indices the last `set` wins and `add`
    /// accumulates). Out-of-bounds updates are dropped unless `mode` is `Clip`.
    pub(crate) fn scatter<T: Element>(
        &self,
        data: &mut [T],
        updates: &[T],
        update_shape: &[usize],
        mode: Mode,
        op: impl Fn(T, T) -> T,
    ) {
        let map = shape::broadcast_indices(update_shape, &self.out_shape);
        let clamp = mode == Mode::Clip;
        for (o, &u) in map.iter().enumerate() {
            if let Some(off) = self.offset(o, clamp) {
                data[off] = op(data[off], updates[u]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{IntoIndex, IntoSlice};
    use std::ops::RangeFull;

    fn plan(shape: &[usize], spec: IndexSpec) -> (Vec<usize>, Vec<Option<usize>>) {
        let p = Plan::new("test", shape, &spec);
        let offs = (0..p.out_size()).map(|o| p.offset(o, false)).collect();
        (p.out_shape, offs)
    }

    #[test]
    fn advanced_index_dims_go_first_when_separated() {
        let idx = IndexItem::Array {
            data: vec![0, 1],
            shape: vec![2],
            dtype: DType::I32,
        };
        // Adjacent: x[:, idx] on (3, 4, 5) -> (3, 2, 5).
        let spec = IndexSpec(vec![IndexItem::Slice(RangeFull.into_slice()), idx.clone()]);
        assert_eq!(plan(&[3, 4, 5], spec).0, [3, 2, 5]);
        // Separated by a slice: x[idx, :, 0] -> (2, 4).
        let spec = IndexSpec(vec![
            idx,
            IndexItem::Slice(RangeFull.into_slice()),
            IndexItem::Int(0),
        ]);
        assert_eq!(plan(&[3, 4, 5], spec).0, [2, 4]);
    }

    #[test]
    fn out_of_bounds_offsets() {
        let (shape, offs) = plan(&[5], 7.into_index());
        assert_eq!(shape, Vec::<usize>::new());
        assert_eq!(offs, [None]);
        let (_, offs) = plan(&[2, 3], (-1, -1).into_index());
        assert_eq!(offs, [Some(5)]);
    }
}
