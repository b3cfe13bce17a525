//! JAX's key primitives, for imported programs: keys here are their two
//! threefry words (`u32[..., 2]`, see `random.rs`), so `random_wrap` and
//! `random_unwrap` (typed keys from words and back) are identities and
//! `random_seed` builds the words from a seed as `random.key(seed)` does.

use proc_macro2::TokenStream;
use quote::quote;

use super::{BDim, Batch, Bind, Kernel, KernelArgs, Lowering, Params, PrimDef, Res};
use crate::ir::{Atom, Aval, Dim};
use jax_dtypes::DType;

/// The `impl` parameter: threefry is the only implementation.
fn parse_impl(r: &mut crate::ir::parse::ParamReader) -> Result<Params, String> {
    match r.name("impl")?.as_str() {
        "fry" => Ok(Params::None),
        other => Err(format!(
            "PRNG implementation `{other}` is not supported: only threefry (`fry`)"
        )),
    }
}

/// An identity on key words: the same batch axis.
fn same_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let prim = bx.prim;
    Ok(vec![(bx.bind(prim, p.clone(), ins.to_vec())?, dims[0])])
}

fn key_words(name: &str, x: &Aval) -> Result<Vec<Aval>, String> {
    if x.dtype != DType::U32 || x.shape.last() != Some(&Dim::Lit(2)) {
        return Err(format!(
            "{name} takes threefry key data, uint32[..., 2], got {x}"
        ));
    }
    Ok(vec![x.clone()])
}

/// What `random_wrap` and `random_unwrap` share: each is the identity on
/// key words.
const KEY_IDENTITY: PrimDef = PrimDef {
    lowering: Lowering::Elementwise,
    scalar: Some(|_, a| quote!(::jax::__rt::ops::copy(#(#a)*))),
    forward: Some(|_, e, _| Some(e.ins[0].clone())),
    jvp: Some(super::zero_jvp),
    batch: Some(same_batch),
    ..PrimDef::BASE
};

/// Typed keys from their words (`jax.random.wrap_key_data`).
pub static RANDOM_WRAP: PrimDef = PrimDef {
    name: "random_wrap",
    abstract_eval: |ops, _, _| key_words("random_wrap", &ops[0]),
    print_params: |_, _| vec![("impl", "fry".into())],
    parse_params: |r, _, _| parse_impl(r),
    ..KEY_IDENTITY
};

/// A key's words (`jax.random.key_data`).
pub static RANDOM_UNWRAP: PrimDef = PrimDef {
    name: "random_unwrap",
    abstract_eval: |ops, _, _| key_words("random_unwrap", &ops[0]),
    ..KEY_IDENTITY
};

/// Keys from integer seeds (`jax.random.key(seed)`): the words are the
/// seed's high 32 bits (0 for a 32-bit seed) and its low 32 bits.
pub static RANDOM_SEED: PrimDef = PrimDef {
    name: "random_seed",
    abstract_eval: |ops, _, _| {
        let s = &ops[0];
        if !s.dtype.is_integer() {
            return Err(format!("random_seed takes integer seeds, got {s}"));
        }
        let mut shape = s.shape.clone();
        shape.push(Dim::Lit(2));
        Ok(vec![Aval {
            dtype: DType::U32,
            shape,
            weak: false,
        }])
    },
    print_params: |_, _| vec![("impl", "fry".into())],
    parse_params: |r, _, _| parse_impl(r),
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: seed_call,
    }),
    jvp: Some(super::zero_jvp),
    batch: Some(seed_batch),
    ..PrimDef::BASE
};

fn seed_call(a: KernelArgs<'_>) -> TokenStream {
    let wide = a.avals[0].dtype.bits() == 64;
    let s = (a.bind)(0, Bind::Buffer);
    quote!({
        let __seeds = &#s[..];
        let mut __words = ::std::vec::Vec::with_capacity(__seeds.len() * 2);
        for &__s in __seeds {
            let __w = __s as i64 as u64;
            __words.push(if #wide { (__w >> 32) as u32 } else { 0 });
            __words.push(__w as u32);
        }
        __words
    })
}

/// Each seed's words: the seeds' batch axis stays where it is.
fn seed_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    Ok(vec![(
        bx.bind(&RANDOM_SEED, p.clone(), ins.to_vec())?,
        dims[0],
    )])
}
