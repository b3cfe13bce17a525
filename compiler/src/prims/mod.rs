//! Primitives. Each is one [`PrimDef`] holding all of its rules — abstract
//! evaluation (shape and dtype), how jaxprs print its parameters, and how it
//! is lowered — next to each other, as JAX's `lax.py` does. Adding a primitive
//! means adding one definition, not editing match statements across the crate.

// Every definition ends in `..PrimDef::BASE`, even one that sets every
// field today, so that a new rule kind is a field of `BASE`, not an edit of
// each definition.
#![allow(clippy::needless_update)]

mod call;
mod cond;
mod control;
mod debug;
mod elementwise;
mod random;
mod structural;

pub use call::*;
pub use cond::*;
pub use control::*;
pub use debug::*;
pub use elementwise::*;
pub use random::*;
pub use structural::*;

use jax_dtypes::DType;

use crate::ir::shapes::Constraints;
use crate::ir::{Aval, Shape};

/// A nested program held by a parameter (a loop body, branches, a custom
/// rule): shared, and compared by identity (each traced call makes its own).
#[derive(Debug)]
pub struct Shared<T>(pub std::rc::Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A primitive: a static definition, compared by name.
pub type Prim = &'static PrimDef;

/// How a primitive runs in emitted code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    /// One scalar function per element, `::jax::__rt::ops::NAME(args..)`,
    /// fused into the loops of its cluster.
    Elementwise,
    /// Moves or selects elements without arithmetic (broadcast, reshape,
    /// transpose, slice): an index map, fused into its consumers.
    IndexMap,
    /// Combines elements along axes: a loop with an accumulator, fused with
    /// its elementwise producers.
    Reduce,
    /// A runtime kernel (gemm, gather, scatter, concatenate).
    Kernel,
    /// A random sample: a function of a key and of the element's index,
    /// fused into its consumers like an elementwise result.
    Sample,
    /// A side effect (`jax.debug.print`): kept though nothing reads its
    /// (dummy) result, never merged with another, run where it was traced.
    Effect,
}

/// An abstract evaluation rule: result avals from operand avals.
pub type AbstractEval = fn(&[Aval], &Params, &mut Constraints) -> Result<Vec<Aval>, String>;

/// Parameters as `(name, printed value)` pairs.
pub type PrintParams = fn(&[Aval], &Params) -> Vec<(&'static str, String)>;

/// Everything about one primitive.
pub struct PrimDef {
    /// The name jaxprs print.
    pub name: &'static str,
    /// The result's abstract values from the operands', or a message for the user.
    /// Dimension equalities that only rustc can decide (symbolic dims) are
    /// recorded in the [`Constraints`] and emitted as `const` assertions.
    pub abstract_eval: AbstractEval,
    /// The parameters as `jax.make_jaxpr` prints them, in its order.
    pub print_params: PrintParams,
    pub lowering: Lowering,
    /// Forward-mode rule (`None`: not differentiable yet).
    pub jvp: Option<crate::transform::ad::JvpRule>,
    /// Transpose rule, for primitives linear in some operands.
    pub transpose: Option<crate::transform::ad::TransposeRule>,
    /// Work per element, relative to an addition (a division or a root is
    /// 4, a transcendental [`TRANSCENDENTAL_WORK`]): for chunk sizes,
    /// SIMD copies, fusion size and `cost_analysis`.
    pub work: usize,
    /// An elementwise primitive's scalar expression from its operands'
    /// (`None`: `::jax::__rt::ops::NAME(operands..)`, the runtime function
    /// of the same name).
    pub scalar: Option<ScalarCall>,
    /// When an equation computes one of its operands unchanged (`x * 1`,
    /// `stop_gradient x`), that operand: `simplify` forwards it.
    pub forward: Option<ForwardRule>,
}

/// See [`PrimDef::forward`]. Given the jaxpr, the equation and the
/// equation (already simplified) that produced a variable, if any.
pub type ForwardRule = for<'a> fn(
    &'a crate::ir::Jaxpr,
    &'a crate::ir::Eqn,
    &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<crate::ir::Atom>;

/// Whether `a` has the dtype and shape of `e`'s result.
pub(crate) fn same_type(j: &crate::ir::Jaxpr, e: &crate::ir::Eqn, a: &crate::ir::Atom) -> bool {
    let (av, out) = (j.atom_aval(a), j.aval(e.outs[0]));
    av.dtype == out.dtype && av.shape == out.shape
}

/// See [`PrimDef::scalar`].
pub type ScalarCall = fn(&Params, &[proc_macro2::TokenStream]) -> proc_macro2::TokenStream;

/// [`PrimDef::work`] of a transcendental function (a library `tanhf` costs
/// about 50 additions; vectorized approximations less).
pub const TRANSCENDENTAL_WORK: usize = 32;

impl PrimDef {
    /// What a definition's `..PrimDef::BASE` fills in: the rule kinds a
    /// primitive may lack (no derivative rules) and the defaults (the work
    /// of an addition, the runtime function of its name). A new rule kind
    /// is a field here with its default, not an edit of every definition.
    pub const BASE: PrimDef = PrimDef {
        name: "",
        abstract_eval: |_, _, _| Err("a primitive without an abstract evaluation rule".into()),
        print_params: no_params,
        lowering: Lowering::Kernel,
        jvp: None,
        transpose: None,
        work: 1,
        scalar: None,
        forward: None,
    };

    /// The scalar expression of an elementwise primitive (see [`Self::scalar`]).
    pub fn scalar_call(
        &self,
        p: &Params,
        args: &[proc_macro2::TokenStream],
    ) -> proc_macro2::TokenStream {
        match self.scalar {
            Some(f) => f(p, args),
            None => {
                let f = quote::format_ident!("{}", self.name);
                quote::quote!(::jax::__rt::ops::#f(#(#args),*))
            }
        }
    }
}

impl std::fmt::Debug for PrimDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for PrimDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// The parameters of an equation. Each variant belongs to the primitives
/// whose definitions read it.
#[derive(Clone, Debug, PartialEq)]
pub enum Params {
    None,
    /// `convert_element_type`.
    Convert {
        new_dtype: DType,
        weak: bool,
    },
    /// `integer_pow`.
    IntegerPow(i64),
    /// `round`: `lax.RoundingMethod` (0 half away from zero, 1 half to even).
    Rounding(u8),
    /// Reductions: the axes reduced.
    Axes(Vec<usize>),
    /// `argmax`/`argmin`.
    ArgReduce {
        axis: usize,
        index_dtype: DType,
    },
    /// `broadcast_in_dim`: the result shape, and where each operand axis goes.
    BroadcastInDim {
        shape: Shape,
        dims: Vec<usize>,
    },
    /// `reshape`.
    Reshape {
        new_sizes: Shape,
    },
    /// `transpose`.
    Transpose {
        perm: Vec<usize>,
    },
    /// `squeeze`.
    Squeeze {
        dims: Vec<usize>,
    },
    /// `concatenate`.
    Concatenate {
        dim: usize,
    },
    /// `dynamic_slice`: the window's size on each axis.
    DynamicSlice {
        sizes: Vec<usize>,
    },
    /// `slice` with static bounds.
    Slice {
        start: Vec<usize>,
        limit: Vec<usize>,
        strides: Option<Vec<usize>>,
    },
    /// `scatter` and its combining forms, for static integer indices on the
    /// leading `inserted` axes; the rest of the operand is the update window.
    Scatter {
        inserted: usize,
        window_rank: usize,
        /// The index on each inserted axis, known when the crate compiles
        /// (the `i32[k]` operand carries the same values, as in JAX).
        indices: Vec<i128>,
    },
    /// Random samplers: the result shape and dtype, and a range (`uniform`
    /// between bounds, `truncated_normal`'s limits).
    Random {
        shape: Shape,
        dtype: DType,
        bounds: Option<(f64, f64)>,
    },
    /// `custom_jvp_call`: the function and its rule.
    CustomJvp(Shared<CustomJvp>),
    /// `custom_vjp_call`, `custom_vjp_lin`: the function, fwd and bwd.
    CustomVjp(Shared<CustomVjp>),
    /// `cond`: the branches.
    Cond(Shared<Cond>),
    /// `while`: the condition and the body.
    While(Shared<While>),
    /// `scan`: the body, length and direction.
    Scan(Shared<Scan>),
    /// `debug_callback` of `jax::debug::print!`: the format string, and the
    /// name of each argument given as `name = value`.
    DebugPrint {
        format: String,
        names: Vec<Option<String>>,
    },
    /// `static_value`: a Rust expression of the function's const generics,
    /// and the dtype it is converted to.
    Symbol {
        expr: String,
        dtype: DType,
    },
    /// `dot_general`.
    DotGeneral {
        lhs_contract: Vec<usize>,
        rhs_contract: Vec<usize>,
        lhs_batch: Vec<usize>,
        rhs_batch: Vec<usize>,
        preferred: DType,
    },
}

/// What `print_params` gives for a parameter holding nested programs; the
/// printer lays them out from [`nested`].
pub const NESTED: &str = "\u{0}nested";

/// A parameter holding nested programs, as JAX prints it: each program with
/// its inputs in JAX's order (invariants first), alone or as a tuple.
pub struct Printed<'a> {
    pub name: &'static str,
    pub programs: Vec<(&'a crate::ir::Jaxpr, Vec<crate::ir::Var>)>,
    pub tuple: bool,
}

/// The nested programs of an equation, and its operands in JAX's order.
pub fn nested<'a>(
    p: &'a Params,
    ins: &[crate::ir::Atom],
) -> (Vec<Printed<'a>>, Vec<crate::ir::Atom>) {
    match p {
        Params::Cond(c) => (cond::printed(&c.0), ins.to_vec()),
        Params::Scan(s) => control::scan_printed(&s.0, ins),
        Params::While(w) => control::while_printed(&w.0, ins),
        _ => (Vec::new(), ins.to_vec()),
    }
}

/// A Python-style tuple of numbers: `(0,)`, `(0, 1)`, `()`.
pub fn tuple<T: std::fmt::Display>(items: &[T]) -> String {
    match items {
        [] => "()".into(),
        [x] => format!("({x},)"),
        _ => format!(
            "({})",
            items
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Every primitive (for tests, for now: lookups by name will need it).
#[cfg(test)]
pub fn all() -> Vec<Prim> {
    let mut v: Vec<Prim> = ELEMENTWISE.clone();
    v.extend_from_slice(STRUCTURAL);
    v.extend_from_slice(RANDOM);
    v.push(&CUSTOM_JVP_CALL);
    v.push(&CUSTOM_VJP_CALL);
    v.push(&CUSTOM_VJP_LIN);
    v.push(&COND);
    v.push(&WHILE);
    v.push(&SCAN);
    v.push(&DEBUG_CALLBACK);
    v
}

pub fn no_params(_: &[Aval], _: &Params) -> Vec<(&'static str, String)> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let all = all();
        for (i, p) in all.iter().enumerate() {
            assert!(
                all[i + 1..].iter().all(|q| q.name != p.name),
                "{} defined twice",
                p.name
            );
        }
    }

    #[test]
    fn every_primitive_has_its_rules() {
        // Without a jvp rule, each for its reason; differentiating through
        // one is a compile error naming it.
        const WITHOUT_JVP: &[&str] = &[
            // Not written yet (README, Limitations).
            "scatter-mul",
            "scatter-min",
            "scatter-max",
            // The linearized custom_vjp function: only ever transposed.
            "custom_vjp_lin",
        ];
        let missing: Vec<&str> = all()
            .iter()
            .filter(|p| p.jvp.is_none())
            .map(|p| p.name)
            .collect();
        assert_eq!(missing, WITHOUT_JVP);
        for p in all() {
            assert!(p.work >= 1, "{} has no work", p.name);
            if p.lowering == Lowering::Elementwise {
                let args: Vec<proc_macro2::TokenStream> = (0..3usize)
                    .map(|k| quote::format_ident!("a{}", k))
                    .map(|a| quote::quote!(#a))
                    .collect();
                let params = match p.name {
                    "convert_element_type" => Params::Convert {
                        new_dtype: DType::F32,
                        weak: false,
                    },
                    "integer_pow" => Params::IntegerPow(2),
                    "static_value" => Params::Symbol {
                        expr: "N".into(),
                        dtype: DType::F32,
                    },
                    _ => Params::None,
                };
                let call = p.scalar_call(&params, &args).to_string();
                assert!(
                    call.contains(":: jax :: __rt :: ops ::") || p.name == "static_value",
                    "{}: {call}",
                    p.name
                );
            }
        }
        // The work of a family, set once where the family is defined.
        for (name, work) in [
            ("tanh", TRANSCENDENTAL_WORK),
            ("exp", TRANSCENDENTAL_WORK),
            ("div", 4),
            ("integer_pow", 4),
            ("add", 1),
        ] {
            let p = all().into_iter().find(|p| p.name == name).unwrap();
            assert_eq!(p.work, work, "{name}");
        }
    }

    #[test]
    fn python_tuples() {
        assert_eq!(tuple::<usize>(&[]), "()");
        assert_eq!(tuple(&[0]), "(0,)");
        assert_eq!(tuple(&[0, 1]), "(0, 1)");
    }
}
