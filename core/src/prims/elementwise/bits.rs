//! Operations on the bits of integers and of any element: XLA's shifts
//! and `bitcast_convert_type`, which JAX's samplers are built from (a
//! jaxpr of `random.uniform` shifts random bits and reinterprets them as
//! floats), and the comparisons in the bits' total order.

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

use super::{all_weak, common_dtype, nary_shape, Accepts, FAMILY};
use crate::ir::Aval;
use crate::prims::{Params, PrimDef};

/// A shift: integer operands of one dtype (the amount is read unsigned).
fn shift_eval(
    name: &str,
    ops: &[Aval],
    c: &mut crate::ir::shapes::Constraints,
) -> Result<Vec<Aval>, String> {
    let d = common_dtype(name, ops, Accepts::Logical)?;
    if !d.is_integer() {
        return Err(format!(
            "{name} does not accept dtype {}. Accepted dtypes are subtypes of integer.",
            d.name()
        ));
    }
    Ok(vec![Aval {
        dtype: d,
        shape: nary_shape(name, ops, c)?,
        weak: all_weak(ops),
    }])
}

macro_rules! shift {
    ($($id:ident = $name:literal;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, _, c| shift_eval($name, ops, c),
            // Integers: no tangent.
            jvp: Some(super::zero_jvp),
            ..FAMILY
        };
    )*};
}

shift! {
    SHIFT_LEFT = "shift_left";
    SHIFT_RIGHT_LOGICAL = "shift_right_logical";
    SHIFT_RIGHT_ARITHMETIC = "shift_right_arithmetic";
}

/// Comparisons in IEEE 754's total order (`jnp.searchsorted` sorts by it):
/// operands of one real dtype, a bool result.
fn total_order_eval(
    name: &str,
    ops: &[Aval],
    c: &mut crate::ir::shapes::Constraints,
) -> Result<Vec<Aval>, String> {
    common_dtype(name, ops, Accepts::Ordered)?;
    Ok(vec![Aval {
        dtype: DType::Bool,
        shape: nary_shape(name, ops, c)?,
        weak: false,
    }])
}

macro_rules! total_order {
    ($($id:ident = $name:literal;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, _, c| total_order_eval($name, ops, c),
            jvp: Some(super::zero_jvp),
            ..FAMILY
        };
    )*};
}

total_order! {
    EQ_TO = "eq_to";
    LT_TO = "lt_to";
    LE_TO = "le_to";
}

/// Reinterprets each element's bits as another dtype of the same width.
pub static BITCAST_CONVERT_TYPE: PrimDef = PrimDef {
    name: "bitcast_convert_type",
    abstract_eval: |ops, p, _| {
        let Params::Convert { new_dtype, .. } = p else {
            return Err("bitcast_convert_type needs new_dtype".into());
        };
        let x = &ops[0];
        let pattern = |d: DType| !matches!(d, DType::Bool | DType::C64 | DType::C128);
        if !pattern(x.dtype) || !pattern(*new_dtype) {
            return Err(format!(
                "bitcast_convert_type from {} to {} is not supported: bool and complex have no plain bit pattern here",
                x.dtype.name(),
                new_dtype.name()
            ));
        }
        if x.dtype.bits() != new_dtype.bits() {
            return Err(format!(
                "bitcast_convert_type from {} to {} changes the width, which changes the shape: not supported yet",
                x.dtype.name(),
                new_dtype.name()
            ));
        }
        Ok(vec![x.with_dtype(*new_dtype, false)])
    },
    print_params: |_, p| match p {
        Params::Convert { new_dtype, .. } => vec![("new_dtype", new_dtype.name().to_string())],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::Convert {
            new_dtype: r.dtype("new_dtype")?,
            weak: false,
        })
    },
    // Bits have no derivative (JAX defines none either).
    jvp: Some(super::zero_jvp),
    scalar: Some(bitcast_scalar),
    ..FAMILY
};

fn bitcast_scalar(p: &Params, args: &[TokenStream]) -> TokenStream {
    let Params::Convert { new_dtype, .. } = p else {
        unreachable!("bitcast_convert_type carries Params::Convert")
    };
    let (x, to) = (&args[0], crate::ir::rust_type(*new_dtype));
    quote!(::jax::__rt::ops::bitcast::<_, #to>(#x))
}

/// The family, for `ELEMENTWISE`.
pub(super) static BITS: &[&PrimDef] = &[
    &SHIFT_LEFT,
    &SHIFT_RIGHT_LOGICAL,
    &SHIFT_RIGHT_ARITHMETIC,
    &BITCAST_CONVERT_TYPE,
    &EQ_TO,
    &LT_TO,
    &LE_TO,
];
