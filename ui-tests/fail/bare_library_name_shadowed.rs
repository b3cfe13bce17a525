// A bare `solve_triangular` is traced as `jax::scipy::linalg::solve_triangular`:
// here the name in scope is another function, which rustc reports.
use jax::prelude::*;

#[jax::jit]
fn f(a: &Array<f32, 2, 2>, b: &Array<f32, 2>) -> Array<f32, 2> {
    solve_triangular(a, b, true)
}

#[allow(dead_code)]
fn solve_triangular(_a: &Array<f32, 2, 2>, b: &Array<f32, 2>, _lower: bool) -> Array<f32, 2> {
    b.clone()
}

fn main() {}
