#!/usr/bin/env python3
"""Build time of `#[jax::jit]` functions that grow with the program.

Builds three programs in a scratch crate that depends on this checkout,
release profile, dependencies built first (warm), and reports the median
wall time of rebuilding each one alone (the file touched, `cargo build
--release --bin NAME`), with rustc's peak memory:

- chain500:   500 chained additions on `f32[8]`
- body200:    a 200-line body, `h = tanh(h * 0.5 + x)` on `f32[64]`
- unroll1000: `for i in 0..1000 { acc = acc + x * (i as f32) * 0.001 }` on `f32[8]`

and checks them against the budgets below. An empty jitted function is
built the same way as the floor (linking, the binary's own code).

    python3 benches/compile_time.py [--runs N] [--keep DIR]

Exits 1 when a median is over its budget.
"""

import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Seconds, release, dependencies built.
BUDGETS = {"chain500": 5.0, "body200": 8.0, "unroll1000": 60.0}


def programs():
    chain = " + ".join(["x"] * 500)
    body = "\n".join("    let h = jnp::tanh(h * 0.5 + x);" for _ in range(200))
    return {
        "empty": (
            "fn f(x: &Array<f32, 8>) -> Array<f32, 8> {\n    x * 2.0\n}",
            "Array::<f32, 8>::from([1.0; 8])",
        ),
        "chain500": (
            f"fn f(x: &Array<f32, 8>) -> Array<f32, 8> {{\n    {chain}\n}}",
            "Array::<f32, 8>::from([1.0; 8])",
        ),
        "body200": (
            f"fn f(x: &Array<f32, 64>) -> Array<f32, 64> {{\n    let h = x * 1.0;\n{body}\n    h\n}}",
            "Array::<f32, 64>::from([0.5; 64])",
        ),
        "unroll1000": (
            "fn f(x: &Array<f32, 8>) -> Array<f32, 8> {\n"
            "    let mut acc = x * 0.0;\n"
            "    for i in 0..1000 {\n"
            "        acc = acc + x * (i as f32) * 0.001;\n"
            "    }\n"
            "    acc\n}",
            "Array::<f32, 8>::from([1.0; 8])",
        ),
    }


def write_crate(d: pathlib.Path):
    (d / "src" / "bin").mkdir(parents=True, exist_ok=True)
    (d / "Cargo.toml").write_text(
        "[package]\nname = \"jit-compile-time\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n"
        f"[dependencies]\njax = {{ path = {str(ROOT)!r} }}\n\n[workspace]\n"
    )
    for name, (fn, arg) in programs().items():
        (d / "src" / "bin" / f"{name}.rs").write_text(
            "use jax::prelude::*;\n\n#[jax::jit]\n"
            + fn
            + f"\n\nfn main() {{\n    let x = {arg};\n    println!(\"{{}}\", f(&x));\n}}\n"
        )


def build(d: pathlib.Path, name: str):
    """Seconds and rustc's peak KiB for rebuilding `name` alone."""
    (d / "src" / "bin" / f"{name}.rs").touch()
    cmd = ["/usr/bin/time", "-f", "%M", "cargo", "build", "--release", "--bin", name]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{name} did not build:\n{p.stderr[-4000:]}")
    kib = int(re.findall(r"^(\d+)$", p.stderr, re.M)[-1])
    return dt, kib


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="build in this directory and keep it")
    args = ap.parse_args()
    d = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="jit-compile-time-"))
    write_crate(d)
    print("building the dependencies once ...", flush=True)
    subprocess.run(["cargo", "build", "--release", "--bin", "empty"], cwd=d, check=True,
                   capture_output=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown CPU")
    print(f"{cpu}, {os.cpu_count()} cores; medians of {args.runs} rebuilds\n")
    print(f"{'program':<12} {'median s':>9} {'min s':>7} {'max s':>7} {'rustc MiB':>10} {'budget s':>9}")
    over = []
    for name in programs():
        runs = [build(d, name) for _ in range(args.runs)]
        times = [t for t, _ in runs]
        med = statistics.median(times)
        mib = max(k for _, k in runs) / 1024
        budget = BUDGETS.get(name)
        print(f"{name:<12} {med:>9.2f} {min(times):>7.2f} {max(times):>7.2f} {mib:>10.0f} "
              f"{'' if budget is None else budget:>9}", flush=True)
        if budget is not None and med > budget:
            over.append(name)
    if not args.keep:
        shutil.rmtree(d, ignore_errors=True)
    if over:
        print(f"\nover budget: {', '.join(over)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
