//! The optimizers: optax's aliases (`sgd`, `adam`, `adamw`, `rmsprop`,
//! `adagrad`, `lion`) and `clip_by_global_norm`, each one struct of
//! hyperparameters (optax's defaults, changed by builder methods) whose
//! `update` runs optax's chain of transformations as one per-element
//! formula, with optax's float operations in order.

use super::leaves::{full_like, global_norm, zip_map, Both, Elementwise};
use super::real::Real;
use super::schedules::Schedule;
use super::states::{
    increment, zero_count, AdagradState, AdamState, CountState, LionState, RmsState, TraceState,
};
use super::GradientTransformation;
use crate::tree::Pytree;
use crate::Array;

/// The learning rate at this count, negated (optax's `scale_by_learning_rate`).
fn neg_lr(lr: &Schedule, count: &Array<i32>) -> Both {
    let c = count.item();
    Both {
        f32: -lr.value::<f32>(c),
        f64: -lr.value::<f64>(c),
    }
}

/// optax's `bias_correction`: `1 - decay ** count`.
fn bias_correction(decay: f64, count: i32) -> Both {
    fn one<R: Real>(decay: f64, count: i32) -> R {
        R::from_f64(1.0) - R::from_f64(decay).pow(R::from_f64(count as f64))
    }
    Both {
        f32: one::<f32>(decay, count),
        f64: one::<f64>(decay, count),
    }
}

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

impl<P: Pytree> GradientTransformation<P> for Sgd {
    type State = CountState;
    fn init(&self, _: &P) -> CountState {
        CountState {
            count: zero_count(),
        }
    }
    fn update(&self, grads: &P, state: CountState, _: &P) -> (P, CountState) {
        struct F(Both);
        impl Elementwise<1, 1> for F {
            fn apply<R: Real>(&self, [g]: [R; 1]) -> [R; 1] {
                [self.0.get::<R>() * g]
            }
        }
        let [u] = zip_map(&F(neg_lr(&self.learning_rate, &state.count)), [grads]);
        let count = increment(&state.count);
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

impl<P: Pytree> GradientTransformation<P> for SgdMomentum {
    type State = TraceState<P>;
    fn init(&self, params: &P) -> TraceState<P> {
        TraceState {
            count: zero_count(),
            trace: full_like(params, 0.0),
        }
    }
    fn update(&self, grads: &P, state: TraceState<P>, _: &P) -> (P, TraceState<P>) {
        struct F {
            momentum: f64,
            nesterov: bool,
            lr: Both,
        }
        impl Elementwise<2, 2> for F {
            fn apply<R: Real>(&self, [g, t]: [R; 2]) -> [R; 2] {
                let m = R::from_f64(self.momentum);
                let trace = g + m * t;
                let u = if self.nesterov { g + m * trace } else { trace };
                [self.lr.get::<R>() * u, trace]
            }
        }
        let f = F {
            momentum: self.momentum,
            nesterov: self.nesterov,
            lr: neg_lr(&self.learning_rate, &state.count),
        };
        let [u, trace] = zip_map(&f, [grads, &state.trace]);
        let count = increment(&state.count);
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

impl<P: Pytree> GradientTransformation<P> for Adam {
    type State = AdamState<P>;
    fn init(&self, params: &P) -> AdamState<P> {
        AdamState {
            count: zero_count(),
            mu: full_like(params, 0.0),
            nu: full_like(params, 0.0),
        }
    }
    fn update(&self, grads: &P, state: AdamState<P>, params: &P) -> (P, AdamState<P>) {
        struct F {
            o: Adam,
            bc1: Both,
            bc2: Both,
            lr: Both,
        }
        impl Elementwise<4, 3> for F {
            fn apply<R: Real>(&self, [g, mu, nu, p]: [R; 4]) -> [R; 3] {
                let (o, r) = (&self.o, R::from_f64);
                let mu = r(1.0 - o.b1) * g + r(o.b1) * mu;
                let nu = r(1.0 - o.b2) * (g * g) + r(o.b2) * nu;
                let mu_hat = mu / self.bc1.get::<R>();
                let nu_hat = nu / self.bc2.get::<R>();
                let mut u = mu_hat / ((nu_hat + r(o.eps_root)).sqrt() + r(o.eps));
                if o.weight_decay != 0.0 {
                    u = u + r(o.weight_decay) * p;
                }
                [self.lr.get::<R>() * u, mu, nu]
            }
        }
        let count = increment(&state.count);
        let f = F {
            o: *self,
            bc1: bias_correction(self.b1, count.item()),
            bc2: bias_correction(self.b2, count.item()),
            lr: neg_lr(&self.learning_rate, &state.count),
        };
        let [u, mu, nu] = zip_map(&f, [grads, &state.mu, &state.nu, params]);
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

impl<P: Pytree> GradientTransformation<P> for Rmsprop {
    type State = RmsState<P>;
    fn init(&self, params: &P) -> RmsState<P> {
        RmsState {
            count: zero_count(),
            nu: full_like(params, self.initial_scale),
        }
    }
    fn update(&self, grads: &P, state: RmsState<P>, _: &P) -> (P, RmsState<P>) {
        struct F {
            o: Rmsprop,
            lr: Both,
        }
        impl Elementwise<2, 2> for F {
            fn apply<R: Real>(&self, [g, nu]: [R; 2]) -> [R; 2] {
                let (o, r) = (&self.o, R::from_f64);
                let nu = r(1.0 - o.decay) * (g * g) + r(o.decay) * nu;
                let u = (nu + r(o.eps)).rsqrt() * g;
                [self.lr.get::<R>() * u, nu]
            }
        }
        let f = F {
            o: *self,
            lr: neg_lr(&self.learning_rate, &state.count),
        };
        let [u, nu] = zip_map(&f, [grads, &state.nu]);
        let count = increment(&state.count);
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

impl<P: Pytree> GradientTransformation<P> for Adagrad {
    type State = AdagradState<P>;
    fn init(&self, params: &P) -> AdagradState<P> {
        AdagradState {
            count: zero_count(),
            sum_of_squares: full_like(params, self.initial_accumulator_value),
        }
    }
    fn update(&self, grads: &P, state: AdagradState<P>, _: &P) -> (P, AdagradState<P>) {
        struct F {
            eps: f64,
            lr: Both,
        }
        impl Elementwise<2, 2> for F {
            fn apply<R: Real>(&self, [g, s]: [R; 2]) -> [R; 2] {
                let r = R::from_f64;
                let s = g * g + s;
                let inv = if s > r(0.0) {
                    (s + r(self.eps)).rsqrt()
                } else {
                    r(0.0)
                };
                [self.lr.get::<R>() * (inv * g), s]
            }
        }
        let f = F {
            eps: self.eps,
            lr: neg_lr(&self.learning_rate, &state.count),
        };
        let [u, sum_of_squares] = zip_map(&f, [grads, &state.sum_of_squares]);
        let count = increment(&state.count);
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

impl<P: Pytree> GradientTransformation<P> for Lion {
    type State = LionState<P>;
    fn init(&self, params: &P) -> LionState<P> {
        LionState {
            count: zero_count(),
            mu: full_like(params, 0.0),
        }
    }
    fn update(&self, grads: &P, state: LionState<P>, params: &P) -> (P, LionState<P>) {
        struct F {
            o: Lion,
            lr: Both,
        }
        impl Elementwise<3, 2> for F {
            fn apply<R: Real>(&self, [g, mu, p]: [R; 3]) -> [R; 2] {
                let (o, r) = (&self.o, R::from_f64);
                let mut u = (r(1.0 - o.b1) * g + r(o.b1) * mu).sign();
                let mu = r(1.0 - o.b2) * g + r(o.b2) * mu;
                if o.weight_decay != 0.0 {
                    u = u + r(o.weight_decay) * p;
                }
                [self.lr.get::<R>() * u, mu]
            }
        }
        let f = F {
            o: *self,
            lr: neg_lr(&self.learning_rate, &state.count),
        };
        let [u, mu] = zip_map(&f, [grads, &state.mu, params]);
        let count = increment(&state.count);
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

impl<P: Pytree> GradientTransformation<P> for ClipByGlobalNorm {
    type State = ();
    fn init(&self, _: &P) {}
    fn update(&self, grads: &P, _: (), _: &P) -> (P, ()) {
        struct F {
            norm: Both,
            max_norm: f64,
        }
        impl Elementwise<1, 1> for F {
            fn apply<R: Real>(&self, [g]: [R; 1]) -> [R; 1] {
                let norm = self.norm.get::<R>();
                let max = R::from_f64(self.max_norm);
                [if norm < max { g } else { g / norm * max }]
            }
        }
        let f = F {
            norm: global_norm(grads),
            max_norm: self.max_norm,
        };
        let [u] = zip_map(&f, [grads]);
        (u, ())
    }
}
