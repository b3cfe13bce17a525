//! `custom_jvp_call` and `custom_vjp_call`: functions of the mod with their
//! own derivative rules (`#[custom_jvp(rule)]`, `#[custom_vjp(fwd, bwd)]`).
//! Each computes as its body. A custom_jvp rule replaces the body's jvp
//! (and so reverse mode, which linearizes forward mode); a custom_vjp
//! function linearizes to a primitive whose transpose is `bwd`, as JAX's
//! `custom_vjp` does, and has no forward mode.

use super::{Ad, BDim, Batch, JvpRule, Res};
use super::{Lowering, Params, PrimDef};
use crate::ir::primitive::{CustomJvp, CustomVjp, Printed, Shared, NESTED};
use crate::ir::{Atom, Aval, Jaxpr};

fn custom_jvp_rule(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::CustomJvp(c) = p else {
        unreachable!()
    };
    if c.0.jvp.outvars.is_empty() {
        return Err(no_rule("custom_jvp", &c.0.name));
    }
    let mut args = ins.to_vec();
    for (x, tx) in ins.iter().zip(t) {
        args.push(ad.tangent_or_zeros(tx, x)?);
    }
    let outs = ad.b.inline(&c.0.jvp, &args).map_err(|e| e.to_string())?;
    let n = c.0.fun.outvars.len();
    Ok(outs[n..].iter().cloned().map(Some).collect())
}

/// The error differentiating an imported custom function whose rule the
/// jaxpr text could not carry.
fn no_rule(kind: &str, name: &str) -> String {
    format!("`{name}` has a {kind} rule written in Python, which jaxpr text does not carry: an imported program differentiates through it only for JAX's own functions (relu, relu6, logaddexp, logaddexp2, xlogy, xlog1py, logit); differentiate in Python and export the derivative, or write the function in Rust")
}

/// A custom call's body as JAX prints it: `call_jaxpr`, on its own inputs.
fn call_jaxpr_printed<'a>(fun: &'a Jaxpr, ins: &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>) {
    let printed = Printed {
        name: "call_jaxpr",
        programs: vec![(fun, fun.invars.clone())],
        tuple: false,
        alias: false,
    };
    (vec![printed], ins.to_vec())
}

pub static CUSTOM_JVP_CALL: PrimDef = PrimDef {
    name: "custom_jvp_call",
    abstract_eval: |_, p, _| match p {
        Params::CustomJvp(c) => Ok(c
            .0
            .fun
            .outvars
            .iter()
            .map(|a| c.0.fun.atom_aval(a).clone())
            .collect::<Vec<Aval>>()),
        _ => Err("custom_jvp_call needs its function".into()),
    },
    // As JAX prints it; `f::jaxpr()` shows the body instead
    // (`inline_for_printing`), as ours has no Python rule to name.
    print_params: |_, p| match p {
        Params::CustomJvp(c) => vec![
            ("name", c.0.name.clone()),
            ("call_jaxpr", NESTED.into()),
            ("jvp", "jvp".into()),
            ("symbolic_zeros", "False".into()),
        ],
        _ => Vec::new(),
    },
    // The rule is Python code the text only names: JAX's own functions'
    // rules are ours (`known_custom_jvp`); another's derivative is a
    // compile error, its value is the body's.
    parse_params: |r, _, _| {
        let name = r.name("name")?;
        let fun = r.jaxpr("call_jaxpr")?;
        r.ignore("jvp");
        r.ignore("symbolic_zeros");
        r.ignore("num_consts");
        let jvp = (r.known_custom_jvp)(&name, &fun).unwrap_or_default();
        Ok(Params::CustomJvp(Shared(std::rc::Rc::new(CustomJvp {
            name,
            fun,
            jvp,
        }))))
    },
    nested: Some(|p, ins| match p {
        Params::CustomJvp(c) => call_jaxpr_printed(&c.0.fun, ins),
        _ => (Vec::new(), ins.to_vec()),
    }),
    // Replaced by its body before emission (`inline_calls`).
    lowering: Lowering::Kernel,
    jvp: Some(custom_jvp_rule as JvpRule),
    transpose: None,
    batch: Some(custom_jvp_batch),
    ..PrimDef::BASE
};

/// Replaces every `custom_jvp_call` and `checkpoint` by its body, and every
/// `jit` call except those of a body called often enough to be compiled
/// once ([`compiled_once`]): for emission, which emits such a body as a
/// function of its own.
pub fn inline_calls(j: &Jaxpr) -> Jaxpr {
    let custom = |_: usize, e: &crate::ir::Eqn| is_custom(e) || *e.prim == super::CHECKPOINT;
    let mut j = inline(j, &custom, true);
    loop {
        let kept = compiled_once(&j);
        let other = |k: usize, e: &crate::ir::Eqn| *e.prim == super::JIT && !kept.contains(&k);
        if !j.eqns.iter().enumerate().any(|(k, e)| other(k, e)) {
            return j;
        }
        // One level: the calls its bodies make are counted with this one's.
        let level = inline(&j, &other, false);
        j = inline(&level, &custom, true);
    }
}

/// [`inline_calls`] with every `jit` call inlined too: the emission of
/// `jax_debug_nans`' replay, which checks each operation where it is.
pub fn inline_all_calls(j: &Jaxpr) -> Jaxpr {
    let all = |_: usize, e: &crate::ir::Eqn| {
        is_custom(e) || *e.prim == super::CHECKPOINT || *e.prim == super::JIT
    };
    inline(j, &all, true)
}

/// [`inline_calls`] for printing: JAX prints a custom call as a call, ours
/// prints what it computes; a `checkpoint` and a `jit` call print as JAX
/// prints them, and a call of a function of the mod as its body (JAX
/// inlines a Python function's call).
pub fn inline_for_printing(j: &Jaxpr) -> Jaxpr {
    inline(j, &|_, e| is_custom(e) || is_mod_call(e), true)
}

/// The calls the tracer made of functions of the mod replaced by their
/// bodies, as JAX traces a Python call: the traced program as printed.
pub fn inline_mod_calls(j: &Jaxpr) -> Jaxpr {
    inline(j, &|_, e| is_mod_call(e), true)
}

fn is_mod_call(e: &crate::ir::Eqn) -> bool {
    matches!(&e.params, Params::Jit(c) if *e.prim == super::JIT && c.0.inlined)
}

fn is_custom(e: &crate::ir::Eqn) -> bool {
    *e.prim == CUSTOM_JVP_CALL || *e.prim == CUSTOM_VJP_CALL
}

/// The smallest body (equations, nested ones included) a `jit` call keeps
/// to be emitted as a function of its own, and the fewest equations its
/// calls must add up to: below them, inlining costs little build time and
/// keeps fusion across the call.
pub const OUTLINED_BODY: usize = 16;
const OUTLINED_TOTAL: usize = 256;

/// The `jit` calls of `j` (indices into its equations) whose body is called
/// at least twice, by programs equal up to their variables' numbers
/// ([`crate::ir::same_program`]), large enough to be worth a function: an
/// unrolled loop of calls then costs one body's build time, not one per
/// iteration.
pub fn compiled_once(j: &Jaxpr) -> std::collections::HashSet<usize> {
    let mut groups: Vec<(&Jaxpr, usize, Vec<usize>)> = Vec::new();
    for (k, e) in j.eqns.iter().enumerate() {
        let Params::Jit(c) = &e.params else { continue };
        if *e.prim != super::JIT {
            continue;
        }
        let body = &c.0.body;
        match groups
            .iter_mut()
            .find(|(b, _, _)| crate::ir::same_program(b, body))
        {
            Some((_, _, ks)) => ks.push(k),
            None => groups.push((body, crate::ir::eqn_count(&body.eqns), vec![k])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, n, ks)| ks.len() >= 2 && *n >= OUTLINED_BODY && n * ks.len() >= OUTLINED_TOTAL)
        .flat_map(|(_, _, ks)| ks)
        .collect()
}

/// `j` with each equation `pick` selects (by index) replaced by its body,
/// which is first inlined the same way when `deep`.
fn inline(j: &Jaxpr, pick: &dyn Fn(usize, &crate::ir::Eqn) -> bool, deep: bool) -> Jaxpr {
    if !j.eqns.iter().enumerate().any(|(k, e)| pick(k, e)) {
        return j.clone();
    }
    let mut b = crate::ir::builder::Builder::new(false);
    let mut env = std::collections::HashMap::new();
    for (v, values) in &j.constvars {
        env.insert(*v, b.constant(j.aval(*v).clone(), values.clone()));
    }
    for v in &j.invars {
        env.insert(*v, b.input(j.aval(*v).clone()));
    }
    if j.eqns.iter().any(|e| *e.prim == CUSTOM_VJP_LIN) {
        unreachable!("custom_vjp_lin is transposed away; forward mode reports it first")
    }
    let read = |env: &std::collections::HashMap<crate::ir::Var, Atom>, a: &Atom| match a {
        Atom::Var(v) => env[v].clone(),
        l => l.clone(),
    };
    for (k, e) in j.eqns.iter().enumerate() {
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
        let body = match &e.params {
            _ if !pick(k, e) => None,
            Params::CustomJvp(c) if *e.prim == CUSTOM_JVP_CALL => Some(&c.0.fun),
            Params::CustomVjp(c) if *e.prim == CUSTOM_VJP_CALL => Some(&c.0.fun),
            Params::Checkpoint(c) if *e.prim == super::CHECKPOINT => Some(&c.0.body),
            Params::Jit(c) if *e.prim == super::JIT => Some(&c.0.body),
            _ => None,
        };
        let outs = if let Some(fun) = body {
            // The body's own equations are picked by kind alone.
            let body = if deep {
                inline(fun, &|_, e| pick(usize::MAX, e), true)
            } else {
                fun.clone()
            };
            b.inline(&body, &ins).expect("a traced body binds again")
        } else {
            b.bind(e.prim, e.params.clone(), ins, e.span)
                .expect("a traced equation binds again")
        };
        for (v, a) in e.outs.iter().zip(outs) {
            env.insert(*v, a);
        }
    }
    b.jaxpr.outvars = j.outvars.iter().map(|a| read(&env, a)).collect();
    b.jaxpr
}

/// Forward mode of a custom_vjp call: the residuals from `fwd`, and a
/// `custom_vjp_lin` of them and the tangents, linear in the tangents, whose
/// transpose is `bwd`. (It cannot be evaluated forward: `f::jvp` of such a
/// function is JAX's error.)
fn custom_vjp_rule(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::CustomVjp(c) = p else {
        unreachable!()
    };
    if c.0.fwd.outvars.is_empty() {
        return Err(no_rule("custom_vjp", &c.0.name));
    }
    let outs = ad.b.inline(&c.0.fwd, ins).map_err(|e| e.to_string())?;
    let mut lin_ins: Vec<Atom> = outs[1..].to_vec();
    for (x, tx) in ins.iter().zip(t) {
        lin_ins.push(ad.tangent_or_zeros(tx, x)?);
    }
    Ok(vec![Some(ad.bind(&CUSTOM_VJP_LIN, p.clone(), lin_ins)?)])
}

fn custom_vjp_lin_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::CustomVjp(c) = p else {
        unreachable!()
    };
    let n_res = c.0.fwd.outvars.len() - 1;
    let mut args: Vec<Atom> = Vec::new();
    for r in &ins[..n_res] {
        args.push(r.clone().ok_or("custom_vjp residuals are not linear")?);
    }
    args.push(ct);
    let cts = ad.b.inline(&c.0.bwd, &args).map_err(|e| e.to_string())?;
    let mut out = vec![None; n_res];
    out.extend(cts.into_iter().map(Some));
    Ok(out)
}

fn custom_vjp_eval(
    _: &[Aval],
    p: &Params,
    _: &mut crate::ir::shapes::Constraints,
) -> Result<Vec<Aval>, String> {
    match p {
        Params::CustomVjp(c) => Ok(c
            .0
            .fun
            .outvars
            .iter()
            .map(|a| c.0.fun.atom_aval(a).clone())
            .collect()),
        _ => Err("custom_vjp_call needs its function".into()),
    }
}

pub static CUSTOM_VJP_CALL: PrimDef = PrimDef {
    name: "custom_vjp_call",
    abstract_eval: custom_vjp_eval,
    // As JAX prints it (`f::jaxpr()` shows the body: `inline_for_printing`).
    print_params: |_, p| match p {
        Params::CustomVjp(c) => vec![
            ("name", c.0.name.clone()),
            ("bwd", "bwd".into()),
            ("call_jaxpr", NESTED.into()),
            ("fwd", "fwd".into()),
            ("symbolic_zeros", "False".into()),
        ],
        _ => Vec::new(),
    },
    // `fwd` and `bwd` are Python code the text only names: the call
    // computes its body; differentiating it is a compile error.
    parse_params: |r, _, _| {
        let name = r.name("name")?;
        let fun = r.jaxpr("call_jaxpr")?;
        for p in ["bwd", "fwd", "symbolic_zeros", "num_consts", "out_trees"] {
            r.ignore(p);
        }
        Ok(Params::CustomVjp(Shared(std::rc::Rc::new(CustomVjp {
            name,
            fun,
            fwd: Jaxpr::default(),
            bwd: Jaxpr::default(),
        }))))
    },
    nested: Some(|p, ins| match p {
        Params::CustomVjp(c) => call_jaxpr_printed(&c.0.fun, ins),
        _ => (Vec::new(), ins.to_vec()),
    }),
    // Replaced by its body before emission (`inline_calls`).
    lowering: Lowering::Kernel,
    jvp: Some(custom_vjp_rule as JvpRule),
    transpose: None,
    batch: Some(custom_vjp_batch),
    ..PrimDef::BASE
};

/// The linearized custom_vjp function: only ever transposed.
pub static CUSTOM_VJP_LIN: PrimDef = PrimDef {
    name: "custom_vjp_lin",
    abstract_eval: custom_vjp_eval,
    print_params: |_, p| match p {
        Params::CustomVjp(c) => vec![("name", c.0.name.clone())],
        _ => Vec::new(),
    },
    parse_params: |_, _, _| {
        Err("`custom_vjp_lin` cannot be imported: the text names the function only, not its body, forward and backward programs (its transpose runs `bwd`)".into())
    },
    lowering: Lowering::Kernel,
    jvp: None,
    transpose: Some(custom_vjp_lin_transpose as super::TransposeRule),
    transpose_only: Some("can't apply forward-mode autodiff (jvp) to a custom_vjp function."),
    ..PrimDef::BASE
};

/// The operands with their batch axes first (shared ones repeated), for a
/// call whose held programs are batched with every value's lanes first.
pub(super) fn operands_at_front(bx: &mut Batch, ins: &[Atom], dims: &[BDim]) -> Res<Vec<Atom>> {
    let size = bx.size.clone();
    ins.iter()
        .zip(dims)
        .map(|(x, d)| bx.at_front(x.clone(), *d, size.clone()))
        .collect()
}

/// `vmap` of a held program with every input's and output's lanes first.
pub(super) fn vmap_at_front(bx: &Batch, j: &Jaxpr) -> Res<Jaxpr> {
    let ins = vec![Some(0); j.invars.len()];
    let outs = vec![Some(0); j.outvars.len()];
    let (batched, _) = (bx.vmap)(
        j,
        &ins,
        &bx.size,
        bx.axis_name.as_deref(),
        Some(&outs),
        bx.b.x64,
        bx.span,
    )
    .map_err(|e| e.to_string())?;
    Ok(batched)
}

/// A custom_jvp call of batched operands: the same call of the batched
/// function and the batched rule (JAX's `_custom_jvp_call_vmap` batches
/// both programs too), every value with its lanes first, so that the
/// rule's tangents are batched as its primals.
fn custom_jvp_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let Params::CustomJvp(c) = p else {
        unreachable!()
    };
    let call = CustomJvp {
        name: c.0.name.clone(),
        fun: vmap_at_front(bx, &c.0.fun)?,
        // An imported call without its rule keeps none.
        jvp: match c.0.jvp.outvars.is_empty() {
            true => Jaxpr::default(),
            false => vmap_at_front(bx, &c.0.jvp)?,
        },
    };
    let args = operands_at_front(bx, ins, dims)?;
    let params = Params::CustomJvp(Shared(std::rc::Rc::new(call)));
    let outs = bx.bind_all(&CUSTOM_JVP_CALL, params, args)?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}

/// A custom_vjp call of batched operands: the function, `fwd` and `bwd`
/// batched (as JAX's custom_vjp batching does), every value with its lanes
/// first: residuals, cotangents and the cotangents `bwd` returns.
fn custom_vjp_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let Params::CustomVjp(c) = p else {
        unreachable!()
    };
    let call = CustomVjp {
        name: c.0.name.clone(),
        fun: vmap_at_front(bx, &c.0.fun)?,
        // An imported call without its rules keeps none.
        fwd: match c.0.fwd.outvars.is_empty() {
            true => Jaxpr::default(),
            false => vmap_at_front(bx, &c.0.fwd)?,
        },
        bwd: match c.0.bwd.outvars.is_empty() {
            true => Jaxpr::default(),
            false => vmap_at_front(bx, &c.0.bwd)?,
        },
    };
    let args = operands_at_front(bx, ins, dims)?;
    let params = Params::CustomVjp(Shared(std::rc::Rc::new(call)));
    let outs = bx.bind_all(&CUSTOM_VJP_CALL, params, args)?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}
