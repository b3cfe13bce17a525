//! Indexing with index arrays inside `#[jax::jit]` (`x.at(idx).get()`,
//! `x.at((i, idx)).add(v)`), and updates at traced scalar positions: the
//! index turned into one `gather`'s (or scatter's) indices and dimension
//! numbers as `jnp`'s `_index_to_gather` builds them. Index arrays
//! broadcast together (NumPy's advanced indexing); their axes replace the
//! indexed ones where they stand, or go first when a slice separates them.

use proc_macro2::Span;

use crate::frontend::jnp;
use crate::frontend::tracer::Tracer;
use crate::frontend::value::Item;
use crate::ir::builder::{err, literal, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, GatherParams, IndexDims, IndexMode, Params, ScatterParams};
use jax_dtypes::DType;

/// An index as one gather: the indices (last axis the index vector), its
/// dimension numbers, window and result shape.
pub(crate) struct Indexer {
    indices: Atom,
    dims: IndexDims,
    slice_sizes: Vec<usize>,
    /// The shape of `x[index]`.
    shape: Vec<Dim>,
    /// No index array: positions are scalars, so sorted and unique.
    scalar_only: bool,
}

/// NumPy's broadcast of shapes.
fn broadcast_shapes(shapes: &[Vec<Dim>], span: Span) -> Result<Vec<Dim>> {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![Dim::Lit(1); rank];
    for s in shapes {
        for (k, d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + k];
            if *o == Dim::Lit(1) {
                *o = d.clone();
            } else if *d != Dim::Lit(1) && d != o {
                return err(
                    span,
                    format!("shape mismatch: index arrays could not be broadcast together ({o} and {d})"),
                );
            }
        }
    }
    Ok(out)
}

impl Tracer {
    /// An index position as `_normalize_index` makes it: negative ones
    /// count from the end (`select_n(i < 0, i, i + n)`; never for unsigned
    /// ones), converted to the index dtype.
    fn normalized(&mut self, i: Atom, n: usize, dtype: DType, span: Span) -> Result<Atom> {
        let a = self.b.aval(&i);
        let i = if a.dtype.kind() == jax_dtypes::Kind::UInt {
            i
        } else {
            let zero = literal(Scalar::Int(0), Aval::scalar(a.dtype, false));
            let size = literal(Scalar::Int(n as i128), Aval::scalar(a.dtype, false));
            let neg = jnp::binary(&mut self.b, &prims::LT, i.clone(), zero, span)?;
            let wrapped = jnp::binary(&mut self.b, &prims::ADD, i.clone(), size, span)?;
            self.b.bind1(
                &prims::SELECT_N,
                Params::None,
                vec![neg, i, wrapped],
                span,
            )?
        };
        if self.b.aval(&i).dtype == dtype {
            Ok(i)
        } else {
            jnp::convert(&mut self.b, i, dtype, false, span)
        }
    }

    /// Whether an index needs a gather: it holds an index array.
    pub(crate) fn has_index_array(items: &[Item]) -> bool {
        items.iter().any(|i| matches!(i, Item::Array(_)))
    }

    /// `_index_to_gather`.
    pub(crate) fn indexer(&mut self, x: &Atom, items: &[Item], span: Span) -> Result<Indexer> {
        let a = self.b.aval(x);
        if items.len() > a.rank() {
            return err(
                span,
                format!("too many indices for {a}: {} given", items.len()),
            );
        }
        let mut sizes = Vec::new();
        for d in &a.shape {
            let Dim::Lit(n) = d else {
                return err(span, format!("indexing an axis of symbolic size {d} is not supported"));
            };
            sizes.push(*n);
        }
        let arrays: Vec<(usize, Atom)> = items
            .iter()
            .enumerate()
            .filter_map(|(k, i)| match i {
                Item::Array(a) => Some((k, a.clone())),
                _ => None,
            })
            .collect();
        let adv_shape = broadcast_shapes(
            &arrays.iter().map(|(_, a)| self.b.aval(a).shape).collect::<Vec<_>>(),
            span,
        )?;
        let contiguous = arrays.windows(2).all(|w| w[1].0 == w[0].0 + 1);
        // int64 positions stay int64 (x64); others go to int32, as JAX.
        let idx_dtype = if items.iter().any(|i| match i {
            Item::Array(a) | Item::Dynamic(a) => self.b.aval(a).dtype == DType::I64,
            _ => false,
        }) {
            DType::I64
        } else {
            DType::I32
        };
        // Each index component with the axis of the indices it starts at.
        let mut parts: Vec<(Atom, usize)> = Vec::new();
        let mut dims = IndexDims {
            offset: vec![],
            collapsed: vec![],
            index_map: vec![],
            operand_batching: vec![],
            indices_batching: vec![],
        };
        let mut slice_sizes = Vec::new();
        let mut shape: Vec<Dim> = Vec::new();
        let adv_rank = adv_shape.len();
        let mut y = 0usize;
        if !arrays.is_empty() && !contiguous {
            shape.extend(adv_shape.iter().cloned());
            y = adv_rank;
        }
        for (k, &n) in sizes.iter().enumerate() {
            let item = items.get(k);
            if !arrays.is_empty() && contiguous && k == arrays[0].0 {
                shape.extend(adv_shape.iter().cloned());
                y += adv_rank;
            }
            match item {
                Some(Item::Array(i)) => {
                    let ia = self.b.aval(i);
                    if !ia.dtype.is_integer() {
                        return err(span, format!("index arrays must be of an integer type, got {ia}; convert it with `.astype::<i32>()`"));
                    }
                    let i = self.normalized(i.clone(), n, idx_dtype, span)?;
                    parts.push((i, adv_rank - ia.rank()));
                    dims.collapsed.push(k);
                    dims.index_map.push(k);
                    slice_sizes.push(1);
                }
                Some(Item::Int(i)) => {
                    let i = if *i < 0 { i + n as i128 } else { *i };
                    parts.push((literal(Scalar::Int(i), Aval::scalar(idx_dtype, false)), adv_rank));
                    dims.collapsed.push(k);
                    dims.index_map.push(k);
                    slice_sizes.push(1);
                }
                Some(Item::Dynamic(i)) => {
                    let i = self.normalized(i.clone(), n, idx_dtype, span)?;
                    parts.push((i, adv_rank));
                    dims.collapsed.push(k);
                    dims.index_map.push(k);
                    slice_sizes.push(1);
                }
                None | Some(Item::Range { start: None, end: None, step: 1 }) => {
                    dims.offset.push(y);
                    shape.push(Dim::Lit(n));
                    slice_sizes.push(n);
                    y += 1;
                }
                Some(Item::Range { start, end, step: 1 }) => {
                    let norm = |v: i128| if v < 0 { (v + n as i128).max(0) } else { v.min(n as i128) };
                    let s = start.map_or(0, norm);
                    let e = end.map_or(n as i128, norm).max(s);
                    parts.push((literal(Scalar::Int(s), Aval::scalar(idx_dtype, false)), adv_rank));
                    dims.index_map.push(k);
                    dims.offset.push(y);
                    shape.push(Dim::Lit((e - s) as usize));
                    slice_sizes.push((e - s) as usize);
                    y += 1;
                }
                Some(Item::Range { .. }) => {
                    return err(span, "a stepped slice beside an index array is not supported in #[jax::jit] yet; slice first with `x.slice(s![..])`, then index");
                }
            }
        }
        // Each component broadcast to the indices' shape, then joined
        // along a new last axis.
        let mut full = adv_shape.clone();
        full.push(Dim::Lit(1));
        let mut cols = Vec::new();
        for (p, at) in parts {
            let r = self.b.aval(&p).rank();
            cols.push(self.b.bind1(
                &prims::BROADCAST_IN_DIM,
                Params::BroadcastInDim {
                    shape: full.clone(),
                    dims: (at..at + r).collect(),
                    np_ints: 0,
                },
                vec![p],
                span,
            )?);
        }
        let indices = if cols.len() == 1 {
            cols.remove(0)
        } else {
            self.b.bind1(
                &prims::CONCATENATE,
                Params::Concatenate { dim: adv_rank },
                cols,
                span,
            )?
        };
        Ok(Indexer {
            indices,
            dims,
            slice_sizes,
            shape,
            scalar_only: arrays.is_empty(),
        })
    }

    /// `x.at(index).get()` (and `get_with(mode)`, `get_fill(v)`) with an
    /// index array: one `gather`. `mode` `None` is `get()`'s default,
    /// printed `PROMISE_IN_BOUNDS` as JAX does (XLA clamps).
    pub(crate) fn gather_get(
        &mut self,
        x: Atom,
        items: &[Item],
        mode: Option<IndexMode>,
        fill_value: Option<f64>,
        span: Span,
    ) -> Result<Atom> {
        let ix = self.indexer(&x, items, span)?;
        let g = GatherParams {
            dims: ix.dims,
            slice_sizes: ix.slice_sizes,
            mode: mode.unwrap_or(IndexMode::PromiseInBounds),
            fill_value,
            indices_are_sorted: false,
            unique_indices: false,
        };
        self.b
            .bind1(&prims::GATHER, Params::Gather(g), vec![x, ix.indices], span)
    }

    /// `x.at(index).set(v)` (`add`, `mul`, `min`, `max`) with an index
    /// array or a traced position: one scatter (`_scatter_update`), the
    /// update broadcast to the shape of `x[index]`.
    pub(crate) fn indexed_update(
        &mut self,
        x: Atom,
        items: &[Item],
        prim: crate::prims::Prim,
        v: Atom,
        mode: IndexMode,
        span: Span,
    ) -> Result<Atom> {
        let ix = self.indexer(&x, items, span)?;
        let dtype = self.b.aval(&x).dtype;
        let v = jnp::convert(&mut self.b, v, dtype, false, span)?;
        let v = if self.b.aval(&v).shape == ix.shape {
            v
        } else {
            jnp::broadcast_to(&mut self.b, v, ix.shape.clone(), span)?
        };
        let s = ScatterParams {
            dims: ix.dims,
            mode,
            indices_are_sorted: ix.scalar_only,
            unique_indices: ix.scalar_only,
        };
        self.b.bind1(
            prim,
            Params::ScatterIndexed(s),
            vec![x, ix.indices, v],
            span,
        )
    }
}

impl Tracer {
    /// `Mode::Clip`, `jax::index::Mode::FillOrDrop`, `Mode::PromiseInBounds`:
    /// read from the path's last segment, as the eager API spells them.
    pub(crate) fn index_mode(&mut self, e: &syn::Expr) -> Result<IndexMode> {
        use syn::spanned::Spanned;
        if let syn::Expr::Path(p) = e {
            if let Some(seg) = p.path.segments.last() {
                match seg.ident.to_string().as_str() {
                    "Clip" => return Ok(IndexMode::Clip),
                    "FillOrDrop" => return Ok(IndexMode::FillOrDrop),
                    "PromiseInBounds" => return Ok(IndexMode::PromiseInBounds),
                    _ => {}
                }
            }
        }
        err(
            e.span(),
            "the mode must be written `Mode::Clip`, `Mode::FillOrDrop` or `Mode::PromiseInBounds` (jax::index::Mode), known when the function compiles",
        )
    }

    /// A fill value known when the function compiles (a literal or a const).
    pub(crate) fn fill_value(&mut self, e: &syn::Expr) -> Result<f64> {
        use syn::spanned::Spanned;
        match self.expr(e)? {
            crate::frontend::value::Value::Static(Scalar::Int(i)) => Ok(i as f64),
            crate::frontend::value::Value::Static(Scalar::Float(f)) => Ok(f),
            crate::frontend::value::Value::Static(Scalar::Bool(b)) => Ok(b as u8 as f64),
            _ => err(
                e.span(),
                "a fill value must be known when the function compiles (a literal or a const), as JAX's `fill_value` is static",
            ),
        }
    }
}
