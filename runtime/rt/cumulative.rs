//! Cumulative reductions of generated code (`cumsum`, `cumprod`, `cummax`,
//! `cummin` primitives) on row-major data, in either direction: the kernels
//! jitted code calls and eager calls run (`crate::eager`).

use crate::element::{as_i128, is_nan, Element, Value};

macro_rules! cumulative {
    ($($name:ident),*) => {$(
        #[doc = concat!("`lax.", stringify!($name), "` of `x` (of `shape`) along `axis`, from the end when `reverse`.")]
        pub fn $name<T: Element + PartialOrd>(x: &[T], shape: &[usize], axis: usize, reverse: bool) -> Vec<T> {
            cumulative_lanes(stringify!($name), x, shape, axis, reverse)
        }
    )*};
}
cumulative!(cumsum, cumprod, cummax, cummin);

/// A running combination in the result type: floats round to `O` after each
/// step (an `f64` operation on two narrower floats rounds exactly once),
/// integers wrap.
fn scan<T: Element, O: Element>(
    lane: &[T],
    out: &mut [O],
    float: fn(f64, f64) -> f64,
    int: fn(i128, i128) -> i128,
) {
    let mut acc: Option<O> = None;
    for (&x, o) in lane.iter().zip(out.iter_mut()) {
        let x = x.cast::<O>();
        let next = match acc {
            None => x,
            Some(a) if O::DTYPE.is_float() => O::from_f64(float(a.to_f64(), x.to_f64())),
            Some(a) => O::from_value(Value::Int(int(as_i128(a), as_i128(x)))),
        };
        *o = next;
        acc = Some(next);
    }
}

fn running_extreme<T: Element + PartialOrd>(lane: &[T], out: &mut [T], max: bool) {
    let mut acc: Option<T> = None;
    for (&x, o) in lane.iter().zip(out.iter_mut()) {
        let next = match acc {
            Some(a) if is_nan(a) => a,
            Some(a) if !is_nan(x) && !(if max { x > a } else { x < a }) => a,
            _ => x,
        };
        *o = next;
        acc = Some(next);
    }
}

/// The longest lane a reverse cumulative sum or product folds each
/// output's window in index order, as XLA does for short lanes (longer
/// lanes run from the end; XLA's own order there is a tree).
const WINDOW_ORDER_MAX: usize = 32;

/// The cumulative reduction `op` (`cumsum`, `cumprod`, `cummax`, `cummin`)
/// of row-major `x` of `shape` along `axis`, in the element type, from the
/// end when `reverse`: the kernel of the jitted primitives.
fn cumulative_lanes<T: Element + PartialOrd>(
    op: &str,
    x: &[T],
    shape: &[usize],
    axis: usize,
    reverse: bool,
) -> Vec<T> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = vec![T::ZERO; x.len()];
    let mut lane = Vec::with_capacity(n);
    let mut res = vec![T::ZERO; n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * n + k) * inner + i;
            let pos = |k: usize| if reverse { at(n - 1 - k) } else { at(k) };
            if reverse && n <= WINDOW_ORDER_MAX && matches!(op, "cumsum" | "cumprod") {
                // XLA sums each output's window in index order (its
                // reduce_window), which for a reverse scan is not the
                // running sum from the end.
                for i in 0..n {
                    lane.clear();
                    lane.extend((i..n).map(|k| x[at(k)]));
                    match op {
                        "cumsum" => {
                            scan(&lane, &mut res[..n - i], |a, b| a + b, i128::wrapping_add)
                        }
                        _ => scan(&lane, &mut res[..n - i], |a, b| a * b, i128::wrapping_mul),
                    }
                    out[at(i)] = res[n - i - 1];
                }
                continue;
            }
            lane.clear();
            lane.extend((0..n).map(|k| x[pos(k)]));
            match op {
                "cumsum" => scan(&lane, &mut res, |a, b| a + b, i128::wrapping_add),
                "cumprod" => scan(&lane, &mut res, |a, b| a * b, i128::wrapping_mul),
                "cummax" => running_extreme(&lane, &mut res, true),
                _ => running_extreme(&lane, &mut res, false),
            }
            for (k, &r) in res.iter().enumerate() {
                out[pos(k)] = r;
            }
        }
    }
    out
}
