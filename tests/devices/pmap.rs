//! `jax::pmap(f, axis_name, in_axes)` over 4 CPU devices, with collectives
//! inside, derivatives of it and `vmap` of it, bit for bit against JAX's
//! `pmap` over 4 forced host devices (`tests/fixtures/pmap.json`), and the
//! jaxprs it prints (a `jit` of a `shard_map`).

use crate::common;

use jax::prelude::*;
use serde_json::Value;

/// Every test asks for the 4 devices before anything runs on one.
fn four_devices() {
    jax::config::set_num_cpu_devices(4).unwrap();
}

fn arg<A: ArrayType>(case: &Value, k: usize) -> A {
    common::array_arg(&case["args"][k])
}

#[jax::jit]
fn centered(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::pmap(|r| r - lax::pmean(r, "i"), "i")(x)
}

#[jax::jit]
fn shared_and_index(w: &Array<f32, 3>, x: &Array<f32, 4, 3>) -> (Array<f32, 4, 3>, Array<i32, 4>) {
    jax::pmap(
        |w, r| (w * lax::psum(r, "i"), lax::axis_index("i")),
        "i",
        (None, 0),
    )(w, x)
}

#[jax::jit]
fn max_minus_min(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::pmap(|r| lax::pmax(r, "i") - lax::pmin(r, "i"), "i")(x)
}

#[jax::jit]
fn all_gather(x: &Array<f32, 4, 3>) -> Array<f32, 4, 4, 3> {
    jax::pmap(|r| lax::all_gather(r, "i") * 2.0, "i")(x)
}

#[jax::jit]
fn psum_scatter(x: &Array<f32, 4, 4, 3>) -> Array<f32, 4, 3> {
    jax::pmap(|r| lax::psum_scatter(r, "i"), "i")(x)
}

#[jax::jit]
fn ppermute_ring(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::pmap(
        |r| lax::ppermute(r, "i", &[(0, 1), (1, 2), (2, 3), (3, 0)]),
        "i",
    )(x)
}

#[jax::jit]
fn two_devices(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jax::pmap(|r| r * lax::psum(r, "i"), "i")(x)
}

#[jax::jit]
fn unnamed(x: &Array<f32, 2, 2>) -> Array<f32, 2, 2> {
    jax::pmap(|v| v * 2.0)(x)
}

#[jax::jit]
fn replicated_out(x: &Array<f32, 4, 3>) -> (Array<f32, 3>, Array<f32, 4, 3>) {
    jax::pmap(|r| (lax::pmean(r, "i"), r * 2.0), "i", 0, (None, 0))(x)
}

#[jax::jit]
fn grad_of_pmap(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::grad(|x| jnp::sum(jax::pmap(|r| r * lax::pmean(r, "i"), "i")(x)))(x)
}

#[jax::jit]
fn grad_of_pmap_shared(w: &Array<f32, 3>, x: &Array<f32, 4, 3>) -> Array<f32, 3> {
    jax::grad(|w, x| jnp::sum(jax::pmap(|w, r| w * w * r - r, "i", (None, 0))(w, x)))(w, x)
}

#[jax::jit]
fn jvp_of_pmap(x: &Array<f32, 4, 3>, t: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    let (_y, dy) = jax::jvp(
        |x| jax::pmap(|r| r * r * lax::psum(r, "i"), "i")(x),
        (x,),
        (t,),
    );
    dy
}

#[jax::jit]
fn vmap_of_pmap(x: &Array<f32, 3, 2, 2>) -> Array<f32, 3, 2, 2> {
    jax::vmap(jax::pmap(|v| lax::psum(v, "i") * v, "i"))(x)
}

#[jax::jit]
fn data_parallel_step(
    w: &Array<f32, 3>,
    x: &Array<f32, 4, 8, 3>,
    y: &Array<f32, 4, 8>,
) -> Array<f32, 4, 3> {
    let loss = |w, x, y| jnp::mean((x.matmul(w) - y).powi(2));
    jax::pmap(
        |w, x, y| w - 0.125 * lax::pmean(jax::grad(loss)(w, x, y), "i"),
        "i",
        (None, 0, 0),
    )(w, x, y)
}

#[test]
fn pmap_equals_jax() {
    four_devices();
    let mut seen = 0;
    for c in common::cases("pmap") {
        let name = c["name"].as_str().unwrap();
        let want = &c["outputs"][0];
        match name {
            "centered" => common::assert_matches(&centered(&arg(&c, 0)), want),
            "shared_and_index" => {
                let (y, i) = shared_and_index(&arg(&c, 0), &arg(&c, 1));
                common::assert_matches(&y, want);
                common::assert_matches(&i, &c["outputs"][1]);
            }
            "max_minus_min" => common::assert_matches(&max_minus_min(&arg(&c, 0)), want),
            "all_gather" => common::assert_matches(&all_gather(&arg(&c, 0)), want),
            "psum_scatter" => common::assert_matches(&psum_scatter(&arg(&c, 0)), want),
            "ppermute_ring" => common::assert_matches(&ppermute_ring(&arg(&c, 0)), want),
            "two_devices" => common::assert_matches(&two_devices(&arg(&c, 0)), want),
            "unnamed" => common::assert_matches(&unnamed(&arg(&c, 0)), want),
            "replicated_out" => {
                let (m, y) = replicated_out(&arg(&c, 0));
                common::assert_matches(&m, want);
                common::assert_matches(&y, &c["outputs"][1]);
            }
            "grad_of_pmap" => common::assert_matches(&grad_of_pmap(&arg(&c, 0)), want),
            "grad_of_pmap_shared" => {
                common::assert_matches(&grad_of_pmap_shared(&arg(&c, 0), &arg(&c, 1)), want)
            }
            "jvp_of_pmap" => common::assert_matches(&jvp_of_pmap(&arg(&c, 0), &arg(&c, 1)), want),
            "vmap_of_pmap" => common::assert_matches(&vmap_of_pmap(&arg(&c, 0)), want),
            "data_parallel_step" => common::assert_matches(
                &data_parallel_step(&arg(&c, 0), &arg(&c, 1), &arg(&c, 2)),
                want,
            ),
            other => panic!("fixture case {other} has no test"),
        }
        seen += 1;
    }
    assert_eq!(seen, 14);
}

#[test]
fn pmap_jaxprs_print_as_jax() {
    four_devices();
    let printed = [
        ("centered", centered::jaxpr().to_string()),
        ("shared_and_index", shared_and_index::jaxpr().to_string()),
        ("max_minus_min", max_minus_min::jaxpr().to_string()),
        ("two_devices", two_devices::jaxpr().to_string()),
        ("unnamed", unnamed::jaxpr().to_string()),
        ("replicated_out", replicated_out::jaxpr().to_string()),
    ];
    for (name, got) in printed {
        let want = common::case("pmap", name)["jaxpr"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn devices_are_the_requested_four() {
    four_devices();
    let devices = jax::devices();
    assert_eq!(devices.len(), 4);
    let ids: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        ids,
        [
            "CpuDevice(id=0)",
            "CpuDevice(id=1)",
            "CpuDevice(id=2)",
            "CpuDevice(id=3)"
        ]
    );
    assert!(devices
        .iter()
        .all(|d| d.threads >= 1 && d.process_index == 0));
    assert_eq!(jax::device_count(), 4);
    assert!(jax::config::set_num_cpu_devices(2).is_err());
}

#[jax::jit]
fn five_entries(x: &Array<f32, 5, 2>) -> Array<f32, 5, 2> {
    jax::pmap(|r| r * 2.0, "i")(x)
}

#[test]
#[should_panic(expected = "pmap over an axis of size 5 needs 5 devices, but jax::devices() has 4")]
fn more_entries_than_devices_is_jaxs_error() {
    four_devices();
    five_entries(&Array::full(1.0));
}

#[test]
fn a_device_that_panics_stops_the_run_with_its_message() {
    four_devices();
    // The body panics on one device only (a `debug_nans` check would too);
    // the others, waiting at the psum, stop instead of hanging.
    let err = std::panic::catch_unwind(|| {
        let _ = jax::__rt::spmd::shard_map(4, &|dev| {
            if dev.index() == 2 {
                panic!("device 2 failed");
            }
            jax::__rt::spmd::psum(dev, &[1.0f32])
        });
    });
    let Err(err) = err else {
        panic!("the run did not fail")
    };
    assert_eq!(err.downcast_ref::<&str>(), Some(&"device 2 failed"));
}
