//! Arithmetic on [`DynArray`]: NumPy broadcasting and JAX's dtype promotion,
//! with Rust scalars weakly typed (`0.01 * g` keeps `g`'s dtype, as a Python
//! float does in JAX).

use std::ops::{Add, Div, Mul, Neg, Sub};

use jax_dtypes::result_type_explicit;

use super::{DynArray, DynData};
use crate::element::{bf16, f16, Complex, DType, Element};

/// Element arithmetic in one dtype, as XLA computes it (integers wrap;
/// `bf16`/`f16` compute through `f32`).
trait Arith: Element {
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn div(a: Self, b: Self) -> Self;
    fn neg(a: Self) -> Self;
    fn sqrt(a: Self) -> Self;
    fn abs(a: Self) -> Self;
    fn sign(a: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
}

macro_rules! int_arith {
    ($($t:ty, $signed:expr);*) => {$(
        impl Arith for $t {
            fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            // Integer operands of `/` and `sqrt` are made floats first (true division).
            fn div(_: Self, _: Self) -> Self { unreachable!("integers divide as floats") }
            fn neg(a: Self) -> Self { a.wrapping_neg() }
            fn sqrt(_: Self) -> Self { unreachable!("integers take sqrt as floats") }
            #[allow(unused_comparisons)]
            fn abs(a: Self) -> Self { if a < 0 { a.wrapping_neg() } else { a } }
            #[allow(unused_comparisons)]
            fn sign(a: Self) -> Self {
                if a > 0 { 1 } else if a < 0 { (0 as $t).wrapping_sub(1) } else { 0 }
            }
            fn max(a: Self, b: Self) -> Self { Ord::max(a, b) }
            fn min(a: Self, b: Self) -> Self { Ord::min(a, b) }
        }
    )*};
}
int_arith!(u8, false; u16, false; u32, false; u64, false; i8, true; i16, true; i32, true; i64, true);

macro_rules! float_arith {
    ($($t:ty);*) => {$(
        impl Arith for $t {
            fn add(a: Self, b: Self) -> Self { a + b }
            fn sub(a: Self, b: Self) -> Self { a - b }
            fn mul(a: Self, b: Self) -> Self { a * b }
            fn div(a: Self, b: Self) -> Self { a / b }
            fn neg(a: Self) -> Self { -a }
            fn sqrt(a: Self) -> Self { a.sqrt() }
            fn abs(a: Self) -> Self { a.abs() }
            // lax.sign: ±0 and NaN are returned as they are.
            fn sign(a: Self) -> Self { if a == 0.0 || a.is_nan() { a } else { a.signum() } }
            // jnp.maximum/minimum propagate NaN.
            fn max(a: Self, b: Self) -> Self { if a.is_nan() || b.is_nan() { <$t>::NAN } else { a.max(b) } }
            fn min(a: Self, b: Self) -> Self { if a.is_nan() || b.is_nan() { <$t>::NAN } else { a.min(b) } }
        }
    )*};
}
float_arith!(f32; f64);

macro_rules! half_arith {
    ($($t:ty);*) => {$(
        impl Arith for $t {
            fn add(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() + b.to_f32()) }
            fn sub(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() - b.to_f32()) }
            fn mul(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() * b.to_f32()) }
            fn div(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() / b.to_f32()) }
            fn neg(a: Self) -> Self { -a }
            fn sqrt(a: Self) -> Self { <$t>::from_f32(a.to_f32().sqrt()) }
            fn abs(a: Self) -> Self { <$t>::from_f32(a.to_f32().abs()) }
            fn sign(a: Self) -> Self { <$t>::from_f32(<f32 as Arith>::sign(a.to_f32())) }
            fn max(a: Self, b: Self) -> Self { <$t>::from_f32(<f32 as Arith>::max(a.to_f32(), b.to_f32())) }
            fn min(a: Self, b: Self) -> Self { <$t>::from_f32(<f32 as Arith>::min(a.to_f32(), b.to_f32())) }
        }
    )*};
}
half_arith!(bf16; f16);

fn unsupported(op: &str, dtype: DType) -> ! {
    panic!("{op} is not supported for {} arrays", dtype.name())
}

macro_rules! complex_arith {
    ($($t:ty, $d:expr);*) => {$(
        impl Arith for Complex<$t> {
            fn add(a: Self, b: Self) -> Self { a + b }
            fn sub(a: Self, b: Self) -> Self { a - b }
            fn mul(a: Self, b: Self) -> Self { a * b }
            fn div(a: Self, b: Self) -> Self { a / b }
            fn neg(a: Self) -> Self { -a }
            fn sqrt(a: Self) -> Self { a.sqrt() }
            // Their results are real (abs) or need an ordering: not here.
            fn abs(_: Self) -> Self { unsupported("abs", $d) }
            fn sign(_: Self) -> Self { unsupported("sign", $d) }
            fn max(_: Self, _: Self) -> Self { unsupported("maximum", $d) }
            fn min(_: Self, _: Self) -> Self { unsupported("minimum", $d) }
        }
    )*};
}
complex_arith!(f32, DType::C64; f64, DType::C128);

// JAX's boolean arithmetic: `+` is or, `*` is and; `-` is a TypeError.
impl Arith for bool {
    fn add(a: Self, b: Self) -> Self {
        a | b
    }
    fn sub(_: Self, _: Self) -> Self {
        unsupported("subtraction", DType::Bool)
    }
    fn mul(a: Self, b: Self) -> Self {
        a & b
    }
    fn div(_: Self, _: Self) -> Self {
        unreachable!("booleans divide as floats")
    }
    fn neg(_: Self) -> Self {
        unsupported("negation", DType::Bool)
    }
    fn sqrt(_: Self) -> Self {
        unreachable!("booleans take sqrt as floats")
    }
    fn abs(a: Self) -> Self {
        a
    }
    fn sign(a: Self) -> Self {
        a
    }
    fn max(a: Self, b: Self) -> Self {
        a | b
    }
    fn min(a: Self, b: Self) -> Self {
        a & b
    }
}

#[derive(Clone, Copy)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

impl BinOp {
    fn apply<T: Arith>(self, a: T, b: T) -> T {
        match self {
            BinOp::Add => T::add(a, b),
            BinOp::Sub => T::sub(a, b),
            BinOp::Mul => T::mul(a, b),
            BinOp::Div => T::div(a, b),
            BinOp::Max => T::max(a, b),
            BinOp::Min => T::min(a, b),
        }
    }
}

#[derive(Clone, Copy)]
enum UnOp {
    Neg,
    Sqrt,
    Abs,
    Sign,
    Square,
}

impl UnOp {
    fn apply<T: Arith>(self, a: T) -> T {
        match self {
            UnOp::Neg => T::neg(a),
            UnOp::Sqrt => T::sqrt(a),
            UnOp::Abs => T::abs(a),
            UnOp::Sign => T::sign(a),
            UnOp::Square => T::mul(a, a),
        }
    }
}

fn x64() -> bool {
    cfg!(feature = "x64")
}

fn is_inexact(d: DType) -> bool {
    matches!(
        d,
        DType::BF16 | DType::F16 | DType::F32 | DType::F64 | DType::C64 | DType::C128
    )
}

/// The broadcast shape of two shapes (NumPy's rule), or JAX's error.
fn broadcast_shapes(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    let dim = |s: &[usize], k: usize| {
        if k + s.len() < n {
            1
        } else {
            s[k + s.len() - n]
        }
    };
    (0..n)
        .map(|k| match (dim(a, k), dim(b, k)) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => panic!(
                "Incompatible shapes for broadcasting: shapes=[{}, {}]",
                py_shape(a),
                py_shape(b)
            ),
        })
        .collect()
}

/// A shape as Python prints a tuple: `(2,)`, `(2, 3)`, `()`.
fn py_shape(s: &[usize]) -> String {
    match s {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// For each element of `to`, the index of the element of `from` it reads.
fn broadcast_index(from: &[usize], to: &[usize]) -> Vec<usize> {
    let size: usize = to.iter().product();
    if from == to {
        return (0..size).collect();
    }
    let pad = to.len() - from.len();
    // Row-major strides of `from`, 0 along broadcast axes.
    let mut strides = vec![0; to.len()];
    let mut s = 1;
    for k in (0..from.len()).rev() {
        strides[k + pad] = if from[k] == 1 { 0 } else { s };
        s *= from[k];
    }
    let mut out = Vec::with_capacity(size);
    let mut idx = vec![0usize; to.len()];
    for _ in 0..size {
        out.push(idx.iter().zip(&strides).map(|(i, s)| i * s).sum());
        crate::shape::next_index(&mut idx, to);
    }
    out
}

macro_rules! dispatch_binary {
    ($op:expr, $a:expr, $b:expr, $ia:expr, $ib:expr; $($v:ident $t:ty),*) => {
        match ($a, $b) {
            $((DynData::$v(x), DynData::$v(y)) => {
                DynData::$v($ia.iter().zip($ib.iter()).map(|(&i, &j)| $op.apply::<$t>(x[i], y[j])).collect())
            })*
            _ => unreachable!("operands converted to one dtype"),
        }
    };
}

fn binary(op: BinOp, a: &DynArray, b: &DynArray) -> DynArray {
    let (mut dtype, weak) =
        result_type_explicit(&[(a.dtype(), a.weak), (b.dtype(), b.weak)], x64());
    if matches!(op, BinOp::Div) && !is_inexact(dtype) {
        // True division: integers and booleans become the default float.
        dtype = result_type_explicit(&[(dtype, weak), (DType::F32, true)], x64()).0;
    }
    let shape = broadcast_shapes(&a.shape, &b.shape);
    let (x, y) = (a.astype(dtype), b.astype(dtype));
    let (ia, ib) = (
        broadcast_index(&a.shape, &shape),
        broadcast_index(&b.shape, &shape),
    );
    macro_rules! go {
        ($($v:ident $t:ty),*) => { dispatch_binary!(op, &x.data, &y.data, ia, ib; $($v $t),*) };
    }
    DynArray {
        shape,
        data: for_each_dtype!(go),
        weak,
    }
}

fn unary(op: UnOp, a: &DynArray) -> DynArray {
    let mut x = a.clone();
    if matches!(op, UnOp::Sqrt) && !is_inexact(a.dtype()) {
        x = a.astype(result_type_explicit(&[(a.dtype(), a.weak), (DType::F32, true)], x64()).0);
    }
    macro_rules! go {
        ($($v:ident $t:ty),*) => {
            match x.data {
                $(DynData::$v(d) => DynData::$v(d.into_iter().map(|e| op.apply::<$t>(e)).collect()),)*
            }
        };
    }
    DynArray {
        shape: x.shape,
        data: for_each_dtype!(go),
        weak: x.weak,
    }
}

impl DynArray {
    /// The square root, elementwise (`jnp.sqrt`: integers become floats).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![2], vec![4.0f32, 9.0]).unwrap();
    /// assert_eq!(x.sqrt().to_vec::<f32>().unwrap(), [2.0, 3.0]);
    /// ```
    pub fn sqrt(&self) -> DynArray {
        unary(UnOp::Sqrt, self)
    }

    /// The absolute value, elementwise (`jnp.abs`; not for complex arrays).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![2], vec![-4i32, 9]).unwrap();
    /// assert_eq!(x.abs().to_vec::<i32>().unwrap(), [4, 9]);
    /// ```
    pub fn abs(&self) -> DynArray {
        unary(UnOp::Abs, self)
    }

    /// The sign, elementwise (`jnp.sign`: -1, 0 or 1; NaN stays NaN).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![3], vec![-4.0f32, 0.0, 2.0]).unwrap();
    /// assert_eq!(x.sign().to_vec::<f32>().unwrap(), [-1.0, 0.0, 1.0]);
    /// ```
    pub fn sign(&self) -> DynArray {
        unary(UnOp::Sign, self)
    }

    /// The square, elementwise (`jnp.square`).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![2], vec![-3i8, 2]).unwrap();
    /// assert_eq!(x.square().to_vec::<i8>().unwrap(), [9, 4]);
    /// ```
    pub fn square(&self) -> DynArray {
        unary(UnOp::Square, self)
    }

    /// The larger of two arrays, elementwise, broadcasting and promoting
    /// (`jnp.maximum`: NaN wins).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![2], vec![1.0f32, 5.0]).unwrap();
    /// assert_eq!(x.maximum(&DynArray::from(2.0f32)).to_vec::<f32>().unwrap(), [2.0, 5.0]);
    /// ```
    pub fn maximum(&self, other: &DynArray) -> DynArray {
        binary(BinOp::Max, self, other)
    }

    /// The smaller of two arrays, elementwise, broadcasting and promoting
    /// (`jnp.minimum`: NaN wins).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![2], vec![1.0f32, 5.0]).unwrap();
    /// assert_eq!(x.minimum(&DynArray::from(2.0f32)).to_vec::<f32>().unwrap(), [1.0, 2.0]);
    /// ```
    pub fn minimum(&self, other: &DynArray) -> DynArray {
        binary(BinOp::Min, self, other)
    }

    /// The sum of all elements, a scalar (`jnp.sum`: booleans and small
    /// integers sum in the default int type, floats accumulate in `f64`).
    ///
    /// ```
    /// use jax::{tree::DynArray, DType};
    /// let x = DynArray::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    /// let s = x.sum();
    /// assert_eq!((s.shape(), s.dtype()), (&[][..], DType::F32));
    /// assert_eq!(s.to_vec::<f32>().unwrap(), [10.0]);
    /// // u8 sums in the default unsigned type: uint32, or uint64 under x64.
    /// let n = DynArray::from_vec(vec![3], vec![200u8, 100, 1]).unwrap().sum();
    /// assert!(matches!(n.dtype(), DType::U32 | DType::U64));
    /// ```
    pub fn sum(&self) -> DynArray {
        let dtype = jax_dtypes::sum_dtype(self.dtype(), x64());
        let x = self.astype(dtype);
        macro_rules! go {
            ($($v:ident $t:ty),*) => {
                match &x.data {
                    $(DynData::$v(d) => DynData::$v(vec![sum_of(d)]),)*
                }
            };
        }
        DynArray {
            shape: vec![],
            data: for_each_dtype!(go),
            weak: self.weak,
        }
    }
}

/// The sum: real floats accumulate in `f64`, complex and integers in their own type.
fn sum_of<T: Arith>(d: &[T]) -> T {
    if is_inexact(T::DTYPE) {
        if matches!(T::DTYPE, DType::C64 | DType::C128) {
            return d.iter().fold(T::ZERO, |a, &b| T::add(a, b));
        }
        return T::from_f64(d.iter().map(|&x| x.to_f64()).sum());
    }
    d.iter().fold(T::ZERO, |a, &b| T::add(a, b))
}

/// A Rust scalar is weakly typed, as a Python scalar in JAX.
macro_rules! weak_scalar_from {
    ($($t:ty),*) => {$(
        impl From<$t> for DynArray {
            /// A weakly typed scalar: in arithmetic with an array it takes the
            /// array's dtype, as a Python scalar does in JAX.
            fn from(v: $t) -> DynArray {
                DynArray::scalar(v).with_weak(true)
            }
        }
    )*};
}
weak_scalar_from!(f32, f64, i32);

macro_rules! binary_ops {
    ($($Trait:ident $method:ident $op:ident),*) => {$(
        impl $Trait<&DynArray> for &DynArray {
            type Output = DynArray;
            fn $method(self, rhs: &DynArray) -> DynArray {
                binary(BinOp::$op, self, rhs)
            }
        }
        impl $Trait<DynArray> for DynArray {
            type Output = DynArray;
            fn $method(self, rhs: DynArray) -> DynArray {
                binary(BinOp::$op, &self, &rhs)
            }
        }
        impl $Trait<&DynArray> for DynArray {
            type Output = DynArray;
            fn $method(self, rhs: &DynArray) -> DynArray {
                binary(BinOp::$op, &self, rhs)
            }
        }
        impl $Trait<DynArray> for &DynArray {
            type Output = DynArray;
            fn $method(self, rhs: DynArray) -> DynArray {
                binary(BinOp::$op, self, &rhs)
            }
        }
        binary_ops!(@scalars $Trait $method $op; f32, f64, i32);
    )*};
    (@scalars $Trait:ident $method:ident $op:ident; $($s:ty),*) => {$(
        impl $Trait<$s> for DynArray {
            type Output = DynArray;
            fn $method(self, rhs: $s) -> DynArray {
                binary(BinOp::$op, &self, &DynArray::from(rhs))
            }
        }
        impl $Trait<$s> for &DynArray {
            type Output = DynArray;
            fn $method(self, rhs: $s) -> DynArray {
                binary(BinOp::$op, self, &DynArray::from(rhs))
            }
        }
        impl $Trait<DynArray> for $s {
            type Output = DynArray;
            fn $method(self, rhs: DynArray) -> DynArray {
                binary(BinOp::$op, &DynArray::from(self), &rhs)
            }
        }
        impl $Trait<&DynArray> for $s {
            type Output = DynArray;
            fn $method(self, rhs: &DynArray) -> DynArray {
                binary(BinOp::$op, &DynArray::from(self), rhs)
            }
        }
    )*};
}
binary_ops!(Add add Add, Sub sub Sub, Mul mul Mul, Div div Div);

impl Neg for DynArray {
    type Output = DynArray;
    fn neg(self) -> DynArray {
        unary(UnOp::Neg, &self)
    }
}

impl Neg for &DynArray {
    type Output = DynArray;
    fn neg(self) -> DynArray {
        unary(UnOp::Neg, self)
    }
}
