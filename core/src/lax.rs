//! The primitives as a composite binds them: [`Lax`], one typed method per
//! primitive over a value type, so a composite (`jnp.rs`: promotion,
//! broadcasting, reductions, `softmax`, `logsumexp`, ...) is one generic
//! text whatever runs it. [`Trace`] records each bind as an equation of a
//! jaxpr (abstract evaluation at bind time, errors at the user's span), as
//! a jitted body and an eager jit unit are traced.
//!
//! A typed method is the only place its primitive's [`Params`] are built,
//! so a composite never writes parameters by hand.

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::ir::builder::{expression_error, literal, Builder};
use crate::ir::primitive::{GatherParams, Params, Prim};
use crate::ir::shapes::Constraints;
use crate::ir::{Atom, Aval, Dim, Literal, Scalar};
use crate::prims;

/// What a composite binds primitives through.
pub trait Lax {
    /// An operand or a result of a primitive.
    type V: Clone;
    /// What a failed bind or a rejected argument becomes.
    type E;

    /// The abstract value of `x`: dtype, shape, weak type.
    fn aval(&self, x: &Self::V) -> Aval;
    /// JAX_ENABLE_X64: the width of default ints and floats.
    fn x64(&self) -> bool;
    /// A scalar literal of `aval` (rank 0).
    fn literal(&mut self, value: Scalar, aval: Aval) -> Self::V;
    /// `x`'s value, when it is a scalar literal (a Rust literal in a jitted
    /// body: it is retyped rather than converted, and a static exponent is
    /// an `integer_pow`).
    fn as_literal(&self, x: &Self::V) -> Option<Literal>;
    /// The equalities of symbolic sizes a shape rule needs (`ir/shapes.rs`).
    fn constraints(&mut self) -> &mut Constraints;
    /// `p[params] ins`, its results; an abstract evaluation error is an
    /// error about the whole expression.
    fn bind_all(
        &mut self,
        p: Prim,
        params: Params,
        ins: Vec<Self::V>,
    ) -> Result<Vec<Self::V>, Self::E>;
    /// An error about the call's arguments (reported at its first token).
    fn error(&self, msg: String) -> Self::E;
    /// An error about the whole expression (a shape or dtype error of the
    /// operation).
    fn expression_error(&self, msg: String) -> Self::E;

    /// A single-result primitive.
    fn bind(&mut self, p: Prim, params: Params, ins: Vec<Self::V>) -> Result<Self::V, Self::E> {
        Ok(self.bind_all(p, params, ins)?.remove(0))
    }

    /// An elementwise primitive of one operand (`exp`, `neg`, ...).
    fn unary(&mut self, p: Prim, x: Self::V) -> Result<Self::V, Self::E> {
        self.bind(p, Params::None, vec![x])
    }

    /// A function with its own derivative rule (JAX's `custom_jvp`), named
    /// `name`: `fun` computes the output from `args`, `rule` the output's
    /// tangent from the primals, their tangents and the output. Its value
    /// is `fun`'s, which is what running it computes; [`Trace`] records a
    /// `custom_jvp_call` holding both as programs, so derivatives use the
    /// rule.
    fn custom_jvp(
        &mut self,
        name: &str,
        args: Vec<Self::V>,
        fun: CustomFun<'_, Self>,
        rule: CustomRule<'_, Self>,
    ) -> Result<Self::V, Self::E>
    where
        Self: Sized,
    {
        let _ = (name, rule);
        fun(self, &args)
    }

    /// An elementwise primitive of two operands of one type and shape.
    fn binary(&mut self, p: Prim, x: Self::V, y: Self::V) -> Result<Self::V, Self::E> {
        self.bind(p, Params::None, vec![x, y])
    }

    /// `select_n(pred, cases..)`: `cases[pred]` elementwise.
    fn select_n(&mut self, pred: Self::V, cases: Vec<Self::V>) -> Result<Self::V, Self::E> {
        let mut ins = vec![pred];
        ins.extend(cases);
        self.bind(&prims::SELECT_N, Params::None, ins)
    }

    /// `convert_element_type`: `x` as `dtype`, with that weak flag.
    fn convert_element_type(
        &mut self,
        x: Self::V,
        dtype: DType,
        weak: bool,
    ) -> Result<Self::V, Self::E> {
        let params = Params::Convert {
            new_dtype: dtype,
            weak,
        };
        self.bind(&prims::CONVERT_ELEMENT_TYPE, params, vec![x])
    }

    /// `broadcast_in_dim`: `x`'s axis `k` becomes axis `dims[k]` of `shape`.
    fn broadcast_in_dim(
        &mut self,
        x: Self::V,
        shape: Vec<Dim>,
        dims: Vec<usize>,
    ) -> Result<Self::V, Self::E> {
        let params = Params::BroadcastInDim {
            shape,
            dims,
            np_ints: 0,
        };
        self.bind(&prims::BROADCAST_IN_DIM, params, vec![x])
    }

    /// A reduction (`reduce_sum`, `reduce_max`, ...) over `axes`.
    fn reduce(&mut self, p: Prim, x: Self::V, axes: Vec<usize>) -> Result<Self::V, Self::E> {
        self.bind(p, Params::Axes(axes, 0), vec![x])
    }

    /// `reshape` to `new_sizes`, the elements in row-major order.
    fn reshape(&mut self, x: Self::V, new_sizes: Vec<Dim>) -> Result<Self::V, Self::E> {
        self.bind(&prims::RESHAPE, Params::Reshape { new_sizes }, vec![x])
    }

    /// `transpose`: axis `k` of the result is axis `perm[k]` of `x`.
    fn transpose(&mut self, x: Self::V, perm: Vec<usize>) -> Result<Self::V, Self::E> {
        self.bind(&prims::TRANSPOSE, Params::Transpose { perm }, vec![x])
    }

    /// `concatenate` along `dim`.
    fn concatenate(&mut self, parts: Vec<Self::V>, dim: usize) -> Result<Self::V, Self::E> {
        self.bind(&prims::CONCATENATE, Params::Concatenate { dim }, parts)
    }

    /// `stack`: arrays of one shape joined along a new axis `axis`.
    fn stack(&mut self, parts: Vec<Self::V>, axis: usize) -> Result<Self::V, Self::E> {
        self.bind(&prims::STACK, Params::Stack { axis }, parts)
    }

    /// `integer_pow`: `x ** n` for a static integer `n`.
    fn integer_pow(&mut self, x: Self::V, n: i64) -> Result<Self::V, Self::E> {
        self.bind(&prims::INTEGER_POW, Params::IntegerPow(n), vec![x])
    }

    /// `dot_general` with its contracting and batch axes.
    fn dot_general(
        &mut self,
        x: Self::V,
        y: Self::V,
        contract: (Vec<usize>, Vec<usize>),
        batch: (Vec<usize>, Vec<usize>),
        preferred: DType,
    ) -> Result<Self::V, Self::E> {
        let params = Params::DotGeneral {
            lhs_contract: contract.0,
            rhs_contract: contract.1,
            lhs_batch: batch.0,
            rhs_batch: batch.1,
            preferred,
        };
        self.bind(&prims::DOT_GENERAL, params, vec![x, y])
    }

    /// A windowed reduction `p` (`reduce_window_sum`, `_max`, `_min`) of
    /// `x` over the checked window `w`.
    fn reduce_window(
        &mut self,
        p: Prim,
        x: Self::V,
        w: crate::ir::primitive::WindowParams,
    ) -> Result<Self::V, Self::E> {
        self.bind(p, Params::Window(w), vec![x])
    }

    /// `svd`: the singular values (descending), then `u` and `vt` with
    /// `compute_uv` (`full_matrices` for square factors).
    fn svd(
        &mut self,
        x: Self::V,
        full_matrices: bool,
        compute_uv: bool,
    ) -> Result<Vec<Self::V>, Self::E> {
        let params = Params::Svd {
            full_matrices,
            compute_uv,
        };
        self.bind_all(&prims::linalg::svd::SVD, params, vec![x])
    }

    /// A primitive without parameters, of any number of operands.
    fn apply(&mut self, p: Prim, ins: Vec<Self::V>) -> Result<Self::V, Self::E> {
        self.bind(p, Params::None, ins)
    }

    /// A primitive without parameters, of several results.
    fn apply_all(&mut self, p: Prim, ins: Vec<Self::V>) -> Result<Vec<Self::V>, Self::E> {
        self.bind_all(p, Params::None, ins)
    }

    /// `squeeze`: the size-1 axes `dims` removed.
    fn squeeze(&mut self, x: Self::V, dims: Vec<usize>) -> Result<Self::V, Self::E> {
        self.bind(&prims::SQUEEZE, Params::Squeeze { dims }, vec![x])
    }

    /// `slice` from `start` to `limit`, every `strides`-th element.
    fn slice(
        &mut self,
        x: Self::V,
        start: Vec<usize>,
        limit: Vec<usize>,
        strides: Option<Vec<usize>>,
    ) -> Result<Self::V, Self::E> {
        let params = Params::Slice {
            start,
            limit,
            strides,
        };
        self.bind(&prims::SLICE, params, vec![x])
    }

    /// `dynamic_slice`: a window of `sizes` at traced start indices.
    fn dynamic_slice(
        &mut self,
        x: Self::V,
        starts: Vec<Self::V>,
        sizes: Vec<usize>,
    ) -> Result<Self::V, Self::E> {
        let mut ins = vec![x];
        ins.extend(starts);
        self.bind(&prims::DYNAMIC_SLICE, Params::DynamicSlice { sizes }, ins)
    }

    /// `iota`: `0, 1, ..` along `dimension` of `shape`, as `dtype`.
    fn iota(
        &mut self,
        dtype: DType,
        shape: Vec<Dim>,
        dimension: usize,
    ) -> Result<Self::V, Self::E> {
        let params = Params::Iota {
            dtype,
            shape,
            dimension,
        };
        self.bind(&prims::IOTA, params, vec![])
    }

    /// `rev`: the axes `dims` reversed.
    fn rev(&mut self, x: Self::V, dims: Vec<usize>) -> Result<Self::V, Self::E> {
        self.bind(&prims::REV, Params::Rev { dims }, vec![x])
    }

    /// `tile`: `reps` copies along each axis.
    fn tile(&mut self, x: Self::V, reps: Vec<usize>) -> Result<Self::V, Self::E> {
        self.bind(&prims::TILE, Params::Tile { reps }, vec![x])
    }

    /// `round`: half away from zero (`0`) or half to even (`1`).
    fn round(&mut self, x: Self::V, method: u8) -> Result<Self::V, Self::E> {
        self.bind(&prims::ROUND, Params::Rounding(method), vec![x])
    }

    /// `cumsum`, `cumprod`, `cummax`, `cummin` (`p`) along `axis`.
    fn cumulative(
        &mut self,
        p: Prim,
        x: Self::V,
        axis: usize,
        reverse: bool,
    ) -> Result<Self::V, Self::E> {
        self.bind(p, Params::Cumulative { axis, reverse }, vec![x])
    }

    /// `argmax`/`argmin` (`p`) along `axis`, indices of `index_dtype`.
    fn arg_reduce(
        &mut self,
        p: Prim,
        x: Self::V,
        axis: usize,
        index_dtype: DType,
    ) -> Result<Self::V, Self::E> {
        let params = Params::ArgReduce {
            axis,
            index_dtype,
            np_int: false,
        };
        self.bind(p, params, vec![x])
    }

    /// `sort` of `operands` together along `dimension`, by the first
    /// `num_keys` of them.
    fn sort(
        &mut self,
        operands: Vec<Self::V>,
        dimension: usize,
        is_stable: bool,
        num_keys: usize,
    ) -> Result<Vec<Self::V>, Self::E> {
        let params = Params::Sort {
            dimension,
            is_stable,
            num_keys,
        };
        self.bind_all(&prims::SORT, params, operands)
    }

    /// `pad`: `(lo, hi, interior)` per axis, filled with the scalar
    /// `value`; `np_ints` marks the axes whose edges JAX holds as NumPy
    /// integers (bit `k` for axis `k`).
    fn pad(
        &mut self,
        x: Self::V,
        value: Self::V,
        config: Vec<(i64, i64, i64)>,
        np_ints: u32,
    ) -> Result<Self::V, Self::E> {
        self.bind(&prims::PAD, Params::Pad { config, np_ints }, vec![x, value])
    }

    /// `top_k`: the `k` largest along `axis`, and their indices.
    fn top_k(&mut self, x: Self::V, k: usize, axis: usize) -> Result<Vec<Self::V>, Self::E> {
        self.bind_all(&prims::TOP_K, Params::TopK { k, axis }, vec![x])
    }

    /// `gather` of `x` at `indices`.
    fn gather(
        &mut self,
        x: Self::V,
        indices: Self::V,
        g: GatherParams,
    ) -> Result<Self::V, Self::E> {
        self.bind(&prims::GATHER, Params::Gather(g), vec![x, indices])
    }

    /// A random sampler `p` (`random_bits`, `random_uniform`, ...) of a key:
    /// values of `shape` and `dtype`, within `bounds` where it has them.
    fn random(
        &mut self,
        p: Prim,
        key: Self::V,
        shape: Vec<Dim>,
        dtype: DType,
        bounds: Option<(f64, f64)>,
    ) -> Result<Self::V, Self::E> {
        let params = Params::Random {
            shape,
            dtype,
            bounds,
        };
        self.bind(p, params, vec![key])
    }

    /// `static_value`: a Rust expression of const generics (a size only
    /// rustc knows), as a scalar of `dtype`.
    fn static_value(&mut self, expr: String, dtype: DType) -> Result<Self::V, Self::E> {
        self.bind(&prims::STATIC_VALUE, Params::Symbol { expr, dtype }, vec![])
    }
}

/// A custom function's body (see [`Lax::custom_jvp`]): its output from its
/// inputs.
pub type CustomFun<'f, L> =
    &'f dyn Fn(&mut L, &[<L as Lax>::V]) -> Result<<L as Lax>::V, <L as Lax>::E>;

/// A custom function's derivative rule (JAX's `defjvp`): the output's
/// tangent from the primals, their tangents and the output.
pub type CustomRule<'f, L> = &'f dyn Fn(
    &mut L,
    &[<L as Lax>::V],
    &[<L as Lax>::V],
    <L as Lax>::V,
) -> Result<<L as Lax>::V, <L as Lax>::E>;

/// [`Lax`] by tracing: each bind an equation of the builder's jaxpr, at the
/// span of the user's expression.
pub struct Trace<'a> {
    pub b: &'a mut Builder,
    pub span: Span,
}

impl<'a> Trace<'a> {
    pub fn new(b: &'a mut Builder, span: Span) -> Trace<'a> {
        Trace { b, span }
    }

    /// A program of its own traced by `body` on fresh inputs of `avals`
    /// (a function of those alone: a custom function's body or rule).
    pub fn program(
        &mut self,
        avals: Vec<Aval>,
        body: impl FnOnce(&mut Self, Vec<Atom>) -> crate::Result<Vec<Atom>>,
    ) -> crate::Result<crate::ir::Jaxpr> {
        let mut sub = Builder::new(self.b.x64);
        sub.constraints = self.b.constraints.clone();
        let outer = std::mem::replace(self.b, sub);
        let inputs: Vec<Atom> = avals.into_iter().map(|a| self.b.input(a)).collect();
        let outs = body(self, inputs);
        let sub = std::mem::replace(self.b, outer);
        let mut j = sub.jaxpr;
        j.outvars = outs?;
        Ok(j)
    }
}

impl Lax for Trace<'_> {
    type V = Atom;
    type E = crate::Error;

    fn aval(&self, x: &Atom) -> Aval {
        self.b.aval(x)
    }

    fn x64(&self) -> bool {
        self.b.x64
    }

    fn literal(&mut self, value: Scalar, aval: Aval) -> Atom {
        literal(value, aval)
    }

    fn as_literal(&self, x: &Atom) -> Option<Literal> {
        match x {
            Atom::Lit(l) => Some(l.clone()),
            Atom::Var(_) => None,
        }
    }

    fn constraints(&mut self) -> &mut Constraints {
        &mut self.b.constraints
    }

    fn bind_all(&mut self, p: Prim, params: Params, ins: Vec<Atom>) -> crate::Result<Vec<Atom>> {
        self.b.bind(p, params, ins, self.span)
    }

    /// A `custom_jvp_call` of `fun`'s program and the program of its jvp
    /// (primals then tangents in; the output then its tangent out, the
    /// tangent of the output's type as JAX's rule's `astype`).
    fn custom_jvp(
        &mut self,
        name: &str,
        args: Vec<Atom>,
        fun: CustomFun<'_, Self>,
        rule: CustomRule<'_, Self>,
    ) -> crate::Result<Atom> {
        let avals: Vec<Aval> = args.iter().map(|a| self.b.aval(a)).collect();
        let n = avals.len();
        let fun_j = self.program(avals.clone(), |t, ins| Ok(vec![fun(t, &ins)?]))?;
        let mut both = avals.clone();
        both.extend(avals.iter().map(crate::ir::rules::tangent_aval));
        let jvp_j = self.program(both, |t, ins| {
            let out = fun(t, &ins[..n])?;
            let tan = rule(t, &ins[..n], &ins[n..], out.clone())?;
            let oa = t.aval(&out);
            let tan = crate::jnp::convert(t, tan, oa.dtype, false)?;
            let tan = if t.aval(&tan).shape != oa.shape {
                crate::jnp::broadcast_to(t, tan, oa.shape.clone())?
            } else {
                tan
            };
            Ok(vec![out, tan])
        })?;
        let params = Params::CustomJvp(crate::ir::primitive::Shared(std::rc::Rc::new(
            crate::ir::primitive::CustomJvp {
                name: name.to_string(),
                fun: fun_j,
                jvp: jvp_j,
            },
        )));
        Ok(self
            .b
            .bind(&prims::CUSTOM_JVP_CALL, params, args, self.span)?
            .remove(0))
    }

    fn error(&self, msg: String) -> crate::Error {
        crate::Error::new(self.span, msg)
    }

    fn expression_error(&self, msg: String) -> crate::Error {
        expression_error(self.span, msg)
    }
}

/// [`Lax`] for a primitive's rules: binds at the span of the equation the
/// rule rewrites, errors as the rule's message.
impl Lax for crate::ir::rules::Ctx<'_> {
    type V = Atom;
    type E = String;

    fn aval(&self, x: &Atom) -> Aval {
        self.b.aval(x)
    }

    fn x64(&self) -> bool {
        self.b.x64
    }

    fn literal(&mut self, value: Scalar, aval: Aval) -> Atom {
        literal(value, aval)
    }

    fn as_literal(&self, x: &Atom) -> Option<Literal> {
        match x {
            Atom::Lit(l) => Some(l.clone()),
            Atom::Var(_) => None,
        }
    }

    fn constraints(&mut self) -> &mut Constraints {
        &mut self.b.constraints
    }

    fn bind_all(&mut self, p: Prim, params: Params, ins: Vec<Atom>) -> Result<Vec<Atom>, String> {
        self.b
            .bind(p, params, ins, self.span)
            .map_err(|e| e.to_string())
    }

    fn error(&self, msg: String) -> String {
        msg
    }

    fn expression_error(&self, msg: String) -> String {
        msg
    }
}
