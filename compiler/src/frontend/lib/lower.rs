//! The operations the compiler knows, by name: `jnp::NAME(..)`,
//! `lax::NAME(..)` and methods `x.NAME(..)`, lowered to primitives through
//! the NumPy layer in [`crate::frontend::trace::jnp`].
//!
//! [`OPS`] is the table: a row is the names an operation is written with,
//! where it may be written (`jnp::`, `lax::`, methods), and how it lowers:
//! by family (float functions, same-type functions, binary operations,
//! reductions), or by its own handler in `lib/jnp/math.rs`, `lib/jnp/shape.rs`
//! or `lib/jnp/create.rs`. Adding an operation is a row, plus a handler when
//! no family fits. `random::` samplers are lowered by `lib/random/mod.rs`.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, unsupported, Call, Module};
use crate::frontend::lib::jnp::complex;
use crate::frontend::lib::jnp::create::{array_value, filled_like, shape_from_value};
use crate::frontend::lib::jnp::diag;
use crate::frontend::lib::jnp::manip::{
    atleast_1d, atleast_nd, flip, lax_broadcast_in_dim, lax_slice, meshgrid, outer, pad,
    permute_axes, repeat, roll, squeeze_axis, stack_hv, tile, vector_products,
};
use crate::frontend::lib::jnp::math::{
    by_axis, clip, integer_pow, isnan, lax_divide, lax_round, logsumexp, matmul, mean, numpy_round,
    power, reciprocal, select, softmax, true_divide, where_,
};
use crate::frontend::lib::jnp::numeric;
use crate::frontend::lib::jnp::ranges::{eye, linspace};
use crate::frontend::lib::jnp::shape::{
    broadcast_to, concatenate, expand_dims, ravel, reshape, reverse_axes, squeeze, transpose,
};
use crate::frontend::lib::jnp::sort;
use crate::frontend::lib::lax::collectives;
use crate::frontend::lib::lax::conv;
use crate::frontend::lib::lax::dot;
use crate::frontend::lib::nn;
use crate::frontend::lib::random::sample;
use crate::frontend::trace::jnp::{self, Reduction};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::TypeSpec;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Atom;
use crate::prims::{self, Prim};

/// A handler: lowers one call of its operation.
pub(crate) type Handler = fn(&mut Tracer, Call) -> Result<Value>;

/// How a row of [`OPS`] lowers its calls.
pub(crate) enum Lowering {
    /// A float function of one operand: integer and bool operands convert
    /// to the default float first.
    Inexact(Prim),
    /// A function of one operand that keeps its type.
    SameType(Prim),
    /// Two operands, with implicit promotion and broadcasting under
    /// `jnp::`; `lax::` does neither, as in JAX.
    Binary(Prim),
    /// A reduction over every axis, or over `axis, keepdims`.
    Reduce(Reduction),
    /// A `jnp` function of two array operands written once over
    /// [`Lax`] (`jax_core::jnp`), the same text its eager twin runs.
    Composite2(for<'a> fn(&mut Trace<'a>, Atom, Atom) -> Result<Atom>),
    /// A `jnp` function of one array operand written once over [`Lax`].
    Composite1(for<'a> fn(&mut Trace<'a>, Atom) -> Result<Atom>),
    /// Its own handler.
    By(Handler),
}

use jax_core::jnp as composite;
use jax_core::lax::{Lax, Trace};
use Lowering::{Binary, By, Composite1, Composite2, Inexact, Reduce, SameType};

/// Everywhere: `jnp::`, `lax::` and methods.
const ANY: &[Module] = &[Module::Jnp, Module::Lax, Module::Method];
/// `lax::` only.
const LAX: &[Module] = &[Module::Lax];
/// `jnp::` only.
const JNP: &[Module] = &[Module::Jnp];
/// `jnp::` and methods, which follow NumPy.
const NUMPY: &[Module] = &[Module::Jnp, Module::Method];

/// The operations: names, where they may be written, how they lower. A
/// name written in one place has one row (the tests check it).
pub(crate) static OPS: &[(&[&str], &[Module], Lowering)] = &[
    // Float functions.
    (&["exp"], ANY, Inexact(&prims::EXP)),
    (&["exp2"], ANY, Inexact(&prims::EXP2)),
    (&["log"], ANY, Inexact(&prims::LOG)),
    (&["log1p"], ANY, Inexact(&prims::LOG1P)),
    (&["expm1"], ANY, Inexact(&prims::EXPM1)),
    (&["sin"], ANY, Inexact(&prims::SIN)),
    (&["cos"], ANY, Inexact(&prims::COS)),
    (&["tan"], ANY, Inexact(&prims::TAN)),
    (&["tanh"], ANY, Inexact(&prims::TANH)),
    (&["sinh"], ANY, Inexact(&prims::SINH)),
    (&["cosh"], ANY, Inexact(&prims::COSH)),
    (&["arcsin", "asin"], ANY, Inexact(&prims::ASIN)),
    (&["arccos", "acos"], ANY, Inexact(&prims::ACOS)),
    (&["arctan", "atan"], ANY, Inexact(&prims::ATAN)),
    (&["arcsinh", "asinh"], ANY, Inexact(&prims::ASINH)),
    (&["arccosh", "acosh"], ANY, Inexact(&prims::ACOSH)),
    (&["arctanh", "atanh"], ANY, Inexact(&prims::ATANH)),
    (&["sqrt"], ANY, Inexact(&prims::SQRT)),
    (&["rsqrt"], ANY, Inexact(&prims::RSQRT)),
    (&["cbrt"], ANY, Inexact(&prims::CBRT)),
    (&["logistic", "sigmoid"], ANY, Inexact(&prims::LOGISTIC)),
    (&["erf"], ANY, Inexact(&prims::ERF)),
    (&["erfc"], ANY, Inexact(&prims::ERFC)),
    (&["erf_inv"], ANY, Inexact(&prims::ERF_INV)),
    (&["floor"], ANY, Inexact(&prims::FLOOR)),
    (&["ceil"], ANY, Inexact(&prims::CEIL)),
    (&["round"], LAX, By(lax_round)),
    (&["round"], NUMPY, By(numpy_round)),
    // Complex parts.
    (&["real"], JNP, By(complex::real)),
    (&["conj", "conjugate"], JNP, By(complex::conj)),
    (
        &["real"],
        LAX,
        By(|t, c| complex::lax_part(t, c, &prims::REAL)),
    ),
    (
        &["imag"],
        LAX,
        By(|t, c| complex::lax_part(t, c, &prims::IMAG)),
    ),
    (
        &["conj"],
        LAX,
        By(|t, c| complex::lax_part(t, c, &prims::CONJ)),
    ),
    (&["imag"], JNP, By(complex::imag)),
    (&["angle"], JNP, By(complex::angle)),
    (&["complex"], LAX, By(complex::complex)),
    // Functions that keep their operand's type.
    (&["abs"], ANY, SameType(&prims::ABS)),
    (&["sign"], ANY, SameType(&prims::SIGN)),
    (&["negative", "neg"], ANY, SameType(&prims::NEG)),
    (&["square"], ANY, SameType(&prims::SQUARE)),
    (&["logical_not", "bitwise_not"], ANY, SameType(&prims::NOT)),
    (&["stop_gradient"], ANY, SameType(&prims::STOP_GRADIENT)),
    // Binary operations.
    (&["add"], ANY, Binary(&prims::ADD)),
    (&["subtract", "sub"], ANY, Binary(&prims::SUB)),
    (&["multiply", "mul"], ANY, Binary(&prims::MUL)),
    (&["maximum"], ANY, Binary(&prims::MAX)),
    (&["minimum"], ANY, Binary(&prims::MIN)),
    (&["max"], LAX, Binary(&prims::MAX)),
    (&["min"], LAX, Binary(&prims::MIN)),
    (&["rem"], LAX, Binary(&prims::REM)),
    (&["arctan2", "atan2"], ANY, Binary(&prims::ATAN2)),
    (&["logical_and", "bitwise_and"], ANY, Binary(&prims::AND)),
    (&["logical_or", "bitwise_or"], ANY, Binary(&prims::OR)),
    (&["logical_xor", "bitwise_xor"], ANY, Binary(&prims::XOR)),
    (&["less", "lt"], ANY, Binary(&prims::LT)),
    (&["less_equal", "le"], ANY, Binary(&prims::LE)),
    (&["greater", "gt"], ANY, Binary(&prims::GT)),
    (&["greater_equal", "ge"], ANY, Binary(&prims::GE)),
    (&["equal", "eq", "eq_"], ANY, Binary(&prims::EQ)),
    (&["not_equal", "ne", "ne_"], ANY, Binary(&prims::NE)),
    (&["divide", "true_divide", "div"], LAX, By(lax_divide)),
    (&["divide", "true_divide", "div"], NUMPY, By(true_divide)),
    (&["power", "pow", "powf", "powi"], ANY, By(power)),
    (&["integer_pow"], ANY, By(integer_pow)),
    // Reductions (`lax::max` and `lax::min` are the binary ones above).
    (&["sum"], ANY, Reduce(Reduction::Sum)),
    (&["prod"], ANY, Reduce(Reduction::Prod)),
    (&["max"], NUMPY, Reduce(Reduction::Max)),
    (&["min"], NUMPY, Reduce(Reduction::Min)),
    (&["any"], ANY, Reduce(Reduction::Any)),
    (&["all"], ANY, Reduce(Reduction::All)),
    (&["mean"], ANY, By(mean)),
    (&["logsumexp"], ANY, By(logsumexp)),
    (
        &[
            "sum_axis",
            "prod_axis",
            "max_axis",
            "min_axis",
            "mean_axis",
            "any_axis",
            "all_axis",
        ],
        ANY,
        By(by_axis),
    ),
    (&["argmax", "argmin"], ANY, By(numeric::arg_axis)),
    // Compositions.
    (&["isnan"], ANY, By(isnan)),
    (&["reciprocal"], ANY, By(reciprocal)),
    (&["where_"], ANY, By(where_)),
    // `lax.select(pred, on_true, on_false)` is `where`'s order;
    // `jnp.select(condlist, choicelist, default)` is another function.
    (&["select"], LAX, By(where_)),
    (&["select"], JNP, By(select)),
    (&["clip"], ANY, By(clip)),
    (
        &["polyval"],
        JNP,
        Composite2(|l, p, x| composite::polyval(l, p, x)),
    ),
    // JAX's defaults: rtol=1e-05, atol=1e-08, equal_nan=False.
    (
        &["isclose"],
        JNP,
        Composite2(|l, a, b| jax_core::numeric::isclose(l, a, b, 1e-5, 1e-8, false)),
    ),
    (
        &["allclose"],
        JNP,
        Composite2(|l, a, b| jax_core::numeric::allclose(l, a, b, 1e-5, 1e-8, false)),
    ),
    (&["tensordot"], JNP, By(numeric::tensordot)),
    (
        &["cross"],
        JNP,
        Composite2(|l, a, b| jax_core::numeric::cross(l, a, b)),
    ),
    (
        &["kron"],
        JNP,
        Composite2(|l, a, b| jax_core::numeric::kron(l, a, b)),
    ),
    (
        &["nan_to_num"],
        JNP,
        Composite1(|l, x| jax_core::numeric::nan_to_num(l, x)),
    ),
    (&["relu"], ANY, By(nn::relu)),
    (&["softmax", "log_softmax"], ANY, By(softmax)),
    (&["matmul", "dot"], ANY, By(matmul)),
    // Shapes.
    (&["t"], ANY, By(reverse_axes)),
    (&["transpose"], ANY, By(transpose)),
    (&["reshape"], ANY, By(reshape)),
    (&["ravel", "flatten"], ANY, By(ravel)),
    (&["broadcast_to"], ANY, By(broadcast_to)),
    (&["expand_dims"], ANY, By(expand_dims)),
    (&["squeeze"], ANY, By(squeeze)),
    (&["concatenate", "stack"], ANY, By(concatenate)),
    // New arrays.
    (
        &["zeros_like", "ones_like", "full_like"],
        ANY,
        By(filled_like),
    ),
    (&["array", "asarray"], ANY, By(array_value)),
    (
        &["arange", "zeros", "ones", "full", "empty"],
        ANY,
        By(shape_from_value),
    ),
    // Windows at run-time starts.
    (
        &[
            "dynamic_slice",
            "dynamic_update_slice",
            "dynamic_slice_in_dim",
            "dynamic_index_in_dim",
            "dynamic_update_slice_in_dim",
            "dynamic_update_index_in_dim",
        ],
        LAX,
        By(crate::frontend::lib::lax::dynamic::windows),
    ),
    // Shape manipulation and small products (lib/jnp/manip.rs).
    (&["outer"], NUMPY, By(outer)),
    (&["vdot", "inner"], NUMPY, By(vector_products)),
    (&["batch_matmul"], ANY, By(vector_products)),
    (
        &["swapaxes", "moveaxis", "transpose_axes"],
        NUMPY,
        By(permute_axes),
    ),
    (&["squeeze_axis"], NUMPY, By(squeeze_axis)),
    (&["repeat"], NUMPY, By(repeat)),
    (&["tile"], NUMPY, By(tile)),
    (&["roll"], NUMPY, By(roll)),
    (&["vstack", "hstack", "column_stack"], JNP, By(stack_hv)),
    (&["atleast_1d"], JNP, By(atleast_1d)),
    (&["atleast_2d", "atleast_3d"], JNP, By(atleast_nd)),
    (&["meshgrid"], JNP, By(meshgrid)),
    (&["slice"], LAX, By(lax_slice)),
    (&["broadcast_in_dim"], LAX, By(lax_broadcast_in_dim)),
    (&["flip", "flip_all"], NUMPY, By(flip)),
    (&["rev"], LAX, By(flip)),
    (&["pad"], &[Module::Jnp, Module::Lax], By(pad)),
    (&["eye"], JNP, By(eye)),
    (&["linspace"], JNP, By(linspace)),
    // Sorting and cumulative operations (lib/jnp/sort.rs).
    (&["sort"], &[Module::Jnp, Module::Lax], By(sort::sort)),
    (&["argsort"], &[Module::Jnp], By(sort::argsort)),
    (&["sort_key_val"], LAX, By(sort::sort_key_val)),
    (&["cumsum", "cumprod"], NUMPY, By(sort::cumulative)),
    (&["cummax", "cummin"], &[Module::Jnp], By(sort::cumulative)),
    (&["top_k"], LAX, By(sort::top_k)),
    (&["diff"], &[Module::Jnp], By(sort::diff)),
    (&["searchsorted"], &[Module::Jnp], By(sort::searchsorted)),
    (
        &[
            "median",
            "median_axis",
            "quantile",
            "quantile_axis",
            "percentile",
            "percentile_axis",
        ],
        &[Module::Jnp],
        By(sort::quantile),
    ),
    // Math that is a composition (lib/nn.rs, lib/jnp/numeric.rs).
    (&["logaddexp", "logaddexp2"], NUMPY, By(nn::logaddexp)),
    (&["tril", "triu"], JNP, By(diag::tril_triu)),
    (&["trace"], JNP, By(diag::trace)),
    (&["diag"], JNP, By(diag::diag)),
    (&["diagonal"], JNP, By(diag::diagonal)),
    (&["remainder"], NUMPY, By(numeric::remainder)),
    (&["floor_divide"], NUMPY, By(numeric::floor_divide)),
    (&["isinf", "isfinite"], NUMPY, By(numeric::isinf_isfinite)),
    (&["log2", "log10"], NUMPY, By(numeric::log_base)),
    (&["trunc"], NUMPY, By(numeric::trunc)),
    (
        &["var", "std", "var_axis", "std_axis"],
        NUMPY,
        By(numeric::var_std),
    ),
    (&["logsumexp_axis"], NUMPY, By(numeric::logsumexp_axis)),
    (
        &[
            "nansum",
            "nanmax",
            "nanmin",
            "nansum_axis",
            "nanmax_axis",
            "nanmin_axis",
        ],
        NUMPY,
        By(numeric::nan_reduce),
    ),
    (
        &["nanargmax", "nanargmin", "argmax_axis", "argmin_axis"],
        NUMPY,
        By(numeric::arg_axis),
    ),
    (
        &["nanargmax_axis", "nanargmin_axis"],
        NUMPY,
        By(numeric::arg_axis),
    ),
    (
        &["reduce_sum", "reduce_prod", "reduce_max", "reduce_min"],
        LAX,
        By(numeric::lax_reduce),
    ),
    (&["convert_element_type"], LAX, By(numeric::lax_convert)),
    // Gathers with index arrays.
    (
        &["take"],
        &[Module::Jnp],
        By(crate::frontend::lib::jnp::gather::take),
    ),
    (
        &["take_along_axis"],
        &[Module::Jnp],
        By(crate::frontend::lib::jnp::gather::take_along_axis),
    ),
    (&["dot_general"], LAX, By(dot::lax_dot_general)),
    // Convolutions (lib/lax/conv.rs).
    (
        &["conv_general_dilated"],
        LAX,
        By(conv::conv_general_dilated),
    ),
    (&["conv"], LAX, By(conv::conv)),
    (&["conv_transpose"], LAX, By(conv::conv_transpose)),
    // Collectives by axis name (lib/lax/collectives.rs).
    (&["psum"], LAX, By(collectives::psum)),
    (&["pmean"], LAX, By(collectives::pmean)),
    (&["pmax"], LAX, By(collectives::pmax)),
    (&["pmin"], LAX, By(collectives::pmin)),
    (&["all_gather"], LAX, By(collectives::all_gather)),
    (&["psum_scatter"], LAX, By(collectives::psum_scatter)),
    (&["ppermute"], LAX, By(collectives::ppermute)),
    (&["axis_index"], LAX, By(collectives::axis_index)),
];

impl Tracer {
    /// Lowers `module::name(args)` (or `args[0].name(args[1..])`) by its
    /// row of [`OPS`]. `hint` is the written type of the result, when the
    /// call is the whole value of an annotated `let` or of the function body.
    pub(crate) fn op(
        &mut self,
        module: Module,
        name: &str,
        args: Vec<(Value, Span)>,
        hint: Option<TypeSpec>,
        span: Span,
    ) -> Result<Value> {
        let call = Call {
            module,
            name,
            args,
            hint,
            span,
        };
        if module == Module::Random {
            return sample(self, call);
        }
        if matches!(module, Module::Nn | Module::Special | Module::Norm) {
            return crate::frontend::lib::nn::lower(self, call);
        }
        if matches!(module, Module::Linalg | Module::ScipyLinalg) {
            return crate::frontend::lib::linalg::lower(self, call);
        }
        if call.args.is_empty() && !(module == Module::Jnp && name == "eye") {
            if matches!(name, "zeros" | "ones" | "full" | "empty") {
                return call_err(
                    span,
                    format!("an array's shape and dtype are its type here: write `Array::<f32, 3, 4>::{name}()`, or `jnp::{name}_like(x)` for the shape and dtype of `x`"),
                );
            }
            return call_err(span, format!("`{name}` takes an array argument"));
        }
        let row = OPS
            .iter()
            .find(|(names, written, _)| names.contains(&name) && written.contains(&module));
        let Some((_, _, lowering)) = row else {
            return unsupported(call);
        };
        let traced = |a: Atom| Ok(Value::Traced(a));
        match lowering {
            Inexact(prim) => {
                call.want(1)?;
                let x = call.atom(self, 0)?;
                traced(jnp::unary_inexact(&mut self.b, prim, x, span)?)
            }
            SameType(prim) => {
                call.want(1)?;
                let x = call.atom(self, 0)?;
                traced(jnp::unary(&mut self.b, prim, x, span)?)
            }
            Binary(prim) => self.binary_op(prim, call),
            Reduce(kind) => {
                let x = call.atom(self, 0)?;
                let (axes, keepdims) = self.axis_args(&x, &call.args[1..], name, span)?;
                traced(jnp::reduce(&mut self.b, *kind, x, axes, keepdims, span)?)
            }
            Composite1(f) => {
                call.want(1)?;
                let x = call.atom(self, 0)?;
                traced(f(&mut self.at(span), x)?)
            }
            Composite2(f) => {
                call.want(2)?;
                let (x, y) = (call.atom(self, 0)?, call.atom(self, 1)?);
                traced(f(&mut self.at(span), x, y)?)
            }
            By(handler) => handler(self, call),
        }
    }

    /// A binary operation: NumPy's promotion and broadcasting, or, under
    /// `lax::`, operands that must already agree.
    fn binary_op(&mut self, prim: Prim, call: Call) -> Result<Value> {
        let span = call.span;
        call.want(2)?;
        let (x, y) = (call.atom(self, 0)?, call.atom(self, 1)?);
        let (ax, ay) = (self.b.aval(&x), self.b.aval(&y));
        let lax = call.module == Module::Lax;
        // lax does not promote: two typed operands must agree, as in JAX.
        if lax && !ax.weak && !ay.weak && ax.dtype != ay.dtype {
            return Ok(Value::Traced(self.at(span).binary(prim, x, y)?));
        }
        // lax does not broadcast arrays against each other, only scalars.
        if lax && ax.rank() > 0 && ay.rank() > 0 && ax.shape != ay.shape {
            let tuple = |a: &crate::ir::Aval| match a.shape.as_slice() {
                [d] => format!("({d},)"),
                dims => format!(
                    "({})",
                    dims.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Err(syn::Error::new(
                span,
                format!(
                    "{} got incompatible shapes for broadcasting: {}, {}; lax needs equal shapes: use jnp::{}, which broadcasts, or broadcast one operand first with jnp::broadcast_to",
                    prim.name,
                    tuple(&ax),
                    tuple(&ay),
                    call.name
                ),
            ));
        }
        Ok(Value::Traced(jnp::binary(&mut self.b, prim, x, y, span)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name written in one place is lowered by one row, so the order of
    /// the rows does not matter.
    #[test]
    fn each_name_has_one_row_where_it_is_written() {
        let mut seen = std::collections::HashSet::new();
        for (names, written, _) in OPS {
            for name in names.iter() {
                for module in written.iter() {
                    assert!(
                        seen.insert((*name, module.prefix())),
                        "`{}{name}` has two rows",
                        module.prefix()
                    );
                }
            }
        }
    }
}
