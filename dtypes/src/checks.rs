//! Argument checks that an eager call and a traced one both make, each
//! with JAX's (or NumPy's) message, written once: the runtime panics with
//! the message, the compiler reports it at the user's expression.

/// `axis` of an array of `rank` axes, counted from the end when negative;
/// NumPy's `AxisError` message when it is out of bounds.
///
/// ```
/// use jax_dtypes::checks::normalize_axis;
/// assert_eq!(normalize_axis(-1, 3), Ok(2));
/// assert_eq!(
///     normalize_axis(3, 3).unwrap_err(),
///     "axis 3 is out of bounds for array of dimension 3"
/// );
/// ```
pub fn normalize_axis(axis: i128, rank: usize) -> Result<usize, String> {
    let r = rank as i128;
    if axis < -r || axis >= r {
        return Err(format!(
            "axis {axis} is out of bounds for array of dimension {rank}"
        ));
    }
    Ok(axis.rem_euclid(r.max(1)) as usize)
}

/// NumPy's error for `max`/`min` (`op`) over an empty axis: the reduction
/// has no identity.
///
/// ```
/// assert_eq!(
///     jax_dtypes::checks::no_identity("max"),
///     "zero-size array to reduction operation max which has no identity"
/// );
/// ```
pub fn no_identity(op: &str) -> String {
    format!("zero-size array to reduction operation {op} which has no identity")
}

/// `jnp.concatenate` of no arrays.
pub const NOTHING_TO_CONCATENATE: &str = "need at least one array to concatenate";

/// `random.choice`'s checks of `draws` samples from a population of `n`:
/// JAX's messages.
///
/// ```
/// use jax_dtypes::checks::choice_population;
/// assert!(choice_population(3, 3, false).is_ok());
/// assert!(choice_population(3, 4, false).unwrap_err().contains("Cannot take a larger sample"));
/// assert!(choice_population(0, 1, true).is_err());
/// ```
pub fn choice_population(n: usize, draws: usize, replace: bool) -> Result<(), String> {
    if draws > 0 && n == 0 {
        return Err("choice: a must be greater than 0 unless no samples are taken".into());
    }
    if !replace && draws > n {
        return Err(format!(
            "choice: Cannot take a larger sample (size {draws}) than population (size {n}) when 'replace=False'"
        ));
    }
    Ok(())
}
