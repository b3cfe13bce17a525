//! Automatic differentiation on jaxprs, as JAX does it (`ad.py`,
//! autodidax): forward mode runs each primitive's jvp rule beside it;
//! reverse mode is forward mode, then partial evaluation (equations that
//! touch a tangent are linear, the rest is the forward pass), then the
//! linear equations transposed in reverse order. Every transformation
//! returns a jaxpr, so derivatives go through simplify, fusion and emission
//! like any function. The rules live with their primitives (`prims/`).

use std::collections::{HashMap, HashSet};

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::ir::builder::{literal, Builder};
use crate::ir::{Atom, Aval, Dim, Jaxpr, Scalar, Var};
use crate::prims::{self, Params, Prim};

/// A rule's error: a message, reported at the user's expression.
pub type Res<T> = std::result::Result<T, String>;

/// What rules emit equations with.
pub struct Ad<'a> {
    pub b: &'a mut Builder,
    pub span: Span,
    /// Reverse mode is linearizing: rules of primitives with nested
    /// programs emit their primal and tangent halves as two equations (the
    /// tangent one transposable), so that partial evaluation can split them.
    pub linearize: bool,
    /// Set by such a rule: the outputs that replace the primal equation's
    /// (which dead code elimination then removes).
    pub replaced_outs: Option<Vec<Atom>>,
}

impl Ad<'_> {
    pub fn new(b: &mut Builder, span: Span) -> Ad<'_> {
        Ad {
            b,
            span,
            linearize: false,
            replaced_outs: None,
        }
    }

    pub fn aval(&self, a: &Atom) -> Aval {
        self.b.aval(a)
    }

    pub fn bind(&mut self, p: Prim, params: Params, ins: Vec<Atom>) -> Res<Atom> {
        self.b
            .bind1(p, params, ins, self.span)
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
            d if d.is_float() => crate::frontend::jnp::cast_scalar(Scalar::Float(v), d),
            _ => Scalar::Int(v as i128),
        };
        literal(value, Aval::scalar(d, false))
    }

    pub fn mul(&mut self, x: Atom, y: Atom) -> Res<Atom> {
        self.bin(&prims::MUL, x, y)
    }

    pub fn add(&mut self, x: Atom, y: Atom) -> Res<Atom> {
        self.bin(&prims::ADD_ANY, x, y)
    }

    pub fn neg(&mut self, x: Atom) -> Res<Atom> {
        self.un(&prims::NEG, x)
    }

    pub fn div(&mut self, x: Atom, y: Atom) -> Res<Atom> {
        self.bin(&prims::DIV, x, y)
    }

    /// `t * c` for a tangent `t` and a primal factor `c`.
    pub fn scale(&mut self, t: &Option<Atom>, c: Atom) -> Res<Option<Atom>> {
        match t {
            Some(t) => Ok(Some(self.mul(t.clone(), c)?)),
            None => Ok(None),
        }
    }

    /// The sum of the present terms (None when there are none).
    pub fn sum(&mut self, terms: Vec<Option<Atom>>) -> Res<Option<Atom>> {
        let mut acc: Option<Atom> = None;
        for t in terms.into_iter().flatten() {
            acc = Some(match acc {
                None => t,
                Some(a) => self.add(a, t)?,
            });
        }
        Ok(acc)
    }

    /// An array of zeros of this abstract value.
    pub fn zeros(&mut self, aval: &Aval) -> Res<Atom> {
        self.full(0.0, aval)
    }

    /// An array of `aval`'s shape filled with `v`.
    pub fn full(&mut self, v: f64, aval: &Aval) -> Res<Atom> {
        let z = literal(
            match aval.dtype {
                DType::Bool => Scalar::Bool(v != 0.0),
                d if d.is_float() => Scalar::Float(v),
                _ => Scalar::Int(v as i128),
            },
            Aval::scalar(aval.dtype, false),
        );
        if aval.rank() == 0 {
            return Ok(z);
        }
        self.bind(
            &prims::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape: aval.shape.clone(),
                dims: Vec::new(),
            },
            vec![z],
        )
    }

    /// `ct` summed down to `target`'s shape: the transpose of an elementwise
    /// operand's implicit broadcasting (rank 0, or size-1 axes).
    pub fn unbroadcast(&mut self, ct: Atom, target: &Aval) -> Res<Atom> {
        let have = self.aval(&ct);
        if have.shape == target.shape {
            return Ok(ct);
        }
        if target.rank() == 0 {
            let all: Vec<usize> = (0..have.rank()).collect();
            return self.bind(&prims::REDUCE_SUM, Params::Axes(all), vec![ct]);
        }
        let one = Dim::Lit(1);
        let axes: Vec<usize> = (0..have.rank())
            .filter(|&k| target.shape[k] == one && have.shape[k] != one)
            .collect();
        let summed = self.bind(&prims::REDUCE_SUM, Params::Axes(axes), vec![ct])?;
        self.bind(
            &prims::RESHAPE,
            Params::Reshape {
                new_sizes: target.shape.clone(),
            },
            vec![summed],
        )
    }

    /// `x` converted to `dtype`.
    pub fn convert(&mut self, x: Atom, dtype: DType) -> Res<Atom> {
        if self.aval(&x).dtype == dtype {
            return Ok(x);
        }
        self.bind(
            &prims::CONVERT_ELEMENT_TYPE,
            Params::Convert {
                new_dtype: dtype,
                weak: false,
            },
            vec![x],
        )
    }

    /// The tangent of `x`, or zeros of its type where it has none (rules
    /// that must pass every tangent along: loops, branches, concatenation).
    pub fn tangent_or_zeros(&mut self, t: &Option<Atom>, x: &Atom) -> Res<Atom> {
        match t {
            Some(t) => Ok(t.clone()),
            None => {
                let a = tangent_aval(&self.aval(x));
                self.zeros(&a)
            }
        }
    }

    /// `select_n(pred, on_false, on_true)`.
    pub fn select(&mut self, pred: Atom, on_false: Atom, on_true: Atom) -> Res<Atom> {
        self.bind(
            &prims::SELECT_N,
            Params::None,
            vec![pred, on_false, on_true],
        )
    }
}

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

fn rule_error(span: Span, msg: String) -> syn::Error {
    crate::ir::builder::expression_error(span, msg)
}

/// Copies the constants of `j` into `b`.
fn copy_constants(j: &Jaxpr, b: &mut Builder, env: &mut HashMap<Var, Atom>) {
    for (v, values) in &j.constvars {
        let a = b.constant(j.aval(*v).clone(), values.clone());
        env.insert(*v, a);
    }
}

fn read(env: &HashMap<Var, Atom>, a: &Atom) -> Atom {
    match a {
        Atom::Var(v) => env[v].clone(),
        lit => lit.clone(),
    }
}

/// The primal equations of `j` with their jvp rules, into `b`: returns the
/// primal outputs and their tangents. `inputs` are `j`'s inputs in `b`,
/// `tangents` theirs.
fn jvp_into(
    j: &Jaxpr,
    b: &mut Builder,
    inputs: &[Atom],
    tangents: &[Option<Atom>],
    linearize: bool,
) -> syn::Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let mut env: HashMap<Var, Atom> = HashMap::new();
    let mut tan: HashMap<Var, Atom> = HashMap::new();
    copy_constants(j, b, &mut env);
    for ((v, a), t) in j.invars.iter().zip(inputs).zip(tangents) {
        env.insert(*v, a.clone());
        if let Some(t) = t {
            tan.insert(*v, t.clone());
        }
    }
    for e in &j.eqns {
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
        let tins: Vec<Option<Atom>> = e
            .ins
            .iter()
            .map(|a| match a {
                Atom::Var(v) => tan.get(v).cloned(),
                Atom::Lit(_) => None,
            })
            .collect();
        let outs = b.bind(e.prim, e.params.clone(), ins.clone(), e.span)?;
        for (v, a) in e.outs.iter().zip(&outs) {
            env.insert(*v, a.clone());
        }
        if tins.iter().all(Option::is_none) {
            continue;
        }
        let Some(rule) = e.prim.jvp else {
            return Err(rule_error(
                e.span,
                format!("differentiating `{}` is not supported yet", e.prim.name),
            ));
        };
        let mut ad = Ad {
            b,
            span: e.span,
            linearize,
            replaced_outs: None,
        };
        let touts =
            rule(&mut ad, &ins, &tins, &e.params, &outs).map_err(|m| rule_error(e.span, m))?;
        if let Some(new) = ad.replaced_outs.take() {
            for (v, a) in e.outs.iter().zip(new) {
                env.insert(*v, a);
            }
        }
        for (v, t) in e.outs.iter().zip(touts) {
            if let Some(t) = t {
                tan.insert(*v, t);
            }
        }
    }
    let outs: Vec<Atom> = j.outvars.iter().map(|a| read(&env, a)).collect();
    let touts = j
        .outvars
        .iter()
        .map(|a| match a {
            Atom::Var(v) => tan.get(v).cloned(),
            Atom::Lit(_) => None,
        })
        .collect();
    Ok((outs, touts))
}

/// Zeros where a tangent or cotangent is absent.
fn or_zeros(b: &mut Builder, t: Option<Atom>, aval: &Aval, span: Span) -> syn::Result<Atom> {
    match t {
        Some(t) => Ok(t),
        None => {
            let mut ad = Ad::new(b, span);
            ad.zeros(&tangent_aval(aval))
                .map_err(|m| rule_error(span, m))
        }
    }
}

/// A tangent's abstract value: the primal's, never weak.
pub fn tangent_aval(a: &Aval) -> Aval {
    Aval {
        weak: false,
        ..a.clone()
    }
}

/// Forward mode: a jaxpr taking the primals, then a tangent per input in
/// `wrt`, and returning the outputs, then their tangents.
pub fn jvp(j: &Jaxpr, wrt: &Wrt, x64: bool, span: Span) -> syn::Result<Jaxpr> {
    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = j
        .invars
        .iter()
        .map(|v| b.input(j.aval(*v).clone()))
        .collect();
    let tangents: Vec<Option<Atom>> = j
        .invars
        .iter()
        .zip(&wrt.inputs)
        .map(|(v, &w)| w.then(|| b.input(tangent_aval(j.aval(*v)))))
        .collect();
    // Integer inputs take a tangent (the signature asks for one) but have no
    // derivative.
    let used: Vec<Option<Atom>> = tangents
        .iter()
        .map(|t| t.clone().filter(|t| b.aval(t).dtype.is_float()))
        .collect();
    let (outs, touts) = jvp_into(j, &mut b, &inputs, &used, false)?;
    if let Some(e) = b
        .jaxpr
        .eqns
        .iter()
        .find(|e| e.prim.name == "custom_vjp_lin")
    {
        return Err(rule_error(
            e.span,
            "can't apply forward-mode autodiff (jvp) to a custom_vjp function.".into(),
        ));
    }
    let mut outvars = outs.clone();
    for (o, t) in outs.iter().zip(touts) {
        let aval = b.aval(o);
        outvars.push(or_zeros(&mut b, t, &aval, span)?);
    }
    b.jaxpr.outvars = outvars;
    Ok(b.jaxpr)
}

/// How reverse mode seeds the output cotangents.
pub enum Seed {
    /// One cotangent input per output, after the primals (`vjp`).
    Inputs,
    /// The single (scalar) output's cotangent is 1 (`grad`).
    One,
}

/// Reverse mode: a jaxpr taking the primals (then the output cotangents, for
/// [`Seed::Inputs`]) and returning the outputs, then the cotangent of every
/// input in `wrt`. The forward equations come first, then the transposed
/// linear ones.
pub fn vjp(j: &Jaxpr, wrt: &Wrt, seed: Seed, x64: bool, span: Span) -> syn::Result<Jaxpr> {
    let has_tangent: Vec<bool> = j
        .invars
        .iter()
        .zip(&wrt.inputs)
        .map(|(v, &w)| w && j.aval(*v).dtype.is_float())
        .collect();
    let split = linearize(j, &has_tangent, x64, span)?;
    let n_out = j.outvars.len();
    let mut linear_in = vec![false; split.n_res];
    linear_in.extend(has_tangent.iter().filter(|&&t| t).map(|_| true));
    let ct_given: Vec<bool> = match seed {
        Seed::Inputs => vec![true; n_out],
        Seed::One => (0..n_out).map(|k| k == 0).collect(),
    };
    let back = transpose(&split.linear, &linear_in, &ct_given, x64, span)?;

    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = j
        .invars
        .iter()
        .map(|v| b.input(j.aval(*v).clone()))
        .collect();
    let known = inline(&mut b, &split.known, &inputs)?;
    let (primal_outs, residuals) = known.split_at(n_out);
    let mut args = residuals.to_vec();
    match seed {
        Seed::Inputs => {
            for o in primal_outs {
                let aval = tangent_aval(&b.aval(o));
                args.push(b.input(aval));
            }
        }
        Seed::One => {
            let aval = tangent_aval(&b.aval(&primal_outs[0]));
            let one = Ad::new(&mut b, span)
                .full(1.0, &aval)
                .map_err(|m| rule_error(span, m))?;
            args.push(one);
        }
    }
    let mut in_cts = inline(&mut b, &back, &args)?.into_iter();
    let mut outvars = primal_outs.to_vec();
    for (i, v) in j.invars.iter().enumerate() {
        if !wrt.inputs[i] {
            continue;
        }
        let c = if has_tangent[i] { in_cts.next() } else { None };
        outvars.push(or_zeros(&mut b, c, j.aval(*v), span)?);
    }
    b.jaxpr.outvars = outvars;
    Ok(b.jaxpr)
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

/// Linearizes `j` at its inputs: forward mode with a tangent input for each
/// input in `has_tangent`, then partial evaluation (an equation reading a
/// tangent is linear, the rest is the forward pass). Residuals are the
/// forward values the linear equations read.
pub fn linearize(j: &Jaxpr, has_tangent: &[bool], x64: bool, span: Span) -> syn::Result<Split> {
    let mut lin = Builder::new(x64);
    let inputs: Vec<Atom> = j
        .invars
        .iter()
        .map(|v| lin.input(j.aval(*v).clone()))
        .collect();
    let tangent_ins: Vec<Atom> = j
        .invars
        .iter()
        .zip(has_tangent)
        .filter(|(_, &t)| t)
        .map(|(v, _)| lin.input(tangent_aval(j.aval(*v))))
        .collect();
    let mut given = tangent_ins.iter();
    let tangents: Vec<Option<Atom>> = j
        .invars
        .iter()
        .zip(has_tangent)
        .map(|(v, &t)| {
            let a = if t { given.next().cloned() } else { None };
            // Integer inputs take a tangent but have no derivative.
            a.filter(|_| j.aval(*v).dtype.is_float())
        })
        .collect();
    let (outs, touts) = jvp_into(j, &mut lin, &inputs, &tangents, true)?;
    let lj = lin.jaxpr;
    let var = |a: &Atom| match a {
        Atom::Var(v) => *v,
        Atom::Lit(_) => unreachable!("inputs are variables"),
    };
    let mut linear: HashSet<Var> = tangent_ins.iter().map(var).collect();
    let is_linear = mark_linear(&lj, &mut linear);
    let consts: HashMap<Var, &Vec<Scalar>> = lj.constvars.iter().map(|(v, x)| (*v, x)).collect();

    // The forward pass.
    let mut kb = Builder::new(x64);
    let mut env: HashMap<Var, Atom> = HashMap::new();
    for a in &inputs {
        env.insert(var(a), kb.input(lj.atom_aval(a).clone()));
    }
    for (v, values) in &lj.constvars {
        env.insert(*v, kb.constant(lj.aval(*v).clone(), values.clone()));
    }
    for (k, e) in lj.eqns.iter().enumerate() {
        if is_linear[k] {
            continue;
        }
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
        let new = kb.bind(e.prim, e.params.clone(), ins, e.span)?;
        for (v, a) in e.outs.iter().zip(new) {
            env.insert(*v, a);
        }
    }

    // The residuals: forward variables the linear side reads.
    let mut residuals: Vec<Var> = Vec::new();
    let mut is_residual: HashSet<Var> = HashSet::new();
    let linear_reads = lj
        .eqns
        .iter()
        .zip(&is_linear)
        .filter(|(_, &l)| l)
        .flat_map(|(e, _)| e.ins.iter())
        .chain(touts.iter().flatten());
    for a in linear_reads {
        if let Atom::Var(v) = a {
            if !linear.contains(v) && !consts.contains_key(v) && is_residual.insert(*v) {
                residuals.push(*v);
            }
        }
    }

    // The linear side, on the residuals and the tangents.
    let mut lb = Builder::new(x64);
    let mut lenv: HashMap<Var, Atom> = HashMap::new();
    for v in &residuals {
        lenv.insert(*v, lb.input(lj.aval(*v).clone()));
    }
    for a in &tangent_ins {
        lenv.insert(var(a), lb.input(lj.atom_aval(a).clone()));
    }
    for (v, values) in &lj.constvars {
        lenv.insert(*v, lb.constant(lj.aval(*v).clone(), values.clone()));
    }
    for (k, e) in lj.eqns.iter().enumerate() {
        if !is_linear[k] {
            continue;
        }
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&lenv, a)).collect();
        let new = lb.bind(e.prim, e.params.clone(), ins, e.span)?;
        for (v, a) in e.outs.iter().zip(new) {
            lenv.insert(*v, a);
        }
    }
    let mut louts = Vec::new();
    for (o, t) in outs.iter().zip(touts) {
        let t = t.map(|t| read(&lenv, &t));
        louts.push(or_zeros(&mut lb, t, lj.atom_aval(o), span)?);
    }
    lb.jaxpr.outvars = louts;

    // A primal output computed on the linear side comes from an equation
    // whose tangent half could not be split off.
    for o in &outs {
        if let Atom::Var(v) = o {
            if let Some(e) = lj
                .eqns
                .iter()
                .find(|e| e.outs.contains(v) && linear.contains(v))
            {
                return Err(rule_error(e.span, not_transposable(e)));
            }
        }
    }
    kb.jaxpr.outvars = outs
        .iter()
        .map(|a| read(&env, a))
        .chain(residuals.iter().map(|v| env[v].clone()))
        .collect();
    Ok(Split {
        known: kb.jaxpr,
        linear: lb.jaxpr,
        n_res: residuals.len(),
    })
}

/// Partial evaluation's split: an equation reading a linear value is
/// linear, and so are its results (added to `linear`).
fn mark_linear(j: &Jaxpr, linear: &mut HashSet<Var>) -> Vec<bool> {
    j.eqns
        .iter()
        .map(|e| {
            let l = e
                .ins
                .iter()
                .any(|a| matches!(a, Atom::Var(v) if linear.contains(v)));
            if l {
                linear.extend(e.outs.iter().copied());
            }
            l
        })
        .collect()
}

/// Why a linear equation can't be transposed.
fn not_transposable(e: &crate::ir::Eqn) -> String {
    // A `fori_loop` with traced bounds is a `while`, as in JAX.
    if e.prim.name == "while" {
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.".to_string()
    } else {
        format!(
            "reverse-mode differentiation of `{}` is not supported yet (forward mode, `jvp`, is)",
            e.prim.name
        )
    }
}

/// The transpose of a program linear in the inputs marked `linear_in`: a
/// jaxpr taking the other inputs (in order), then a cotangent for each
/// output in `ct_given`, and returning the cotangent of each linear input
/// (zeros where none reaches it). Equations that read no linear value run
/// forward first; the linear ones are transposed last first.
pub fn transpose(
    lin: &Jaxpr,
    linear_in: &[bool],
    ct_given: &[bool],
    x64: bool,
    span: Span,
) -> syn::Result<Jaxpr> {
    let mut b = Builder::new(x64);
    let mut env: HashMap<Var, Atom> = HashMap::new();
    copy_constants(lin, &mut b, &mut env);
    let mut linear: HashSet<Var> = HashSet::new();
    for (v, &l) in lin.invars.iter().zip(linear_in) {
        if l {
            linear.insert(*v);
        } else {
            env.insert(*v, b.input(lin.aval(*v).clone()));
        }
    }
    let is_linear = mark_linear(lin, &mut linear);
    for (k, e) in lin.eqns.iter().enumerate() {
        if !is_linear[k] {
            let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
            let new = b.bind(e.prim, e.params.clone(), ins, e.span)?;
            for (v, a) in e.outs.iter().zip(new) {
                env.insert(*v, a);
            }
        }
    }
    let mut ct: HashMap<Var, Atom> = HashMap::new();
    for (o, &given) in lin.outvars.iter().zip(ct_given) {
        if !given {
            continue;
        }
        let c = b.input(tangent_aval(lin.atom_aval(o)));
        if let Atom::Var(v) = o {
            if linear.contains(v) {
                accumulate(&mut b, &mut ct, *v, c, span)?;
            }
        }
    }
    for (k, e) in lin.eqns.iter().enumerate().rev() {
        if !is_linear[k] {
            continue;
        }
        let cts: Vec<Option<Atom>> = e.outs.iter().map(|v| ct.remove(v)).collect();
        if cts.iter().all(Option::is_none) {
            continue;
        }
        let Some(rule) = e.prim.transpose else {
            return Err(rule_error(e.span, not_transposable(e)));
        };
        let ins: Vec<Option<Atom>> = e
            .ins
            .iter()
            .map(|a| match a {
                Atom::Var(v) if linear.contains(v) => None,
                a => Some(read(&env, a)),
            })
            .collect();
        let avals: Vec<Aval> = e.ins.iter().map(|a| lin.atom_aval(a).clone()).collect();
        let mut ad = Ad::new(&mut b, e.span);
        let in_cts =
            rule(&mut ad, &cts, &ins, &avals, &e.params).map_err(|m| rule_error(e.span, m))?;
        for (a, c) in e.ins.iter().zip(in_cts) {
            if let (Atom::Var(v), Some(c)) = (a, c) {
                if linear.contains(v) {
                    accumulate(&mut b, &mut ct, *v, c, e.span)?;
                }
            }
        }
    }
    let mut outvars = Vec::new();
    for (v, &l) in lin.invars.iter().zip(linear_in) {
        if l {
            let c = ct.remove(v);
            outvars.push(or_zeros(&mut b, c, lin.aval(*v), span)?);
        }
    }
    b.jaxpr.outvars = outvars;
    Ok(b.jaxpr)
}

/// The cotangent of a single-output primitive (rules run only when one
/// reaches it).
pub fn single_ct(cts: &[Option<Atom>]) -> Atom {
    cts[0].clone().expect("transposed only with a cotangent")
}

/// Adds a cotangent contribution for `v`.
fn accumulate(
    b: &mut Builder,
    ct: &mut HashMap<Var, Atom>,
    v: Var,
    c: Atom,
    span: Span,
) -> syn::Result<()> {
    let c = match ct.remove(&v) {
        None => c,
        Some(prev) => Ad::new(b, span)
            .add(prev, c)
            .map_err(|m| rule_error(span, m))?,
    };
    ct.insert(v, c);
    Ok(())
}

/// Binds the equations of `j` into `b`, with `args` for its inputs: the
/// outputs, as atoms of `b`. (Transformations build new jaxprs; this puts
/// one inside another.)
pub fn inline(b: &mut Builder, j: &Jaxpr, args: &[Atom]) -> syn::Result<Vec<Atom>> {
    let mut env: HashMap<Var, Atom> = HashMap::new();
    copy_constants(j, b, &mut env);
    for (v, a) in j.invars.iter().zip(args) {
        env.insert(*v, a.clone());
    }
    for e in &j.eqns {
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
        let outs = b.bind(e.prim, e.params.clone(), ins, e.span)?;
        for (v, a) in e.outs.iter().zip(outs) {
            env.insert(*v, a);
        }
    }
    Ok(j.outvars.iter().map(|a| read(&env, a)).collect())
}

/// The number of elements of a shape whose dimensions are all numbers.
fn static_size(shape: &[Dim], span: Span, what: &str) -> syn::Result<usize> {
    shape.iter().try_fold(1usize, |acc, d| match d {
        Dim::Lit(n) => Ok(acc * n),
        Dim::Sym(s) => Err(rule_error(
            span,
            format!("{what} needs shapes known when the function compiles; `{s}` is a symbol"),
        )),
    })
}

/// A one-hot constant array of `aval`'s shape: 1 at flat index `k`.
fn one_hot(b: &mut Builder, aval: &Aval, k: usize, n: usize) -> Atom {
    let zero = if aval.dtype.is_float() {
        Scalar::Float(0.0)
    } else {
        Scalar::Int(0)
    };
    let one = if aval.dtype.is_float() {
        Scalar::Float(1.0)
    } else {
        Scalar::Int(1)
    };
    let values = (0..n).map(|i| if i == k { one } else { zero }).collect();
    b.constant(tangent_aval(aval), values)
}

/// `parts` (each of shape `part`) stacked into `lead ++ part` when
/// `stack_first`, or `part ++ lead`... as the Jacobian layouts need: rows
/// of a reverse-mode Jacobian are stacked in front, columns of a
/// forward-mode one behind. `lead` is the shape the parts are indexed by.
fn stack(
    b: &mut Builder,
    parts: Vec<Atom>,
    part: &[Dim],
    lead: &[Dim],
    stack_first: bool,
    span: Span,
) -> syn::Result<Atom> {
    let mut ad = Ad::new(b, span);
    let err = |m: String| rule_error(span, m);
    let (one_shape, axis): (Vec<Dim>, usize) = if stack_first {
        let mut s = vec![Dim::Lit(1)];
        s.extend_from_slice(part);
        (s, 0)
    } else {
        let mut s = part.to_vec();
        s.push(Dim::Lit(1));
        let axis = part.len();
        (s, axis)
    };
    let expanded: Vec<Atom> = parts
        .into_iter()
        .map(|p| {
            ad.bind(
                &prims::RESHAPE,
                Params::Reshape {
                    new_sizes: one_shape.clone(),
                },
                vec![p],
            )
        })
        .collect::<Res<_>>()
        .map_err(err)?;
    let joined = if expanded.len() == 1 {
        expanded.into_iter().next().unwrap()
    } else {
        ad.bind(
            &prims::CONCATENATE,
            Params::Concatenate { dim: axis },
            expanded,
        )
        .map_err(err)?
    };
    let mut shape: Vec<Dim> = Vec::new();
    if stack_first {
        shape.extend_from_slice(lead);
        shape.extend_from_slice(part);
    } else {
        shape.extend_from_slice(part);
        shape.extend_from_slice(lead);
    }
    ad.bind(
        &prims::RESHAPE,
        Params::Reshape { new_sizes: shape },
        vec![joined],
    )
    .map_err(err)
}

/// `jax.jacrev` with respect to input `arg`: a jaxpr of the same inputs
/// returning the Jacobian `out_shape ++ in_shape`, one pullback per output
/// element (unrolled: shapes are static).
pub fn jacrev(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> syn::Result<Jaxpr> {
    jacobian(j, arg, false, x64, span)
}

/// `jax.jacfwd` with respect to input `arg`: the Jacobian `out_shape ++
/// in_shape`, one jvp per input element.
pub fn jacfwd(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> syn::Result<Jaxpr> {
    jacobian(j, arg, true, x64, span)
}

/// The Jacobian of the first output with respect to input `arg`, built from
/// one jvp per input element (`forward`) or one pullback per output element,
/// each fed a one-hot seed and stacked into `out_shape ++ in_shape`.
fn jacobian(j: &Jaxpr, arg: usize, forward: bool, x64: bool, span: Span) -> syn::Result<Jaxpr> {
    let mut wrt = vec![false; j.invars.len()];
    wrt[arg] = true;
    let wrt = Wrt { inputs: wrt };
    let (linear, what) = if forward {
        (jvp(j, &wrt, x64, span)?, "jacfwd")
    } else {
        (vjp(j, &wrt, Seed::Inputs, x64, span)?, "jacrev")
    };
    let in_aval = j.aval(j.invars[arg]).clone();
    let out_aval = j.atom_aval(&j.outvars[0]).clone();
    // Forward seeds the input and yields columns; reverse seeds the output
    // and yields rows.
    let (seed_aval, part, lead) = if forward {
        (&in_aval, &out_aval.shape, &in_aval.shape)
    } else {
        (&out_aval, &in_aval.shape, &out_aval.shape)
    };
    let n = static_size(&seed_aval.shape, span, what)?;
    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = j
        .invars
        .iter()
        .map(|v| b.input(j.aval(*v).clone()))
        .collect();
    let mut parts = Vec::new();
    for k in 0..n {
        let seed = one_hot(&mut b, seed_aval, k, n);
        let mut args = inputs.clone();
        args.push(seed);
        let outs = inline(&mut b, &linear, &args)?;
        parts.push(outs[j.outvars.len()].clone());
    }
    let jac = stack(&mut b, parts, part, lead, !forward, span)?;
    b.jaxpr.outvars = vec![jac];
    Ok(b.jaxpr)
}

/// The gradient program: same inputs, the gradient with respect to input
/// `arg` of the (scalar) first output.
pub fn grad(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> syn::Result<Jaxpr> {
    let mut wrt = vec![false; j.invars.len()];
    wrt[arg] = true;
    let mut g = vjp(j, &Wrt { inputs: wrt }, Seed::One, x64, span)?;
    let n_out = j.outvars.len();
    g.outvars.drain(..n_out);
    Ok(g)
}

/// `jax.hessian`: `jacfwd(grad(f))`.
pub fn hessian(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> syn::Result<Jaxpr> {
    let g = grad(j, arg, x64, span)?;
    jacfwd(&g, arg, x64, span)
}
