//! The model and training loop of `examples/gaussian_process.rs`, shared with
//! `tests/gaussian_process.rs` (both include this file with `#[path]`) so the
//! test runs exactly the example's code against JAX's numbers.
//!
//! It is JAX's `examples/gaussian_process_regression.py` line for line: a
//! squared-exponential kernel built with nested `vmap`s, the negative log
//! marginal likelihood (plus a log-normal prior on the amplitude) through a
//! Cholesky factor and two triangular solves, its gradient, and an
//! RMSProp-with-momentum loop run eagerly on the three hyperparameters.

use jax::prelude::*;
use jax::random;

/// Training points, as JAX's example.
pub const NUMPTS: usize = 7;
/// Test points on `[0, 6]` where the fitted process is evaluated.
pub const NTEST: usize = 200;
/// Gradient steps of JAX's example.
pub const STEPS: usize = 1000;
/// Its learning rate.
pub const LEARNING_RATE: f32 = 0.01;

#[jax::jit]
pub mod gp {
    use jax::prelude::*;

    pub const NUMPTS: usize = 7;
    pub const NTEST: usize = 200;

    /// The covariance hyperparameters, before `softplus` (JAX's dict of
    /// `(1, 1)` arrays); a pytree, so the gradient is one too.
    #[derive(Clone, Debug)]
    pub struct Params {
        pub amplitude: Array<f32, 1, 1>,
        pub noise: Array<f32, 1, 1>,
        pub lengthscale: Array<f32, 1, 1>,
    }

    fn softplus(x: &Array<f32, 1, 1>) -> Array<f32, 1, 1> {
        jnp::logaddexp(x, 0.0)
    }

    /// `exp(-|x1 - x2|²)`, the kernel of one pair of points.
    fn exp_quadratic(x1: Array<f32, 1>, x2: Array<f32, 1>) -> Array<f32> {
        jnp::exp(-jnp::sum(jnp::power(x1 - x2, 2)))
    }

    /// `a[i, j] = k(xs[i], xs[j])`, by two nested `vmap`s as JAX's `cov_map`.
    fn cov_train(xs: &Array<f32, NUMPTS, 1>) -> Array<f32, NUMPTS, NUMPTS> {
        jax::vmap(|x| jax::vmap(|y| exp_quadratic(x, y))(xs))(xs)
    }

    /// `cov_map(k, xs, xs2)`: `k(xs2[i], xs[j])`, transposed.
    fn cov_cross(
        xs: &Array<f32, NUMPTS, 1>,
        xs2: &Array<f32, NTEST, 1>,
    ) -> Array<f32, NUMPTS, NTEST> {
        jax::vmap(|x| jax::vmap(|y| exp_quadratic(x, y))(xs))(xs2).t()
    }

    fn cov_test(xs: &Array<f32, NTEST, 1>) -> Array<f32, NTEST, NTEST> {
        jax::vmap(|x| jax::vmap(|y| exp_quadratic(x, y))(xs))(xs)
    }

    /// The negative log marginal likelihood of the centred targets, plus
    /// JAX's log-normal prior on the amplitude: the training loss.
    pub fn neg_marginal_likelihood(
        params: &Params,
        x: &Array<f32, NUMPTS, 1>,
        y: &Array<f32, NUMPTS, 1>,
    ) -> Array<f32> {
        let noise = softplus(&params.noise);
        let amp = softplus(&params.amplitude);
        let ls = softplus(&params.lengthscale);
        let ymean = jnp::mean(y);
        let y = y - ymean;
        let x = x / ls;
        let eye = Array::<f32, NUMPTS, NUMPTS>::eye();
        let train_cov = &amp * cov_train(&x) + eye * (noise + 1e-6);
        let chol = jax::scipy::linalg::cholesky(&train_cov, true);
        let kinvy = jax::scipy::linalg::solve_triangular(
            chol.t(),
            jax::scipy::linalg::solve_triangular(&chol, &y, true),
            false,
        );
        let log2pi = jnp::log(2.0 * 3.1415);
        let ml = jnp::sum(
            -0.5 * jnp::dot(y.t(), &kinvy)
                - jnp::sum(jnp::log(jnp::diag(&chol, 0)))
                - (NUMPTS as f32 / 2.0) * log2pi,
        );
        // The log-normal prior on the amplitude.
        let ml = ml
            - jnp::sum(
                -0.5 * jnp::log(2.0 * 3.1415)
                    - jnp::log(&amp)
                    - 0.5 * jnp::power(jnp::log(&amp), 2),
            );
        -ml
    }

    /// The posterior mean and covariance at `xtest`.
    pub fn predict(
        params: &Params,
        x: &Array<f32, NUMPTS, 1>,
        y: &Array<f32, NUMPTS, 1>,
        xtest: &Array<f32, NTEST, 1>,
    ) -> (Array<f32, NTEST, 1>, Array<f32, NTEST, NTEST>) {
        let noise = softplus(&params.noise);
        let amp = softplus(&params.amplitude);
        let ls = softplus(&params.lengthscale);
        let ymean = jnp::mean(y);
        let y = y - &ymean;
        let x = x / &ls;
        let eye = Array::<f32, NUMPTS, NUMPTS>::eye();
        let train_cov = &amp * cov_train(&x) + eye * (noise + 1e-6);
        let chol = jax::scipy::linalg::cholesky(&train_cov, true);
        let kinvy = jax::scipy::linalg::solve_triangular(
            chol.t(),
            jax::scipy::linalg::solve_triangular(&chol, &y, true),
            false,
        );
        let xtest = xtest / &ls;
        let cross_cov = &amp * cov_cross(&x, &xtest);
        let mu = jnp::dot(cross_cov.t(), &kinvy) + ymean;
        let v = jax::scipy::linalg::solve_triangular(&chol, &cross_cov, true);
        let var = &amp * cov_test(&xtest) - jnp::dot(v.t(), &v);
        (mu, var)
    }
}

pub use gp::Params;

/// JAX's data: inputs uniform on `[1, 5)` and `sin(x)` plus noise, both
/// drawn from `random.key(0)` (the same key twice, as the example does), and
/// 200 test points on `[0, 6]`.
pub fn data() -> (
    Array<f32, NUMPTS, 1>,
    Array<f32, NUMPTS, 1>,
    Array<f32, NTEST, 1>,
) {
    let key = random::key(0);
    let u: Array<f32, NUMPTS, 1> = random::uniform(key);
    let x = u * 4.0f32 + 1.0f32;
    let noise: Array<f32, NUMPTS, 1> = random::normal(key);
    let y = jnp::sin(&x) + noise * 0.1f32;
    let xtest: Array<f32, NTEST> = jnp::linspace(0.0, 6.0);
    (x, y, xtest.reshape())
}

/// The initial hyperparameters: amplitude and lengthscale 0, noise -5
/// (softplus 0.69, 0.69 and 0.0067).
pub fn initial_params() -> Params {
    Params {
        amplitude: Array::full(0.0),
        noise: Array::full(-5.0),
        lengthscale: Array::full(0.0),
    }
}

/// The optimizer's state for one hyperparameter, a scalar as in JAX's
/// `(1, 1)` arrays: the running mean of the gradient and of its square.
#[derive(Clone, Copy, Debug)]
pub struct Moments {
    pub momentum: f32,
    pub scale: f32,
}

impl Default for Moments {
    fn default() -> Self {
        Moments {
            momentum: 0.0,
            scale: 1.0,
        }
    }
}

/// One of JAX's updates, in its order of float32 operations (JAX runs them
/// eagerly, one rounding each), so equal gradients give equal parameters.
pub fn update(param: f32, grad: f32, m: &mut Moments) -> f32 {
    m.momentum = 0.9 * m.momentum + 0.1 * grad;
    m.scale = 0.9 * m.scale + 0.1 * (grad * grad);
    param - LEARNING_RATE * m.momentum / (m.scale + 1e-5).sqrt()
}

/// What `train` reports after each step.
pub struct Step {
    /// 0-based step number.
    pub step: usize,
    /// The gradient used by this step (amplitude, noise, lengthscale).
    pub grads: [f32; 3],
    /// The parameters after it.
    pub params: [f32; 3],
}

/// JAX's training loop: `steps` gradient steps from `initial_params`,
/// calling `each` after every step; returns the final parameters.
pub fn train(
    x: &Array<f32, NUMPTS, 1>,
    y: &Array<f32, NUMPTS, 1>,
    steps: usize,
    mut each: impl FnMut(&Step, &Params),
) -> Params {
    let mut p = initial_params();
    let mut moments = [Moments::default(); 3];
    for step in 0..steps {
        let g = gp::neg_marginal_likelihood::grad(&p, x, y);
        let grads = [g.amplitude.item(), g.noise.item(), g.lengthscale.item()];
        let old = [p.amplitude.item(), p.noise.item(), p.lengthscale.item()];
        let new: Vec<f32> = (0..3)
            .map(|k| update(old[k], grads[k], &mut moments[k]))
            .collect();
        p = Params {
            amplitude: Array::full(new[0]),
            noise: Array::full(new[1]),
            lengthscale: Array::full(new[2]),
        };
        each(
            &Step {
                step,
                grads,
                params: [new[0], new[1], new[2]],
            },
            &p,
        );
    }
    p
}

/// The mean and the standard deviation (square root of the predictive
/// variance's diagonal) at the test points.
pub fn predictions(
    p: &Params,
    x: &Array<f32, NUMPTS, 1>,
    y: &Array<f32, NUMPTS, 1>,
    xtest: &Array<f32, NTEST, 1>,
) -> (Vec<f32>, Vec<f32>) {
    let (mu, var) = gp::predict(p, x, y, xtest);
    let var = var.to_vec();
    let std = (0..NTEST).map(|i| var[i * NTEST + i].sqrt()).collect();
    (mu.to_vec(), std)
}
