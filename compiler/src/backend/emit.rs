//! Emission: a jaxpr becomes the body of an ordinary Rust function.
//!
//! Rank-0 values are Rust scalars. Elementwise results that [`crate::backend::fuse`]
//! fused are computed inside their consumer's loop. Broadcasts, transposes, slices, squeezes and reshapes of stored arrays
//! are views (an offset and a stride per axis) read in place. Everything
//! else is stored in a buffer written by one loop nest. Reductions
//! accumulate in the loop that computes their operand. `dot_general` and
//! `concatenate` call runtime kernels.

use std::collections::HashMap;

use jax_dtypes::DType;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Jaxpr, Literal, Scalar, Var};
use crate::prims::{Lowering, Params};

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

/// A `dot_general` of static matrices or vectors without batch axes, as
/// one `m×k · k×n` product on the operands' buffers: `a` and `b` are the
/// (row, column) strides of each operand in that product.
struct Gemm {
    m: usize,
    k: usize,
    n: usize,
    a: (usize, usize),
    b: (usize, usize),
}

impl Gemm {
    fn of(la: &Aval, ra: &Aval, lc: &[usize], rc: &[usize], lb: &[usize]) -> Option<Gemm> {
        if !lb.is_empty() || la.rank() > 2 || ra.rank() > 2 || lc.len() > 1 {
            return None;
        }
        let sizes = |a: &Aval| -> Option<Vec<usize>> {
            (0..a.rank()).map(|k| dim_lit(&a.shape, k)).collect()
        };
        let (ls, rs) = (sizes(la)?, sizes(ra)?);
        let free = |rank: usize, c: &[usize]| -> Vec<usize> {
            (0..rank).filter(|a| !c.contains(a)).collect()
        };
        let (lf, rf) = (free(la.rank(), lc), free(ra.rank(), rc));
        let size = |s: &[usize], axes: &[usize]| axes.iter().map(|&a| s[a]).product::<usize>();
        let (m, k, n) = (size(&ls, &lf), size(&ls, lc), size(&rs, &rf));
        // Strides of an operand whose axes are `first` then `second` in the
        // product, laid out row-major with either order.
        let strides = |first: &[usize], second: &[usize], rows: usize, cols: usize| {
            if first
                .iter()
                .chain(second)
                .copied()
                .eq(0..first.len() + second.len())
            {
                (cols, 1)
            } else {
                (1, rows)
            }
        };
        Some(Gemm {
            m,
            k,
            n,
            a: strides(&lf, lc, m, k),
            b: strides(rc, &rf, k, n),
        })
    }
}

/// Axis `k` of a shape, when it is a number.
fn dim_lit(shape: &[Dim], k: usize) -> Option<usize> {
    match shape.get(k) {
        Some(Dim::Lit(n)) => Some(*n),
        _ => None,
    }
}

/// A size or stride expression: literal dims fold, symbols stay names
/// (or products of names, for constraints).
pub fn dim_tokens(d: &Dim) -> TokenStream {
    match d {
        Dim::Lit(n) => quote!(#n),
        Dim::Sym(s) => match syn::parse_str::<Ident>(s) {
            Ok(id) => quote!(#id),
            Err(_) => syn::parse_str::<syn::Expr>(s)
                .map(|e| quote!((#e)))
                .unwrap_or_else(|_| {
                    let id = Ident::new("__jax_bad_dim", Span::call_site());
                    quote!(#id)
                }),
        },
    }
}

fn product(dims: &[Dim]) -> TokenStream {
    let lit: usize = dims
        .iter()
        .filter_map(|d| if let Dim::Lit(n) = d { Some(*n) } else { None })
        .product();
    let syms: Vec<TokenStream> = dims
        .iter()
        .filter(|d| matches!(d, Dim::Sym(_)))
        .map(dim_tokens)
        .collect();
    if syms.is_empty() {
        quote!(#lit)
    } else {
        quote!((#lit #(* #syms)*))
    }
}

/// The number of elements of a shape, as a Rust expression.
pub fn size_tokens(shape: &[Dim]) -> TokenStream {
    product(shape)
}

fn row_major_strides(shape: &[Dim]) -> Vec<TokenStream> {
    (0..shape.len()).map(|k| product(&shape[k + 1..])).collect()
}

fn is_one(d: &Dim) -> bool {
    *d == Dim::Lit(1)
}

fn scalar_tokens(l: &Literal) -> TokenStream {
    let ty = rust_type(l.aval.dtype);
    match (l.value, l.aval.dtype) {
        (Scalar::Bool(b), _) => quote!(#b),
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

/// Emits the body. `inputs[i]` is the expression holding invar `i`
/// (a parameter, by value or reference); `outputs` builds the result from
/// the output expressions.
pub struct Emitter<'a> {
    j: &'a Jaxpr,
    locs: HashMap<Var, Loc>,
    stmts: Vec<TokenStream>,
    fusion: crate::backend::fuse::Fusion,
    /// How many equations (and outputs) read each variable.
    uses: HashMap<Var, usize>,
    /// Buffers this body allocated (`Vec`s it may return); the others are
    /// borrowed from the parameters.
    owned: std::collections::HashSet<String>,
    /// Buffers already returned: a second output of the same buffer is a copy.
    returned: std::collections::HashSet<String>,
    /// Buffer declarations moved before the row loop, in a row program.
    hoisted: Option<Vec<TokenStream>>,
    /// Whether loops may run in parallel chunks (not inside a row program,
    /// whose rows already run in parallel).
    parallel: bool,
    /// A row program's output variable and the output row it is written to.
    out_target: Option<(Var, Ident)>,
    written_target: bool,
    /// `jax_debug_nans`' replay: nothing fused, and after each operation
    /// that computes floats, `return Some(error)` when it made a NaN (or
    /// an infinity) from inputs without one.
    checks: bool,
    /// The replay's flag for the inputs of the equation being emitted.
    clean: Option<Ident>,
    /// While a loop writes buffer `.1` in place of the dead buffer `.0` it
    /// took over: reads of `.0` read the element about to be overwritten.
    reuse: Option<(String, Ident)>,
    /// Buffers moved in as inputs (a scan's carries): those neither written
    /// over nor returned go back to the pool at the end of the body.
    owned_inputs: Vec<Ident>,
    /// Whether this body runs once per step of a loop: its short loops are
    /// worth a copy per SIMD level even when one call of them is cheap.
    repeated: bool,
}

impl<'a> Emitter<'a> {
    /// An emitter for the replay of `jax_debug_nans` (see `checks`).
    pub fn checked(j: &'a Jaxpr) -> Emitter<'a> {
        let mut em = Emitter::new(j);
        em.fusion = crate::backend::fuse::Fusion::default();
        em.parallel = false;
        em.checks = true;
        em
    }

    pub fn new(j: &'a Jaxpr) -> Emitter<'a> {
        Emitter {
            j,
            locs: HashMap::new(),
            stmts: Vec::new(),
            fusion: crate::backend::fuse::plan(j),
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
            owned: Default::default(),
            returned: Default::default(),
            hoisted: None,
            parallel: true,
            out_target: None,
            written_target: false,
            checks: false,
            clean: None,
            reuse: None,
            owned_inputs: Vec::new(),
            repeated: false,
        }
    }

    fn name(v: Var) -> Ident {
        format_ident!("__v{}", v.0)
    }

    fn aval<'b>(&'b self, a: &'b Atom) -> &'b Aval {
        self.j.atom_aval(a)
    }

    /// Binds an input: `expr` is the parameter (an `Array`, `&Array` or Rust scalar).
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

    pub fn input(&mut self, v: Var, expr: TokenStream, rust_scalar: bool) {
        self.input_data(
            v,
            quote!(::jax::__rt::data(&#expr)),
            rust_scalar.then_some(expr),
        )
    }

    /// Binds an input from an expression of its row-major data (`&[T]`), or
    /// of its value when it is a Rust scalar.
    /// An array input moved in as a `Vec` (a loop's carry): owned, so it
    /// can be written over once dead, or returned without a copy.
    fn input_owned(&mut self, v: Var, data: TokenStream) {
        let name = Self::name(v);
        let aval = self.j.aval(v).clone();
        let ty = rust_type(aval.dtype);
        self.stmts
            .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #data;));
        self.owned.insert(name.to_string());
        self.owned_inputs.push(name.clone());
        self.locs.insert(
            v,
            Loc::View {
                buf: name,
                offset: quote!(0usize),
                strides: row_major_strides(&aval.shape),
            },
        );
    }

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
        // A scatter's indices are static (in its parameters); the equations
        // that build its `i32[k]` operand, for the jaxpr, need no code.
        let mut index_only: std::collections::HashSet<Var> = Default::default();
        for e in self.j.eqns.iter().rev() {
            if let Params::Scatter { .. } = e.params {
                if let Atom::Var(v) = &e.ins[1] {
                    index_only.insert(*v);
                }
            }
            if index_only.contains(&e.outs[0])
                && matches!(e.prim.name, "broadcast_in_dim" | "concatenate")
            {
                for a in &e.ins {
                    if let Atom::Var(v) = a {
                        index_only.insert(*v);
                    }
                }
            }
        }
        for e in &self.j.eqns {
            let out = e.outs[0];
            if index_only.contains(&out) {
                continue;
            }
            if self.checks && self.replayable(e) {
                // One call runs the operation and its checks.
                self.replay_map(e, out, &self.j.aval(out).clone());
                continue;
            }
            let checked = self.checks && e.prim.lowering != Lowering::IndexMap;
            if checked {
                self.check_inputs(e);
            }
            self.eqn(e)?;
            if checked {
                self.check_outputs(e);
            }
        }
        Ok(())
    }

    /// The bad value test of a float atom (see `__rt::debug`), if it has one.
    fn bad_test(&self, a: &Atom) -> Option<TokenStream> {
        if !self.aval(a).dtype.is_float() {
            return None;
        }
        Some(match a {
            Atom::Lit(l) => {
                let v = scalar_tokens(l);
                quote!(::jax::__rt::debug::bad_scalar(#v))
            }
            Atom::Var(v) => match &self.locs[v] {
                Loc::Scalar(n) => quote!(::jax::__rt::debug::bad_scalar(#n)),
                Loc::Splat(t) => quote!(::jax::__rt::debug::bad_scalar(#t)),
                Loc::View { buf, .. } => quote!(::jax::__rt::debug::bad(&#buf[..])),
                Loc::Fused => return None,
            },
        })
    }

    /// Whether `e`'s inputs are free of bad values, before `e` runs (it
    /// may update an input's buffer in place).
    fn check_inputs(&mut self, e: &crate::ir::Eqn) {
        let clean = format_ident!("__clean{}", self.stmts.len());
        let ins: Vec<TokenStream> = e.ins.iter().filter_map(|a| self.bad_test(a)).collect();
        self.stmts
            .push(quote!(let #clean: bool = true #(&& #ins.is_none())*;));
        self.clean = Some(clean);
    }

    /// Stops the replay at `e` if it made a bad value from clean inputs.
    fn check_outputs(&mut self, e: &crate::ir::Eqn) {
        let clean = self.clean.take().expect("inputs checked first");
        let outs: Vec<TokenStream> = e
            .outs
            .iter()
            .filter_map(|v| self.bad_test(&Atom::Var(*v)))
            .collect();
        if outs.is_empty() {
            return;
        }
        let prim = e.prim.name;
        let location = source_location(e.span);
        // The first error is kept and the replay runs on: one exit instead
        // of one per operation, each dropping every live buffer, which made
        // a long replay's compile time grow with the square of its length.
        self.stmts.push(quote! {
            if #clean && __found.is_none() {
                if let ::std::option::Option::Some(__bad) = ::std::option::Option::None #(.or(#outs))* {
                    __found = ::std::option::Option::Some(::jax::__rt::debug::error(__bad, #prim, #location));
                }
            }
        });
    }

    /// Emits one equation.
    fn eqn(&mut self, e: &crate::ir::Eqn) -> syn::Result<()> {
        let out = e.outs[0];
        {
            if let Params::Cond(c) = &e.params {
                return self.cond(e, &c.0);
            }
            if let Params::While(w) = &e.params {
                return self.while_loop(e, &w.0);
            }
            if let Params::Scan(sc) = &e.params {
                return self.scan(e, &sc.0);
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
                Lowering::IndexMap if e.prim.name == "dynamic_slice" => {
                    self.dynamic_slice(&e.ins, out, &aval)
                }
                Lowering::IndexMap => self.index_map(e.prim.name, &e.params, &e.ins[0], out, &aval),
                Lowering::Reduce => self.reduce(e.prim.name, &e.params, &e.ins[0], out, &aval),
                Lowering::Kernel => self.kernel(e.prim.name, &e.params, &e.ins, out, &aval),
                Lowering::Effect => self.debug_print(e),
            }
        }
        Ok(())
    }

    /// Whether `replay_map` can run `e`: an elementwise array operation of
    /// one to three operands, each a literal, a scalar or a view of a buffer.
    fn replayable(&self, e: &crate::ir::Eqn) -> bool {
        e.prim.lowering == Lowering::Elementwise
            && self.j.aval(e.outs[0]).rank() > 0
            && (1..=3).contains(&e.ins.len())
            && e.ins.iter().all(|a| match a {
                Atom::Lit(_) => true,
                Atom::Var(v) => !matches!(self.locs.get(v), Some(Loc::Fused) | None),
            })
    }

    /// An elementwise operation in the `jax_debug_nans` replay: one call of
    /// the runtime's `debug::mapN` with the operation as a function pointer
    /// (see there), instead of a loop of its own; it also keeps the error if
    /// the operation made a bad value from clean operands.
    fn replay_map(&mut self, e: &crate::ir::Eqn, out: Var, aval: &Aval) {
        let mut operands = Vec::new();
        let mut params = Vec::new();
        let mut args = Vec::new();
        for (k, a) in e.ins.iter().enumerate() {
            let a_aval = self.aval(a).clone();
            let loc = match a {
                Atom::Var(v) => self.locs.get(v),
                Atom::Lit(_) => None,
            };
            let view =
                match (a, loc) {
                    (
                        Atom::Var(_),
                        Some(Loc::View {
                            buf,
                            offset,
                            strides,
                        }),
                    ) if a_aval.rank() > 0 => {
                        // Size-1 axes broadcast, as `eval` reads them.
                        let strides = strides.iter().zip(&a_aval.shape).zip(&aval.shape).map(
                            |((s, od), md)| {
                                if is_one(od) && !is_one(md) {
                                    quote!(0usize)
                                } else {
                                    s.clone()
                                }
                            },
                        );
                        quote!(::jax::__rt::debug::view(&#buf[..], #offset, &[#(#strides),*]))
                    }
                    _ => {
                        let x = self.scalar_of(a);
                        quote!(::jax::__rt::debug::scalar(&#x))
                    }
                };
            operands.push(view);
            let p = format_ident!("__a{}", k);
            let ty = rust_type(a_aval.dtype);
            params.push(quote!(#p: #ty));
            args.push(quote!(#p));
        }
        let map = format_ident!("map{}", e.ins.len());
        let ty = rust_type(aval.dtype);
        // The runtime's function itself where the primitive has no scalar
        // expression of its own, so that operations of one kind and type
        // share one function.
        let f = match e.prim.scalar {
            None => {
                let f = format_ident!("{}", e.prim.name);
                quote!(::jax::__rt::ops::#f)
            }
            Some(_) => {
                let value = e.prim.scalar_call(&e.params, &args);
                quote!(|#(#params),*| -> #ty { #value })
            }
        };
        let shape: Vec<TokenStream> = aval.shape.iter().map(dim_tokens).collect();
        let name = Self::name(out);
        let prim = e.prim.name;
        let location = source_location(e.span);
        let site = quote!((#prim, #location));
        self.stmts.push(quote! {
            let #name: &[#ty] = ::jax::__rt::debug::#map(&__arena, &mut __found, #site, &[#(#shape),*], #(#operands,)* #f);
        });
        // In the arena, not owned: never written over, moved or returned.
        self.bind_buffer(out, aval, name);
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

    /// Stores `v` (its defining equation is elementwise) in a buffer.
    fn materialize(&mut self, v: Var, aval: &Aval) {
        if let Some(target) = self.out_target.clone().filter(|(w, _)| *w == v) {
            // The row program's output row: written where it belongs.
            let name = target.1;
            self.write_loops(&name, &Atom::Var(v), aval);
            self.written_target = true;
            self.locs.insert(
                v,
                Loc::View {
                    buf: name,
                    offset: quote!(0usize),
                    strides: row_major_strides(&aval.shape),
                },
            );
            return;
        }
        let name = Self::name(v);
        if let Some(dead) = self.reusable_operand(v, aval) {
            // Written over a dead operand's buffer, as XLA reuses buffers:
            // each element is read before it is overwritten.
            let ty = rust_type(aval.dtype);
            self.stmts
                .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #dead;));
            self.reuse = Some((dead.to_string(), name.clone()));
            self.write_loops(&name, &Atom::Var(v), aval);
            self.reuse = None;
            self.owned.remove(&dead.to_string());
            self.finish_buffer(v, aval, name);
            return;
        }
        self.write_buffer(&name, &Atom::Var(v), aval);
        self.finish_buffer(v, aval, name);
    }

    /// A buffer `v` can be written over: an operand, in the fused
    /// elementwise expression of `v`, read at `v`'s own index (same shape
    /// and dtype all the way up), held in a whole row-major buffer this body
    /// owns that no other view shares, and read by nothing else.
    fn reusable_operand(&self, v: Var, aval: &Aval) -> Option<Ident> {
        if self.checks || self.hoisted.is_some() {
            return None;
        }
        self.reusable_in(v, aval)
    }

    fn reusable_in(&self, v: Var, aval: &Aval) -> Option<Ident> {
        let e = self.j.eqns.iter().find(|e| e.outs.contains(&v))?;
        if e.prim.lowering != Lowering::Elementwise {
            return None;
        }
        e.ins.iter().find_map(|a| {
            let Atom::Var(u) = a else { return None };
            let ua = self.j.aval(*u);
            if ua.shape != aval.shape {
                return None;
            }
            if let Some(Loc::View { .. }) = self.locs.get(u) {
                return (ua.dtype == aval.dtype)
                    .then(|| self.dead_buffer(*u, &aval.shape))
                    .flatten();
            }
            // A fused operand that only this loop computes (a fused value
            // read twice is recomputed in each reader's loop, which would
            // read the buffer again): look inside it.
            let fused = matches!(self.locs.get(u), Some(Loc::Fused) | None);
            (fused && self.read_once(*u))
                .then(|| self.reusable_in(*u, aval))
                .flatten()
        })
    }

    /// Whether one operand slot of one equation reads `v`, and it is not
    /// an output: after that read, `v` is dead.
    fn read_once(&self, v: Var) -> bool {
        self.uses.get(&v) == Some(&1) && !self.j.outvars.contains(&Atom::Var(v))
    }

    /// `v`'s buffer, when its next read is its last and the buffer may then
    /// be written over: a whole row-major buffer this body owns and has not
    /// returned, that no other value views.
    fn dead_buffer(&self, v: Var, shape: &[Dim]) -> Option<Ident> {
        let Some(Loc::View {
            buf,
            offset,
            strides,
        }) = self.locs.get(&v)
        else {
            return None;
        };
        let key = buf.to_string();
        let shared = self
            .locs
            .iter()
            .any(|(w, l)| *w != v && matches!(l, Loc::View { buf: b, .. } if *b == key));
        (offset.to_string() == "0usize"
            && strides_are_row_major(strides, shape)
            && self.owned.contains(&key)
            && !self.returned.contains(&key)
            && !shared
            && self.read_once(v))
        .then(|| buf.clone())
    }

    /// Writes the output variable `v` of a row program straight into the
    /// output row `target` (a `&mut [T]` in scope) instead of a scratch buffer.
    pub fn write_output_into(&mut self, v: Var, target: Ident) {
        self.out_target = Some((v, target));
    }

    /// Whether the output was written into its target directly.
    pub fn wrote_target(&self) -> bool {
        self.written_target
    }

    /// Emits `let mut name = buffer; loops { name[..] = value of a }`.
    fn write_buffer(&mut self, name: &Ident, a: &Atom, aval: &Aval) {
        let ty = rust_type(aval.dtype);
        let size = product(&aval.shape);
        self.alloc(name, &ty, &size);
        self.write_loops(name, a, aval);
        self.owned.insert(name.to_string());
    }

    /// The loops writing every element of `a` into the buffer `name`.
    fn write_loops(&mut self, name: &Ident, a: &Atom, aval: &Aval) {
        let flat = self.flat_ok(a, &aval.shape);
        let mut l = if flat {
            LoopNest::flat(&aval.shape)
        } else {
            LoopNest::new(&aval.shape)
        };
        let copies = self.simd_copies(&aval.shape, a);
        // Flat loops split into chunks of elements; nested ones into chunks
        // of rows. A loop too small for one SIMD copy per level is too small
        // for threads too.
        l.parallel = self.parallel && copies == 3 && (flat || aval.rank() >= 2);
        l.out = Some(name.clone());
        let id = l.identity();
        let value = self.eval(&mut l, a, &id);
        let out = l.row_of(name, &quote!(0usize), &row_major_strides(&aval.shape), true);
        let body = std::mem::take(&mut l.body);
        let mut loops = l.wrap(quote! { #(#body)* #out = #value; });
        if l.parallel && !flat {
            let row = product(&aval.shape[1..]);
            let cost = l.cost.max(1);
            let body = quote!(|(__row0, __out)| { #loops });
            loops = quote! {
                ::jax::__rt::par::for_each_rows3(
                    &mut #name,
                    #row,
                    ::jax::__rt::par::rows_per_chunk(#row * #cost),
                    #body, #body, #body,
                );
            };
        } else if !l.parallel && self.hoisted.is_none() && copies > 1 {
            // Compiled once per SIMD level too (a row program's caller
            // already dispatches).
            let ty = rust_type(aval.dtype);
            let body = quote!(|#name: &mut ::std::vec::Vec<#ty>| { #loops });
            let call = level_dispatch(copies, &body, quote!(&mut #name));
            loops = quote!(#call;);
        }
        self.stmts.push(loops);
    }

    /// How many copies of a loop computing `a` over `shape` to emit, each
    /// compiled for one SIMD level (see `par::dispatch3`). Copies cost
    /// compile time, so they are made only where they pay: none for the
    /// `jax_debug_nans` replay (a cold path), one for a static loop of little
    /// arithmetic (a few microseconds at the baseline level), two (baseline,
    /// AVX2+FMA) for a short loop with transcendentals, whose fused
    /// multiply-adds are library calls at the baseline level, and three
    /// otherwise, and for every loop of a loop body (run once per step, so
    /// its latency counts: an RNN's 64 `tanh`s, its gradient's updates).
    /// Fewer than three means too small for threads as well.
    fn simd_copies(&self, shape: &[Dim], a: &Atom) -> usize {
        if self.checks {
            return 1;
        }
        let Some(elements) = static_size(shape) else {
            return 3;
        };
        if self.repeated {
            return 3;
        }
        let (work, transcendental) = self.fused_work(a, &mut Default::default());
        match (transcendental, elements) {
            (false, n) if n.saturating_mul(work) < SMALL_LOOP_WORK => 1,
            (true, n) if n < SMALL_TRANSCENDENTAL_LOOP => 2,
            _ => 3,
        }
    }

    /// The work per element of the fused expression of `a` (see `PrimDef::work`)
    /// and whether it holds a transcendental.
    fn fused_work(&self, a: &Atom, seen: &mut std::collections::HashSet<Var>) -> (usize, bool) {
        let Atom::Var(v) = a else { return (0, false) };
        if !matches!(self.locs.get(v), Some(Loc::Fused) | None) || !seen.insert(*v) {
            return (0, false);
        }
        let Some(e) = self.j.eqns.iter().find(|e| e.outs.contains(v)) else {
            return (0, false);
        };
        let cost = match e.prim.lowering {
            Lowering::Sample => crate::prims::TRANSCENDENTAL_WORK,
            _ => e.prim.work,
        };
        e.ins.iter().fold(
            (cost, cost >= crate::prims::TRANSCENDENTAL_WORK),
            |(w, t), op| {
                let (w2, t2) = self.fused_work(op, seen);
                (w + w2, t || t2)
            },
        )
    }

    /// Declares a fresh buffer: here, or once before the row loop when
    /// emitting a row program (every row overwrites it).
    fn alloc(&mut self, name: &Ident, ty: &TokenStream, size: &TokenStream) {
        let decl = quote!(let mut #name: ::std::vec::Vec<#ty> = ::jax::__rt::buffer::<#ty>(#size););
        match &mut self.hoisted {
            Some(h) => h.push(decl),
            None => self.stmts.push(decl),
        }
    }

    /// Emit buffers once, outside the loop the statements will run in, and
    /// run every loop sequentially (the caller parallelizes that outer loop).
    pub fn hoist_buffers(&mut self) {
        self.hoisted = Some(Vec::new());
        self.parallel = false;
    }

    /// The buffer declarations to put before the row loop.
    pub fn take_hoisted(&mut self) -> Vec<TokenStream> {
        self.hoisted.take().unwrap_or_default()
    }

    /// Whether computing `a` over `shape` reads only scalars and whole
    /// row-major arrays of exactly that shape, so one flat loop does it.
    fn flat_ok(&self, a: &Atom, shape: &[Dim]) -> bool {
        let v = match a {
            Atom::Lit(_) => return true,
            Atom::Var(v) => *v,
        };
        let aval = self.j.aval(v);
        if aval.rank() == 0 {
            return true;
        }
        if aval.shape != shape {
            return false;
        }
        match self.locs.get(&v) {
            Some(Loc::Scalar(_)) | Some(Loc::Splat(_)) => true,
            Some(Loc::View {
                offset, strides, ..
            }) => offset.to_string() == "0usize" && strides_are_row_major(strides, shape),
            Some(Loc::Fused) | None => {
                let e = self.j.eqns.iter().find(|e| e.outs.contains(&v)).unwrap();
                // A sample reads only its key; its index is the loop's.
                e.prim.lowering == Lowering::Sample
                    || e.ins.iter().all(|op| self.flat_ok(op, shape))
            }
        }
    }

    /// The value of `a` at the loop position `index` (for each axis of `a`,
    /// the loop variable that runs along it, or `None` for a broadcast axis).
    fn eval(&mut self, l: &mut LoopNest, a: &Atom, index: &[Option<usize>]) -> TokenStream {
        let v = match a {
            Atom::Lit(lit) => return scalar_tokens(lit),
            Atom::Var(v) => *v,
        };
        let key = (v, index.to_vec());
        if let Some(n) = l.memo.get(&key) {
            return quote!(#n);
        }
        let loc = self.locs.get(&v).cloned();
        let value = match loc {
            Some(Loc::Scalar(n)) => return quote!(#n),
            Some(Loc::Splat(t)) => return t,
            Some(Loc::View {
                buf,
                offset,
                strides,
            }) => {
                // Map each of the view's axes to its loop variable's axis.
                let mut loop_strides = vec![quote!(0usize); l.vars.len()];
                for (i, s) in index.iter().zip(&strides) {
                    if let Some(i) = i {
                        loop_strides[*i] = s.clone();
                    }
                }
                if let Some((dead, into)) = &self.reuse {
                    if buf == dead {
                        // The buffer now being written: the same row, the
                        // same element, read first.
                        return l.row_of(into, &offset, &loop_strides, true);
                    }
                }
                return l.row_of(&buf, &offset, &loop_strides, false);
            }
            Some(Loc::Fused) | None => {
                let e = self
                    .j
                    .eqns
                    .iter()
                    .find(|e| e.outs.contains(&v))
                    .expect("every variable is defined by an equation");
                let my_shape = &self.j.aval(v).shape;
                if e.prim.lowering == Lowering::Sample {
                    let at = l.flat_index(my_shape, index);
                    // The key's words, read once before the loop.
                    let words = self.key_words(&e.ins[0]);
                    let slot = format!("key {words}");
                    let key_name = match l.keys.get(&slot) {
                        Some(name) => name.clone(),
                        None => {
                            let name = format_ident!("__key{}", l.keys.len());
                            l.pre.push(quote!(let #name: [u32; 2] = #words;));
                            l.keys.insert(slot, name.clone());
                            name
                        }
                    };
                    let value = self.sample_call(e, quote!(#key_name), at);
                    l.cost += 96;
                    let n = format_ident!("__t{}", l.memo.len());
                    let ty = rust_type(self.j.aval(v).dtype);
                    l.body.push(quote!(let #n: #ty = #value;));
                    l.memo.insert(key, n.clone());
                    return quote!(#n);
                }
                let args: Vec<TokenStream> = e
                    .ins
                    .iter()
                    .map(|op| {
                        let op_shape = self.aval(op).shape.clone();
                        // Rank-0 operands are scalars; size-1 axes broadcast.
                        let sub: Vec<Option<usize>> = if op_shape.is_empty() {
                            Vec::new()
                        } else {
                            op_shape
                                .iter()
                                .zip(my_shape)
                                .zip(index)
                                .map(
                                    |((od, md), i)| {
                                        if is_one(od) && !is_one(md) {
                                            None
                                        } else {
                                            *i
                                        }
                                    },
                                )
                                .collect()
                        };
                        self.eval(l, op, &sub)
                    })
                    .collect();
                l.cost += e.prim.work;
                e.prim.scalar_call(&e.params, &args)
            }
        };
        let n = format_ident!("__t{}", l.memo.len());
        // Typed, so rustc resolves each call at once instead of carrying
        // an inference variable per element operation through the body.
        let ty = rust_type(self.j.aval(v).dtype);
        l.body.push(quote!(let #n: #ty = #value;));
        l.memo.insert(key, n.clone());
        quote!(#n)
    }

    /// `::jax::__rt::random::NAME::<T>(key, at, bounds..)`: element `at`
    /// (a row-major index) of the sample `e` defines. The key is an input,
    /// read as its two words.
    fn sample_call(&self, e: &crate::ir::Eqn, key: TokenStream, at: TokenStream) -> TokenStream {
        let Params::Random { dtype, bounds, .. } = &e.params else {
            unreachable!("samplers carry Params::Random")
        };
        let f = format_ident!("{}", crate::prims::runtime_name(e.prim.name, &e.params));
        let ty = rust_type(*dtype);
        let bounds = bounds.map(|(lo, hi)| quote!(, #lo, #hi));
        quote!(::jax::__rt::random::#f::<#ty>(#key, #at #bounds))
    }

    /// A nested jaxpr (a loop body, a branch) as a block evaluating to the
    /// tuple of its outputs (owned buffers or scalars). `inputs` are its
    /// inputs' expressions: a scalar value, or a `&[T]` of the row-major data.
    fn sub_block(&self, body: &Jaxpr, inputs: &[(TokenStream, bool)]) -> syn::Result<TokenStream> {
        self.sub_block_owning(body, inputs, 0, self.repeated)
    }

    /// [`Self::sub_block`] whose first `n_owned` inputs are `Vec`s moved in:
    /// the body may write over them once they are dead, or return them;
    /// those it does neither with go back to the pool.
    fn sub_block_owning(
        &self,
        body: &Jaxpr,
        inputs: &[(TokenStream, bool)],
        n_owned: usize,
        repeated: bool,
    ) -> syn::Result<TokenStream> {
        let mut body = body.clone();
        crate::transform::simplify::simplify(&mut body);
        let mut em = Emitter::new(&body);
        em.parallel = self.parallel;
        em.repeated = repeated;
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
            .owned_inputs
            .iter()
            .filter(|n| em.owned.contains(&n.to_string()) && !em.returned.contains(&n.to_string()))
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
    /// contiguous columns instead of summing across each row. `inputs` are
    /// the body's inputs; those from `first_invariant` on are invariants.
    fn loop_body(
        &mut self,
        body: &Jaxpr,
        first_invariant: usize,
        mut inputs: Vec<(TokenStream, bool)>,
        n_owned: usize,
    ) -> syn::Result<TokenStream> {
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
            if j < first_invariant
                || wa.rank() != 2
                || xa.rank() != 1
                || lhs_contract != &[1]
                || !lhs_batch.is_empty()
                || !matches!(wa.dtype, DType::F32 | DType::F64)
            {
                continue;
            }
            let name = format_ident!("__transposed{}_{}", k, e);
            let ty = rust_type(wa.dtype);
            let src = inputs[j].0.clone();
            self.stmts.push(quote! {
                let #name: ::std::vec::Vec<#ty> = ::jax::__rt::transposed::<#ty>(#src, #rows, #cols);
            });
            inputs.push((quote!(&#name[..]), false));
            let t = body.new_var(Aval {
                shape: vec![Dim::Lit(cols), Dim::Lit(rows)],
                ..wa
            });
            body.invars.push(t);
            let eqn = &mut body.eqns[e];
            eqn.ins[0] = Atom::Var(t);
            if let Params::DotGeneral { lhs_contract, .. } = &mut eqn.params {
                *lhs_contract = vec![0];
            }
        }
        self.sub_block_owning(&body, &inputs, n_owned, true)
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
    fn bind_operand(&mut self, a: &Atom, name: &Ident) -> (TokenStream, bool) {
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
    fn bind_outputs(&mut self, outs: &[Var], names: &[Ident]) {
        for (out, name) in outs.iter().zip(names) {
            let aval = self.j.aval(*out).clone();
            if aval.rank() == 0 {
                self.locs.insert(*out, Loc::Scalar(name.clone()));
            } else {
                self.owned.insert(name.to_string());
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
    fn while_loop(&mut self, e: &crate::ir::Eqn, w: &crate::prims::While) -> syn::Result<()> {
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
        let cond = self.sub_block_owning(&w.cond, &with(free_cond), 0, true)?;
        let body = self.loop_body(&w.body, n, with(free_body), 0)?;
        let news: Vec<Ident> = (0..n).map(|i| format_ident!("__next{}_{}", k, i)).collect();
        let step = self.next_carry(&carry, &news, &e.ins[..n], false);
        self.stmts.push(quote! {
            loop {
                let (__go,) = #cond;
                if !__go {
                    break;
                }
                let (#(#news,)*) = #body;
                #(#step)*
            }
        });
        self.bind_outputs(&e.outs, &carry);
        Ok(())
    }

    /// `scan`: the carry in variables of its own, each step reading row `t`
    /// of every x and writing row `t` of every stacked y (buffers allocated
    /// once).
    fn scan(&mut self, e: &crate::ir::Eqn, sc: &crate::prims::Scan) -> syn::Result<()> {
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
            let row = product(&aval.shape[1..]);
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
            let size = product(&aval.shape);
            self.stmts.push(
                quote!(let mut #y: ::std::vec::Vec<#ty> = ::jax::__rt::buffer::<#ty>(#size);),
            );
            y_rows.push((product(&aval.shape[1..]), aval.rank() == 1));
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
        let block = self.loop_body(&sc.body, nc + nx, inputs, nc)?;
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
        self.stmts.push(quote! {
            for #step in 0..#length {
                let #t: usize = #row_of_step;
                let (#(#news,)* #(#outs,)*) = #block;
                #(#next)*
                #(#writes)*
            }
        });
        self.bind_outputs(&e.outs[..nc], &carry);
        self.bind_outputs(&e.outs[nc..], &ys);
        Ok(())
    }

    /// `cond`: a `match` on the index, each branch a block (the last one
    /// also takes any other index; `switch` clamps its index before). A
    /// literal index emits its branch alone.
    fn cond(&mut self, e: &crate::ir::Eqn, c: &crate::prims::Cond) -> syn::Result<()> {
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

    /// `jax::debug::print!`: `println!` with the format string as written,
    /// each argument shown as an `Array` of its shape (numpy's `str`, as
    /// JAX's `debug.print` formats).
    fn debug_print(&mut self, e: &crate::ir::Eqn) {
        let Params::DebugPrint { format, names } = &e.params else {
            unreachable!("debug_callback holds its format")
        };
        let mut args = Vec::new();
        for (a, name) in e.ins.iter().zip(names) {
            let aval = self.aval(a).clone();
            let ty = rust_type(aval.dtype);
            let dims: Vec<TokenStream> = aval.shape.iter().map(dim_tokens).collect();
            let data = if aval.rank() == 0 {
                let s = self.scalar_of(a);
                quote!(::std::vec![#s])
            } else {
                let b = self.buffer_of(a, &aval);
                quote!(#b[..].to_vec())
            };
            let value =
                quote!(<::jax::Array<#ty #(, #dims)*> as ::jax::ArrayType>::from_data(#data));
            args.push(match name {
                Some(n) => {
                    let n = format_ident!("{}", n);
                    quote!(#n = #value)
                }
                None => value,
            });
        }
        self.stmts
            .push(quote!(::jax::__rt::debug::print(::std::format_args!(#format #(, #args)*));));
        let name = Self::name(e.outs[0]);
        self.stmts.push(quote!(let #name: bool = false;));
        self.locs.insert(e.outs[0], Loc::Scalar(name));
    }

    /// A key operand's two words, `[u32; 2]` (keys are inputs).
    fn key_words(&self, a: &Atom) -> TokenStream {
        match a {
            Atom::Var(k) => match &self.locs[k] {
                Loc::View { buf, offset, .. } => quote!([#buf[#offset], #buf[#offset + 1usize]]),
                other => unreachable!("a key is an input, not {other:?}"),
            },
            Atom::Lit(_) => unreachable!("a key is an input"),
        }
    }

    fn index_map(&mut self, prim: &str, p: &Params, x: &Atom, out: Var, aval: &Aval) {
        let x_aval = self.aval(x).clone();
        let src = match x {
            Atom::Lit(l) => Loc::Splat(scalar_tokens(l)),
            Atom::Var(v) => {
                if matches!(self.locs[v], Loc::Fused) {
                    self.materialize(*v, &x_aval);
                }
                self.locs[v].clone()
            }
        };
        let loc = match (src, prim, p) {
            (Loc::Scalar(n), _, _) => Loc::Splat(quote!(#n)),
            (Loc::Splat(t), _, _) => Loc::Splat(t),
            (
                Loc::View {
                    buf,
                    offset,
                    strides,
                },
                "broadcast_in_dim",
                Params::BroadcastInDim { shape, dims },
            ) => {
                let mut out_strides = vec![quote!(0usize); shape.len()];
                for (k, &d) in dims.iter().enumerate() {
                    if !is_one(&x_aval.shape[k]) || is_one(&shape[d]) {
                        out_strides[d] = strides[k].clone();
                    }
                }
                Loc::View {
                    buf,
                    offset,
                    strides: out_strides,
                }
            }
            (
                Loc::View {
                    buf,
                    offset,
                    strides,
                },
                "transpose",
                Params::Transpose { perm },
            ) => Loc::View {
                buf,
                offset,
                strides: perm.iter().map(|&i| strides[i].clone()).collect(),
            },
            (
                Loc::View {
                    buf,
                    offset,
                    strides,
                },
                "squeeze",
                Params::Squeeze { dims },
            ) => Loc::View {
                buf,
                offset,
                strides: (0..strides.len())
                    .filter(|i| !dims.contains(i))
                    .map(|i| strides[i].clone())
                    .collect(),
            },
            (
                Loc::View {
                    buf,
                    offset,
                    strides,
                },
                "slice",
                Params::Slice {
                    start,
                    strides: steps,
                    ..
                },
            ) => {
                let starts: Vec<TokenStream> = start
                    .iter()
                    .zip(&strides)
                    .map(|(s, st)| quote!(#s * #st))
                    .collect();
                let new_strides = strides
                    .iter()
                    .enumerate()
                    .map(|(k, st)| {
                        let step = steps.as_ref().map_or(1, |s| s[k]);
                        quote!(#step * #st)
                    })
                    .collect();
                Loc::View {
                    buf,
                    offset: quote!(#offset #(+ #starts)*),
                    strides: new_strides,
                }
            }
            (
                Loc::View {
                    buf,
                    offset,
                    strides,
                },
                "reshape",
                _,
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
            (other, prim, _) => unreachable!("index map {prim} of {other:?}"),
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

    /// Copies any array value into a fresh row-major buffer.
    fn copy_view(&mut self, x: &Atom, aval: &Aval) -> Ident {
        let name = format_ident!("__copy{}", self.stmts.len());
        self.write_buffer(&name, x, aval);
        name
    }

    fn reduce(&mut self, prim: &str, p: &Params, x: &Atom, out: Var, aval: &Aval) {
        let x_aval = self.aval(x).clone();
        let name = Self::name(out);
        let ty = rust_type(aval.dtype);
        if matches!(prim, "argmax" | "argmin") {
            let Params::ArgReduce { axis, .. } = p else {
                unreachable!()
            };
            let buf = self.buffer_of(x, &x_aval);
            let shape: Vec<TokenStream> = x_aval.shape.iter().map(dim_tokens).collect();
            let xty = rust_type(x_aval.dtype);
            let f = format_ident!("{}", prim);
            self.stmts.push(quote! {
                let #name: ::std::vec::Vec<#ty> = ::jax::__rt::#f::<#xty, #ty>(&#buf, &[#(#shape),*], #axis);
            });
            self.finish_buffer(out, aval, name);
            return;
        }
        let Params::Axes(axes) = p else {
            unreachable!()
        };
        let combine = match prim {
            "reduce_sum" => "add",
            "reduce_max" => "max",
            "reduce_min" => "min",
            "reduce_prod" => "mul",
            "reduce_and" => "and",
            "reduce_or" => "or",
            other => unreachable!("reduction {other}"),
        };
        let combine_fn = format_ident!("{}", combine);
        let identity = format_ident!("{}", prim);
        let kept: Vec<usize> = (0..x_aval.rank()).filter(|k| !axes.contains(k)).collect();
        let mut l = if kept.is_empty() && self.flat_ok(x, &x_aval.shape) {
            LoopNest::flat(&x_aval.shape)
        } else {
            let mut l = LoopNest::new(&x_aval.shape);
            // Reduced axes run innermost, so each output element has one accumulator.
            l.order = kept.iter().copied().chain(axes.iter().copied()).collect();
            l
        };
        let kept: Vec<usize> = if l.is_flat() { Vec::new() } else { kept };
        let copies = self.simd_copies(&x_aval.shape, x);
        let id = l.identity();
        let value = self.eval(&mut l, x, &id);
        let body = l.body.clone();
        if let Some(n) = l.flat.clone() {
            // A whole-array reduction: fixed chunks (in parallel when allowed),
            // each folded in independent lanes so the loop vectorizes; the
            // order is fixed, so results do not depend on the thread count.
            let pre = &l.pre;
            // `par::fold_lanes`'s order, written out so that each block of
            // LANES elements reads slices re-cut to exactly LANES: the lane
            // index then needs no bounds check and the block vectorizes.
            let mut slices: Vec<&Ident> = l.rows.values().collect();
            // A stable order: the macro's output must not depend on hashing.
            slices.sort_by_key(|i| i.to_string());
            let fold = quote! {
                #(#pre)*
                let mut __acc = [::jax::__rt::identity::#identity::<#ty>(); ::jax::__rt::par::LANES];
                let mut __b = 0usize;
                while __b + ::jax::__rt::par::LANES <= __n {
                    #(let #slices = &#slices[__b..__b + ::jax::__rt::par::LANES];)*
                    let __first = __start + __b;
                    for __i in 0..::jax::__rt::par::LANES {
                        #(#body)*
                        __acc[__i] = ::jax::__rt::ops::#combine_fn(__acc[__i], #value);
                    }
                    __b += ::jax::__rt::par::LANES;
                }
                {
                    #(let #slices = &#slices[__b..];)*
                    let __first = __start + __b;
                    for __i in 0..__n - __b {
                        #(#body)*
                        __acc[__i] = ::jax::__rt::ops::#combine_fn(__acc[__i], #value);
                    }
                }
                let mut __w = ::jax::__rt::par::LANES / 2;
                while __w > 0 {
                    for __l in 0..__w {
                        __acc[__l] = ::jax::__rt::ops::#combine_fn(__acc[__l], __acc[__l + __w]);
                    }
                    __w /= 2;
                }
                __acc[0]
            };
            let body = quote! {
                |(__start, __end): (usize, usize)| {
                    let __n = __end - __start;
                    #fold
                }
            };
            let value = if self.parallel && copies == 3 {
                quote! {
                    ::jax::__rt::par::reduce3(#n, ::jax::__rt::par::REDUCE_CHUNK, #body, #body, #body, ::jax::__rt::ops::#combine_fn)
                }
            } else if self.parallel && copies == 2 {
                level_dispatch(copies, &body, quote!((0usize, #n)))
            } else {
                quote!({ let __start = 0usize; let __n = #n; #fold })
            };
            self.stmts.push(quote!(let #name: #ty = #value;));
            self.locs.insert(out, Loc::Scalar(name));
            return;
        }
        let acc_update = quote! { #(#body)* __acc = ::jax::__rt::ops::#combine_fn(__acc, #value); };
        let inner = l.wrap_range(kept.len(), l.order.len(), acc_update);
        if aval.rank() == 0 {
            let outer = quote! {
                let mut __acc: #ty = ::jax::__rt::identity::#identity::<#ty>();
                #inner
                __acc
            };
            self.stmts.push(quote!(let #name: #ty = { #outer };));
            self.locs.insert(out, Loc::Scalar(name));
        } else {
            let out_strides = row_major_strides(&aval.shape);
            let out_index_terms: Vec<TokenStream> = kept
                .iter()
                .zip(&out_strides)
                .map(|(&k, s)| {
                    let var = &l.vars[k];
                    quote!(#var * #s)
                })
                .collect();
            let per_output = quote! {
                let mut __acc: #ty = ::jax::__rt::identity::#identity::<#ty>();
                #inner
                #name[0usize #(+ #out_index_terms)*] = __acc;
            };
            let loops = l.wrap_range(0, kept.len(), per_output);
            let size = product(&aval.shape);
            self.alloc(&name, &ty, &size);
            self.stmts.push(loops);
            self.finish_buffer(out, aval, name);
        }
    }

    /// `out` lives in the buffer `name`, which this body owns.
    fn finish_buffer(&mut self, out: Var, aval: &Aval, name: Ident) {
        self.owned.insert(name.to_string());
        self.bind_buffer(out, aval, name);
    }

    /// `out` is read from the whole row-major buffer `name`.
    fn bind_buffer(&mut self, out: Var, aval: &Aval, name: Ident) {
        self.locs.insert(
            out,
            Loc::View {
                buf: name,
                offset: quote!(0usize),
                strides: row_major_strides(&aval.shape),
            },
        );
    }

    /// A contiguous row-major buffer holding `x` (copying views that are not).
    fn buffer_of(&mut self, x: &Atom, aval: &Aval) -> Ident {
        if let Atom::Var(v) = x {
            if let Some(Loc::View {
                buf,
                offset,
                strides,
            }) = self.locs.get(v)
            {
                if offset.to_string() == "0usize" && strides_are_row_major(strides, &aval.shape) {
                    return buf.clone();
                }
            }
        }
        self.copy_view(x, aval)
    }

    fn kernel(&mut self, prim: &str, p: &Params, ins: &[Atom], out: Var, aval: &Aval) {
        let name = Self::name(out);
        let ty = rust_type(aval.dtype);
        match (prim, p) {
            (
                "dot_general",
                Params::DotGeneral {
                    lhs_contract,
                    rhs_contract,
                    lhs_batch,
                    rhs_batch,
                    ..
                },
            ) => {
                let (la, ra) = (self.aval(&ins[0]).clone(), self.aval(&ins[1]).clone());
                let lb = self.buffer_of(&ins[0], &la);
                let rb = self.buffer_of(&ins[1], &ra);
                if let Some(g) = Gemm::of(&la, &ra, lhs_contract, rhs_contract, lhs_batch) {
                    let Gemm { m, k, n, a, b } = g;
                    let (ars, acs, brs, bcs) = (a.0, a.1, b.0, b.1);
                    self.stmts.push(quote! {
                        let #name: ::std::vec::Vec<#ty> = ::jax::__rt::gemm::<#ty>(
                            #m, #k, #n, &#lb, #ars, #acs, &#rb, #brs, #bcs,
                        );
                    });
                } else {
                    let ls: Vec<TokenStream> = la.shape.iter().map(dim_tokens).collect();
                    let rs: Vec<TokenStream> = ra.shape.iter().map(dim_tokens).collect();
                    self.stmts.push(quote! {
                        let #name: ::std::vec::Vec<#ty> = ::jax::__rt::dot_general::<#ty>(
                            &#lb, &[#(#ls),*], &#rb, &[#(#rs),*],
                            &[#(#lhs_contract),*], &[#(#rhs_contract),*],
                            &[#(#lhs_batch),*], &[#(#rhs_batch),*],
                        );
                    });
                }
            }
            ("concatenate", Params::Concatenate { dim }) => {
                let mut parts = Vec::new();
                for a in ins {
                    let av = self.aval(a).clone();
                    let b = self.buffer_of(a, &av);
                    let shape: Vec<TokenStream> = av.shape.iter().map(dim_tokens).collect();
                    parts.push(quote!((&#b[..], &[#(#shape),*][..])));
                }
                self.stmts.push(quote! {
                    let #name: ::std::vec::Vec<#ty> = ::jax::__rt::concatenate::<#ty>(&[#(#parts),*], #dim);
                });
            }
            (
                scatter,
                Params::Scatter {
                    inserted, indices, ..
                },
            ) => {
                self.scatter(scatter, &ins[0], &ins[2], *inserted, indices, out, aval);
                return;
            }
            (other, _) => unreachable!("kernel {other}"),
        }
        self.finish_buffer(out, aval, name);
    }

    /// `scatter`: the operand's buffer updated at static indices. The buffer
    /// is updated in place when the operand is a buffer this body allocated
    /// and nothing else reads (its last use); otherwise it is copied first.
    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &mut self,
        prim: &str,
        x: &Atom,
        upd: &Atom,
        inserted: usize,
        indices: &[i128],
        out: Var,
        aval: &Aval,
    ) {
        let name = Self::name(out);
        let ty = rust_type(aval.dtype);
        let x_aval = self.aval(x).clone();
        let in_place = match x {
            Atom::Var(v) => self.dead_buffer(*v, &x_aval.shape),
            Atom::Lit(_) => None,
        };
        match in_place {
            Some(buf) => self
                .stmts
                .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #buf;)),
            None => {
                let copy = self.copy_view(x, &x_aval);
                self.stmts
                    .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #copy;));
            }
        }
        // Static indices: out of bounds drops the update (FILL_OR_DROP).
        let dims: Vec<Dim> = x_aval.shape.clone();
        let in_bounds = indices
            .iter()
            .zip(&dims)
            .all(|(&i, d)| matches!(d, Dim::Lit(n) if i >= 0 && (i as usize) < *n));
        if in_bounds {
            let strides = row_major_strides(&dims);
            let terms: Vec<TokenStream> = indices
                .iter()
                .zip(&strides)
                .map(|(&i, s)| {
                    let i = i as usize;
                    quote!(#i * #s)
                })
                .collect();
            let base = quote!(0usize #(+ #terms)*);
            let window = product(&dims[inserted..]);
            let upd_aval = self.aval(upd).clone();
            let value = if upd_aval.rank() == 0 {
                let s = self.scalar_of(upd);
                quote!(#s)
            } else {
                let b = self.buffer_of(upd, &upd_aval);
                quote!(#b[__w])
            };
            let update = match prim {
                "scatter" => quote!(#value),
                "scatter-add" => quote!(::jax::__rt::ops::add(__win[__w], #value)),
                "scatter-mul" => quote!(::jax::__rt::ops::mul(__win[__w], #value)),
                "scatter-min" => quote!(::jax::__rt::ops::min(__win[__w], #value)),
                _ => quote!(::jax::__rt::ops::max(__win[__w], #value)),
            };
            self.stmts.push(quote! {
                {
                    let __win = &mut #name[#base..#base + #window];
                    for __w in 0..#window {
                        __win[__w] = #update;
                    }
                }
            });
        }
        self.owned.insert(name.to_string());
        self.finish_buffer(out, aval, name);
    }

    /// The statements, and an expression for each output: a scalar value or a
    /// `Vec` in row-major order.
    pub fn finish(&mut self) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let mut outs = Vec::new();
        for a in self.j.outvars.clone() {
            if let Some((w, t)) = &self.out_target {
                if a == Atom::Var(*w) && self.written_target {
                    outs.push(quote!(#t));
                    continue;
                }
            }
            let aval = self.aval(&a).clone();
            if aval.rank() == 0 {
                let s = self.scalar_of(&a);
                outs.push(quote!(#s));
                continue;
            }
            let size = product(&aval.shape);
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
                        if whole && self.owned.contains(&key) && self.returned.insert(key) {
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
        (std::mem::take(&mut self.stmts), outs)
    }
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

/// Element count times work per element (additions) under which one copy
/// of a loop, at the baseline SIMD level, takes a few microseconds.
const SMALL_LOOP_WORK: usize = 1 << 16;

/// Element count under which AVX-512 gains little over AVX2 on a loop.
const SMALL_TRANSCENDENTAL_LOOP: usize = 4096;

/// `file:line:column` of the user's expression, as `jax_debug_nans` reports it.
fn source_location(span: proc_macro2::Span) -> String {
    let at = span.start();
    format!("{}:{}:{}", span.file(), at.line, at.column + 1)
}

/// The number of elements of a static shape.
fn static_size(shape: &[Dim]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, d| match d {
        Dim::Lit(k) => n.checked_mul(*k),
        Dim::Sym(_) => None,
    })
}

/// `body` (a closure) called on `arg` through one copy per SIMD level, or
/// directly when there is one copy.
fn level_dispatch(copies: usize, body: &TokenStream, arg: TokenStream) -> TokenStream {
    match copies {
        3 => {
            quote!(::jax::__rt::par::dispatch3(::jax::__rt::par::Level::current(), &#body, &#body, &#body, #arg))
        }
        2 => {
            quote!(::jax::__rt::par::dispatch2(::jax::__rt::par::Level::current(), &#body, &#body, #arg))
        }
        _ => quote!((#body)(#arg)),
    }
}

/// A loop nest over a shape, with loop variables and the body's let-bindings.
///
/// Reads in the innermost loop go through row slices taken once per row
/// (`let r = &buf[base..base + n]`), so the innermost loop has no bounds
/// checks and vectorizes; values that do not vary along it are read before it.
struct LoopNest {
    dims: Vec<Dim>,
    vars: Vec<Ident>,
    /// The axes in loop order, outermost first.
    order: Vec<usize>,
    body: Vec<TokenStream>,
    /// Statements just before the innermost loop.
    pre: Vec<TokenStream>,
    memo: HashMap<(Var, Vec<Option<usize>>), Ident>,
    rows: HashMap<String, Ident>,
    /// Sample keys' words, read before the innermost loop.
    keys: HashMap<String, Ident>,
    /// One loop over all elements (every array read is whole and row-major).
    flat: Option<TokenStream>,
    /// Run the flat loop in parallel chunks through the runtime's driver.
    parallel: bool,
    /// The buffer a flat loop writes.
    out: Option<Ident>,
    /// Estimated work per element (for the chunk size): 1 per arithmetic
    /// operation, 4 per division or root, 32 per transcendental.
    cost: usize,
}

impl LoopNest {
    fn new(shape: &[Dim]) -> LoopNest {
        LoopNest {
            dims: shape.to_vec(),
            vars: (0..shape.len())
                .map(|k| format_ident!("__i{}", k))
                .collect(),
            order: (0..shape.len()).collect(),
            body: Vec::new(),
            pre: Vec::new(),
            memo: HashMap::new(),
            rows: HashMap::new(),
            keys: HashMap::new(),
            flat: None,
            parallel: false,
            out: None,
            cost: 0,
        }
    }

    /// A single loop over the `shape`'s elements.
    fn flat(shape: &[Dim]) -> LoopNest {
        let mut l = LoopNest::new(shape);
        l.flat = Some(product(shape));
        l
    }

    fn is_flat(&self) -> bool {
        self.flat.is_some()
    }

    fn identity(&self) -> Vec<Option<usize>> {
        (0..self.dims.len()).map(Some).collect()
    }

    /// The row-major index, in an array of `shape`, of the element at the
    /// loop position `index` (the loop axis of each of its axes, `None` for
    /// a broadcast axis of size 1).
    fn flat_index(&self, shape: &[Dim], index: &[Option<usize>]) -> TokenStream {
        if self.is_flat() {
            // `__first` is the index of the loop's element 0 (see `wrap_range`
            // and the reductions' lane blocks).
            return quote!((__first + __i));
        }
        let terms: Vec<TokenStream> = index
            .iter()
            .enumerate()
            .filter_map(|(k, i)| {
                let var = &self.vars[(*i)?];
                let stride = product(&shape[k + 1..]);
                Some(quote!(#var * #stride))
            })
            .collect();
        if terms.is_empty() {
            quote!(0usize)
        } else {
            quote!((#(#terms)+*))
        }
    }

    /// The innermost loop's axis, if any.
    fn inner(&self) -> Option<usize> {
        self.order.last().copied()
    }

    /// An element of `buf` at `offset + sum(loop var * stride)` (a stride
    /// per loop axis, 0 where it does not move), read or (`write`) written
    /// through a row slice of the innermost loop.
    fn row_of(
        &mut self,
        buf: &Ident,
        offset: &TokenStream,
        loop_strides: &[TokenStream],
        write: bool,
    ) -> TokenStream {
        if self.flat.is_some() {
            // Flat loops run over `__start..__start + __n` (one chunk, or all).
            if write && self.parallel {
                return quote!(__out[__i]);
            }
            let key = format!("{buf} flat {write}");
            if let Some(row) = self.rows.get(&key) {
                return quote!(#row[__i]);
            }
            let row = format_ident!("__r{}", self.rows.len());
            self.rows.insert(key, row.clone());
            self.pre.push(if write {
                quote!(let #row = &mut #buf[__start..__start + __n];)
            } else {
                quote!(let #row = &#buf[__start..__start + __n];)
            });
            return quote!(#row[__i]);
        }
        // In a chunk of rows, the output is the chunk's slice `__out`, whose
        // first row is `__row0`.
        let chunked = write && self.parallel && !self.is_flat();
        let outer_terms: Vec<TokenStream> = self
            .order
            .iter()
            .filter(|&&k| Some(k) != self.inner())
            .filter(|&&k| loop_strides[k].to_string() != "0usize")
            .map(|&k| {
                let (v, s) = (&self.vars[k], &loop_strides[k]);
                if chunked && k == 0 {
                    quote!((#v - __row0) * #s)
                } else {
                    quote!(#v * #s)
                }
            })
            .collect();
        let base = quote!(#offset #(+ #outer_terms)*);
        let buf = &if chunked {
            format_ident!("__out")
        } else {
            buf.clone()
        };
        let Some(inner) = self.inner() else {
            return quote!(#buf[#base]);
        };
        let inner_stride = loop_strides[inner].to_string();
        let key = format!("{buf} {base} {inner_stride} {write}");
        if let Some(r) = self.rows.get(&key) {
            let r = r.clone();
            let iv = &self.vars[inner];
            return if inner_stride == "0usize" {
                quote!(#r)
            } else {
                quote!(#r[#iv])
            };
        }
        let name = format_ident!("__r{}", self.rows.len());
        self.rows.insert(key, name.clone());
        let iv = &self.vars[inner];
        let n = dim_tokens(&self.dims[inner]);
        match (inner_stride.as_str(), write) {
            ("1usize", false) => {
                self.pre.push(quote!(let #name = &#buf[#base..#base + #n];));
                quote!(#name[#iv])
            }
            ("1usize", true) => {
                self.pre
                    .push(quote!(let #name = &mut #buf[#base..#base + #n];));
                quote!(#name[#iv])
            }
            ("0usize", false) => {
                self.pre.push(quote!(let #name = #buf[#base];));
                quote!(#name)
            }
            _ => {
                self.rows
                    .remove(&format!("{buf} {base} {inner_stride} {write}"));
                let s = &loop_strides[inner];
                quote!(#buf[#base + #iv * #s])
            }
        }
    }

    /// All loops around `inner`.
    fn wrap(&self, inner: TokenStream) -> TokenStream {
        self.wrap_range(0, self.order.len(), inner)
    }

    /// Loops `order[from..to]` around `inner`; the innermost loop gets the
    /// row slices just before it.
    fn wrap_range(&self, from: usize, to: usize, inner: TokenStream) -> TokenStream {
        if let Some(n) = &self.flat {
            let pre = &self.pre;
            return match (&self.out, self.parallel) {
                (Some(out), true) => {
                    let cost = self.cost.max(1);
                    // The body once per SIMD level (see `par::dispatch3`).
                    let body = quote! {
                        |(__start, __out)| {
                            let __n = __out.len();
                            let __first = __start;
                            #(#pre)*
                            for __i in 0..__n { #inner }
                        }
                    };
                    quote! {
                        ::jax::__rt::par::for_each_chunk3(&mut #out, ::jax::__rt::par::grain(#cost), #body, #body, #body);
                    }
                }
                _ => {
                    quote!({ let __start = 0usize; let __first = 0usize; let __n = #n; #(#pre)* for __i in 0..__n { #inner } })
                }
            };
        }
        let mut t = inner;
        let innermost = to == self.order.len();
        for (pos, &k) in self.order[from..to].iter().enumerate().rev() {
            let var = &self.vars[k];
            let n = dim_tokens(&self.dims[k]);
            t = if self.parallel && k == 0 && from == 0 {
                // The rows of this chunk only.
                let row = product(&self.dims[1..]);
                quote!(for #var in __row0..__row0 + __out.len() / #row { #t })
            } else {
                quote!(for #var in 0..#n { #t })
            };
            if innermost && pos + from + 1 == self.order.len() {
                let pre = &self.pre;
                t = quote!({ #(#pre)* #t });
            }
        }
        if innermost && from == to {
            let pre = &self.pre;
            t = quote!({ #(#pre)* #t });
        }
        t
    }
}
