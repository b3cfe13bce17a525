//! Dtypes and JAX's type promotion lattice.
//!
//! This crate is the one place where promotion is written down. The runtime
//! (`jax`) uses it from its build script to generate the type-level promotion
//! traits, and the compiler (`jax-compiler`) uses it at expansion time, so the
//! two can never disagree.
//!
//! ```
//! use jax_dtypes::{promote_types, result_type, DType};
//!
//! // `jnp.promote_types(jnp.int8, jnp.uint8)` is `int16`.
//! assert_eq!(promote_types(DType::I8, DType::U8), DType::I16);
//! // An `int32` array plus a weak float scalar is a weak `float32`.
//! assert_eq!(
//!     result_type(&[(DType::I32, false), (DType::F32, true)], false),
//!     (DType::F32, true)
//! );
//! ```

#![warn(missing_docs)]

pub mod checks;
pub mod conv;
pub mod einsum;
pub mod index;

#[cfg(test)]
mod promotion_fixture;

/// An element type, named as in JAX.
///
/// ```
/// use jax_dtypes::DType;
///
/// assert_eq!(DType::F32.name(), "float32");
/// assert_eq!(DType::from_name("bfloat16"), Some(DType::BF16));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`.
    Bool,
    /// `uint8`: 8-bit unsigned integer.
    U8,
    /// `uint16`: 16-bit unsigned integer.
    U16,
    /// `uint32`: 32-bit unsigned integer.
    U32,
    /// `uint64`: 64-bit unsigned integer.
    U64,
    /// `int8`: 8-bit signed integer.
    I8,
    /// `int16`: 16-bit signed integer.
    I16,
    /// `int32`: 32-bit signed integer.
    I32,
    /// `int64`: 64-bit signed integer.
    I64,
    /// `bfloat16`: 16-bit brain float.
    BF16,
    /// `float16`: IEEE half precision float.
    F16,
    /// `float32`: IEEE single precision float.
    F32,
    /// `float64`: IEEE double precision float.
    F64,
    /// `complex64`: complex number of two `float32`s.
    C64,
    /// `complex128`: complex number of two `float64`s.
    C128,
}

impl DType {
    /// Every dtype, in the order of JAX's dtype tables.
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert_eq!(DType::ALL.len(), 15);
    /// assert_eq!(DType::ALL[0], DType::Bool);
    /// assert_eq!(DType::ALL[14], DType::C128);
    /// ```
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::BF16,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];

    /// NumPy's name, as JAX prints it: `float32`, `int8`, `bool`, `bfloat16`, `complex64`.
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert_eq!(DType::F32.name(), "float32");
    /// assert_eq!(DType::U8.name(), "uint8");
    /// assert_eq!(DType::C64.name(), "complex64");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::BF16 => "bfloat16",
            DType::F16 => "float16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// The short name jaxprs print: `f32`, `i8`, `bool`, `bf16`, `c64`.
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert_eq!(DType::F32.short_name(), "f32");
    /// assert_eq!(DType::BF16.short_name(), "bf16");
    /// assert_eq!(DType::Bool.short_name(), "bool");
    /// ```
    pub const fn short_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::BF16 => "bf16",
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C64 => "c64",
            DType::C128 => "c128",
        }
    }

    /// Looks a dtype up by its NumPy name (`"float32"`), the inverse of [`DType::name`].
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert_eq!(DType::from_name("float32"), Some(DType::F32));
    /// assert_eq!(DType::from_name("int64"), Some(DType::I64));
    /// // Short names are not accepted.
    /// assert_eq!(DType::from_name("f32"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// The kind of a dtype, and of a weakly typed Rust/Python scalar.
///
/// ```
/// use jax_dtypes::{DType, Kind};
///
/// assert_eq!(DType::U8.kind(), Kind::UInt);
/// assert_eq!(DType::BF16.kind(), Kind::Float);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `bool`.
    Bool,
    /// Unsigned integers (`uint8` to `uint64`).
    UInt,
    /// Signed integers (`int8` to `int64`).
    Int,
    /// Real floats (`bfloat16`, `float16`, `float32`, `float64`).
    Float,
    /// Complex numbers (`complex64`, `complex128`).
    Complex,
}

impl DType {
    /// Whether this is bool, an unsigned or signed integer, a float or a complex type.
    ///
    /// ```
    /// use jax_dtypes::{DType, Kind};
    ///
    /// assert_eq!(DType::Bool.kind(), Kind::Bool);
    /// assert_eq!(DType::I16.kind(), Kind::Int);
    /// assert_eq!(DType::C128.kind(), Kind::Complex);
    /// ```
    pub const fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Kind::UInt,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => Kind::Int,
            DType::BF16 | DType::F16 | DType::F32 | DType::F64 => Kind::Float,
            DType::C64 | DType::C128 => Kind::Complex,
        }
    }

    /// Size of one element in bits (8 for bool, as stored).
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert_eq!(DType::Bool.bits(), 8);
    /// assert_eq!(DType::BF16.bits(), 16);
    /// assert_eq!(DType::C64.bits(), 64);
    /// ```
    pub const fn bits(self) -> u32 {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 8,
            DType::U16 | DType::I16 | DType::BF16 | DType::F16 => 16,
            DType::U32 | DType::I32 | DType::F32 => 32,
            DType::U64 | DType::I64 | DType::F64 | DType::C64 => 64,
            DType::C128 => 128,
        }
    }

    /// Signed or unsigned integer (bool is not an integer).
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert!(DType::U8.is_integer());
    /// assert!(DType::I64.is_integer());
    /// assert!(!DType::Bool.is_integer());
    /// assert!(!DType::F32.is_integer());
    /// ```
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::UInt | Kind::Int)
    }

    /// The lowest and highest values of an integer type (`jnp.iinfo`'s
    /// `min` and `max`); `None` for other types.
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert_eq!(DType::I8.int_range(), Some((-128, 127)));
    /// assert_eq!(DType::U16.int_range(), Some((0, 65535)));
    /// assert_eq!(DType::F32.int_range(), None);
    /// ```
    pub const fn int_range(self) -> Option<(i128, i128)> {
        let bits = self.bits();
        match self.kind() {
            Kind::Int => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            Kind::UInt => Some((0, (1i128 << bits) - 1)),
            _ => None,
        }
    }

    /// Floating point (real); complex types are not floats.
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert!(DType::BF16.is_float());
    /// assert!(DType::F64.is_float());
    /// assert!(!DType::C64.is_float());
    /// assert!(!DType::I32.is_float());
    /// ```
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), Kind::Float)
    }

    /// Float or complex: the "inexact" types of NumPy.
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert!(DType::F16.is_inexact());
    /// assert!(DType::C128.is_inexact());
    /// assert!(!DType::I32.is_inexact());
    /// ```
    pub const fn is_inexact(self) -> bool {
        matches!(self.kind(), Kind::Float | Kind::Complex)
    }

    /// What `jnp.ones(2, self)` really holds: with x64 off, JAX truncates
    /// 64-bit requests to 32 bits (`int64` -> `int32`, `float64` -> `float32`).
    ///
    /// ```
    /// use jax_dtypes::DType;
    ///
    /// assert_eq!(DType::F64.canonicalize(false), DType::F32);
    /// assert_eq!(DType::C128.canonicalize(false), DType::C64);
    /// assert_eq!(DType::F64.canonicalize(true), DType::F64);
    /// // Types of 32 bits or fewer are unchanged.
    /// assert_eq!(DType::I8.canonicalize(false), DType::I8);
    /// ```
    pub const fn canonicalize(self, x64: bool) -> DType {
        if x64 {
            return self;
        }
        match self {
            DType::U64 => DType::U32,
            DType::I64 => DType::I32,
            DType::F64 => DType::F32,
            DType::C128 => DType::C64,
            d => d,
        }
    }
}

/// The dtype that a weakly typed scalar of this kind becomes on its own:
/// JAX's default `int`, `float`, `complex` (64-bit with x64 on).
///
/// ```
/// use jax_dtypes::{default_dtype, DType, Kind};
///
/// assert_eq!(default_dtype(Kind::Float, false), DType::F32);
/// assert_eq!(default_dtype(Kind::Float, true), DType::F64);
/// assert_eq!(default_dtype(Kind::Int, false), DType::I32);
/// assert_eq!(default_dtype(Kind::Bool, true), DType::Bool);
/// ```
pub const fn default_dtype(kind: Kind, x64: bool) -> DType {
    match (kind, x64) {
        (Kind::Bool, _) => DType::Bool,
        (Kind::UInt, false) => DType::U32,
        (Kind::UInt, true) => DType::U64,
        (Kind::Int, false) => DType::I32,
        (Kind::Int, true) => DType::I64,
        (Kind::Float, false) => DType::F32,
        (Kind::Float, true) => DType::F64,
        (Kind::Complex, false) => DType::C64,
        (Kind::Complex, true) => DType::C128,
    }
}

/// A node of JAX's promotion lattice: a dtype, or a weak scalar kind
/// (`i*`, `f*`, `c*`: a Python/Rust literal whose width is not fixed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Strong(DType),
    WeakInt,
    WeakFloat,
    WeakComplex,
}

/// JAX's type promotion lattice (jax/_src/dtypes.py `_type_promotion_lattice`),
/// written once as its edges: each node and the nodes directly above it.
/// Promotion of two types is their least upper bound in this graph.
const LATTICE: &[(Node, &[Node])] = {
    use DType::*;
    use Node::*;
    &[
        (Strong(Bool), &[WeakInt]),
        (WeakInt, &[Strong(U8), Strong(I8)]),
        (Strong(U8), &[Strong(I16), Strong(U16)]),
        (Strong(U16), &[Strong(I32), Strong(U32)]),
        (Strong(U32), &[Strong(I64), Strong(U64)]),
        (Strong(U64), &[WeakFloat]),
        (Strong(I8), &[Strong(I16)]),
        (Strong(I16), &[Strong(I32)]),
        (Strong(I32), &[Strong(I64)]),
        (Strong(I64), &[WeakFloat]),
        (WeakFloat, &[Strong(BF16), Strong(F16), WeakComplex]),
        (Strong(BF16), &[Strong(F32)]),
        (Strong(F16), &[Strong(F32)]),
        (Strong(F32), &[Strong(F64), Strong(C64)]),
        (Strong(F64), &[Strong(C128)]),
        (WeakComplex, &[Strong(C64)]),
        (Strong(C64), &[Strong(C128)]),
        (Strong(C128), &[]),
    ]
};

fn successors(n: Node) -> &'static [Node] {
    LATTICE
        .iter()
        .find(|(m, _)| *m == n)
        .map(|(_, up)| *up)
        .unwrap_or(&[])
}

/// Every node at or above `n`.
fn upper_set(n: Node) -> Vec<Node> {
    let mut seen = vec![n];
    let mut i = 0;
    while i < seen.len() {
        for &m in successors(seen[i]) {
            if !seen.contains(&m) {
                seen.push(m);
            }
        }
        i += 1;
    }
    seen
}

fn join(a: Node, b: Node) -> Node {
    let (ua, ub) = (upper_set(a), upper_set(b));
    let common: Vec<Node> = ua.into_iter().filter(|n| ub.contains(n)).collect();
    // The least upper bound is the common upper node that all others lie above.
    *common
        .iter()
        .find(|&&c| {
            let up = upper_set(c);
            common.iter().all(|n| up.contains(n))
        })
        .expect("JAX's promotion lattice has a least upper bound for every pair")
}

fn node(dtype: DType, weak: bool) -> Node {
    if !weak {
        return Node::Strong(dtype);
    }
    match dtype.kind() {
        Kind::Bool => Node::Strong(DType::Bool),
        Kind::UInt | Kind::Int => Node::WeakInt,
        Kind::Float => Node::WeakFloat,
        Kind::Complex => Node::WeakComplex,
    }
}

/// `jnp.promote_types(a, b)`: the lattice join of two strong dtypes. It does
/// not depend on x64 (`int64` and `float16` give `float16`).
///
/// ```
/// use jax_dtypes::{promote_types, DType};
///
/// assert_eq!(promote_types(DType::I8, DType::U8), DType::I16);
/// assert_eq!(promote_types(DType::BF16, DType::F16), DType::F32);
/// assert_eq!(promote_types(DType::I64, DType::F16), DType::F16);
/// assert_eq!(promote_types(DType::U64, DType::I64), DType::F64);
/// ```
pub fn promote_types(a: DType, b: DType) -> DType {
    match join(Node::Strong(a), Node::Strong(b)) {
        Node::Strong(d) => d,
        // Two strong types meet at a weak node only for u64 and i64, at f*
        // (JAX's result there is a weakly typed float; see `result_type`);
        // `jnp.promote_types` makes it float64.
        Node::WeakInt => DType::I64,
        Node::WeakFloat => DType::F64,
        Node::WeakComplex => DType::C128,
    }
}

/// `jnp.result_type` (`jax.dtypes.result_type`) of typed operands, each `(dtype, weak)`: the
/// dtype of `a + b` and whether it is weakly typed. A weak operand is a Rust
/// scalar or a weakly typed array (its width does not count, only its kind).
/// With x64 off, 64-bit results are truncated as JAX does.
///
/// ```
/// use jax_dtypes::{result_type, DType};
///
/// // A weak int scalar does not widen a `uint8` array.
/// assert_eq!(
///     result_type(&[(DType::U8, false), (DType::I32, true)], false),
///     (DType::U8, false)
/// );
/// // A weak float scalar makes an `int32` array a weak default float.
/// assert_eq!(
///     result_type(&[(DType::I32, false), (DType::F32, true)], false),
///     (DType::F32, true)
/// );
/// // With x64 off, `float64` is truncated to `float32`.
/// assert_eq!(result_type(&[(DType::F64, false)], false), (DType::F32, false));
/// assert_eq!(result_type(&[(DType::F64, false)], true), (DType::F64, false));
/// ```
pub fn result_type(operands: &[(DType, bool)], x64: bool) -> (DType, bool) {
    let mut acc: Option<Node> = None;
    for &(d, weak) in operands {
        let n = node(d, weak);
        acc = Some(match acc {
            None => n,
            Some(a) => join(a, n),
        });
    }
    let (dtype, weak) = match acc.unwrap_or(Node::Strong(DType::Bool)) {
        Node::Strong(d) => (d, false),
        Node::WeakInt => (default_dtype(Kind::Int, x64), true),
        Node::WeakFloat => (default_dtype(Kind::Float, x64), true),
        Node::WeakComplex => (default_dtype(Kind::Complex, x64), true),
    };
    (dtype.canonicalize(x64), weak)
}

/// [`result_type`] as this crate's arrays promote: an explicit 64-bit type
/// is kept without x64 (Rust's `f64` is always f64); only weakly typed
/// results take the x64 setting's defaults.
///
/// ```
/// use jax_dtypes::{result_type, result_type_explicit, DType};
///
/// let ops = [(DType::F64, false), (DType::F32, true)];
/// // JAX truncates with x64 off; an explicit `f64` is kept here.
/// assert_eq!(result_type(&ops, false), (DType::F32, false));
/// assert_eq!(result_type_explicit(&ops, false), (DType::F64, false));
/// // Weak results still follow x64.
/// assert_eq!(result_type_explicit(&[(DType::F32, true)], false), (DType::F32, true));
/// assert_eq!(result_type_explicit(&[(DType::F32, true)], true), (DType::F64, true));
/// ```
pub fn result_type_explicit(operands: &[(DType, bool)], x64: bool) -> (DType, bool) {
    let (narrow, weak) = result_type(operands, x64);
    if weak || x64 {
        return (narrow, weak);
    }
    let (wide, _) = result_type(operands, true);
    // Strong results come from the lattice join of strong types, which only
    // widens what the operands hold: keep it unless a weak default made it.
    let strongest_bits = operands
        .iter()
        .filter(|(_, w)| !w)
        .map(|(d, _)| d.bits())
        .max()
        .unwrap_or(0);
    if wide.bits() <= strongest_bits || wide == narrow {
        (wide, false)
    } else {
        (narrow, false)
    }
}

/// The float type that `sqrt`, `mean`, true division and other inexact
/// operations give for an input of this dtype: JAX maps bool and integers of
/// up to 32 bits to `float32` and 64-bit integers to `float64`, whatever the
/// x64 setting (`jnp.sqrt(int32)` is `float32` even with x64 on).
///
/// ```
/// use jax_dtypes::{to_inexact, DType};
///
/// assert_eq!(to_inexact(DType::I32), DType::F32);
/// assert_eq!(to_inexact(DType::Bool), DType::F32);
/// assert_eq!(to_inexact(DType::I64), DType::F64);
/// // Inexact types are unchanged.
/// assert_eq!(to_inexact(DType::BF16), DType::BF16);
/// assert_eq!(to_inexact(DType::C64), DType::C64);
/// ```
pub const fn to_inexact(dtype: DType) -> DType {
    match dtype.kind() {
        Kind::Float | Kind::Complex => dtype,
        _ if dtype.bits() == 64 => DType::F64,
        _ => DType::F32,
    }
}

/// The result dtype of `jnp.sum`/`jnp.prod`: bool and integers narrower than
/// the default integer accumulate in the default int (uint for unsigned).
///
/// ```
/// use jax_dtypes::{sum_dtype, DType};
///
/// assert_eq!(sum_dtype(DType::Bool, false), DType::I32);
/// assert_eq!(sum_dtype(DType::I8, false), DType::I32);
/// assert_eq!(sum_dtype(DType::U8, true), DType::U64);
/// // Wider integers and floats keep their type.
/// assert_eq!(sum_dtype(DType::I64, false), DType::I64);
/// assert_eq!(sum_dtype(DType::F16, false), DType::F16);
/// ```
pub fn sum_dtype(dtype: DType, x64: bool) -> DType {
    match dtype.kind() {
        Kind::Bool | Kind::Int => {
            let default = default_dtype(Kind::Int, x64);
            if dtype.bits() > default.bits() {
                dtype
            } else {
                default
            }
        }
        Kind::UInt => {
            let default = default_dtype(Kind::UInt, x64);
            if dtype.bits() > default.bits() {
                dtype
            } else {
                default
            }
        }
        _ => dtype,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_examples() {
        assert_eq!(promote_types(DType::BF16, DType::F16), DType::F32);
        assert_eq!(promote_types(DType::I64, DType::F16), DType::F16);
        assert_eq!(promote_types(DType::U64, DType::I64), DType::F64);
        assert_eq!(promote_types(DType::U8, DType::I8), DType::I16);
        assert_eq!(
            result_type(&[(DType::U8, false), (DType::I32, true)], false),
            (DType::U8, false)
        );
        assert_eq!(
            result_type(&[(DType::I32, false), (DType::F32, true)], false),
            (DType::F32, true)
        );
        assert_eq!(to_inexact(DType::I8), DType::F32);
        assert_eq!(sum_dtype(DType::U8, true), DType::U64);
    }
}
