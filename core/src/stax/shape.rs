//! `init_fun`'s shape rule ([`output_shape`]), written once for eager and
//! traced init, and the shape checks `init` and `apply` share.

use super::*;

/// A convolution's kernel shape for an input shape (`init_fun`'s
/// `kernel_shape`), its strides, padding and the checked result.
pub(super) fn conv_plan(layer: &Layer, s: &[i64]) -> Result<(Vec<usize>, ConvSpec), String> {
    let Layer::GeneralConv {
        specs: [lhs, rhs, out],
        out_chan,
        filter_shape,
        strides,
        padding,
        ..
    } = layer
    else {
        unreachable!("a convolution")
    };
    if s.len() != lhs.len() {
        return Err(format!(
            "GeneralConv: an input of shape {} for the layout {lhs}",
            Shape::Array(s.to_vec())
        ));
    }
    let chan = lhs
        .find('C')
        .ok_or_else(|| format!("GeneralConv: the input layout {lhs} has no 'C'"))?;
    let n_in = known("GeneralConv", s[chan], "channel count")?;
    let mut filters = filter_shape.iter();
    let mut kernel = Vec::new();
    for c in rhs.chars() {
        kernel.push(match c {
            'O' => *out_chan,
            'I' => n_in,
            _ => *filters.next().ok_or_else(|| {
                format!("GeneralConv: filter_shape {filter_shape:?} has fewer sizes than the kernel layout {rhs} has spatial axes")
            })?,
        });
    }
    let ones = vec![1; filter_shape.len()];
    let strides = strides.clone().unwrap_or(ones);
    let pad = Padding::parse(padding)?;
    // The batch size may be unknown: the shape rule runs with 1 in its
    // place.
    let lhs_sizes: Vec<usize> = s.iter().map(|&d| d.max(1) as usize).collect();
    let spec = ConvSpec::new(
        &lhs_sizes,
        &kernel,
        &strides,
        &pad,
        None,
        None,
        Some((lhs.as_str(), rhs.as_str(), out.as_str())),
        1,
        1,
    )
    .map_err(|e| format!("GeneralConv: {e}"))?;
    Ok((kernel, spec))
}

/// The output shape `init_fun(rng, input_shape)` returns.
pub fn output_shape(layer: &Layer, input_shape: &Shape) -> Result<Shape, String> {
    let name = layer.name();
    match layer {
        Layer::Dense { out_dim, .. } => {
            let s = array_shape(name, input_shape)?;
            if s.is_empty() {
                return Err("Dense needs inputs of rank 1 or more".into());
            }
            let mut out = s.to_vec();
            *out.last_mut().unwrap() = *out_dim as i64;
            Ok(Shape::Array(out))
        }
        Layer::GeneralConv { specs, .. } => {
            let s = array_shape(name, input_shape)?;
            let (_, spec) = conv_plan(layer, s)?;
            let mut out: Vec<i64> = spec.out_shape.iter().map(|&d| d as i64).collect();
            // The result keeps the input's batch size, known or not.
            out[specs[2].find('N').expect("a checked layout")] =
                s[specs[0].find('N').expect("a checked layout")];
            Ok(Shape::Array(out))
        }
        Layer::BatchNorm { axis, .. } => {
            let s = array_shape(name, input_shape)?;
            batch_norm_axes(axis, s.len())?;
            Ok(input_shape.clone())
        }
        Layer::Elementwise(_) | Layer::Identity | Layer::Dropout { .. } => Ok(input_shape.clone()),
        Layer::Pool {
            window_shape,
            strides,
            padding,
            spec,
            ..
        } => {
            let s = array_shape(name, input_shape)?;
            let (window, strides) =
                pool_window(window_shape, strides.as_deref(), spec.as_deref(), s.len())?;
            let sizes: Vec<usize> = s.iter().map(|&d| d.max(1) as usize).collect();
            let pads = Padding::parse(padding)?.pads(&sizes, &window, &strides);
            let mut out = Vec::new();
            // JAX's `reduce_window_shape_tuple`: `max(0, (padded - window)
            // // stride + 1)` on every axis, an unknown size (-1) included,
            // which makes it 0.
            for (k, &d) in s.iter().enumerate() {
                let padded = d + pads[k].0 + pads[k].1;
                let q = (padded - window[k] as i64).div_euclid(strides[k] as i64) + 1;
                out.push(q.max(0));
            }
            Ok(Shape::Array(out))
        }
        Layer::Flatten => {
            let s = array_shape(name, input_shape)?;
            let Some((&first, rest)) = s.split_first() else {
                return Err("Flatten needs inputs of rank 1 or more".into());
            };
            Ok(Shape::Array(vec![first, rest.iter().product()]))
        }
        Layer::FanOut(n) => Ok(Shape::List(vec![input_shape.clone(); *n])),
        Layer::FanInSum => match input_shape {
            Shape::List(s) if !s.is_empty() => Ok(s[0].clone()),
            _ => Err(format!(
                "FanInSum takes several inputs (after `FanOut` and `parallel`), got {input_shape}"
            )),
        },
        Layer::FanInConcat(axis) => {
            let Shape::List(s) = input_shape else {
                return Err(format!(
                    "FanInConcat takes several inputs (after `FanOut` and `parallel`), got {input_shape}"
                ));
            };
            let shapes = s
                .iter()
                .map(|x| array_shape(name, x).map(<[i64]>::to_vec))
                .collect::<Result<Vec<_>, _>>()?;
            let Some(first) = shapes.first() else {
                return Err("FanInConcat takes one input or more".into());
            };
            let ax = axis.rem_euclid(first.len().max(1) as i64) as usize;
            let mut out = first.clone();
            out[ax] = shapes.iter().map(|s| s[ax]).sum();
            Ok(Shape::Array(out))
        }
        Layer::Serial(layers) => layers
            .iter()
            .try_fold(input_shape.clone(), |s, layer| output_shape(layer, &s)),
        Layer::Parallel(layers) => {
            let shapes = parallel_inputs(layers.len(), input_shape)?;
            Ok(Shape::List(
                layers
                    .iter()
                    .zip(shapes)
                    .map(|(layer, s)| output_shape(layer, s))
                    .collect::<Result<_, _>>()?,
            ))
        }
    }
}

/// `parallel`'s input shapes, one per layer.
pub(super) fn parallel_inputs(n: usize, input_shape: &Shape) -> Result<&[Shape], String> {
    match input_shape {
        Shape::List(s) if s.len() == n => Ok(s),
        Shape::List(s) => Err(format!(
            "parallel of {n} layers takes {n} inputs, got {}",
            s.len()
        )),
        _ => Err(format!(
            "parallel takes one input per layer (after `FanOut`), got {input_shape}"
        )),
    }
}

/// BatchNorm's axes, checked (JAX counts them from the front only).
pub(super) fn batch_norm_axes(axis: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    axis.iter()
        .map(|&a| {
            usize::try_from(a)
                .ok()
                .filter(|&a| a < rank)
                .ok_or_else(|| {
                    format!(
                        "BatchNorm: axis {a} for inputs of rank {rank}; stax counts the axes from the front (0 to {})",
                        rank.saturating_sub(1)
                    )
                })
        })
        .collect()
}

/// A pooling layer's window and strides over all axes: 1 on the batch and
/// feature axes (`spec`'s `N` and `C`, else the first and the last).
pub(super) fn pool_window(
    window_shape: &[usize],
    strides: Option<&[usize]>,
    spec: Option<&str>,
    rank: usize,
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let n = window_shape.len();
    let ones = vec![1; n];
    let strides = strides.unwrap_or(&ones);
    if strides.len() != n {
        return Err(format!(
            "pooling: strides {strides:?} need one entry per window axis ({n})"
        ));
    }
    if rank != n + 2 {
        return Err(format!(
            "pooling: a window of {n} axes needs inputs of rank {} (batch, spatial.., features), got rank {rank}",
            n + 2
        ));
    }
    let mut non_spatial = match spec {
        None => vec![0, n + 1],
        Some(s) => {
            let (Some(b), Some(c)) = (s.find('N'), s.find('C')) else {
                return Err(format!("pooling: the layout {s} needs 'N' and 'C'"));
            };
            vec![b, c]
        }
    };
    non_spatial.sort_unstable();
    let (mut w, mut st) = (window_shape.to_vec(), strides.to_vec());
    for i in non_spatial {
        w.insert(i.min(w.len()), 1);
        st.insert(i.min(st.len()), 1);
    }
    Ok((w, st))
}

/// An operand's sizes for a shape rule: a const generic's size stands as
/// 1 (the primitive's own rule keeps it where the window or kernel leaves
/// its axis alone, and reports it elsewhere).
pub(super) fn sizes_or_one(a: &Aval) -> Vec<usize> {
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 1,
        })
        .collect()
}
