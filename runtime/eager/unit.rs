//! Composites run as one program: a *unit* is traced once per argument
//! types into a jaxpr (the same tracing a `#[jax::jit]` body does, with
//! [`Trace`]), simplified as the compiler simplifies a body (the rewrites
//! XLA applies inside a program included), and then run equation by
//! equation with the kernels of [`Eager`](super::Eager).
//!
//! A unit is what JAX runs as one XLA program when the composite is called
//! eagerly: a function JAX decorates with `jit` (`jax.nn.log_softmax`,
//! `standardize`, the activations), or one whose operations are each one
//! program anyway. Its results are the bits its jitted twin computes: the
//! same equations, the same element functions, the reductions in jitted
//! code's order.
//!
//! [`Blocks::Rows`] runs a unit over blocks of rows: each block of a few
//! thousand elements goes through every equation while it is in cache, and
//! blocks run on the team's threads. That is what makes a unit of many
//! elementwise passes (softmax: a maximum, a subtraction, `exp`, a sum, a
//! scaling) as fast as a hand-fused loop. A caller asks for it only for a
//! composite whose result rows depend on the same rows of its operands
//! alone (a softmax along any axis but the first); the reductions fold each
//! result in an order that does not depend on how many rows there are, so
//! the bits are the same as for the whole arrays at once.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Mutex;

use jax_core::ir::builder::{clear_expression_mark, Builder};
use jax_core::ir::primitive::{Params, Prim};
use jax_core::ir::{Atom, Aval, Dim, Jaxpr, Scalar, Var};
use jax_core::lax::Trace;

use super::rows::RowProgram;
use super::{kernels, scalar_of, Value};
use crate::__rt::par;
use crate::array::{ArrayType, AsArray};
use crate::element::{Complex, DType, Element};
use crate::tree::{DynArray, DynData, ElementsMut};

/// A composite traced over [`Trace`]: its results, given its inputs.
pub(crate) type Composite<'a> =
    &'a (dyn Fn(&mut Trace, Vec<Atom>) -> jax_core::Result<Vec<Atom>> + Sync);

/// How a unit's work is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocks {
    /// The whole arrays at once.
    Whole,
    /// Blocks of rows along the first axis, which every operand has with
    /// the same length: each row of the (single) result depends only on the
    /// same row of each operand.
    Rows,
}

/// Elements a block of rows holds (about): with the few values a unit keeps
/// alive at once, a block stays within a core's L2 cache.
const BLOCK: usize = 16 * 1024;

/// An operand of a unit, read where it lies: a typed array's elements or
/// an eager value. A block copies only its rows.
pub(crate) struct Input<'a> {
    shape: Vec<usize>,
    dtype: DType,
    weak: bool,
    data: Box<dyn Elements + Sync + 'a>,
}

/// Elements to copy from.
pub(crate) trait Elements {
    /// The `len` elements from `start`, in a pooled buffer.
    fn range(&self, start: usize, len: usize) -> DynData;
    /// The elements, when they are `f32`.
    fn f32s(&self) -> Option<&[f32]>;
    /// The elements, when they are `f64`.
    fn f64s(&self) -> Option<&[f64]>;
}

impl<T: Element> Elements for &[T] {
    fn range(&self, start: usize, len: usize) -> DynData {
        let mut b = crate::__rt::buffer::<T>(len);
        b.copy_from_slice(&self[start..start + len]);
        DynData::wrap(b)
    }
    fn f32s(&self) -> Option<&[f32]> {
        crate::lax::fast::same_slice(self)
    }
    fn f64s(&self) -> Option<&[f64]> {
        crate::lax::fast::same_slice(self)
    }
}

impl Elements for &DynData {
    fn range(&self, start: usize, len: usize) -> DynData {
        DynData::range(self, start, len)
    }
    fn f32s(&self) -> Option<&[f32]> {
        self.as_slice_of()
    }
    fn f64s(&self) -> Option<&[f64]> {
        self.as_slice_of()
    }
}

impl<'a> Input<'a> {
    /// A typed array's elements.
    pub(crate) fn of<A: AsArray>(x: &'a A) -> Input<'a> {
        let a = x.as_array();
        Input {
            shape: <A::Array as ArrayType>::SHAPE.to_vec(),
            dtype: <A::Array as ArrayType>::Elem::DTYPE,
            weak: a.is_weak(),
            data: Box::new(a.data()),
        }
    }

    /// A dynamically typed array's elements.
    pub(crate) fn dyn_array(x: &'a DynArray) -> Input<'a> {
        Input {
            shape: x.shape().to_vec(),
            dtype: x.dtype(),
            weak: x.weak_type(),
            data: Box::new(x.data()),
        }
    }

    /// A Rust scalar or an array, borrowed where it lies.
    pub(crate) fn view<T: Element>(v: crate::ops::View<'a, T>) -> Input<'a> {
        Input {
            shape: v.shape.to_vec(),
            dtype: T::DTYPE,
            weak: v.weak,
            data: Box::new(v.data),
        }
    }

    /// Its aval, or a block's of `rows` rows (a scalar is whole in every
    /// block).
    fn aval(&self, rows: Option<usize>) -> Aval {
        let mut shape: Vec<Dim> = self.shape.iter().map(|&n| Dim::Lit(n)).collect();
        if let (Some(n), false) = (rows, shape.is_empty()) {
            shape[0] = Dim::Lit(n);
        }
        Aval {
            dtype: self.dtype,
            shape,
            weak: self.weak,
        }
    }

    /// Rows `row0..row0 + n` as an array.
    fn rows(&self, row0: usize, n: usize) -> DynArray {
        if self.shape.is_empty() {
            return self.whole();
        }
        let len: usize = self.shape[1..].iter().product();
        let mut shape = self.shape.clone();
        shape[0] = n;
        DynArray::new(shape, self.data.range(row0 * len, n * len))
            .expect("whole rows")
            .with_weak(self.weak)
    }

    /// All of it as an array.
    fn whole(&self) -> DynArray {
        let n = self.shape.iter().product();
        DynArray::new(self.shape.clone(), self.data.range(0, n))
            .expect("its shape")
            .with_weak(self.weak)
    }
}

/// Runs the composite `f`, named `name` with static arguments `statics`
/// (together with the operands' types, what identifies its program), on
/// `args`.
pub(crate) fn run(
    name: &'static str,
    statics: &str,
    args: &[Input],
    blocks: Blocks,
    f: Composite,
) -> Result<Vec<Value>, String> {
    // Scalars (a Rust number beside an array) are whole in every block.
    let rows = args
        .iter()
        .find_map(|a| a.shape.first().copied())
        .unwrap_or(0);
    let per_row = args
        .iter()
        .map(|a| a.shape.iter().skip(1).product())
        .max()
        .unwrap_or(0);
    let block_rows = (BLOCK / per_row.max(1)).max(1);
    let by_rows = blocks == Blocks::Rows
        && per_row > 0
        && args
            .iter()
            .all(|a| a.shape.is_empty() || a.shape.first() == Some(&rows));
    if let ([x], true) = (args, by_rows) {
        // A program of rows and numbers per row runs row by row.
        let key = Key::new(name, statics, vec![x.aval(Some(rows.min(block_rows)))]);
        if let Some(r) = program(key, f)?
            .rows
            .as_ref()
            .and_then(|p| by_row(p, x, rows))
        {
            return Ok(vec![r]);
        }
    }
    let blocked = by_rows && rows > block_rows;
    if !blocked {
        let key = Key::new(name, statics, args.iter().map(|a| a.aval(None)).collect());
        let prog = program(key, f)?;
        let outs = prog.run(args.iter().map(|a| Slot::Own(a.whole())).collect())?;
        return Ok(outs.into_iter().map(Value::new).collect());
    }
    // The block's program, traced here first: a bad call fails once, on
    // this thread, before any block runs.
    let avals = |n: usize| -> Vec<Aval> { args.iter().map(|a| a.aval(Some(n))).collect() };
    let first = program(Key::new(name, statics, avals(block_rows)), f)?;
    let [out] = &first.out_avals[..] else {
        return Err(format!("`{name}` is run by rows only with one result"));
    };
    let out_shape = sizes(out);
    if out_shape.first() != Some(&block_rows) {
        return Err(format!("`{name}`'s result is not by rows"));
    }
    let out_row: usize = out_shape[1..].iter().product();
    let mut data = DynData::buffer(out.dtype, rows * out_row);
    let failed: Mutex<Option<String>> = Mutex::new(None);
    let block = |row0: usize, n: usize| -> Result<DynData, String> {
        let ins: Vec<Slot> = args.iter().map(|a| Slot::Own(a.rows(row0, n))).collect();
        let prog = program(Key::new(name, statics, avals(n)), f)?;
        let mut outs = prog.run(ins)?;
        Ok(outs.remove(0).into_parts().1)
    };
    data.visit_mut(FillRows {
        row_len: out_row,
        block_rows,
        block: &block,
        failed: &failed,
    });
    if let Some(msg) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(msg);
    }
    let mut shape = out_shape;
    shape[0] = rows;
    let r = DynArray::new(shape, data)
        .expect("rows of the block's shape")
        .with_weak(out.weak);
    Ok(vec![Value::new(r)])
}

/// `p` over every row of `x` (`rows` of them), if `x`'s elements are of
/// the program's dtype.
fn by_row(p: &RowProgram, x: &Input, rows: usize) -> Option<Value> {
    let out_len = p.out_len();
    let data = match p.dtype() {
        DType::F32 => {
            let mut out = crate::__rt::buffer::<f32>(rows * out_len);
            p.run(x.data.f32s()?, &mut out);
            DynData::wrap(out)
        }
        DType::F64 => {
            let mut out = crate::__rt::buffer::<f64>(rows * out_len);
            p.run(x.data.f64s()?, &mut out);
            DynData::wrap(out)
        }
        _ => return None,
    };
    let shape = if out_len == x.shape[1..].iter().product::<usize>() {
        x.shape.clone()
    } else {
        vec![rows]
    };
    Some(Value::new(
        DynArray::new(shape, data)
            .expect("rows")
            .with_weak(p.weak()),
    ))
}

/// Fills a result's rows block by block, blocks on the team's threads.
struct FillRows<'a> {
    row_len: usize,
    block_rows: usize,
    block: &'a (dyn Fn(usize, usize) -> Result<DynData, String> + Sync),
    failed: &'a Mutex<Option<String>>,
}

impl ElementsMut for FillRows<'_> {
    type Out = ();
    fn call<T: Element>(self, out: &mut [T]) {
        par::for_each_rows(
            out,
            self.row_len,
            self.block_rows,
            |row0, chunk| match (self.block)(row0, chunk.len() / self.row_len) {
                Ok(d) => {
                    chunk.copy_from_slice(d.as_slice_of::<T>().expect("the traced dtype"));
                    d.recycle();
                }
                Err(msg) => {
                    let mut f = self.failed.lock().unwrap_or_else(|e| e.into_inner());
                    f.get_or_insert(msg);
                }
            },
        );
    }
}

/// What identifies a unit's program.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    name: &'static str,
    statics: String,
    avals: Vec<Aval>,
}

impl Key {
    fn new(name: &'static str, statics: &str, avals: Vec<Aval>) -> Key {
        Key {
            name,
            statics: statics.to_string(),
            avals,
        }
    }
}

/// Programs kept per thread (a jaxpr's parameters are not shared between
/// threads): each thread of the team traces a unit once per argument types.
const KEPT: usize = 256;

thread_local! {
    static PROGRAMS: RefCell<HashMap<Key, Rc<Program>>> = RefCell::new(HashMap::new());
}

/// The program of `key`, traced from `f` on a first call.
fn program(key: Key, f: Composite) -> Result<Rc<Program>, String> {
    if let Some(p) = PROGRAMS.with(|m| m.borrow().get(&key).cloned()) {
        return Ok(p);
    }
    let p = Rc::new(Program::trace(&key.avals, f)?);
    PROGRAMS.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= KEPT {
            m.clear();
        }
        m.insert(key, p.clone());
    });
    Ok(p)
}

/// A simplified jaxpr, ready to run: each equation's operands resolved to
/// slots or literal values, and the slots each equation is the last reader of.
pub(super) struct Program {
    pub(super) slots: usize,
    pub(super) invars: Vec<usize>,
    in_avals: Vec<Aval>,
    consts: Vec<(usize, DynArray)>,
    pub(super) steps: Vec<Step>,
    pub(super) outs: Vec<Src>,
    out_avals: Vec<Aval>,
    /// The program row by row, when it has that form.
    rows: Option<RowProgram>,
}

pub(super) struct Step {
    pub(super) prim: Prim,
    pub(super) params: Params,
    pub(super) ins: Vec<Src>,
    pub(super) outs: Vec<usize>,
    pub(super) avals: Vec<Aval>,
    /// Slots no later step reads: their buffers go back to the pool.
    free: Vec<usize>,
}

pub(super) enum Src {
    Slot(usize),
    Lit(DynArray),
}

/// A value a program holds: an operand it borrows or a result it owns.
enum Slot<'a> {
    Ref(&'a DynArray),
    Own(DynArray),
}

impl Slot<'_> {
    fn get(&self) -> &DynArray {
        match self {
            Slot::Ref(x) => x,
            Slot::Own(x) => x,
        }
    }
}

impl Program {
    /// `f` traced on inputs of `avals` and simplified.
    fn trace(avals: &[Aval], f: Composite) -> Result<Program, String> {
        let mut b = Builder::new(cfg!(feature = "x64"));
        let ins: Vec<Atom> = avals.iter().map(|a| b.input(a.clone())).collect();
        let outs = f(&mut Trace::new(&mut b, jax_core::Span::call_site()), ins).map_err(|e| {
            clear_expression_mark();
            e.to_string()
        })?;
        let mut j = b.jaxpr;
        j.outvars = outs;
        // A custom derivative matters only to transformations: run its body.
        let mut j = jax_core::prims::inline_all_calls(&j);
        jax_core::transform::simplify::simplify(&mut j);
        read_broadcasts_in_place(&mut j);
        let src = |a: &Atom| match a {
            Atom::Var(v) => Src::Slot(v.0 as usize),
            Atom::Lit(l) => Src::Lit(scalar_of(&l.value, l.aval.dtype).with_weak(l.aval.weak)),
        };
        // The last step reading each slot (a result never read: the step
        // computing it); results of the program are never freed.
        let mut last: HashMap<usize, usize> = HashMap::new();
        for (k, e) in j.eqns.iter().enumerate() {
            for v in &e.outs {
                last.insert(v.0 as usize, k);
            }
            for a in &e.ins {
                if let Atom::Var(v) = a {
                    last.insert(v.0 as usize, k);
                }
            }
        }
        for a in &j.outvars {
            if let Atom::Var(v) = a {
                last.remove(&(v.0 as usize));
            }
        }
        let inputs: Vec<usize> = j.invars.iter().map(|v| v.0 as usize).collect();
        let mut free: Vec<Vec<usize>> = vec![vec![]; j.eqns.len()];
        for (v, k) in last {
            // Operands are borrowed: only results go back to the pool.
            if !inputs.contains(&v) {
                free[k].push(v);
            }
        }
        let consts = j
            .constvars
            .iter()
            .map(|(v, values)| Ok((v.0 as usize, constant(j.aval(*v), values)?)))
            .collect::<Result<Vec<_>, String>>()?;
        let steps = j
            .eqns
            .iter()
            .zip(free)
            .map(|(e, free)| Step {
                prim: e.prim,
                params: e.params.clone(),
                ins: e.ins.iter().map(src).collect(),
                outs: e.outs.iter().map(|v| v.0 as usize).collect(),
                avals: e.outs.iter().map(|v| j.aval(*v).clone()).collect(),
                free,
            })
            .collect();
        let mut p = Program {
            slots: j.avals.len(),
            in_avals: j.invars.iter().map(|v| j.aval(*v).clone()).collect(),
            invars: inputs,
            consts,
            steps,
            outs: j.outvars.iter().map(src).collect(),
            out_avals: j.outvars.iter().map(|a| j.atom_aval(a).clone()).collect(),
            rows: None,
        };
        if p.consts.is_empty() {
            p.rows = RowProgram::of(&p, p.out_avals[0].weak);
        }
        Ok(p)
    }

    /// The aval of input slot `slot`.
    pub(super) fn aval(&self, slot: usize) -> Option<&Aval> {
        let k = self.invars.iter().position(|&v| v == slot)?;
        self.in_avals.get(k)
    }

    /// The program's results on `ins`.
    fn run(&self, ins: Vec<Slot>) -> Result<Vec<DynArray>, String> {
        let mut env: Vec<Option<Slot>> = (0..self.slots).map(|_| None).collect();
        for (&v, x) in self.invars.iter().zip(ins) {
            env[v] = Some(x);
        }
        for (v, c) in &self.consts {
            env[*v] = Some(Slot::Ref(c));
        }
        for s in &self.steps {
            let rs = {
                let refs: Vec<&DynArray> = s
                    .ins
                    .iter()
                    .map(|a| match a {
                        Src::Slot(v) => env[*v].as_ref().expect("computed before").get(),
                        Src::Lit(x) => x,
                    })
                    .collect();
                kernels::run(s.prim, &s.params, &refs, &s.avals)?
            };
            for (&v, r) in s.outs.iter().zip(rs) {
                env[v] = Some(Slot::Own(r));
            }
            for &v in &s.free {
                if let Some(Slot::Own(x)) = env[v].take() {
                    x.into_parts().1.recycle();
                }
            }
        }
        let mut outs = Vec::with_capacity(self.outs.len());
        for (k, a) in self.outs.iter().enumerate() {
            let read_again = matches!(a, Src::Slot(v)
                if self.outs[k + 1..].iter().any(|b| matches!(b, Src::Slot(w) if w == v)));
            outs.push(match a {
                Src::Lit(x) => x.clone(),
                Src::Slot(v) if read_again => env[*v].as_ref().expect("computed").get().clone(),
                Src::Slot(v) => match env[*v].take().expect("computed") {
                    Slot::Own(x) => x,
                    Slot::Ref(x) => x.clone(),
                },
            });
        }
        Ok(outs)
    }
}

/// A `broadcast_in_dim` read only by elementwise kernels that broadcast
/// axes of size 1 as they read (`kernels::ZIPPED`, `select_n`, `clamp`)
/// becomes a `reshape` to the result's rank, its broadcast axes of size 1:
/// the kernels read a row's worth of it per row, instead of a block-sized
/// copy being written and read back (a softmax's maximum and reciprocal).
fn read_broadcasts_in_place(j: &mut Jaxpr) {
    let mut readers: HashMap<Var, Vec<usize>> = HashMap::new();
    for (k, e) in j.eqns.iter().enumerate() {
        for a in &e.ins {
            if let Atom::Var(v) = a {
                readers.entry(*v).or_default().push(k);
            }
        }
    }
    for a in &j.outvars {
        if let Atom::Var(v) = a {
            readers.entry(*v).or_default().push(usize::MAX);
        }
    }
    let reads_broadcast = |k: usize, j: &Jaxpr| {
        k != usize::MAX && {
            let name = j.eqns[k].prim.name;
            kernels::ZIPPED.contains(&name) || name == "select_n" || name == "clamp"
        }
    };
    for k in 0..j.eqns.len() {
        let e = &j.eqns[k];
        let (Params::BroadcastInDim { shape, dims, .. }, [Atom::Var(x)]) = (&e.params, &e.ins[..])
        else {
            continue;
        };
        if e.prim.name != "broadcast_in_dim" {
            continue;
        }
        let out = e.outs[0];
        let Some(rs) = readers.get(&out) else {
            continue;
        };
        if !rs.iter().all(|&r| reads_broadcast(r, j)) || !dims.windows(2).all(|w| w[0] < w[1]) {
            continue;
        }
        let from = j.aval(*x).clone();
        let mut kept = vec![Dim::Lit(1); shape.len()];
        let mut fits = true;
        for (axis, &d) in dims.iter().enumerate() {
            let n = from.shape[axis].clone();
            fits &= n == shape[d] || n == Dim::Lit(1);
            kept[d] = n;
        }
        if !fits {
            continue;
        }
        let e = &mut j.eqns[k];
        e.prim = &jax_core::prims::RESHAPE;
        e.params = Params::Reshape {
            new_sizes: kept.clone(),
        };
        let mut aval = j.avals[out.0 as usize].clone();
        aval.shape = kept;
        j.avals[out.0 as usize] = aval;
    }
}

/// The sizes of an aval of literal dims.
fn sizes(a: &Aval) -> Vec<usize> {
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            _ => unreachable!("an eager unit's shapes are literal"),
        })
        .collect()
}

/// A constant the program closed over, as an array.
fn constant(aval: &Aval, values: &[Scalar]) -> Result<DynArray, String> {
    let shape = sizes(aval);
    let data = match aval.dtype {
        DType::U64 => DynData::U64(values.iter().map(|v| int(v) as u64).collect()),
        DType::I64 => DynData::I64(values.iter().map(|v| int(v) as i64).collect()),
        DType::C64 | DType::C128 => {
            let c: Vec<(f64, f64)> = values
                .iter()
                .map(|v| match *v {
                    Scalar::Complex(re, im) => (re, im),
                    ref other => (real(other), 0.0),
                })
                .collect();
            if aval.dtype == DType::C64 {
                DynData::C64(
                    c.iter()
                        .map(|&(re, im)| Complex::new(re as f32, im as f32))
                        .collect(),
                )
            } else {
                DynData::C128(c.iter().map(|&(re, im)| Complex::new(re, im)).collect())
            }
        }
        d => DynData::from_f64(d, &values.iter().map(real).collect::<Vec<f64>>()),
    };
    DynArray::new(shape, data)
        .map(|x| x.with_weak(aval.weak))
        .map_err(|e| e.to_string())
}

fn int(v: &Scalar) -> i128 {
    match *v {
        Scalar::Int(i) => i,
        Scalar::Bool(b) => b as i128,
        Scalar::Float(f) => f as i128,
        Scalar::Complex(re, _) => re as i128,
    }
}

fn real(v: &Scalar) -> f64 {
    match *v {
        Scalar::Int(i) => i as f64,
        Scalar::Bool(b) => b as u8 as f64,
        Scalar::Float(f) => f,
        Scalar::Complex(re, _) => re,
    }
}

/// A composite of one operand along one of its axes (a softmax, a
/// standardization): `f(x, axis)` run on `x` seen as `[rows, len]` (when
/// `axis` is the last) or `[rows, len, inner]`, by [`Blocks::Rows`], unless
/// `axis` is the first, and the result given back `x`'s shape. Each
/// reduction along `axis` folds in the order it has for `x` itself (the
/// last axis in lanes, another left to right), so the bits are the same.
pub(crate) fn along_axis(
    name: &'static str,
    statics: &str,
    mut x: Input,
    axis: usize,
    f: &(dyn Fn(&mut Trace, Atom, usize) -> jax_core::Result<Atom> + Sync),
) -> Result<Value, String> {
    let shape = x.shape.clone();
    let (at, blocks) = view_around(&mut x, axis);
    let statics = format!("{statics} axis={at}");
    let g = |t: &mut Trace, ins: Vec<Atom>| -> jax_core::Result<Vec<Atom>> {
        Ok(vec![f(t, ins[0].clone(), at)?])
    };
    let r = run(name, &statics, &[x], blocks, &g)?.remove(0);
    Ok(reshaped(r, shape))
}

/// Runs the elementwise composite `f` (every result element a function of
/// the operands' elements at its position) of operands of one shape, Rust
/// scalars among them: the arrays are viewed as rows of up to 1024
/// elements, run by blocks of rows on the team's threads, each block
/// through every step while it is in cache (or by the row program). Other
/// operands (broadcast against each other) run whole.
pub(crate) fn elementwise(
    name: &'static str,
    statics: &str,
    mut args: Vec<Input>,
    f: Composite,
) -> Result<Value, String> {
    let shape = args
        .iter()
        .find(|a| !a.shape.is_empty())
        .map(|a| a.shape.clone());
    let same = |s: &Vec<usize>| args.iter().all(|a| a.shape.is_empty() || a.shape == *s);
    let Some(shape) = shape.filter(same) else {
        return Ok(run(name, statics, &args, Blocks::Whole, f)?.remove(0));
    };
    let n: usize = shape.iter().product();
    // The longest row of a power of two elements that divides the array;
    // rows too short to pay for a step each run the array whole.
    let len = (0..=10)
        .rev()
        .map(|k| 1usize << k)
        .find(|&k| n.is_multiple_of(k))
        .unwrap_or(1);
    let view = if len >= 64 {
        vec![n / len, len]
    } else {
        vec![1, n]
    };
    for a in args.iter_mut().filter(|a| !a.shape.is_empty()) {
        a.shape = view.clone();
    }
    let r = run(name, statics, &args, Blocks::Rows, f)?.remove(0);
    Ok(reshaped(r, shape))
}

/// Views `x` around `axis` as `[rows, len]` (the last axis) or `[rows,
/// len, inner]`, so blocks of rows can run on their own; the axis's place
/// in the view, and how to run it (whole when `axis` is the first).
fn view_around(x: &mut Input, axis: usize) -> (usize, Blocks) {
    if axis == 0 {
        return (0, Blocks::Whole);
    }
    let outer: usize = x.shape[..axis].iter().product();
    let inner: usize = x.shape[axis + 1..].iter().product();
    x.shape = if axis + 1 == x.shape.len() {
        vec![outer, x.shape[axis]]
    } else {
        vec![outer, x.shape[axis], inner]
    };
    (1, Blocks::Rows)
}

/// [`along_axis`] for a reduction: `f` removes `axis` (its result is `x`'s
/// shape without it).
pub(crate) fn reduce_axis(
    name: &'static str,
    statics: &str,
    mut x: Input,
    axis: usize,
    f: &(dyn Fn(&mut Trace, Atom, usize) -> jax_core::Result<Atom> + Sync),
) -> Result<Value, String> {
    let mut shape = x.shape.clone();
    let (at, blocks) = view_around(&mut x, axis);
    let statics = format!("{statics} reduce axis={at}");
    let g = |t: &mut Trace, ins: Vec<Atom>| -> jax_core::Result<Vec<Atom>> {
        Ok(vec![f(t, ins[0].clone(), at)?])
    };
    let r = run(name, &statics, &[x], blocks, &g)?.remove(0);
    shape.remove(axis);
    Ok(reshaped(r, shape))
}

/// `x` with `shape` (as many elements), without a copy when `x` is its
/// array's only owner.
fn reshaped(x: Value, shape: Vec<usize>) -> Value {
    if x.shape() == shape.as_slice() {
        return x;
    }
    let weak = x.weak_type();
    let (_, data) = x.into_array().into_parts();
    Value::new(
        DynArray::new(shape, data)
            .expect("as many elements")
            .with_weak(weak),
    )
}
