//! Indexing: the `s![..]` slice macro, gathers `x.at(idx).get()` and
//! functional updates `x.at(idx).set(v)` with JAX's out-of-bounds rules.
