#!/usr/bin/env python3
"""Build time and rustc memory of an imported jaxpr that grows: a chain of
`sin` equations (`b = sin a; c = sin b; ...` on `f32[3]`), the program
`#[jax::jit(import = ..)]` reads, at several lengths.

Builds a scratch crate depending on this checkout, one binary per length,
release profile, dependencies built first (warm), and reports the wall time
of rebuilding each binary alone and rustc's peak memory, against budgets
(1,000 equations: 10 s and 1 GB; 10,000: 100 s). Not part of `cargo test`:

    python3 benches/import_chain.py [--sizes 1000,3000,10000] [--keep DIR]

Exits 1 when a build is over its budget.
"""

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Seconds and MiB, release, dependencies built.
BUDGETS = {1000: (10.0, 1024), 10000: (100.0, None)}


def names():
    """JAX's variable names: a..z, ba..bz, ..., skipping keywords."""
    k = 0
    while True:
        s, x = "", k
        while True:
            s = chr(97 + x % 26) + s
            x //= 26
            if x == 0:
                break
        k += 1
        if s not in ("in", "let", "inf", "nan"):
            yield s


def chain(n):
    gen = names()
    vs = [next(gen) for _ in range(n + 1)]
    lines = [f"{{ lambda ; {vs[0]}:f32[3]. let"]
    lines += [f"    {vs[i]}:f32[3] = sin {vs[i - 1]}" for i in range(1, n + 1)]
    lines.append(f"  in ({vs[n]},) }}")
    return "\n".join(lines) + "\n"


def write_crate(d, sizes):
    (d / "src" / "bin").mkdir(parents=True, exist_ok=True)
    (d / "Cargo.toml").write_text(
        "[package]\nname = \"jit-import-chain\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n"
        f"[dependencies]\njax = {{ path = {str(ROOT)!r} }}\n\n[workspace]\n"
    )
    main = "fn main() {\n    let x = Array::<f32, 3>::from([0.5; 3]);\n    println!(\"{}\", f(&x));\n}\n"
    (d / "src" / "bin" / "warm.rs").write_text(
        "use jax::prelude::*;\n\n#[jax::jit]\nfn f(x: &Array<f32, 3>) -> Array<f32, 3> {\n    jnp::sin(x)\n}\n\n" + main
    )
    for n in sizes:
        (d / "src" / "bin" / f"chain{n}.jaxpr").write_text(chain(n))
        (d / "src" / "bin" / f"chain{n}.rs").write_text(
            f"use jax::prelude::*;\n\n#[jax::jit(import = \"chain{n}.jaxpr\")]\n"
            "fn f(x: &Array<f32, 3>) -> Array<f32, 3>;\n\n" + main
        )


def build(d, name):
    """Seconds and peak MiB (of the largest process: rustc) of building `name`."""
    (d / "src" / "bin" / f"{name}.rs").touch()
    cmd = ["/usr/bin/time", "-f", "%M", "cargo", "build", "--release", "--bin", name]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{name} did not build:\n{p.stderr[-4000:]}")
    return dt, int(re.findall(r"^(\d+)$", p.stderr, re.M)[-1]) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,3000,10000")
    ap.add_argument("--keep", help="build in this directory and keep it")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    d = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="jit-import-chain-"))
    write_crate(d, sizes)
    build(d, "warm")  # the dependencies, untimed
    over = []
    print(f"{'equations':>9} {'seconds':>8} {'peak MiB':>9}  budget")
    for n in sizes:
        dt, mib = build(d, f"chain{n}")
        s_max, mib_max = BUDGETS.get(n, (None, None))
        ok = (s_max is None or dt <= s_max) and (mib_max is None or mib <= mib_max)
        budget = "" if s_max is None else f"{s_max:.0f} s" + ("" if mib_max is None else f", {mib_max} MiB")
        print(f"{n:>9} {dt:>8.1f} {mib:>9.0f}  {budget}{'' if ok else '  OVER'}", flush=True)
        if not ok:
            over.append(n)
    if not args.keep:
        shutil.rmtree(d, ignore_errors=True)
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
