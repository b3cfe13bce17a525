//! One API: every public function of `jax::nn`, the `jnp` math functions
//! added with it, and `jax::scipy` is accepted inside `#[jax::jit]`, spelled
//! as users write it, and gives what the eager call gives on the same inputs.

use jax::nn;
use jax::prelude::*;
use jax::scipy::special;
use jax::scipy::stats::norm;

/// Inputs with the special points: zeros of both signs, infinities, NaN,
/// large magnitudes.
fn xs() -> Array<f32, 2, 6> {
    Array::from([
        [-3.5, -1.0, -0.0, 0.0, 0.5, 2.0],
        [
            f32::NEG_INFINITY,
            f32::INFINITY,
            f32::NAN,
            -100.0,
            100.0,
            6.0,
        ],
    ])
}

fn probs() -> Array<f32, 2, 6> {
    Array::from([
        [0.0, 1e-6, 0.1, 0.5, 0.9, 1.0],
        [0.25, 0.75, f32::NAN, 0.999, 0.3, 0.01],
    ])
}

/// Equal, NaN where NaN, within 2 ulps elsewhere.
#[track_caller]
fn close<A: ArrayType<Elem = f32>>(jit: &A, eager: &A) {
    for (i, (&a, &b)) in jit.data().iter().zip(eager.data()).enumerate() {
        let ok = (a.is_nan() && b.is_nan())
            || a == b
            || (a - b).abs() <= 2.0 * f32::EPSILON * a.abs().max(b.abs());
        assert!(ok, "element {i}: jit {a} vs eager {b}");
    }
}

#[jax::jit]
fn j_relu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::relu(x)
}
#[jax::jit]
fn j_relu6(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jax::nn::relu6(x)
}
#[jax::jit]
fn j_sigmoid(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::sigmoid(x)
}
#[jax::jit]
fn j_log_sigmoid(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::log_sigmoid(x)
}
#[jax::jit]
fn j_softplus(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::softplus(x)
}
#[jax::jit]
fn j_silu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::silu(x)
}
#[jax::jit]
fn j_swish(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::swish(x)
}
#[jax::jit]
fn j_gelu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::gelu(x, true)
}
#[jax::jit]
fn j_gelu_exact(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::gelu(x, false)
}
#[jax::jit]
fn j_elu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::elu(x, 0.5)
}
#[jax::jit]
fn j_leaky_relu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::leaky_relu(x, 0.01)
}
#[jax::jit]
fn j_celu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::celu(x, 2.0)
}
#[jax::jit]
fn j_selu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::selu(x)
}
#[jax::jit]
fn j_hard_tanh(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::hard_tanh(x)
}
#[jax::jit]
fn j_glu(x: &Array<f32, 2, 6>) -> Array<f32, 2, 3> {
    nn::glu(x, -1)
}
#[jax::jit]
fn j_glu0(x: &Array<f32, 2, 6>) -> Array<f32, 1, 6> {
    nn::glu(x, 0)
}
#[jax::jit]
fn j_softmax(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::softmax(x, -1)
}
#[jax::jit]
fn j_log_softmax(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::log_softmax(x, 0)
}
#[jax::jit]
fn j_logsumexp(x: &Array<f32, 2, 6>) -> Array<f32, 2> {
    nn::logsumexp(x, 1, false)
}
#[jax::jit]
fn j_one_hot(l: &Array<i32, 4>) -> Array<f32, 4, 3> {
    nn::one_hot(l, 3)
}
#[jax::jit]
fn j_one_hot_i32(l: &Array<i32, 4>) -> Array<i32, 4, 3> {
    nn::one_hot(l, 3)
}
#[jax::jit]
fn j_standardize(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    nn::standardize(x, -1, 1e-5)
}

fn finite() -> Array<f32, 2, 6> {
    Array::from([
        [-3.5, -1.0, -0.0, 0.0, 0.5, 2.0],
        [1.5, 4.0, -2.0, -10.0, 10.0, 6.0],
    ])
}

#[test]
fn nn_jit_equals_eager() {
    let x = xs();
    close(&j_relu(&x), &nn::relu(&x));
    close(&j_relu6(&x), &nn::relu6(&x));
    close(&j_sigmoid(&x), &nn::sigmoid(&x));
    close(&j_log_sigmoid(&x), &nn::log_sigmoid(&x));
    close(&j_softplus(&x), &nn::softplus(&x));
    close(&j_silu(&x), &nn::silu(&x));
    close(&j_swish(&x), &nn::swish(&x));
    close(&j_gelu(&x), &nn::gelu(&x, true));
    close(&j_gelu_exact(&x), &nn::gelu(&x, false));
    close(&j_elu(&x), &nn::elu(&x, 0.5));
    close(&j_leaky_relu(&x), &nn::leaky_relu(&x, 0.01));
    close(&j_celu(&x), &nn::celu(&x, 2.0));
    close(&j_selu(&x), &nn::selu(&x));
    close(&j_hard_tanh(&x), &nn::hard_tanh(&x));
    let g: Array<f32, 2, 3> = nn::glu(&x, -1);
    close(&j_glu(&x), &g);
    let g0: Array<f32, 1, 6> = nn::glu(&x, 0);
    close(&j_glu0(&x), &g0);
    let f = finite();
    close(&j_softmax(&f), &nn::softmax(&f, -1));
    close(&j_log_softmax(&f), &nn::log_softmax(&f, 0));
    let l: Array<f32, 2> = nn::logsumexp(&f, 1, false);
    close(&j_logsumexp(&f), &l);
    let labels = Array::<i32, 4>::from([0, 2, -1, 3]);
    let oh: Array<f32, 4, 3> = nn::one_hot(&labels, 3);
    assert_eq!(j_one_hot(&labels).to_vec(), oh.to_vec());
    let oh: Array<i32, 4, 3> = nn::one_hot(&labels, 3);
    assert_eq!(j_one_hot_i32(&labels).to_vec(), oh.to_vec());
    close(&j_standardize(&f), &nn::standardize(&f, -1, 1e-5));
}

#[jax::jit]
fn j_logaddexp(x: &Array<f32, 2, 6>, y: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::logaddexp(x, y)
}
#[jax::jit]
fn j_logaddexp2(x: &Array<f32, 2, 6>, y: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::logaddexp2(x, y)
}
#[jax::jit]
fn j_remainder(x: &Array<f32, 2, 6>, y: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::remainder(x, y)
}
#[jax::jit]
fn j_floor_divide(x: &Array<f32, 2, 6>, y: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::floor_divide(x, y)
}
#[jax::jit]
fn j_remainder_i(x: &Array<i32, 6>, y: &Array<i32, 6>) -> Array<i32, 6> {
    jnp::remainder(x, y)
}
#[jax::jit]
fn j_floor_divide_i(x: &Array<i32, 6>, y: &Array<i32, 6>) -> Array<i32, 6> {
    jnp::floor_divide(x, y)
}
#[jax::jit]
fn j_isinf(x: &Array<f32, 2, 6>) -> Array<bool, 2, 6> {
    jnp::isinf(x)
}
#[jax::jit]
fn j_isfinite(x: &Array<f32, 2, 6>) -> Array<bool, 2, 6> {
    jnp::isfinite(x)
}
#[jax::jit]
fn j_isinf_i(x: &Array<i32, 6>) -> Array<bool, 6> {
    jnp::isinf(x)
}
#[jax::jit]
fn j_isfinite_i(x: &Array<i32, 6>) -> Array<bool, 6> {
    jnp::isfinite(x)
}
#[jax::jit]
fn j_log2(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::log2(x)
}
#[jax::jit]
fn j_log10(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::log10(x)
}
#[jax::jit]
fn j_trunc(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::trunc(x)
}
#[jax::jit]
fn j_square(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jnp::square(x)
}
#[jax::jit]
fn j_var(x: &Array<f32, 2, 6>) -> Array<f32> {
    jnp::var(x)
}
#[jax::jit]
fn j_std(x: &Array<f32, 2, 6>) -> Array<f32> {
    jnp::std(x)
}
#[jax::jit]
fn j_var_axis(x: &Array<f32, 2, 6>) -> Array<f32, 2> {
    jnp::var_axis(x, 1, false)
}
#[jax::jit]
fn j_std_axis(x: &Array<f32, 2, 6>) -> Array<f32, 1, 6> {
    jnp::std_axis(x, 0, true)
}
#[jax::jit]
fn j_var_i(x: &Array<i32, 6>) -> Array<f32> {
    jnp::var(x)
}
#[jax::jit]
fn j_logsumexp_axis(x: &Array<f32, 2, 6>) -> Array<f32, 6> {
    jnp::logsumexp_axis(x, 0, false)
}

#[test]
fn jnp_math_jit_equals_eager() {
    let x = xs();
    let y = Array::<f32, 2, 6>::from([
        [2.0, -1.5, 3.0, -0.0, f32::NEG_INFINITY, 0.0],
        [1.0, f32::INFINITY, 1.0, -3.0, 7.0, -0.5],
    ]);
    close(&j_logaddexp(&x, &y), &jnp::logaddexp(&x, &y));
    close(&j_logaddexp2(&x, &y), &jnp::logaddexp2(&x, &y));
    close(&j_remainder(&x, &y), &jnp::remainder(&x, &y));
    close(&j_floor_divide(&x, &y), &jnp::floor_divide(&x, &y));
    let (a, b) = (
        Array::<i32, 6>::from([7, -7, 7, -7, 5, 0]),
        Array::<i32, 6>::from([2, 2, -2, -2, 0, 3]),
    );
    assert_eq!(
        j_remainder_i(&a, &b).to_vec(),
        jnp::remainder::<_, _, Array<i32, 6>>(&a, &b).to_vec()
    );
    assert_eq!(
        j_floor_divide_i(&a, &b).to_vec(),
        jnp::floor_divide::<_, _, Array<i32, 6>>(&a, &b).to_vec()
    );
    assert_eq!(j_isinf(&x).to_vec(), jnp::isinf(&x).to_vec());
    assert_eq!(j_isfinite(&x).to_vec(), jnp::isfinite(&x).to_vec());
    assert_eq!(j_isinf_i(&a).to_vec(), jnp::isinf(&a).to_vec());
    assert_eq!(j_isfinite_i(&a).to_vec(), jnp::isfinite(&a).to_vec());
    let p = finite();
    close(&j_log2(&x), &jnp::log2(&x));
    close(&j_log10(&x), &jnp::log10(&x));
    close(&j_trunc(&x), &jnp::trunc(&x));
    close(&j_square(&x), &jnp::square(&x));
    close(&j_var(&p), &jnp::var(&p));
    close(&j_std(&p), &jnp::std(&p));
    let v: Array<f32, 2> = jnp::var_axis(&p, 1, false);
    close(&j_var_axis(&p), &v);
    let s: Array<f32, 1, 6> = jnp::std_axis(&p, 0, true);
    close(&j_std_axis(&p), &s);
    close(&j_var_i(&a), &jnp::var(&a));
    let l: Array<f32, 6> = jnp::logsumexp_axis(&p, 0, false);
    close(&j_logsumexp_axis(&p), &l);
}

#[jax::jit]
fn j_special_logsumexp(x: &Array<f32, 2, 6>) -> Array<f32, 6> {
    special::logsumexp(x, 0, false)
}
#[jax::jit]
fn j_erf(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::erf(x)
}
#[jax::jit]
fn j_erfc(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jax::scipy::special::erfc(x)
}
#[jax::jit]
fn j_erfinv(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::erfinv(x)
}
#[jax::jit]
fn j_expit(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::expit(x)
}
#[jax::jit]
fn j_logit(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::logit(x)
}
#[jax::jit]
fn j_xlogy(x: &Array<f32, 2, 6>, y: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::xlogy(x, y)
}
#[jax::jit]
fn j_xlog1py(x: &Array<f32, 2, 6>, y: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::xlog1py(x, y)
}

#[test]
fn special_jit_equals_eager() {
    let x = xs();
    let p = probs();
    let f = finite();
    let l: Array<f32, 6> = special::logsumexp(&f, 0, false);
    close(&j_special_logsumexp(&f), &l);
    close(&j_erf(&x), &special::erf(&x));
    close(&j_erfc(&x), &special::erfc(&x));
    close(&j_erfinv(&p), &special::erfinv(&p));
    close(&j_expit(&x), &special::expit(&x));
    close(&j_logit(&p), &special::logit(&p));
    let z = Array::<f32, 2, 6>::from([
        [0.0, 0.0, 1.0, -2.0, 0.5, 0.0],
        [0.0, 3.0, 0.0, 1.0, 2.0, 0.0],
    ]);
    close(&j_xlogy(&z, &p), &special::xlogy(&z, &p));
    close(&j_xlog1py(&z, &x), &special::xlog1py(&z, &x));
}

#[jax::jit]
fn j_pdf(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::pdf(x)
}
#[jax::jit]
fn j_logpdf(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::logpdf(x)
}
#[jax::jit]
fn j_cdf(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    jax::scipy::stats::norm::cdf(x)
}
#[jax::jit]
fn j_pdf_with(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::pdf_with(x, 1.0, 2.0)
}
#[jax::jit]
fn j_logpdf_with(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::logpdf_with(x, -1.0, 0.5)
}
#[jax::jit]
fn j_cdf_with(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::cdf_with(x, 1.0, 3.0)
}

#[jax::jit]
fn j_logcdf(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::logcdf(x)
}
#[jax::jit]
fn j_logcdf_with(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::logcdf_with(x, 1.0, 3.0)
}
#[jax::jit]
fn j_ppf(q: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::ppf(q)
}
#[jax::jit]
fn j_ppf_with(q: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    norm::ppf_with(q, 1.0, 2.0)
}
#[jax::jit]
fn j_gammaln(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::gammaln(x)
}
#[jax::jit]
fn j_digamma(x: &Array<f32, 2, 6>) -> Array<f32, 2, 6> {
    special::digamma(x)
}

#[test]
fn gamma_jit_equals_eager() {
    let x = xs();
    close(&j_gammaln(&x), &special::gammaln(&x));
    close(&j_digamma(&x), &special::digamma(&x));
}

#[test]
fn norm_jit_equals_eager() {
    let (x, p) = (xs(), probs());
    close(&j_logcdf(&x), &norm::logcdf(&x));
    close(&j_logcdf_with(&x), &norm::logcdf_with(&x, 1.0, 3.0));
    close(&j_ppf(&p), &norm::ppf(&p));
    close(&j_ppf_with(&p), &norm::ppf_with(&p, 1.0, 2.0));
    let x = xs();
    close(&j_pdf(&x), &norm::pdf(&x));
    close(&j_logpdf(&x), &norm::logpdf(&x));
    close(&j_cdf(&x), &norm::cdf(&x));
    close(&j_pdf_with(&x), &norm::pdf_with(&x, 1.0, 2.0));
    close(&j_logpdf_with(&x), &norm::logpdf_with(&x, -1.0, 0.5));
    close(&j_cdf_with(&x), &norm::cdf_with(&x, 1.0, 3.0));
}

#[jax::jit]
fn j_nansum(x: &Array<f32, 2, 6>) -> Array<f32> {
    jnp::nansum(x)
}
#[jax::jit]
fn j_nanmax(x: &Array<f32, 2, 6>) -> Array<f32> {
    jnp::nanmax(x)
}
#[jax::jit]
fn j_nanmin(x: &Array<f32, 2, 6>) -> Array<f32> {
    jnp::nanmin(x)
}
#[jax::jit]
fn j_nansum_axis(x: &Array<f32, 2, 6>) -> Array<f32, 6> {
    jnp::nansum_axis(x, 0, false)
}
#[jax::jit]
fn j_nanmax_axis(x: &Array<f32, 2, 6>) -> Array<f32, 2, 1> {
    jnp::nanmax_axis(x, 1, true)
}
#[jax::jit]
fn j_nanmin_axis(x: &Array<f32, 2, 6>) -> Array<f32, 6> {
    jnp::nanmin_axis(x, 0, false)
}
#[jax::jit]
fn j_nanargmax(x: &Array<f32, 2, 6>) -> Array<DefaultInt> {
    jnp::nanargmax(x)
}
#[jax::jit]
fn j_nanargmin(x: &Array<f32, 2, 6>) -> Array<DefaultInt> {
    jnp::nanargmin(x)
}
#[jax::jit]
fn j_nanargmax_axis(x: &Array<f32, 2, 6>) -> Array<DefaultInt, 6> {
    jnp::nanargmax_axis(x, 0, false)
}
#[jax::jit]
fn j_nanargmin_axis(x: &Array<f32, 2, 6>) -> Array<DefaultInt, 2, 1> {
    jnp::nanargmin_axis(x, 1, true)
}
#[jax::jit]
fn j_argmax_axis(x: &Array<f32, 2, 6>) -> Array<DefaultInt, 2> {
    jnp::argmax_axis(x, 1, false)
}
#[jax::jit]
fn j_argmin_axis(x: &Array<f32, 2, 6>) -> Array<DefaultInt, 1, 6> {
    jnp::argmin_axis(x, 0, true)
}
#[jax::jit]
fn j_reduce_sum(x: &Array<f32, 2, 6>) -> Array<f32, 6> {
    lax::reduce_sum(x, &[0])
}
#[jax::jit]
fn j_reduce_prod(x: &Array<f32, 2, 6>) -> Array<f32, 2> {
    lax::reduce_prod(x, &[1])
}
#[jax::jit]
fn j_reduce_max(x: &Array<f32, 2, 6>) -> Array<f32> {
    lax::reduce_max(x, &[0, 1])
}
#[jax::jit]
fn j_reduce_min(x: &Array<i32, 6>) -> Array<i32> {
    lax::reduce_min(x, &[0])
}

#[test]
fn nan_and_arg_reductions_jit_equal_eager() {
    // One lane all NaN (column 2), NaNs elsewhere, ties.
    let x = Array::<f32, 2, 6>::from([
        [1.0, f32::NAN, f32::NAN, 3.0, -2.0, 3.0],
        [f32::NAN, 5.0, f32::NAN, -1.0, 0.5, 3.0],
    ]);
    close(&j_nansum(&x), &jnp::nansum(&x));
    close(&j_nanmax(&x), &jnp::nanmax(&x));
    close(&j_nanmin(&x), &jnp::nanmin(&x));
    let e: Array<f32, 6> = jnp::nansum_axis(&x, 0, false);
    close(&j_nansum_axis(&x), &e);
    let e: Array<f32, 2, 1> = jnp::nanmax_axis(&x, 1, true);
    close(&j_nanmax_axis(&x), &e);
    let e: Array<f32, 6> = jnp::nanmin_axis(&x, 0, false);
    close(&j_nanmin_axis(&x), &e);
    assert_eq!(j_nanargmax(&x).item(), jnp::nanargmax(&x).item());
    assert_eq!(j_nanargmin(&x).item(), jnp::nanargmin(&x).item());
    let e: Array<DefaultInt, 6> = jnp::nanargmax_axis(&x, 0, false);
    assert_eq!(j_nanargmax_axis(&x).to_vec(), e.to_vec());
    let e: Array<DefaultInt, 2, 1> = jnp::nanargmin_axis(&x, 1, true);
    assert_eq!(j_nanargmin_axis(&x).to_vec(), e.to_vec());
    let f = finite();
    let e: Array<DefaultInt, 2> = jnp::argmax_axis(&f, 1, false);
    assert_eq!(j_argmax_axis(&f).to_vec(), e.to_vec());
    let e: Array<DefaultInt, 1, 6> = jnp::argmin_axis(&f, 0, true);
    assert_eq!(j_argmin_axis(&f).to_vec(), e.to_vec());
    let e: Array<f32, 6> = lax::reduce_sum(&f, &[0]);
    close(&j_reduce_sum(&f), &e);
    let e: Array<f32, 2> = lax::reduce_prod(&f, &[1]);
    close(&j_reduce_prod(&f), &e);
    let e: Array<f32> = lax::reduce_max(&f, &[0, 1]);
    close(&j_reduce_max(&f), &e);
    let a = Array::<i32, 6>::from([7, -7, 7, -9, 5, 0]);
    let e: Array<i32> = lax::reduce_min(&a, &[0]);
    assert_eq!(j_reduce_min(&a).item(), e.item());
}

#[jax::jit]
fn j_convert(x: &Array<f32, 2, 6>) -> Array<i32, 2, 6> {
    lax::convert_element_type::<i32>(x)
}

#[test]
fn convert_element_type_jit_equals_eager() {
    let f = finite();
    let e: Array<i32, 2, 6> = lax::convert_element_type::<i32, _>(&f);
    assert_eq!(j_convert(&f).to_vec(), e.to_vec());
}
