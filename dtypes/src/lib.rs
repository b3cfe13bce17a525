//! Dtypes and JAX's type promotion lattice.
//!
//! This crate is the one place where promotion is written down. The runtime
//! (`jax`) uses it from its build script to generate the type-level promotion
//! traits, and the compiler (`jax-compiler`) uses it at expansion time, so the
//! two can never disagree.

/// An element type, named as in JAX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    BF16,
    F16,
    F32,
    F64,
    C64,
    C128,
}

impl DType {
    /// Every dtype, in the order of JAX's dtype tables.
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

    /// NumPy's name: `float32`, `int8`, `bool`, `bfloat16`, `complex64`.
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

    /// Looks a dtype up by its NumPy name (`"float32"`).
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// The kind of a dtype, and of a weakly typed Rust/Python scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Bool,
    UInt,
    Int,
    Float,
    Complex,
}

impl DType {
    /// Whether this is bool, an unsigned or signed integer, a float or a complex type.
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
    pub const fn bits(self) -> u32 {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 8,
            DType::U16 | DType::I16 | DType::BF16 | DType::F16 => 16,
            DType::U32 | DType::I32 | DType::F32 => 32,
            DType::U64 | DType::I64 | DType::F64 | DType::C64 => 64,
            DType::C128 => 128,
        }
    }

    /// Signed or unsigned integer.
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::UInt | Kind::Int)
    }

    /// Floating point (real).
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), Kind::Float)
    }

    /// Float or complex: the "inexact" types of NumPy.
    pub const fn is_inexact(self) -> bool {
        matches!(self.kind(), Kind::Float | Kind::Complex)
    }

    /// What `jnp.ones(2, self)` really holds: with x64 off, JAX truncates
    /// 64-bit requests to 32 bits (`int64` -> `int32`, `float64` -> `float32`).
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
pub fn promote_types(a: DType, b: DType) -> DType {
    match join(Node::Strong(a), Node::Strong(b)) {
        Node::Strong(d) => d,
        // Two strong types never join at a weak node: every weak node lies below
        // the strong types it joins with (u64 and i64 join at f*, made concrete as
        // the default float).
        Node::WeakInt => DType::I64,
        Node::WeakFloat => DType::F64,
        Node::WeakComplex => DType::C128,
    }
}

/// `jax.dtypes.result_type` of typed operands, each `(dtype, weak)`: the
/// dtype of `a + b` and whether it is weakly typed. A weak operand is a Rust
/// scalar or a weakly typed array (its width does not count, only its kind).
/// With x64 off, 64-bit results are truncated as JAX does.
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
pub const fn to_inexact(dtype: DType) -> DType {
    match dtype.kind() {
        Kind::Float | Kind::Complex => dtype,
        _ if dtype.bits() == 64 => DType::F64,
        _ => DType::F32,
    }
}

/// The result dtype of `jnp.sum`/`jnp.prod`: bool and integers narrower than
/// the default integer accumulate in the default int (uint for unsigned).
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
