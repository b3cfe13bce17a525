//! Row programs: functions whose work is independent per row (softmax,
//! logsumexp, layer norms) run one row at a time, so every intermediate
//! stays in cache and the input is read from memory once.
//!
//! A jaxpr is a row program when every array either has the leading
//! dimension `R` (a row array), has leading dimension 1 and broadcasts along
//! the rows, or is a parameter only broadcast into the trailing axes (a
//! shared array, such as a bias), and no operation mixes rows: reductions,
//! transposes, reshapes, slices and concatenations leave axis 0 alone, and
//! there are no contractions. The row program is the same jaxpr with axis 0
//! dropped from row arrays, emitted inside a loop over the rows.

use std::collections::HashMap;

use crate::ir::{Atom, Aval, Dim, Jaxpr, Var};
use crate::prims::{Lowering, Params};

/// How a variable relates to the rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Leading dimension `R`: one slice per row.
    Row,
    /// Leading dimension 1, broadcast along the rows.
    Bcast,
    /// The same value for every row (scalars, and parameters broadcast into
    /// trailing axes).
    Shared,
}

/// A row program: the number of rows, each variable's class, and the jaxpr
/// of one row.
#[derive(Debug)]
pub struct RowPlan {
    pub rows: Dim,
    pub class: HashMap<Var, Class>,
    pub row: Jaxpr,
}

fn shift(axes: &[usize]) -> Option<Vec<usize>> {
    axes.iter().map(|&a| a.checked_sub(1)).collect()
}

/// The row program of `j`, when it is one and running it by rows pays: it
/// has a reduction along the rows whose result is combined with the row
/// again (otherwise plain fused loops are as good).
pub fn row_plan(j: &Jaxpr) -> Option<RowPlan> {
    let rows = j
        .outvars
        .iter()
        .filter_map(|a| {
            if let Atom::Var(v) = a {
                Some(j.aval(*v))
            } else {
                None
            }
        })
        .find(|a| a.rank() >= 2)?
        .shape[0]
        .clone();
    if rows == Dim::Lit(1) {
        return None;
    }
    let classify = |a: &Aval| -> Class {
        if a.rank() == 0 {
            Class::Shared
        } else if a.shape[0] == rows {
            Class::Row
        } else if a.shape[0] == Dim::Lit(1) {
            Class::Bcast
        } else {
            Class::Shared
        }
    };
    let mut class: HashMap<Var, Class> = HashMap::new();
    for &v in &j.invars {
        class.insert(v, classify(j.aval(v)));
    }
    if !j.constvars.is_empty() {
        // Constant arrays are not tied to rows; keep such functions simple.
        return None;
    }
    let mut row = Jaxpr {
        avals: Vec::with_capacity(j.avals.len()),
        constvars: Vec::new(),
        invars: j.invars.clone(),
        eqns: Vec::with_capacity(j.eqns.len()),
        outvars: j.outvars.clone(),
    };
    let mut reduces_rows = false;
    for e in &j.eqns {
        let in_classes: Vec<Class> = e
            .ins
            .iter()
            .map(|a| match a {
                Atom::Var(v) => class[v],
                Atom::Lit(_) => Class::Shared,
            })
            .collect();
        let out = e.outs[0];
        // Row programs run rows in parallel: an effect would run per row.
        if e.outs.len() != 1 || e.prim.lowering == Lowering::Effect {
            return None;
        }
        let out_aval = j.aval(out);
        let out_class = classify(out_aval);
        let any_row = in_classes.contains(&Class::Row);
        // Row-ness flows from operands; a shared array may only be broadcast
        // into the trailing axes, and a result that is not per row must come
        // from operands that are not either. (Each primitive is recognized by
        // the parameters it carries, which it also rewrites for one row.)
        let broadcast = matches!(e.params, Params::BroadcastInDim { .. });
        match out_class {
            Class::Row if !any_row && !broadcast => return None,
            Class::Shared | Class::Bcast if any_row => return None,
            _ => {}
        }
        let params = match (&e.params, e.prim.lowering) {
            // Products, and loops and branches (their bodies see whole arrays).
            (Params::DotGeneral { .. }, _) => return None,
            (Params::Scan(_) | Params::While(_) | Params::Cond(_) | Params::Jit(_), _) => {
                return None
            }
            (Params::Axes(axes, _), Lowering::Reduce) if in_classes[0] == Class::Row => {
                reduces_rows = true;
                Params::Axes(shift(axes)?, 0)
            }
            (
                Params::ArgReduce {
                    axis,
                    index_dtype,
                    np_int,
                },
                _,
            ) if in_classes[0] == Class::Row => Params::ArgReduce {
                axis: axis.checked_sub(1)?,
                index_dtype: *index_dtype,
                np_int: *np_int,
            },
            (Params::BroadcastInDim { shape, dims, .. }, _) => {
                if in_classes[0] == Class::Shared && e.ins.iter().any(|a| j.atom_aval(a).rank() > 0)
                {
                    // A shared array placed in trailing axes only.
                    if out_class == Class::Shared || dims.contains(&0) {
                        return None;
                    }
                    Params::BroadcastInDim {
                        shape: shape[1..].to_vec(),
                        dims: shift(dims)?,
                        np_ints: 0,
                    }
                } else if j.atom_aval(&e.ins[0]).rank() == 0 {
                    if out_class == Class::Shared {
                        e.params.clone()
                    } else {
                        Params::BroadcastInDim {
                            shape: shape[1..].to_vec(),
                            dims: vec![],
                            np_ints: 0,
                        }
                    }
                } else {
                    if dims.first() != Some(&0) {
                        return None;
                    }
                    Params::BroadcastInDim {
                        shape: shape[1..].to_vec(),
                        dims: shift(&dims[1..])?,
                        np_ints: 0,
                    }
                }
            }
            (Params::Transpose { perm }, _) => {
                if perm.first() != Some(&0) {
                    return None;
                }
                Params::Transpose {
                    perm: shift(&perm[1..])?,
                }
            }
            (Params::Squeeze { dims }, _) => Params::Squeeze { dims: shift(dims)? },
            (Params::Reshape { new_sizes }, _) => {
                if new_sizes.first() != Some(&rows)
                    || j.atom_aval(&e.ins[0]).shape.first() != Some(&rows)
                {
                    return None;
                }
                Params::Reshape {
                    new_sizes: new_sizes[1..].to_vec(),
                }
            }
            (Params::Concatenate { dim }, _) => Params::Concatenate {
                dim: dim.checked_sub(1)?,
            },
            (
                Params::Slice {
                    start,
                    limit,
                    strides,
                },
                _,
            ) => {
                if start[0] != 0
                    || Dim::Lit(limit[0]) != rows
                    || strides.as_ref().is_some_and(|s| s[0] != 1)
                {
                    return None;
                }
                Params::Slice {
                    start: start[1..].to_vec(),
                    limit: limit[1..].to_vec(),
                    strides: strides.as_ref().map(|s| s[1..].to_vec()),
                }
            }
            (Params::Axes(_, _), _) | (Params::ArgReduce { .. }, _) => return None,
            // A value shared by every row keeps its parameters (they name
            // its own shape); a per-row value keeps those that do not
            // depend on the shape.
            (p, _) if out_class == Class::Shared => p.clone(),
            // A kernel without parameters (`dynamic_update_slice`) still
            // reads whole arrays at run-time positions.
            (Params::None, Lowering::Kernel) => return None,
            (
                p @ (Params::None
                | Params::Convert { .. }
                | Params::IntegerPow(_)
                | Params::Rounding(_)
                | Params::Symbol { .. }),
                _,
            ) => p.clone(),
            // The rest name positions or shapes of the whole array (a
            // scatter's indices, a dynamic slice's sizes, a sample's shape).
            _ => return None,
        };
        class.insert(out, out_class);
        let mut eqn = e.clone();
        eqn.params = params;
        row.eqns.push(eqn);
    }
    if !reduces_rows {
        return None;
    }
    for a in &j.outvars {
        if let Atom::Var(v) = a {
            if class[v] != Class::Row {
                return None;
            }
        }
    }
    row.avals = j
        .avals
        .iter()
        .enumerate()
        .map(|(i, a)| match class.get(&Var(i as u32)) {
            Some(Class::Row) | Some(Class::Bcast) => Aval {
                shape: a.shape[1..].to_vec(),
                ..a.clone()
            },
            _ => a.clone(),
        })
        .collect();
    Some(RowPlan { rows, class, row })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(src: &str) -> Option<RowPlan> {
        row_plan(&crate::core_tests::simplified_source(src))
    }

    #[test]
    fn softmax_is_a_row_program() {
        let p = plan("fn f(x: Array<f32, 64, 10>) -> Array<f32, 64, 10> { jnp::softmax(x, -1) }")
            .unwrap();
        assert_eq!(p.rows, Dim::Lit(64));
        let printed = crate::ir::print::print_jaxpr(&p.row);
        assert!(printed.contains("reduce_max[axes=(0,)] a"), "{printed}");
        assert!(printed.contains("a:f32[10]"), "{printed}");
    }

    #[test]
    fn column_reductions_and_products_are_not() {
        assert!(
            plan("fn f(x: Array<f32, 64, 10>) -> Array<f32, 64, 10> { jnp::softmax(x, 0) }")
                .is_none()
        );
        assert!(plan("fn f(x: Array<f32, 4, 3>, w: Array<f32, 3, 3>) -> Array<f32, 4, 3> { jnp::softmax(x.matmul(w), -1) }").is_none());
        assert!(
            plan("fn f(x: Array<f32, 64, 10>) -> Array<f32, 64, 10> { jnp::exp(x) }").is_none()
        );
    }

    #[test]
    fn row_programs_ask_for_each_row_inputs_next_row() {
        let f: proc_macro2::TokenStream = "fn f(x: &Array<f32, 64, 1024>, b: &Array<f32, 1024>) -> Array<f32, 64, 1024> { jnp::softmax(x + b, -1) }"
            .parse()
            .unwrap();
        let code = crate::expand::expand(proc_macro2::TokenStream::new(), f).to_string();
        // The rows of `x`, before each row is computed; the shared bias is
        // not a row input.
        let next_x =
            "prefetch_row (:: jax :: __rt :: data (& x) , (__row + 1) * 1024usize , 1024usize)";
        assert!(code.contains(next_x), "{code}");
        assert!(!code.contains("data (& b) , (__row + 1)"), "{code}");
    }

    #[test]
    fn shared_biases_broadcast_into_rows() {
        let p = plan(
            "fn f(x: Array<f32, 8, 4>, b: Array<f32, 4>) -> Array<f32, 8, 4> { jnp::log_softmax(x + b, -1) }",
        )
        .unwrap();
        assert_eq!(p.class[&p.row.invars[1]], Class::Shared);
    }
}
