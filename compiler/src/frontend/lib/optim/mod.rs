//! `jax::optim` inside `#[jax::jit]` bodies: `optim::adam(1e-3)` and the
//! other constructors evaluate to a compile-time optimizer ([`Static`]);
//! `opt.init(&params)`, `opt.update(&grads, state, &params)` and
//! `optim::apply_updates(&p, &u)` unroll optax's per-leaf formulas over
//! the params tree with the NumPy layer, in the order of float operations
//! the eager `jax::optim` (runtime/optim/) uses. The state is a struct
//! value named `optim::AdamState` etc., read from and written to
//! `::jax::optim::AdamState { .. }` in signatures.

pub(crate) mod optimizers;
pub(crate) mod rules;
pub(crate) mod stax;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::lib::optim::rules::*;
pub(crate) use crate::frontend::trace::optim::{Opt, Sched, Static, PREFIX};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::Scalar;

/// A hyperparameter: a number known when the function compiles.
pub(super) fn number(v: &Value, span: Span, what: &str) -> Result<f64> {
    match v {
        Value::Static(Scalar::Float(f)) => Ok(*f),
        Value::Static(Scalar::Int(i)) => Ok(*i as f64),
        Value::Traced(_) | Value::Symbolic(_) => err(
            span,
            format!("{what} must be known when the function compiles (a literal or a const): optimizers are static values in #[jax::jit], and a traced hyperparameter is not supported; for a learning rate that changes, use a schedule such as `optim::exponential_decay(..)`"),
        ),
        _ => err(span, format!("{what} must be a number")),
    }
}

pub(super) fn integer(v: &Value, span: Span, what: &str) -> Result<i64> {
    match v {
        Value::Static(Scalar::Int(i)) => Ok(*i as i64),
        _ => {
            number(v, span, what)?;
            err(
                span,
                format!("{what} must be an integer (a number of steps)"),
            )
        }
    }
}

pub(super) fn boolean(v: &Value, span: Span, what: &str) -> Result<bool> {
    match v {
        Value::Static(Scalar::Bool(b)) => Ok(*b),
        _ => err(span, format!("{what} must be `true` or `false`")),
    }
}

fn learning_rate(v: &Value, span: Span, f: &str) -> Result<Sched> {
    match v {
        Value::Optim(s) => match &**s {
            Static::Sched(s) => Ok(s.clone()),
            Static::Opt(_) | Static::Optimizer(_) => err(
                span,
                "a learning rate is a number or a schedule, not an optimizer",
            ),
            Static::StepSize(_) => err(
                span,
                "a schedule of `optimizers` is a step size of `optimizers`' optimizers; `optim` takes its own schedules (`optim::exponential_decay(..)`)",
            ),
            Static::Layer(_) | Static::Init(_) => err(
                span,
                "a learning rate is a number or a schedule, not a layer or an initializer",
            ),
        },
        v => Ok(Sched::Constant(number(
            v,
            span,
            &format!("the learning rate of `optim::{f}`"),
        )?)),
    }
}

const CONSTRUCTORS: &[(&str, usize)] = &[
    ("sgd", 1),
    ("sgd_with", 3),
    ("adam", 1),
    ("adamw", 2),
    ("rmsprop", 1),
    ("adagrad", 1),
    ("lion", 1),
    ("clip_by_global_norm", 1),
    ("chain", 1),
    ("constant", 1),
    ("exponential_decay", 3),
    ("cosine_decay", 2),
    ("warmup_cosine_decay", 5),
    ("apply_updates", 2),
];

/// Checks that `module::name` is in `table` and called with its arity
/// (`hint` follows the count's message); returns the arity.
pub(super) fn arity(
    table: &[(&str, usize)],
    module: &str,
    name: &str,
    p: &syn::ExprPath,
    c: &syn::ExprCall,
    hint: &str,
) -> Result<usize> {
    let Some(&(_, arity)) = table.iter().find(|(n, _)| *n == name) else {
        let known: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        return err(
            p.span(),
            format!(
                "`{module}::{name}` is not available in #[jax::jit]; {module} has {}",
                known.join(", ")
            ),
        );
    };
    if c.args.len() != arity {
        return err(
            c.span(),
            format!(
                "`{module}::{name}` takes {arity} argument(s), got {}{hint}",
                c.args.len()
            ),
        );
    }
    Ok(arity)
}

/// `optim::NAME(..)`: a constructor or `apply_updates`; `None` for paths
/// not under `optim::`.
pub(crate) fn call(t: &mut Tracer, p: &syn::ExprPath, c: &syn::ExprCall) -> Result<Option<Value>> {
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    if let [name] = segs.as_slice() {
        if stax::is_layer_constructor(name) {
            // The import is checked to be stax's (and so used).
            let id = &p.path.segments[0].ident;
            t.library_uses
                .push((id.clone(), "jax::example_libraries::stax"));
            return stax::call_layer(t, name, p, c).map(Some);
        }
    }
    let [.., m, name] = segs.as_slice() else {
        return Ok(None);
    };
    // `stax::serial(..)` after `use jax::example_libraries::stax;`: the
    // module imported is checked to be the library's (and so used).
    if segs.len() == 2 {
        let parent = match m.as_str() {
            "stax" | "optimizers" => Some("jax::example_libraries"),
            "initializers" => Some("jax::nn"),
            "optim" => Some("jax"),
            _ => None,
        };
        if let Some(parent) = parent {
            let id = &p.path.segments[0].ident;
            t.library_uses.push((id.clone(), parent));
        }
    }
    if m == "stax" {
        return stax::call_layer(t, name, p, c).map(Some);
    }
    if m == "initializers" {
        return stax::call_init(t, name, p, c).map(Some);
    }
    if m == "optimizers" {
        return optimizers::call(t, name, p, c).map(Some);
    }
    if m != "optim" {
        return Ok(None);
    }
    let span = c.span();
    arity(CONSTRUCTORS, "optim", name, p, c, "")?;
    let args = t.args(&c.args)?;
    let arg = |k: usize| (&args[k].0, args[k].1);
    let num =
        |k: usize, what: &str| number(arg(k).0, arg(k).1, &format!("`optim::{name}`'s {what}"));
    let int =
        |k: usize, what: &str| integer(arg(k).0, arg(k).1, &format!("`optim::{name}`'s {what}"));
    let lr = || learning_rate(arg(0).0, arg(0).1, name);
    let opt = |o: Opt| Ok(Some(Value::Optim(std::rc::Rc::new(Static::Opt(o)))));
    let sched = |s: Sched| Ok(Some(Value::Optim(std::rc::Rc::new(Static::Sched(s)))));
    match name.as_str() {
        "sgd" => opt(Opt::Sgd(lr()?)),
        "sgd_with" => opt(Opt::Momentum {
            lr: lr()?,
            momentum: num(1, "momentum")?,
            nesterov: boolean(arg(2).0, arg(2).1, "`optim::sgd_with`'s nesterov")?,
        }),
        "adam" | "adamw" => opt(Opt::Adam {
            lr: lr()?,
            b1: 0.9,
            b2: 0.999,
            eps: 1e-8,
            eps_root: 0.0,
            weight_decay: if name == "adamw" {
                num(1, "weight decay")?
            } else {
                0.0
            },
        }),
        "rmsprop" => opt(Opt::Rmsprop {
            lr: lr()?,
            decay: 0.9,
            eps: 1e-8,
            initial_scale: 0.0,
        }),
        "adagrad" => opt(Opt::Adagrad {
            lr: lr()?,
            initial: 0.1,
            eps: 1e-7,
        }),
        "lion" => opt(Opt::Lion {
            lr: lr()?,
            b1: 0.9,
            b2: 0.99,
            weight_decay: 1e-3,
        }),
        "clip_by_global_norm" => opt(Opt::Clip(num(0, "max_norm")?)),
        "chain" => {
            let Value::Tuple(items) = arg(0).0 else {
                return err(
                    arg(0).1,
                    "write the stages as a tuple: `optim::chain((a, b))`",
                );
            };
            let mut stages = Vec::new();
            for it in items {
                match it {
                    Value::Optim(s) => match &**s {
                        Static::Opt(o) => stages.push(o.clone()),
                        Static::Sched(_) | Static::StepSize(_) => return err(arg(0).1, "a chain's stages are optimizers"),
                        Static::Optimizer(_) => return err(arg(0).1, "a chain's stages are `optim`'s transformations; `optimizers`' optimizers do not chain (JAX's `example_libraries` has no chain)"),
                        Static::Layer(_) | Static::Init(_) => return err(arg(0).1, "a chain's stages are optimizers"),
                    },
                    _ => return err(arg(0).1, "a chain's stages are optimizers (`optim::adam(..)`, `optim::clip_by_global_norm(..)`)"),
                }
            }
            if !(2..=4).contains(&stages.len()) {
                return err(arg(0).1, "`optim::chain` takes 2 to 4 stages");
            }
            opt(Opt::Chain(stages))
        }
        "constant" => sched(Sched::Constant(num(0, "value")?)),
        "exponential_decay" => sched(Sched::Exponential {
            init: num(0, "init_value")?,
            steps: int(1, "transition_steps")?,
            rate: num(2, "decay_rate")?,
            begin: 0,
            staircase: false,
            end: None,
        }),
        "cosine_decay" => {
            let steps = int(1, "decay_steps")?;
            if steps <= 0 {
                return err(arg(1).1, format!("The cosine_decay_schedule requires positive decay_steps, got decay_steps={steps}."));
            }
            sched(Sched::Cosine {
                init: num(0, "init_value")?,
                steps,
                alpha: 0.0,
                exponent: 1.0,
            })
        }
        "warmup_cosine_decay" => {
            let (warmup, steps) = (int(2, "warmup_steps")?, int(3, "decay_steps")?);
            if steps - warmup <= 0 {
                return err(span, format!("The cosine_decay_schedule requires positive decay_steps, got decay_steps={}.", steps - warmup));
            }
            sched(Sched::WarmupCosine {
                init: num(0, "init_value")?,
                peak: num(1, "peak_value")?,
                warmup,
                steps,
                end: num(4, "end_value")?,
                exponent: 1.0,
            })
        }
        "apply_updates" => {
            let (p, u) = (arg(0).0.clone(), arg(1).0.clone());
            Ok(Some(apply_updates(t, &p, &u, span)?))
        }
        _ => unreachable!("every constructor has an arm"),
    }
}

/// A method of an optimizer or schedule value: a builder method, `init`, `update`.
pub(crate) fn method(
    t: &mut Tracer,
    recv: &Static,
    m: &syn::ExprMethodCall,
    hint: Option<crate::frontend::trace::types::TypeSpec>,
) -> Result<Value> {
    if let Static::Optimizer(_) | Static::StepSize(_) = recv {
        return optimizers::method(t, recv, m);
    }
    if let Static::Layer(_) | Static::Init(_) = recv {
        return stax::method(t, recv, m, hint);
    }
    let name = m.method.to_string();
    let span = m.span();
    let args = t.args(&m.args)?;
    let one = |what: &str| -> Result<f64> {
        if args.len() != 1 {
            return err(span, format!("`.{name}()` takes one argument"));
        }
        number(&args[0].0, args[0].1, what)
    };
    let wrap = |s: Static| Ok(Value::Optim(std::rc::Rc::new(s)));
    match (recv, name.as_str()) {
        (Static::Opt(o), "init") => {
            if args.len() != 1 {
                return err(span, "`.init(&params)` takes the params");
            }
            init(t, o, &args[0].0, args[0].1)
        }
        (Static::Opt(o), "update") => {
            if args.len() != 3 {
                return err(span, "`.update(&grads, state, &params)` takes the gradients, the state and the params");
            }
            let (u, s) = update(t, o, &args[0].0, &args[1].0, &args[2].0, span)?;
            Ok(Value::Tuple(vec![u, s]))
        }
        (Static::Opt(o), _) => {
            let mut o = o.clone();
            let what = format!("`.{name}()`");
            let v = one(&what);
            let slot: Option<&mut f64> = match (&mut o, name.as_str()) {
                (Opt::Adam { b1, .. } | Opt::Lion { b1, .. }, "b1") => Some(b1),
                (Opt::Adam { b2, .. } | Opt::Lion { b2, .. }, "b2") => Some(b2),
                (
                    Opt::Adam { eps, .. } | Opt::Rmsprop { eps, .. } | Opt::Adagrad { eps, .. },
                    "eps",
                ) => Some(eps),
                (Opt::Adam { eps_root, .. }, "eps_root") => Some(eps_root),
                (Opt::Rmsprop { decay, .. }, "decay") => Some(decay),
                (Opt::Rmsprop { initial_scale, .. }, "initial_scale") => Some(initial_scale),
                (Opt::Adagrad { initial, .. }, "initial_accumulator_value") => Some(initial),
                (Opt::Lion { weight_decay, .. }, "weight_decay") => Some(weight_decay),
                _ => None,
            };
            match slot {
                Some(s) => *s = v?,
                None => return err(m.method.span(), format!("this optimizer has no method `.{name}()` in #[jax::jit] (`.init`, `.update`, and the hyperparameter setters of its type)")),
            }
            wrap(Static::Opt(o))
        }
        (Static::Sched(s), _) => {
            let mut s = s.clone();
            let what = format!("`.{name}()`");
            match (&mut s, name.as_str()) {
                (Sched::Exponential { begin, .. }, "transition_begin") => {
                    if args.len() != 1 {
                        return err(span, "`.transition_begin(steps)` takes one argument");
                    }
                    *begin = integer(&args[0].0, args[0].1, &what)?;
                }
                (Sched::Exponential { staircase, .. }, "staircase") => {
                    if args.len() != 1 {
                        return err(span, "`.staircase(on)` takes one argument");
                    }
                    *staircase = boolean(&args[0].0, args[0].1, &what)?;
                }
                (Sched::Exponential { end, .. }, "end_value") => *end = Some(one(&what)?),
                (Sched::Cosine { alpha, .. }, "alpha") => *alpha = one(&what)?,
                (Sched::Cosine { exponent, .. } | Sched::WarmupCosine { exponent, .. }, "exponent") => {
                    *exponent = one(&what)?
                }
                (_, "transition_begin" | "staircase" | "end_value" | "alpha" | "exponent") => {}
                _ => return err(m.method.span(), format!("a schedule has no method `.{name}()` in #[jax::jit]; `.at(step)` is eager only, and the optimizer evaluates its schedule at its own count")),
            }
            wrap(Static::Sched(s))
        }
        (Static::Layer(_) | Static::Init(_), _) => unreachable!("`stax::method`'s"),
        (Static::Optimizer(_) | Static::StepSize(_), _) => {
            unreachable!("`optimizers`' values are `lib::optim::optimizers`'")
        }
    }
}
