//! `JAX_NUM_CPU_DEVICES` read by a process of its own: each case runs this
//! test binary again with the variable set, filtered to a child test of
//! this module that does nothing unless `JAX_DEVICE_COUNT_CHILD` names it.

use jax::prelude::*;
use std::process::Command;

#[jax::jit]
fn centered(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jax::pmap(|r| r - lax::psum(r, "i"), "i")(x)
}

/// Runs child test `name` in a process with `JAX_NUM_CPU_DEVICES=value`.
fn child(name: &str, value: &str) -> std::process::Output {
    // The test's name in the harness: its module path without the crate.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let test = format!("{module}::{name}");
    Command::new(std::env::current_exe().unwrap())
        .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env("JAX_NUM_CPU_DEVICES", value)
        .env("JAX_DEVICE_COUNT_CHILD", name)
        .output()
        .unwrap()
}

fn is_child(name: &str) -> bool {
    std::env::var("JAX_DEVICE_COUNT_CHILD").as_deref() == Ok(name)
}

#[test]
fn child_many_devices() {
    if !is_child("child_many_devices") {
        return;
    }
    assert_eq!(jax::device_count(), 100_000);
    assert_eq!(jax::devices().len(), 100_000);
    assert_eq!(jax::devices()[99_999].to_string(), "CpuDevice(id=99999)");
    let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]]);
    let y = centered(&x);
    assert_eq!(y.to_vec(), [-10.0, -20.0, -30.0, -1.0, -2.0, -3.0]);
    println!("CHILD OK");
}

/// 100,000 devices: no thread starts until a pmap runs on a device, so the
/// process neither aborts nor spawns a pool per device; a pmap over 2 of
/// them runs.
#[test]
fn a_hundred_thousand_devices() {
    let out = child("child_many_devices", "100000");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("CHILD OK"),
        "status {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn child_first_use() {
    if !is_child("child_first_use") {
        return;
    }
    println!("DEVICES={}", jax::device_count());
}

/// A value JAX refuses panics at the first use of a device, with JAX's
/// message; a negative one is JAX's default, one device.
#[test]
fn invalid_values_panic_with_jax_message() {
    for (value, message) in [
        (
            "garbage",
            "Invalid value \"garbage\" for JAX flag jax_num_cpu_devices",
        ),
        (
            "2.0",
            "Invalid value \"2.0\" for JAX flag jax_num_cpu_devices",
        ),
        ("0", "Unable to initialize backend 'cpu'"),
    ] {
        let out = child("child_first_use", value);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(message),
            "{value}: status {:?}\n{stderr}",
            out.status
        );
    }
    let out = child("child_first_use", "-3");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("DEVICES=1\n"));
}
