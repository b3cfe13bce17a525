//! `shard_map` and the `jit` call around it: what `jax::pmap(f, "i")`
//! binds, as JAX 0.10 does (`jit[name=_fun jaxpr={ .. shard_map[..] .. }]`).
//!
//! `shard_map` runs its body once per device of a mesh with one named
//! axis. Each operand is either split into that many blocks along one axis
//! (`P('i',)`), or given whole to every device (`P()`); the collectives in
//! the body communicate across the devices. The backend emits it as an
//! SPMD run (`emit/control.rs`, `__rt::spmd`).
//!
//! Forward mode is a second, differentiated `shard_map` of the body's jvp
//! (tangents split like their primals); its transpose linearizes the body
//! again on each device and transposes that there, so reverse mode saves
//! only the inputs (as a `checkpoint` does). A replicated input's
//! cotangent is the `psum` of the devices' parts. `vmap` of a `shard_map`
//! batches its body, the batch axis first.

use super::{Ad, BDim, Batch, JvpRule, Res, TransposeRule};
use super::{Lowering, Params, PrimDef, Printed};
use crate::ir::builder::Builder;
use crate::ir::parse::{PVal, ParamReader};
use crate::ir::primitive::{JitCall, ShardMap, Shared};
use crate::ir::rules::{tangent_aval, Wrt};
use crate::ir::{Atom, Aval, Dim, Jaxpr};

fn shard_map_of(p: &Params) -> Res<&ShardMap> {
    match p {
        Params::ShardMap(s) => Ok(&s.0),
        _ => Err("shard_map needs its program".into()),
    }
}

/// A block's aval, as the whole value's: axis `spec` multiplied by `n`.
pub fn unblocked(a: &Aval, spec: Option<usize>, n: usize) -> Res<Aval> {
    let mut a = a.clone();
    if let Some(d) = spec {
        match &a.shape[d] {
            Dim::Lit(k) => a.shape[d] = Dim::Lit(k * n),
            Dim::Sym(s) => return Err(format!("shard_map of a symbolic dimension `{s}`")),
        }
    }
    Ok(a)
}

/// A value's aval as one device's block of it.
pub fn blocked(a: &Aval, spec: Option<usize>, n: usize) -> Res<Aval> {
    let mut a = a.clone();
    if let Some(d) = spec {
        match &a.shape[d] {
            Dim::Lit(k) if k % n == 0 => a.shape[d] = Dim::Lit(k / n),
            other => {
                return Err(format!(
                "shard_map: axis {d} of {a} has size {other}, which the {n} devices do not divide"
            ))
            }
        }
    }
    Ok(a)
}

fn shard_map_eval(
    _: &[Aval],
    p: &Params,
    _: &mut crate::ir::shapes::Constraints,
) -> Result<Vec<Aval>, String> {
    let s = shard_map_of(p)?;
    s.body
        .outvars
        .iter()
        .zip(&s.out_specs)
        .map(|(o, spec)| unblocked(s.body.atom_aval(o), *spec, s.size))
        .collect()
}

/// JAX's `P('i',)`, `P(None, 'i')`, `P()`.
fn spec_text(spec: Option<usize>, axis: &str) -> String {
    match spec {
        None => "P()".into(),
        Some(0) => format!("P('{axis}',)"),
        Some(d) => {
            let mut items = vec!["None".to_string(); d];
            items.push(format!("'{axis}'"));
            format!("P({})", items.join(", "))
        }
    }
}

fn specs_text(specs: &[Option<usize>], axis: &str) -> String {
    let items: Vec<String> = specs.iter().map(|s| spec_text(*s, axis)).collect();
    match items.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// A printed `P(..)`: the axis split along a mesh axis, and that axis'
/// name (`P()` splits none).
fn read_spec(v: &PVal) -> Res<(Option<usize>, Option<String>)> {
    let PVal::Call(f, args) = v else {
        return Err(format!("expected a partition spec `P(..)`, got {v:?}"));
    };
    if f != "P" {
        return Err(format!("expected a partition spec `P(..)`, got `{f}(..)`"));
    }
    let mut split = None;
    for (d, (kw, a)) in args.iter().enumerate() {
        match (kw, a) {
            (None, PVal::Name(n)) if n == "None" => {}
            (None, PVal::Str(axis)) if split.is_none() => split = Some((d, axis.clone())),
            (None, PVal::Str(_)) => {
                return Err("a value split along several of its axes is not supported: one axis per value".into())
            }
            _ => {
                return Err(
                    "a partition spec entry other than `None` or one axis name (a tuple of mesh axes) is not supported"
                        .into(),
                )
            }
        }
    }
    Ok((split.as_ref().map(|s| s.0), split.map(|s| s.1)))
}

/// The printed `in_specs` or `out_specs`: a tuple of `P(..)`.
fn read_specs(r: &mut ParamReader, name: &str) -> Res<Vec<(Option<usize>, Option<String>)>> {
    let v = r.req(name)?;
    let Some(items) = v.items() else {
        return Err(format!(
            "`shard_map`'s parameter `{name}` should be a tuple of partition specs"
        ));
    };
    items
        .iter()
        .map(|s| read_spec(s).map_err(|m| format!("`shard_map`'s `{name}`: {m}")))
        .collect()
}

/// `'i': 4` of a mesh's text `Mesh('i': 4, axis_types=(Auto,))`: its one
/// axis and size (`None` for another form, several axes or none; printing
/// back checks the whole).
fn mesh_text(text: &str) -> Option<(String, usize)> {
    let inner = text.strip_prefix("Mesh(")?;
    let (axis, rest) = inner.strip_prefix('\'')?.split_once('\'')?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    let size = rest[..end].parse().ok()?;
    // One axis: what follows is the mesh's options, not another axis.
    let after = rest[end..].trim_start();
    (after.starts_with(')') || after.starts_with(", axis_types")).then(|| (axis.to_string(), size))
}

/// `shard_map`'s parameters read back: the body, the specs and the mesh.
/// Its `primal` is not printed (JAX's `shard_map` has none): a program
/// read back is a plain call of its body, which forward mode
/// differentiates as any; only its transpose, of an already linear
/// `shard_map` read back, is an error (it needs the primal body).
fn shard_map_parse(r: &mut ParamReader, ins: &[Aval], outs: &[Aval]) -> Res<Params> {
    let mut body = r.jaxpr("jaxpr")?;
    // Checked `False` and `frozenset({'i'})` when printed back.
    r.skip("check_vma");
    r.skip("newly_manual_axes");
    let in_specs = read_specs(r, "in_specs")?;
    let out_specs = read_specs(r, "out_specs")?;
    let mesh = match r.raw("mesh") {
        Some(text) => mesh_text(&text),
        None => return Err("`shard_map` needs the parameter `mesh`".into()),
    };
    if in_specs.len() != ins.len() || in_specs.len() != body.invars.len() {
        return Err(format!(
            "`shard_map` has {} operands, {} in_specs and a body of {} inputs",
            ins.len(),
            in_specs.len(),
            body.invars.len()
        ));
    }
    if out_specs.len() != body.outvars.len() {
        return Err(format!(
            "`shard_map` has {} out_specs and a body of {} outputs",
            out_specs.len(),
            body.outvars.len()
        ));
    }
    let mut names: Vec<&String> = in_specs
        .iter()
        .chain(&out_specs)
        .filter_map(|(_, n)| n.as_ref())
        .chain(mesh.as_ref().map(|m| &m.0))
        .collect();
    names.dedup();
    let axis = match names.as_slice() {
        [one] => (*one).clone(),
        [] => {
            return Err(
                "`shard_map`'s mesh axis is named by neither its specs nor its mesh as read".into(),
            )
        }
        _ => {
            return Err(
                "a `shard_map` over several mesh axes is not supported: one named axis".into(),
            )
        }
    };
    // The devices: the mesh's size, else a split value's whole size over
    // its block's.
    let ratio =
        |whole: &Aval, block: &Aval, d: usize| match (whole.shape.get(d), block.shape.get(d)) {
            (Some(Dim::Lit(w)), Some(Dim::Lit(b))) if *b > 0 && w % b == 0 => Some(w / b),
            _ => None,
        };
    let split_in = in_specs
        .iter()
        .enumerate()
        .find_map(|(k, (d, _))| d.and_then(|d| ratio(&ins[k], body.aval(body.invars[k]), d)));
    let split_out = out_specs.iter().enumerate().find_map(|(k, (d, _))| {
        let d = (*d)?;
        ratio(outs.get(k)?, body.atom_aval(&body.outvars[k]), d)
    });
    let Some(size) = mesh.map(|m| m.1).or(split_in).or(split_out) else {
        return Err(
            "`shard_map`'s number of devices is in neither its mesh as read nor a split value"
                .into(),
        );
    };
    let in_specs: Vec<Option<usize>> = in_specs.into_iter().map(|s| s.0).collect();
    for (k, spec) in in_specs.iter().enumerate() {
        let want = unblocked(body.aval(body.invars[k]), *spec, size)?;
        if want.dtype != ins[k].dtype || want.shape != ins[k].shape {
            return Err(format!(
                "`shard_map`'s operand {k} is {} but its body's input is {} ({size} blocks of it: {want})",
                ins[k],
                body.aval(body.invars[k])
            ));
        }
    }
    super::set_axis_sizes(&mut body, &axis, size);
    Ok(shard_map_params(
        body,
        &axis,
        size,
        in_specs,
        out_specs.into_iter().map(|s| s.0).collect(),
        None,
    ))
}

/// The params of a `shard_map` of `body` over `axis` of `size` devices.
pub fn shard_map_params(
    body: Jaxpr,
    axis: &str,
    size: usize,
    in_specs: Vec<Option<usize>>,
    out_specs: Vec<Option<usize>>,
    primal: Option<Jaxpr>,
) -> Params {
    Params::ShardMap(Shared(std::rc::Rc::new(ShardMap {
        body,
        axis: axis.to_string(),
        size,
        in_specs,
        out_specs,
        primal,
    })))
}

/// The tangents: a differentiated `shard_map` of the tangent half of the
/// body's jvp, on the primal inputs and a tangent for each, split alike.
fn shard_map_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let s = shard_map_of(p)?;
    let wrt = Wrt {
        inputs: vec![true; ins.len()],
    };
    let (x64, span) = (ad.b.x64, ad.span);
    let mut jvp = (ad.transforms.jvp)(&s.body, &wrt, x64, span).map_err(|e| e.to_string())?;
    jvp.outvars.drain(..s.body.outvars.len());
    let mut args = ins.to_vec();
    for (x, tx) in ins.iter().zip(t) {
        args.push(ad.tangent_or_zeros(tx, x)?);
    }
    let mut in_specs = s.in_specs.clone();
    in_specs.extend(s.in_specs.iter().copied());
    let params = shard_map_params(
        jvp,
        &s.axis,
        s.size,
        in_specs,
        s.out_specs.clone(),
        Some(s.body.clone()),
    );
    let outs = ad.bind_all(&SHARD_MAP, params, args)?;
    Ok(outs.into_iter().map(Some).collect())
}

/// The transpose of a differentiated `shard_map` (linear in its tangents):
/// on each device, the primal body linearized again at its blocks and
/// transposed; a replicated input's cotangent summed over the devices.
fn shard_map_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let s = shard_map_of(p)?;
    let Some(primal) = &s.primal else {
        return Err("shard_map is not linear in its inputs".into());
    };
    let n = primal.invars.len();
    let mut primals = Vec::new();
    for x in &ins[..n] {
        primals.push(
            x.clone()
                .ok_or("reverse mode of a shard_map needs its primal inputs")?,
        );
    }
    let (x64, span) = (ad.b.x64, ad.span);
    let (known, back) = super::checkpoint::relinearized(ad, primal)?;
    // One device's program: its primal blocks and output cotangents in,
    // its inputs' cotangents out.
    let mut b = Builder::new(x64);
    let block_ins: Vec<Atom> = primal
        .invars
        .iter()
        .map(|v| b.input(primal.aval(*v).clone()))
        .collect();
    let block_cts: Vec<Atom> = primal
        .outvars
        .iter()
        .map(|o| b.input(tangent_aval(primal.atom_aval(o))))
        .collect();
    let known = b.inline(&known, &block_ins).map_err(|e| e.to_string())?;
    let mut args = known[primal.outvars.len()..].to_vec();
    args.extend(block_cts);
    let mut in_cts = b.inline(&back, &args).map_err(|e| e.to_string())?;
    let mut cx = crate::ir::rules::Ctx::new(&mut b, span);
    for (ct, spec) in in_cts.iter_mut().zip(&s.in_specs) {
        if spec.is_none() {
            let params = Params::Collective(super::CollectiveParams {
                axes: vec![s.axis.clone()],
                axis_size: s.size,
                perm: Vec::new(),
            });
            *ct = cx.bind(&super::PSUM, params, vec![ct.clone()])?;
        }
    }
    b.jaxpr.outvars = in_cts;
    let mut operands = primals;
    for (k, ct) in cts.iter().enumerate() {
        let aval = unblocked(
            &tangent_aval(primal.atom_aval(&primal.outvars[k])),
            s.out_specs[k],
            s.size,
        )?;
        operands.push(match ct {
            Some(ct) => ct.clone(),
            None => ad.zeros(&aval)?,
        });
    }
    let mut in_specs = s.in_specs[..n].to_vec();
    in_specs.extend(s.out_specs.iter().copied());
    let params = shard_map_params(
        b.jaxpr,
        &s.axis,
        s.size,
        in_specs,
        s.in_specs[..n].to_vec(),
        None,
    );
    let in_cts = ad.bind_all(&SHARD_MAP, params, operands)?;
    let mut out = vec![None; n];
    out.extend(in_cts.into_iter().map(Some));
    Ok(out)
}

/// `vmap` of a `shard_map`: its body batched with every value's lanes
/// first, each split axis one further in.
fn shard_map_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let s = shard_map_of(p)?;
    let body = super::vmap_at_front(bx, &s.body)?;
    let primal = match &s.primal {
        Some(j) => Some(super::vmap_at_front(bx, j)?),
        None => None,
    };
    let args = super::operands_at_front(bx, ins, dims)?;
    let shift = |specs: &[Option<usize>]| specs.iter().map(|s| s.map(|d| d + 1)).collect();
    let params = shard_map_params(
        body,
        &s.axis,
        s.size,
        shift(&s.in_specs),
        shift(&s.out_specs),
        primal,
    );
    let outs = bx.bind_all(&SHARD_MAP, params, args)?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}

fn shard_map_printed<'a>(p: &'a Params, ins: &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>) {
    let Params::ShardMap(s) = p else {
        return (Vec::new(), ins.to_vec());
    };
    let printed = vec![Printed {
        name: "jaxpr",
        programs: vec![(&s.0.body, s.0.body.invars.clone())],
        tuple: false,
        alias: false,
    }];
    (printed, ins.to_vec())
}

pub static SHARD_MAP: PrimDef = PrimDef {
    name: "shard_map",
    abstract_eval: shard_map_eval,
    print_params: |_, p| match p {
        Params::ShardMap(s) => vec![
            ("check_vma", "False".into()),
            ("in_specs", specs_text(&s.0.in_specs, &s.0.axis)),
            ("jaxpr", super::NESTED.into()),
            (
                "mesh",
                format!("Mesh('{}': {}, axis_types=(Auto,))", s.0.axis, s.0.size),
            ),
            (
                "newly_manual_axes",
                format!("frozenset({{'{}'}})", s.0.axis),
            ),
            ("out_specs", specs_text(&s.0.out_specs, &s.0.axis)),
        ],
        _ => Vec::new(),
    },
    parse_params: shard_map_parse,
    nested: Some(shard_map_printed),
    // Emitted by the backend as an SPMD run (`emit/control.rs`).
    lowering: Lowering::Kernel,
    jvp: Some(shard_map_jvp as JvpRule),
    transpose: Some(shard_map_transpose as TransposeRule),
    batch: Some(shard_map_batch),
    ..PrimDef::BASE
};

fn call_of(p: &Params) -> Res<&JitCall> {
    match p {
        Params::Jit(c) => Ok(&c.0),
        _ => Err("jit needs its program".into()),
    }
}

/// A `jit` call of `body` named `name`.
pub fn jit_params(name: &str, body: Jaxpr) -> Params {
    call_params(name, body, false)
}

/// A call of a function of the mod, printed as its body (see
/// [`JitCall::inlined`]).
pub fn inlined_call_params(name: &str, body: Jaxpr) -> Params {
    call_params(name, body, true)
}

fn call_params(name: &str, body: Jaxpr, inlined: bool) -> Params {
    Params::Jit(Shared(std::rc::Rc::new(JitCall {
        name: name.to_string(),
        body,
        inlined,
    })))
}

/// The same call (name, printing) of another program: a transformation of
/// its body.
fn call_like(c: &JitCall, body: Jaxpr) -> Params {
    call_params(&c.name, body, c.inlined)
}

/// Forward mode of a `jit` call: a call of its body's jvp, whose primal
/// outputs replace the call's. Reverse mode (`ad.linearize`) splits the
/// body instead: a call of the forward half (the outputs, then the
/// residuals) and a call of the linear half (the residuals and the
/// tangents, to the output tangents), which transposes to a call of the
/// transposed half. So an unrolled loop of calls differentiates to calls of
/// a few programs, each compiled once, as JAX keeps `pjit` through its
/// transformations.
fn jit_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let c = call_of(p)?;
    let (x64, span) = (ad.b.x64, ad.span);
    let n_out = c.body.outvars.len();
    let has_tangent: Vec<bool> = t.iter().map(Option::is_some).collect();
    let tangents = t.iter().flatten().cloned();
    if ad.linearize {
        let split = (ad.transforms.linearize)(&c.body, &has_tangent, x64, span)
            .map_err(|e| e.to_string())?;
        let fwd = ad.bind_all(&JIT, call_like(c, split.known), ins.to_vec())?;
        ad.replaced_outs = Some(fwd[..n_out].to_vec());
        let mut args = fwd[n_out..].to_vec();
        args.extend(tangents);
        let touts = ad.bind_all(&JIT, call_like(c, split.linear), args)?;
        return Ok(touts.into_iter().map(Some).collect());
    }
    let wrt = Wrt {
        inputs: has_tangent,
    };
    let jvp = (ad.transforms.jvp)(&c.body, &wrt, x64, span).map_err(|e| e.to_string())?;
    let mut args = ins.to_vec();
    args.extend(tangents);
    let all = ad.bind_all(&JIT, call_like(c, jvp), args)?;
    ad.replaced_outs = Some(all[..n_out].to_vec());
    Ok(all[n_out..].iter().cloned().map(Some).collect())
}

/// The transpose of a `jit` call linear in some operands: a call of its
/// body transposed, on the other operands and the given cotangents.
fn jit_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let c = call_of(p)?;
    let (x64, span) = (ad.b.x64, ad.span);
    let linear_in: Vec<bool> = ins.iter().map(Option::is_none).collect();
    let ct_given: Vec<bool> = cts.iter().map(Option::is_some).collect();
    let back = (ad.transforms.transpose)(&c.body, &linear_in, &ct_given, x64, span)
        .map_err(|e| e.to_string())?;
    let mut args: Vec<Atom> = ins.iter().flatten().cloned().collect();
    args.extend(cts.iter().flatten().cloned());
    let mut outs = ad.bind_all(&JIT, call_like(c, back), args)?.into_iter();
    Ok(linear_in
        .iter()
        .map(|&l| if l { outs.next() } else { None })
        .collect())
}

/// A `jit` call of the batched body, each operand's lanes where they are
/// and an operand without lanes left without (a weight matrix a mapped
/// function reads is not copied per lane), as inlining the body would
/// batch it.
fn jit_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let c = call_of(p)?;
    let (body, out_dims) = (bx.vmap)(
        &c.body,
        dims,
        &bx.size,
        bx.axis_name.as_deref(),
        None,
        bx.b.x64,
        bx.span,
    )
    .map_err(|e| e.to_string())?;
    let outs = bx.bind_all(&JIT, call_like(c, body), ins.to_vec())?;
    Ok(outs.into_iter().zip(out_dims).collect())
}

fn jit_printed<'a>(p: &'a Params, ins: &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>) {
    let Params::Jit(c) = p else {
        return (Vec::new(), ins.to_vec());
    };
    let printed = vec![Printed {
        name: "jaxpr",
        programs: vec![(&c.0.body, c.0.body.invars.clone())],
        tuple: false,
        // JAX names the body's inputs and outputs as the call's.
        alias: true,
    }];
    (printed, ins.to_vec())
}

/// `jit` (JAX's `pjit`): a call of a program, as `jax::pmap` binds one
/// around its `shard_map` and the tracer around a call of a function of the
/// mod. It computes its body; before emission, a call is inlined unless
/// its body is called often enough to be compiled once (`inline_calls`).
pub static JIT: PrimDef = PrimDef {
    name: "jit",
    abstract_eval: |_, p, _| {
        let c = call_of(p)?;
        Ok(c.body
            .outvars
            .iter()
            .map(|a| c.body.atom_aval(a).clone())
            .collect())
    },
    print_params: |_, p| match p {
        Params::Jit(c) => vec![("jaxpr", super::NESTED.into()), ("name", c.0.name.clone())],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| Ok(jit_params(&r.name("name")?, r.jaxpr("jaxpr")?)),
    nested: Some(jit_printed),
    lowering: Lowering::Kernel,
    jvp: Some(jit_jvp as JvpRule),
    transpose: Some(jit_transpose),
    batch: Some(jit_batch),
    ..PrimDef::BASE
};
