//! `custom_jvp_call`: a function of the mod with its own derivative rule
//! (`#[custom_jvp(rule)]`). It computes as its body; forward mode (and so
//! reverse mode, which linearizes forward mode) uses the rule instead of
//! differentiating the body, as JAX's `custom_jvp` does.

use std::rc::Rc;

use super::{Lowering, Params, PrimDef};
use crate::ad::{Ad, JvpRule, Res};
use crate::ir::{Atom, Aval, Jaxpr};

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

/// Shared, compared by identity (one per traced call).
#[derive(Clone, Debug)]
pub struct CustomJvpRef(pub Rc<CustomJvp>);

impl PartialEq for CustomJvpRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

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
    let mut args = ins.to_vec();
    for (x, tx) in ins.iter().zip(t) {
        args.push(match tx {
            Some(tx) => tx.clone(),
            None => {
                let a = crate::ad::tangent_aval(&ad.aval(x));
                ad.zeros(&a)?
            }
        });
    }
    let outs = crate::ad::inline(ad.b, &c.0.jvp, &args).map_err(|e| e.to_string())?;
    let n = c.0.fun.outvars.len();
    Ok(outs[n..].iter().cloned().map(Some).collect())
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
    print_params: |_, p| match p {
        Params::CustomJvp(c) => vec![("name", c.0.name.clone())],
        _ => Vec::new(),
    },
    // Replaced by its body before emission (`inline_calls`).
    lowering: Lowering::Kernel,
    jvp: Some(custom_jvp_rule as JvpRule),
    transpose: None,
};

/// Replaces every `custom_jvp_call` by its body: for emission and
/// printing (JAX prints the call; ours prints what it computes).
pub fn inline_calls(j: &Jaxpr) -> Jaxpr {
    if !j.eqns.iter().any(|e| e.prim.name == "custom_jvp_call") {
        return j.clone();
    }
    let mut b = crate::trace::Builder::new(false);
    let mut env = std::collections::HashMap::new();
    for (v, values) in &j.constvars {
        env.insert(*v, b.constant(j.aval(*v).clone(), values.clone()));
    }
    for v in &j.invars {
        env.insert(*v, b.input(j.aval(*v).clone()));
    }
    let read = |env: &std::collections::HashMap<crate::ir::Var, Atom>, a: &Atom| match a {
        Atom::Var(v) => env[v].clone(),
        l => l.clone(),
    };
    for e in &j.eqns {
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
        let outs = if let Params::CustomJvp(c) = &e.params {
            let body = inline_calls(&c.0.fun);
            crate::ad::inline(&mut b, &body, &ins).expect("a traced body binds again")
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
