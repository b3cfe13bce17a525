//! `jax.nn.initializers`: functions that make an initial array for a key
//! and a shape. JAX's `init(key, shape, dtype)` is `init.init(key)` here:
//! the shape and the dtype are the result type's.
//!
//! Each draw is JAX's (`jax_core::initializers`, the text a jitted body
//! traces), so the arrays are JAX's bits, `orthogonal`'s and
//! `delta_orthogonal`'s within the rounding of their QR
//! (`tests/transforms/nn_initializers.rs` checks every initializer against
//! JAX's). JAX's optional keywords are
//! builder methods (`normal().stddev(0.5)`, `glorot_normal().in_axis(2)`).
//!
//! ```
//! use jax::nn::initializers;
//! use jax::{random, Array};
//!
//! let w: Array<f32, 64, 32> = initializers::glorot_normal().init(random::key(0));
//! let b: Array<f32, 32> = initializers::zeros().init(random::key(1));
//! // Glorot: the variance 2 / (fan_in + fan_out).
//! let var = w.to_vec().iter().map(|v| v * v).sum::<f32>() / (64.0 * 32.0);
//! assert!((var - 2.0 / 96.0).abs() < 0.003);
//! assert_eq!(b.to_vec(), vec![0.0; 32]);
//! ```

use jax_core::initializers as core;

use crate::array::ArrayType;
use crate::random::Key;

/// An initializer of `jax.nn.initializers` with its options.
#[derive(Clone, Debug, PartialEq)]
pub struct Initializer(pub(crate) core::Init);

impl Initializer {
    /// `init(key, shape, dtype)`: the array, of the result type's shape
    /// and dtype.
    ///
    /// # Panics
    /// If the shape does not suit the initializer (`variance_scaling`
    /// needs two axes or more) or a random draw asks for integers.
    #[track_caller]
    pub fn init<A: ArrayType>(&self, key: Key) -> A {
        let mut i = self.0.clone();
        let aval = crate::random::aval_of::<A>();
        i.dtype = Some(aval.dtype);
        let shape = A::SHAPE.to_vec();
        let r = crate::eager::call(|l| core::init(l, &i, crate::random::key_value(key), &shape));
        crate::eager::typed("initializer", r)
    }

    /// The initializer as `jax_core::initializers` describes it.
    pub fn core(&self) -> &core::Init {
        &self.0
    }

    #[track_caller]
    fn with(mut self, name: &str, v: f64) -> Self {
        if !self.0.set(name, v) {
            panic!("this initializer has no option `{name}`");
        }
        self
    }

    /// `variance_scaling`'s `in_axis` (default -2).
    ///
    /// # Panics
    /// Unless the initializer is `variance_scaling` or one of its families.
    #[track_caller]
    pub fn in_axis(self, axis: i64) -> Self {
        self.with("in_axis", axis as f64)
    }

    /// `variance_scaling`'s `out_axis` (default -1).
    ///
    /// # Panics
    /// Unless the initializer is `variance_scaling` or one of its families.
    #[track_caller]
    pub fn out_axis(self, axis: i64) -> Self {
        self.with("out_axis", axis as f64)
    }

    /// `variance_scaling`'s `batch_axis` (default none).
    ///
    /// # Panics
    /// Unless the initializer is `variance_scaling` or one of its families.
    #[track_caller]
    pub fn batch_axis(mut self, axes: &[i64]) -> Self {
        match &mut self.0.kind {
            core::InitKind::VarianceScaling { batch_axis, .. } => *batch_axis = axes.to_vec(),
            _ => panic!("this initializer has no option `batch_axis`"),
        }
        self
    }

    /// `normal`'s and `truncated_normal`'s `stddev` (default 1e-2).
    ///
    /// # Panics
    /// Unless the initializer is `normal` or `truncated_normal`.
    #[track_caller]
    pub fn stddev(mut self, stddev: f64) -> Self {
        match &mut self.0.kind {
            core::InitKind::Normal(s) | core::InitKind::TruncatedNormal { stddev: s, .. } => {
                *s = stddev
            }
            _ => panic!("this initializer has no option `stddev`"),
        }
        self
    }

    /// `uniform`'s `scale` (default 1e-2), `orthogonal`'s and
    /// `delta_orthogonal`'s (default 1).
    ///
    /// # Panics
    /// Unless the initializer is one of those.
    #[track_caller]
    pub fn scale(mut self, scale: f64) -> Self {
        match &mut self.0.kind {
            core::InitKind::Uniform(s) => *s = scale,
            _ => return self.with("scale", scale),
        }
        self
    }

    /// `orthogonal`'s and `delta_orthogonal`'s `column_axis` (default -1).
    ///
    /// # Panics
    /// Unless the initializer is one of those.
    #[track_caller]
    pub fn column_axis(self, axis: i64) -> Self {
        self.with("column_axis", axis as f64)
    }

    /// `truncated_normal`'s `lower` bound, in standard deviations (default -2).
    ///
    /// # Panics
    /// Unless the initializer is `truncated_normal`.
    #[track_caller]
    pub fn lower(self, v: f64) -> Self {
        self.with("lower", v)
    }

    /// `truncated_normal`'s `upper` bound, in standard deviations (default 2).
    ///
    /// # Panics
    /// Unless the initializer is `truncated_normal`.
    #[track_caller]
    pub fn upper(self, v: f64) -> Self {
        self.with("upper", v)
    }
}

/// `zeros`.
pub fn zeros() -> Initializer {
    Initializer(core::Init::zeros())
}

/// `ones`.
pub fn ones() -> Initializer {
    Initializer(core::Init::ones())
}

/// `constant(value)`.
pub fn constant(value: f64) -> Initializer {
    Initializer(core::Init::constant(value))
}

/// `uniform(scale=1e-2)`: uniform in `[0, scale)`.
pub fn uniform() -> Initializer {
    Initializer(core::Init::uniform(1e-2))
}

/// `normal(stddev=1e-2)`.
pub fn normal() -> Initializer {
    Initializer(core::Init::normal(1e-2))
}

/// `truncated_normal(stddev=1e-2, lower=-2.0, upper=2.0)`.
pub fn truncated_normal() -> Initializer {
    Initializer(core::Init::truncated_normal(1e-2))
}

/// `variance_scaling(scale, mode, distribution)`: `mode` is `"fan_in"`,
/// `"fan_out"` or `"fan_avg"`, `distribution` `"truncated_normal"`,
/// `"normal"` or `"uniform"`; the axes are set by `.in_axis()`,
/// `.out_axis()`, `.batch_axis()`.
///
/// # Panics
/// On another mode or distribution (JAX's `ValueError`).
#[track_caller]
pub fn variance_scaling(scale: f64, mode: &str, distribution: &str) -> Initializer {
    let mode = core::FanMode::parse(mode).unwrap_or_else(|e| panic!("{e}"));
    let d = core::Distribution::parse(distribution).unwrap_or_else(|e| panic!("{e}"));
    Initializer(core::Init::variance_scaling(scale, mode, d))
}

/// `orthogonal(scale=1.0, column_axis=-1)`: the shape flattened to a
/// matrix with `column_axis` as its columns, an orthogonal one (the Q of
/// a normal draw's QR, its columns' signs those of R's diagonal), times
/// `scale`.
pub fn orthogonal() -> Initializer {
    Initializer(core::Init::orthogonal())
}

/// `delta_orthogonal(scale=1.0, column_axis=-1)`: for a convolution
/// kernel (3 to 5 axes, input features no more than output features), an
/// orthogonal matrix at the window's center and zeros elsewhere.
pub fn delta_orthogonal() -> Initializer {
    Initializer(core::Init::delta_orthogonal())
}

macro_rules! family {
    ($($(#[$doc:meta])* $name:ident),*) => {$(
        $(#[$doc])*
        pub fn $name() -> Initializer {
            Initializer(core::Init::family(stringify!($name)).expect("a family"))
        }
    )*};
}

family!(
    /// `glorot_uniform()`: `variance_scaling(1.0, "fan_avg", "uniform")`.
    glorot_uniform,
    /// `glorot_normal()`: `variance_scaling(1.0, "fan_avg", "truncated_normal")`.
    glorot_normal,
    /// `xavier_uniform()`, another name of `glorot_uniform()`.
    xavier_uniform,
    /// `xavier_normal()`, another name of `glorot_normal()`.
    xavier_normal,
    /// `lecun_uniform()`: `variance_scaling(1.0, "fan_in", "uniform")`.
    lecun_uniform,
    /// `lecun_normal()`: `variance_scaling(1.0, "fan_in", "truncated_normal")`.
    lecun_normal,
    /// `he_uniform()`: `variance_scaling(2.0, "fan_in", "uniform")`.
    he_uniform,
    /// `he_normal()`: `variance_scaling(2.0, "fan_in", "truncated_normal")`.
    he_normal,
    /// `kaiming_uniform()`, another name of `he_uniform()`.
    kaiming_uniform,
    /// `kaiming_normal()`, another name of `he_normal()`.
    kaiming_normal
);
