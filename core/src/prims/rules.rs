//! The helpers rules read like math with (`ad.mul(t, c)`, `ad.zeros(..)`,
//! `ad.unbroadcast(ct, ..)`): the [`Ctx`] methods that bind particular
//! primitives. Any transformation's rules use them. At the end, the
//! readers `parse_params` rules share for values the
//! [`ParamReader`] has no method for (padding pairs, axis names, keyword
//! arguments).

use jax_dtypes::DType;

use crate::ir::builder::literal;
use crate::ir::parse::{PVal, ParamReader};
use crate::ir::rules::{tangent_aval, BDim, Batch, Ctx, Res};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params};

impl Ctx<'_> {
    pub fn mul(&mut self, x: Atom, y: Atom) -> Res<Atom> {
        self.bin(&prims::MUL, x, y)
    }

    pub fn add(&mut self, x: Atom, y: Atom) -> Res<Atom> {
        self.bin(&prims::ADD_ANY, x, y)
    }

    pub fn neg(&mut self, x: Atom) -> Res<Atom> {
        self.un(&prims::NEG, x)
    }

    pub fn div(&mut self, x: Atom, y: Atom) -> Res<Atom> {
        self.bin(&prims::DIV, x, y)
    }

    /// `t * c` for a tangent `t` and a primal factor `c`.
    pub fn scale(&mut self, t: &Option<Atom>, c: Atom) -> Res<Option<Atom>> {
        match t {
            Some(t) => Ok(Some(self.mul(t.clone(), c)?)),
            None => Ok(None),
        }
    }

    /// The sum of the present terms (None when there are none).
    pub fn sum(&mut self, terms: Vec<Option<Atom>>) -> Res<Option<Atom>> {
        let mut acc: Option<Atom> = None;
        for t in terms.into_iter().flatten() {
            acc = Some(match acc {
                None => t,
                Some(a) => self.add(a, t)?,
            });
        }
        Ok(acc)
    }

    /// An array of zeros of this abstract value.
    pub fn zeros(&mut self, aval: &Aval) -> Res<Atom> {
        self.full(0.0, aval)
    }

    /// An array of `aval`'s shape filled with `v`.
    pub fn full(&mut self, v: f64, aval: &Aval) -> Res<Atom> {
        let z = literal(
            match aval.dtype {
                DType::Bool => Scalar::Bool(v != 0.0),
                d if d.is_float() => Scalar::Float(v),
                d if d.kind() == jax_dtypes::Kind::Complex => Scalar::Complex(v, 0.0),
                _ => Scalar::Int(v as i128),
            },
            Aval::scalar(aval.dtype, false),
        );
        if aval.rank() == 0 {
            return Ok(z);
        }
        self.bind(
            &prims::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape: aval.shape.clone(),
                dims: Vec::new(),
                np_ints: 0,
            },
            vec![z],
        )
    }

    /// `ct` summed down to `target`'s shape: the transpose of an elementwise
    /// operand's implicit broadcasting (rank 0, or size-1 axes).
    pub fn unbroadcast(&mut self, ct: Atom, target: &Aval) -> Res<Atom> {
        let have = self.aval(&ct);
        if have.shape == target.shape {
            return Ok(ct);
        }
        if target.rank() == 0 {
            let all: Vec<usize> = (0..have.rank()).collect();
            return self.bind(&prims::REDUCE_SUM, Params::Axes(all, 0), vec![ct]);
        }
        let one = Dim::Lit(1);
        let axes: Vec<usize> = (0..have.rank())
            .filter(|&k| target.shape[k] == one && have.shape[k] != one)
            .collect();
        let summed = self.bind(&prims::REDUCE_SUM, Params::Axes(axes, 0), vec![ct])?;
        self.bind(
            &prims::RESHAPE,
            Params::Reshape {
                new_sizes: target.shape.clone(),
            },
            vec![summed],
        )
    }

    /// `x` converted to `dtype`.
    pub fn convert(&mut self, x: Atom, dtype: DType) -> Res<Atom> {
        if self.aval(&x).dtype == dtype {
            return Ok(x);
        }
        self.bind(
            &prims::CONVERT_ELEMENT_TYPE,
            Params::Convert {
                new_dtype: dtype,
                weak: false,
            },
            vec![x],
        )
    }

    /// The tangent of `x`, or zeros of its type where it has none (rules
    /// that must pass every tangent along: loops, branches, concatenation).
    pub fn tangent_or_zeros(&mut self, t: &Option<Atom>, x: &Atom) -> Res<Atom> {
        match t {
            Some(t) => Ok(t.clone()),
            None => {
                let a = tangent_aval(&self.aval(x));
                self.zeros(&a)
            }
        }
    }

    /// `select_n(pred, on_false, on_true)`.
    pub fn select(&mut self, pred: Atom, on_false: Atom, on_true: Atom) -> Res<Atom> {
        self.bind(
            &prims::SELECT_N,
            Params::None,
            vec![pred, on_false, on_true],
        )
    }
}

/// The axis moves and broadcasts batching rules are written with, as JAX's
/// `batching.py` has them (their parameters print as JAX's do).
impl Ctx<'_> {
    /// `x` with its axis `from` moved to `to` (`batching.moveaxis`).
    pub fn moveaxis(&mut self, x: Atom, from: usize, to: usize) -> Res<Atom> {
        if from == to {
            return Ok(x);
        }
        let mut perm: Vec<usize> = (0..self.aval(&x).rank()).filter(|&k| k != from).collect();
        perm.insert(to, from);
        self.bind(&prims::TRANSPOSE, Params::Transpose { perm }, vec![x])
    }

    /// `x` repeated along a new axis `axis` of `size` (`batching.broadcast`).
    pub fn broadcast_axis(&mut self, x: Atom, size: Dim, axis: usize) -> Res<Atom> {
        let mut shape = self.aval(&x).shape;
        shape.insert(axis, size);
        let dims: Vec<usize> = (0..shape.len()).filter(|&k| k != axis).collect();
        let np_ints = (1u32 << dims.len()) - 1;
        self.bind(
            &prims::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape,
                dims,
                np_ints,
            },
            vec![x],
        )
    }

    /// `x` with size-1 axes inserted at `axes` of the result (`lax.expand_dims`).
    pub fn expand_dims(&mut self, x: Atom, axes: &[usize]) -> Res<Atom> {
        let mut shape = self.aval(&x).shape;
        let rank = shape.len() + axes.len();
        let mut sorted = axes.to_vec();
        sorted.sort();
        for &k in &sorted {
            shape.insert(k, Dim::Lit(1));
        }
        let dims: Vec<usize> = (0..rank).filter(|k| !axes.contains(k)).collect();
        self.bind(
            &prims::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape,
                dims,
                np_ints: 0,
            },
            vec![x],
        )
    }
}

impl Batch<'_> {
    /// `x` with its batch axis first; an unbatched `x` repeated `size`
    /// times along a new first axis (`batching.bdim_at_front`).
    pub fn at_front(&mut self, x: Atom, d: BDim, size: Dim) -> Res<Atom> {
        match d {
            Some(d) => self.moveaxis(x, d, 0),
            None => self.broadcast_axis(x, size, 0),
        }
    }

    /// The lanes' result of an operation whose batching is a broadcast: the
    /// primitive itself when every operand is batched on the same axis (or
    /// is a scalar); else every batch axis moved first, unbatched operands
    /// given a size-1 first axis, and batched scalars size-1 trailing axes,
    /// for the primitive's own broadcasting (`batching.broadcast_batcher`).
    pub fn broadcasting(
        &mut self,
        ins: &[Atom],
        dims: &[BDim],
        p: &Params,
    ) -> Res<Vec<(Atom, BDim)>> {
        let prim = self.prim;
        let (first, d0) = ins
            .iter()
            .zip(dims)
            .find_map(|(x, d)| d.map(|d| (x, d)))
            .expect("a batching rule runs with a batched operand");
        let shape = self.aval(first).shape;
        let agree = ins.iter().zip(dims).all(|(x, d)| {
            self.aval(x).rank() == 0 || (self.aval(x).shape == shape && *d == Some(d0))
        });
        if agree {
            let outs = self.bind_all(prim, p.clone(), ins.to_vec())?;
            return Ok(outs.into_iter().map(|o| (o, Some(d0))).collect());
        }
        let mut args = Vec::new();
        for (x, d) in ins.iter().zip(dims) {
            args.push(if self.aval(x).rank() > 0 {
                self.at_front(x.clone(), *d, Dim::Lit(1))?
            } else {
                x.clone()
            });
        }
        let nd = args.iter().map(|x| self.aval(x).rank()).max().unwrap_or(0);
        for (x, d) in args.iter_mut().zip(dims) {
            let r = self.aval(x).rank();
            if d.is_some() && r != nd {
                let axes: Vec<usize> = (r..nd).collect();
                *x = self.expand_dims(x.clone(), &axes)?;
            }
        }
        let outs = self.bind_all(prim, p.clone(), args)?;
        Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
    }
}

// Readers of printed parameters, for `parse_params` rules (the inverse of
// the `print_params` formats several primitives share).

/// The message for a parameter whose value is not of the expected form.
pub fn bad_param(r: &ParamReader, name: &str, what: &str) -> String {
    format!("`{}`'s parameter `{name}` should be {what}", r.prim)
}

/// An integer as an `i64`, also as `np.int64(k)`.
pub fn pval_i64(v: &PVal) -> Option<i64> {
    v.int().and_then(|i| i64::try_from(i).ok())
}

/// `((lo, hi), ..)`: padding pairs (negative edges allowed).
pub fn read_pairs(r: &mut ParamReader, name: &str) -> Result<Vec<(i64, i64)>, String> {
    let v = r.req(name)?;
    let pairs: Option<Vec<(i64, i64)>> = v.items().and_then(|items| {
        items
            .iter()
            .map(|p| match p.items()? {
                [lo, hi] => Some((pval_i64(lo)?, pval_i64(hi)?)),
                _ => None,
            })
            .collect()
    });
    pairs.ok_or_else(|| bad_param(r, name, "a tuple of `(low, high)` pairs"))
}

/// Quoted axis names, `('i',)` or `('i', 'j')`.
pub fn pval_names(v: &PVal) -> Option<Vec<String>> {
    v.items()?
        .iter()
        .map(|it| match it {
            PVal::Str(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// A tuple of axis names (`axis_name=('i',)`).
pub fn read_names(r: &mut ParamReader, name: &str) -> Result<Vec<String>, String> {
    match pval_names(&r.req(name)?) {
        Some(v) => Ok(v),
        None => Err(bad_param(
            r,
            name,
            "a tuple of quoted axis names (`('i',)`)",
        )),
    }
}

/// The non-negative integers of the keyword argument `key` of a call
/// (`lhs_spec` of `ConvDimensionNumbers(..)`).
pub fn kwarg_usizes(v: &PVal, key: &str) -> Option<Vec<usize>> {
    v.kwarg(key)?.usizes()
}

/// A parameter that must read `None`, as the only value this compiler
/// models: marked understood, and checked when the parameters print back.
/// Any other value is an error naming it.
pub fn expect_none(r: &mut ParamReader, name: &str, why: &str) -> Result<(), String> {
    match r.opt(name) {
        Some(v) if v.name() != Some("None") => Err(format!(
            "`{}`'s parameter `{name}` is not supported unless `None`: {why}",
            r.prim
        )),
        _ => Ok(()),
    }
}
