//! Jaxpr text read back (`#[jax::jit(import = ..)]`'s parser) and printed
//! again, family by family, for the primitives whose parameters print:
//! each program this crate traces reads back to the same text (every
//! primitive's `parse_params` is its `print_params`' inverse), and so does
//! JAX's own text of these primitives (tests/fixtures/*.json), but for the
//! cases listed with the reason they cannot.

use serde_json::Value;

/// The text of a traced Rust function.
fn text(src: &str) -> String {
    let f: syn::ItemFn = syn::parse_str(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    jax_compiler::jaxpr_text(&f).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// Why `text` does not read back to itself, if it does not.
fn reprint_error(text: &str) -> Option<String> {
    match jax_compiler::reprint_jaxpr(text) {
        Ok(t) if t == text => None,
        Ok(t) => Some(format!(
            "printed back differently:\n{t}\n--- from ---\n{text}"
        )),
        Err(e) => Some(e),
    }
}

/// Whether `e` contains one of the reasons `why` lists (` | ` between
/// them).
fn any_of(e: &str, why: &str) -> bool {
    why.split(" | ").any(|w| e.contains(w))
}

/// Each source's text reads back to itself, and contains `prims` between
/// them (so that the family is exercised).
fn assert_reprints(family: &str, prims: &[&str], sources: &[&str]) {
    let mut bad = Vec::new();
    let mut all = String::new();
    for src in sources {
        let t = text(src);
        if let Some(e) = reprint_error(&t) {
            bad.push(format!("{src}\n  {e}"));
        }
        all.push_str(&t);
    }
    assert!(bad.is_empty(), "{family}:\n{}", bad.join("\n"));
    for p in prims {
        assert!(
            all.contains(&format!(" {p}[")) || all.contains(&format!(" {p} ")),
            "{family}: no source exercises `{p}`"
        );
    }
}

/// Each source's text fails to read back with an error containing its
/// reason: a primitive whose printed form cannot carry its parameters.
fn assert_refused(cases: &[(&str, &str)]) {
    for (src, why) in cases {
        let t = text(src);
        match jax_compiler::reprint_jaxpr(&t) {
            Err(e) => assert!(e.contains(why), "{src}: {e}\nexpected: {why}"),
            Ok(_) => panic!("{src} read back; expected the error: {why}"),
        }
    }
}

#[test]
fn pad_rev_tile() {
    assert_reprints(
        "pad, rev, tile",
        &["pad", "rev", "tile"],
        &[
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 5, 4> { jnp::pad(&x, &[(1, 2), (0, 1)]) }",
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 4, 5> { lax::pad(&x, -1.5, &[(1, 0, 1), (-1, 1, 1)]) }",
            "fn f(x: Array<f32, 2, 3>, v: Array<f32>) -> Array<f32, 6, 4> { lax::pad(&x, v, &[(1, 2, 1), (0, 1, 0)]) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 5> { jax::vmap(|r| jnp::pad(&r, &[(1, 1)]))(x) }",
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jax::grad(|x| jnp::sum(lax::pad(&x, 0.0, &[(1, -1, 1), (0, 2, 0)]) * 2.0))(x) }",
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jnp::flip(&x, 1) }",
            "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 2, 3, 4> { lax::rev(&x, &[0, 2]) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 4, 3> { jax::vmap(|r| lax::rev(&r, &[0]), 1)(x) }",
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jnp::roll(&x, 1, 1) }",
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 4, 3> { jnp::tile(&x, &[2, 1]) }",
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 4, 3> { jnp::tile(&x, &[2, 2, 1]) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 6> { jax::vmap(|r| jnp::tile(&r, &[2]))(x) }",
            "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jax::grad(|x| jnp::sum(jnp::tile(&x, &[2, 1]) * jnp::tile(&x, &[2, 1])))(x) }",
        ],
    );
}

#[test]
fn convolutions_and_windows() {
    assert_reprints(
        "conv_general_dilated, reduce_window_*, select_and_*",
        &[
            "conv_general_dilated",
            "reduce_window_sum",
            "reduce_window_max",
            "reduce_window_min",
            "select_and_gather_add",
            "select_and_scatter_add",
        ],
        &[
            "fn f(x: Array<f32, 2, 3, 5, 6>, w: Array<f32, 4, 3, 3, 2>) -> Array<f32, 2, 4, 3, 5> { lax::conv(&x, &w, &[1, 1], \"VALID\") }",
            "fn f(x: Array<f32, 2, 6, 5, 3>, w: Array<f32, 3, 3, 3, 4>) -> Array<f32, 2, 6, 5, 4> {
                lax::conv_general_dilated(&x, &w, &[1, 1], lax::Padding::Same, None, None, Some((\"NHWC\", \"HWIO\", \"NHWC\")), 1)
            }",
            "fn f(x: Array<f32, 1, 2, 7, 6>, w: Array<f32, 3, 2, 3, 3>) -> Array<f32, 1, 3, 4, 3> {
                lax::conv_general_dilated(&x, &w, &[2, 2], &[(1, 2), (0, 1)], None, None, None, 1)
            }",
            "fn f(x: Array<f32, 1, 2, 8, 7>, w: Array<f32, 2, 2, 2, 3>) -> Array<f32, 1, 2, 6, 3> {
                lax::conv_general_dilated(&x, &w, &[1, 2], \"VALID\", None, Some(&[2, 1]), None, 1)
            }",
            "fn f(x: Array<f32, 1, 1, 3, 4>, w: Array<f32, 2, 1, 2, 2>) -> Array<f32, 1, 2, 6, 8> {
                lax::conv_general_dilated(&x, &w, &[1, 1], lax::Padding::Explicit(vec![(1, 1), (1, 1)]), Some(&[2, 2]), None, None, 1)
            }",
            "fn f(x: Array<f32, 1, 4, 5, 5>, w: Array<f32, 6, 2, 3, 3>) -> Array<f32, 1, 6, 3, 3> {
                lax::conv_general_dilated(&x, &w, &[1, 1], \"VALID\", None, None, None, 2)
            }",
            "fn f(x: Array<f32, 2, 3, 5, 6>, w: Array<f32, 4, 3, 3, 2>) -> (Array<f32, 2, 3, 5, 6>, Array<f32, 4, 3, 3, 2>) {
                jax::grad(|x, w| { let y: Array<f32, 2, 4, 3, 5> = lax::conv(&x, &w, &[1, 1], \"VALID\"); jnp::sum(y * y) }, argnums = (0, 1))(x, w)
            }",
            "fn f(x: Array<f32, 1, 2, 7, 6>, w: Array<f32, 3, 2, 3, 3>) -> (Array<f32, 1, 2, 7, 6>, Array<f32, 3, 2, 3, 3>) {
                jax::grad(|x, w| { let y: Array<f32, 1, 3, 4, 3> = lax::conv_general_dilated(&x, &w, &[2, 2], &[(1, 2), (0, 1)], None, None, None, 1); jnp::sum(y * y) }, argnums = (0, 1))(x, w)
            }",
            "fn f(x: Array<f32, 3, 2, 3, 5, 6>, w: Array<f32, 4, 3, 3, 2>) -> Array<f32, 3, 2, 4, 3, 5> {
                jax::vmap(|x| lax::conv(&x, &w, &[1, 1], \"VALID\"))(x)
            }",
            "fn f(x: Array<f32, 2, 4, 6, 3>) -> Array<f32, 2, 2, 3, 3> {
                lax::reduce_window(&x, f32::NEG_INFINITY, lax::max, &[1, 2, 2, 1], Some(&[1, 2, 2, 1]), \"VALID\")
            }",
            "fn f(x: Array<f32, 5, 6>) -> Array<f32, 4, 5> {
                lax::reduce_window(&x, f32::INFINITY, lax::min, &[2, 2], Some(&[1, 1]), \"VALID\")
            }",
            "fn f(x: Array<f32, 2, 5, 5, 2>) -> Array<f32, 2, 5, 5, 2> {
                lax::reduce_window(&x, 0.0, lax::add, &[1, 3, 3, 1], None, &[(0, 0), (1, 1), (1, 1), (0, 0)])
            }",
            "fn f(x: Array<f32, 7, 5>) -> Array<f32, 3, 3> {
                lax::reduce_window_dilated(&x, f32::NEG_INFINITY, lax::max, &[3, 3], Some(&[1, 1]), \"VALID\", None, Some(&[2, 1]))
            }",
            "fn f(x: Array<f32, 7, 5>) -> Array<f32, 3, 4> {
                lax::reduce_window_dilated(&x, 0.0, lax::add, &[2, 2], Some(&[2, 2]), \"VALID\", Some(&[1, 2]), None)
            }",
            "fn f(x: Array<f32, 2, 4, 6, 3>) -> Array<f32, 2, 4, 6, 3> {
                jax::grad(|x| {
                    let y: Array<f32, 2, 2, 3, 3> = lax::reduce_window(&x, f32::NEG_INFINITY, lax::max, &[1, 2, 2, 1], Some(&[1, 2, 2, 1]), \"VALID\");
                    y.sum()
                })(x)
            }",
            "fn f(x: Array<f32, 5, 6>) -> Array<f32, 5, 6> {
                jax::grad(|x| {
                    let y: Array<f32, 4, 5> = lax::reduce_window(&x, f32::INFINITY, lax::min, &[2, 2], Some(&[1, 1]), \"VALID\");
                    jnp::sum(y * y)
                })(x)
            }",
            "fn f(x: Array<f32, 2, 5, 5, 2>) -> Array<f32, 2, 5, 5, 2> {
                jax::grad(|x| {
                    let y: Array<f32, 2, 5, 5, 2> = lax::reduce_window(&x, 0.0, lax::add, &[1, 3, 3, 1], None, &[(0, 0), (1, 1), (1, 1), (0, 0)]);
                    y.sum()
                })(x)
            }",
            "fn f(x: Array<f32, 2, 6, 6, 3>, t: Array<f32, 2, 6, 6, 3>) -> Array<f32, 2, 3, 3, 3> {
                let (_y, dy) = jax::jvp(|x| nn::max_pool(&x, &[2, 2], Some(&[2, 2]), \"VALID\"), (x,), (t,));
                dy
            }",
            "fn f(x: Array<f32, 5, 6>, t: Array<f32, 5, 6>) -> Array<f32, 4, 5> {
                let (_y, dy) = jax::jvp(|x| lax::reduce_window(&x, f32::INFINITY, lax::min, &[2, 2], Some(&[1, 1]), \"VALID\"), (x,), (t,));
                dy
            }",
            "fn f(x: Array<f32, 3, 2, 4, 4, 1>) -> Array<f32, 3, 2, 2, 2, 1> {
                jax::vmap(|x| lax::reduce_window(&x, f32::NEG_INFINITY, lax::max, &[1, 2, 2, 1], Some(&[1, 2, 2, 1]), \"VALID\"))(x)
            }",
        ],
    );
}

#[test]
fn sorting_and_cumulative() {
    assert_reprints(
        "sort, top_k, cumsum, cumprod, cummax, cummin",
        &["sort", "top_k", "cumsum", "cumprod", "cummax", "cummin"],
        &[
            "fn f(x: Array<f32, 12>) -> Array<f32, 12> { jnp::sort(x, 0) }",
            "fn f(x: Array<f32, 12>) -> Array<i32, 12> { jnp::argsort(x, 0).astype::<i32>() }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::sort(x, -1) }",
            "fn f(x: Array<i32, 2, 5>) -> Array<i32, 2, 5> { jnp::argsort(x, 1).astype::<i32>() }",
            "fn f(k: Array<f32, 3, 4>, v: Array<f32, 3, 4>) -> (Array<f32, 3, 4>, Array<f32, 3, 4>) { lax::sort_key_val(k, v, 1) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 4, 3> { jax::vmap(|x| jnp::sort(x, 0), 1)(x) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jax::grad(|x| jnp::sum(jnp::sort(x, 1) * jnp::sort(x, 1)))(x) }",
            "fn f(x: Array<f32, 3, 4>) -> (Array<f32, 3, 3>, Array<i32, 3, 3>) { lax::top_k(x, 3) }",
            "fn f(x: Array<f32, 3, 4>) -> (Array<f32, 4, 2>, Array<i32, 4, 2>) { jax::vmap(|x| lax::top_k(x, 2), 1)(x) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jax::grad(|x| { let (v, _i) = lax::top_k(x, 2); jnp::sum(v * v) })(x) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cumsum(x, 0) }",
            "fn f(x: Array<i32, 2, 5>) -> Array<i32, 2, 5> { jnp::cumsum(x, 1) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jax::grad(|x| jnp::sum(jnp::cumsum(x, 1)))(x) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cumprod(x, 1) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jax::grad(|x| jnp::sum(jnp::cumprod(x, 1)))(x) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cummax(x, 1) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jax::grad(|x| jnp::sum(jnp::cummax(x, 0)))(x) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cummin(x, 0) }",
            "fn f(x: Array<f32, 3, 4>) -> Array<f32, 4, 3> { jax::vmap(|x| jnp::cumsum(x, 0), 1)(x) }",
        ],
    );
}

#[test]
fn linear_algebra() {
    assert_reprints(
        "triangular_solve, cholesky, lu, qr, eig, eigh, svd",
        &[
            "triangular_solve",
            "cholesky",
            "lu",
            "qr",
            "eig",
            "eigh",
            "svd",
        ],
        &[
            "fn f(a: Array<f32, 4, 4>) -> Array<f32, 4, 4> { jnp::linalg::cholesky(&a) }",
            "fn f(a: Array<f32, 2, 3, 3>) -> Array<f32, 2, 3, 3> { jnp::linalg::cholesky(&a) }",
            "fn f(a: Array<f32, 4, 4>, b: Array<f32, 4, 2>) -> Array<f32, 4, 2> {
                let c = jax::scipy::linalg::cho_factor(&a, true);
                jax::scipy::linalg::cho_solve(&c, &b)
            }",
            "fn f(a: Array<f32, 3, 3>, b: Array<f32, 3, 2>) -> Array<f32, 3, 2> { jax::scipy::linalg::solve_triangular(&a, &b, true) }",
            "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> { jax::grad(|a| jnp::sum(jnp::linalg::cholesky(&a)))(a) }",
            "fn f(a: Array<f32, 3, 3>) -> (Array<f32, 3, 3>, Array<i32, 3>) { jax::scipy::linalg::lu_factor(&a) }",
            "fn f(a: Array<f32, 2, 4, 4>) -> (Array<f32, 2, 4, 4>, Array<i32, 2, 4>) { jax::scipy::linalg::lu_factor(&a) }",
            "fn f(a: Array<f32, 3, 3>, b: Array<f32, 3>) -> Array<f32, 3> { jnp::linalg::solve(&a, &b) }",
            "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> { jax::grad(|a| jnp::linalg::det(&a))(a) }",
            "fn f(a: Array<f32, 3, 3>) -> (Array<f32, 3>, Array<f32, 3, 3>) { jnp::linalg::eigh(&a) }",
            "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3> { jnp::linalg::eigvalsh(&a) }",
            "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> { jax::grad(|a| jnp::sum(jnp::linalg::eigvalsh(&a) * jnp::linalg::eigvalsh(&a)))(a) }",
            "fn f(a: Array<f32, 3, 2>) -> (Array<f32, 3, 3>, Array<f32, 2>, Array<f32, 2, 2>) { jnp::linalg::svd(&a) }",
            "fn f(a: Array<f32, 2, 4>) -> Array<f32, 2> { jnp::linalg::svdvals(&a) }",
            "fn f(a: Array<f32, 3, 2>) -> Array<f32, 3, 2> { jax::grad(|a| jnp::sum(jnp::linalg::svdvals(&a)))(a) }",
            "fn f(a: Array<f32, 4, 3>) -> (Array<f32, 4, 3>, Array<f32, 3, 3>) { jnp::linalg::qr(&a) }",
            "fn f(a: Array<f32, 2, 3>) -> (Array<f32, 2, 2>, Array<f32, 2, 3>) { jnp::linalg::qr_with(&a, QrMode::Complete) }",
            "fn f(a: Array<f32, 4, 3>, t: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
                let (_, dq) = jax::jvp(|a| { let (q, _r) = jnp::linalg::qr(&a); q }, (a,), (t,));
                dq
            }",
            "fn f(a: Array<f32, 3, 3>) -> (Array<Complex<f32>, 3>, Array<Complex<f32>, 3, 3>) { jnp::linalg::eig(&a) }",
            "fn f(a: Array<f64, 5, 5>) -> Array<Complex<f64>, 5> { jnp::linalg::eigvals(&a) }",
        ],
    );
}

#[test]
fn collectives_under_vmap() {
    assert_reprints(
        "psum, pmax, pmin (positional forms)",
        &["psum", "pmax", "pmin"],
        &[
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::vmap(|r| lax::psum(r, \"i\"), 0, 0, \"i\")(x) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::vmap(|r| r - lax::pmean(r, \"i\"), 0, 0, \"i\")(x) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::vmap(|r| lax::pmax(r, \"i\"), 0, 0, \"i\")(x) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::vmap(|r| lax::pmin(r, \"i\"), 0, 0, \"i\")(x) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::vmap(|r| r * lax::axis_index(\"i\"), 0, 0, \"i\")(x) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 4, 3> { jax::vmap(|r| lax::all_gather(r, \"i\") * 2.0, 0, 0, \"i\")(x) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::vmap(|r| lax::ppermute(r, \"i\", &[(0, 1), (1, 2), (2, 3), (3, 0)]), 0, 0, \"i\")(x) }",
            "fn f(w: Array<f32, 3>, x: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
                jax::vmap(jax::grad(|w, r| lax::psum(jnp::sum(jnp::power(r * w - 1.0, 2)), \"i\")), (None, 0), 0, \"i\")(w, x)
            }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::grad(|x| jnp::sum(jax::vmap(|r| lax::psum(r, \"i\") * r, 0, 0, \"i\")(x)))(x) }",
        ],
    );
}

/// The collectives over axis names that print their own names
/// (`axis_index`, `all_gather`, `reduce_scatter`, `ppermute`), as a
/// `shard_map` body holds them (JAX's text, tests/fixtures/pmap.json): each
/// equation reads back alone.
#[test]
fn named_collectives() {
    for text in [
        "{ lambda ; . let a:i32[] = axis_index[axis_name=i]  in (a,) }",
        "{ lambda ; a:f32[3]. let\n    b:f32[4,3] = all_gather[\n      all_gather_dimension=0\n      axis_index_groups=None\n      axis_name=('i',)\n      axis_size=4\n      tiled=False\n    ] a\n  in (b,) }",
        "{ lambda ; a:f32[4,3]. let\n    b:f32[3] = reduce_scatter[\n      axis_index_groups=None\n      axis_name=('i',)\n      axis_size=4\n      scatter_dimension=0\n      tiled=False\n    ] a\n  in (b,) }",
        "{ lambda ; a:f32[3]. let\n    b:f32[3] = ppermute[axis_name=('i',) perm=((0, 1), (1, 2), (2, 3), (3, 0))] a\n  in (b,) }",
    ] {
        assert_eq!(reprint_error(text), None, "{text}");
    }
    // A form not modeled is named, never read as another.
    let tiled = "{ lambda ; a:f32[3]. let\n    b:f32[12] = all_gather[\n      all_gather_dimension=0\n      axis_index_groups=None\n      axis_name=('i',)\n      axis_size=4\n      tiled=True\n    ] a\n  in (b,) }";
    let e = jax_compiler::reprint_jaxpr(tiled).unwrap_err();
    assert!(
        e.contains("`all_gather`'s parameter `tiled=True` is not supported"),
        "{e}"
    );
}

/// `shard_map` (what `jax::pmap` binds) and the collectives of its body
/// over axis names.
#[test]
fn shard_map() {
    assert_reprints(
        "shard_map, ppermute, all_gather, reduce_scatter, axis_index",
        &[
            "shard_map",
            "ppermute",
            "all_gather",
            "reduce_scatter",
            "axis_index",
        ],
        &[
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::pmap(|r| lax::ppermute(r, \"i\", &[(0, 1), (1, 2), (2, 3), (3, 0)]), \"i\")(x) }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 4, 3> { jax::pmap(|r| lax::all_gather(r, \"i\") * 2.0, \"i\")(x) }",
            "fn f(x: Array<f32, 4, 4, 3>) -> Array<f32, 4, 3> { jax::pmap(|r| lax::psum_scatter(r, \"i\"), \"i\")(x) }",
            "fn f(x: Array<f32, 2, 2>) -> Array<f32, 2, 2> { jax::pmap(|v| v * 2.0)(x) }",
            "fn f(w: Array<f32, 3>, x: Array<f32, 4, 3>) -> (Array<f32, 4, 3>, Array<i32, 4>) { jax::pmap(|w, r| (w * r, lax::axis_index(\"i\")), \"i\", (None, 0))(w, x) }",
            "fn f(x: Array<f32, 4, 3>) -> (Array<f32, 3>, Array<f32, 4, 3>) { jax::pmap(|r| (r * 3.0, r * 2.0), \"i\", 0, (None, 0))(x) }",
            "fn f(x: Array<f32, 3, 2, 2>) -> Array<f32, 3, 2, 2> { jax::vmap(jax::pmap(|v| v * v, \"i\"))(x) }",
            // Forward mode's tangent `shard_map` reads back as a plain one
            // (its primal body, for reverse mode, is not printed).
            "fn f(x: Array<f32, 4, 3>, t: Array<f32, 4, 3>) -> Array<f32, 4, 3> { let (_y, dy) = jax::jvp(|x| jax::pmap(|r| r * r, \"i\")(x), (x,), (t,)); dy }",
        ],
    );
    // A body's `psum` over axis names is the named collective (told apart
    // from the positional form by its parameters).
    for src in [
        "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::pmap(|r| r - lax::pmean(r, \"i\"), \"i\")(x) }",
        "fn f(w: Array<f32, 3>, x: Array<f32, 4, 3>) -> Array<f32, 3> { jax::grad(|w, x| jnp::sum(jax::pmap(|w, r| w * w * r - r, \"i\", (None, 0))(w, x)))(w, x) }",
    ] {
        let t = text(src);
        assert_eq!(jax_compiler::reprint_jaxpr(&t), Ok(t.clone()), "{src}");
    }
}

#[test]
fn checkpoint() {
    assert_reprints(
        "remat2",
        &["remat2"],
        &[
            "fn f(x: Array<f32, 3>) -> Array<f32> { jnp::sum(jax::checkpoint(|x| jnp::sin(x) * x)(x)) }",
            "fn f(w: Array<f32, 4, 4>, x: Array<f32, 3, 4>) -> Array<f32> {
                let layer = |w, h| jnp::tanh(jnp::matmul(h, w)) * 0.5 + h;
                let h = jax::checkpoint(layer)(w, x);
                jnp::sum(&h * &h)
            }",
            "fn f(w: Array<f32, 4, 4>, x: Array<f32, 3, 4>) -> Array<f32, 4, 4> {
                jax::grad(|w| {
                    let layer = |w, h| jnp::tanh(jnp::matmul(h, w)) * 0.5 + h;
                    let h = jax::checkpoint(layer)(w, x);
                    jnp::sum(&h * &h)
                })(w)
            }",
            "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4> { jax::vmap(|r| jnp::sum(jax::checkpoint(|x| jnp::sin(x) * x)(r)))(x) }",
        ],
    );
    // Forward mode's tangent call: its primal function is not in the text.
    assert_refused(&[(
        "fn f(x: Array<f32, 3>, t: Array<f32, 3>) -> Array<f32, 3> {
            let (_y, dy) = jax::jvp(jax::checkpoint(|x| jnp::sin(x) * x), (x,), (t,));
            dy
        }",
        "`remat2` with differentiated=True cannot be imported",
    )]);
}

#[test]
fn random_samplers() {
    assert_reprints(
        "random_uniform, random_normal, random_exponential, random_gumbel, random_truncated_normal",
        &[
            "random_uniform",
            "random_normal",
            "random_exponential",
            "random_gumbel",
            "random_truncated_normal",
        ],
        &[
            "fn f(k: Key) -> Array<f32, 5> { random::uniform(k) }",
            "fn f(k: Key) -> Array<f32, 2, 3> { random::uniform_range(k, -1.5, 2.0) }",
            "fn f(k: Key) -> Array<f64, 5> { random::normal(k) }",
            "fn f(k: Key) -> Array<f32, 4> { random::exponential(k) }",
            "fn f(k: Key) -> Array<f32, 4> { random::gumbel(k) }",
            "fn f(k: Key) -> Array<f32, 4> { random::truncated_normal(k, -2.0, 1.0) }",
            "fn f(ks: Array<u32, 3, 2>) -> Array<f32, 3, 4> { jax::vmap(|k| random::normal::<Array<f32, 4>>(k))(ks) }",
        ],
    );
}

/// The primitives whose printed form cannot carry their parameters: an
/// error naming why, never a guess.
#[test]
fn unimportable_primitives_say_why() {
    assert_refused(&[(
        "fn f(x: Array<f32, 3>) -> Array<f32, 3> { jax::debug::print!(\"x = {}\", x); x * 2.0 }",
        "`debug_callback` cannot be imported",
    )]);
    // A const generic's value reads back (an imported function declares
    // the same generics).
    for src in [
        "fn f<const N: usize>(x: Array<f32, 3>) -> Array<f32, 3> { x * N }",
        "fn f<const N: usize>(x: Array<f32, N>) -> Array<f32, N> { x * (N as f32) }",
    ] {
        let t = text(src);
        assert_eq!(jax_compiler::reprint_jaxpr(&t), Ok(t.clone()), "{src}");
    }
    let lin = "{ lambda ; a:f32[3]. let b:f32[3] = custom_vjp_lin[name=clip] a in (b,) }";
    let e = jax_compiler::reprint_jaxpr(lin).unwrap_err();
    assert!(e.contains("`custom_vjp_lin` cannot be imported"), "{e}");
    // JAX's own callback, a Python function.
    let jax = "{ lambda ; a:f32[3]. let\n    debug_callback[\n      callback=<function debug_callback.<locals>._flat_callback at 0x7f>\n      effect=Debug\n    ] a\n  in (a,) }";
    let e = jax_compiler::reprint_jaxpr(jax).unwrap_err();
    assert!(
        e.contains("`debug_callback` cannot be imported") && e.contains("_flat_callback"),
        "{e}"
    );
}

/// Parameters this compiler models only with one value: another value is
/// an error naming it, never read as that one.
#[test]
fn unmodeled_values_are_errors() {
    let cases = [
        (
            "{ lambda ; a:f32[3,3]. let b:f32[3] c:f32[3,3] = eigh[algorithm=None lower=True sort_eigenvalues=True subset_by_index=(0, 2)] a in (b, c) }",
            "`eigh`'s parameter `subset_by_index` is not supported unless `None`",
        ),
        (
            "{ lambda ; a:f32[4,3]. let b:f32[2,3] = select_and_scatter_add[padding=((0, 0), (0, 0)) select_prim=lt window_dimensions=(2, 1) window_strides=(2, 1)] a a in (b,) }",
            "select_prim=lt is not supported",
        ),
        (
            "{ lambda ; a:f32[4,3]. let b:f32[4,3] = cumsum[axis=0 reverse=maybe] a in (b,) }",
            "`cumsum`'s parameter `reverse` should be `True` or `False`",
        ),
        (
            "{ lambda ; a:f32[3]. let b:f32[3] = remat2[differentiated=False jaxpr={ lambda ; c:f32[3]. let d:f32[3] = sin c in (d,) } policy=dots_saveable prevent_cse=True] a in (b,) }",
            "`remat2`'s parameter `policy` is not supported unless `None`",
        ),
    ];
    for (text, why) in cases {
        let e = jax_compiler::reprint_jaxpr(text).unwrap_err();
        assert!(e.contains(why), "{text}\n{e}\nexpected: {why}");
    }
}

/// Every JAX-printed program of `file` (under `key`s: `jaxpr`,
/// `grad_jaxpr`, `vjp_jaxpr`, `jaxpr_flat`, or the `jaxprs` table) with its
/// id.
fn jax_texts(file: &str) -> Vec<(String, String)> {
    let path = format!(
        "{}/../tests/fixtures/{file}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    if let Some(table) = json["jaxprs"].as_object() {
        for (k, v) in table {
            out.push((format!("{file}/{k}"), v.as_str().unwrap().to_string()));
        }
    }
    for (i, case) in json["cases"].as_array().into_iter().flatten().enumerate() {
        let id = case["id"]
            .as_str()
            .or(case["name"].as_str())
            .map_or_else(|| i.to_string(), str::to_string);
        for key in ["jaxpr", "grad_jaxpr", "vjp_jaxpr", "jaxpr_flat"] {
            if let Some(t) = case[key].as_str() {
                out.push((format!("{file}/{id}/{key}"), t.to_string()));
            }
        }
    }
    out
}

/// Why a JAX-printed text does not read back to itself, a panic included
/// (as its message).
fn jax_reprint_error(text: &str) -> Option<String> {
    match std::panic::catch_unwind(|| reprint_error(text)) {
        Ok(e) => e,
        Err(p) => Some(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or(p.downcast_ref::<&str>().copied())
                .unwrap_or("?")
        )),
    }
}

// Why JAX's text of these files does not read back, by reason.
/// `reshape` with `dimensions` (a transpose first, in JAX's batched
/// convolutions) reads back as a `transpose` and a `reshape`.
const RESHAPE_DIMENSIONS: &str = "printed back differently";
/// `Params::Pad` marks NumPy integers per axis, both edges together (as
/// `jnp.pad` makes them); JAX's transpose of `pad` holds the interior as
/// one too, `jnp.roll`'s and `jnp.diff`'s only the high edge: the program
/// reads back (a NumPy integer is its value), and prints `k` where JAX
/// printed `np.int64(k)`.
const PAD_NP_INTS: &str = "printed back differently";
/// An f32 literal JAX prints with its double's digits
/// (`-0.699999988079071:f32[]`); this printer gives the shortest f32 digits.
const LITERAL_DIGITS: &str = "printed back differently";
/// A program JAX shares as a top-level `let NAME = { .. } in`: it reads
/// back, and prints where it is used.
const LET_DEFS: &str = "printed back differently";
/// A `jit` body whose output the caller drops, printed `in (_, s)`: the
/// text no longer says which variable it was, so it reads back as zeros
/// (nothing reads it), which print as an equation of their own.
const DROPPED_OUTPUT: &str = "printed back differently";
/// A gradient across `pmap` devices: `reshard` and `out_sharding` read
/// back as what one process computes (placement only), and print as such.
const RESHARD: &str = "printed back differently";

/// JAX's text of these primitives that does not read back, each with a
/// part of its error: what this compiler does not model.
const JAX_EXPECTED_FAILURES: &[(&str, &str)] = &[
    ("conv_jit/conv_groups/grad_jaxpr", RESHAPE_DIMENSIONS),
    ("conv_jit/vmap_rhs/jaxpr", RESHAPE_DIMENSIONS),
    ("conv_jit/vmap_both/jaxpr", RESHAPE_DIMENSIONS),
    ("conv_jit/vmap_both_groups/jaxpr", RESHAPE_DIMENSIONS),
    ("conv_jit/vmap_rhs_groups/jaxpr", RESHAPE_DIMENSIONS),
    ("conv_jit/vmap_lhs_axis1/jaxpr", RESHAPE_DIMENSIONS),
    ("sort/quantile/jaxpr_flat", LITERAL_DIGITS),
    ("sort/cumprod_grad/jaxpr_flat", PAD_NP_INTS),
    ("sort/cummax_grad/jaxpr_flat", PAD_NP_INTS),
    ("sort/cummin_grad/jaxpr_flat", PAD_NP_INTS),
    ("sort/quantile_grad/jaxpr_flat", LITERAL_DIGITS),
    ("sort/median_grad/jaxpr_flat", LITERAL_DIGITS),
    ("sort/diff_grad/jaxpr_flat", PAD_NP_INTS),
    ("linalg_more/jaxpr_matrix_rank/jaxpr", LITERAL_DIGITS),
    ("pmap/grad_of_pmap/jaxpr", RESHARD),
    ("pmap/grad_of_pmap_shared/jaxpr", RESHARD),
    ("pmap/jvp_of_pmap/jaxpr", DROPPED_OUTPUT),
    ("pmap/data_parallel_step/jaxpr", LET_DEFS),
    ("manip_jit/pad_jnp/vjp_jaxpr", PAD_NP_INTS),
    ("manip_jit/pad_lax/vjp_jaxpr", PAD_NP_INTS),
    ("manip_jit/pad_value_operand/vjp_jaxpr", PAD_NP_INTS),
    ("manip_jit/roll/vjp_jaxpr", PAD_NP_INTS),
    ("manip_jit/linspace_7/jaxpr", LITERAL_DIGITS),
    ("diag/diag_vec/vjp_jaxpr", PAD_NP_INTS),
    ("diag/diag_vec_neg/vjp_jaxpr", PAD_NP_INTS),
];

#[test]
fn jax_printed_programs_read_back() {
    let files = [
        "conv_jit",
        "sort",
        "linalg_cholesky",
        "linalg_eigh",
        "linalg_gaps",
        "linalg_lu",
        "linalg_more",
        "linalg_qr",
        "collectives",
        "pmap",
        "checkpoint",
        "manip_jit",
        "diag",
    ];
    let mut failed = Vec::new();
    let mut passed = 0;
    for file in files {
        for (id, t) in jax_texts(file) {
            match jax_reprint_error(&t) {
                None => passed += 1,
                Some(e) => failed.push((id, e)),
            }
        }
    }
    let listed: Vec<&str> = JAX_EXPECTED_FAILURES.iter().map(|(id, _)| *id).collect();
    let unexpected: Vec<String> = failed
        .iter()
        .filter(|(id, _)| !listed.contains(&id.as_str()))
        .map(|(id, e)| format!("{id}: {e}"))
        .collect();
    let wrong_reason: Vec<String> = failed
        .iter()
        .filter_map(|(id, e)| {
            let (_, why) = JAX_EXPECTED_FAILURES.iter().find(|(k, _)| k == id)?;
            (!any_of(e, why)).then(|| format!("{id}: {e}\nexpected: {why}"))
        })
        .collect();
    let now_passing: Vec<&str> = listed
        .iter()
        .filter(|id| !failed.iter().any(|(f, _)| f == *id))
        .copied()
        .collect();
    assert!(
        unexpected.is_empty() && wrong_reason.is_empty() && now_passing.is_empty(),
        "{passed} read back.\nUnexpected failures:\n{}\nOther reasons:\n{}\nListed but reading back now: {now_passing:?}",
        unexpected.join("\n"),
        wrong_reason.join("\n")
    );
}
