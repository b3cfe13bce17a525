//! Handlers of `lax::` names with the eager signatures: `dot_general`,
//! convolutions, dynamic slices and updates, reduction windows (and flax's
//! pooling layers), collectives by axis name.

pub(crate) mod collectives;
pub(crate) mod conv;
pub(crate) mod dot;
pub(crate) mod dynamic;
pub(crate) mod window;
