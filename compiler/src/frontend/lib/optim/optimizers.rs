//! `jax::example_libraries::optimizers` inside `#[jax::jit]` bodies:
//! `optimizers::momentum(0.1, 0.9)` and the other constructors (and the
//! step size schedules) evaluate to compile-time values; `opt.init(&p)`,
//! `opt.update(i, &g, state)` and `opt.get_params(&state)`,
//! `optimizers::l2_norm(&tree)` and `optimizers::clip_grads(&g, max_norm)`
//! run the one text of `jax_core::optimizers` over the trees' leaves. The
//! state is a struct value named `optimizers::MomentumState` etc., read
//! from and written to `::jax::example_libraries::optimizers::MomentumState
//! { .. }` in signatures.

use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use jax_core::optimizers as core;

use super::rules::{array_leaves, tree_of};
use super::{integer, number};
use crate::frontend::trace::optim::{Optimizer, Static, StepSize, OPTIMIZERS_PREFIX};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Scalar};

const CONSTRUCTORS: &[(&str, usize)] = &[
    ("sgd", 1),
    ("momentum", 2),
    ("nesterov", 2),
    ("adagrad", 1),
    ("rmsprop", 1),
    ("rmsprop_momentum", 1),
    ("adam", 1),
    ("adamax", 1),
    ("constant", 1),
    ("exponential_decay", 3),
    ("inverse_time_decay", 4),
    ("polynomial_decay", 4),
    ("piecewise_constant", 2),
    ("l2_norm", 1),
    ("clip_grads", 2),
];

fn wrap(s: Static) -> Result<Option<Value>> {
    Ok(Some(Value::Optim(Rc::new(s))))
}

/// A step size argument: a number or a schedule.
fn step_size(v: &Value, span: Span, f: &str) -> Result<StepSize> {
    match v {
        Value::Optim(s) => match &**s {
            Static::StepSize(s) => Ok(s.clone()),
            _ => err(span, "a step size is a number or a schedule of `optimizers` (`optimizers::exponential_decay(..)`)"),
        },
        v => Ok(StepSize::Constant(number(
            v,
            span,
            &format!("the step size of `optimizers::{f}`"),
        )?)),
    }
}

/// A list of numbers written as a Rust array (`[4, 9]`).
fn numbers(v: &Value, span: Span, what: &str) -> Result<Vec<Value>> {
    match v {
        Value::List(items) | Value::Tuple(items) => Ok(items.clone()),
        _ => err(
            span,
            format!("{what} is a list of numbers known when the function compiles: `[4, 9]`"),
        ),
    }
}

/// `optimizers::NAME(..)`.
pub(crate) fn call(
    t: &mut Tracer,
    name: &str,
    p: &syn::ExprPath,
    c: &syn::ExprCall,
) -> Result<Value> {
    let span = c.span();
    let arity = super::arity(
        CONSTRUCTORS,
        "optimizers",
        name,
        p,
        c,
        "; JAX's optional keywords are methods: `optimizers::adam(0.001).b1(0.8)`",
    )?;
    let args = t.args(&c.args)?;
    let arg = |k: usize| (&args[k].0, args[k].1);
    let num = |k: usize, what: &str| {
        number(
            arg(k).0,
            arg(k).1,
            &format!("`optimizers::{name}`'s {what}"),
        )
    };
    let int = |k: usize, what: &str| {
        integer(
            arg(k).0,
            arg(k).1,
            &format!("`optimizers::{name}`'s {what}"),
        )
    };
    let lr = || step_size(arg(0).0, arg(0).1, name);
    let opt = |o: Optimizer| wrap(Static::Optimizer(o));
    let sched = |s: StepSize| wrap(Static::StepSize(s));
    let out = match name {
        "sgd" | "momentum" | "nesterov" | "adagrad" | "rmsprop" | "rmsprop_momentum" | "adam"
        | "adamax" => {
            let mass = if arity == 2 {
                vec![num(1, "mass")?]
            } else {
                vec![]
            };
            opt(Optimizer::new(name, lr()?, &mass).expect("a constructor of the table"))
        }
        "constant" => sched(StepSize::Constant(num(0, "step_size")?)),
        "exponential_decay" => sched(StepSize::ExponentialDecay {
            step_size: num(0, "step_size")?,
            decay_steps: num(1, "decay_steps")?,
            decay_rate: num(2, "decay_rate")?,
        }),
        "inverse_time_decay" => sched(StepSize::InverseTimeDecay {
            step_size: num(0, "step_size")?,
            decay_steps: num(1, "decay_steps")?,
            decay_rate: num(2, "decay_rate")?,
            staircase: super::boolean(
                arg(3).0,
                arg(3).1,
                "`optimizers::inverse_time_decay`'s staircase",
            )?,
        }),
        "polynomial_decay" => sched(StepSize::PolynomialDecay {
            step_size: num(0, "step_size")?,
            decay_steps: int(1, "decay_steps")?,
            final_step_size: num(2, "final_step_size")?,
            power: num(3, "power")?,
        }),
        "piecewise_constant" => {
            let b = numbers(
                arg(0).0,
                arg(0).1,
                "`optimizers::piecewise_constant`'s boundaries",
            )?;
            let v = numbers(
                arg(1).0,
                arg(1).1,
                "`optimizers::piecewise_constant`'s values",
            )?;
            let boundaries = b
                .iter()
                .map(|x| integer(x, arg(0).1, "a boundary"))
                .collect::<Result<Vec<_>>>()?;
            let values = v
                .iter()
                .map(|x| number(x, arg(1).1, "a value"))
                .collect::<Result<Vec<_>>>()?;
            if values.len() != boundaries.len() + 1 {
                return err(
                    span,
                    "boundaries length must be one shorter than values length",
                );
            }
            sched(StepSize::PiecewiseConstant { boundaries, values })
        }
        "l2_norm" => {
            let leaves = array_leaves(arg(0).0, arg(0).1, "tree")?;
            // As float32, as the eager `optimizers::l2_norm` returns it.
            let mut l = t.at(span);
            let n = core::l2_norm(&mut l, &leaves)?;
            let n = jax_core::jnp::convert(&mut l, n, jax_dtypes::DType::F32, false)?;
            Ok(Some(Value::Traced(n)))
        }
        "clip_grads" => {
            let leaves = array_leaves(arg(0).0, arg(0).1, "gradients")?;
            let max_norm = num(1, "max_norm")?;
            let out = core::clip_grads(&mut t.at(span), &leaves, max_norm)?;
            Ok(Some(tree_of(arg(0).0, out)))
        }
        _ => unreachable!("every constructor has an arm"),
    }?;
    Ok(out.expect("a value"))
}

/// The state value's trees' leaves, checked to be `o`'s state struct.
fn state_trees(o: &Optimizer, state: &Value, span: Span) -> Result<(Vec<Vec<Atom>>, Value)> {
    let want = o.state_name();
    match state {
        Value::Struct(name, fields) if name.strip_prefix(OPTIMIZERS_PREFIX) == Some(want) => {
            let trees = fields
                .iter()
                .map(|(_, v)| array_leaves(v, span, "state"))
                .collect::<Result<_>>()?;
            let template = fields.first().map(|(_, v)| v.clone()).expect("an `x` tree");
            Ok((trees, template))
        }
        Value::Struct(name, _) => err(
            span,
            format!("this optimizer's state is a `optimizers::{want}`, got a `{name}`"),
        ),
        _ => err(
            span,
            format!("this optimizer's state is a `optimizers::{want}` (what its `.init(&params)` returns)"),
        ),
    }
}

/// The state as a value: `optimizers::NAME { x, .. }`, each tree of
/// `template`'s structure.
fn state_value(o: &Optimizer, trees: Vec<Vec<Atom>>, template: &Value) -> Value {
    let name = o.state_name();
    let fields = core::state_fields(name).expect("a state struct");
    let out = fields
        .iter()
        .zip(trees)
        .map(|(f, t)| (f.to_string(), tree_of(template, t)))
        .collect();
    Value::Struct(format!("{OPTIMIZERS_PREFIX}{name}"), out)
}

/// A method of an optimizer (`init`, `update`, `get_params`, a
/// hyperparameter's setter) or of a schedule.
pub(crate) fn method(t: &mut Tracer, recv: &Static, m: &syn::ExprMethodCall) -> Result<Value> {
    let name = m.method.to_string();
    let span = m.span();
    let args = t.args(&m.args)?;
    match recv {
        Static::Optimizer(o) => match name.as_str() {
            "init" => {
                if args.len() != 1 {
                    return err(span, "`.init(&params)` takes the params");
                }
                let leaves = array_leaves(&args[0].0, args[0].1, "params")?;
                let trees = core::init(&mut t.at(span), o, &leaves)?;
                Ok(state_value(o, trees, &args[0].0))
            }
            "update" => {
                if args.len() != 3 {
                    return err(span, "`.update(i, &grads, state)` takes the step number, the gradients and the state");
                }
                let i = t.atom(args[0].0.clone(), args[0].1)?;
                let g = array_leaves(&args[1].0, args[1].1, "gradients")?;
                let (trees, _) = state_trees(o, &args[2].0, args[2].1)?;
                let trees = core::update(&mut t.at(span), o, &i, &g, trees)?;
                Ok(state_value(o, trees, &args[1].0))
            }
            "get_params" => {
                if args.len() != 1 {
                    return err(span, "`.get_params(&state)` takes the state");
                }
                let (_, x) = state_trees(o, &args[0].0, args[0].1)?;
                Ok(x)
            }
            _ => {
                if args.len() != 1 {
                    return err(span, format!("`.{name}()` takes one argument"));
                }
                let v = number(&args[0].0, args[0].1, &format!("`.{name}()`"))?;
                let mut o = o.clone();
                if !o.set(&name, v) {
                    return err(m.method.span(), format!("this optimizer has no method `.{name}()` in #[jax::jit] (`.init`, `.update`, `.get_params`, and the setters of its JAX keywords)"));
                }
                Ok(Value::Optim(Rc::new(Static::Optimizer(o))))
            }
        },
        Static::StepSize(s) => match name.as_str() {
            "at" => {
                if args.len() != 1 {
                    return err(span, "`.at(i)` takes the step number");
                }
                let i = match &args[0].0 {
                    Value::Static(Scalar::Int(_)) | Value::Traced(_) => {
                        t.atom(args[0].0.clone(), args[0].1)?
                    }
                    _ => return err(args[0].1, "the step number is an integer"),
                };
                // As float32, as the eager `StepSize::at` returns it.
                let mut l = t.at(span);
                let v = core::step_size(&mut l, s, &i)?;
                Ok(Value::Traced(jax_core::jnp::convert(
                    &mut l,
                    v,
                    jax_dtypes::DType::F32,
                    false,
                )?))
            }
            _ => err(
                m.method.span(),
                format!("a step size schedule has no method `.{name}()`; `.at(i)` is its value at step `i`"),
            ),
        },
        _ => unreachable!("optax's values, layers and initializers are not `optimizers`'"),
    }
}
