//! Emission: a jaxpr becomes the body of an ordinary Rust function.
//!
//! Rank-0 values are Rust scalars. Elementwise results that
//! [`crate::backend::fuse`] fused are computed inside their consumer's loop
//! (`loops`). Index maps of stored arrays (broadcasts, transposes, slices,
//! squeezes, reshapes) are views, an offset and a stride per axis, read in
//! place (`views`). Everything else is stored in a buffer (`buffers`)
//! written by one loop nest, a reduction's (`reduce`) or a runtime kernel's
//! call (`kernels`). Control flow emits its programs as blocks (`control`);
//! `replay` is the `jax_debug_nans` replay. This file holds the [`Emitter`]:
//! where each value lives, the inputs, the dispatch of each equation on its
//! primitive's lowering, and the outputs.

mod buffers;
mod calls;
mod control;
mod epilogue;
mod flat;
mod groups;
mod kernels;
mod loops;
mod nest;
mod per_level;
mod reduce;
mod replay;
mod sincos;
mod spmd;
mod views;

use std::collections::{HashMap, HashSet};

use jax_dtypes::DType;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Eqn, Jaxpr, Literal, Scalar, Var};
use crate::prims::{row_major_strides, Lowering, Params};

pub use crate::prims::{dim_tokens, size_tokens};
use buffers::{Buffers, Live, RowTarget};
pub(crate) use calls::in_module;
pub(crate) use per_level::optimized_form;
use replay::Replay;

/// Where each variable's value lives, with the variables placed since
/// [`Emitter::refresh_live`] last took them (into [`Live`]).
#[derive(Default)]
struct Locs {
    map: HashMap<Var, Loc>,
    placed: Vec<Var>,
}

impl Locs {
    fn insert(&mut self, v: Var, loc: Loc) {
        self.placed.push(v);
        self.map.insert(v, loc);
    }
}

impl std::ops::Deref for Locs {
    type Target = HashMap<Var, Loc>;
    fn deref(&self) -> &HashMap<Var, Loc> {
        &self.map
    }
}

/// Where a variable's value lives in the emitted code.
#[derive(Clone, Debug)]
enum Loc {
    /// A Rust scalar local (rank-0 values).
    Scalar(Ident),
    /// A row-major buffer (a `Vec<T>` or an input's `&[T]`), read through
    /// an offset and a stride per axis of the variable's shape (0 for
    /// broadcast axes).
    View {
        buf: Ident,
        offset: TokenStream,
        strides: Vec<TokenStream>,
    },
    /// A scalar broadcast to the variable's shape.
    Splat(TokenStream),
    /// Computed inside the consumer's loop.
    Fused,
}

/// Emits a jaxpr as statements: bind its inputs (`input`, `constant`),
/// emit its equations (`eqns`), then `finish` gives the statements and an
/// expression for each output.
pub struct Emitter<'a> {
    j: &'a Jaxpr,
    locs: Locs,
    /// Which buffers the values still to be read live in (see [`Live`]).
    live: Live,
    stmts: Vec<TokenStream>,
    fusion: crate::backend::fuse::Fusion,
    /// How many operand slots of equations read each variable.
    uses: HashMap<Var, usize>,
    /// The index of the equation whose emitted code reads each variable
    /// last (a fused reader reads where its consumer is emitted); outputs
    /// are read at the end. After it, the variable's buffer is dead.
    last: HashMap<Var, usize>,
    /// The index of the equation being emitted.
    cur: usize,
    /// The equation computing each variable (an index into `j.eqns`).
    producers: HashMap<Var, usize>,
    /// The equations reading each variable, in order.
    readers: HashMap<Var, Vec<usize>>,
    /// Which buffers this body owns, reuses, returned or hoisted.
    bufs: Buffers,
    /// Whether loops may run in parallel chunks (not inside a row program,
    /// whose rows already run in parallel).
    parallel: bool,
    /// A row program's output and the row it is written to.
    target: Option<RowTarget>,
    /// `jax_debug_nans`' replay, when this emits one: nothing fused, and
    /// each operation that computes floats checked (see `replay`).
    replay: Option<Replay>,
    /// Whether this code runs inside a whole loop compiled once per SIMD
    /// level (`control::whole_loop`): its own loops are plain, one copy
    /// each, on this thread, inlined into the level's copy.
    dispatched: bool,
    /// Whether this body runs once per step of a loop: its short loops are
    /// worth a copy per SIMD level even when one call of them is cheap.
    repeated: bool,
    /// Whether this body runs on each device of a `shard_map` (as the
    /// closure whose `__dev` its collectives name).
    device: bool,
    /// Results already stored by an earlier equation's multi-output loop
    /// (see `groups::group`), and results no emitted code reads.
    done: HashSet<Var>,
    unread: HashSet<Var>,
    /// The functions emitted for `jit` bodies (see `calls`), shared with
    /// the emitters of nested programs; `root` when this emitter made the
    /// registry and so writes their definitions.
    calls: std::rc::Rc<std::cell::RefCell<calls::Calls>>,
    root: bool,
}

impl<'a> Emitter<'a> {
    /// An emitter for the replay of `jax_debug_nans` (see `replay`).
    pub fn checked(j: &'a Jaxpr) -> Emitter<'a> {
        let mut em = Emitter::new(j);
        em.fusion = crate::backend::fuse::Fusion::default();
        em.parallel = false;
        em.replay = Some(Replay::default());
        em
    }

    /// An emitter for `j`, fused as `fuse::plan` says.
    pub fn new(j: &'a Jaxpr) -> Emitter<'a> {
        let fusion = crate::backend::fuse::plan(j);
        let (calls, root) = calls::registry();
        Emitter {
            j,
            locs: Locs::default(),
            live: Live::default(),
            stmts: Vec::new(),
            last: last_reads(j, &fusion),
            cur: 0,
            producers: j
                .eqns
                .iter()
                .enumerate()
                .flat_map(|(k, e)| e.outs.iter().map(move |v| (*v, k)))
                .collect(),
            readers: {
                let mut r: HashMap<Var, Vec<usize>> = HashMap::new();
                for (k, e) in j.eqns.iter().enumerate() {
                    for a in &e.ins {
                        if let Atom::Var(v) = a {
                            let ks = r.entry(*v).or_default();
                            if ks.last() != Some(&k) {
                                ks.push(k);
                            }
                        }
                    }
                }
                r
            },
            fusion,
            uses: {
                let mut u = HashMap::new();
                for e in &j.eqns {
                    for a in &e.ins {
                        if let Atom::Var(v) = a {
                            *u.entry(*v).or_insert(0) += 1;
                        }
                    }
                }
                u
            },
            bufs: Buffers::default(),
            parallel: true,
            target: None,
            replay: None,
            repeated: false,
            dispatched: false,
            device: false,
            done: HashSet::new(),
            unread: HashSet::new(),
            calls,
            root,
        }
    }

    /// The index of the equation computing `v` (`None` for an input).
    fn producer_index(&self, v: Var) -> Option<usize> {
        self.producers.get(&v).copied()
    }

    /// The equation computing `v` (`None` for an input).
    fn producer(&self, v: Var) -> Option<&'a Eqn> {
        let j: &'a Jaxpr = self.j;
        self.producer_index(v).map(|k| &j.eqns[k])
    }

    /// The equations reading `v`, in order.
    fn readers(&self, v: Var) -> impl Iterator<Item = &'a Eqn> + '_ {
        let j: &'a Jaxpr = self.j;
        self.readers
            .get(&v)
            .into_iter()
            .flatten()
            .map(move |&k| &j.eqns[k])
    }

    fn name(v: Var) -> Ident {
        format_ident!("__v{}", v.0)
    }

    fn aval<'b>(&'b self, a: &'b Atom) -> &'b Aval {
        self.j.atom_aval(a)
    }

    /// Binds a constant array: a `'static` slice of its values.
    pub fn constant(&mut self, v: Var, values: &[Scalar]) {
        let name = Self::name(v);
        let aval = self.j.aval(v).clone();
        let ty = rust_type(aval.dtype);
        let elems: Vec<TokenStream> = values
            .iter()
            .map(|&value| {
                scalar_tokens(&Literal {
                    value,
                    aval: Aval::scalar(aval.dtype, false),
                })
            })
            .collect();
        self.stmts.push(quote!(let #name: &[#ty] = &[#(#elems),*];));
        self.locs.insert(
            v,
            Loc::View {
                buf: name,
                offset: quote!(0usize),
                strides: row_major_strides(&aval.shape),
            },
        );
    }

    /// Binds an input: `expr` is the parameter (an `Array`, `&Array` or Rust
    /// scalar, then `rust_scalar`).
    pub fn input(&mut self, v: Var, expr: TokenStream, rust_scalar: bool) {
        self.input_data(
            v,
            quote!(::jax::__rt::data(&#expr)),
            rust_scalar.then_some(expr),
        )
    }

    /// An array input moved in as a `Vec` (a loop's carry): owned, so it
    /// can be written over once dead, or returned without a copy.
    fn input_owned(&mut self, v: Var, data: TokenStream) {
        let name = Self::name(v);
        let aval = self.j.aval(v).clone();
        let ty = rust_type(aval.dtype);
        self.stmts
            .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #data;));
        self.bufs.owned.insert(name.to_string());
        self.bufs.owned_inputs.push(name.clone());
        let kind = Self::kind(&ty, &size_tokens(&aval.shape));
        self.bufs.kinds.insert(name.to_string(), kind);
        self.locs.insert(
            v,
            Loc::View {
                buf: name,
                offset: quote!(0usize),
                strides: row_major_strides(&aval.shape),
            },
        );
    }

    /// An array argument taken by value (donated): its buffer moved in
    /// (`__rt::donate`), so the body may write over it once dead or
    /// return it, and gives it to the pool when it dies unused.
    pub fn input_donated(&mut self, v: Var, expr: TokenStream) {
        self.input_owned(v, quote!(::jax::__rt::donate(#expr)));
    }

    /// Whether the donated input `v`'s buffer was written over or returned
    /// (not only given back to the pool): else donating it gains nothing,
    /// and a shared one would be copied for nothing.
    pub fn donation_used(&self, v: Var) -> bool {
        let key = Self::name(v).to_string();
        self.bufs.returned.contains(&key)
            || (!self.bufs.owned.contains(&key) && !self.bufs.recycled.contains(&key))
    }

    /// Binds an input from an expression of its row-major data (`&[T]`), or
    /// of its value when it is a Rust scalar.
    pub fn input_data(&mut self, v: Var, data: TokenStream, rust_scalar: Option<TokenStream>) {
        let name = Self::name(v);
        let aval = self.j.aval(v).clone();
        let ty = rust_type(aval.dtype);
        if let Some(expr) = rust_scalar {
            self.stmts.push(quote!(let #name: #ty = #expr;));
            self.locs.insert(v, Loc::Scalar(name));
        } else if aval.rank() == 0 {
            self.stmts.push(quote!(let #name: #ty = (#data)[0];));
            self.locs.insert(v, Loc::Scalar(name));
        } else {
            self.stmts.push(quote!(let #name: &[#ty] = #data;));
            self.locs.insert(
                v,
                Loc::View {
                    buf: name,
                    offset: quote!(0usize),
                    strides: row_major_strides(&aval.shape),
                },
            );
        }
    }

    pub fn eqns(&mut self) -> syn::Result<()> {
        let unread = self.unread();
        self.unread = unread.clone();
        for (k, e) in self.j.eqns.iter().enumerate() {
            self.cur = k;
            self.flush_spare(true);
            self.recycle_dead();
            let out = e.outs[0];
            if unread.contains(&out)
                || self.done.contains(&out)
                || self.fusion.absorbed.contains(&out)
            {
                continue;
            }
            if self.replay.is_some() && self.replayable(e) {
                // One call runs the operation and its checks.
                self.replay_map(e, out, &self.j.aval(out).clone());
                continue;
            }
            let checked = self.replay.is_some() && e.prim.lowering != Lowering::IndexMap;
            if checked {
                self.check_inputs(e);
            }
            self.eqn(e)?;
            if checked {
                self.check_outputs(e);
            }
        }
        // What only the last equations read goes back too (a scan's stacked
        // residuals read by a final matrix product): dropped, a large buffer
        // returns its pages to the system and the next call faults them in
        // again.
        self.cur = self.j.eqns.len();
        self.recycle_dead();
        self.flush_spare(false);
        Ok(())
    }

    /// The results no emitted code reads: a kernel's operands it never binds
    /// (their values are in its parameters, as a scatter's indices), and what
    /// only they and other such results read. They need no code.
    fn unread(&self) -> HashSet<Var> {
        let mut unread = HashSet::new();
        // How many of each variable's reads are by unread slots.
        let mut unread_reads: HashMap<Var, usize> = HashMap::new();
        for e in self.j.eqns.iter().rev() {
            let dead = e.prim.lowering != Lowering::Effect
                && e.outs.iter().all(|o| {
                    let n = self.uses.get(o).copied().unwrap_or(0);
                    n > 0
                        && unread_reads.get(o) == Some(&n)
                        && !self.j.outvars.contains(&Atom::Var(*o))
                });
            let slots: Vec<usize> = if dead {
                unread.extend(e.outs.iter().copied());
                (0..e.ins.len()).collect()
            } else {
                e.prim.kernel.map_or(Vec::new(), |k| k.unread.to_vec())
            };
            for k in slots {
                if let Some(Atom::Var(v)) = e.ins.get(k) {
                    *unread_reads.entry(*v).or_insert(0) += 1;
                }
            }
        }
        unread
    }

    /// Emits one equation. Control flow is dispatched on its parameters, as
    /// it emits its programs with this emitter's own state (see `control`).
    fn eqn(&mut self, e: &Eqn) -> syn::Result<()> {
        let out = e.outs[0];
        match &e.params {
            Params::Cond(c) => return self.cond(e, &c.0),
            Params::While(w) => return self.while_loop(e, &w.0),
            Params::Scan(sc) => return self.scan(e, &sc.0),
            Params::ShardMap(s) => return self.shard_map(e, &s.0),
            Params::Jit(c) => return self.call(e, &c.0),
            _ => {}
        }
        let aval = self.j.aval(out).clone();
        match e.prim.lowering {
            Lowering::Elementwise if aval.rank() == 0 => {
                let args: Vec<TokenStream> = e.ins.iter().map(|a| self.scalar_of(a)).collect();
                let value = e.prim.scalar_call(&e.params, &args);
                let name = Self::name(out);
                let ty = rust_type(aval.dtype);
                self.stmts.push(quote!(let #name: #ty = #value;));
                self.locs.insert(out, Loc::Scalar(name));
            }
            Lowering::Sample if aval.rank() == 0 => {
                let value = self.sample_call(e, self.key_words(&e.ins[0]), quote!(0usize));
                let name = Self::name(out);
                let ty = rust_type(aval.dtype);
                self.stmts.push(quote!(let #name: #ty = #value;));
                self.locs.insert(out, Loc::Scalar(name));
            }
            Lowering::Elementwise | Lowering::Sample => {
                if self.fusion.fused.contains(&out) {
                    self.locs.insert(out, Loc::Fused);
                } else {
                    self.materialize(out, &aval);
                }
            }
            Lowering::IndexMap => self.index_map(e, out, &aval),
            Lowering::Reduce => self.reduce(e, out, &aval),
            // A gather of single elements: computed element by element.
            Lowering::Kernel if self.fusion.gathers.contains_key(&out) => {
                if self.fusion.fused.contains(&out) {
                    self.locs.insert(out, Loc::Fused);
                } else {
                    self.materialize(out, &aval);
                }
            }
            // A matrix product computed in its reader's epilogue (see `epilogue`).
            Lowering::Kernel if self.fusion.fused.contains(&out) => {
                self.locs.insert(out, Loc::Fused);
            }
            Lowering::Kernel => self.kernel(e, out, &aval),
            Lowering::Effect => self.debug_print(e),
        }
        Ok(())
    }

    fn scalar_of(&self, a: &Atom) -> TokenStream {
        match a {
            Atom::Lit(l) => scalar_tokens(l),
            Atom::Var(v) => match &self.locs[v] {
                Loc::Scalar(n) => quote!(#n),
                Loc::Splat(t) => t.clone(),
                Loc::View { buf, offset, .. } => quote!(#buf[#offset]),
                Loc::Fused => unreachable!("rank-0 values are never fused"),
            },
        }
    }

    /// The statements, and an expression for each output: a scalar value or a
    /// `Vec` in row-major order.
    pub fn finish(&mut self) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let mut outs = Vec::new();
        for a in self.j.outvars.clone() {
            if let Some(t) = self.target.as_ref().filter(|t| t.written) {
                if a == Atom::Var(t.var) {
                    let row = &t.row;
                    outs.push(quote!(#row));
                    continue;
                }
            }
            let aval = self.aval(&a).clone();
            if aval.rank() == 0 {
                let s = self.scalar_of(&a);
                outs.push(quote!(#s));
                continue;
            }
            let size = size_tokens(&aval.shape);
            let expr = match &a {
                Atom::Lit(l) => {
                    let s = scalar_tokens(l);
                    quote!(::std::vec![#s; #size])
                }
                Atom::Var(v) => match self.locs[v].clone() {
                    Loc::Splat(s) => quote!(::std::vec![#s; #size]),
                    Loc::Scalar(n) => quote!(::std::vec![#n; #size]),
                    Loc::View {
                        buf,
                        offset,
                        strides,
                    } => {
                        let whole = offset.to_string() == "0usize"
                            && strides_are_row_major(&strides, &aval.shape);
                        let key = buf.to_string();
                        if whole && self.bufs.owned.contains(&key) && self.bufs.returned.insert(key)
                        {
                            quote!(#buf)
                        } else {
                            let c = self.copy_view(&a, &aval);
                            quote!(#c)
                        }
                    }
                    Loc::Fused => unreachable!("outputs are stored"),
                },
            };
            outs.push(expr);
        }
        let mut stmts = self.call_items();
        stmts.append(&mut self.stmts);
        (stmts, outs)
    }
}

/// For each variable, the index of the last equation whose emitted code
/// reads it: a fused equation's reads happen in its consumers' loops.
/// Outputs are read after every equation (`usize::MAX`).
fn last_reads(j: &Jaxpr, fusion: &crate::backend::fuse::Fusion) -> HashMap<Var, usize> {
    let mut readers: HashMap<Var, Vec<usize>> = HashMap::new();
    for (k, e) in j.eqns.iter().enumerate() {
        // A point gather reads its index components where its index vector
        // would have been read.
        let components = fusion.gathers.get(&e.outs[0]).map(|g| &g.components);
        for a in e.ins.iter().chain(components.into_iter().flatten()) {
            if let Atom::Var(v) = a {
                readers.entry(*v).or_default().push(k);
            }
        }
    }
    // Where each equation's reads happen, last equation first.
    let mut at = vec![0; j.eqns.len()];
    for (k, e) in j.eqns.iter().enumerate().rev() {
        at[k] = if e.outs.iter().any(|o| fusion.fused.contains(o)) {
            e.outs
                .iter()
                .flat_map(|o| readers.get(o).into_iter().flatten())
                .map(|&r| at[r])
                .max()
                .unwrap_or(k)
                .max(k)
        } else {
            k
        };
    }
    let mut last: HashMap<Var, usize> = HashMap::new();
    for (v, rs) in &readers {
        last.insert(*v, rs.iter().map(|&r| at[r]).max().unwrap_or(0));
    }
    for a in &j.outvars {
        if let Atom::Var(v) = a {
            last.insert(*v, usize::MAX);
        }
    }
    last
}

fn strides_are_row_major(strides: &[TokenStream], shape: &[Dim]) -> bool {
    let rm = row_major_strides(shape);
    strides.len() == rm.len()
        && strides
            .iter()
            .zip(&rm)
            .zip(shape)
            .all(|((a, b), d)| is_one(d) || a.to_string() == b.to_string())
}

fn is_one(d: &Dim) -> bool {
    *d == Dim::Lit(1)
}

fn scalar_tokens(l: &Literal) -> TokenStream {
    let ty = rust_type(l.aval.dtype);
    match (l.value, l.aval.dtype) {
        (Scalar::Bool(b), _) => quote!(#b),
        (v, DType::C64 | DType::C128) => {
            // Any scalar becomes `Complex::new(re, im)` of the part type.
            let Scalar::Complex(re, im) = crate::ir::cast_scalar(v, l.aval.dtype) else {
                unreachable!()
            };
            let part = if l.aval.dtype == DType::C64 {
                quote!(f32)
            } else {
                quote!(f64)
            };
            let (re, im) = (float_tokens(re, &part), float_tokens(im, &part));
            quote!(::jax::Complex::<#part>::new(#re, #im))
        }
        (Scalar::Complex(re, im), _) => {
            let (re, im) = (
                float_tokens(re, &quote!(f64)),
                float_tokens(im, &quote!(f64)),
            );
            quote!(<#ty as ::jax::Element>::from_parts(#re, #im))
        }
        (Scalar::Int(i), d) if d.is_integer() => {
            let lit = proc_macro2::Literal::i128_unsuffixed(i);
            quote!((#lit as #ty))
        }
        (Scalar::Float(f), DType::F32) | (Scalar::Float(f), DType::F64) => float_tokens(f, &ty),
        (Scalar::Float(f), _) => {
            let v = float_tokens(f, &quote!(f64));
            quote!(<#ty as ::jax::Element>::from_f64(#v))
        }
        (Scalar::Int(i), _) => {
            let v = i as f64;
            let v = float_tokens(v, &quote!(f64));
            quote!(<#ty as ::jax::Element>::from_f64(#v))
        }
    }
}

fn float_tokens(f: f64, ty: &TokenStream) -> TokenStream {
    if f.is_nan() {
        quote!(#ty::NAN)
    } else if f == f64::INFINITY {
        quote!(#ty::INFINITY)
    } else if f == f64::NEG_INFINITY {
        quote!(#ty::NEG_INFINITY)
    } else {
        let lit = proc_macro2::Literal::f64_unsuffixed(f);
        quote!((#lit as #ty))
    }
}

/// The statements `#[jax::jit]` emits for `src`, as one string.
#[cfg(test)]
pub(super) fn emitted(src: &str) -> String {
    emitted_with(src, false)
}

/// [`emitted`], of the function's gradient when `grad`.
#[cfg(test)]
pub(super) fn emitted_with(src: &str, grad: bool) -> String {
    let mut j = crate::core_tests::traced_source(src);
    if grad {
        j = crate::transform::ad::grad(&j, 0, false, proc_macro2::Span::call_site()).unwrap();
    }
    crate::transform::simplify::simplify(&mut j);
    let mut em = Emitter::new(&j);
    for (k, v) in j.invars.clone().into_iter().enumerate() {
        let name = quote::format_ident!("x{}", k);
        em.input(v, quote::quote!(#name), false);
    }
    em.eqns().unwrap();
    let (stmts, outs) = em.finish();
    quote::quote!(#(#stmts)* #(#outs)*).to_string()
}
