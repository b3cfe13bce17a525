//! Random samplers. Each result element is a function of the key and of the
//! element's own row-major index (its threefry counter), so a sample is
//! computed inside its consumers' loops like an elementwise result, and an
//! array of noise is stored only when it is used twice. They run as
//! `::jax::__rt::random::NAME::<T>(key, index, bounds..)`, the functions
//! eager sampling uses, so jitted and eager samples are the same bits.

use jax_dtypes::DType;

use proc_macro2::TokenStream;
use quote::quote;

use super::{tuple, BDim, Batch, Bind, Kernel, KernelArgs, Lowering, Params, PrimDef, Res};
use crate::ir::parse::ParamReader as ParseReader;
use crate::ir::shapes::Constraints;
use crate::ir::Aval;
use crate::ir::{key_aval, Atom, Dim};

/// What a sampler accepts as its result dtype.
fn sample_aval(name: &str, ops: &[Aval], p: &Params, floats: bool) -> Result<Vec<Aval>, String> {
    let Params::Random { shape, dtype, .. } = p else {
        unreachable!("random primitives carry Params::Random")
    };
    if ops.len() != 1 || ops[0] != key_aval() {
        return Err(format!(
            "random.{name} takes a key (`jax::random::Key`), got {}",
            ops.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let ok = if floats {
        dtype.is_float()
    } else {
        matches!(dtype, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    };
    if !ok {
        let want = if floats {
            "a float dtype (f16, bf16, f32, f64)"
        } else {
            "an unsigned integer dtype (u8, u16, u32, u64)"
        };
        return Err(format!(
            "random.{name} needs {want}, got {}: annotate the result, e.g. `let z: Array<f32, 3> = random::{name}(k);`",
            dtype.name()
        ));
    }
    Ok(vec![Aval {
        dtype: *dtype,
        shape: shape.clone(),
        weak: false,
    }])
}

fn print_random(_: &[Aval], p: &Params) -> Vec<(&'static str, String)> {
    let Params::Random {
        shape,
        dtype,
        bounds,
    } = p
    else {
        return Vec::new();
    };
    let mut out = vec![("shape", tuple(shape)), ("dtype", dtype.name().to_string())];
    if let Some((lo, hi)) = bounds {
        out.push(("minval", format!("{lo:?}")));
        out.push(("maxval", format!("{hi:?}")));
    }
    out
}

/// A sampler's parameters read back ([`print_random`]'s inverse): the
/// result's shape and dtype, and `minval`/`maxval` when printed.
fn parse_random(r: &mut ParseReader, _: &[Aval], _: &[Aval]) -> Result<Params, String> {
    let shape = r.dims("shape")?;
    let dtype = r.dtype("dtype")?;
    let bound = |r: &mut ParseReader, name: &str| -> Result<Option<f64>, String> {
        match r.opt(name) {
            None => Ok(None),
            Some(v) => v
                .float()
                .map(Some)
                .ok_or_else(|| format!("`{}`'s parameter `{name}` should be a number", r.prim)),
        }
    };
    let bounds = match (bound(r, "minval")?, bound(r, "maxval")?) {
        (Some(lo), Some(hi)) => Some((lo, hi)),
        (None, None) => None,
        _ => {
            return Err(format!(
                "`{}` needs both `minval` and `maxval`, or neither",
                r.prim
            ))
        }
    };
    Ok(Params::Random {
        shape,
        dtype,
        bounds,
    })
}

macro_rules! sampler {
    ($static:ident, $name:literal, floats: $floats:expr) => {
        pub static $static: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops: &[Aval], p: &Params, _: &mut Constraints| {
                sample_aval(&$name["random_".len()..], ops, p, $floats)
            },
            print_params: print_random,
            lowering: Lowering::Sample,
            // Keys are integers: samples have no derivative.
            jvp: Some(super::zero_jvp),
            transpose: None,
            batch: Some(sample_batch),
            ..PrimDef::BASE
        };
    };
    // A sampler whose parameters read back from jaxpr text.
    ($static:ident, $name:literal, floats: $floats:expr, parse: $parse:expr) => {
        pub static $static: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops: &[Aval], p: &Params, _: &mut Constraints| {
                sample_aval(&$name["random_".len()..], ops, p, $floats)
            },
            print_params: print_random,
            parse_params: $parse,
            lowering: Lowering::Sample,
            jvp: Some(super::zero_jvp),
            transpose: None,
            batch: Some(sample_batch),
            ..PrimDef::BASE
        };
    };
}

/// `jax.random.bits`: JAX's `random_bits` primitive, printed as JAX
/// prints it (the width of the unsigned result, and its shape).
pub static RANDOM_BITS: PrimDef = PrimDef {
    name: "random_bits",
    abstract_eval: |ops: &[Aval], p: &Params, _: &mut Constraints| {
        sample_aval("bits", ops, p, false)
    },
    print_params: |_, p| match p {
        Params::Random { shape, dtype, .. } => vec![
            ("bit_width", dtype.bits().to_string()),
            ("shape", tuple(shape)),
        ],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        let dtype = match r.usize("bit_width")? {
            8 => DType::U8,
            16 => DType::U16,
            32 => DType::U32,
            64 => DType::U64,
            w => return Err(format!("`random_bits` of {w} bits: 8, 16, 32 or 64")),
        };
        Ok(Params::Random {
            shape: r.dims("shape")?,
            dtype,
            bounds: None,
        })
    },
    lowering: Lowering::Sample,
    // Keys are integers: samples have no derivative.
    jvp: Some(super::zero_jvp),
    transpose: None,
    batch: Some(sample_batch),
    ..PrimDef::BASE
};
sampler!(RANDOM_UNIFORM, "random_uniform", floats: true, parse: parse_random);
sampler!(RANDOM_NORMAL, "random_normal", floats: true, parse: parse_random);
sampler!(RANDOM_EXPONENTIAL, "random_exponential", floats: true, parse: parse_random);
sampler!(RANDOM_GUMBEL, "random_gumbel", floats: true, parse: parse_random);
sampler!(
    RANDOM_TRUNCATED_NORMAL,
    "random_truncated_normal",
    floats: true,
    parse: parse_random
);

/// All random primitives: the key operations and the samplers.
pub static RANDOM: &[&PrimDef] = &[
    &RANDOM_SPLIT,
    &RANDOM_FOLD_IN,
    &RANDOM_BITS,
    &RANDOM_UNIFORM,
    &RANDOM_NORMAL,
    &RANDOM_EXPONENTIAL,
    &RANDOM_GUMBEL,
    &RANDOM_TRUNCATED_NORMAL,
];

/// The runtime function of a sampler (`random_normal` -> `normal`), the
/// range variant for a uniform with bounds.
pub fn runtime_name(prim: &str, p: &Params) -> &'static str {
    let bounded = matches!(
        p,
        Params::Random {
            bounds: Some(_),
            ..
        }
    );
    match prim {
        "random_bits" => "bits",
        "random_uniform" if bounded => "uniform_range",
        "random_uniform" => "uniform",
        "random_normal" => "normal",
        "random_exponential" => "exponential",
        "random_gumbel" => "gumbel",
        "random_truncated_normal" => "truncated_normal",
        other => unreachable!("{other} is not a sampler"),
    }
}

/// Samples from a key per lane, as `jax.vmap(lambda k: sample(k, shape))`
/// computes them (JAX's samplers are vectorized over keys): each lane's
/// sample from its own key, stacked along a new first axis. Samples read
/// their key's two words directly, so each lane is one sampler on its key
/// and the lanes are joined.
fn sample_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Some(d) = dims[0] else {
        unreachable!("a sampler's one operand is batched")
    };
    let Dim::Lit(n) = bx.aval(&ins[0]).shape[d] else {
        return Err(format!("vmap of a sampler over a number of keys only rustc knows ({}) is not supported: make the count a number or a const of the #[jax::jit] mod", bx.aval(&ins[0]).shape[d]));
    };
    let prim = bx.prim;
    let mut lanes = Vec::with_capacity(n);
    for i in 0..n {
        let key = super::index_in_dim(bx, ins[0].clone(), d, i)?;
        let x = bx.bind(prim, p.clone(), vec![key])?;
        lanes.push(bx.expand_dims(x, &[0])?);
    }
    let out = if n == 1 {
        lanes.pop().expect("one lane")
    } else {
        bx.bind(&super::CONCATENATE, Params::Concatenate { dim: 0 }, lanes)?
    };
    Ok(vec![(out, Some(0))])
}

/// Keys are their words, `u32[..., 2]`: an array of keys is the words of
/// each key along a last axis of 2 (JAX prints the same values as
/// `key<fry>[...]`). The leading axes of a key operand (`[]` for one key).
fn key_batch(name: &str, a: &Aval) -> Result<Vec<Dim>, String> {
    match a.shape.split_last() {
        Some((Dim::Lit(2), lead)) if a.dtype == DType::U32 => Ok(lead.to_vec()),
        _ => Err(format!("{name} takes a key (`jax::random::Key`), got {a}")),
    }
}

/// `jax.random.split(key, n)` on typed keys: `random_split[shape=(n,)]`,
/// each key's `n` new keys along a new axis before the words. A kernel:
/// the few words are computed once and sampled from by reading them.
pub static RANDOM_SPLIT: PrimDef = PrimDef {
    name: "random_split",
    abstract_eval: |ops: &[Aval], p: &Params, _: &mut Constraints| {
        let Params::Random { shape, .. } = p else {
            unreachable!("random_split carries Params::Random")
        };
        let mut out = key_batch("random_split", &ops[0])?;
        out.extend(shape.iter().cloned());
        out.push(Dim::Lit(2));
        Ok(vec![Aval {
            dtype: DType::U32,
            shape: out,
            weak: false,
        }])
    },
    print_params: |_, p| match p {
        Params::Random { shape, .. } => vec![("shape", tuple(shape))],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::Random {
            shape: r.dims("shape")?,
            dtype: DType::U32,
            bounds: None,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: split_call,
    }),
    work: 64,
    jvp: Some(super::zero_jvp),
    transpose: None,
    batch: Some(split_batch),
    ..PrimDef::BASE
};

fn split_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Random { shape, .. } = a.params else {
        unreachable!("random_split carries Params::Random")
    };
    let n = super::size_tokens(shape);
    let keys = (a.bind)(0, Bind::Buffer);
    quote!(::jax::__rt::random::split_keys(&#keys, #n))
}

/// A batch of keys splits as one array of keys: the batch axis first.
fn split_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let size = bx.size.clone();
    let keys = bx.at_front(ins[0].clone(), dims[0], size)?;
    let out = bx.bind(&RANDOM_SPLIT, p.clone(), vec![keys])?;
    Ok(vec![(out, Some(0))])
}

/// `jax.random.fold_in(key, data)` on typed keys: `random_fold_in`, the
/// data a `u32` (one per key, or one for all).
pub static RANDOM_FOLD_IN: PrimDef = PrimDef {
    name: "random_fold_in",
    abstract_eval: |ops: &[Aval], _: &Params, _: &mut Constraints| {
        let lead = key_batch("random_fold_in", &ops[0])?;
        let d = &ops[1];
        if d.dtype != DType::U32 || !(d.shape.is_empty() || d.shape == lead) {
            return Err(format!(
                "random_fold_in folds in uint32 data of shape () or {}, got {d}",
                tuple(&lead)
            ));
        }
        Ok(vec![Aval {
            weak: false,
            ..ops[0].clone()
        }])
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: fold_in_call,
    }),
    work: 64,
    jvp: Some(super::zero_jvp),
    transpose: None,
    batch: Some(fold_in_batch),
    ..PrimDef::BASE
};

fn fold_in_call(a: KernelArgs<'_>) -> TokenStream {
    let keys = (a.bind)(0, Bind::Buffer);
    let data = (a.bind)(1, Bind::Buffer);
    quote!(::jax::__rt::random::fold_in_keys(&#keys, &#data))
}

/// Batch axes first; data shared by every key stays a scalar.
fn fold_in_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let size = bx.size.clone();
    let keys = bx.at_front(ins[0].clone(), dims[0], size.clone())?;
    let shared = dims[1].is_none() && bx.aval(&ins[1]).shape.is_empty();
    let data = if shared {
        ins[1].clone()
    } else {
        bx.at_front(ins[1].clone(), dims[1], size.clone())?
    };
    // A batched datum on one key: the key repeated per lane (above), and
    // data of rank one less than the keys' words.
    let out = bx.bind(&RANDOM_FOLD_IN, p.clone(), vec![keys, data])?;
    Ok(vec![(out, Some(0))])
}
