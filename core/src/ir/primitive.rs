//! What a primitive is: its definition ([`PrimDef`], one per primitive,
//! in `prims/`), the parameters equations carry, and the programs some
//! parameters hold. Here, below the primitives, so that an equation can
//! name its primitive without the IR depending on any primitive's rules.

use jax_dtypes::DType;

use super::rules::{BatchRule, JvpRule, TransposeRule};
use super::shapes::Constraints;
use super::{Atom, Aval, Dim, Eqn, Jaxpr, Shape, Var};

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

/// Reads an equation's parameters from jaxpr text (see `ir/parse.rs`),
/// given its operands' avals and the result avals the text declares: the
/// inverse of [`PrintParams`].
pub type ParseParams =
    fn(&mut super::parse::ParamReader, &[Aval], &[Aval]) -> Result<Params, String>;

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
    /// The parameters read back from printed text (`#[jax::jit(import = ..)]`).
    pub parse_params: ParseParams,
    pub lowering: Lowering,
    /// Forward-mode rule (`None`: not differentiable yet).
    pub jvp: Option<JvpRule>,
    /// Transpose rule, for primitives linear in some operands.
    pub transpose: Option<TransposeRule>,
    /// Batching rule (`vmap`); `None`: vmapping through it is a compile
    /// error naming it.
    pub batch: Option<BatchRule>,
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
    /// An algebraic rewrite `simplify` applies (as XLA's simplifier does):
    /// the equations replacing this one, or `None` to keep it.
    pub rewrite: Option<RewriteRule>,
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
    /// An index map's view of its operand: which operand element each
    /// result element is (see [`View`]).
    pub view: Option<ViewRule>,
    /// A reduction's combining rule (see [`Reduction`]).
    pub reduction: Option<Reduction>,
    /// A kernel's runtime call (see [`Kernel`]). Control flow has none: it
    /// holds programs (`nested`), which the backend emits itself.
    pub kernel: Option<Kernel>,
    /// A kernel's floating-point operations for `cost_analysis`, from its
    /// operands' and results' avals, where they are not one per element
    /// (a factorization's `n³/3`); `None` for a symbolic shape.
    pub flops: Option<FlopsRule>,
}

/// See [`PrimDef::flops`].
pub type FlopsRule = fn(ins: &[Aval], outs: &[Aval], &Params) -> Option<f64>;

/// See [`PrimDef::nested`].
pub type NestedPrograms = for<'a> fn(&'a Params, &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>);

/// See [`PrimDef::forward`]. Given the jaxpr, the equation and the
/// equation (already simplified) that produced a variable, if any.
pub type ForwardRule =
    for<'a> fn(&'a Jaxpr, &'a Eqn, &dyn Fn(Var) -> Option<&'a Eqn>) -> Option<Atom>;

/// See [`PrimDef::rewrite`]. Given the jaxpr (for new variables), the
/// equation, and the equation (already rewritten) that produced a variable.
pub type RewriteRule =
    for<'a> fn(&mut Jaxpr, &Eqn, &dyn Fn(Var) -> Option<&'a Eqn>) -> Option<Vec<Eqn>>;

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
        parse_params: |_, _, _| Ok(Params::None),
        lowering: Lowering::Kernel,
        jvp: None,
        transpose: None,
        batch: None,
        work: 1,
        scalar: None,
        forward: None,
        rewrite: None,
        transpose_only: None,
        no_transpose: None,
        nested: None,
        view: None,
        reduction: None,
        kernel: None,
        flops: None,
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
    /// Reductions: the axes reduced, and which of them JAX holds as NumPy
    /// integers (bit `k` for `axes[k]`; see `BroadcastInDim::np_ints`).
    Axes(Vec<usize>, u32),
    /// `argmax`/`argmin`.
    ArgReduce {
        axis: usize,
        index_dtype: DType,
        /// JAX holds the axis as a NumPy integer (its batching rule
        /// computes it with NumPy), printed `np.int64(k)`.
        np_int: bool,
    },
    /// `broadcast_in_dim`: the result shape, and where each operand axis goes.
    BroadcastInDim {
        shape: Shape,
        dims: Vec<usize>,
        /// Which of `dims` JAX holds as NumPy integers (bit `k` for
        /// `dims[k]`), which its jaxprs print `np.int64(k)`: the dims its
        /// batching rules compute with NumPy.
        np_ints: u32,
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
    /// `stack`: the new axis.
    Stack {
        axis: usize,
    },
    /// `split`: consecutive pieces along `axis`, of `sizes`; `np_ints` marks
    /// the sizes JAX holds as NumPy integers (bit `k` for `sizes[k]`).
    Split {
        axis: usize,
        sizes: Vec<usize>,
        np_ints: u32,
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
    /// `gather` (see [`GatherParams`]).
    Gather(GatherParams),
    /// `scatter` and its combining forms (see [`ScatterParams`]).
    Scatter(ScatterParams),
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
    /// `checkpoint` (`remat2`): the body, recomputed by reverse mode.
    Checkpoint(Shared<Checkpoint>),
    /// `while`: the condition and the body.
    While(Shared<While>),
    /// `shard_map`: the per-device body and how operands split.
    ShardMap(Shared<ShardMap>),
    /// `jit`: a call of a program.
    Jit(Shared<JitCall>),
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
    /// `sort`: operands sorted together along `dimension` by the first
    /// `num_keys` of them.
    Sort {
        dimension: usize,
        is_stable: bool,
        num_keys: usize,
    },
    /// `cumsum`, `cumprod`, `cummax`, `cummin`.
    Cumulative {
        axis: usize,
        reverse: bool,
    },
    /// `top_k`: the `k` largest along `axis`.
    TopK {
        k: usize,
        axis: usize,
    },
    /// `dot_general`.
    DotGeneral {
        lhs_contract: Vec<usize>,
        rhs_contract: Vec<usize>,
        lhs_batch: Vec<usize>,
        rhs_batch: Vec<usize>,
        preferred: DType,
    },
    /// `pad`: `(lo, hi, interior)` per axis, and the axes whose edges JAX
    /// holds as NumPy integers (bit `k` for axis `k`: `jnp.pad` computes
    /// them with NumPy).
    Pad {
        config: Vec<(i64, i64, i64)>,
        np_ints: u32,
    },
    /// `rev`: the reversed axes.
    Rev {
        dims: Vec<usize>,
    },
    /// `tile`: the repetitions along each axis.
    Tile {
        reps: Vec<usize>,
    },
    /// `iota`: the result's dtype and shape, and the axis it counts along.
    Iota {
        dtype: DType,
        shape: Shape,
        dimension: usize,
    },
    /// `qr`: complete (`m × m`) or reduced (`m × min(m, n)`) Q, and column
    /// pivoting (not supported yet: a compile error).
    Qr {
        full_matrices: bool,
        pivoting: bool,
    },
    /// `eig`: which eigenvectors it also returns.
    Eig {
        left: bool,
        right: bool,
    },
    /// `triangular_solve` (see [`TriangularSolveParams`]).
    TriangularSolve(TriangularSolveParams),
    /// `eigh` (`subset_by_index=None`, `algorithm=None`).
    Eigh {
        lower: bool,
        sort_eigenvalues: bool,
    },
    /// `svd` (`subset_by_index=None`, `algorithm=None`).
    Svd {
        full_matrices: bool,
        compute_uv: bool,
    },
    /// `conv_general_dilated` (see [`ConvParams`]).
    Conv(ConvParams),
    /// Windowed reductions and max pooling's derivatives (see [`WindowParams`]).
    Window(WindowParams),
    /// Collectives by axis name (see [`CollectiveParams`]).
    Collective(CollectiveParams),
}

/// The parameters of the collectives (`psum`, `pmax`, `pmin`,
/// `axis_index`, `all_gather`, `psum_scatter`, `ppermute`), JAX's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectiveParams {
    /// The axis names it communicates over (`axes`, or `axis_name`).
    pub axes: Vec<String>,
    /// The named axis' size (`all_gather`'s `axis_size`), as the tracer
    /// found it bound.
    pub axis_size: usize,
    /// `ppermute`'s `perm`: (source, destination) pairs.
    pub perm: Vec<(usize, usize)>,
}

/// The parameters of `reduce_window_{sum,max,min}`, `select_and_gather_add`
/// and `select_and_scatter_add` (which has no dilations: ones), JAX's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowParams {
    pub window_dimensions: Vec<usize>,
    pub window_strides: Vec<usize>,
    /// `(low, high)` per axis, strings already resolved.
    pub padding: Vec<(i64, i64)>,
    pub base_dilation: Vec<usize>,
    pub window_dilation: Vec<usize>,
    /// `select_prim` of the selecting primitives: `ge` (the first largest
    /// element, max pooling) or `le` (the first smallest).
    pub select_ge: Option<bool>,
}

impl From<jax_dtypes::conv::WindowSpec> for WindowParams {
    /// A checked window (`WindowSpec::new`) as a reduction's parameters.
    fn from(spec: jax_dtypes::conv::WindowSpec) -> WindowParams {
        WindowParams {
            window_dimensions: spec.window,
            window_strides: spec.strides,
            padding: spec.padding,
            base_dilation: spec.base_dilation,
            window_dilation: spec.window_dilation,
            select_ge: None,
        }
    }
}

/// `conv_general_dilated`'s parameters, JAX's names (`precision` and
/// `preferred_element_type` are always `None`: the operands' dtype).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvParams {
    pub window_strides: Vec<usize>,
    /// `(low, high)` per spatial axis, strings already resolved.
    pub padding: Vec<(i64, i64)>,
    pub lhs_dilation: Vec<usize>,
    pub rhs_dilation: Vec<usize>,
    /// `ConvDimensionNumbers`: `lhs_spec`, `rhs_spec`, `out_spec`, each the
    /// operand's axes in canonical order (batch or output feature, feature
    /// or input feature, then the spatial axes).
    pub specs: [Vec<usize>; 3],
    pub feature_group_count: usize,
    pub batch_group_count: usize,
}

/// `triangular_solve`'s parameters, JAX's names: `op(a) x = b` when
/// `left_side`, else `x op(a) = b`; `op` transposes when `transpose_a`
/// (and conjugates when `conjugate_a`, a no-op on real matrices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TriangularSolveParams {
    pub left_side: bool,
    pub lower: bool,
    pub transpose_a: bool,
    pub conjugate_a: bool,
    pub unit_diagonal: bool,
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
    /// The program's inputs and outputs print with the names of the
    /// equation's operands and results (JAX's `jit`).
    pub alias: bool,
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

/// The program of a `jax::checkpoint(f)` call (JAX's `remat2`).
#[derive(Debug)]
pub struct Checkpoint {
    /// What the call computes (printed as its `jaxpr`).
    pub body: Jaxpr,
    /// For the tangent call forward mode makes (`differentiated=True`):
    /// the primal function, whose inputs are the first half of the
    /// operands, `body` its jvp's tangent half. Its transpose linearizes
    /// `primal` again at those inputs: reverse mode saves only them and
    /// recomputes the rest.
    pub primal: Option<Jaxpr>,
}

/// A `shard_map` over a mesh of one named axis of `size` devices.
#[derive(Debug)]
pub struct ShardMap {
    /// One device's program, on its blocks.
    pub body: Jaxpr,
    pub axis: String,
    pub size: usize,
    /// Per operand: the axis split into `size` blocks, or `None` (every
    /// device gets it whole).
    pub in_specs: Vec<Option<usize>>,
    /// Per result: the axis the devices' blocks are placed along, or
    /// `None` (every device computes the same value).
    pub out_specs: Vec<Option<usize>>,
    /// For the tangent `shard_map` forward mode makes: the primal body,
    /// whose inputs are the first half of the operands; `body` is its
    /// jvp's tangent half. Its transpose linearizes `primal` again.
    pub primal: Option<Jaxpr>,
}

/// A `jit` call (JAX's `pjit`) of a named program.
#[derive(Debug)]
pub struct JitCall {
    pub name: String,
    pub body: Jaxpr,
    /// A call the tracer made of a function of the mod, which JAX traces
    /// as a Python call (inlined): printed as its body. It stays a call so
    /// that a body called many times with the same types is compiled once
    /// (`prims::inline_calls`).
    pub inlined: bool,
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

// How index maps, reductions and kernels run, as data the backend applies:
// the rules are set beside each primitive without the IR or the primitives
// depending on the backend.

/// See [`PrimDef::view`]: the view from the parameters, the operand's aval
/// and the result's.
pub type ViewRule = fn(&Params, &Aval, &Aval) -> View;

/// How an index map's result reads its operand in place: each result
/// element is one operand element, so the result is the operand's buffer
/// read through another offset and other strides.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// Result axis `i` runs along operand axis `axes[i]` (`None`: a
    /// broadcast axis, along which every element reads the same one), within
    /// `window` when there is one.
    Axes {
        axes: Vec<Option<usize>>,
        window: Option<Window>,
    },
    /// The operand's elements in row-major order, in the result's shape.
    RowMajor,
    /// A window of the result's shape at start indices given by the
    /// operands after the first (integer scalars known at run time),
    /// clamped so that the window fits, as XLA does.
    Dynamic,
}

/// A static window of a [`View::Axes`]: on each operand axis, the first
/// index read and the step between reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub start: Vec<usize>,
    pub step: Vec<usize>,
}

/// See [`PrimDef::reduction`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Folds the reduced axes (`Params::Axes`) with a monoid.
    Fold(Monoid),
    /// The index of the first largest element along `Params::ArgReduce`'s
    /// axis (NaN is largest).
    ArgMax,
    /// The index of the first smallest element along the axis.
    ArgMin,
}

/// An associative operation with an identity: how a reduction combines
/// elements, and how a combining scatter combines an update with the
/// element it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Monoid {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
}

impl Monoid {
    /// The binary elementwise primitive that combines two elements (its
    /// runtime function is `__rt::ops::` of that name).
    pub fn op(self) -> &'static str {
        match self {
            Monoid::Add => "add",
            Monoid::Mul => "mul",
            Monoid::Max => "max",
            Monoid::Min => "min",
            Monoid::And => "and",
            Monoid::Or => "or",
        }
    }
}

/// See [`PrimDef::kernel`].
#[derive(Clone, Copy)]
pub struct Kernel {
    /// The operand whose elements the result starts as, updated in place
    /// (a scatter's): the backend puts them in the result's buffer, the
    /// operand's own when nothing else reads it, else a copy. `None`: the
    /// call returns the result.
    pub updates: Option<usize>,
    /// The operands it never binds, their values being in its parameters:
    /// what computes only them needs no code.
    pub unread: &'static [usize],
    /// The code: with `updates`, statements updating the result's buffer;
    /// otherwise an expression of the result's `Vec` in row-major order.
    pub call: KernelCall,
}

/// See [`Kernel::call`].
pub type KernelCall = fn(KernelArgs<'_>) -> proc_macro2::TokenStream;

/// What a kernel's code is made from: the equation's parameters and avals,
/// the result's buffer, and its operands, bound when it asks for them.
pub struct KernelArgs<'a> {
    pub params: &'a Params,
    /// The operands' avals.
    pub avals: &'a [Aval],
    /// The result's buffer (a `Vec` of the result's element type).
    pub out: &'a proc_macro2::Ident,
    pub out_aval: &'a Aval,
    /// Every result's aval (a primitive of several results, as `sort`,
    /// gives an expression of a tuple of `Vec`s, one per result).
    pub out_avals: &'a [Aval],
    /// Binds operand `k` (emitting any copy it needs, so operands are bound
    /// in the order the kernel asks for them, and only those it reads):
    /// see [`Bind`].
    pub bind: &'a mut dyn FnMut(usize, Bind) -> proc_macro2::TokenStream,
    /// Whether the call is emitted inside code compiled once per SIMD level
    /// (a whole loop): a small kernel may then be inlined as a plain loop
    /// instead of a call that dispatches on the level itself.
    pub dispatched: bool,
}

/// How a kernel reads an operand (see [`KernelArgs::bind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bind {
    /// A whole row-major buffer (`Vec<T>` or `&[T]`), copied into one first
    /// when the value is not stored that way.
    Buffer,
    /// A rank-0 operand as a scalar value, any other as [`Bind::Buffer`].
    Value,
}

/// The size of an axis as a Rust expression: literal dims fold, symbols stay
/// names (or products of names, for constraints).
pub fn dim_tokens(d: &Dim) -> proc_macro2::TokenStream {
    match d {
        Dim::Lit(n) => quote::quote!(#n),
        Dim::Sym(s) => super::rust_expr::tokens(s),
    }
}

/// The number of elements of a shape as a Rust expression: the literal
/// dims' product, times the symbols.
pub fn size_tokens(dims: &[Dim]) -> proc_macro2::TokenStream {
    use quote::quote;
    let lit: usize = dims
        .iter()
        .filter_map(|d| if let Dim::Lit(n) = d { Some(*n) } else { None })
        .product();
    let syms: Vec<proc_macro2::TokenStream> = dims
        .iter()
        .filter(|d| matches!(d, Dim::Sym(_)))
        .map(dim_tokens)
        .collect();
    if syms.is_empty() {
        quote!(#lit)
    } else {
        quote!((#lit #(* #syms)*))
    }
}

/// The strides of a row-major array of `shape`, as Rust expressions.
pub fn row_major_strides(shape: &[Dim]) -> Vec<proc_macro2::TokenStream> {
    (0..shape.len())
        .map(|k| size_tokens(&shape[k + 1..]))
        .collect()
}

/// The dimension numbers of a gather or a scatter (JAX's
/// `GatherDimensionNumbers` names; the scatter's in brackets). The index
/// vector is always the indices' last axis, as JAX builds them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexDims {
    /// `offset_dims` (`update_window_dims`): the result's (update's) window axes.
    pub offset: Vec<usize>,
    /// `collapsed_slice_dims` (`inserted_window_dims`): operand axes of
    /// size-1 windows that the result (update) lacks.
    pub collapsed: Vec<usize>,
    /// `start_index_map` (`scatter_dims_to_operand_dims`): the operand axis
    /// each index component addresses.
    pub index_map: Vec<usize>,
    /// `operand_batching_dims`.
    pub operand_batching: Vec<usize>,
    /// `start_indices_batching_dims` (`scatter_indices_batching_dims`).
    pub indices_batching: Vec<usize>,
    /// Which entries JAX holds as NumPy integers (its batching rules shift
    /// them with `np.add`), printed `np.int64(k)`: a bit mask per field, in
    /// the order above.
    pub np_ints: [u32; 5],
}

/// JAX's `GatherScatterMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexMode {
    Clip,
    FillOrDrop,
    PromiseInBounds,
}

/// `gather`'s parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct GatherParams {
    pub dims: IndexDims,
    pub slice_sizes: Vec<usize>,
    pub mode: IndexMode,
    /// The fill value of `FillOrDrop` (`None`: NaN, or the integer
    /// minimum, as JAX's default).
    pub fill_value: Option<f64>,
    pub indices_are_sorted: bool,
    pub unique_indices: bool,
}

/// The parameters of `scatter` and its combining forms.
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterParams {
    pub dims: IndexDims,
    pub mode: IndexMode,
    pub indices_are_sorted: bool,
    pub unique_indices: bool,
}
