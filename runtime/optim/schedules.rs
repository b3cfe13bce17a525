//! Learning-rate schedules: optax's `constant_schedule`, `exponential_decay`,
//! `cosine_decay_schedule` and `warmup_cosine_decay_schedule`, evaluated at
//! an `i32` step count with optax's float operations in order (the formulas
//! of `jax_core::optim`, which updates and jitted bodies use too).

use jax_core::optim::Sched;

use crate::eager::unit;
use crate::DType;

/// A learning rate: a constant or a function of the step count (optax's
/// `ScalarOrSchedule`). Every optimizer constructor takes `impl Into<Schedule>`,
/// so `adam(1e-3)` and `adam(cosine_decay(1e-3, 1000))` both work.
///
/// ```
/// use jax::optim::{exponential_decay, Schedule};
///
/// let s: Schedule = 0.1f32.into();
/// assert_eq!(s.at(7), 0.1);
/// let d = exponential_decay(0.1, 10, 0.5);
/// assert!((d.at(10) - 0.05).abs() < 1e-7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// The same value at every step.
    Constant(f64),
    /// `init_value * decay_rate ^ ((count - transition_begin) / transition_steps)`.
    ExponentialDecay {
        /// The value before `transition_begin`.
        init_value: f64,
        /// Steps per factor of `decay_rate`.
        transition_steps: i64,
        /// The factor per `transition_steps` steps.
        decay_rate: f64,
        /// Steps before the decay starts.
        transition_begin: i64,
        /// Decay in whole steps of `transition_steps`.
        staircase: bool,
        /// A bound the value does not pass.
        end_value: Option<f64>,
    },
    /// Half a cosine from `init_value` down to `alpha * init_value` over `decay_steps`.
    CosineDecay {
        /// The value at step 0.
        init_value: f64,
        /// Steps to the end value.
        decay_steps: i64,
        /// The end value, as a fraction of `init_value`.
        alpha: f64,
        /// The power of the cosine factor.
        exponent: f64,
    },
    /// A linear warmup from `init_value` to `peak_value`, then a cosine decay to `end_value`.
    WarmupCosineDecay {
        /// The value at step 0.
        init_value: f64,
        /// The value at the end of the warmup.
        peak_value: f64,
        /// Steps of linear warmup.
        warmup_steps: i64,
        /// Total steps, warmup included.
        decay_steps: i64,
        /// The value after `decay_steps`.
        end_value: f64,
        /// The power of the cosine factor.
        exponent: f64,
    },
}

impl From<f32> for Schedule {
    fn from(v: f32) -> Self {
        Schedule::Constant(v as f64)
    }
}

impl From<f64> for Schedule {
    fn from(v: f64) -> Self {
        Schedule::Constant(v)
    }
}

/// optax's `constant_schedule(value)`.
///
/// ```
/// assert_eq!(jax::optim::constant(0.5).at(100), 0.5);
/// ```
pub fn constant(value: f64) -> Schedule {
    Schedule::Constant(value)
}

/// optax's `exponential_decay(init_value, transition_steps, decay_rate)`;
/// `.transition_begin(n)`, `.staircase(true)` and `.end_value(v)` set the
/// other arguments.
///
/// ```
/// let s = jax::optim::exponential_decay(1.0, 2, 0.5).transition_begin(4).staircase(true);
/// assert_eq!([s.at(0), s.at(4), s.at(6), s.at(7)], [1.0, 1.0, 0.5, 0.5]);
/// ```
pub fn exponential_decay(init_value: f64, transition_steps: i64, decay_rate: f64) -> Schedule {
    Schedule::ExponentialDecay {
        init_value,
        transition_steps,
        decay_rate,
        transition_begin: 0,
        staircase: false,
        end_value: None,
    }
}

/// optax's `cosine_decay_schedule(init_value, decay_steps)`; `.alpha(a)` and
/// `.exponent(e)` set the other arguments.
///
/// ```
/// let s = jax::optim::cosine_decay(1.0, 10).alpha(0.1);
/// assert_eq!(s.at(0), 1.0);
/// assert!((s.at(10) - 0.1).abs() < 1e-7);
/// ```
///
/// # Panics
///
/// If `decay_steps` is not positive, as optax raises.
pub fn cosine_decay(init_value: f64, decay_steps: i64) -> Schedule {
    assert!(
        decay_steps > 0,
        "The cosine_decay_schedule requires positive decay_steps, got decay_steps={decay_steps}."
    );
    Schedule::CosineDecay {
        init_value,
        decay_steps,
        alpha: 0.0,
        exponent: 1.0,
    }
}

/// optax's `warmup_cosine_decay_schedule(init_value, peak_value,
/// warmup_steps, decay_steps, end_value)`; `.exponent(e)` sets the last argument.
///
/// ```
/// let s = jax::optim::warmup_cosine_decay(0.0, 1.0, 10, 110, 0.0);
/// assert_eq!([s.at(0), s.at(5), s.at(10)], [0.0, 0.5, 1.0]);
/// assert!(s.at(110).abs() < 1e-7);
/// ```
pub fn warmup_cosine_decay(
    init_value: f64,
    peak_value: f64,
    warmup_steps: i64,
    decay_steps: i64,
    end_value: f64,
) -> Schedule {
    Schedule::WarmupCosineDecay {
        init_value,
        peak_value,
        warmup_steps,
        decay_steps,
        end_value,
        exponent: 1.0,
    }
}

impl Schedule {
    /// The value at step `count`, in `f32` (optax's value under JAX's
    /// default 32-bit mode).
    ///
    /// ```
    /// assert_eq!(jax::optim::constant(0.25).at(3), 0.25f32);
    /// ```
    pub fn at(&self, count: i32) -> f32 {
        self.value(count, DType::F32) as f32
    }

    /// The value at step `count`, in `f64`.
    ///
    /// ```
    /// assert_eq!(jax::optim::constant(0.1).at_f64(3), 0.1f64);
    /// ```
    pub fn at_f64(&self, count: i32) -> f64 {
        self.value(count, DType::F64)
    }

    /// Sets `transition_begin` of an [`exponential_decay`] (other schedules: unchanged).
    ///
    /// ```
    /// let s = jax::optim::exponential_decay(1.0, 1, 0.5).transition_begin(2);
    /// assert_eq!(s.at(3), 0.5);
    /// ```
    pub fn transition_begin(mut self, steps: i64) -> Self {
        if let Schedule::ExponentialDecay {
            transition_begin, ..
        } = &mut self
        {
            *transition_begin = steps;
        }
        self
    }

    /// Sets `staircase` of an [`exponential_decay`].
    ///
    /// ```
    /// let s = jax::optim::exponential_decay(1.0, 2, 0.5).staircase(true);
    /// assert_eq!(s.at(1), 1.0);
    /// ```
    pub fn staircase(mut self, on: bool) -> Self {
        if let Schedule::ExponentialDecay { staircase, .. } = &mut self {
            *staircase = on;
        }
        self
    }

    /// Sets `end_value` of an [`exponential_decay`] (a floor when decaying,
    /// a ceiling when growing).
    ///
    /// ```
    /// let s = jax::optim::exponential_decay(1.0, 1, 0.5).end_value(0.2);
    /// assert_eq!(s.at(5), 0.2);
    /// ```
    pub fn end_value(mut self, v: f64) -> Self {
        if let Schedule::ExponentialDecay { end_value, .. } = &mut self {
            *end_value = Some(v);
        }
        self
    }

    /// Sets `alpha` of a [`cosine_decay`].
    ///
    /// ```
    /// let s = jax::optim::cosine_decay(1.0, 4).alpha(0.5);
    /// assert_eq!(s.at(4), 0.5);
    /// ```
    pub fn alpha(mut self, a: f64) -> Self {
        if let Schedule::CosineDecay { alpha, .. } = &mut self {
            *alpha = a;
        }
        self
    }

    /// Sets `exponent` of a [`cosine_decay`] or [`warmup_cosine_decay`].
    ///
    /// ```
    /// let s = jax::optim::cosine_decay(1.0, 4).exponent(2.0);
    /// assert!((s.at(2) - 0.25).abs() < 1e-7);
    /// ```
    pub fn exponent(mut self, e: f64) -> Self {
        match &mut self {
            Schedule::CosineDecay { exponent, .. }
            | Schedule::WarmupCosineDecay { exponent, .. } => *exponent = e,
            _ => {}
        }
        self
    }

    /// The schedule as `jax_core::optim` computes it.
    pub(crate) fn core(&self) -> Sched {
        match *self {
            Schedule::Constant(v) => Sched::Constant(v),
            Schedule::ExponentialDecay {
                init_value,
                transition_steps,
                decay_rate,
                transition_begin,
                staircase,
                end_value,
            } => Sched::Exponential {
                init: init_value,
                steps: transition_steps,
                rate: decay_rate,
                begin: transition_begin,
                staircase,
                end: end_value,
            },
            Schedule::CosineDecay {
                init_value,
                decay_steps,
                alpha,
                exponent,
            } => Sched::Cosine {
                init: init_value,
                steps: decay_steps,
                alpha,
                exponent,
            },
            Schedule::WarmupCosineDecay {
                init_value,
                peak_value,
                warmup_steps,
                decay_steps,
                end_value,
                exponent,
            } => Sched::WarmupCosine {
                init: init_value,
                peak: peak_value,
                warmup: warmup_steps,
                steps: decay_steps,
                end: end_value,
                exponent,
            },
        }
    }

    /// The value at `count` in `dtype`, as an update computes it (one
    /// unit per schedule and dtype).
    fn value(&self, count: i32, dtype: DType) -> f64 {
        let sched = self.core();
        let c = crate::Array::<i32>::from(count);
        let statics = format!("{sched:?} {dtype:?}");
        let r = crate::eager::call(|_| {
            let f = |t: &mut jax_core::lax::Trace, ins: Vec<jax_core::ir::Atom>| {
                Ok(vec![jax_core::optim::schedule(t, &sched, &ins[0], dtype)?])
            };
            unit::run(
                "schedule",
                &statics,
                &[unit::Input::of(&c)],
                unit::Blocks::Whole,
                &f,
            )
        });
        r[0].to_vec_f64()[0]
    }
}
