//! JAX's `jax.example_libraries.optimizers`: `sgd`, `momentum`,
//! `nesterov`, `adagrad`, `rmsprop`, `rmsprop_momentum`, `adam`, `adamax`,
//! the step size schedules `constant`, `exponential_decay`,
//! `inverse_time_decay`, `polynomial_decay`, `piecewise_constant`, and
//! `l2_norm` and `clip_grads`.
//!
//! JAX's functional triple `opt_init, opt_update, get_params =
//! optimizers.momentum(step_size, mass)` is one value here, whose methods
//! are the three functions: `opt.init(&params)`, `opt.update(i, &grads,
//! state)`, `opt.get_params(&state)`. The state holds the params (its `x`)
//! and the optimizer's other trees, each shaped like the params; the step
//! `i` is the caller's count, a plain integer as in JAX's examples. JAX's
//! optional keywords are builder methods (`adam(1e-3).b1(0.8)`).
//!
//! Each formula is JAX's, leaf by leaf, with its operations in JAX's order
//! and JAX's types (a hyperparameter is a weakly typed Python number): the
//! trajectories are JAX's to the bit (`tests/transforms/optimizers.rs`).
//! Inside `#[jax::jit]` the same calls are traced, and the state types are
//! named in signatures (`s: optimizers::MomentumState<Params>`).
//!
//! ```
//! use jax::example_libraries::optimizers::{self, Optimizer};
//! use jax::Array;
//!
//! // Minimize (x - 3)^2 with JAX's momentum.
//! let opt = optimizers::momentum(0.05, 0.9);
//! let mut state = opt.init(&Array::<f32, 1>::from([0.0]));
//! for i in 0..200 {
//!     let x = opt.get_params(&state);
//!     let g = (&x - 3.0) * 2.0;
//!     state = opt.update(i, &g, state);
//! }
//! assert!((opt.get_params(&state).to_vec()[0] - 3.0).abs() < 1e-3);
//! ```

use jax_core::optimizers as core;

use crate::eager::unit;
use crate::optim::leaves::{leaves, with_leaves};
use crate::tree::{DynArray, Leaf, Pytree, TreeDef};
use crate::Array;

/// A step size: a number (`constant`) or a schedule of the step number.
///
/// ```
/// use jax::example_libraries::optimizers;
/// let s = optimizers::exponential_decay(0.1, 10, 0.5);
/// assert_eq!(s.at(10).item(), 0.05);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StepSize(core::StepSize);

impl From<f64> for StepSize {
    fn from(v: f64) -> StepSize {
        StepSize(core::StepSize::Constant(v))
    }
}

impl From<f32> for StepSize {
    fn from(v: f32) -> StepSize {
        StepSize(core::StepSize::Constant(v as f64))
    }
}

impl StepSize {
    /// The step size at step `i`, as JAX computes it (in its types, then
    /// as `float32`).
    #[track_caller]
    pub fn at(&self, i: impl Step) -> Array<f32> {
        let s = self.0.clone();
        let outs = run(&format!("step_size {s:?}"), &[i.leaf()], &move |t, ins| {
            let v = core::step_size(t, &s, &ins[0])?;
            Ok(vec![jax_core::jnp::convert(
                t,
                v,
                jax_dtypes::DType::F32,
                false,
            )?])
        });
        with_leaves(&Array::from(0.0f32), outs)
    }
}

/// JAX's `constant(step_size)`.
pub fn constant(step_size: f64) -> StepSize {
    StepSize(core::StepSize::Constant(step_size))
}

/// JAX's `exponential_decay(step_size, decay_steps, decay_rate)`:
/// `step_size * decay_rate ** (i / decay_steps)`.
pub fn exponential_decay(step_size: f64, decay_steps: impl Into<f64>, decay_rate: f64) -> StepSize {
    StepSize(core::StepSize::ExponentialDecay {
        step_size,
        decay_steps: decay_steps.into(),
        decay_rate,
    })
}

/// JAX's `inverse_time_decay(step_size, decay_steps, decay_rate,
/// staircase)`: `step_size / (1 + decay_rate * i / decay_steps)`, the
/// quotient `i / decay_steps` floored first with `staircase`.
pub fn inverse_time_decay(
    step_size: f64,
    decay_steps: impl Into<f64>,
    decay_rate: f64,
    staircase: bool,
) -> StepSize {
    StepSize(core::StepSize::InverseTimeDecay {
        step_size,
        decay_steps: decay_steps.into(),
        decay_rate,
        staircase,
    })
}

/// JAX's `polynomial_decay(step_size, decay_steps, final_step_size,
/// power)`: from `step_size` to `final_step_size` over `decay_steps`.
pub fn polynomial_decay(
    step_size: f64,
    decay_steps: i64,
    final_step_size: f64,
    power: f64,
) -> StepSize {
    StepSize(core::StepSize::PolynomialDecay {
        step_size,
        decay_steps,
        final_step_size,
        power,
    })
}

/// JAX's `piecewise_constant(boundaries, values)`: `values[k]` where `k`
/// boundaries are below the step.
///
/// # Panics
/// Unless there is one more value than boundaries (JAX's `ValueError`).
#[track_caller]
pub fn piecewise_constant<const B: usize, const V: usize>(
    boundaries: [i64; B],
    values: [f64; V],
) -> StepSize {
    assert!(
        V == B + 1,
        "boundaries length must be one shorter than values length"
    );
    StepSize(core::StepSize::PiecewiseConstant {
        boundaries: boundaries.to_vec(),
        values: values.to_vec(),
    })
}

/// A step number: what `update` and [`StepSize::at`] take. A Rust integer
/// is a weakly typed `int32` scalar, as a Python `int` is in JAX.
pub trait Step {
    /// The step as a leaf.
    fn leaf(&self) -> DynArray;
}

macro_rules! int_step {
    ($($t:ty),*) => {$(
        impl Step for $t {
            #[track_caller]
            fn leaf(&self) -> DynArray {
                let v = i32::try_from(*self).unwrap_or_else(|_| {
                    panic!("the step number {} does not fit in int32", self)
                });
                DynArray::scalar(v).with_weak(true)
            }
        }
    )*};
}
int_step!(i32, i64, u32, usize);

/// A step already an array (a scalar of `int32` or `int64`), as it is.
macro_rules! array_step {
    ($($t:ty),*) => {$(
        impl Step for Array<$t> {
            fn leaf(&self) -> DynArray {
                self.to_dyn()
            }
        }

        impl Step for &Array<$t> {
            fn leaf(&self) -> DynArray {
                self.to_dyn()
            }
        }
    )*};
}
array_step!(i32, i64);

/// An optimizer of `jax.example_libraries.optimizers` over params of type
/// `P`: JAX's `(init, update, get_params)`.
pub trait Optimizer<P: Pytree> {
    /// The state: the params and the optimizer's other trees (a pytree, so
    /// it goes through `#[jax::jit]`).
    type State: Pytree;
    /// The state before the first step (`opt_init(params)`).
    fn init(&self, params: &P) -> Self::State;
    /// The state after step `i` with gradients `grads` (`opt_update(i, g,
    /// state)`).
    fn update(&self, i: impl Step, grads: &P, state: Self::State) -> Self::State;
    /// The params the state holds (`get_params(state)`).
    fn get_params(&self, state: &Self::State) -> P;
}

/// Runs `f` of `ins` as one unit program named by `statics`.
#[track_caller]
fn run(statics: &str, ins: &[DynArray], f: unit::Composite) -> Vec<DynArray> {
    crate::optim::leaves::run_unit("optimizers", statics, ins, f)
}

/// `o`'s initial trees over `params`.
#[track_caller]
fn init_trees<P: Pytree>(o: &core::Optimizer, params: &P) -> Vec<P> {
    let ins = leaves(params);
    let n = ins.len();
    let outs = run(&format!("init {o:?}"), &ins, &|t, ins| {
        Ok(core::init(t, o, &ins)?.into_iter().flatten().collect())
    });
    let k = core::state_fields(o.state_name())
        .expect("a state struct")
        .len();
    trees_of(outs, n, k, params)
}

/// Flat leaves as `k` trees of `n` leaves shaped like `template`.
fn trees_of<P: Pytree>(outs: Vec<DynArray>, n: usize, k: usize, template: &P) -> Vec<P> {
    if n == 0 {
        return vec![template.clone(); k];
    }
    outs.chunks(n)
        .map(|c| with_leaves(template, c.to_vec()))
        .collect()
}

/// `o`'s trees after step `i`.
#[track_caller]
fn update_trees<P: Pytree>(o: &core::Optimizer, i: &dyn Step, grads: &P, trees: &[&P]) -> Vec<P> {
    let g = leaves(grads);
    let n = g.len();
    let mut ins = vec![i.leaf()];
    ins.extend(g);
    for t in trees {
        ins.extend(leaves(*t));
    }
    let k = trees.len();
    let outs = run(&format!("update {o:?}"), &ins, &|t, ins| {
        let (g, rest) = ins[1..].split_at(n);
        let state = if n == 0 {
            vec![Vec::new(); k]
        } else {
            rest.chunks(n).map(|c| c.to_vec()).collect()
        };
        Ok(core::update(t, o, &ins[0], g, state)?
            .into_iter()
            .flatten()
            .collect())
    });
    trees_of(outs, n, k, grads)
}

macro_rules! state {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident),* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<P> {
            $($(#[$fdoc])* pub $field: P,)*
        }

        impl<P: Pytree> Pytree for $name<P> {
            fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
                $(self.$field.for_each_leaf(f);)*
            }
            fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
                $(self.$field.for_each_leaf_mut(f);)*
            }
            fn def(&self) -> TreeDef {
                TreeDef::Node {
                    name: stringify!($name),
                    fields: vec![$(stringify!($field)),*],
                    children: vec![$(self.$field.def()),*],
                }
            }
        }

        impl<P> $name<P> {
            fn trees(&self) -> Vec<&P> {
                vec![$(&self.$field),*]
            }
            fn from_trees(trees: Vec<P>) -> Self {
                let mut it = trees.into_iter();
                $name { $($field: it.next().expect("one tree per field"),)* }
            }
        }
    };
}

macro_rules! optimizer {
    ($(#[$doc:meta])* $name:ident => $state:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name(core::Optimizer);

        impl<P: Pytree> Optimizer<P> for $name {
            type State = $state<P>;
            #[track_caller]
            fn init(&self, params: &P) -> $state<P> {
                $state::from_trees(init_trees(&self.0, params))
            }
            #[track_caller]
            fn update(&self, i: impl Step, grads: &P, state: $state<P>) -> $state<P> {
                $state::from_trees(update_trees(&self.0, &i, grads, &state.trees()))
            }
            fn get_params(&self, state: &$state<P>) -> P {
                state.trees()[0].clone()
            }
        }

        impl $name {
            /// The optimizer as `jax_core::optimizers` computes it.
            pub fn core(&self) -> &core::Optimizer {
                &self.0
            }
        }
    };
}

macro_rules! setters {
    ($name:ident: $($(#[$doc:meta])* $f:ident),*) => {
        impl $name {
            $(
                $(#[$doc])*
                pub fn $f(mut self, v: f64) -> Self {
                    let known = self.0.set(stringify!($f), v);
                    debug_assert!(known, "a hyperparameter of this optimizer");
                    self
                }
            )*
        }
    };
}

state! {
    /// The state of [`sgd`]: the params.
    SgdState {
        /// The params.
        x
    }
}

state! {
    /// The state of [`momentum`] and [`nesterov`].
    MomentumState {
        /// The params.
        x,
        /// `mass * velocity + g`.
        velocity
    }
}

state! {
    /// The state of [`adagrad`].
    AdagradState {
        /// The params.
        x,
        /// The running sum of squared gradients.
        g_sq,
        /// The momentum of the scaled gradients.
        m
    }
}

state! {
    /// The state of [`rmsprop`].
    RmspropState {
        /// The params.
        x,
        /// A moving average of the squared gradients.
        avg_sq_grad
    }
}

state! {
    /// The state of [`rmsprop_momentum`].
    RmspropMomentumState {
        /// The params.
        x,
        /// A moving average of the squared gradients.
        avg_sq_grad,
        /// The momentum of the steps.
        mom
    }
}

state! {
    /// The state of [`adam`].
    AdamState {
        /// The params.
        x,
        /// The first moment estimate.
        m,
        /// The second moment estimate.
        v
    }
}

state! {
    /// The state of [`adamax`].
    AdamaxState {
        /// The params.
        x,
        /// The first moment estimate.
        m,
        /// The exponentially weighted infinity norm.
        u
    }
}

optimizer! {
    /// JAX's `sgd`. See [`sgd`].
    Sgd => SgdState
}
optimizer! {
    /// JAX's `momentum` (and `nesterov`). See [`momentum`].
    Momentum => MomentumState
}
optimizer! {
    /// JAX's `adagrad`. See [`adagrad`].
    Adagrad => AdagradState
}
optimizer! {
    /// JAX's `rmsprop`. See [`rmsprop`].
    Rmsprop => RmspropState
}
optimizer! {
    /// JAX's `rmsprop_momentum`. See [`rmsprop_momentum`].
    RmspropMomentum => RmspropMomentumState
}
optimizer! {
    /// JAX's `adam`. See [`adam`].
    Adam => AdamState
}
optimizer! {
    /// JAX's `adamax`. See [`adamax`].
    Adamax => AdamaxState
}

setters!(Adagrad:
    /// The momentum of the scaled gradients (JAX's default 0.9).
    momentum);
setters!(Rmsprop:
    /// The decay of the average (JAX's default 0.9).
    gamma,
    /// Added under the square root (JAX's default 1e-8).
    eps);
setters!(RmspropMomentum:
    /// The decay of the average (JAX's default 0.9).
    gamma,
    /// Added under the square root (JAX's default 1e-8).
    eps,
    /// The momentum (JAX's default 0.9).
    momentum);
setters!(Adam:
    /// The first moment's decay (JAX's default 0.9).
    b1,
    /// The second moment's decay (JAX's default 0.999).
    b2,
    /// Added to the denominator (JAX's default 1e-8).
    eps);
setters!(Adamax:
    /// The first moment's decay (JAX's default 0.9).
    b1,
    /// The infinity norm's decay (JAX's default 0.999).
    b2,
    /// Added to the denominator (JAX's default 1e-8).
    eps);

/// JAX's optimizer `name` with its defaults (`core::Optimizer::new`).
fn made(name: &str, step_size: impl Into<StepSize>, required: &[f64]) -> core::Optimizer {
    core::Optimizer::new(name, step_size.into().0, required).expect("one of JAX's optimizers")
}

/// JAX's `sgd(step_size)`: `x - step_size(i) * g`.
///
/// ```
/// use jax::example_libraries::optimizers::{self, Optimizer};
/// let opt = optimizers::sgd(0.5);
/// let s = opt.update(0, &jax::Array::<f32, 2>::from([2.0, 4.0]), opt.init(&jax::Array::<f32, 2>::ones()));
/// assert_eq!(opt.get_params(&s).to_vec(), [0.0, -1.0]);
/// ```
pub fn sgd(step_size: impl Into<StepSize>) -> Sgd {
    Sgd(made("sgd", step_size, &[]))
}

/// JAX's `momentum(step_size, mass)`: `velocity = mass * velocity + g`,
/// `x - step_size(i) * velocity`.
pub fn momentum(step_size: impl Into<StepSize>, mass: f64) -> Momentum {
    Momentum(made("momentum", step_size, &[mass]))
}

/// JAX's `nesterov(step_size, mass)`: momentum with the step taken from
/// `mass * velocity + g`.
pub fn nesterov(step_size: impl Into<StepSize>, mass: f64) -> Momentum {
    Momentum(made("nesterov", step_size, &[mass]))
}

/// JAX's `adagrad(step_size)` (with momentum 0.9; [`Adagrad::momentum`]).
pub fn adagrad(step_size: impl Into<StepSize>) -> Adagrad {
    Adagrad(made("adagrad", step_size, &[]))
}

/// JAX's `rmsprop(step_size)` (gamma 0.9, eps 1e-8).
pub fn rmsprop(step_size: impl Into<StepSize>) -> Rmsprop {
    Rmsprop(made("rmsprop", step_size, &[]))
}

/// JAX's `rmsprop_momentum(step_size)` (gamma 0.9, eps 1e-8, momentum 0.9).
pub fn rmsprop_momentum(step_size: impl Into<StepSize>) -> RmspropMomentum {
    RmspropMomentum(made("rmsprop_momentum", step_size, &[]))
}

/// JAX's `adam(step_size)` (b1 0.9, b2 0.999, eps 1e-8).
pub fn adam(step_size: impl Into<StepSize>) -> Adam {
    Adam(made("adam", step_size, &[]))
}

/// JAX's `adamax(step_size)` (b1 0.9, b2 0.999, eps 1e-8).
pub fn adamax(step_size: impl Into<StepSize>) -> Adamax {
    Adamax(made("adamax", step_size, &[]))
}

/// JAX's `l2_norm(tree)`: the square root of the sum of every leaf's
/// squares.
///
/// ```
/// let n = jax::example_libraries::optimizers::l2_norm(&(jax::Array::<f32, 2>::from([3.0, 0.0]), jax::Array::<f32>::from(4.0)));
/// assert_eq!(n.item(), 5.0);
/// ```
#[track_caller]
pub fn l2_norm<P: Pytree>(tree: &P) -> Array<f32> {
    let ins = leaves(tree);
    let outs = run("l2_norm", &ins, &|t, ins| {
        let n = core::l2_norm(t, &ins)?;
        Ok(vec![jax_core::jnp::convert(
            t,
            n,
            jax_dtypes::DType::F32,
            false,
        )?])
    });
    with_leaves(&Array::from(0.0f32), outs)
}

/// JAX's `clip_grads(grads, max_norm)`: the tree scaled down to norm
/// `max_norm` if its norm is larger.
#[track_caller]
pub fn clip_grads<P: Pytree>(grads: &P, max_norm: f64) -> P {
    let ins = leaves(grads);
    let outs = run(&format!("clip_grads {max_norm:?}"), &ins, &|t, ins| {
        core::clip_grads(t, &ins, max_norm)
    });
    with_leaves(grads, outs)
}
