//! Prints a [`Jaxpr`] exactly as `str(jax.make_jaxpr(f)(*args))` does.

use std::collections::{HashMap, HashSet};

use jax_dtypes::DType;

use crate::ir::pretty::{brk, brk_text, concat, format, group, join, nest, nil, text, Doc};
use crate::ir::{Atom, Eqn, Jaxpr, Literal, Scalar, Var};

/// A parameter value starting with this marker is a one-equation jaxpr over
/// two scalars (`update_jaxpr` of a scatter), the rest naming the primitive;
/// the printer renders it with fresh names from its own context, as JAX does.
pub const SCALAR_JAXPR: &str = "\u{0}scalar_jaxpr:";

/// JAX's variable names: `a`..`z`, then `ba`, `bb`, ...
fn var_name(n: usize) -> String {
    let mut n = n;
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap()
}

/// A float literal as jaxprs print it: the shortest digits that round-trip
/// at the literal's width, laid out as Python's `repr(float)` (positional
/// from 1e-4 up to 1e16, else `1e+16`).
pub fn python_float(x: f64, dtype: DType) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Shortest digits for the literal's own width.
    let sci = match dtype {
        DType::F32 => format!("{:e}", x as f32),
        DType::F16 => format!("{:e}", half_shortest(x)),
        _ => format!("{x:e}"),
    };
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{esign}{:02}", exp.abs())
    }
}

/// A complex literal as Python's `repr(complex)`: each part as a double
/// without a trailing `.0`, `1j` alone when the real part is +0, else
/// `(1+2j)`.
pub fn python_complex(re: f64, im: f64) -> String {
    let part = |x: f64| {
        let s = python_float(x, DType::F64);
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", part(im));
    }
    let sign = if im.is_sign_negative() && !im.is_nan() {
        "-"
    } else {
        "+"
    };
    format!("({}{sign}{}j)", part(re), part(im.abs()))
}

/// f16 values print with f32's shortest digits of the f16 value; good enough
/// for literals, which are rarely f16.
fn half_shortest(x: f64) -> f32 {
    x as f32
}

fn literal(l: &Literal) -> String {
    let v = match l.value {
        Scalar::Bool(b) => if b { "True" } else { "False" }.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => python_float(f, l.aval.dtype),
        Scalar::Complex(re, im) => python_complex(re, im),
    };
    format!("{v}:{}", l.aval)
}

struct Printer<'a> {
    jaxpr: &'a Jaxpr,
    names: HashMap<Var, String>,
    used: HashSet<Var>,
    next: usize,
}

impl Printer<'_> {
    fn name(&mut self, v: Var) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        let n = var_name(self.next);
        self.next += 1;
        self.names.insert(v, n.clone());
        n
    }

    /// A name for a variable that exists only in the printed text.
    fn fresh(&mut self) -> String {
        let n = var_name(self.next);
        self.next += 1;
        n
    }

    fn atom(&mut self, a: &Atom) -> Doc {
        match a {
            Atom::Var(v) => text(self.name(*v)),
            Atom::Lit(l) => text(literal(l)),
        }
    }

    /// Binders with types: `a:f32[3]`; an unused result prints as `_`.
    fn binders(&mut self, vs: &[Var], drop_unused: bool) -> Doc {
        let docs = vs
            .iter()
            .map(|&v| {
                let name = if drop_unused && !self.used.contains(&v) {
                    "_".to_string()
                } else {
                    self.name(v)
                };
                text(format!("{name}:{}", self.jaxpr.aval(v)))
            })
            .collect();
        nest(2, group(join(group(brk()), docs)))
    }

    fn atoms(&mut self, atoms: &[Atom], sep: &str) -> Doc {
        let docs = atoms.iter().map(|a| self.atom(a)).collect();
        nest(2, group(join(text(sep) + group(brk()), docs)))
    }

    fn eqn(&mut self, e: &Eqn) -> Doc {
        let lhs = self.binders(&e.outs, true);
        let in_avals: Vec<_> = e
            .ins
            .iter()
            .map(|a| self.jaxpr.atom_aval(a).clone())
            .collect();
        let mut params = (e.prim.print_params)(&in_avals, &e.params);
        // JAX prints the name of a call first, the others in name order.
        let call = matches!(e.prim.name, "jit" | "custom_jvp_call" | "custom_vjp_call");
        params.sort_by_key(|(k, _)| (!(call && *k == "name"), *k));
        let out_type = self
            .jaxpr
            .aval(e.outs[0])
            .with_dtype(self.jaxpr.aval(e.outs[0]).dtype, false);
        for (_, v) in &mut params {
            if let Some(op) = v.strip_prefix(SCALAR_JAXPR) {
                let t = format!("{}[]", out_type.dtype.short_name());
                let (x, y, z) = (self.fresh(), self.fresh(), self.fresh());
                *v =
                    format!("{{ lambda ; {x}:{t} {y}:{t}. let {z}:{t} = {op} {x} {y} in ({z},) }}");
            }
        }
        let (nested, operands) = match e.prim.nested {
            Some(nested) => nested(&e.params, &e.ins),
            None => (Vec::new(), e.ins.clone()),
        };
        let params = if params.is_empty() {
            nil()
        } else {
            let kvs = params
                .into_iter()
                .map(|(k, v)| {
                    if v != crate::ir::primitive::NESTED {
                        return text(format!("{k}={v}"));
                    }
                    let p = nested
                        .iter()
                        .find(|p| p.name == k)
                        .expect("a nested program for each marker");
                    text(format!("{k}=")) + self.programs(p, &e.ins, &e.outs)
                })
                .collect();
            group(concat(vec![
                nest(2, concat(vec![text("["), brk_text(""), join(brk(), kvs)])),
                brk_text(""),
                text("]"),
            ]))
        };
        let ins = self.atoms(&operands, "");
        let rhs = vec![text(e.prim.name), params, text(" ") + ins];
        if e.prim.lowering == crate::ir::primitive::Lowering::Effect {
            // No results, as JAX prints an effect.
            return concat(rhs);
        }
        concat([vec![lhs, text(" = ")], rhs].concat())
    }

    /// Nested programs, printed in the same namespace (names continue), as
    /// JAX's `pp_jaxpr` and `pp_jaxprs` lay them out.
    /// `ins`/`outs` are the equation's, whose names an aliased program's
    /// inputs and outputs take.
    fn programs(&mut self, p: &crate::ir::primitive::Printed, ins: &[Atom], outs: &[Var]) -> Doc {
        let mut docs = Vec::new();
        for (j, invars) in &p.programs {
            let mut names = HashMap::new();
            if p.alias {
                for (v, a) in invars.iter().zip(ins) {
                    if let Atom::Var(outer) = a {
                        names.insert(*v, self.name(*outer));
                    }
                }
                for (o, outer) in j.outvars.iter().zip(outs) {
                    if let (Atom::Var(v), Some(n)) = (o, self.names.get(outer)) {
                        names.entry(*v).or_insert_with(|| n.clone());
                    }
                }
            }
            let mut sub = Printer {
                jaxpr: j,
                names,
                used: used_vars(j),
                next: self.next,
            };
            docs.push(sub.jaxpr(invars));
            self.next = sub.next;
        }
        if !p.tuple {
            return docs.into_iter().next().unwrap_or_else(nil);
        }
        group(concat(vec![
            nest(2, concat(vec![text("("), brk_text(""), join(brk(), docs)])),
            brk_text(""),
            text(")"),
        ]))
    }

    fn jaxpr(&mut self, invars: &[Var]) -> Doc {
        let j = self.jaxpr;
        let consts: Vec<crate::ir::Var> = j.constvars.iter().map(|(v, _)| *v).collect();
        let constvars = self.binders(&consts, false);
        let invars = self.binders(invars, false);
        let eqns: Vec<Doc> = j.eqns.iter().map(|e| self.eqn(e)).collect();
        let eqns = join(brk_text("; "), eqns);
        let close = if j.outvars.len() == 1 { ",)" } else { ")" };
        let outs = self.atoms(&j.outvars, ",");
        // The closing brace is inside the group, as in JAX's printer.
        group(
            nest(
                2,
                concat(vec![
                    text("{ "),
                    text("lambda "),
                    constvars,
                    text("; "),
                    invars,
                    text(". "),
                    text("let"),
                    nest(2, brk() + eqns),
                    brk(),
                    text("in "),
                    concat(vec![text("("), outs, text(close)]),
                ]),
            ) + text(" }"),
        )
    }
}

/// The jaxpr as `jax.make_jaxpr` prints it (80 columns).
pub fn print_jaxpr(jaxpr: &Jaxpr) -> String {
    let mut p = Printer {
        jaxpr,
        names: HashMap::new(),
        used: used_vars(jaxpr),
        next: 0,
    };
    let doc = p.jaxpr(&jaxpr.invars);
    format(&doc, 80)
}

/// The variables `j` reads (a result nothing reads prints as `_`).
fn used_vars(j: &Jaxpr) -> HashSet<Var> {
    let mut used = HashSet::new();
    for a in j.eqns.iter().flat_map(|e| &e.ins).chain(&j.outvars) {
        if let Atom::Var(v) = a {
            used.insert(*v);
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_like_jax() {
        assert_eq!(var_name(0), "a");
        assert_eq!(var_name(25), "z");
        assert_eq!(var_name(26), "ba");
        assert_eq!(var_name(27), "bb");
    }

    #[test]
    fn floats_like_numpy_scalars() {
        assert_eq!(python_float(2.0, DType::F32), "2.0");
        assert_eq!(python_float(1.5, DType::F32), "1.5");
        assert_eq!(python_float(0.1, DType::F32), "0.1");
        // As jax.make_jaxpr prints literals (checked with JAX 0.10.2).
        assert_eq!(python_float(1e10, DType::F32), "10000000000.0");
        assert_eq!(python_float(1e16, DType::F32), "1e+16");
        assert_eq!(python_float(1e-5, DType::F64), "1e-05");
        assert_eq!(python_float(f64::NEG_INFINITY, DType::F32), "-inf");
        assert_eq!(python_float(-0.0001, DType::F64), "-0.0001");
        assert_eq!(python_float(123456.0, DType::F32), "123456.0");
    }
}
