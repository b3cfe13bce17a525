//! `jax.nn.initializers`, written once over [`Lax`]: an [`Init`] names an
//! initializer and its options (known when a function compiles), and
//! [`init`] draws its array for a key, a shape and a dtype with JAX's
//! formula and JAX's types: `zeros`, `ones`, `constant`, `uniform`,
//! `normal`, `truncated_normal`, `variance_scaling` with the families
//! JAX defines over it (`glorot_*`/`xavier_*`, `lecun_*`, `he_*`/`kaiming_*`),
//! `orthogonal` and `delta_orthogonal`. The draws are `jax.random`'s
//! samplers, so the values are JAX's bits, the two made by a QR within its
//! rounding (`tests/transforms/nn_initializers.rs`).

use jax_dtypes::{DType, Kind};

use crate::ir::{Aval, Dim, Scalar};
use crate::jnp::{self, Res};
use crate::lax::Lax;
use crate::prims;

/// What `variance_scaling` divides its scale by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FanMode {
    FanIn,
    FanOut,
    FanAvg,
}

impl FanMode {
    /// JAX's strings: `"fan_in"`, `"fan_out"`, `"fan_avg"`.
    pub fn parse(s: &str) -> Result<FanMode, String> {
        match s {
            "fan_in" => Ok(FanMode::FanIn),
            "fan_out" => Ok(FanMode::FanOut),
            "fan_avg" => Ok(FanMode::FanAvg),
            _ => Err(format!(
                "invalid mode for variance scaling initializer: {s} (write \"fan_in\", \"fan_out\" or \"fan_avg\")"
            )),
        }
    }
}

/// The distribution `variance_scaling` draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    TruncatedNormal,
    Normal,
    Uniform,
}

impl Distribution {
    /// JAX's strings: `"truncated_normal"`, `"normal"`, `"uniform"`.
    pub fn parse(s: &str) -> Result<Distribution, String> {
        match s {
            "truncated_normal" => Ok(Distribution::TruncatedNormal),
            "normal" => Ok(Distribution::Normal),
            "uniform" => Ok(Distribution::Uniform),
            _ => Err(format!(
                "invalid distribution for variance scaling initializer: {s} (write \"truncated_normal\", \"normal\" or \"uniform\")"
            )),
        }
    }
}

/// An initializer of `jax.nn.initializers` with its options. `dtype` is
/// the initializer's own (`None`: JAX's default float, `jnp.float_`).
#[derive(Clone, Debug, PartialEq)]
pub struct Init {
    pub kind: InitKind,
    pub dtype: Option<DType>,
}

/// The initializers, by JAX's formula.
#[derive(Clone, Debug, PartialEq)]
pub enum InitKind {
    Zeros,
    Ones,
    /// `constant(value)`.
    Constant(f64),
    /// `uniform(scale)`: `[0, scale)`.
    Uniform(f64),
    /// `normal(stddev)`.
    Normal(f64),
    /// `truncated_normal(stddev, lower, upper)`.
    TruncatedNormal {
        stddev: f64,
        lower: f64,
        upper: f64,
    },
    /// `variance_scaling(scale, mode, distribution, in_axis, out_axis,
    /// batch_axis)`.
    VarianceScaling {
        scale: f64,
        mode: FanMode,
        distribution: Distribution,
        in_axis: i64,
        out_axis: i64,
        batch_axis: Vec<i64>,
    },
    /// `orthogonal(scale, column_axis)`: the Q of a normal draw's QR.
    Orthogonal {
        scale: f64,
        column_axis: i64,
    },
    /// `delta_orthogonal(scale, column_axis)`: an orthogonal matrix at the
    /// center of a convolution kernel's window, zeros around it.
    DeltaOrthogonal {
        scale: f64,
        column_axis: i64,
    },
}

impl Init {
    fn of(kind: InitKind) -> Init {
        Init { kind, dtype: None }
    }

    /// `zeros`.
    pub fn zeros() -> Init {
        Init::of(InitKind::Zeros)
    }

    /// `ones`.
    pub fn ones() -> Init {
        Init::of(InitKind::Ones)
    }

    /// `constant(value)`.
    pub fn constant(value: f64) -> Init {
        Init::of(InitKind::Constant(value))
    }

    /// `uniform(scale=1e-2)`.
    pub fn uniform(scale: f64) -> Init {
        Init::of(InitKind::Uniform(scale))
    }

    /// `normal(stddev=1e-2)`.
    pub fn normal(stddev: f64) -> Init {
        Init::of(InitKind::Normal(stddev))
    }

    /// `truncated_normal(stddev=1e-2, lower=-2.0, upper=2.0)`.
    pub fn truncated_normal(stddev: f64) -> Init {
        Init::of(InitKind::TruncatedNormal {
            stddev,
            lower: -2.0,
            upper: 2.0,
        })
    }

    /// `variance_scaling(scale, mode, distribution)` with JAX's default
    /// axes (`in_axis=-2, out_axis=-1, batch_axis=()`).
    pub fn variance_scaling(scale: f64, mode: FanMode, distribution: Distribution) -> Init {
        Init::of(InitKind::VarianceScaling {
            scale,
            mode,
            distribution,
            in_axis: -2,
            out_axis: -1,
            batch_axis: vec![],
        })
    }

    /// `orthogonal(scale=1.0, column_axis=-1)`.
    pub fn orthogonal() -> Init {
        Init::of(InitKind::Orthogonal {
            scale: 1.0,
            column_axis: -1,
        })
    }

    /// `delta_orthogonal(scale=1.0, column_axis=-1)`.
    pub fn delta_orthogonal() -> Init {
        Init::of(InitKind::DeltaOrthogonal {
            scale: 1.0,
            column_axis: -1,
        })
    }

    /// The families JAX defines over `variance_scaling`, by name
    /// (`glorot_normal`, `xavier_uniform`, `lecun_normal`, `he_uniform`,
    /// `kaiming_normal`, ...); `None` for other names.
    pub fn family(name: &str) -> Option<Init> {
        use Distribution::*;
        use FanMode::*;
        let (scale, mode, dist) = match name {
            "glorot_uniform" | "xavier_uniform" => (1.0, FanAvg, Uniform),
            "glorot_normal" | "xavier_normal" => (1.0, FanAvg, TruncatedNormal),
            "lecun_uniform" => (1.0, FanIn, Uniform),
            "lecun_normal" => (1.0, FanIn, TruncatedNormal),
            "he_uniform" | "kaiming_uniform" => (2.0, FanIn, Uniform),
            "he_normal" | "kaiming_normal" => (2.0, FanIn, TruncatedNormal),
            _ => return None,
        };
        Some(Init::variance_scaling(scale, mode, dist))
    }

    /// Sets a keyword option by JAX's name (`dtype` aside): `in_axis`,
    /// `out_axis` (variance scaling), `lower`, `upper` (truncated normal),
    /// `scale`, `column_axis` (orthogonal).
    /// `false` if this initializer has no such option.
    pub fn set(&mut self, name: &str, v: f64) -> bool {
        match (&mut self.kind, name) {
            (InitKind::VarianceScaling { in_axis, .. }, "in_axis") => *in_axis = v as i64,
            (InitKind::VarianceScaling { out_axis, .. }, "out_axis") => *out_axis = v as i64,
            (InitKind::TruncatedNormal { lower, .. }, "lower") => *lower = v,
            (InitKind::TruncatedNormal { upper, .. }, "upper") => *upper = v,
            (
                InitKind::Orthogonal { scale, .. } | InitKind::DeltaOrthogonal { scale, .. },
                "scale",
            ) => *scale = v,
            (
                InitKind::Orthogonal { column_axis, .. }
                | InitKind::DeltaOrthogonal { column_axis, .. },
                "column_axis",
            ) => *column_axis = v as i64,
            _ => return false,
        }
        true
    }
}

/// JAX's `_compute_fans`: `(fan_in, fan_out)` of a shape, the receptive
/// field (every axis but the in, out and batch axes) multiplied in.
pub fn compute_fans(
    shape: &[usize],
    in_axis: i64,
    out_axis: i64,
    batch_axis: &[i64],
) -> Result<(f64, f64), String> {
    let rank = shape.len() as i64;
    let norm = |a: i64| -> Result<usize, String> {
        let k = if a < 0 { a + rank } else { a };
        if (0..rank).contains(&k) {
            Ok(k as usize)
        } else {
            Err(format!(
                "variance scaling: axis {a} is out of bounds for a shape of rank {rank} ({shape:?}); \
                 the default axes (in_axis=-2, out_axis=-1) need a shape of rank 2 or more"
            ))
        }
    };
    let (i, o) = (norm(in_axis)?, norm(out_axis)?);
    let batch = batch_axis
        .iter()
        .map(|&a| norm(a))
        .collect::<Result<Vec<_>, _>>()?;
    let receptive: f64 = (0..shape.len())
        .filter(|k| *k != i && *k != o && !batch.contains(k))
        .map(|k| shape[k] as f64)
        .product();
    Ok((shape[i] as f64 * receptive, shape[o] as f64 * receptive))
}

/// A scalar of `dtype`, not weak (`jnp.array(v, dtype)`).
fn scalar<L: Lax>(l: &mut L, v: f64, dtype: DType) -> L::V {
    l.literal(
        crate::ir::cast_scalar(Scalar::Float(v), dtype),
        Aval::scalar(dtype, false),
    )
}

/// The dtype an initializer draws: its own, else JAX's default float.
pub fn dtype_of<L: Lax>(l: &L, i: &Init) -> DType {
    i.dtype
        .unwrap_or_else(|| jax_dtypes::default_dtype(Kind::Float, l.x64()))
}

/// `init(key, shape, dtype)`: the initializer's array.
pub fn init<L: Lax>(l: &mut L, i: &Init, key: L::V, shape: &[usize]) -> Res<L, L::V> {
    let dtype = dtype_of(l, i);
    if !dtype.is_float()
        && !matches!(
            i.kind,
            InitKind::Zeros | InitKind::Ones | InitKind::Constant(_)
        )
    {
        return Err(l.error(format!(
            "this initializer draws floating-point values, not {}",
            dtype.name()
        )));
    }
    let dims: Vec<Dim> = shape.iter().map(|&n| Dim::Lit(n)).collect();
    let full = |l: &mut L, v: f64| {
        let s = scalar(l, v, dtype);
        l.broadcast_in_dim(s, dims.clone(), vec![])
    };
    let times = |l: &mut L, x: L::V, f: L::V| jnp::binary(l, &prims::MUL, x, f);
    match &i.kind {
        InitKind::Zeros => full(l, 0.0),
        InitKind::Ones => full(l, 1.0),
        InitKind::Constant(v) => full(l, *v),
        InitKind::Uniform(scale) => {
            let u = l.random(&prims::RANDOM_UNIFORM, key, dims.clone(), dtype, None)?;
            let s = scalar(l, *scale, dtype);
            times(l, u, s)
        }
        InitKind::Normal(stddev) => {
            let n = l.random(&prims::RANDOM_NORMAL, key, dims.clone(), dtype, None)?;
            let s = scalar(l, *stddev, dtype);
            times(l, n, s)
        }
        InitKind::TruncatedNormal {
            stddev,
            lower,
            upper,
        } => {
            let n = l.random(
                &prims::RANDOM_TRUNCATED_NORMAL,
                key,
                dims.clone(),
                dtype,
                Some((*lower, *upper)),
            )?;
            let s = scalar(l, *stddev, dtype);
            times(l, n, s)
        }
        InitKind::Orthogonal { scale, column_axis } => {
            orthogonal(l, key, shape, dtype, *scale, *column_axis)
        }
        InitKind::DeltaOrthogonal { scale, column_axis } => {
            let rank = shape.len();
            if !(3..=5).contains(&rank) {
                return Err(l.error(format!(
                    "Delta orthogonal initializer requires a 3D, 4D or 5D shape, got {shape:?}"
                )));
            }
            let (fan_in, fan_out) = (shape[rank - 2], shape[rank - 1]);
            if fan_in > fan_out {
                return Err(l.error(format!(
                    "`fan_in` must be less or equal than `fan_out`, got a shape {shape:?}"
                )));
            }
            let m = orthogonal(l, key, &shape[rank - 2..], dtype, *scale, *column_axis)?;
            // `zeros(shape).at[(k - 1) // 2, .., :, :].set(m)`: the matrix
            // padded with zeros around the window's center.
            let mut ones: Vec<Dim> = vec![Dim::Lit(1); rank - 2];
            ones.extend([Dim::Lit(fan_in), Dim::Lit(fan_out)]);
            let m = l.broadcast_in_dim(m, ones, vec![rank - 2, rank - 1])?;
            let mut config: Vec<(i64, i64, i64)> = shape[..rank - 2]
                .iter()
                .map(|&k| {
                    let lo = (k as i64 - 1) / 2;
                    (lo, k as i64 - 1 - lo, 0)
                })
                .collect();
            config.extend([(0, 0, 0), (0, 0, 0)]);
            let zero = scalar(l, 0.0, dtype);
            l.pad(m, zero, config, 0)
        }
        InitKind::VarianceScaling {
            scale,
            mode,
            distribution,
            in_axis,
            out_axis,
            batch_axis,
        } => {
            let (fan_in, fan_out) =
                compute_fans(shape, *in_axis, *out_axis, batch_axis).map_err(|e| l.error(e))?;
            let denominator = match mode {
                FanMode::FanIn => fan_in,
                FanMode::FanOut => fan_out,
                FanMode::FanAvg => (fan_in + fan_out) / 2.0,
            };
            // `variance = jnp.array(scale / denominator, dtype)`: the
            // quotient in Python's doubles, then rounded.
            let variance = scalar(l, scale / denominator, dtype);
            match distribution {
                Distribution::TruncatedNormal => {
                    let n = l.random(
                        &prims::RANDOM_TRUNCATED_NORMAL,
                        key,
                        dims.clone(),
                        dtype,
                        Some((-2.0, 2.0)),
                    )?;
                    // The standard deviation of a standard normal
                    // truncated to (-2, 2), `np.array(.879.., dtype)`.
                    let sd = scalar(l, 0.879_625_661_034_239_8, dtype);
                    let root = l.unary(&prims::SQRT, variance)?;
                    let f = jnp::binary(l, &prims::DIV, root, sd)?;
                    times(l, n, f)
                }
                Distribution::Normal => {
                    let n = l.random(&prims::RANDOM_NORMAL, key, dims.clone(), dtype, None)?;
                    let f = l.unary(&prims::SQRT, variance)?;
                    times(l, n, f)
                }
                Distribution::Uniform => {
                    let u = l.random(
                        &prims::RANDOM_UNIFORM,
                        key,
                        dims.clone(),
                        dtype,
                        Some((-1.0, 1.0)),
                    )?;
                    let three = jnp::weak_literal(l, Scalar::Int(3));
                    let v3 = jnp::binary(l, &prims::MUL, three, variance)?;
                    let f = l.unary(&prims::SQRT, v3)?;
                    times(l, u, f)
                }
            }
        }
    }
}

/// JAX's `orthogonal` initializer: a normal draw of the shape flattened to
/// a matrix (the long side first), its QR's `q` with each column's sign
/// made that of `r`'s diagonal, transposed back if it was wide, reshaped
/// with the column axis last, moved to `column_axis`, times `scale`.
fn orthogonal<L: Lax>(
    l: &mut L,
    key: L::V,
    shape: &[usize],
    dtype: DType,
    scale: f64,
    column_axis: i64,
) -> Res<L, L::V> {
    let rank = shape.len();
    if rank < 2 {
        return Err(l.error(format!(
            "orthogonal initializer requires at least a 2D shape, got {shape:?}"
        )));
    }
    let col = if column_axis < 0 {
        column_axis + rank as i64
    } else {
        column_axis
    };
    let Some(col) = usize::try_from(col).ok().filter(|&c| c < rank) else {
        return Err(l.error(format!(
            "orthogonal initializer: column_axis {column_axis} is out of bounds for a shape of rank {rank}"
        )));
    };
    let n_cols = shape[col];
    let n_rows = shape.iter().product::<usize>() / n_cols.max(1);
    let wide = n_rows < n_cols;
    let (m, n) = if wide {
        (n_cols, n_rows)
    } else {
        (n_rows, n_cols)
    };
    let a = l.random(
        &prims::RANDOM_NORMAL,
        key,
        vec![Dim::Lit(m), Dim::Lit(n)],
        dtype,
        None,
    )?;
    let qr = l.bind_all(
        &prims::linalg::qr::QR,
        crate::ir::primitive::Params::Qr {
            full_matrices: false,
            pivoting: false,
        },
        vec![a],
    )?;
    let (q, r) = (qr[0].clone(), qr[1].clone());
    // `sign(diagonal(r))`: `r` masked to its diagonal, summed down the
    // columns (the other terms are zeros), broadcast over `q`'s rows.
    let square = vec![Dim::Lit(n), Dim::Lit(n)];
    let rows = l.iota(DType::I32, square.clone(), 0)?;
    let cols = l.iota(DType::I32, square, 1)?;
    let on = l.binary(&prims::EQ, rows, cols)?;
    let zero = scalar(l, 0.0, dtype);
    let zeros = l.broadcast_in_dim(zero, vec![Dim::Lit(n), Dim::Lit(n)], vec![])?;
    let diag = l.select_n(on, vec![zeros, r])?;
    let diag = l.reduce(&prims::REDUCE_SUM, diag, vec![0])?;
    let sign = l.unary(&prims::SIGN, diag)?;
    let sign = l.broadcast_in_dim(sign, vec![Dim::Lit(m), Dim::Lit(n)], vec![1])?;
    let mut q = l.binary(&prims::MUL, q, sign)?;
    if wide {
        q = l.transpose(q, vec![1, 0])?;
    }
    // The shape without the column axis, then the column axis, moved back.
    let mut flat: Vec<Dim> = shape
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != col)
        .map(|(_, &d)| Dim::Lit(d))
        .collect();
    flat.push(Dim::Lit(n_cols));
    let q = jnp::reshape(l, q, flat)?;
    let mut perm: Vec<usize> = (0..rank - 1).collect();
    perm.insert(col, rank - 1);
    let q = if perm.iter().copied().eq(0..rank) {
        q
    } else {
        l.transpose(q, perm)?
    };
    let s = jnp::weak_literal(l, Scalar::Float(scale));
    jnp::binary(l, &prims::MUL, s, q)
}
