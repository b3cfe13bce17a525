//! Operators on arrays: `+ - * / %`, unary `-`, `& | ^ !`, with JAX's promotion.
