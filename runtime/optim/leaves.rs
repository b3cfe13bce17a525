//! An optimizer's formulas run eagerly: the trees' leaves (in their
//! flattening order) go into one unit program traced from
//! `jax_core::optim` (the text a jitted body traces), once per optimizer
//! and leaf types, and the results come back as trees of the params'
//! structure.

use jax_core::optim::{self as core, Opt, State};

use crate::eager::{self, unit};
use crate::tree::{DynArray, Pytree};
use crate::Array;

/// A state's step count and its trees.
pub(crate) type Counted<P> = (Array<i32>, Vec<P>);

/// The leaves of a tree, in its flattening order.
pub(crate) fn leaves<P: Pytree>(t: &P) -> Vec<DynArray> {
    let mut out = Vec::new();
    t.for_each_leaf(&mut |l| out.push(l.to_dyn()));
    out
}

/// `template` with its leaves replaced by `new`, in order.
pub(crate) fn with_leaves<P: Pytree>(template: &P, new: Vec<DynArray>) -> P {
    let mut t = template.clone();
    let mut it = new.into_iter();
    t.for_each_leaf_mut(&mut |l| {
        let v = it
            .next()
            .expect("optim: fewer new leaves than the tree has");
        if let Err(e) = l.assign(v) {
            panic!("optim: {e}");
        }
    });
    t
}

/// Runs `f` of `ins` as one unit of family `name` named by `statics` (the
/// optimizer), its results as arrays.
#[track_caller]
pub(crate) fn run_unit(
    name: &'static str,
    statics: &str,
    ins: &[DynArray],
    f: unit::Composite,
) -> Vec<DynArray> {
    let inputs: Vec<unit::Input> = ins.iter().map(unit::Input::dyn_array).collect();
    let outs = eager::call(|_| unit::run(name, statics, &inputs, unit::Blocks::Whole, f));
    outs.into_iter().map(|v| v.into_array()).collect()
}

/// [`run_unit`] of optax's optimizers.
#[track_caller]
fn run(statics: &str, ins: &[DynArray], f: unit::Composite) -> Vec<DynArray> {
    run_unit("optim", statics, ins, f)
}

/// `opt`'s initial state for `params`: its count and its trees (`opt`
/// keeps a state struct).
#[track_caller]
pub(crate) fn init<P: Pytree>(opt: &Opt, params: &P) -> Counted<P> {
    let statics = format!("init {opt:?}");
    let outs = run(&statics, &leaves(params), &|t, ins| {
        let mut out = Vec::new();
        core::init(t, opt, &ins)?.flatten(&mut out);
        Ok(out)
    });
    counted(outs, params)
}

/// The count and trees of a flattened state.
fn counted<P: Pytree>(outs: Vec<DynArray>, template: &P) -> Counted<P> {
    let n = leaves(template).len();
    let mut outs = outs.into_iter();
    let count = with_leaves(&Array::from(0i32), vec![outs.next().expect("a count")]);
    let rest: Vec<DynArray> = outs.collect();
    let trees = rest
        .chunks(n.max(1))
        .take(rest.len().checked_div(n).unwrap_or(0))
        .map(|c| with_leaves(template, c.to_vec()))
        .collect();
    (count, trees)
}

/// `opt`'s update: the updates for `grads` and the next count and trees,
/// from the state's `count` and `trees` (empty for a stateless `opt`).
#[track_caller]
pub(crate) fn update<P: Pytree>(
    opt: &Opt,
    grads: &P,
    state: Option<(&Array<i32>, Vec<&P>)>,
    params: &P,
) -> (P, Option<Counted<P>>) {
    let g = leaves(grads);
    let n = g.len();
    let mut ins = g;
    if let Some((count, trees)) = &state {
        ins.extend(leaves(*count));
        for t in trees {
            ins.extend(leaves(*t));
        }
    }
    let p = leaves(params);
    let np = p.len();
    ins.extend(p);
    let statics = format!("update {opt:?}");
    let stateful = state.is_some();
    let outs = run(&statics, &ins, &|t, ins| {
        let (g, rest) = ins.split_at(n);
        let (st, p) = rest.split_at(rest.len() - np);
        let st = if stateful {
            State::unflatten(opt, n, &mut st.iter().cloned()).expect("the state's leaves")
        } else {
            State::Empty
        };
        let (u, st) = core::update(t, opt, g, st, p)?;
        let mut out = u;
        st.flatten(&mut out);
        Ok(out)
    });
    let mut outs = outs;
    let rest = outs.split_off(n);
    let u = with_leaves(grads, outs);
    (u, stateful.then(|| counted(rest, grads)))
}

/// optax's `apply_updates` of two trees' leaves.
#[track_caller]
pub(crate) fn apply_updates<P: Pytree>(params: &P, updates: &P) -> P {
    let (p, u) = (leaves(params), leaves(updates));
    let n = p.len();
    let mut ins = p;
    ins.extend(u);
    let outs = run("apply_updates", &ins, &|t, ins| {
        let (p, u) = ins.split_at(n);
        core::apply_updates(t, p, u)
    });
    with_leaves(params, outs)
}
