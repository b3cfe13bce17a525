//! `apply_fun`: a layer's outputs for its params and inputs, JAX's
//! primitives in JAX's order.

use super::*;

/// A params tree of the layer's structure, or JAX's unpacking error.
pub(super) fn unpack<'t, L: Lax>(
    l: &L,
    layer: &str,
    p: &'t Tree<L::V>,
    n: usize,
) -> Res<L, &'t [Tree<L::V>]> {
    match p {
        Tree::Seq(items) if items.len() == n => Ok(items),
        _ => Err(l.error(format!(
            "{layer}'s params are a tuple of {n} (what its init returns), got {}",
            p.structure().describe()
        ))),
    }
}

pub(super) fn leaf<L: Lax>(l: &L, layer: &str, t: &Tree<L::V>) -> Res<L, L::V> {
    match t {
        Tree::Leaf(v) => Ok(v.clone()),
        t => Err(l.error(format!(
            "{layer}: expected an array, got {}",
            t.structure().describe()
        ))),
    }
}

/// `apply_fun(params, inputs, rng=rng)`: the outputs.
pub fn apply<L: Lax>(
    l: &mut L,
    layer: &Layer,
    params: &Tree<L::V>,
    inputs: Tree<L::V>,
    rng: Option<L::V>,
) -> Res<L, Tree<L::V>> {
    let name = layer.name();
    let one = |l: &L, t: Tree<L::V>| leaf(l, name, &t);
    match layer {
        Layer::Dense { .. } => {
            let p = unpack(l, name, params, 2)?;
            let (w, b) = (leaf(l, name, &p[0])?, leaf(l, name, &p[1])?);
            let x = one(l, inputs)?;
            // `jnp.dot(inputs, W) + b`: the inputs' last axis against W's
            // first.
            let (xa, wa) = (l.aval(&x), l.aval(&w));
            if xa.rank() == 0 || wa.rank() != 2 || xa.shape.last() != wa.shape.first() {
                return Err(l.error(format!(
                    "Dense: inputs {xa} do not fit the weights {wa} (the inputs' last size must be the weights' first)"
                )));
            }
            let xs = jnp::promote(l, vec![x, w])?;
            let preferred = l.aval(&xs[0]).dtype;
            let y = l.dot_general(
                xs[0].clone(),
                xs[1].clone(),
                (vec![xa.rank() - 1], vec![0]),
                (vec![], vec![]),
                preferred,
            )?;
            Ok(Tree::Leaf(jnp::binary(l, &prims::ADD, y, b)?))
        }
        Layer::GeneralConv {
            specs,
            filter_shape,
            strides,
            padding,
            ..
        } => {
            let p = unpack(l, name, params, 2)?;
            let (w, b) = (leaf(l, name, &p[0])?, leaf(l, name, &p[1])?);
            let x = one(l, inputs)?;
            let sizes = |l: &L, v: &L::V| sizes_or_one(&l.aval(v));
            let ones = vec![1; filter_shape.len()];
            let strides = strides.clone().unwrap_or(ones);
            let pad = Padding::parse(padding).map_err(|e| l.error(e))?;
            let [a, r, o] = specs;
            let spec = ConvSpec::new(
                &sizes(l, &x),
                &sizes(l, &w),
                &strides,
                &pad,
                None,
                None,
                Some((a.as_str(), r.as_str(), o.as_str())),
                1,
                1,
            )
            .map_err(|e| l.error(format!("GeneralConv: {e}")))?;
            let xs = jnp::promote(l, vec![x, w])?;
            let params = crate::ir::primitive::Params::Conv(crate::ir::primitive::ConvParams {
                window_strides: spec.window_strides,
                padding: spec.padding,
                lhs_dilation: spec.lhs_dilation,
                rhs_dilation: spec.rhs_dilation,
                specs: [spec.lhs_perm, spec.rhs_perm, spec.out_perm],
                feature_group_count: 1,
                batch_group_count: 1,
            });
            let y = l.bind(&prims::CONV_GENERAL_DILATED, params, xs)?;
            Ok(Tree::Leaf(jnp::binary(l, &prims::ADD, y, b)?))
        }
        Layer::BatchNorm {
            axis,
            epsilon,
            center,
            scale,
            ..
        } => {
            let p = unpack(l, name, params, 2)?;
            let x = one(l, inputs)?;
            let rank = l.aval(&x).rank();
            let axes = batch_norm_axes(axis, rank).map_err(|e| l.error(e))?;
            let eps = jnp::weak_literal(l, Scalar::Float(*epsilon));
            let z = jnp::standardize(l, x, axes.clone(), eps)?;
            // `gamma[ed]`, `beta[ed]`: a size-1 axis at each normalized axis.
            let expand = |l: &mut L, v: L::V| -> Res<L, L::V> {
                let a = l.aval(&v);
                let kept: Vec<usize> = (0..rank).filter(|i| !axes.contains(i)).collect();
                if a.rank() != kept.len() {
                    return Err(l.error(format!(
                        "BatchNorm: params {a} for inputs of rank {rank} normalized over {axes:?}"
                    )));
                }
                let mut shape = vec![Dim::Lit(1); rank];
                for (k, &i) in kept.iter().enumerate() {
                    shape[i] = a.shape[k].clone();
                }
                l.broadcast_in_dim(v, shape, kept)
            };
            let mut y = z;
            if *scale {
                let g = leaf(l, name, &p[1])?;
                let g = expand(l, g)?;
                y = jnp::binary(l, &prims::MUL, g, y)?;
            }
            if *center {
                let b = leaf(l, name, &p[0])?;
                let b = expand(l, b)?;
                y = jnp::binary(l, &prims::ADD, y, b)?;
            }
            Ok(Tree::Leaf(y))
        }
        Layer::Elementwise(e) => {
            let x = one(l, inputs)?;
            let float = |l: &mut L, v: f64| jnp::weak_literal(l, Scalar::Float(v));
            let last = l.aval(&x).rank().saturating_sub(1);
            let y = match e {
                Elementwise::Tanh => jnp::unary_inexact(l, &prims::TANH, x)?,
                Elementwise::Relu => crate::nn::relu(l, x)?,
                Elementwise::Exp => jnp::unary_inexact(l, &prims::EXP, x)?,
                Elementwise::LogSoftmax => jnp::softmax(l, x, last, true)?,
                Elementwise::Softmax => jnp::softmax(l, x, last, false)?,
                Elementwise::Softplus => crate::nn::softplus(l, x)?,
                Elementwise::Sigmoid => crate::nn::sigmoid(l, x)?,
                Elementwise::Elu => {
                    let alpha = float(l, 1.0);
                    crate::nn::elu(l, x, alpha)?
                }
                Elementwise::LeakyRelu => {
                    let slope = float(l, 0.01);
                    crate::nn::leaky_relu(l, x, slope)?
                }
                Elementwise::Selu => crate::nn::selu(l, x)?,
                Elementwise::Gelu => crate::nn::gelu(l, x, true)?,
            };
            Ok(Tree::Leaf(y))
        }
        Layer::Pool {
            kind,
            window_shape,
            strides,
            padding,
            spec,
        } => {
            let x = one(l, inputs)?;
            let a = l.aval(&x);
            let sizes = sizes_or_one(&a);
            let (window, st) = pool_window(
                window_shape,
                strides.as_deref(),
                spec.as_deref(),
                sizes.len(),
            )
            .map_err(|e| l.error(format!("{name}: {e}")))?;
            let pad = Padding::parse(padding).map_err(|e| l.error(e))?;
            let w = WindowSpec::new(&sizes, &window, Some(&st), &pad, None, None)
                .map_err(|e| l.error(format!("{name}: {e}")))?;
            let prim = if *kind == PoolKind::Max {
                &prims::REDUCE_WINDOW_MAX
            } else {
                &prims::REDUCE_WINDOW_SUM
            };
            let out = l.reduce_window(prim, x, w.into())?;
            if *kind != PoolKind::Avg {
                return Ok(Tree::Leaf(out));
            }
            // `outputs / window_sizes`: each window's count of the input's
            // elements (the padding left out), a `reduce_window` of ones
            // over the spatial axes.
            let mut non_spatial: Vec<usize> = match spec {
                None => vec![0, sizes.len() - 1],
                Some(s) => vec![s.find('N').expect("checked"), s.find('C').expect("checked")],
            };
            non_spatial.sort_unstable();
            let spatial: Vec<usize> = (0..sizes.len())
                .filter(|i| !non_spatial.contains(i))
                .collect();
            let pick = |v: &[usize]| spatial.iter().map(|&i| v[i]).collect::<Vec<_>>();
            let (sp_sizes, sp_window, sp_strides) = (pick(&sizes), pick(&window), pick(&st));
            let one = l.literal(Scalar::Float(1.0), Aval::scalar(a.dtype, false));
            let ones =
                l.broadcast_in_dim(one, sp_sizes.iter().map(|&n| Dim::Lit(n)).collect(), vec![])?;
            let ws = WindowSpec::new(&sp_sizes, &sp_window, Some(&sp_strides), &pad, None, None)
                .map_err(|e| l.error(format!("{name}: {e}")))?;
            let mut counts = l.reduce_window(&prims::REDUCE_WINDOW_SUM, ones, ws.into())?;
            for i in non_spatial {
                counts = jnp::expand_dims(l, counts, i as i128)?;
            }
            Ok(Tree::Leaf(jnp::binary(l, &prims::DIV, out, counts)?))
        }
        Layer::Flatten => {
            let x = one(l, inputs)?;
            let a = l.aval(&x);
            let Some((first, rest)) = a.shape.split_first() else {
                return Err(l.error("Flatten needs inputs of rank 1 or more".into()));
            };
            let mut n = 1;
            for d in rest {
                match d {
                    Dim::Lit(k) => n *= k,
                    Dim::Sym(s) => {
                        return Err(l.error(format!(
                            "Flatten needs sizes known when the function compiles, not `{s}`"
                        )))
                    }
                }
            }
            Ok(Tree::Leaf(jnp::reshape(
                l,
                x,
                vec![first.clone(), Dim::Lit(n)],
            )?))
        }
        Layer::Identity => Ok(inputs),
        Layer::Dropout { rate, train } => {
            if !train {
                return Ok(inputs);
            }
            let Some(rng) = rng else {
                return Err(l.error(
                    "Dropout layer requires apply_fun to be called with a PRNG key argument: call `.apply_rng(&params, &inputs, key)`".into(),
                ));
            };
            let x = one(l, inputs)?;
            let shape = l.aval(&x).shape;
            let p = jnp::weak_literal(l, Scalar::Float(*rate));
            let keep = random::bernoulli(l, rng, p.clone(), shape)?;
            let scaled = jnp::binary(l, &prims::DIV, x, p)?;
            let zero = jnp::weak_literal(l, Scalar::Int(0));
            Ok(Tree::Leaf(jnp::where_(l, keep, scaled, zero)?))
        }
        Layer::FanOut(n) => Ok(Tree::Seq(vec![inputs; *n])),
        Layer::FanInSum => {
            let xs = fan_in(l, name, inputs)?;
            let mut it = xs.into_iter();
            let mut acc = it.next().expect("one input or more");
            for x in it {
                acc = jnp::binary(l, &prims::ADD, acc, x)?;
            }
            Ok(Tree::Leaf(acc))
        }
        Layer::FanInConcat(axis) => {
            let xs = fan_in(l, name, inputs)?;
            Ok(Tree::Leaf(jnp::concatenate(l, xs, *axis as i128, false)?))
        }
        Layer::Serial(layers) => {
            let p = unpack(l, name, params, layers.len())?;
            let rngs = split_rng(l, rng, layers.len())?;
            let mut x = inputs;
            for ((layer, p), r) in layers.iter().zip(p).zip(rngs) {
                x = apply(l, layer, p, x, r)?;
            }
            Ok(x)
        }
        Layer::Parallel(layers) => {
            let p = unpack(l, name, params, layers.len())?;
            let Tree::Seq(xs) = inputs else {
                return Err(l.error(format!(
                    "parallel of {} layers takes one input per layer (after `FanOut`), got one array",
                    layers.len()
                )));
            };
            if xs.len() != layers.len() {
                return Err(l.error(format!(
                    "parallel of {} layers takes {} inputs, got {}",
                    layers.len(),
                    layers.len(),
                    xs.len()
                )));
            }
            let rngs = split_rng(l, rng, layers.len())?;
            let mut out = Vec::new();
            for (((layer, p), x), r) in layers.iter().zip(p).zip(xs).zip(rngs) {
                out.push(apply(l, layer, p, x, r)?);
            }
            Ok(Tree::Seq(out))
        }
    }
}

/// `random.split(rng, n)` if there is a key, else `(None,) * n`.
pub(super) fn split_rng<L: Lax>(
    l: &mut L,
    rng: Option<L::V>,
    n: usize,
) -> Res<L, Vec<Option<L::V>>> {
    match rng {
        None => Ok(vec![None; n]),
        Some(k) => {
            let keys = random::split_words(l, k, n)?;
            (0..n)
                .map(|i| random::key_at(l, keys.clone(), i).map(Some))
                .collect()
        }
    }
}

/// The arrays a fan-in layer combines.
pub(super) fn fan_in<L: Lax>(l: &L, layer: &str, inputs: Tree<L::V>) -> Res<L, Vec<L::V>> {
    match inputs {
        Tree::Seq(xs) if !xs.is_empty() => xs.iter().map(|x| leaf(l, layer, x)).collect(),
        t => Err(l.error(format!(
            "{layer} takes several arrays (after `FanOut` and `parallel`), got {}",
            t.structure().describe()
        ))),
    }
}
