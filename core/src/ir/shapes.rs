//! Shape arithmetic over literal and symbolic dimensions.
//!
//! A symbolic dimension is a const generic parameter or a const item of the
//! user's code, known to rustc only after monomorphization. Where a check
//! depends on one, it is recorded as a [`Constraints`] entry and emitted as a
//! `const { assert!(..) }`, so a wrong instantiation fails the build.

use crate::ir::{Aval, Dim, Shape};

/// Dimension equalities to assert at monomorphization, each with the message
/// the user sees if it fails.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    pub equal: Vec<(Dim, Dim, String)>,
}

/// Whether two dims are equal: decided now for literals and identical
/// symbols, otherwise assumed and recorded.
pub fn same_dim(a: &Dim, b: &Dim, why: &str, c: &mut Constraints) -> bool {
    match (a, b) {
        (Dim::Lit(x), Dim::Lit(y)) => x == y,
        (x, y) if x == y => true,
        (x, y) => {
            c.equal.push((x.clone(), y.clone(), why.to_string()));
            true
        }
    }
}

/// `[3,4]`.
pub fn fmt(s: &Shape) -> String {
    let dims: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(","))
}

/// NumPy broadcasting of two avals' shapes, or JAX's message naming both types.
pub fn broadcast(a: &Aval, b: &Aval, c: &mut Constraints) -> Result<Shape, String> {
    let rank = a.rank().max(b.rank());
    let pad = |s: &Shape| -> Shape {
        let mut v = vec![Dim::Lit(1); rank - s.len()];
        v.extend(s.iter().cloned());
        v
    };
    let (pa, pb) = (pad(&a.shape), pad(&b.shape));
    let mut out = Vec::with_capacity(rank);
    for (x, y) in pa.iter().zip(&pb) {
        out.push(match (x, y) {
            (Dim::Lit(1), d) | (d, Dim::Lit(1)) => d.clone(),
            (x, y) => {
                let why = format!("Incompatible shapes for broadcasting: {a} and {b}");
                if !same_dim(x, y, &why, c) {
                    return Err(why);
                }
                x.clone()
            }
        });
    }
    Ok(out)
}

/// The number of elements as a Rust expression's parts: a literal product and symbols.
pub fn size_parts(s: &Shape) -> (usize, Vec<String>) {
    let mut lit = 1usize;
    let mut syms = Vec::new();
    for d in s {
        match d {
            Dim::Lit(n) => lit *= n,
            Dim::Sym(x) => syms.push(x.clone()),
        }
    }
    (lit, syms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jax_dtypes::DType;

    fn aval(dims: &[Dim]) -> Aval {
        Aval {
            dtype: DType::F32,
            shape: dims.to_vec(),
            weak: false,
        }
    }

    #[test]
    fn literal_broadcasting() {
        let mut c = Constraints::default();
        let out = broadcast(
            &aval(&[Dim::Lit(64), Dim::Lit(10)]),
            &aval(&[Dim::Lit(10)]),
            &mut c,
        );
        assert_eq!(out.unwrap(), vec![Dim::Lit(64), Dim::Lit(10)]);
        let err = broadcast(
            &aval(&[Dim::Lit(3), Dim::Lit(4)]),
            &aval(&[Dim::Lit(5)]),
            &mut c,
        );
        assert_eq!(
            err.unwrap_err(),
            "Incompatible shapes for broadcasting: f32[3,4] and f32[5]"
        );
        assert!(c.equal.is_empty());
    }

    #[test]
    fn symbolic_dims_become_constraints() {
        let mut c = Constraints::default();
        let n = Dim::Sym("N".into());
        let m = Dim::Sym("M".into());
        let out = broadcast(
            &aval(&[n.clone(), Dim::Lit(3)]),
            &aval(&[m.clone(), Dim::Lit(3)]),
            &mut c,
        );
        assert_eq!(out.unwrap(), vec![n.clone(), Dim::Lit(3)]);
        assert_eq!(c.equal.len(), 1);
        assert_eq!((c.equal[0].0.clone(), c.equal[0].1.clone()), (n, m));
    }
}
