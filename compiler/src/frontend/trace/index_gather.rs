//! Indexing with index arrays inside `#[jax::jit]` (`x.at(idx).get()`,
//! `x.at((i, idx)).add(v)`), and updates at traced scalar positions: the
//! index turned into one `gather`'s (or scatter's) indices and dimension
//! numbers as `jnp`'s `_index_to_gather` builds them. Index arrays
//! broadcast together (NumPy's advanced indexing); their axes replace the
//! indexed ones where they stand, or go first when a slice separates them.

use proc_macro2::Span;

use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Item;
use crate::ir::builder::{err, literal, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, GatherParams, IndexDims, IndexMode, Params, ScatterParams};
use jax_core::lax::Lax;
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
    fn normalized(&mut self, i: Atom, n: usize, span: Span) -> Result<Atom> {
        let a = self.b.aval(&i);
        let i = if a.dtype.kind() == jax_dtypes::Kind::UInt {
            i
        } else {
            // The length as a constant of the index's dtype, which JAX
            // refuses when it does not fit (`jax_dtypes::index`).
            let n = match jax_dtypes::index::axis_len_in(a.dtype, n) {
                Ok(n) => n,
                Err(e) => return err(span, e),
            };
            let zero = literal(Scalar::Int(0), Aval::scalar(a.dtype, false));
            let size = literal(Scalar::Int(n), Aval::scalar(a.dtype, false));
            let neg = jnp::binary(&mut self.b, &prims::LT, i.clone(), zero, span)?;
            let wrapped = jnp::binary(&mut self.b, &prims::ADD, i.clone(), size, span)?;
            self.at(span)
                .apply(&prims::SELECT_N, vec![neg, i, wrapped])?
        };
        Ok(i)
    }

    /// Whether an index needs a gather: it holds an index array.
    pub(crate) fn has_index_array(items: &[Item]) -> bool {
        items.iter().any(|i| matches!(i, Item::Array(_)))
    }

    /// `_index_to_gather`: when an index array is present, every integer
    /// (static, traced or array) is an advanced index; they broadcast
    /// together and their axes stand where the first was (or first, when a
    /// slice separates them). Positions are normalized, then int32.
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
                return err(
                    span,
                    format!("indexing an axis of symbolic size {d} is not supported"),
                );
            };
            sizes.push(*n);
        }
        let advanced = Self::has_index_array(items);
        // int32, or int64 for an axis longer than int32's max (as eager).
        let i32 = jax_dtypes::index::index_dtype(&sizes);
        // Normalized positions, item by item (`NDIndexer.normalize_indices`).
        let mut normed: Vec<Option<Atom>> = Vec::new();
        for (k, it) in items.iter().enumerate() {
            normed.push(match it {
                Item::Int(i) => {
                    // A Python int: weakly typed, normalized exactly, then
                    // wrapped to the index dtype (as eager, `jax_dtypes::index`).
                    let i = jax_dtypes::index::literal_position(*i, sizes[k], i32) as i128;
                    Some(literal(Scalar::Int(i), Aval::scalar(i32, advanced)))
                }
                Item::Array(i) | Item::Dynamic(i) => {
                    let ia = self.b.aval(i);
                    if !ia.dtype.is_integer() {
                        return err(span, format!("index arrays must be of an integer type, got {ia}; convert it with `.astype::<i32>()`"));
                    }
                    Some(self.normalized(i.clone(), sizes[k], span)?)
                }
                Item::Range { .. } => None,
            });
        }
        let adv: Vec<usize> = if advanced {
            (0..items.len()).filter(|&k| normed[k].is_some()).collect()
        } else {
            Vec::new()
        };
        let contiguous = adv.windows(2).all(|w| w[1] == w[0] + 1);
        let mut parts: Vec<(Atom, usize)> = Vec::new();
        let mut gather_shape: Vec<Dim> = Vec::new();
        let mut dims = IndexDims::default();
        let mut slice_sizes = Vec::new();
        let mut shape: Vec<Dim> = Vec::new();
        let mut y = 0usize;
        for (k, &n) in sizes.iter().enumerate() {
            if !adv.is_empty() && ((contiguous && k == adv[0]) || (!contiguous && k == 0)) {
                let pieces: Vec<Atom> = adv.iter().map(|&j| normed[j].clone().unwrap()).collect();
                let shapes: Vec<Vec<Dim>> = pieces.iter().map(|p| self.b.aval(p).shape).collect();
                let common = broadcast_shapes(&shapes, span)?;
                let start = gather_shape.len();
                for p in pieces {
                    let p = if self.b.aval(&p).shape == common {
                        p
                    } else {
                        jnp::broadcast_to(&mut self.b, p, common.clone(), span)?
                    };
                    parts.push((self.as_index_dtype(p, i32, span)?, start));
                }
                gather_shape.extend(common.iter().cloned());
                dims.index_map.extend(adv.iter().copied());
                dims.collapsed.extend(adv.iter().copied());
                shape.extend(common.iter().cloned());
                y += common.len();
            }
            if adv.contains(&k) {
                slice_sizes.push(1);
                continue;
            }
            match items.get(k) {
                Some(Item::Int(_) | Item::Dynamic(_) | Item::Array(_)) => {
                    let i = normed[k].clone().unwrap();
                    parts.push((self.as_index_dtype(i, i32, span)?, gather_shape.len()));
                    dims.collapsed.push(k);
                    dims.index_map.push(k);
                    slice_sizes.push(1);
                }
                None
                | Some(Item::Range {
                    start: None,
                    end: None,
                    step: 1,
                }) => {
                    dims.offset.push(y);
                    shape.push(Dim::Lit(n));
                    slice_sizes.push(n);
                    y += 1;
                }
                Some(Item::Range {
                    start,
                    end,
                    step: 1,
                }) => {
                    let norm = |v: i128| {
                        if v < 0 {
                            (v + n as i128).max(0)
                        } else {
                            v.min(n as i128)
                        }
                    };
                    let s = start.map_or(0, norm);
                    let len = (end.map_or(n as i128, norm).max(s) - s) as usize;
                    if len != n {
                        parts.push((
                            literal(Scalar::Int(s), Aval::scalar(i32, false)),
                            gather_shape.len(),
                        ));
                        dims.index_map.push(k);
                    }
                    dims.offset.push(y);
                    shape.push(Dim::Lit(len));
                    slice_sizes.push(len);
                    y += 1;
                }
                Some(Item::Range { start, end, step }) => {
                    // `start + step * iota(len)`: one more index axis, collapsed
                    // (`_index_to_gather`'s positions of a stepped slice).
                    let norm = |v: i128| {
                        if v < 0 {
                            (v + n as i128).max(0)
                        } else {
                            v.min(n as i128)
                        }
                    };
                    let s = start.map_or(0, norm);
                    let e = end.map_or(n as i128, norm).max(s);
                    let len = (e - s + step - 1) / step;
                    let iota = self.at(span).iota(i32, vec![Dim::Lit(len as usize)], 0)?;
                    let lit = |v: i128| literal(Scalar::Int(v), Aval::scalar(i32, false));
                    let scaled = self.at(span).binary(&prims::MUL, lit(*step), iota)?;
                    let at = self.at(span).binary(&prims::ADD, lit(s), scaled)?;
                    parts.push((at, gather_shape.len()));
                    gather_shape.push(Dim::Lit(len as usize));
                    dims.collapsed.push(k);
                    dims.index_map.push(k);
                    slice_sizes.push(1);
                    shape.push(Dim::Lit(len as usize));
                    y += 1;
                }
            }
        }
        dims.collapsed.sort_unstable();
        let indices = if parts.is_empty() {
            // Whole axes only: an empty index vector (a constant, as JAX's).
            let empty = Aval {
                dtype: i32,
                shape: vec![Dim::Lit(0)],
                weak: false,
            };
            self.b.constant(empty, Vec::new())
        } else if parts.len() == 1 {
            let (g, _) = parts.remove(0);
            let ga = self.b.aval(&g);
            let mut full = ga.shape.clone();
            full.push(Dim::Lit(1));
            self.at(span)
                .broadcast_in_dim(g, full, (0..ga.rank()).collect())?
        } else {
            let last = gather_shape.len();
            let mut full = gather_shape.clone();
            full.push(Dim::Lit(1));
            let mut cols = Vec::new();
            for (g, at) in parts {
                let r = self.b.aval(&g).rank();
                cols.push(self.at(span).broadcast_in_dim(
                    g,
                    full.clone(),
                    (at..at + r).collect(),
                )?);
            }
            self.at(span).concatenate(cols, last)?
        };
        Ok(Indexer {
            indices,
            dims,
            slice_sizes,
            shape,
            scalar_only: !advanced,
        })
    }

    /// `lax.convert_element_type(i, index_dtype)` (int32, or int64 for a
    /// huge axis): nothing for a strong value of that dtype; a literal
    /// folded, wrapping as the conversion does.
    fn as_index_dtype(&mut self, i: Atom, index_dtype: DType, span: Span) -> Result<Atom> {
        let a = self.b.aval(&i);
        if a.dtype == index_dtype && !a.weak {
            return Ok(i);
        }
        if let Atom::Lit(crate::ir::Literal {
            value: Scalar::Int(v),
            ..
        }) = i
        {
            let v = jax_dtypes::index::wrap_to_index_dtype(v, index_dtype) as i128;
            return Ok(literal(Scalar::Int(v), Aval::scalar(index_dtype, false)));
        }
        self.at(span).convert_element_type(i, index_dtype, false)
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
        let mode = mode.unwrap_or(IndexMode::PromiseInBounds);
        // `mode='fill'` without a value fills with the dtype's default,
        // which JAX's jaxprs print.
        let fill_value = match (mode, fill_value) {
            (IndexMode::FillOrDrop, None) => {
                Some(jax_core::indexing::default_fill(self.b.aval(&x).dtype))
            }
            (_, f) => f,
        };
        let g = GatherParams {
            dims: ix.dims,
            slice_sizes: ix.slice_sizes,
            mode,
            fill_value,
            indices_are_sorted: false,
            unique_indices: false,
        };
        self.at(span).gather(x, ix.indices, g)
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
        self.b
            .bind1(prim, Params::Scatter(s), vec![x, ix.indices, v], span)
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
            crate::frontend::trace::value::Value::Static(Scalar::Int(i)) => Ok(i as f64),
            crate::frontend::trace::value::Value::Static(Scalar::Float(f)) => Ok(f),
            crate::frontend::trace::value::Value::Static(Scalar::Bool(b)) => Ok(b as u8 as f64),
            _ => err(
                e.span(),
                "a fill value must be known when the function compiles (a literal or a const), as JAX's `fill_value` is static",
            ),
        }
    }
}
