//! `Debug` prints JAX's repr (`Array([0., 1.], dtype=float32)`), `Display`
//! its str (`[0. 1.]`), with NumPy's layout and float formatting.
