//! The optimizers' states: public structs mirroring optax's state
//! `NamedTuple`s, generic over the params tree, and pytrees themselves (so a
//! state goes in and out of `#[jax::jit]` functions like params do).
//!
//! Every state carries the step `count` (an `i32` scalar, as optax's
//! `count` fields), also where optax keeps it only for a schedule, so one
//! state type serves a constant and a scheduled learning rate.

use crate::tree::{Leaf, Pytree, TreeDef};
use crate::Array;

macro_rules! state {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident),* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<P> {
            /// Steps taken (optax's `count`; saturates at `i32::MAX`).
            pub count: Array<i32>,
            $($(#[$fdoc])* pub $field: P,)*
        }

        impl<P: Pytree> Pytree for $name<P> {
            fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
                self.count.for_each_leaf(f);
                $(self.$field.for_each_leaf(f);)*
            }
            fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
                self.count.for_each_leaf_mut(f);
                $(self.$field.for_each_leaf_mut(f);)*
            }
            fn def(&self) -> TreeDef {
                TreeDef::Node {
                    name: stringify!($name),
                    fields: vec!["count" $(, stringify!($field))*],
                    children: vec![self.count.def() $(, self.$field.def())*],
                }
            }
        }
    };
}

state! {
    /// The state of [`sgd_with`](super::sgd_with) (optax's `TraceState`, plus the count).
    ///
    /// ```
    /// use jax::optim::{sgd_with, GradientTransformation};
    /// let s = sgd_with(0.1, 0.9, false).init(&jax::Array::<f32, 2>::ones());
    /// assert_eq!(s.trace.to_vec(), [0.0, 0.0]);
    /// ```
    TraceState {
        /// The momentum: `grad + momentum * trace`.
        trace
    }
}

state! {
    /// The state of [`adam`](super::adam) and [`adamw`](super::adamw) (optax's `ScaleByAdamState`).
    ///
    /// ```
    /// use jax::optim::{adam, GradientTransformation};
    /// let s = adam(1e-3).init(&jax::Array::<f32, 2>::ones());
    /// assert_eq!((s.count.item(), s.mu.to_vec()), (0, vec![0.0, 0.0]));
    /// ```
    AdamState {
        /// The first moment (a moving average of the gradients).
        mu,
        /// The second moment (a moving average of their squares).
        nu
    }
}

state! {
    /// The state of [`rmsprop`](super::rmsprop) (optax's `ScaleByRmsState`, plus the count).
    ///
    /// ```
    /// use jax::optim::{rmsprop, GradientTransformation};
    /// let s = rmsprop(1e-3).init(&jax::Array::<f32, 2>::ones());
    /// assert_eq!(s.nu.to_vec(), [0.0, 0.0]);
    /// ```
    RmsState {
        /// A moving average of the squared gradients.
        nu
    }
}

state! {
    /// The state of [`adagrad`](super::adagrad) (optax's `ScaleByRssState`, plus the count).
    ///
    /// ```
    /// use jax::optim::{adagrad, GradientTransformation};
    /// let s = adagrad(1e-3).init(&jax::Array::<f32, 2>::ones());
    /// assert_eq!(s.sum_of_squares.to_vec(), [0.1, 0.1]);
    /// ```
    AdagradState {
        /// The running sum of squared gradients.
        sum_of_squares
    }
}

state! {
    /// The state of [`lion`](super::lion) (optax's `ScaleByLionState`).
    ///
    /// ```
    /// use jax::optim::{lion, GradientTransformation};
    /// let s = lion(1e-3).init(&jax::Array::<f32, 2>::ones());
    /// assert_eq!(s.mu.to_vec(), [0.0, 0.0]);
    /// ```
    LionState {
        /// A moving average of the gradients.
        mu
    }
}

/// The state of [`sgd`](super::sgd) without momentum: only the step count
/// (for a scheduled learning rate; optax's `ScaleByScheduleState`).
///
/// ```
/// use jax::optim::{sgd, GradientTransformation};
/// let s = sgd(0.1).init(&jax::Array::<f32, 2>::ones());
/// assert_eq!(s.count.item(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct CountState {
    /// Steps taken.
    pub count: Array<i32>,
}

impl Pytree for CountState {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        self.count.for_each_leaf(f);
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        self.count.for_each_leaf_mut(f);
    }
    fn def(&self) -> TreeDef {
        TreeDef::Node {
            name: "CountState",
            fields: vec!["count"],
            children: vec![self.count.def()],
        }
    }
}
