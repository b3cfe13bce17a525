//! The optimizers: optax's aliases (`sgd`, `adam`, `adamw`, `rmsprop`,
//! `adagrad`, `lion`) and `clip_by_global_norm`, each one struct of
//! hyperparameters (optax's defaults, changed by builder methods) whose
//! `update` runs optax's chain of transformations as one per-element
//! formula, with optax's float operations in order.

use jax_core::optim::Opt;

use super::leaves;
use super::schedules::Schedule;
use super::states::{AdagradState, AdamState, CountState, LionState, RmsState, TraceState};
use super::GradientTransformation;
use crate::tree::Pytree;

/// Plain stochastic gradient descent: `-lr * grad`. See [`sgd`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sgd {
    /// The learning rate.
    pub learning_rate: Schedule,
}

/// optax's `sgd(learning_rate)`: `params - lr * grad`.
///
/// ```
/// use jax::optim::{apply_updates, sgd, GradientTransformation};
/// use jax::Array;
///
/// let opt = sgd(0.5);
/// let p = Array::<f32, 2>::from([1.0, 2.0]);
/// let s = opt.init(&p);
/// let (u, _) = opt.update(&Array::from([2.0, 2.0]), s, &p);
/// assert_eq!(apply_updates(&p, &u).to_vec(), [0.0, 1.0]);
/// ```
pub fn sgd(learning_rate: impl Into<Schedule>) -> Sgd {
    Sgd {
        learning_rate: learning_rate.into(),
    }
}

impl Sgd {
    /// The optimizer as `jax_core::optim` computes it.
    fn core(&self) -> Opt {
        Opt::Sgd(self.learning_rate.core())
    }
}

impl<P: Pytree> GradientTransformation<P> for Sgd {
    type State = CountState;
    #[track_caller]
    fn init(&self, params: &P) -> CountState {
        let (count, _) = leaves::init(&self.core(), params);
        CountState { count }
    }
    #[track_caller]
    fn update(&self, grads: &P, state: CountState, params: &P) -> (P, CountState) {
        let st = (&state.count, vec![]);
        let (u, st) = leaves::update(&self.core(), grads, Some(st), params);
        let (count, _) = st.expect("a counted state");
        (u, CountState { count })
    }
}

/// SGD with (heavy-ball or Nesterov) momentum. See [`sgd_with`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SgdMomentum {
    /// The learning rate.
    pub learning_rate: Schedule,
    /// The decay of the trace.
    pub momentum: f64,
    /// Nesterov's form: `grad + momentum * trace`.
    pub nesterov: bool,
}

/// optax's `sgd(learning_rate, momentum, nesterov)`.
///
/// ```
/// use jax::optim::{sgd_with, GradientTransformation};
/// use jax::Array;
///
/// let opt = sgd_with(1.0, 0.5, false);
/// let p = Array::<f32, 1>::from([0.0]);
/// let (u1, s) = opt.update(&Array::from([1.0]), opt.init(&p), &p);
/// let (u2, _) = opt.update(&Array::from([1.0]), s, &p);
/// assert_eq!((u1.to_vec(), u2.to_vec()), (vec![-1.0], vec![-1.5]));
/// ```
pub fn sgd_with(learning_rate: impl Into<Schedule>, momentum: f64, nesterov: bool) -> SgdMomentum {
    SgdMomentum {
        learning_rate: learning_rate.into(),
        momentum,
        nesterov,
    }
}

impl SgdMomentum {
    /// The optimizer as `jax_core::optim` computes it.
    fn core(&self) -> Opt {
        Opt::Momentum {
            lr: self.learning_rate.core(),
            momentum: self.momentum,
            nesterov: self.nesterov,
        }
    }
}

impl<P: Pytree> GradientTransformation<P> for SgdMomentum {
    type State = TraceState<P>;
    #[track_caller]
    fn init(&self, params: &P) -> TraceState<P> {
        let (count, trees) = leaves::init(&self.core(), params);
        let [trace]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        TraceState { count, trace }
    }
    #[track_caller]
    fn update(&self, grads: &P, state: TraceState<P>, params: &P) -> (P, TraceState<P>) {
        let st = (&state.count, vec![&state.trace]);
        let (u, st) = leaves::update(&self.core(), grads, Some(st), params);
        let (count, trees) = st.expect("a counted state");
        let [trace]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        (u, TraceState { count, trace })
    }
}

/// Adam, and AdamW with a `weight_decay`. See [`adam`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adam {
    /// The learning rate.
    pub learning_rate: Schedule,
    /// Decay of the first moment (0.9).
    pub b1: f64,
    /// Decay of the second moment (0.999).
    pub b2: f64,
    /// Added to the denominator's square root (1e-8).
    pub eps: f64,
    /// Added inside the square root (0).
    pub eps_root: f64,
    /// Decoupled weight decay (0 for Adam; AdamW's 1e-4).
    pub weight_decay: f64,
}

/// optax's `adam(learning_rate)`; `.b1()`, `.b2()`, `.eps()`, `.eps_root()`
/// change optax's defaults (0.9, 0.999, 1e-8, 0).
///
/// ```
/// use jax::optim::{adam, GradientTransformation};
/// use jax::Array;
///
/// let opt = adam(0.1);
/// let p = Array::<f32, 2>::from([1.0, 1.0]);
/// let (u, s) = opt.update(&Array::from([3.0, -0.5]), opt.init(&p), &p);
/// // The first step moves every coordinate by about the learning rate.
/// assert!(u.to_vec().iter().zip([-0.1, 0.1]).all(|(a, b)| (a - b).abs() < 1e-6));
/// assert_eq!(s.count.item(), 1);
/// ```
pub fn adam(learning_rate: impl Into<Schedule>) -> Adam {
    Adam {
        learning_rate: learning_rate.into(),
        b1: 0.9,
        b2: 0.999,
        eps: 1e-8,
        eps_root: 0.0,
        weight_decay: 0.0,
    }
}

/// optax's `adamw(learning_rate, weight_decay=..)`: Adam plus `weight_decay * params`
/// added to the update before the learning rate scales it.
///
/// ```
/// use jax::optim::{adamw, GradientTransformation};
/// use jax::Array;
///
/// let opt = adamw(0.1, 0.5);
/// let p = Array::<f32, 1>::from([2.0]);
/// let (u, _) = opt.update(&Array::from([0.0]), opt.init(&p), &p);
/// assert!((u.item() - -0.1).abs() < 1e-7); // -lr * (0 + 0.5 * 2)
/// ```
pub fn adamw(learning_rate: impl Into<Schedule>, weight_decay: f64) -> Adam {
    Adam {
        weight_decay,
        ..adam(learning_rate)
    }
}

impl Adam {
    /// Sets `b1`.
    ///
    /// ```
    /// assert_eq!(jax::optim::adam(1e-3).b1(0.8).b1, 0.8);
    /// ```
    pub fn b1(self, b1: f64) -> Self {
        Adam { b1, ..self }
    }
    /// Sets `b2`.
    ///
    /// ```
    /// assert_eq!(jax::optim::adam(1e-3).b2(0.99).b2, 0.99);
    /// ```
    pub fn b2(self, b2: f64) -> Self {
        Adam { b2, ..self }
    }
    /// Sets `eps`.
    ///
    /// ```
    /// assert_eq!(jax::optim::adam(1e-3).eps(1e-6).eps, 1e-6);
    /// ```
    pub fn eps(self, eps: f64) -> Self {
        Adam { eps, ..self }
    }
    /// Sets `eps_root`.
    ///
    /// ```
    /// assert_eq!(jax::optim::adam(1e-3).eps_root(1e-9).eps_root, 1e-9);
    /// ```
    pub fn eps_root(self, eps_root: f64) -> Self {
        Adam { eps_root, ..self }
    }
}

impl Adam {
    /// The optimizer as `jax_core::optim` computes it.
    fn core(&self) -> Opt {
        Opt::Adam {
            lr: self.learning_rate.core(),
            b1: self.b1,
            b2: self.b2,
            eps: self.eps,
            eps_root: self.eps_root,
            weight_decay: self.weight_decay,
        }
    }
}

impl<P: Pytree> GradientTransformation<P> for Adam {
    type State = AdamState<P>;
    #[track_caller]
    fn init(&self, params: &P) -> AdamState<P> {
        let (count, trees) = leaves::init(&self.core(), params);
        let [mu, nu]: [P; 2] = trees.try_into().ok().expect("the state's trees");
        AdamState { count, mu, nu }
    }
    #[track_caller]
    fn update(&self, grads: &P, state: AdamState<P>, params: &P) -> (P, AdamState<P>) {
        let st = (&state.count, vec![&state.mu, &state.nu]);
        let (u, st) = leaves::update(&self.core(), grads, Some(st), params);
        let (count, trees) = st.expect("a counted state");
        let [mu, nu]: [P; 2] = trees.try_into().ok().expect("the state's trees");
        (u, AdamState { count, mu, nu })
    }
}

/// RMSProp. See [`rmsprop`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rmsprop {
    /// The learning rate.
    pub learning_rate: Schedule,
    /// Decay of the squared-gradient average (0.9).
    pub decay: f64,
    /// Added inside the square root (1e-8).
    pub eps: f64,
    /// The squared-gradient average's initial value (0).
    pub initial_scale: f64,
}

/// optax's `rmsprop(learning_rate)` (not centered, no momentum, eps inside
/// the square root); `.decay()`, `.eps()`, `.initial_scale()` change
/// optax's defaults (0.9, 1e-8, 0).
///
/// ```
/// use jax::optim::{rmsprop, GradientTransformation};
/// use jax::Array;
///
/// let opt = rmsprop(0.1);
/// let p = Array::<f32, 1>::from([0.0]);
/// let (u, _) = opt.update(&Array::from([2.0]), opt.init(&p), &p);
/// // -lr * g / sqrt(0.1 * g^2)
/// assert!((u.item() - -0.1 / 0.1f32.sqrt()).abs() < 1e-6);
/// ```
pub fn rmsprop(learning_rate: impl Into<Schedule>) -> Rmsprop {
    Rmsprop {
        learning_rate: learning_rate.into(),
        decay: 0.9,
        eps: 1e-8,
        initial_scale: 0.0,
    }
}

impl Rmsprop {
    /// Sets `decay`.
    ///
    /// ```
    /// assert_eq!(jax::optim::rmsprop(1e-3).decay(0.5).decay, 0.5);
    /// ```
    pub fn decay(self, decay: f64) -> Self {
        Rmsprop { decay, ..self }
    }
    /// Sets `eps`.
    ///
    /// ```
    /// assert_eq!(jax::optim::rmsprop(1e-3).eps(1e-6).eps, 1e-6);
    /// ```
    pub fn eps(self, eps: f64) -> Self {
        Rmsprop { eps, ..self }
    }
    /// Sets `initial_scale`.
    ///
    /// ```
    /// assert_eq!(jax::optim::rmsprop(1e-3).initial_scale(1.0).initial_scale, 1.0);
    /// ```
    pub fn initial_scale(self, initial_scale: f64) -> Self {
        Rmsprop {
            initial_scale,
            ..self
        }
    }
}

impl Rmsprop {
    /// The optimizer as `jax_core::optim` computes it.
    fn core(&self) -> Opt {
        Opt::Rmsprop {
            lr: self.learning_rate.core(),
            decay: self.decay,
            eps: self.eps,
            initial_scale: self.initial_scale,
        }
    }
}

impl<P: Pytree> GradientTransformation<P> for Rmsprop {
    type State = RmsState<P>;
    #[track_caller]
    fn init(&self, params: &P) -> RmsState<P> {
        let (count, trees) = leaves::init(&self.core(), params);
        let [nu]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        RmsState { count, nu }
    }
    #[track_caller]
    fn update(&self, grads: &P, state: RmsState<P>, params: &P) -> (P, RmsState<P>) {
        let st = (&state.count, vec![&state.nu]);
        let (u, st) = leaves::update(&self.core(), grads, Some(st), params);
        let (count, trees) = st.expect("a counted state");
        let [nu]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        (u, RmsState { count, nu })
    }
}

/// Adagrad. See [`adagrad`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adagrad {
    /// The learning rate.
    pub learning_rate: Schedule,
    /// The sum of squares' initial value (0.1).
    pub initial_accumulator_value: f64,
    /// Added inside the square root (1e-7).
    pub eps: f64,
}

/// optax's `adagrad(learning_rate)`; `.initial_accumulator_value()` and
/// `.eps()` change optax's defaults (0.1, 1e-7).
///
/// ```
/// use jax::optim::{adagrad, GradientTransformation};
/// use jax::Array;
///
/// let opt = adagrad(1.0).initial_accumulator_value(0.0).eps(0.0);
/// let p = Array::<f32, 1>::from([0.0]);
/// let (u, _) = opt.update(&Array::from([4.0]), opt.init(&p), &p);
/// assert_eq!(u.item(), -1.0); // -g / sqrt(g^2)
/// ```
pub fn adagrad(learning_rate: impl Into<Schedule>) -> Adagrad {
    Adagrad {
        learning_rate: learning_rate.into(),
        initial_accumulator_value: 0.1,
        eps: 1e-7,
    }
}

impl Adagrad {
    /// Sets `initial_accumulator_value`.
    ///
    /// ```
    /// let o = jax::optim::adagrad(1e-3).initial_accumulator_value(0.0);
    /// assert_eq!(o.initial_accumulator_value, 0.0);
    /// ```
    pub fn initial_accumulator_value(self, v: f64) -> Self {
        Adagrad {
            initial_accumulator_value: v,
            ..self
        }
    }
    /// Sets `eps`.
    ///
    /// ```
    /// assert_eq!(jax::optim::adagrad(1e-3).eps(1e-9).eps, 1e-9);
    /// ```
    pub fn eps(self, eps: f64) -> Self {
        Adagrad { eps, ..self }
    }
}

impl Adagrad {
    /// The optimizer as `jax_core::optim` computes it.
    fn core(&self) -> Opt {
        Opt::Adagrad {
            lr: self.learning_rate.core(),
            initial: self.initial_accumulator_value,
            eps: self.eps,
        }
    }
}

impl<P: Pytree> GradientTransformation<P> for Adagrad {
    type State = AdagradState<P>;
    #[track_caller]
    fn init(&self, params: &P) -> AdagradState<P> {
        let (count, trees) = leaves::init(&self.core(), params);
        let [sum_of_squares]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        AdagradState {
            count,
            sum_of_squares,
        }
    }
    #[track_caller]
    fn update(&self, grads: &P, state: AdagradState<P>, params: &P) -> (P, AdagradState<P>) {
        let st = (&state.count, vec![&state.sum_of_squares]);
        let (u, st) = leaves::update(&self.core(), grads, Some(st), params);
        let (count, trees) = st.expect("a counted state");
        let [sum_of_squares]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        (
            u,
            AdagradState {
                count,
                sum_of_squares,
            },
        )
    }
}

/// Lion. See [`lion`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lion {
    /// The learning rate.
    pub learning_rate: Schedule,
    /// How much of the momentum the update's sign takes (0.9).
    pub b1: f64,
    /// Decay of the momentum (0.99).
    pub b2: f64,
    /// Decoupled weight decay (1e-3).
    pub weight_decay: f64,
}

/// optax's `lion(learning_rate)`: `-lr * (sign((1-b1) g + b1 mu) + wd * params)`;
/// `.b1()`, `.b2()`, `.weight_decay()` change optax's defaults (0.9, 0.99, 1e-3).
///
/// ```
/// use jax::optim::{lion, GradientTransformation};
/// use jax::Array;
///
/// let opt = lion(0.1).weight_decay(0.0);
/// let p = Array::<f32, 2>::from([0.0, 0.0]);
/// let (u, _) = opt.update(&Array::from([3.0, -0.01]), opt.init(&p), &p);
/// assert_eq!(u.to_vec(), [-0.1, 0.1]);
/// ```
pub fn lion(learning_rate: impl Into<Schedule>) -> Lion {
    Lion {
        learning_rate: learning_rate.into(),
        b1: 0.9,
        b2: 0.99,
        weight_decay: 1e-3,
    }
}

impl Lion {
    /// Sets `b1`.
    ///
    /// ```
    /// assert_eq!(jax::optim::lion(1e-3).b1(0.8).b1, 0.8);
    /// ```
    pub fn b1(self, b1: f64) -> Self {
        Lion { b1, ..self }
    }
    /// Sets `b2`.
    ///
    /// ```
    /// assert_eq!(jax::optim::lion(1e-3).b2(0.9).b2, 0.9);
    /// ```
    pub fn b2(self, b2: f64) -> Self {
        Lion { b2, ..self }
    }
    /// Sets `weight_decay`.
    ///
    /// ```
    /// assert_eq!(jax::optim::lion(1e-3).weight_decay(0.0).weight_decay, 0.0);
    /// ```
    pub fn weight_decay(self, weight_decay: f64) -> Self {
        Lion {
            weight_decay,
            ..self
        }
    }
}

impl Lion {
    /// The optimizer as `jax_core::optim` computes it.
    fn core(&self) -> Opt {
        Opt::Lion {
            lr: self.learning_rate.core(),
            b1: self.b1,
            b2: self.b2,
            weight_decay: self.weight_decay,
        }
    }
}

impl<P: Pytree> GradientTransformation<P> for Lion {
    type State = LionState<P>;
    #[track_caller]
    fn init(&self, params: &P) -> LionState<P> {
        let (count, trees) = leaves::init(&self.core(), params);
        let [mu]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        LionState { count, mu }
    }
    #[track_caller]
    fn update(&self, grads: &P, state: LionState<P>, params: &P) -> (P, LionState<P>) {
        let st = (&state.count, vec![&state.mu]);
        let (u, st) = leaves::update(&self.core(), grads, Some(st), params);
        let (count, trees) = st.expect("a counted state");
        let [mu]: [P; 1] = trees.try_into().ok().expect("the state's trees");
        (u, LionState { count, mu })
    }
}

/// Clipping by the global norm. See [`clip_by_global_norm`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipByGlobalNorm {
    /// The largest global L2 norm updates keep.
    pub max_norm: f64,
}

/// optax's `clip_by_global_norm(max_norm)`: scales the whole update tree
/// by `max_norm / norm` when its global L2 norm is not below `max_norm`.
/// Stateless (its state is `()`, optax's `EmptyState`); use it first in a
/// [`chain`](super::chain).
///
/// ```
/// use jax::optim::{clip_by_global_norm, GradientTransformation};
/// use jax::Array;
///
/// let g = Array::<f32, 2>::from([3.0, 4.0]);
/// let clip = clip_by_global_norm(1.0);
/// let (u, ()) = clip.update(&g, clip.init(&g), &g);
/// assert_eq!(u.to_vec(), [0.6, 0.8]);
/// ```
pub fn clip_by_global_norm(max_norm: f64) -> ClipByGlobalNorm {
    ClipByGlobalNorm { max_norm }
}

impl ClipByGlobalNorm {
    /// The optimizer as `jax_core::optim` computes it.
    fn core(&self) -> Opt {
        Opt::Clip(self.max_norm)
    }
}

impl<P: Pytree> GradientTransformation<P> for ClipByGlobalNorm {
    type State = ();
    fn init(&self, _: &P) {}
    #[track_caller]
    fn update(&self, grads: &P, _: (), params: &P) -> (P, ()) {
        (leaves::update(&self.core(), grads, None, params).0, ())
    }
}
