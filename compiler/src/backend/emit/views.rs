//! Index maps: a result that is its operand's buffer read through another
//! offset and other strides (the primitive's [`View`]), and dynamic slices,
//! whose offset is computed at run time.

use quote::quote;

use super::{scalar_tokens, strides_are_row_major, Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Eqn, Var};
use crate::prims::{row_major_strides, View, Window};

impl Emitter<'_> {
    /// An index map: the operand's location read through the primitive's
    /// [`View`] (a scalar stays a splat; a value computed in place is stored
    /// first).
    pub(super) fn index_map(&mut self, e: &Eqn, out: Var, aval: &Aval) {
        let x = &e.ins[0];
        let x_aval = self.aval(x).clone();
        let rule = e.prim.view.expect("an index map has a view");
        let view = rule(&e.params, &x_aval, aval);
        if view == View::Dynamic {
            return self.dynamic_slice(&e.ins, out, aval);
        }
        let src = match x {
            Atom::Lit(l) => Loc::Splat(scalar_tokens(l)),
            Atom::Var(v) => {
                if matches!(self.locs[v], Loc::Fused) {
                    self.materialize(*v, &x_aval);
                }
                self.locs[v].clone()
            }
        };
        let loc = match (src, view) {
            (Loc::Scalar(n), _) => Loc::Splat(quote!(#n)),
            (Loc::Splat(t), _) => Loc::Splat(t),
            (
                Loc::View {
                    buf,
                    offset,
                    strides,
                },
                View::Axes { axes, window },
            ) => {
                let (offset, strides) = match window {
                    None => (offset, strides),
                    Some(Window { start, step }) => {
                        let starts = start.iter().zip(&strides).map(|(s, st)| quote!(#s * #st));
                        let offset = quote!(#offset #(+ #starts)*);
                        let strides = step
                            .iter()
                            .zip(&strides)
                            .map(|(step, st)| quote!(#step * #st))
                            .collect();
                        (offset, strides)
                    }
                };
                Loc::View {
                    buf,
                    offset,
                    strides: axes
                        .iter()
                        .map(|a| a.map_or_else(|| quote!(0usize), |k| strides[k].clone()))
                        .collect(),
                }
            }
            (
                Loc::View {
                    buf,
                    offset,
                    strides,
                },
                View::RowMajor,
            ) => {
                if strides_are_row_major(&strides, &x_aval.shape) {
                    Loc::View {
                        buf,
                        offset,
                        strides: row_major_strides(&aval.shape),
                    }
                } else {
                    // A reshape of a strided view: copy to row-major first.
                    let copy = self.copy_view(x, &x_aval);
                    Loc::View {
                        buf: copy,
                        offset: quote!(0usize),
                        strides: row_major_strides(&aval.shape),
                    }
                }
            }
            (other, view) => unreachable!("index map {view:?} of {other:?}"),
        };
        let loc = match loc {
            // A rank-0 result of a view (squeeze of a [1] slice) is a scalar read.
            Loc::View { buf, offset, .. } if aval.rank() == 0 => {
                let name = Self::name(out);
                let ty = rust_type(aval.dtype);
                self.stmts.push(quote!(let #name: #ty = #buf[#offset];));
                Loc::Scalar(name)
            }
            l => l,
        };
        self.locs.insert(out, loc);
    }

    /// `dynamic_slice`: a view of the operand at start indices clamped into
    /// bounds at run time (XLA's rule: the window always fits).
    fn dynamic_slice(&mut self, ins: &[Atom], out: Var, aval: &Aval) {
        let x = &ins[0];
        let x_aval = self.aval(x).clone();
        let buf = self.buffer_of(x, &x_aval);
        let strides = row_major_strides(&x_aval.shape);
        let mut terms = Vec::new();
        for (k, idx) in ins[1..].iter().enumerate() {
            let start = self.scalar_of(idx);
            let (Dim::Lit(n), Dim::Lit(s)) = (&x_aval.shape[k], &aval.shape[k]) else {
                unreachable!("dynamic_slice is built on literal dimensions")
            };
            let max = (n - s) as i128;
            let stride = &strides[k];
            // Through i128, which holds every index type: a u64 past
            // i64::MAX is out of bounds high, as XLA clamps it, not negative.
            terms.push(quote!(((#start as i128).clamp(0, #max) as usize) * #stride));
        }
        self.locs.insert(
            out,
            Loc::View {
                buf,
                offset: quote!((0usize #(+ #terms)*)),
                strides,
            },
        );
    }
}
