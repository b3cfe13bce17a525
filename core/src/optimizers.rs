//! JAX's `jax.example_libraries.optimizers`, written once over [`Lax`]:
//! the optimizers JAX's own examples import (`sgd`, `momentum`, `nesterov`,
//! `adagrad`, `rmsprop`, `rmsprop_momentum`, `adam`, `adamax`), their step
//! size schedules, `l2_norm` and `clip_grads`. Each formula is JAX's, with
//! its operations in JAX's order and JAX's types: a hyperparameter is a
//! Python number (a weakly typed literal, the arithmetic between
//! hyperparameters done in `f64` first as Python does it), the step `i` is
//! what the caller passes (a Rust integer is a weak `int32`, as a Python
//! `int` is). A jitted body traces them (the frontend flattens the params
//! and state values); an eager call runs them as one program
//! (`jax::example_libraries::optimizers`), so both compute the same bits.
//!
//! Unlike optax (`crate::optim`), the state holds the params themselves
//! (`x`, the first tree of every state) and the caller counts the steps:
//! `init(params)`, `update(i, grads, state)`, `get_params(state)`.

use jax_dtypes::{DType, Kind};

use crate::ir::{Aval, Dim, Scalar};
use crate::jnp::{self, binary, to_float, weak_literal, where_, Reduction, Res};
use crate::lax::Lax;
use crate::optim::{float_dtypes, full_like, lit};
use crate::prims;

/// A step size: a number or one of JAX's schedules of the step `i`.
#[derive(Clone, Debug, PartialEq)]
pub enum StepSize {
    /// `constant(step_size)`, or a plain number.
    Constant(f64),
    /// `exponential_decay(step_size, decay_steps, decay_rate)`:
    /// `step_size * decay_rate ** (i / decay_steps)`.
    ExponentialDecay {
        step_size: f64,
        decay_steps: f64,
        decay_rate: f64,
    },
    /// `inverse_time_decay(step_size, decay_steps, decay_rate, staircase)`:
    /// `step_size / (1 + decay_rate * i / decay_steps)`, the quotient
    /// floored first with `staircase`.
    InverseTimeDecay {
        step_size: f64,
        decay_steps: f64,
        decay_rate: f64,
        staircase: bool,
    },
    /// `polynomial_decay(step_size, decay_steps, final_step_size, power)`:
    /// `(1 - min(i, decay_steps) / decay_steps) ** power * (step_size -
    /// final_step_size) + final_step_size`.
    PolynomialDecay {
        step_size: f64,
        decay_steps: i64,
        final_step_size: f64,
        power: f64,
    },
    /// `piecewise_constant(boundaries, values)`: `values[sum(i >
    /// boundaries)]`, one more value than boundaries.
    PiecewiseConstant {
        boundaries: Vec<i64>,
        values: Vec<f64>,
    },
}

/// An optimizer of `jax.example_libraries.optimizers`, its
/// hyperparameters known when the program is traced.
#[derive(Clone, Debug, PartialEq)]
pub enum Optimizer {
    Sgd(StepSize),
    Momentum {
        step_size: StepSize,
        mass: f64,
    },
    Nesterov {
        step_size: StepSize,
        mass: f64,
    },
    Adagrad {
        step_size: StepSize,
        momentum: f64,
    },
    Rmsprop {
        step_size: StepSize,
        gamma: f64,
        eps: f64,
    },
    RmspropMomentum {
        step_size: StepSize,
        gamma: f64,
        eps: f64,
        momentum: f64,
    },
    Adam {
        step_size: StepSize,
        b1: f64,
        b2: f64,
        eps: f64,
    },
    Adamax {
        step_size: StepSize,
        b1: f64,
        b2: f64,
        eps: f64,
    },
}

/// The state structs, by name, and their fields: each a tree like the
/// params, the params themselves (`x`) first, as JAX's per-leaf state
/// tuples hold them.
pub const STATES: &[(&str, &[&str])] = &[
    ("SgdState", &["x"]),
    ("MomentumState", &["x", "velocity"]),
    ("AdagradState", &["x", "g_sq", "m"]),
    ("RmspropState", &["x", "avg_sq_grad"]),
    ("RmspropMomentumState", &["x", "avg_sq_grad", "mom"]),
    ("AdamState", &["x", "m", "v"]),
    ("AdamaxState", &["x", "m", "u"]),
];

/// The fields of the state struct `name`.
pub fn state_fields(name: &str) -> Option<&'static [&'static str]> {
    STATES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

impl Optimizer {
    /// The optimizer JAX's `optimizers.NAME(step_size, *required)` makes,
    /// with JAX's defaults for its keywords: `required` is `momentum`'s and
    /// `nesterov`'s `mass`, nothing for the others. `None` for another
    /// name or count.
    pub fn new(name: &str, step_size: StepSize, required: &[f64]) -> Option<Optimizer> {
        Some(match (name, required) {
            ("sgd", []) => Optimizer::Sgd(step_size),
            ("momentum", &[mass]) => Optimizer::Momentum { step_size, mass },
            ("nesterov", &[mass]) => Optimizer::Nesterov { step_size, mass },
            ("adagrad", []) => Optimizer::Adagrad {
                step_size,
                momentum: 0.9,
            },
            ("rmsprop", []) => Optimizer::Rmsprop {
                step_size,
                gamma: 0.9,
                eps: 1e-8,
            },
            ("rmsprop_momentum", []) => Optimizer::RmspropMomentum {
                step_size,
                gamma: 0.9,
                eps: 1e-8,
                momentum: 0.9,
            },
            ("adam", []) => Optimizer::Adam {
                step_size,
                b1: 0.9,
                b2: 0.999,
                eps: 1e-8,
            },
            ("adamax", []) => Optimizer::Adamax {
                step_size,
                b1: 0.9,
                b2: 0.999,
                eps: 1e-8,
            },
            _ => return None,
        })
    }

    /// The name of the state struct this optimizer keeps (in [`STATES`]).
    pub fn state_name(&self) -> &'static str {
        match self {
            Optimizer::Sgd(_) => "SgdState",
            Optimizer::Momentum { .. } | Optimizer::Nesterov { .. } => "MomentumState",
            Optimizer::Adagrad { .. } => "AdagradState",
            Optimizer::Rmsprop { .. } => "RmspropState",
            Optimizer::RmspropMomentum { .. } => "RmspropMomentumState",
            Optimizer::Adam { .. } => "AdamState",
            Optimizer::Adamax { .. } => "AdamaxState",
        }
    }

    /// The step size (schedule) it was made with.
    pub fn step_size(&self) -> &StepSize {
        match self {
            Optimizer::Sgd(s)
            | Optimizer::Momentum { step_size: s, .. }
            | Optimizer::Nesterov { step_size: s, .. }
            | Optimizer::Adagrad { step_size: s, .. }
            | Optimizer::Rmsprop { step_size: s, .. }
            | Optimizer::RmspropMomentum { step_size: s, .. }
            | Optimizer::Adam { step_size: s, .. }
            | Optimizer::Adamax { step_size: s, .. } => s,
        }
    }

    /// Sets the hyperparameter `name` (JAX's keyword), if this optimizer
    /// has one of that name.
    pub fn set(&mut self, name: &str, v: f64) -> bool {
        let slot = match (self, name) {
            (Optimizer::Adagrad { momentum, .. }, "momentum")
            | (Optimizer::RmspropMomentum { momentum, .. }, "momentum") => momentum,
            (Optimizer::Rmsprop { gamma, .. }, "gamma")
            | (Optimizer::RmspropMomentum { gamma, .. }, "gamma") => gamma,
            (Optimizer::Rmsprop { eps, .. }, "eps")
            | (Optimizer::RmspropMomentum { eps, .. }, "eps")
            | (Optimizer::Adam { eps, .. }, "eps")
            | (Optimizer::Adamax { eps, .. }, "eps") => eps,
            (Optimizer::Adam { b1, .. }, "b1") | (Optimizer::Adamax { b1, .. }, "b1") => b1,
            (Optimizer::Adam { b2, .. }, "b2") | (Optimizer::Adamax { b2, .. }, "b2") => b2,
            _ => return false,
        };
        *slot = v;
        true
    }
}

/// A Python float.
fn num<L: Lax>(l: &mut L, v: f64) -> L::V {
    weak_literal(l, Scalar::Float(v))
}

/// A Python int.
fn int<L: Lax>(l: &mut L, v: i64) -> L::V {
    weak_literal(l, Scalar::Int(v as i128))
}

/// `x * y`, `x + y`, ... with JAX's promotion.
fn mul<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    binary(l, &prims::MUL, x, y)
}
fn add<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    binary(l, &prims::ADD, x, y)
}
fn sub<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    binary(l, &prims::SUB, x, y)
}

/// Python's `x / y`: `jnp.true_divide`, integers converted to floats first.
fn true_divide<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let y = to_float(l, y)?;
    binary(l, &prims::DIV, x, y)
}

/// `jnp.square(x)`: `integer_pow(x, 2)`.
fn square<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    l.integer_pow(x, 2)
}

/// The step `i` as the optimizers take it: an integer scalar.
fn check_step<L: Lax>(l: &L, i: &L::V) -> Res<L, ()> {
    let a = l.aval(i);
    if a.rank() != 0 || !matches!(a.dtype.kind(), Kind::Int | Kind::UInt) {
        return Err(l.error(format!(
            "the step `i` of an optimizer's update is an integer scalar (JAX's examples pass the step number), got {a}"
        )));
    }
    Ok(())
}

/// The step size at step `i` (JAX's `step_size(i)`), in JAX's types: a
/// weak scalar for a number and the decays, the values' dtype for
/// `piecewise_constant`.
pub fn step_size<L: Lax>(l: &mut L, s: &StepSize, i: &L::V) -> Res<L, L::V> {
    Ok(match s {
        StepSize::Constant(v) => num(l, *v),
        StepSize::ExponentialDecay {
            step_size,
            decay_steps,
            decay_rate,
        } => {
            let steps = num(l, *decay_steps);
            let q = true_divide(l, i.clone(), steps)?;
            let rate = num(l, *decay_rate);
            let p = jnp::power(l, rate, q)?;
            let s = num(l, *step_size);
            mul(l, s, p)?
        }
        StepSize::InverseTimeDecay {
            step_size,
            decay_steps,
            decay_rate,
            staircase,
        } => {
            let steps = num(l, *decay_steps);
            let rate = num(l, *decay_rate);
            let d = if *staircase {
                let q = true_divide(l, i.clone(), steps)?;
                let f = l.unary(&prims::FLOOR, q)?;
                mul(l, rate, f)?
            } else {
                let ri = mul(l, rate, i.clone())?;
                true_divide(l, ri, steps)?
            };
            let one = int(l, 1);
            let d = add(l, one, d)?;
            let s = num(l, *step_size);
            true_divide(l, s, d)?
        }
        StepSize::PolynomialDecay {
            step_size,
            decay_steps,
            final_step_size,
            power,
        } => {
            let steps = int(l, *decay_steps);
            let n = binary(l, &prims::MIN, i.clone(), steps)?;
            let steps = int(l, *decay_steps);
            let q = true_divide(l, n, steps)?;
            let one = int(l, 1);
            let r = sub(l, one, q)?;
            let p = num(l, *power);
            let mult = jnp::power(l, r, p)?;
            let span = num(l, step_size - final_step_size);
            let m = mul(l, mult, span)?;
            let f = num(l, *final_step_size);
            add(l, m, f)?
        }
        StepSize::PiecewiseConstant { boundaries, values } => {
            if values.len() != boundaries.len() + 1 {
                return Err(
                    l.error("boundaries length must be one shorter than values length".into())
                );
            }
            // `jnp.array(values)`: the default float dtype, strongly typed.
            let d = jax_dtypes::default_dtype(Kind::Float, l.x64());
            let bd = jax_dtypes::default_dtype(Kind::Int, l.x64());
            let mut count = l.literal(Scalar::Int(0), Aval::scalar(bd, false));
            for &b in boundaries {
                let b = l.literal(Scalar::Int(b as i128), Aval::scalar(bd, false));
                let gt = binary(l, &prims::GT, i.clone(), b)?;
                let k = jnp::convert(l, gt, bd, false)?;
                count = binary(l, &prims::ADD, count, k)?;
            }
            // `values[count]`: the count is in `0..values.len()`, so the
            // selection is exact, whichever way it is written.
            let mut out = lit(l, values[0], d);
            for (k, &v) in values.iter().enumerate().skip(1) {
                let kk = l.literal(Scalar::Int(k as i128), Aval::scalar(bd, false));
                let at = binary(l, &prims::EQ, count.clone(), kk)?;
                let v = lit(l, v, d);
                out = where_(l, at, v, out)?;
            }
            out
        }
    })
}

/// The state before the first step: the params, then each further tree
/// of zeros (`init(x0)`).
pub fn init<L: Lax>(l: &mut L, o: &Optimizer, params: &[L::V]) -> Res<L, Vec<Vec<L::V>>> {
    float_dtypes(l, params, "params")?;
    let fields = state_fields(o.state_name()).expect("a state struct").len();
    let mut trees = vec![params.to_vec()];
    for _ in 1..fields {
        let t = params
            .iter()
            .map(|p| full_like(l, p, 0.0))
            .collect::<Res<L, Vec<_>>>()?;
        trees.push(t);
    }
    Ok(trees)
}

/// The state after step `i` with gradients `grads` (`update(i, g,
/// state)`), tree by tree as [`init`] made them.
pub fn update<L: Lax>(
    l: &mut L,
    o: &Optimizer,
    i: &L::V,
    grads: &[L::V],
    state: Vec<Vec<L::V>>,
) -> Res<L, Vec<Vec<L::V>>> {
    check_step(l, i)?;
    let name = o.state_name();
    let fields = state_fields(name).expect("a state struct");
    if state.len() != fields.len() || state.iter().any(|t| t.len() != grads.len()) {
        return Err(l.error(format!(
            "this optimizer's state is a `optimizers::{name}` over params like the gradients (what its `.init(&params)` returns)"
        )));
    }
    float_dtypes(l, grads, "gradients")?;
    for t in &state {
        float_dtypes(l, t, "state")?;
    }
    let mut out: Vec<Vec<L::V>> = vec![Vec::with_capacity(grads.len()); fields.len()];
    for (k, g) in grads.iter().enumerate() {
        let leaf: Vec<L::V> = state.iter().map(|t| t[k].clone()).collect();
        let new = update_leaf(l, o, i, g.clone(), leaf)?;
        for (t, v) in out.iter_mut().zip(new) {
            t.push(v);
        }
    }
    Ok(out)
}

/// One leaf's update, JAX's per-leaf `update(i, g, state)`.
fn update_leaf<L: Lax>(
    l: &mut L,
    o: &Optimizer,
    i: &L::V,
    g: L::V,
    s: Vec<L::V>,
) -> Res<L, Vec<L::V>> {
    let x = s[0].clone();
    Ok(match o {
        Optimizer::Sgd(step) => {
            let lr = step_size(l, step, i)?;
            let d = mul(l, lr, g)?;
            vec![sub(l, x, d)?]
        }
        Optimizer::Momentum {
            step_size: st,
            mass,
        } => {
            let m = num(l, *mass);
            let v = mul(l, m, s[1].clone())?;
            let velocity = add(l, v, g)?;
            let lr = step_size(l, st, i)?;
            let d = mul(l, lr, velocity.clone())?;
            vec![sub(l, x, d)?, velocity]
        }
        Optimizer::Nesterov {
            step_size: st,
            mass,
        } => {
            let m = num(l, *mass);
            let v = mul(l, m, s[1].clone())?;
            let velocity = add(l, v, g.clone())?;
            let lr = step_size(l, st, i)?;
            let m = num(l, *mass);
            let mv = mul(l, m, velocity.clone())?;
            let look = add(l, mv, g)?;
            let d = mul(l, lr, look)?;
            vec![sub(l, x, d)?, velocity]
        }
        Optimizer::Adagrad {
            step_size: st,
            momentum,
        } => {
            let g2 = square(l, g.clone())?;
            let g_sq = add(l, s[1].clone(), g2)?;
            let zero = num(l, 0.0);
            let pos = binary(l, &prims::GT, g_sq.clone(), zero)?;
            let root = l.unary(&prims::SQRT, g_sq.clone())?;
            let one = num(l, 1.0);
            let inv = true_divide(l, one, root)?;
            let zero = num(l, 0.0);
            let inv = where_(l, pos, inv, zero)?;
            let gi = mul(l, g, inv)?;
            let a = num(l, 1.0 - momentum);
            let a = mul(l, a, gi)?;
            let b = num(l, *momentum);
            let b = mul(l, b, s[2].clone())?;
            let m = add(l, a, b)?;
            let lr = step_size(l, st, i)?;
            let d = mul(l, lr, m.clone())?;
            vec![sub(l, x, d)?, g_sq, m]
        }
        Optimizer::Rmsprop {
            step_size: st,
            gamma,
            eps,
        } => {
            let avg = avg_sq_grad(l, s[1].clone(), g.clone(), *gamma)?;
            let lr = step_size(l, st, i)?;
            let lg = mul(l, lr, g)?;
            let e = num(l, *eps);
            let ae = add(l, avg.clone(), e)?;
            let root = l.unary(&prims::SQRT, ae)?;
            let d = true_divide(l, lg, root)?;
            vec![sub(l, x, d)?, avg]
        }
        Optimizer::RmspropMomentum {
            step_size: st,
            gamma,
            eps,
            momentum,
        } => {
            let avg = avg_sq_grad(l, s[1].clone(), g.clone(), *gamma)?;
            let m = num(l, *momentum);
            let mm = mul(l, m, s[2].clone())?;
            let lr = step_size(l, st, i)?;
            let lg = mul(l, lr, g)?;
            let e = num(l, *eps);
            let ae = add(l, avg.clone(), e)?;
            let root = l.unary(&prims::SQRT, ae)?;
            let q = true_divide(l, lg, root)?;
            let mom = add(l, mm, q)?;
            vec![sub(l, x, mom.clone())?, avg, mom]
        }
        Optimizer::Adam {
            step_size: st,
            b1,
            b2,
            eps,
        } => {
            let m = moment(l, g.clone(), s[1].clone(), *b1)?;
            let g2 = square(l, g)?;
            let v = moment(l, g2, s[2].clone(), *b2)?;
            let d = l.aval(&m).dtype;
            let mc = bias_correction(l, *b1, i, d)?;
            let mhat = true_divide(l, m.clone(), mc)?;
            let vc = bias_correction(l, *b2, i, d)?;
            let vhat = true_divide(l, v.clone(), vc)?;
            let lr = step_size(l, st, i)?;
            let lm = mul(l, lr, mhat)?;
            let root = l.unary(&prims::SQRT, vhat)?;
            let e = num(l, *eps);
            let den = add(l, root, e)?;
            let q = true_divide(l, lm, den)?;
            vec![sub(l, x, q)?, m, v]
        }
        Optimizer::Adamax {
            step_size: st,
            b1,
            b2,
            eps,
        } => {
            let m = moment(l, g.clone(), s[1].clone(), *b1)?;
            let b = num(l, *b2);
            let bu = mul(l, b, s[2].clone())?;
            let ag = l.unary(&prims::ABS, g)?;
            let u = binary(l, &prims::MAX, bu, ag)?;
            let lr = step_size(l, st, i)?;
            let d = l.aval(&m).dtype;
            let mc = bias_correction(l, *b1, i, d)?;
            let k = true_divide(l, lr, mc)?;
            let km = mul(l, k, m.clone())?;
            let e = num(l, *eps);
            let ue = add(l, u.clone(), e)?;
            let q = true_divide(l, km, ue)?;
            vec![sub(l, x, q)?, m, u]
        }
    })
}

/// `(1 - b) * g + b * m`: a moving average (Adam's moments).
fn moment<L: Lax>(l: &mut L, g: L::V, m: L::V, b: f64) -> Res<L, L::V> {
    let a = num(l, 1.0 - b);
    let a = mul(l, a, g)?;
    let bb = num(l, b);
    let bm = mul(l, bb, m)?;
    add(l, a, bm)
}

/// `avg * gamma + square(g) * (1 - gamma)` (RMSProp's average).
fn avg_sq_grad<L: Lax>(l: &mut L, avg: L::V, g: L::V, gamma: f64) -> Res<L, L::V> {
    let gm = num(l, gamma);
    let a = mul(l, avg, gm)?;
    let g2 = square(l, g)?;
    let k = num(l, 1.0 - gamma);
    let b = mul(l, g2, k)?;
    add(l, a, b)
}

/// `1 - jnp.asarray(b, d) ** (i + 1)`: Adam's bias correction.
fn bias_correction<L: Lax>(l: &mut L, b: f64, i: &L::V, d: DType) -> Res<L, L::V> {
    let base = lit(l, b, d);
    let one = int(l, 1);
    let n = add(l, i.clone(), one)?;
    let p = jnp::power(l, base, n)?;
    let one = int(l, 1);
    sub(l, one, p)
}

/// `l2_norm(tree)`: `sqrt(sum(vdot(x, x) for x in leaves))`.
pub fn l2_norm<L: Lax>(l: &mut L, leaves: &[L::V]) -> Res<L, L::V> {
    float_dtypes(l, leaves, "tree")?;
    let mut total = int(l, 0);
    for x in leaves {
        let a = l.aval(x);
        let n: usize = a
            .shape
            .iter()
            .map(|d| match d {
                Dim::Lit(n) => *n,
                Dim::Sym(_) => 1,
            })
            .product();
        let flat = jnp::reshape(l, x.clone(), vec![Dim::Lit(n)])?;
        let xx = binary(l, &prims::MUL, flat.clone(), flat)?;
        let s = jnp::reduce(l, Reduction::Sum, xx, None, false)?;
        total = add(l, total, s)?;
    }
    l.unary(&prims::SQRT, total)
}

/// `clip_grads(grads, max_norm)`: each leaf scaled by `max_norm / norm`
/// where the tree's norm is at least `max_norm`.
pub fn clip_grads<L: Lax>(l: &mut L, grads: &[L::V], max_norm: f64) -> Res<L, Vec<L::V>> {
    let norm = l2_norm(l, grads)?;
    grads
        .iter()
        .map(|g| {
            let m = num(l, max_norm);
            let keep = binary(l, &prims::LT, norm.clone(), m)?;
            let m = num(l, max_norm);
            let k = true_divide(l, m, norm.clone())?;
            let scaled = mul(l, g.clone(), k)?;
            where_(l, keep, g.clone(), scaled)
        })
        .collect()
}
