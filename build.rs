//! Generates the type-level promotion traits of `runtime/element.rs` from the
//! one promotion table in `jax-dtypes`, so the runtime's types and the
//! compiler's inference can never disagree.

use std::fmt::Write;

use jax_dtypes::{result_type, result_type_explicit, sum_dtype, to_inexact, DType, Kind};

/// Element types the runtime has.
const RUNTIME: [DType; 15] = [
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

fn rust_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "u8",
        DType::U16 => "u16",
        DType::U32 => "u32",
        DType::U64 => "u64",
        DType::I8 => "i8",
        DType::I16 => "i16",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::BF16 => "half::bf16",
        DType::F16 => "half::f16",
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::C64 => "num_complex::Complex<f32>",
        DType::C128 => "num_complex::Complex<f64>",
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=dtypes/src/lib.rs");
    let x64 = std::env::var_os("CARGO_FEATURE_X64").is_some();
    let mut out = String::new();
    for a in RUNTIME {
        let ta = rust_type(a);
        for b in RUNTIME {
            // Explicit 64-bit types are always honoured, so promote as with x64 on.
            let (p, _) = result_type(&[(a, false), (b, false)], true);
            writeln!(
                out,
                "impl Promote<{}> for {ta} {{ type Out = {}; }}",
                rust_type(b),
                rust_type(p)
            )
            .unwrap();
            // A Rust scalar is weak: only its kind counts. Its default width follows x64.
            let weak = if b.kind() == Kind::Bool {
                (DType::Bool, false)
            } else {
                (b, true)
            };
            // An explicit 64-bit array type is kept (as in `Promote`): `Array<f64> * 2.0` is f64.
            let (w, _) = result_type_explicit(&[(a, false), weak], x64);
            writeln!(
                out,
                "impl PromoteWeak<{}> for {ta} {{ type Out = {}; }}",
                rust_type(b),
                rust_type(w)
            )
            .unwrap();
        }
        // `ToInexact::Out` is a real float; complex inputs have their own functions.
        if a.kind() != Kind::Complex {
            writeln!(
                out,
                "impl ToInexact for {ta} {{ type Out = {}; }}",
                rust_type(to_inexact(a))
            )
            .unwrap();
        }
        writeln!(
            out,
            "impl SumType for {ta} {{ type Out = {}; }}",
            rust_type(sum_dtype(a, x64))
        )
        .unwrap();
    }
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("promote_impls.rs");
    std::fs::write(path, out).unwrap();
}
