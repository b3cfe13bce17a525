//! `init_fun`: a layer's params for an input shape and a key, with JAX's
//! key splits and initializers.

use super::*;

/// A key split in two, `random.split(rng)`.
pub(super) fn split2<L: Lax>(l: &mut L, key: L::V) -> Res<L, (L::V, L::V)> {
    let keys = random::split_words(l, key, 2)?;
    Ok((
        random::key_at(l, keys.clone(), 0)?,
        random::key_at(l, keys, 1)?,
    ))
}

/// `init_fun(rng, input_shape)`: the output shape and the params.
pub fn init<L: Lax>(
    l: &mut L,
    layer: &Layer,
    key: L::V,
    input_shape: &Shape,
) -> Res<L, (Shape, Tree<L::V>)> {
    let out = output_shape(layer, input_shape).map_err(|e| l.error(e))?;
    let params = init_params(l, layer, key, input_shape)?;
    Ok((out, params))
}

/// The params `init_fun` draws, its checks passed ([`output_shape`]).
fn init_params<L: Lax>(
    l: &mut L,
    layer: &Layer,
    key: L::V,
    input_shape: &Shape,
) -> Res<L, Tree<L::V>> {
    let name = layer.name();
    let unit = || Tree::Seq(vec![]);
    let sizes = |l: &L| array_shape(name, input_shape).map_err(|e| l.error(e));
    match layer {
        Layer::Dense {
            out_dim,
            w_init,
            b_init,
        } => {
            let s = sizes(l)?;
            let last = *s.last().expect("checked");
            let n_in = known(name, last, "last size").map_err(|e| l.error(e))?;
            let (k1, k2) = split2(l, key)?;
            let w = initializers::init(l, w_init, k1, &[n_in, *out_dim])?;
            let b = initializers::init(l, b_init, k2, &[*out_dim])?;
            Ok(Tree::Seq(vec![Tree::Leaf(w), Tree::Leaf(b)]))
        }
        Layer::GeneralConv {
            specs: [_, rhs, out],
            out_chan,
            w_init,
            b_init,
            ..
        } => {
            let s = sizes(l)?;
            let (kernel, _) = conv_plan(layer, s).map_err(|e| l.error(e))?;
            let bias: Vec<usize> = out
                .chars()
                .map(|c| if c == 'C' { *out_chan } else { 1 })
                .collect();
            let w_init = match w_init {
                Some(i) => i.clone(),
                None => {
                    let mut i = Init::family("glorot_normal").expect("a family");
                    i.set("in_axis", rhs.find('I').expect("checked") as f64);
                    i.set("out_axis", rhs.find('O').expect("checked") as f64);
                    i
                }
            };
            let (k1, k2) = split2(l, key)?;
            let w = initializers::init(l, &w_init, k1, &kernel)?;
            let b = initializers::init(l, b_init, k2, &bias)?;
            Ok(Tree::Seq(vec![Tree::Leaf(w), Tree::Leaf(b)]))
        }
        Layer::BatchNorm {
            axis,
            center,
            scale,
            beta_init,
            gamma_init,
            ..
        } => {
            let s = sizes(l)?;
            let axes = batch_norm_axes(axis, s.len()).map_err(|e| l.error(e))?;
            let shape = s
                .iter()
                .enumerate()
                .filter(|(i, _)| !axes.contains(i))
                .map(|(_, &d)| known(name, d, "non-normalized sizes"))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| l.error(e))?;
            let (k1, k2) = split2(l, key)?;
            let beta = if *center {
                Tree::Leaf(initializers::init(l, beta_init, k1, &shape)?)
            } else {
                unit()
            };
            let gamma = if *scale {
                Tree::Leaf(initializers::init(l, gamma_init, k2, &shape)?)
            } else {
                unit()
            };
            Ok(Tree::Seq(vec![beta, gamma]))
        }
        Layer::Serial(layers) => {
            let mut shape = input_shape.clone();
            let mut key = key;
            let mut params = Vec::new();
            for layer in layers {
                let (next, layer_key) = split2(l, key)?;
                key = next;
                let (s, p) = init(l, layer, layer_key, &shape)?;
                shape = s;
                params.push(p);
            }
            Ok(Tree::Seq(params))
        }
        Layer::Parallel(layers) => {
            let shapes = parallel_inputs(layers.len(), input_shape).map_err(|e| l.error(e))?;
            let keys = random::split_words(l, key, layers.len())?;
            let mut params = Vec::new();
            for (i, (layer, shape)) in layers.iter().zip(shapes).enumerate() {
                let k = random::key_at(l, keys.clone(), i)?;
                params.push(init_params(l, layer, k, shape)?);
            }
            Ok(Tree::Seq(params))
        }
        _ => Ok(unit()),
    }
}
