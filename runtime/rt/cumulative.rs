//! Cumulative reductions of generated code (`cumsum`, `cumprod`, `cummax`,
//! `cummin` primitives) on row-major data: the lane functions eager
//! `jnp::cumsum` etc. use, in either direction.

use crate::element::Element;
use crate::jnp::cumulative_lanes;

macro_rules! cumulative {
    ($($name:ident),*) => {$(
        #[doc = concat!("`lax.", stringify!($name), "` of `x` (of `shape`) along `axis`, from the end when `reverse`.")]
        pub fn $name<T: Element + PartialOrd>(x: &[T], shape: &[usize], axis: usize, reverse: bool) -> Vec<T> {
            cumulative_lanes(stringify!($name), x, shape, axis, reverse)
        }
    )*};
}
cumulative!(cumsum, cumprod, cummax, cummin);
