//! Primitives that move, select or combine elements, by family: index maps
//! (broadcasts, reshapes, transposes, slices), reductions, arrays assembled
//! from pieces (concatenation, scatters), and contractions. Each family's
//! file holds its definitions with their rules, their derivatives included.
//! Every structural primitive but the reductions by max/min/prod and the
//! argument reductions is linear in its array operand.

mod assemble;
mod conv;
mod dot;
mod dynamic;
mod gather;
mod iota;
mod pad;
mod reductions;
mod scatter;
mod views;
mod window;

pub use assemble::*;
pub use conv::*;
pub use dot::*;
pub use dynamic::*;
pub use gather::GATHER;
pub use iota::*;
pub use pad::*;
pub use reductions::*;
pub use scatter::{SCATTER, SCATTER_ADD, SCATTER_MAX, SCATTER_MIN, SCATTER_MUL};
pub use views::*;
pub use window::*;

fn params_err(name: &str) -> String {
    format!("internal error: {name} got the wrong parameters")
}

/// All structural primitives.
pub static STRUCTURAL: &[&super::PrimDef] = &[
    &BROADCAST_IN_DIM,
    &RESHAPE,
    &TRANSPOSE,
    &SQUEEZE,
    &SLICE,
    &REDUCE_SUM,
    &REDUCE_MAX,
    &REDUCE_MIN,
    &REDUCE_PROD,
    &REDUCE_AND,
    &REDUCE_OR,
    &ARGMAX,
    &ARGMIN,
    &CONCATENATE,
    &STACK,
    &SPLIT,
    &DOT_GENERAL,
    &DYNAMIC_SLICE,
    &SCATTER,
    &SCATTER_ADD,
    &SCATTER_MUL,
    &SCATTER_MIN,
    &SCATTER_MAX,
    &DYNAMIC_UPDATE_SLICE,
    &PAD,
    &REV,
    &IOTA,
    &TILE,
    &GATHER,
    &CONV_GENERAL_DILATED,
    &REDUCE_WINDOW_SUM,
    &REDUCE_WINDOW_MAX,
    &REDUCE_WINDOW_MIN,
    &SELECT_AND_GATHER_ADD,
    &SELECT_AND_SCATTER_ADD,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Aval, Dim};
    use crate::prims::{Params, View, Window};
    use jax_dtypes::DType;

    fn aval(shape: &[usize]) -> Aval {
        Aval {
            dtype: DType::F32,
            shape: shape.iter().map(|&n| Dim::Lit(n)).collect(),
            weak: false,
        }
    }

    #[test]
    fn views_say_where_each_axis_reads() {
        // A size-1 axis stretched to 4 reads one position; a new axis too.
        let p = Params::BroadcastInDim {
            shape: vec![Dim::Lit(2), Dim::Lit(4), Dim::Lit(3)],
            dims: vec![1, 2],
            np_ints: 0,
        };
        let view = BROADCAST_IN_DIM.view.unwrap()(&p, &aval(&[1, 3]), &aval(&[2, 4, 3]));
        let axes = vec![None, None, Some(1)];
        assert_eq!(view, View::Axes { axes, window: None });
        let p = Params::Transpose { perm: vec![1, 0] };
        let view = TRANSPOSE.view.unwrap()(&p, &aval(&[2, 3]), &aval(&[3, 2]));
        let axes = vec![Some(1), Some(0)];
        assert_eq!(view, View::Axes { axes, window: None });
        let p = Params::Slice {
            start: vec![1, 0],
            limit: vec![5, 3],
            strides: Some(vec![2, 1]),
        };
        let view = SLICE.view.unwrap()(&p, &aval(&[6, 3]), &aval(&[2, 3]));
        let window = Some(Window {
            start: vec![1, 0],
            step: vec![2, 1],
        });
        let axes = vec![Some(0), Some(1)];
        assert_eq!(view, View::Axes { axes, window });
        let view = RESHAPE.view.unwrap()(&Params::None, &aval(&[6]), &aval(&[2, 3]));
        assert_eq!(view, View::RowMajor);
    }
}
