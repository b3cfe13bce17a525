//! optax's optimizers and learning-rate schedules, written once over
//! [`Lax`]: `init`, `update` and `apply_updates` over the leaves of a
//! params tree (in its flattening order), with optax's float operations in
//! order and hyperparameters rounded to each leaf's dtype, as JAX's weak
//! typing does. A jitted body traces them (the frontend flattens its
//! struct values); an eager call runs them (the runtime flattens its
//! pytrees), so `jax::optim` computes the same bits in both.

use jax_dtypes::DType;

use crate::ir::{Aval, Scalar};
use crate::jnp::{self, binary, convert, where_, Reduction, Res};
use crate::lax::Lax;
use crate::prims;

/// A learning-rate schedule (optax's `ScalarOrSchedule`).
#[derive(Clone, Debug, PartialEq)]
pub enum Sched {
    Constant(f64),
    Exponential {
        init: f64,
        steps: i64,
        rate: f64,
        begin: i64,
        staircase: bool,
        end: Option<f64>,
    },
    Cosine {
        init: f64,
        steps: i64,
        alpha: f64,
        exponent: f64,
    },
    WarmupCosine {
        init: f64,
        peak: f64,
        warmup: i64,
        steps: i64,
        end: f64,
        exponent: f64,
    },
}

/// An optimizer: optax's alias and its hyperparameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Opt {
    Sgd(Sched),
    Momentum {
        lr: Sched,
        momentum: f64,
        nesterov: bool,
    },
    Adam {
        lr: Sched,
        b1: f64,
        b2: f64,
        eps: f64,
        eps_root: f64,
        weight_decay: f64,
    },
    Rmsprop {
        lr: Sched,
        decay: f64,
        eps: f64,
        initial_scale: f64,
    },
    Adagrad {
        lr: Sched,
        initial: f64,
        eps: f64,
    },
    Lion {
        lr: Sched,
        b1: f64,
        b2: f64,
        weight_decay: f64,
    },
    Clip(f64),
    Chain(Vec<Opt>),
}

/// The state structs: their names and their fields after `count` (each a
/// tree like the params), as `jax::optim` defines them.
pub const STATES: &[(&str, &[&str])] = &[
    ("CountState", &[]),
    ("TraceState", &["trace"]),
    ("AdamState", &["mu", "nu"]),
    ("RmsState", &["nu"]),
    ("AdagradState", &["sum_of_squares"]),
    ("LionState", &["mu"]),
];

/// An optimizer's state over flat leaves.
#[derive(Clone, Debug)]
pub enum State<V> {
    /// A state struct (`STATES`' `name`): the step count (an `i32`
    /// scalar) and its trees' leaves, each as many as the params have.
    Counted {
        name: String,
        count: V,
        trees: Vec<Vec<V>>,
    },
    /// `clip_by_global_norm`'s (optax's `EmptyState`, `()`).
    Empty,
    /// A chain's: its stages' states.
    Chain(Vec<State<V>>),
}

impl Opt {
    /// The name of the state struct this optimizer keeps (`None`: a clip's
    /// `()` or a chain's tuple).
    pub fn state_name(&self) -> Option<&'static str> {
        Some(match self {
            Opt::Sgd(_) => "CountState",
            Opt::Momentum { .. } => "TraceState",
            Opt::Adam { .. } => "AdamState",
            Opt::Rmsprop { .. } => "RmsState",
            Opt::Adagrad { .. } => "AdagradState",
            Opt::Lion { .. } => "LionState",
            Opt::Clip(_) | Opt::Chain(_) => return None,
        })
    }
}

/// The tree fields of the state struct `name`.
pub fn state_fields(name: &str) -> Option<&'static [&'static str]> {
    STATES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

impl<V> State<V> {
    /// The leaves, count first, then each tree's, stage after stage.
    pub fn flatten(self, out: &mut Vec<V>) {
        match self {
            State::Counted { count, trees, .. } => {
                out.push(count);
                out.extend(trees.into_iter().flatten());
            }
            State::Empty => {}
            State::Chain(stages) => stages.into_iter().for_each(|s| s.flatten(out)),
        }
    }

    /// The state of `opt` over params of `n` leaves from `leaves` (in
    /// [`flatten`](State::flatten)'s order); `None` if they run out.
    pub fn unflatten(opt: &Opt, n: usize, leaves: &mut impl Iterator<Item = V>) -> Option<Self> {
        Some(match opt {
            Opt::Clip(_) => State::Empty,
            Opt::Chain(stages) => State::Chain(
                stages
                    .iter()
                    .map(|s| State::unflatten(s, n, leaves))
                    .collect::<Option<_>>()?,
            ),
            _ => {
                let name = opt.state_name().expect("a counted state");
                let count = leaves.next()?;
                let trees = (0..state_fields(name).expect("a state struct").len())
                    .map(|_| (0..n).map(|_| leaves.next()).collect::<Option<Vec<V>>>())
                    .collect::<Option<_>>()?;
                State::Counted {
                    name: name.to_string(),
                    count,
                    trees,
                }
            }
        })
    }
}

/// A non-weak scalar of dtype `d` (the value rounded to it, as a Python
/// float hyperparameter is).
pub(crate) fn lit<L: Lax>(l: &mut L, v: f64, d: DType) -> L::V {
    let v = if d == DType::F32 { v as f32 as f64 } else { v };
    l.literal(Scalar::Float(v), Aval::scalar(d, false))
}

/// An `i32` scalar (optax's count arithmetic).
fn int<L: Lax>(l: &mut L, v: i64) -> L::V {
    l.literal(Scalar::Int(v as i128), Aval::scalar(DType::I32, false))
}

/// The float leaves' dtypes: optimizers update `f32` and `f64` leaves.
pub(crate) fn float_dtypes<L: Lax>(l: &L, leaves: &[L::V], what: &str) -> Res<L, Vec<DType>> {
    leaves
        .iter()
        .map(|x| {
            let a = l.aval(x);
            match a.dtype {
                DType::F32 | DType::F64 => Ok(a.dtype),
                _ => Err(l.error(format!(
                    "optimizers update float32 and float64 leaves; a leaf of the {what} is {a}"
                ))),
            }
        })
        .collect()
}

/// A full array of `v` shaped like `like`.
pub(crate) fn full_like<L: Lax>(l: &mut L, like: &L::V, v: f64) -> Res<L, L::V> {
    let a = l.aval(like);
    let x = lit(l, v, a.dtype);
    if a.rank() == 0 {
        // A scalar leaf: an equation, so the state's leaf is a variable.
        return l.convert_element_type(x, a.dtype, false);
    }
    jnp::broadcast_to(l, x, a.shape.clone())
}

/// optax's `safe_increment`: `min(count, MAX - 1) + 1`, saturating at `i32::MAX`.
fn increment<L: Lax>(l: &mut L, count: L::V) -> Res<L, L::V> {
    let top = int(l, i32::MAX as i64 - 1);
    let c = binary(l, &prims::MIN, count, top)?;
    let one = int(l, 1);
    binary(l, &prims::ADD, c, one)
}

/// `1 - decay ** count` in dtype `d`.
fn bias_correction<L: Lax>(l: &mut L, decay: f64, count: &L::V, d: DType) -> Res<L, L::V> {
    let c = convert(l, count.clone(), d, false)?;
    let base = lit(l, decay, d);
    let p = binary(l, &prims::POW, base, c)?;
    let one = lit(l, 1.0, d);
    binary(l, &prims::SUB, one, p)
}

/// The schedule's value at the `i32` step `count`, in dtype `d`.
pub fn schedule<L: Lax>(l: &mut L, s: &Sched, count: &L::V, d: DType) -> Res<L, L::V> {
    match *s {
        Sched::Constant(v) => Ok(lit(l, v, d)),
        Sched::Exponential {
            init,
            steps,
            rate,
            begin,
            staircase,
            end,
        } => {
            if steps <= 0 || rate == 0.0 {
                return Ok(lit(l, init, d));
            }
            let b = int(l, begin.max(0));
            let dec = binary(l, &prims::SUB, count.clone(), b)?;
            let decf = convert(l, dec.clone(), d, false)?;
            let st = lit(l, steps as f64, d);
            let mut p = binary(l, &prims::DIV, decf, st)?;
            if staircase {
                p = l.unary(&prims::FLOOR, p)?;
            }
            let r = lit(l, rate, d);
            let pw = binary(l, &prims::POW, r, p)?;
            let i = lit(l, init, d);
            let decayed = binary(l, &prims::MUL, i, pw)?;
            let zero = int(l, 0);
            let before = binary(l, &prims::LE, dec, zero)?;
            let i = lit(l, init, d);
            let v = where_(l, before, i, decayed)?;
            match end {
                Some(e) if rate < 1.0 => {
                    let e = lit(l, e, d);
                    binary(l, &prims::MAX, v, e)
                }
                Some(e) => {
                    let e = lit(l, e, d);
                    binary(l, &prims::MIN, v, e)
                }
                None => Ok(v),
            }
        }
        Sched::Cosine {
            init,
            steps,
            alpha,
            exponent,
        } => cosine(l, init, steps, alpha, exponent, count.clone(), d),
        Sched::WarmupCosine {
            init,
            peak,
            warmup,
            steps,
            end,
            exponent,
        } => {
            let alpha = if peak == 0.0 { 0.0 } else { end / peak };
            let w = int(l, warmup);
            let shifted = binary(l, &prims::SUB, count.clone(), w)?;
            let cos = cosine(l, peak, steps - warmup, alpha, exponent, shifted, d)?;
            if warmup <= 0 {
                return Ok(cos);
            }
            let zero = int(l, 0);
            let lo = binary(l, &prims::MAX, zero, count.clone())?;
            let w = int(l, warmup);
            let c = binary(l, &prims::MIN, w, lo)?;
            let cf = convert(l, c, d, false)?;
            let wf = lit(l, warmup as f64, d);
            let q = binary(l, &prims::DIV, cf, wf)?;
            let one = lit(l, 1.0, d);
            let frac = binary(l, &prims::SUB, one, q)?;
            let k = lit(l, init - peak, d);
            let m = binary(l, &prims::MUL, k, frac)?;
            let pk = lit(l, peak, d);
            let linear = binary(l, &prims::ADD, m, pk)?;
            let w = int(l, warmup);
            let warming = binary(l, &prims::LT, count.clone(), w)?;
            where_(l, warming, linear, cos)
        }
    }
}

/// optax's `cosine_decay_schedule` at `count`.
fn cosine<L: Lax>(
    l: &mut L,
    init: f64,
    steps: i64,
    alpha: f64,
    exponent: f64,
    count: L::V,
    d: DType,
) -> Res<L, L::V> {
    let cf = convert(l, count, d, false)?;
    let st = lit(l, steps as f64, d);
    let c = binary(l, &prims::MIN, cf, st)?;
    let pi = lit(l, std::f64::consts::PI, d);
    let x = binary(l, &prims::MUL, pi, c)?;
    let st = lit(l, steps as f64, d);
    let x = binary(l, &prims::DIV, x, st)?;
    let cos = l.unary(&prims::COS, x)?;
    let one = lit(l, 1.0, d);
    let s = binary(l, &prims::ADD, one, cos)?;
    let half = lit(l, 0.5, d);
    let cosine = binary(l, &prims::MUL, half, s)?;
    let e = lit(l, exponent, d);
    let pw = binary(l, &prims::POW, cosine, e)?;
    let k = lit(l, 1.0 - alpha, d);
    let decayed = binary(l, &prims::MUL, k, pw)?;
    let a = lit(l, alpha, d);
    let decayed = binary(l, &prims::ADD, decayed, a)?;
    let i = lit(l, init, d);
    binary(l, &prims::MUL, i, decayed)
}

/// `opt`'s state before the first step, for params of `params`' leaves.
pub fn init<L: Lax>(l: &mut L, opt: &Opt, params: &[L::V]) -> Res<L, State<L::V>> {
    float_dtypes(l, params, "params")?;
    if let Opt::Chain(stages) = opt {
        let states = stages
            .iter()
            .map(|s| init(l, s, params))
            .collect::<Result<_, _>>()?;
        return Ok(State::Chain(states));
    }
    let Some(name) = opt.state_name() else {
        return Ok(State::Empty);
    };
    let fill = match opt {
        Opt::Rmsprop { initial_scale, .. } => *initial_scale,
        Opt::Adagrad { initial, .. } => *initial,
        _ => 0.0,
    };
    let zero = int(l, 0);
    let count = l.convert_element_type(zero, DType::I32, false)?;
    let fields = state_fields(name).expect("a state struct").len();
    let mut trees = Vec::with_capacity(fields);
    for _ in 0..fields {
        let tree = params
            .iter()
            .map(|p| full_like(l, p, fill))
            .collect::<Result<_, _>>()?;
        trees.push(tree);
    }
    Ok(counted_state(name, count, trees))
}

/// A state's count and its trees' leaves.
type Counted<V> = (V, Vec<Vec<V>>);

/// An update's results: the updates' leaves and the next state.
pub type Updated<V> = (Vec<V>, State<V>);

/// The state's count and trees, checked to be the state `opt` makes over
/// `n` leaves.
fn counted<L: Lax>(l: &L, opt: &Opt, state: State<L::V>, n: usize) -> Res<L, Counted<L::V>> {
    let want = opt.state_name().expect("a counted optimizer");
    match state {
        State::Counted { name, count, trees } if name == want => {
            for t in &trees {
                if t.len() != n {
                    return Err(l.error(format!(
                        "the state has {} leaves per tree where the gradients have {n}: it was made for other params",
                        t.len()
                    )));
                }
                float_dtypes(l, t, "state")?;
            }
            Ok((count, trees))
        }
        State::Counted { name, .. } => {
            let shown = match state_fields(&name) {
                Some(_) => format!("optim::{name}"),
                None => name,
            };
            Err(l.error(format!(
                "this optimizer's state is a `optim::{want}`, got a `{shown}`"
            )))
        }
        _ => Err(l.error(format!(
            "this optimizer's state is a `optim::{want}` (what its `.init(&params)` returns)"
        ))),
    }
}

/// `opt`'s updates for `grads` (to add to `params` with [`apply_updates`])
/// and its next state.
pub fn update<L: Lax>(
    l: &mut L,
    opt: &Opt,
    grads: &[L::V],
    state: State<L::V>,
    params: &[L::V],
) -> Res<L, Updated<L::V>> {
    let dtypes = float_dtypes(l, grads, "gradients")?;
    float_dtypes(l, params, "params")?;
    let n = grads.len();
    if params.len() != n {
        return Err(l.error(format!(
            "the gradients have {n} leaves and the params {}: they must be trees of one structure",
            params.len()
        )));
    }
    let (g, p) = (grads, params);
    let stage = |state: State<L::V>, l: &mut L| counted(l, opt, state, n);
    Ok(match opt {
        Opt::Sgd(lr) => {
            let (count, _) = stage(state, l)?;
            let lr = neg_lr(l, lr, &count, &dtypes)?;
            let u = (0..n)
                .map(|k| binary(l, &prims::MUL, lr[k].clone(), g[k].clone()))
                .collect::<Result<_, _>>()?;
            let count = increment(l, count)?;
            (u, counted_state("CountState", count, vec![]))
        }
        Opt::Momentum {
            lr,
            momentum,
            nesterov,
        } => {
            let (count, trees) = stage(state, l)?;
            let lr = neg_lr(l, lr, &count, &dtypes)?;
            let (mut u, mut trace) = (Vec::new(), Vec::new());
            for k in 0..n {
                let m = lit(l, *momentum, dtypes[k]);
                let mt = binary(l, &prims::MUL, m.clone(), trees[0][k].clone())?;
                let new = binary(l, &prims::ADD, g[k].clone(), mt)?;
                let step = if *nesterov {
                    let mt = binary(l, &prims::MUL, m, new.clone())?;
                    binary(l, &prims::ADD, g[k].clone(), mt)?
                } else {
                    new.clone()
                };
                u.push(binary(l, &prims::MUL, lr[k].clone(), step)?);
                trace.push(new);
            }
            let count = increment(l, count)?;
            (u, counted_state("TraceState", count, vec![trace]))
        }
        Opt::Adam {
            lr,
            b1,
            b2,
            eps,
            eps_root,
            weight_decay,
        } => {
            let (count, trees) = stage(state, l)?;
            let lr = neg_lr(l, lr, &count, &dtypes)?;
            let count_inc = increment(l, count)?;
            let (mut u, mut mus, mut nus) = (Vec::new(), Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let mu = ema(l, *b1, g[k].clone(), trees[0][k].clone(), d)?;
                let gg = binary(l, &prims::MUL, g[k].clone(), g[k].clone())?;
                let nu = ema(l, *b2, gg, trees[1][k].clone(), d)?;
                let bc1 = bias_correction(l, *b1, &count_inc, d)?;
                let bc2 = bias_correction(l, *b2, &count_inc, d)?;
                let mu_hat = binary(l, &prims::DIV, mu.clone(), bc1)?;
                let nu_hat = binary(l, &prims::DIV, nu.clone(), bc2)?;
                let er = lit(l, *eps_root, d);
                let s = binary(l, &prims::ADD, nu_hat, er)?;
                let s = l.unary(&prims::SQRT, s)?;
                let e = lit(l, *eps, d);
                let s = binary(l, &prims::ADD, s, e)?;
                let step = binary(l, &prims::DIV, mu_hat, s)?;
                let step = decayed(l, step, *weight_decay, &p[k], d)?;
                u.push(binary(l, &prims::MUL, lr[k].clone(), step)?);
                mus.push(mu);
                nus.push(nu);
            }
            (u, counted_state("AdamState", count_inc, vec![mus, nus]))
        }
        Opt::Rmsprop { lr, decay, eps, .. } => {
            let (count, trees) = stage(state, l)?;
            let lr = neg_lr(l, lr, &count, &dtypes)?;
            let (mut u, mut nus) = (Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let gg = binary(l, &prims::MUL, g[k].clone(), g[k].clone())?;
                let nu = ema(l, *decay, gg, trees[0][k].clone(), d)?;
                let e = lit(l, *eps, d);
                let s = binary(l, &prims::ADD, nu.clone(), e)?;
                let s = l.unary(&prims::RSQRT, s)?;
                let step = binary(l, &prims::MUL, s, g[k].clone())?;
                u.push(binary(l, &prims::MUL, lr[k].clone(), step)?);
                nus.push(nu);
            }
            let count = increment(l, count)?;
            (u, counted_state("RmsState", count, vec![nus]))
        }
        Opt::Adagrad { lr, eps, .. } => {
            let (count, trees) = stage(state, l)?;
            let lr = neg_lr(l, lr, &count, &dtypes)?;
            let (mut u, mut ss) = (Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let gg = binary(l, &prims::MUL, g[k].clone(), g[k].clone())?;
                let s = binary(l, &prims::ADD, gg, trees[0][k].clone())?;
                let zero = lit(l, 0.0, d);
                let pos = binary(l, &prims::GT, s.clone(), zero)?;
                let e = lit(l, *eps, d);
                let r = binary(l, &prims::ADD, s.clone(), e)?;
                let r = l.unary(&prims::RSQRT, r)?;
                let zero = lit(l, 0.0, d);
                let inv = where_(l, pos, r, zero)?;
                let step = binary(l, &prims::MUL, inv, g[k].clone())?;
                u.push(binary(l, &prims::MUL, lr[k].clone(), step)?);
                ss.push(s);
            }
            let count = increment(l, count)?;
            (u, counted_state("AdagradState", count, vec![ss]))
        }
        Opt::Lion {
            lr,
            b1,
            b2,
            weight_decay,
        } => {
            let (count, trees) = stage(state, l)?;
            let lr = neg_lr(l, lr, &count, &dtypes)?;
            let (mut u, mut mus) = (Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let c = ema(l, *b1, g[k].clone(), trees[0][k].clone(), d)?;
                let step = l.unary(&prims::SIGN, c)?;
                let mu = ema(l, *b2, g[k].clone(), trees[0][k].clone(), d)?;
                let step = decayed(l, step, *weight_decay, &p[k], d)?;
                u.push(binary(l, &prims::MUL, lr[k].clone(), step)?);
                mus.push(mu);
            }
            let count = increment(l, count)?;
            (u, counted_state("LionState", count, vec![mus]))
        }
        Opt::Clip(max_norm) => {
            if !matches!(state, State::Empty) {
                return Err(l.error("`optim::clip_by_global_norm`'s state is `()`".into()));
            }
            (clip(l, *max_norm, g, &dtypes)?, State::Empty)
        }
        Opt::Chain(stages) => {
            let State::Chain(states) = state else {
                return Err(l.error("a chain's state is the tuple of its stages' states".into()));
            };
            if states.len() != stages.len() {
                return Err(l.error(format!(
                    "a chain of {} stages has a state of {} parts",
                    stages.len(),
                    states.len()
                )));
            }
            let mut u = g.to_vec();
            let mut out = Vec::new();
            for (stage, s) in stages.iter().zip(states) {
                let (nu, ns) = update(l, stage, &u, s, params)?;
                u = nu;
                out.push(ns);
            }
            (u, State::Chain(out))
        }
    })
}

fn counted_state<V>(name: &str, count: V, trees: Vec<Vec<V>>) -> State<V> {
    State::Counted {
        name: name.to_string(),
        count,
        trees,
    }
}

/// `(1 - decay) * x + decay * avg` (optax's `update_moment`).
fn ema<L: Lax>(l: &mut L, decay: f64, x: L::V, avg: L::V, d: DType) -> Res<L, L::V> {
    let k = lit(l, 1.0 - decay, d);
    let a = binary(l, &prims::MUL, k, x)?;
    let k = lit(l, decay, d);
    let b = binary(l, &prims::MUL, k, avg)?;
    binary(l, &prims::ADD, a, b)
}

/// `step + weight_decay * p` (optax's `add_decayed_weights`), or `step`.
fn decayed<L: Lax>(l: &mut L, step: L::V, weight_decay: f64, p: &L::V, d: DType) -> Res<L, L::V> {
    if weight_decay == 0.0 {
        return Ok(step);
    }
    let w = lit(l, weight_decay, d);
    let w = binary(l, &prims::MUL, w, p.clone())?;
    binary(l, &prims::ADD, step, w)
}

/// `-lr` at `count`, per leaf dtype (computed once per dtype).
fn neg_lr<L: Lax>(l: &mut L, lr: &Sched, count: &L::V, dtypes: &[DType]) -> Res<L, Vec<L::V>> {
    let mut by_dtype: Vec<(DType, L::V)> = Vec::new();
    dtypes
        .iter()
        .map(|&d| {
            if let Some((_, a)) = by_dtype.iter().find(|(e, _)| *e == d) {
                return Ok(a.clone());
            }
            let v = schedule(l, lr, count, d)?;
            // A constant rate is a literal: its negation is one too.
            let v = match l.as_literal(&v).map(|c| c.value) {
                Some(Scalar::Float(f)) => lit(l, -f, d),
                _ => l.unary(&prims::NEG, v)?,
            };
            by_dtype.push((d, v.clone()));
            Ok(v)
        })
        .collect()
}

/// optax's `clip_by_global_norm`: the updates scaled by `max_norm / norm`
/// where the global norm (leaf sums of squares added in order, in `f32`
/// when every leaf is `f32`) is not below `max_norm`.
fn clip<L: Lax>(l: &mut L, max_norm: f64, g: &[L::V], dtypes: &[DType]) -> Res<L, Vec<L::V>> {
    let nd = if dtypes.iter().all(|d| *d == DType::F32) {
        DType::F32
    } else {
        DType::F64
    };
    let mut total: Option<L::V> = None;
    for gk in g {
        let gg = binary(l, &prims::MUL, gk.clone(), gk.clone())?;
        let s = jnp::reduce(l, Reduction::Sum, gg, None, false)?;
        let s = convert(l, s, nd, false)?;
        total = Some(match total {
            None => s,
            Some(t) => binary(l, &prims::ADD, t, s)?,
        });
    }
    let Some(total) = total else {
        return Ok(Vec::new());
    };
    let norm = l.unary(&prims::SQRT, total)?;
    g.iter()
        .zip(dtypes)
        .map(|(gk, &d)| {
            let nk = convert(l, norm.clone(), d, false)?;
            let m = lit(l, max_norm, d);
            let keep = binary(l, &prims::LT, nk.clone(), m)?;
            let scaled = binary(l, &prims::DIV, gk.clone(), nk)?;
            let m = lit(l, max_norm, d);
            let scaled = binary(l, &prims::MUL, scaled, m)?;
            where_(l, keep, gk.clone(), scaled)
        })
        .collect()
}

/// optax's `apply_updates`: `params + updates`, in the params' dtypes.
pub fn apply_updates<L: Lax>(l: &mut L, params: &[L::V], updates: &[L::V]) -> Res<L, Vec<L::V>> {
    float_dtypes(l, params, "params")?;
    float_dtypes(l, updates, "updates")?;
    if params.len() != updates.len() {
        return Err(l.error(format!(
            "the params have {} leaves and the updates {}: they must be trees of one structure",
            params.len(),
            updates.len()
        )));
    }
    params
        .iter()
        .zip(updates)
        .map(|(p, u)| {
            let d = l.aval(p).dtype;
            let s = binary(l, &prims::ADD, p.clone(), u.clone())?;
            convert(l, s, d, false)
        })
        .collect()
}
