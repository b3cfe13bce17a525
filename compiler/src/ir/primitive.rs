//! What a primitive is: its definition ([`PrimDef`], one per primitive,
//! in `prims/`), the parameters equations carry, and the programs some
//! parameters hold. Here, below the primitives, so that an equation can
//! name its primitive without the IR depending on any primitive's rules.

use jax_dtypes::DType;

use super::rules::{JvpRule, TransposeRule};
use super::shapes::Constraints;
use super::{Atom, Aval, Eqn, Jaxpr, Shape, Var};

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
    pub jvp: Option<JvpRule>,
    /// Transpose rule, for primitives linear in some operands.
    pub transpose: Option<TransposeRule>,
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
    /// A primitive only reverse mode may keep (it exists to be
    /// transposed, as `custom_vjp_lin`): the error when a forward-mode
    /// program has it.
    pub transpose_only: Option<&'static str>,
    /// Why reverse mode can't transpose it, when it is linear and has no
    /// transpose rule (`while` with traced bounds); the default names it.
    pub no_transpose: Option<&'static str>,
    /// A primitive holding programs (a loop body, branches): how they
    /// print, and the operands in the order JAX prints them.
    pub nested: Option<NestedPrograms>,
}

/// See [`PrimDef::nested`].
pub type NestedPrograms = for<'a> fn(&'a Params, &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>);

/// See [`PrimDef::forward`]. Given the jaxpr, the equation and the
/// equation (already simplified) that produced a variable, if any.
pub type ForwardRule =
    for<'a> fn(&'a Jaxpr, &'a Eqn, &dyn Fn(Var) -> Option<&'a Eqn>) -> Option<Atom>;

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
        transpose_only: None,
        no_transpose: None,
        nested: None,
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
/// printer lays them out from [`PrimDef::nested`].
pub const NESTED: &str = "\u{0}nested";

/// A parameter holding nested programs, as JAX prints it: each program with
/// its inputs in JAX's order (invariants first), alone or as a tuple.
pub struct Printed<'a> {
    pub name: &'static str,
    pub programs: Vec<(&'a Jaxpr, Vec<Var>)>,
    pub tuple: bool,
}

pub fn no_params(_: &[Aval], _: &Params) -> Vec<(&'static str, String)> {
    Vec::new()
}

// The programs held by the parameters of call and control-flow primitives
// (their rules are in `prims/`).

/// The body and the rule of a `#[custom_jvp]` function.
#[derive(Debug)]
pub struct CustomJvp {
    pub name: String,
    /// The function: its inputs, its outputs.
    pub fun: Jaxpr,
    /// The rule: inputs are the primals then their tangents; outputs are the
    /// primal outputs then their tangents.
    pub jvp: Jaxpr,
}

/// The function, its forward pass and its backward pass of a
/// `#[custom_vjp(fwd, bwd)]` function.
#[derive(Debug)]
pub struct CustomVjp {
    pub name: String,
    /// The function: its inputs, its output.
    pub fun: Jaxpr,
    /// Inputs as `fun`; outputs: `fun`'s output, then the residuals.
    pub fwd: Jaxpr,
    /// Inputs: the residuals, then the output cotangent; outputs: one
    /// cotangent per input of `fun`.
    pub bwd: Jaxpr,
}

/// The branches of a `cond`. The equation's operands are the index, the
/// operands every branch takes, then each branch's own invariants in
/// branch order; a branch takes `(operands.., its invariants..)`.
#[derive(Debug)]
pub struct Cond {
    pub branches: Vec<Jaxpr>,
    pub n_operands: usize,
    /// How many invariants each branch reads.
    pub n_frees: Vec<usize>,
}

/// A `while_loop`: `cond` takes `(carry.., its invariants..)` and returns a
/// bool; `body` takes `(carry.., its invariants..)` and returns the carry.
#[derive(Debug)]
pub struct While {
    pub cond: Jaxpr,
    pub body: Jaxpr,
    pub n_carry: usize,
    /// How many invariants `cond` reads (`body`'s follow).
    pub n_free_cond: usize,
}

/// A `scan`: the body takes `(carry.., x rows.., invariants..)` and
/// returns `(carry.., y rows..)`; the ys are stacked along a new leading
/// axis of `length`.
#[derive(Debug)]
pub struct Scan {
    pub body: Jaxpr,
    pub n_carry: usize,
    pub n_xs: usize,
    pub length: usize,
    pub reverse: bool,
}
