//! Optimizers with optax's API and numbers: `sgd` (with momentum and
//! Nesterov), `adam`, `adamw`, `rmsprop`, `adagrad`, `lion`,
//! `clip_by_global_norm`, `chain`, and the learning-rate schedules
//! `constant`, `exponential_decay`, `cosine_decay`, `warmup_cosine_decay`.
//!
//! An optimizer is a [`GradientTransformation`] over any [`Pytree`] of float
//! arrays: `init` makes its state (a public struct, itself a pytree),
//! `update` turns gradients into updates, and [`apply_updates`] adds them to
//! the params. Each formula follows optax's order of float operations, in
//! the leaf's dtype (hyperparameters are rounded to it first, as JAX's weak
//! typing does), so trajectories match optax's to the last bit or two.
//!
//! ```
//! use jax::optim::{self, GradientTransformation};
//! use jax::Array;
//!
//! // Minimize (x - 3)^2 with Adam.
//! let opt = optim::adam(0.1);
//! let mut x = Array::<f32, 1>::from([0.0]);
//! let mut state = opt.init(&x);
//! for _ in 0..200 {
//!     let grad = (&x - 3.0) * 2.0;
//!     let (updates, s) = opt.update(&grad, state, &x);
//!     state = s;
//!     x = optim::apply_updates(&x, &updates);
//! }
//! assert!((x.item() - 3.0).abs() < 0.05);
//! ```
//!
//! Inside `#[jax::jit]` the same calls (`optim::adam(1e-3)`, `opt.init(&p)`,
//! `opt.update(&g, s, &p)`, `optim::apply_updates(&p, &u)`) are traced: the
//! optimizer is a compile-time value, its per-leaf formulas are unrolled
//! into the program, and the state types are named in signatures
//! (`s: optim::AdamState<Params>`).

pub(crate) mod leaves;
mod schedules;
mod states;
mod transforms;

pub use schedules::{constant, cosine_decay, exponential_decay, warmup_cosine_decay, Schedule};
pub use states::{AdagradState, AdamState, CountState, LionState, RmsState, TraceState};
pub use transforms::{
    adagrad, adam, adamw, clip_by_global_norm, lion, rmsprop, sgd, sgd_with, Adagrad, Adam,
    ClipByGlobalNorm, Lion, Rmsprop, Sgd, SgdMomentum,
};

use crate::tree::Pytree;

/// optax's `GradientTransformation`: an optimizer (or one stage of a
/// [`chain`]) over params of type `P`.
///
/// ```
/// use jax::optim::{sgd, GradientTransformation};
/// use jax::Array;
///
/// let p = (Array::<f32, 2>::ones(), Array::<f32>::from(1.0));
/// let opt = sgd(0.1);
/// let (u, state) = opt.update(&p, opt.init(&p), &p);
/// assert_eq!((u.0.to_vec(), u.1.item(), state.count.item()), (vec![-0.1, -0.1], -0.1, 1));
/// ```
pub trait GradientTransformation<P: Pytree> {
    /// The optimizer's state (a pytree, so it can go through `#[jax::jit]`).
    type State: Pytree;
    /// The state before the first step.
    fn init(&self, params: &P) -> Self::State;
    /// The updates for `grads` (to add to `params` with [`apply_updates`])
    /// and the next state.
    fn update(&self, grads: &P, state: Self::State, params: &P) -> (P, Self::State);
}

/// optax's `apply_updates`: `params + updates`, leaf by leaf, in the
/// params' dtypes.
///
/// ```
/// use jax::Array;
/// let p = jax::optim::apply_updates(&Array::<f32, 2>::from([1.0, 2.0]), &Array::from([0.5, -1.0]));
/// assert_eq!(p.to_vec(), [1.5, 1.0]);
/// ```
#[track_caller]
pub fn apply_updates<P: Pytree>(params: &P, updates: &P) -> P {
    leaves::apply_updates(params, updates)
}

/// Optimizers run one after another (optax's `chain`); the state is the
/// tuple of their states. Built by [`chain`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chain<T>(pub T);

/// optax's `chain(a, b, ..)`, written `chain((a, b))` (up to 4 stages):
/// each stage's updates are the next one's gradients.
///
/// ```
/// use jax::optim::{chain, clip_by_global_norm, sgd, GradientTransformation};
/// use jax::Array;
///
/// let opt = chain((clip_by_global_norm(1.0), sgd(1.0)));
/// let p = Array::<f32, 2>::zeros();
/// let (u, (_, s)) = opt.update(&Array::from([6.0, 8.0]), opt.init(&p), &p);
/// assert_eq!((u.to_vec(), s.count.item()), (vec![-0.6, -0.8], 1));
/// ```
pub fn chain<T>(stages: T) -> Chain<T> {
    Chain(stages)
}

macro_rules! chain_impl {
    ($($t:ident $i:tt),*) => {
        impl<P: Pytree, $($t: GradientTransformation<P>),*> GradientTransformation<P> for Chain<($($t,)*)> {
            type State = ($($t::State,)*);
            fn init(&self, params: &P) -> Self::State {
                ($(self.0.$i.init(params),)*)
            }
            #[allow(non_snake_case)] // one state variable per stage, named as its type
            fn update(&self, grads: &P, state: Self::State, params: &P) -> (P, Self::State) {
                let u = grads.clone();
                $(let (u, $t) = self.0.$i.update(&u, state.$i, params);)*
                (u, ($($t,)*))
            }
        }
    };
}

chain_impl!(A 0, B 1);
chain_impl!(A 0, B 1, C 2);
chain_impl!(A 0, B 1, C 2, D 3);
