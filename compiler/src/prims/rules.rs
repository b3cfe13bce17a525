//! The helpers rules read like math with (`ad.mul(t, c)`, `ad.zeros(..)`,
//! `ad.unbroadcast(ct, ..)`): the [`Ctx`] methods that bind particular
//! primitives. Any transformation's rules use them.

use jax_dtypes::DType;

use crate::ir::builder::literal;
use crate::ir::rules::{tangent_aval, Ctx, Res};
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
            return self.bind(&prims::REDUCE_SUM, Params::Axes(all), vec![ct]);
        }
        let one = Dim::Lit(1);
        let axes: Vec<usize> = (0..have.rank())
            .filter(|&k| target.shape[k] == one && have.shape[k] != one)
            .collect();
        let summed = self.bind(&prims::REDUCE_SUM, Params::Axes(axes), vec![ct])?;
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
