//! Control flow: `cond`, `while` and `scan`, each nested program emitted by
//! an emitter of its own as a block, with the loops' carries in variables
//! of their own, moved into the body where it may update them in place.

use jax_dtypes::DType;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Eqn, Jaxpr, Literal, Scalar, Var};
use crate::prims::{row_major_strides, size_tokens, Lowering, Params};

impl Emitter<'_> {
    /// A nested jaxpr (a loop body, a branch) as a block evaluating to the
    /// tuple of its outputs (owned buffers or scalars). `inputs` are its
    /// inputs' expressions: a scalar value, or a `&[T]` of the row-major data.
    pub(super) fn sub_block(
        &self,
        body: &Jaxpr,
        inputs: &[(TokenStream, bool)],
    ) -> syn::Result<TokenStream> {
        self.sub_block_owning(body, inputs, 0, self.repeated, self.dispatched)
    }

    /// [`Self::sub_block`] whose first `n_owned` inputs are `Vec`s moved in:
    /// the body may write over them once they are dead, or return them;
    /// those it does neither with go back to the pool. `dispatched`: the
    /// block runs inside a loop compiled whole per SIMD level (see
    /// [`Emitter::whole_loop`]).
    fn sub_block_owning(
        &self,
        body: &Jaxpr,
        inputs: &[(TokenStream, bool)],
        n_owned: usize,
        repeated: bool,
        dispatched: bool,
    ) -> syn::Result<TokenStream> {
        let mut body = body.clone();
        crate::transform::simplify::simplify(&mut body);
        let mut em = Emitter::new(&body);
        em.calls = self.calls.clone();
        em.root = false;
        em.parallel = self.parallel && !dispatched;
        em.repeated = repeated;
        em.dispatched = dispatched;
        em.device = self.device;
        for (v, values) in &body.constvars {
            em.constant(*v, values);
        }
        for (k, ((expr, scalar), v)) in inputs.iter().zip(&body.invars).enumerate() {
            if *scalar {
                em.input_data(*v, quote!(&[]), Some(expr.clone()));
            } else if k < n_owned {
                em.input_owned(*v, expr.clone());
            } else {
                em.input_data(*v, expr.clone(), None);
            }
        }
        em.eqns()?;
        let (stmts, outs) = em.finish();
        let unused: Vec<&Ident> = em
            .bufs
            .owned_inputs
            .iter()
            .filter(|n| {
                em.bufs.owned.contains(&n.to_string()) && !em.bufs.returned.contains(&n.to_string())
            })
            .collect();
        if unused.is_empty() {
            return Ok(quote!({ #(#stmts)* (#(#outs,)*) }));
        }
        let held: Vec<Ident> = (0..outs.len())
            .map(|i| format_ident!("__held{}", i))
            .collect();
        Ok(quote!({
            #(#stmts)*
            #(let #held = #outs;)*
            #(::jax::__rt::recycle(#unused);)*
            (#(#held,)*)
        }))
    }

    /// Moves each step's new carry in; an array's old buffer goes back for
    /// the next step's outputs (`__rt::recycle`) instead of to the allocator,
    /// unless it was `moved` into the body, which disposed of it.
    fn next_carry(
        &self,
        carry: &[Ident],
        news: &[Ident],
        init: &[Atom],
        moved: bool,
    ) -> Vec<TokenStream> {
        carry
            .iter()
            .zip(news)
            .zip(init)
            .map(|((c, n), a)| {
                if moved || self.aval(a).rank() == 0 {
                    quote!(#c = #n;)
                } else {
                    quote!(::jax::__rt::recycle(::std::mem::replace(&mut #c, #n));)
                }
            })
            .collect()
    }

    /// A loop body as a block, after hoisting what only its invariants need
    /// out of the loop: a matrix-vector product `W x` with `W` invariant
    /// reads a transposed copy of `W` made once, so each step runs along
    /// contiguous columns instead of summing across each row; `Wᵀ x` reads
    /// a copy starting on a cache line (vector loads of a misaligned `W`
    /// straddle two lines: the RNN gradient's backward loop took 16 %
    /// longer). `inputs` are the body's inputs; those from
    /// `first_invariant` on are invariants.
    ///
    /// `borrowed` gives, for each input that varies per step, an expression
    /// borrowing its data (`&[T]`) before the body runs, when it has one:
    /// then `W v` with `W` invariant and `v` such an input is computed
    /// before the body into a buffer allocated once, by a matrix-vector
    /// loop inlined into the caller (`Hoisted::matvecs`), and the body reads
    /// that buffer. Returns the block and what to emit before the loop.
    ///
    /// A body whose values are all small ([`small_body`]) is emitted with
    /// plain loops, for a loop that [`Self::whole_loop`] compiles whole per
    /// SIMD level: a dispatch per inner loop and step (a call that is not
    /// inlined, and a check of the level) cost an RNN step more than its
    /// `tanh`s.
    fn loop_body(
        &mut self,
        body: &Jaxpr,
        first_invariant: usize,
        mut inputs: Vec<(TokenStream, bool)>,
        n_owned: usize,
        borrowed: &[Option<TokenStream>],
        may_be_plain: bool,
    ) -> syn::Result<(TokenStream, Hoisted)> {
        let mut body = body.clone();
        let k = self.stmts.len();
        for e in 0..body.eqns.len() {
            let eqn = &body.eqns[e];
            let Params::DotGeneral {
                lhs_contract,
                lhs_batch,
                ..
            } = &eqn.params
            else {
                continue;
            };
            let Atom::Var(w) = &eqn.ins[0] else { continue };
            let Some(j) = body.invars.iter().position(|v| v == w) else {
                continue;
            };
            let wa = body.aval(*w).clone();
            let xa = body.atom_aval(&eqn.ins[1]).clone();
            let (Some(rows), Some(cols)) = (dim_lit(&wa.shape, 0), dim_lit(&wa.shape, 1)) else {
                continue;
            };
            let transpose = lhs_contract == &[1];
            if j < first_invariant
                || wa.rank() != 2
                || xa.rank() != 1
                || !(transpose || lhs_contract == &[0])
                || !lhs_batch.is_empty()
                || !matches!(wa.dtype, DType::F32 | DType::F64)
            {
                continue;
            }
            let ty = rust_type(wa.dtype);
            let src = inputs[j].0.clone();
            // `Wᵀ v` already runs along rows: only the copy's alignment.
            let (name, copy, shape) = if transpose {
                (
                    format_ident!("__transposed{}_{}", k, e),
                    quote!(::jax::__rt::transposed::<#ty>(#src, #rows, #cols)),
                    vec![Dim::Lit(cols), Dim::Lit(rows)],
                )
            } else {
                (
                    format_ident!("__aligned{}_{}", k, e),
                    quote!(::jax::__rt::line_aligned::<#ty>(#src)),
                    wa.shape.clone(),
                )
            };
            self.stmts
                .push(quote!(let #name: ::jax::__rt::LineAligned<#ty> = #copy;));
            inputs.push((quote!(&#name[..]), false));
            let t = body.new_var(Aval { shape, ..wa });
            body.invars.push(t);
            let eqn = &mut body.eqns[e];
            eqn.ins[0] = Atom::Var(t);
            if let Params::DotGeneral { lhs_contract, .. } = &mut eqn.params {
                *lhs_contract = vec![0];
            }
        }
        let mut hoisted = self.hoist_matvecs(&mut body, first_invariant, &mut inputs, borrowed);
        hoisted.plain = may_be_plain && (self.dispatched || small_body(&body));
        let block = self.sub_block_owning(&body, &inputs, n_owned, true, hoisted.plain)?;
        Ok((block, hoisted))
    }

    /// Takes each `A v` out of a loop body whose `A` is an invariant f32 or
    /// f64 matrix contracted along its first axis (row-major `[k, m]`,
    /// as `loop_body` leaves `W x`) and whose `v` is an input with a
    /// `borrowed` expression: the product's result becomes a new input,
    /// read from a buffer that `matvecs` fills before each step.
    fn hoist_matvecs(
        &self,
        body: &mut Jaxpr,
        first_invariant: usize,
        inputs: &mut Vec<(TokenStream, bool)>,
        borrowed: &[Option<TokenStream>],
    ) -> Hoisted {
        let mut hoisted = Hoisted::default();
        let k = self.stmts.len();
        let mut e = 0;
        while e < body.eqns.len() {
            let eqn = &body.eqns[e];
            let found = (|| {
                let Params::DotGeneral {
                    lhs_contract,
                    rhs_contract,
                    lhs_batch,
                    ..
                } = &eqn.params
                else {
                    return None;
                };
                let (Atom::Var(a), Atom::Var(v)) = (&eqn.ins[0], &eqn.ins[1]) else {
                    return None;
                };
                let ja = body.invars.iter().position(|x| x == a)?;
                let jv = body.invars.iter().position(|x| x == v)?;
                let (aa, va) = (body.aval(*a), body.aval(*v));
                let out = body.aval(eqn.outs[0]);
                let (kd, md) = (dim_lit(&aa.shape, 0)?, dim_lit(&aa.shape, 1)?);
                let view = borrowed.get(jv).cloned().flatten()?;
                // Only where `gemm` itself takes the same loop (a small
                // matrix-vector product), so the sums are the same.
                let ok = ja >= first_invariant
                    && aa.rank() == 2
                    && va.rank() == 1
                    && lhs_contract == &[0]
                    && rhs_contract == &[0]
                    && lhs_batch.is_empty()
                    && matches!(aa.dtype, DType::F32 | DType::F64)
                    && va.dtype == aa.dtype
                    && out.dtype == aa.dtype
                    && kd * md <= 1 << 22;
                ok.then(|| (inputs[ja].0.clone(), view, md, aa.dtype))
            })();
            let Some((a, v, m, dtype)) = found else {
                e += 1;
                continue;
            };
            let name = format_ident!("__matvec{}_{}", k, hoisted.buffers.len());
            let ty = rust_type(dtype);
            let f = format_ident!("matvec_{}", ty.to_string());
            hoisted
                .buffers
                .push(quote!(let mut #name: ::std::vec::Vec<#ty> = ::std::vec![0.0; #m];));
            hoisted
                .matvecs
                .push(quote!(::jax::__rt::ops::#f(#a, #v, &mut #name[..]);));
            let eqn = body.eqns.remove(e);
            body.invars.push(eqn.outs[0]);
            inputs.push((quote!(&#name[..]), false));
        }
        hoisted
    }

    /// `steps` (a loop updating the variables `carry`, initialized from
    /// `init`, and `ys`, stacked outputs of the given types) compiled once
    /// per SIMD level and dispatched once, when `whole` and not already
    /// inside such a loop; the variables move in and back out.
    fn whole_loop(
        &self,
        whole: bool,
        steps: TokenStream,
        carry: &[Ident],
        init: &[Atom],
        ys: &[(Ident, TokenStream)],
    ) -> TokenStream {
        if !whole || self.dispatched {
            return steps;
        }
        let state: Vec<&Ident> = carry.iter().chain(ys.iter().map(|(y, _)| y)).collect();
        let types: Vec<TokenStream> = init
            .iter()
            .map(|a| {
                let aval = self.aval(a);
                let ty = rust_type(aval.dtype);
                if aval.rank() == 0 {
                    quote!(#ty)
                } else {
                    quote!(::std::vec::Vec<#ty>)
                }
            })
            .chain(ys.iter().map(|(_, ty)| ty.clone()))
            .collect();
        let body = quote! {
            |(#(mut #state,)*): (#(#types,)*)| {
                #steps
                (#(#state,)*)
            }
        };
        quote! {
            #[allow(unused_mut)]
            let (#(mut #state,)*) = ::jax::__per_level!(dispatch3(
                ::jax::__rt::par::Level::current(),
                #body,
                (#(#state,)*)
            ));
        }
    }

    /// A loop's carry in mutable variables of its own (`__carry{k}_{i}`):
    /// scalars, or owned copies of the initial arrays.
    fn init_carry(&mut self, init: &[Atom], k: usize) -> Vec<Ident> {
        let mut carry = Vec::new();
        for (i, a) in init.iter().enumerate() {
            let c = format_ident!("__carry{}_{}", k, i);
            let aval = self.aval(a).clone();
            let ty = rust_type(aval.dtype);
            if aval.rank() == 0 {
                let s = self.scalar_of(a);
                self.stmts.push(quote!(let mut #c: #ty = #s;));
            } else {
                let buf = self.buffer_of(a, &aval);
                self.stmts
                    .push(quote!(let mut #c: ::std::vec::Vec<#ty> = #buf.to_vec();));
            }
            carry.push(c);
        }
        carry
    }

    /// The carry as a loop body's inputs: scalars, and the buffers as
    /// `&[T]`, or `moved` in as `Vec`s the body owns.
    fn carry_inputs(
        &self,
        carry: &[Ident],
        init: &[Atom],
        moved: bool,
    ) -> Vec<(TokenStream, bool)> {
        carry
            .iter()
            .zip(init)
            .map(|(c, a)| {
                if self.aval(a).rank() == 0 {
                    (quote!(#c), true)
                } else if moved {
                    (quote!(::std::mem::take(&mut #c)), false)
                } else {
                    (quote!(&#c[..]), false)
                }
            })
            .collect()
    }

    /// Binds an operand of a nested jaxpr to a name of its own (the nested
    /// code's variables may shadow the enclosing ones): a scalar, or a
    /// `&[T]` of a whole row-major buffer.
    pub(super) fn bind_operand(&mut self, a: &Atom, name: &Ident) -> (TokenStream, bool) {
        let aval = self.aval(a).clone();
        let ty = rust_type(aval.dtype);
        if aval.rank() == 0 {
            let s = self.scalar_of(a);
            self.stmts.push(quote!(let #name: #ty = #s;));
            (quote!(#name), true)
        } else {
            let buf = self.buffer_of(a, &aval);
            self.stmts.push(quote!(let #name: &[#ty] = &#buf[..];));
            (quote!(#name), false)
        }
    }

    /// The outputs of a nested construct, stored in `names`.
    pub(super) fn bind_outputs(&mut self, outs: &[Var], names: &[Ident]) {
        for (out, name) in outs.iter().zip(names) {
            let aval = self.j.aval(*out).clone();
            if aval.rank() == 0 {
                self.locs.insert(*out, Loc::Scalar(name.clone()));
            } else {
                self.bufs.owned.insert(name.to_string());
                self.locs.insert(
                    *out,
                    Loc::View {
                        buf: name.clone(),
                        offset: quote!(0usize),
                        strides: row_major_strides(&aval.shape),
                    },
                );
            }
        }
    }

    /// `while`: the carry in variables of its own; `loop { if !cond { break }
    /// carry = body }`.
    pub(super) fn while_loop(&mut self, e: &Eqn, w: &crate::prims::While) -> syn::Result<()> {
        // A predicate with lanes (`vmap`), where `simplify` has not run.
        if let Some(e) = crate::prims::while_on_any_lane(e) {
            let Params::While(w) = &e.params else {
                unreachable!()
            };
            return self.while_loop(&e, &w.0);
        }
        let k = self.stmts.len();
        let n = w.n_carry;
        let carry = self.init_carry(&e.ins[..n], k);
        let mut ops = Vec::new();
        for (i, a) in e.ins[n..].iter().enumerate() {
            ops.push(self.bind_operand(a, &format_ident!("__invariant{}_{}", k, i)));
        }
        let (free_cond, free_body) = ops.split_at(w.n_free_cond);
        let carried = self.carry_inputs(&carry, &e.ins[..n], false);
        let with = |f: &[(TokenStream, bool)]| -> Vec<(TokenStream, bool)> {
            carried.iter().chain(f).cloned().collect()
        };
        // The condition and the body run in one copy per level, or each
        // dispatches its own loops.
        let cond_small = self.dispatched || small_body(&w.cond);
        let (body, hoisted) = self.loop_body(&w.body, n, with(free_body), 0, &[], cond_small)?;
        let plain = hoisted.plain;
        let cond = self.sub_block_owning(&w.cond, &with(free_cond), 0, true, plain)?;
        let news: Vec<Ident> = (0..n).map(|i| format_ident!("__next{}_{}", k, i)).collect();
        let step = self.next_carry(&carry, &news, &e.ins[..n], false);
        let steps = quote! {
            loop {
                let (__go,) = #cond;
                if !__go {
                    break;
                }
                let (#(#news,)*) = #body;
                #(#step)*
            }
        };
        let whole = self.whole_loop(plain, steps, &carry, &e.ins[..n], &[]);
        self.stmts.push(whole);
        self.bind_outputs(&e.outs, &carry);
        Ok(())
    }

    /// `scan`: the carry in variables of its own, each step reading row `t`
    /// of every x and writing row `t` of every stacked y (buffers allocated
    /// once).
    pub(super) fn scan(&mut self, e: &Eqn, sc: &crate::prims::Scan) -> syn::Result<()> {
        let k = self.stmts.len();
        let (nc, nx) = (sc.n_carry, sc.n_xs);
        let length = sc.length;
        let carry = self.init_carry(&e.ins[..nc], k);
        let step = format_ident!("__step{}", k);
        let t = format_ident!("__t{}_row", k);
        // xs: whole buffers; each step reads its row.
        let mut xs = Vec::new();
        for (i, a) in e.ins[nc..nc + nx].iter().enumerate() {
            let name = format_ident!("__xs{}_{}", k, i);
            let (expr, _) = self.bind_operand(a, &name);
            let aval = self.aval(a).clone();
            let row = size_tokens(&aval.shape[1..]);
            let scalar_rows = aval.rank() == 1;
            xs.push((expr, row, scalar_rows));
        }
        let mut free = Vec::new();
        for (i, a) in e.ins[nc + nx..].iter().enumerate() {
            free.push(self.bind_operand(a, &format_ident!("__invariant{}_{}", k, i)));
        }
        // ys: stacked outputs, written row by row.
        let n_ys = e.outs.len() - nc;
        let ys: Vec<Ident> = (0..n_ys)
            .map(|i| format_ident!("__ys{}_{}", k, i))
            .collect();
        let mut y_rows = Vec::new();
        for (y, out) in ys.iter().zip(&e.outs[nc..]) {
            let aval = self.j.aval(*out).clone();
            let ty = rust_type(aval.dtype);
            let size = size_tokens(&aval.shape);
            self.stmts.push(
                quote!(let mut #y: ::std::vec::Vec<#ty> = ::jax::__rt::buffer::<#ty>(#size);),
            );
            y_rows.push((size_tokens(&aval.shape[1..]), aval.rank() == 1));
        }
        // The carries move into the body, which may update them in place.
        let mut inputs = self.carry_inputs(&carry, &e.ins[..nc], true);
        for (expr, row, scalar_rows) in &xs {
            if *scalar_rows {
                inputs.push((quote!(#expr[#t]), true));
            } else {
                inputs.push((quote!(&#expr[#t * #row..(#t + 1) * #row]), false));
            }
        }
        inputs.extend(free);
        // Borrowed views of the carries and rows, for products `W v`
        // computed before the body (see `loop_body`).
        let mut borrowed: Vec<Option<TokenStream>> = carry
            .iter()
            .zip(&e.ins[..nc])
            .map(|(c, a)| (self.aval(a).rank() > 0).then(|| quote!(&#c[..])))
            .collect();
        borrowed.extend(
            inputs[nc..nc + nx]
                .iter()
                .map(|(expr, scalar)| (!scalar).then(|| expr.clone())),
        );
        let (block, hoisted) = self.loop_body(&sc.body, nc + nx, inputs, nc, &borrowed, true)?;
        let news: Vec<Ident> = (0..nc)
            .map(|i| format_ident!("__next{}_{}", k, i))
            .collect();
        let outs: Vec<Ident> = (0..n_ys).map(|i| format_ident!("__y{}_{}", k, i)).collect();
        let writes: Vec<TokenStream> = ys
            .iter()
            .zip(&outs)
            .zip(&y_rows)
            .map(|((y, o), (row, scalar))| {
                if *scalar {
                    quote!(#y[#t] = #o;)
                } else {
                    quote! {
                        #y[#t * #row..(#t + 1) * #row].copy_from_slice(&#o[..]);
                        ::jax::__rt::recycle(#o);
                    }
                }
            })
            .collect();
        let next = self.next_carry(&carry, &news, &e.ins[..nc], true);
        let row_of_step = if sc.reverse {
            quote!(#length - 1 - #step)
        } else {
            quote!(#step)
        };
        let Hoisted {
            buffers,
            matvecs,
            plain,
        } = hoisted;
        let steps = quote! {
            #(#buffers)*
            for #step in 0..#length {
                let #t: usize = #row_of_step;
                #(#matvecs)*
                let (#(#news,)* #(#outs,)*) = #block;
                #(#next)*
                #(#writes)*
            }
        };
        // Inlined products run at the CPU's level only in a loop compiled
        // whole per level.
        let ys_typed: Vec<(Ident, TokenStream)> = ys
            .iter()
            .zip(&e.outs[nc..])
            .map(|(y, o)| {
                let ty = rust_type(self.j.aval(*o).dtype);
                (y.clone(), quote!(::std::vec::Vec<#ty>))
            })
            .collect();
        let whole = plain || !matvecs.is_empty();
        let stmt = self.whole_loop(whole, steps, &carry, &e.ins[..nc], &ys_typed);
        self.stmts.push(stmt);
        self.bind_outputs(&e.outs[..nc], &carry);
        self.bind_outputs(&e.outs[nc..], &ys);
        Ok(())
    }

    /// `cond`: a `match` on the index, each branch a block (the last one
    /// also takes any other index; `switch` clamps its index before). A
    /// literal index emits its branch alone.
    pub(super) fn cond(&mut self, e: &Eqn, c: &crate::prims::Cond) -> syn::Result<()> {
        let k = self.stmts.len();
        let mut ops = Vec::new();
        for (i, a) in e.ins[1..].iter().enumerate() {
            ops.push(self.bind_operand(a, &format_ident!("__operand{}_{}", k, i)));
        }
        let inputs = |r: &[usize]| -> Vec<(TokenStream, bool)> {
            r.iter().map(|&i| ops[i - 1].clone()).collect()
        };
        let reads = c.reads();
        let names: Vec<Ident> = (0..e.outs.len())
            .map(|i| format_ident!("__branch{}_{}", k, i))
            .collect();
        let last = c.branches.len() - 1;
        let chosen = match &e.ins[0] {
            Atom::Lit(Literal {
                value: Scalar::Int(i),
                ..
            }) => Some((*i).clamp(0, last as i128) as usize),
            _ => None,
        };
        let value = if let Some(b) = chosen {
            self.sub_block(&c.branches[b], &inputs(&reads[b]))?
        } else {
            let index = self.scalar_of(&e.ins[0]);
            let mut arms = Vec::new();
            for (b, (branch, r)) in c.branches.iter().zip(&reads).enumerate() {
                let block = self.sub_block(branch, &inputs(r))?;
                let pat = if b == last {
                    quote!(_)
                } else {
                    let b = b as i64;
                    quote!(#b)
                };
                arms.push(quote!(#pat => #block,));
            }
            quote!(match #index as i64 { #(#arms)* })
        };
        self.stmts.push(quote! {
            let (#(#names,)*) = #value;
        });
        self.bind_outputs(&e.outs, &names);
        Ok(())
    }
}

/// Matrix-vector products taken out of a loop body (`loop_body`): the
/// buffers they write, allocated once before the loop, and the calls
/// filling them at the start of each step.
#[derive(Default)]
struct Hoisted {
    buffers: Vec<TokenStream>,
    matvecs: Vec<TokenStream>,
    /// Whether the body was emitted with plain loops, for a loop compiled
    /// whole per SIMD level.
    plain: bool,
}

/// Elements of the largest value a loop body may hold for its loops to be
/// plain ([`Emitter::loop_body`]): `par::grain`'s floor, so none of them
/// would have run on more than one thread.
const SMALL_BODY_ELEMENTS: usize = 1024;

/// Whether every loop `j` would emit (and the loops and branches inside it)
/// runs over at most [`SMALL_BODY_ELEMENTS`] elements of a static shape:
/// each value computed, and each operand a reduction folds. Large inputs
/// only read (a weight matrix, the rows a step picks) do not count; other
/// nested programs count as large.
fn small_body(j: &Jaxpr) -> bool {
    let small = |a: &Aval| {
        a.shape
            .iter()
            .try_fold(1usize, |n, d| match d {
                Dim::Lit(k) => n.checked_mul(*k),
                Dim::Sym(_) => None,
            })
            .is_some_and(|n| n <= SMALL_BODY_ELEMENTS)
    };
    j.eqns.iter().all(|e| {
        e.outs.iter().all(|v| small(j.aval(*v)))
            && (e.prim.lowering != Lowering::Reduce || e.ins.iter().all(|a| small(j.atom_aval(a))))
            && match &e.params {
                Params::Scan(sc) => small_body(&sc.0.body),
                Params::While(w) => small_body(&w.0.cond) && small_body(&w.0.body),
                Params::Cond(c) => c.0.branches.iter().all(small_body),
                Params::CustomJvp(_)
                | Params::CustomVjp(_)
                | Params::Checkpoint(_)
                | Params::ShardMap(_)
                | Params::Jit(_) => false,
                _ => true,
            }
    })
}

/// Axis `k` of a shape, when it is a number.
fn dim_lit(shape: &[Dim], k: usize) -> Option<usize> {
    match shape.get(k) {
        Some(Dim::Lit(n)) => Some(*n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::emitted_with;

    #[test]
    fn loop_matrices_are_read_from_line_aligned_copies() {
        // The gradient of an RNN: the forward loop reads `W h` (a transposed
        // copy), the backward loop `Wᵀ v` (an aligned copy).
        let code = emitted_with(
            "fn f(w: Array<f32, 16, 16>, xs: Array<f32, 8, 16>, h: Array<f32, 16>) -> Array<f32> {
                let (h, _) = lax::scan(
                    |h: Array<f32, 16>, x: Array<f32, 16>| (jnp::tanh(w.matmul(&h) + x), 0.0),
                    h.clone(),
                    xs.clone(),
                );
                jnp::sum(h)
            }",
            true,
        );
        assert!(code.contains(":: jax :: __rt :: transposed ::"), "{code}");
        assert!(code.contains(":: jax :: __rt :: line_aligned ::"), "{code}");
    }
}
