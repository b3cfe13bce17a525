//! A unit's program run one row at a time, every operation on a row while
//! it is in the L1 cache: what a jitted row program does, for the programs
//! of `f32` or `f64` rows whose values are whole rows or one number per
//! row (a softmax, a log-softmax, a standardization along the last axis).
//!
//! Each value of the program is a row (`[rows, len]`), a number per row
//! (`[rows]` or `[rows, 1]`) or a literal; each operation is an elementwise
//! one, a reduction along the row, or a broadcast of a number over the row.
//! The element functions are `__rt::ops`' and the reductions fold each row
//! as the eager and jitted reductions along the last axis do
//! (`__rt::axis::fold_slice`), so the bits are the program's. The loop over
//! rows runs on the team's threads, compiled once per SIMD level.

// The loops index several slices at once, the form that vectorizes.
#![allow(clippy::needless_range_loop)]

use jax_core::ir::primitive::Params;
use jax_core::ir::{Aval, Dim};

use super::unit::{Program, Src};
use crate::__rt::axis::{fold_slice, three};
use crate::__rt::{ops, par};
use crate::element::{DType, Float};
use crate::lax::fast::Fast;

/// `f32` or `f64`: what a row program computes in.
pub(super) trait Real: Fast + Float {}
impl<T: Fast + Float> Real for T {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A whole row.
    Row,
    /// One number per row.
    Number,
}

#[derive(Clone, Copy, Debug)]
enum Un {
    Copy,
    Exp,
    Log,
    Neg,
    Square,
    Sqrt,
    Rsqrt,
    Tanh,
    Logistic,
    Log1p,
    Expm1,
    IntPow(i32),
}

#[derive(Clone, Copy, Debug)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

#[derive(Clone, Copy, Debug)]
enum Red {
    Sum,
    Max,
    Min,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Un(Un, usize, usize),
    Bin(Bin, usize, usize, usize),
    Reduce(Red, usize, usize),
    /// A number over a whole row.
    Fill(usize, usize),
}

/// A program over rows of `len` elements of `dtype`.
pub(super) struct RowProgram {
    dtype: DType,
    /// The result's weak type.
    weak: bool,
    len: usize,
    kinds: Vec<Kind>,
    /// Literal values, by slot.
    literals: Vec<(usize, f64)>,
    steps: Vec<Step>,
    input: usize,
    output: usize,
}

impl RowProgram {
    /// The row form of `p` (traced for blocks of `[rows, len]` operands), if
    /// every value and operation has one.
    pub(super) fn of(p: &Program, weak: bool) -> Option<RowProgram> {
        let [input] = p.invars[..] else { return None };
        let [Src::Slot(output)] = p.outs[..] else {
            return None;
        };
        if output == input {
            return None;
        }
        let in_aval = p.aval(input)?;
        let dtype = in_aval.dtype;
        if !matches!(dtype, DType::F32 | DType::F64) {
            return None;
        }
        let (rows, len) = match in_aval.shape[..] {
            [Dim::Lit(r), Dim::Lit(n)] if n > 1 => (r, n),
            _ => return None,
        };
        let kind = |a: &Aval| -> Option<Kind> {
            if a.dtype != dtype {
                return None;
            }
            match a.shape[..] {
                [Dim::Lit(r), Dim::Lit(n)] if r == rows && n == len => Some(Kind::Row),
                [Dim::Lit(r), Dim::Lit(1)] | [Dim::Lit(r)] if r == rows => Some(Kind::Number),
                _ => None,
            }
        };
        let mut slots = p.slots;
        let mut kinds = vec![Kind::Number; slots];
        let mut literals = Vec::new();
        kinds[input] = Kind::Row;
        let mut steps = Vec::new();
        for s in &p.steps {
            let [out] = s.outs[..] else { return None };
            let out_kind = kind(&s.avals[0])?;
            kinds[out] = out_kind;
            let mut ins = Vec::new();
            for a in &s.ins {
                match a {
                    Src::Slot(v) => ins.push(*v),
                    Src::Lit(x) => {
                        if x.dtype() != dtype || x.size() != 1 {
                            return None;
                        }
                        literals.push((slots, x.to_vec_f64()[0]));
                        kinds.push(Kind::Number);
                        ins.push(slots);
                        slots += 1;
                    }
                }
            }
            let un = |op: Un| -> Option<Step> {
                let [a] = ins[..] else { return None };
                (kinds[a] == out_kind).then_some(Step::Un(op, a, out))
            };
            let step = match (s.prim.name, &s.params) {
                ("exp", _) => un(Un::Exp)?,
                ("log", _) => un(Un::Log)?,
                ("neg", _) => un(Un::Neg)?,
                ("square", _) => un(Un::Square)?,
                ("sqrt", _) => un(Un::Sqrt)?,
                ("rsqrt", _) => un(Un::Rsqrt)?,
                ("tanh", _) => un(Un::Tanh)?,
                ("logistic", _) => un(Un::Logistic)?,
                ("log1p", _) => un(Un::Log1p)?,
                ("expm1", _) => un(Un::Expm1)?,
                ("integer_pow", Params::IntegerPow(n)) => un(Un::IntPow(*n as i32))?,
                ("stop_gradient" | "copy" | "convert_element_type" | "reshape", _) => un(Un::Copy)?,
                ("broadcast_in_dim", _) => {
                    let [a] = ins[..] else { return None };
                    match (kinds[a], out_kind) {
                        (Kind::Number, Kind::Row) => Step::Fill(a, out),
                        (k, o) if k == o => Step::Un(Un::Copy, a, out),
                        _ => return None,
                    }
                }
                ("add" | "sub" | "mul" | "div" | "max" | "min", _) => {
                    let [a, b] = ins[..] else { return None };
                    let any_row = kinds[a] == Kind::Row || kinds[b] == Kind::Row;
                    if any_row != (out_kind == Kind::Row) {
                        return None;
                    }
                    let op = match s.prim.name {
                        "add" => Bin::Add,
                        "sub" => Bin::Sub,
                        "mul" => Bin::Mul,
                        "div" => Bin::Div,
                        "max" => Bin::Max,
                        _ => Bin::Min,
                    };
                    Step::Bin(op, a, b, out)
                }
                ("reduce_sum" | "reduce_max" | "reduce_min", Params::Axes(axes, _)) => {
                    let [a] = ins[..] else { return None };
                    if kinds[a] != Kind::Row || out_kind != Kind::Number || axes[..] != [1] {
                        return None;
                    }
                    let op = match s.prim.name {
                        "reduce_sum" => Red::Sum,
                        "reduce_max" => Red::Max,
                        _ => Red::Min,
                    };
                    Step::Reduce(op, a, out)
                }
                _ => return None,
            };
            steps.push(step);
        }
        Some(RowProgram {
            dtype,
            weak,
            len,
            kinds,
            literals,
            steps,
            input,
            output,
        })
    }

    pub(super) fn dtype(&self) -> DType {
        self.dtype
    }

    pub(super) fn weak(&self) -> bool {
        self.weak
    }

    /// Elements of a result row: `len`, or 1 for a number per row.
    pub(super) fn out_len(&self) -> usize {
        match self.kinds[self.output] {
            Kind::Row => self.len,
            Kind::Number => 1,
        }
    }

    /// Runs the program on each row of `x` (rows of `len`), writing each
    /// result row into `out` (rows of [`RowProgram::out_len`]).
    pub(super) fn run<T: Real>(&self, x: &[T], out: &mut [T]) {
        let out_len = self.out_len();
        let (f0, f1, f2) =
            three!(|(row0, o): (usize, &mut [T])| { self.rows(x, row0, o, out_len) });
        // Each chunk takes its rows' buffers once: a few chunks per thread.
        let rows = out.len() / out_len.max(1);
        let per_chunk = par::rows_per_chunk(self.len * 8 * self.steps.len())
            .max(rows.div_ceil(4 * crate::__rt::team::threads()));
        par::for_each_rows3(out, out_len, per_chunk, f0, f1, f2);
    }

    /// Rows `row0..` of `x` into `out` (whole result rows).
    #[inline(always)]
    fn rows<T: Real>(&self, x: &[T], row0: usize, out: &mut [T], out_len: usize) {
        let n = self.len;
        // The input is read where it lies and a row result is written where
        // it goes: only the other rows have buffers.
        let mut rows: Vec<Vec<T>> = self
            .kinds
            .iter()
            .enumerate()
            .map(|(v, k)| match k {
                Kind::Row if v != self.input && v != self.output => crate::__rt::buffer::<T>(n),
                _ => Vec::new(),
            })
            .collect();
        let mut num = vec![T::ZERO; self.kinds.len()];
        for &(slot, v) in &self.literals {
            num[slot] = T::from_f64(v);
        }
        for (r, o) in out.chunks_exact_mut(out_len).enumerate() {
            let at = (row0 + r) * n;
            let mut at_row = Rows {
                scratch: &mut rows,
                input: (self.input, &x[at..at + n]),
                output: (self.output, o),
            };
            for s in &self.steps {
                step(*s, &mut at_row, &mut num, &self.kinds);
            }
            if self.kinds[self.output] == Kind::Number {
                at_row.output.1[0] = num[self.output];
            }
        }
        for v in rows {
            if !v.is_empty() {
                crate::__rt::pool::put(v);
            }
        }
    }
}

/// The rows of one row of the program: the input's and the output's
/// where they lie, the others in buffers.
struct Rows<'a, T> {
    scratch: &'a mut [Vec<T>],
    input: (usize, &'a [T]),
    output: (usize, &'a mut [T]),
}

impl<T> Rows<'_, T> {
    /// Row `v` to read and row `d` to write (`v != d`).
    #[inline(always)]
    fn pair(&mut self, v: usize, d: usize) -> (&[T], &mut [T]) {
        debug_assert_ne!(v, d);
        if d == self.output.0 {
            let src: &[T] = if v == self.input.0 {
                self.input.1
            } else {
                &self.scratch[v]
            };
            return (src, &mut *self.output.1);
        }
        if v == self.input.0 {
            return (self.input.1, &mut self.scratch[d]);
        }
        if v == self.output.0 {
            return (&*self.output.1, &mut self.scratch[d]);
        }
        // Two distinct buffers of `scratch`.
        let (lo, hi) = self.scratch.split_at_mut(v.max(d));
        if v < d {
            (&lo[v], &mut hi[0])
        } else {
            (&hi[0], &mut lo[d])
        }
    }

    /// Row `v` to read.
    #[inline(always)]
    fn get(&self, v: usize) -> &[T] {
        if v == self.input.0 {
            self.input.1
        } else if v == self.output.0 {
            self.output.1
        } else {
            &self.scratch[v]
        }
    }
}

/// An operand: a row or a number.
#[derive(Clone, Copy)]
enum Arg<'a, T> {
    Row(&'a [T]),
    Num(T),
}

/// `$body` with `$f` the element function of the unary operation `$op`
/// on `$T` (a function item: each loop calling it stays monomorphic).
macro_rules! with_un {
    ($op:expr, $T:ty, |$f:ident| $body:expr) => {
        match $op {
            Un::Copy => {
                let $f = ops::copy::<$T>;
                $body
            }
            Un::Exp => {
                let $f = ops::exp::<$T>;
                $body
            }
            Un::Log => {
                let $f = ops::log::<$T>;
                $body
            }
            Un::Neg => {
                let $f = ops::neg::<$T>;
                $body
            }
            Un::Square => {
                let $f = ops::square::<$T>;
                $body
            }
            Un::Sqrt => {
                let $f = ops::sqrt::<$T>;
                $body
            }
            Un::Rsqrt => {
                let $f = ops::rsqrt::<$T>;
                $body
            }
            Un::Tanh => {
                let $f = ops::tanh::<$T>;
                $body
            }
            Un::Logistic => {
                let $f = ops::logistic::<$T>;
                $body
            }
            Un::Log1p => {
                let $f = ops::log1p::<$T>;
                $body
            }
            Un::Expm1 => {
                let $f = ops::expm1::<$T>;
                $body
            }
            Un::IntPow(k) => {
                let $f = |v: $T| ops::integer_pow::<$T>(v, k);
                $body
            }
        }
    };
}

/// [`with_un!`] for the binary operations.
macro_rules! with_bin {
    ($op:expr, $T:ty, |$f:ident| $body:expr) => {
        match $op {
            Bin::Add => {
                let $f = ops::add::<$T>;
                $body
            }
            Bin::Sub => {
                let $f = ops::sub::<$T>;
                $body
            }
            Bin::Mul => {
                let $f = ops::mul::<$T>;
                $body
            }
            Bin::Div => {
                let $f = ops::div::<$T>;
                $body
            }
            Bin::Max => {
                let $f = ops::max::<$T>;
                $body
            }
            Bin::Min => {
                let $f = ops::min::<$T>;
                $body
            }
        }
    };
}

#[inline(always)]
fn step<T: Real>(s: Step, rows: &mut Rows<T>, num: &mut [T], kinds: &[Kind]) {
    match s {
        Step::Un(op, a, d) => {
            if kinds[d] == Kind::Number {
                num[d] = un(op, num[a]);
                return;
            }
            let (src, o) = rows.pair(a, d);
            let src = &src[..o.len()];
            with_un!(op, T, |f| {
                for i in 0..o.len() {
                    o[i] = f(src[i]);
                }
            })
        }
        Step::Fill(a, d) => {
            let v = num[a];
            rows.pair(a, d).1.fill(v);
        }
        Step::Reduce(op, a, d) => {
            let row = rows.get(a);
            num[d] = match op {
                Red::Sum => fold_slice(row, T::ZERO, |v| v, ops::add::<T>),
                Red::Max => fold_slice(row, T::LOWEST, |v| v, ops::max::<T>),
                Red::Min => fold_slice(row, T::HIGHEST, |v| v, ops::min::<T>),
            };
        }
        Step::Bin(op, a, b, d) => {
            if kinds[d] == Kind::Number {
                num[d] = bin(op, num[a], num[b]);
                return;
            }
            // The destination is taken out while the operands are read.
            if d == rows.output.0 {
                let o = std::mem::take(&mut rows.output.1);
                bin_into(
                    op,
                    operand(rows, num, kinds, a, o.len()),
                    operand(rows, num, kinds, b, o.len()),
                    &mut *o,
                );
                rows.output.1 = o;
            } else {
                let mut o = std::mem::take(&mut rows.scratch[d]);
                bin_into(
                    op,
                    operand(rows, num, kinds, a, o.len()),
                    operand(rows, num, kinds, b, o.len()),
                    &mut o,
                );
                rows.scratch[d] = o;
            }
        }
    }
}

/// Operand `v` of an operation writing rows of `n`.
#[inline(always)]
fn operand<'a, T: Copy>(
    rows: &'a Rows<T>,
    num: &[T],
    kinds: &[Kind],
    v: usize,
    n: usize,
) -> Arg<'a, T> {
    match kinds[v] {
        Kind::Row => Arg::Row(&rows.get(v)[..n]),
        Kind::Number => Arg::Num(num[v]),
    }
}

/// `o = f(x, y)` elementwise, a number read as a whole row of it.
#[inline(always)]
fn zip_into<T: Copy>(x: Arg<T>, y: Arg<T>, o: &mut [T], f: impl Fn(T, T) -> T) {
    match (x, y) {
        (Arg::Row(x), Arg::Row(y)) => {
            for i in 0..o.len() {
                o[i] = f(x[i], y[i]);
            }
        }
        (Arg::Row(x), Arg::Num(y)) => {
            for i in 0..o.len() {
                o[i] = f(x[i], y);
            }
        }
        (Arg::Num(x), Arg::Row(y)) => {
            for i in 0..o.len() {
                o[i] = f(x, y[i]);
            }
        }
        (Arg::Num(x), Arg::Num(y)) => o.fill(f(x, y)),
    }
}

/// `o = op(x, y)` elementwise.
#[inline(always)]
fn bin_into<T: Real>(op: Bin, x: Arg<T>, y: Arg<T>, o: &mut [T]) {
    with_bin!(op, T, |f| zip_into(x, y, o, f))
}

#[inline(always)]
fn un<T: Real>(op: Un, v: T) -> T {
    with_un!(op, T, |f| f(v))
}

#[inline(always)]
fn bin<T: Real>(op: Bin, a: T, b: T) -> T {
    with_bin!(op, T, |f| f(a, b))
}
