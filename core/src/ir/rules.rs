//! What a primitive's rules are given. [`Ctx`] emits equations at the
//! user's span (binding, literals, and in `prims/rules.rs` the helpers
//! rules read like math with: zeros, sums, unbroadcasting, selection); any
//! transformation's rules use it. [`Ad`] adds differentiation's own state.
//! Rules of primitives holding programs transform those programs through
//! [`Transforms`], which the transformation supplies, so that primitives
//! never depend on the transformations above them.

use std::ops::{Deref, DerefMut};

use jax_dtypes::DType;
use proc_macro2::Span;

use super::builder::{literal, Builder};
use super::primitive::{Params, Prim};
use super::{Atom, Aval, Dim, Jaxpr, Scalar};

/// Emits equations for a rule, at the span of the equation it rewrites.
pub struct Ctx<'a> {
    pub b: &'a mut Builder,
    pub span: Span,
}

impl<'a> Ctx<'a> {
    pub fn new(b: &'a mut Builder, span: Span) -> Ctx<'a> {
        Ctx { b, span }
    }

    pub fn aval(&self, a: &Atom) -> Aval {
        self.b.aval(a)
    }

    pub fn bind(&mut self, p: Prim, params: Params, ins: Vec<Atom>) -> Res<Atom> {
        self.b
            .bind1(p, params, ins, self.span)
            .map_err(|e| e.to_string())
    }

    /// A primitive of several results.
    pub fn bind_all(&mut self, p: Prim, params: Params, ins: Vec<Atom>) -> Res<Vec<Atom>> {
        self.b
            .bind(p, params, ins, self.span)
            .map_err(|e| e.to_string())
    }

    pub fn un(&mut self, p: Prim, x: Atom) -> Res<Atom> {
        self.bind(p, Params::None, vec![x])
    }

    pub fn bin(&mut self, p: Prim, x: Atom, y: Atom) -> Res<Atom> {
        self.bind(p, Params::None, vec![x, y])
    }

    /// A scalar of `like`'s dtype (never weak: tangents are typed).
    pub fn lit(&self, v: f64, like: &Atom) -> Atom {
        let d = self.aval(like).dtype;
        let value = match d {
            DType::Bool => Scalar::Bool(v != 0.0),
            d if d.is_inexact() => super::cast_scalar(Scalar::Float(v), d),
            _ => Scalar::Int(v as i128),
        };
        literal(value, Aval::scalar(d, false))
    }
}

/// A differentiation rule's context: a [`Ctx`], and forward and reverse
/// mode's state.
pub struct Ad<'a> {
    pub cx: Ctx<'a>,
    /// Reverse mode is linearizing: rules of primitives with nested
    /// programs emit their primal and tangent halves as two equations (the
    /// tangent one transposable), so that partial evaluation can split them.
    pub linearize: bool,
    /// Set by such a rule: the outputs that replace the primal equation's
    /// (which dead code elimination then removes).
    pub replaced_outs: Option<Vec<Atom>>,
    /// Differentiation of nested programs.
    pub transforms: &'static Transforms,
}

impl<'a> Ad<'a> {
    pub fn new(b: &'a mut Builder, span: Span, transforms: &'static Transforms) -> Ad<'a> {
        Ad {
            cx: Ctx { b, span },
            linearize: false,
            replaced_outs: None,
            transforms,
        }
    }
}

impl<'a> Deref for Ad<'a> {
    type Target = Ctx<'a>;
    fn deref(&self) -> &Ctx<'a> {
        &self.cx
    }
}

impl<'a> DerefMut for Ad<'a> {
    fn deref_mut(&mut self) -> &mut Ctx<'a> {
        &mut self.cx
    }
}

/// Where a value's batch axis is under `vmap`; `None` for a value every
/// lane shares.
pub type BDim = Option<usize>;

/// A batching rule: the results, each with where its batch axis is, from
/// the operands and where theirs are (at least one is batched).
pub type BatchRule =
    fn(&mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>>;

/// A batching rule's context: a [`Ctx`], the batch size, and `vmap` of the
/// programs a primitive holds.
pub struct Batch<'a> {
    pub cx: Ctx<'a>,
    /// The primitive of the equation being batched (family rules bind it
    /// again on moved operands).
    pub prim: Prim,
    /// The number of lanes.
    pub size: Dim,
    /// The mapped axis' name (`jax::vmap(f, .., axis_name)`), which
    /// collectives name to reduce or gather across the lanes.
    pub axis_name: Option<String>,
    pub vmap: VmapProgram,
}

/// `vmap` of a program (`transform::batching::vmap_program`): the batched
/// program and where its outputs' batch axes are, from where its inputs'
/// are; `out_dims` forces the outputs' (a loop's carry keeps its axis).
pub type VmapProgram = fn(
    j: &Jaxpr,
    in_dims: &[BDim],
    size: &Dim,
    axis_name: Option<&str>,
    out_dims: Option<&[BDim]>,
    x64: bool,
    span: Span,
) -> crate::Result<(Jaxpr, Vec<BDim>)>;

impl<'a> Deref for Batch<'a> {
    type Target = Ctx<'a>;
    fn deref(&self) -> &Ctx<'a> {
        &self.cx
    }
}

impl<'a> DerefMut for Batch<'a> {
    fn deref_mut(&mut self) -> &mut Ctx<'a> {
        &mut self.cx
    }
}

/// The differentiation transformations, as rules of loops, branches and
/// custom rules apply them to the programs they hold (`transform::ad`
/// supplies its own).
pub struct Transforms {
    /// Forward mode of a program (`transform::ad::jvp`).
    pub jvp: fn(&Jaxpr, &Wrt, bool, Span) -> crate::Result<Jaxpr>,
    /// Linearization and partial evaluation (`transform::ad::linearize`).
    pub linearize: fn(&Jaxpr, &[bool], bool, Span) -> crate::Result<Split>,
    /// The transpose of a linear program (`transform::ad::transpose`).
    pub transpose: TransposeProgram,
}

/// A linear program's transpose, from which inputs are linear and which
/// outputs receive a cotangent.
pub type TransposeProgram = fn(
    lin: &Jaxpr,
    linear_in: &[bool],
    ct_given: &[bool],
    x64: bool,
    span: Span,
) -> crate::Result<Jaxpr>;

/// A rule's error: a message, reported at the user's expression.
pub type Res<T> = std::result::Result<T, String>;

/// A forward-mode rule: the tangents of the outputs, from the operands, their
/// tangents (`None` is zero) and the outputs. Tangents must be linear in the
/// operand tangents, built from primitives with transpose rules, with every
/// nonlinear factor a function of primals only.
pub type JvpRule = fn(
    &mut Ad,
    ins: &[Atom],
    tangents: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>>;

/// A transpose rule of a linear primitive: the cotangent of each linear
/// operand from the outputs' cotangents (`None`: no cotangent reaches it). `ins` holds the primal operands
/// (`None` for the linear ones, which have no value), `avals` every
/// operand's abstract value.
pub type TransposeRule = fn(
    &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>>;

/// Which outputs and inputs a derivative program covers.
pub struct Wrt {
    /// Per input of the function: differentiate with respect to it.
    pub inputs: Vec<bool>,
}

/// A tangent's abstract value: the primal's, never weak.
pub fn tangent_aval(a: &Aval) -> Aval {
    Aval {
        weak: false,
        ..a.clone()
    }
}

/// The cotangent of a single-output primitive (rules run only when one
/// reaches it).
pub fn single_ct(cts: &[Option<Atom>]) -> Atom {
    cts[0].clone().expect("transposed only with a cotangent")
}

/// A linearized program split by partial evaluation (JAX's
/// `partial_eval_jaxpr_nounits`): `known` maps the primal inputs to the
/// primal outputs, then the residuals; `linear` maps the residuals, then
/// the tangent inputs, to a tangent per output, linearly in the tangents.
pub struct Split {
    pub known: Jaxpr,
    pub linear: Jaxpr,
    pub n_res: usize,
}
