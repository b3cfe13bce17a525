//! `lax::dot_general` with its eager signature: dimension numbers as
//! tuples of slices, one primitive as JAX binds it.

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::prims::{self, Params};

/// `lax::dot_general(a, b, ((&lhs_contract, &rhs_contract), (&lhs_batch,
/// &rhs_batch)))`: the operands' dtype (`lax` does not promote).
pub(crate) fn lax_dot_general(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let (v, s) = &c.args[2];
    let help = "the dimension numbers are `((&lhs_contract, &rhs_contract), (&lhs_batch, &rhs_batch))` with integers known when the function compiles";
    let Value::Tuple(parts) = v else {
        return call_err(*s, help);
    };
    let mut lists = Vec::new();
    for p in parts {
        let Value::Tuple(pair) = p else {
            return call_err(*s, help);
        };
        for l in pair {
            let mut dims = Vec::new();
            for k in t.static_ints(l, *s, "a dimension number")? {
                match usize::try_from(k) {
                    Ok(k) => dims.push(k),
                    Err(_) => return call_err(*s, help),
                }
            }
            lists.push(dims);
        }
    }
    let [lc, rc, lb, rb]: [Vec<usize>; 4] = match lists.try_into() {
        Ok(l) => l,
        Err(_) => return call_err(*s, help),
    };
    let preferred = t.b.aval(&x).dtype;
    Ok(Value::Traced(t.b.bind1(
        &prims::DOT_GENERAL,
        Params::DotGeneral {
            lhs_contract: lc,
            rhs_contract: rc,
            lhs_batch: lb,
            rhs_batch: rb,
            preferred,
        },
        vec![x, y],
        c.span,
    )?))
}
