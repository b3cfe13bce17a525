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

    python3 benches/compile_time.py --programs [--runs N] [--only NAME]

The suite's programs instead (`PROGRAMS`: examples written as JAX's
examples write them): each one's release build in this checkout, the
example alone rebuilt (its files touched, dependencies and the `jax` crate
built), with rustc's peak memory and the bytes `#[jax::jit]` emits for it,
beside the time XLA takes to compile the same program
(`jax.jit(f).lower(*args).compile()`, JAX on CPU, the Python original from
its fixture generator) and the equations JAX traces for it.

    python3 benches/compile_time.py --per-function [--runs N] [--jax PATH]

Cost per jitted function instead: a generated crate of 20 jitted functions
(MLP layers, a loss, a reduction, elementwise chains; `main` calls each),
rebuilt alone in the dev and the release profile (dependencies warm), as
built, and again with every function's `f::grad` companion called too (what
a used derivative adds: an unused companion is `#[inline]`, so it costs its
expansion and type checking but no code generation). Expansion time and
size per function come from `compiler/examples/expansion_size.rs` on the
generated file and on `examples/*.rs`; the rest of a rebuild is rustc's.
`--jax PATH` builds against another checkout (a before/after of a runtime
change, e.g. the SIMD copies `__rt::par::dispatch3` compiles per loop).
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


# The generated crate's functions: (body, input types), each `f32`.
LAYER = "jnp::tanh(x.matmul(w) + b)"
PER_FUNCTION = [
    ("x: &Array<f32, 64, 32>, w: &Array<f32, 32, 16>, b: &Array<f32, 16>", LAYER, "Array<f32>", "jnp::sum"),
    ("x: &Array<f32, 64, 32>, w: &Array<f32, 32, 16>, b: &Array<f32, 16>",
     "jax::nn::relu(x.matmul(w) + b) * 0.5", "Array<f32>", "jnp::sum"),
    ("x: &Array<f32, 256>", "jnp::tanh(x * 1.5 + 0.5) * 2.0", "Array<f32>", "jnp::sum"),
    ("x: &Array<f32, 16, 10>", "jnp::log_softmax(x, -1)", "Array<f32>", "jnp::mean"),
    ("x: &Array<f32, 256>", "jnp::sin(x) * x + jnp::exp(x * -0.5)", "Array<f32>", "jnp::sum"),
]


def per_function_source(with_grad):
    """20 jitted functions, each returning a scalar (so `grad` exists)."""
    out = ["use jax::prelude::*;\n"]
    calls = []
    for i in range(20):
        params, body, ret, reduce = PER_FUNCTION[i % len(PER_FUNCTION)]
        out.append(f"#[jax::jit]\nfn f{i}({params}) -> {ret} {{\n    {reduce}({body} * {i + 1}.0)\n}}\n")
        names = [p.split(":")[0].strip() for p in params.split(", ") if ":" in p]
        args = ", ".join(f"&{n}{i % len(PER_FUNCTION)}" for n in names)
        calls.append(f"    println!(\"{{}}\", f{i}({args}));")
        if with_grad:
            calls.append(f"    println!(\"{{:?}}\", f{i}::grad({args}));")
    inputs = [
        "    let (x0, w0, b0) = (Array::<f32, 64, 32>::full(0.1), Array::<f32, 32, 16>::full(0.1), Array::<f32, 16>::full(0.1));",
        "    let (x1, w1, b1) = (x0.clone(), w0.clone(), b0.clone());",
        "    let x2 = Array::<f32, 256>::full(0.1);",
        "    let x3 = Array::<f32, 16, 10>::full(0.1);",
        "    let x4 = Array::<f32, 256>::full(0.1);",
    ]
    out.append("fn main() {\n" + "\n".join(inputs + calls) + "\n}\n")
    return "\n".join(out)


def expansion(tool_dir, path):
    """(ms, bytes) per jitted item of `path`, from expansion_size."""
    p = subprocess.run(
        ["cargo", "run", "-q", "-p", "jax-compiler", "--release", "--example", "expansion_size", "--", str(path)],
        cwd=tool_dir, capture_output=True, text=True, check=True,
    )
    return [(float(m[1]), int(m[0])) for m in re.findall(r"^\S+: expansion (\d+) bytes, ([\d.]+) ms", p.stdout, re.M)]


def rebuild(d, name, profile):
    """Median-able seconds of rebuilding bin `name` alone in `profile`."""
    (d / "src" / "bin" / f"{name}.rs").touch()
    cmd = ["cargo", "build", "--bin", name] + (["--release"] if profile == "release" else [])
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{name} did not build:\n{p.stderr[-4000:]}")
    return time.perf_counter() - t


def per_function(args):
    jax_path = pathlib.Path(args.jax or ROOT).resolve()
    d = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="jit-per-function-"))
    (d / "src" / "bin").mkdir(parents=True, exist_ok=True)
    (d / "Cargo.toml").write_text(
        "[package]\nname = \"jit-per-function\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n"
        f"[dependencies]\njax = {{ path = {str(jax_path)!r} }}\n\n[workspace]\n"
    )
    (d / "src" / "bin" / "fns20.rs").write_text(per_function_source(False))
    (d / "src" / "bin" / "fns20_grad.rs").write_text(per_function_source(True))
    print(f"jax at {jax_path}; medians of {args.runs} rebuilds; 20 jitted functions\n")
    exp = expansion(ROOT, d / "src" / "bin" / "fns20.rs")
    ms = [m for m, _ in exp]
    print(f"expansion, generated crate: {sum(ms):.0f} ms for {len(ms)} functions "
          f"({statistics.median(ms):.1f} ms median each), {sum(b for _, b in exp) / 1e3:.0f} kB of tokens")
    if not args.skip_examples:
        for ex in sorted((ROOT / "examples").glob("*.rs")):
            e = expansion(ROOT, ex)
            if e:
                print(f"expansion, examples/{ex.name}: {len(e)} jitted items, "
                      f"{sum(m for m, _ in e):.0f} ms, {sum(b for _, b in e) / 1e3:.0f} kB")
    print(f"\n{'profile':<8} {'binary':<12} {'median s':>9} {'per fn s':>9} {'min s':>7} {'max s':>7}")
    for profile in args.profiles.split(","):
        for name in ("fns20", "fns20_grad"):
            rebuild(d, name, profile)  # dependencies and a first build, untimed
            times = [rebuild(d, name, profile) for _ in range(args.runs)]
            med = statistics.median(times)
            print(f"{profile:<8} {name:<12} {med:>9.2f} {med / 20:>9.3f} {min(times):>7.2f} {max(times):>7.2f}",
                  flush=True)
    if not args.keep:
        shutil.rmtree(d, ignore_errors=True)


# The suite's programs: (example, the files `#[jax::jit]` reads, the fixture
# generator holding the Python original, [(function, argument count)]).
PROGRAMS = [
    (
        "fluidsim",
        ["examples/fluidsim.rs", "examples/fluidsim/model.rs"],
        "tests/fixtures/gen/fluidsim.py",
        [("simulate", 3), ("jax.value_and_grad(objective, argnums=(0, 1))", 4)],
    ),
    (
        "control",
        ["examples/control.rs"],
        "tests/fixtures/gen/control.py",
        [("ilqr_run", 2), ("mpc_run", 2)],
    ),
    (
        "kernel_lsq",
        ["examples/kernel_lsq.rs"],
        "tests/fixtures/gen/kernel_lsq.py",
        [("update_run", 4)],
    ),
    (
        "advi",
        ["examples/advi.rs"],
        "tests/fixtures/gen/advi.py",
        [("update_run", 2)],
    ),
    (
        "gaussian_process",
        ["examples/gaussian_process.rs", "examples/gaussian_process/model.rs"],
        "tests/fixtures/gen/gaussian_process.py",
        [("grad_run", 3)],
    ),
    (
        "mnist_fromscratch",
        ["examples/mnist_fromscratch.rs"],
        "tests/fixtures/gen/mnist_fromscratch.py",
        [("update_run", 2)],
    ),
    (
        "mnist_classifier",
        ["examples/mnist_classifier.rs"],
        "tests/fixtures/gen/mnist_classifier.py",
        [("update_run", 2)],
    ),
    (
        "mnist_vae",
        ["examples/mnist_vae.rs"],
        "tests/fixtures/gen/mnist_vae.py",
        [("run_epoch_run", 2)],
    ),
    (
        "dp_sgd",
        ["examples/dp_sgd.rs"],
        "tests/fixtures/gen/dp_sgd.py",
        [("update_run", 2)],
    ),
]


def xla_compile(generator, functions, runs):
    """(median seconds, JAX's equation count) of compiling each function of
    the Python original, a fresh `jax.jit` each time."""
    sys.path.insert(0, str(ROOT / pathlib.Path(generator).parent))
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import importlib

    import jax

    program = importlib.import_module(pathlib.Path(generator).stem)
    inputs = program.inputs()
    out = []
    for expr, nargs in functions:
        f = eval(expr, {"jax": jax, **vars(program)})
        args = inputs[:nargs]
        times = []
        for _ in range(runs):
            jax.clear_caches()
            t = time.perf_counter()
            jax.jit(f).lower(*args).compile()
            times.append(time.perf_counter() - t)
        eqns = len(jax.make_jaxpr(f)(*args).jaxpr.eqns)
        out.append((expr, statistics.median(times), eqns))
    return out


def programs_table(args):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown CPU")
    print(f"{cpu}, {os.cpu_count()} cores; medians of {args.runs} builds\n")
    for name, files, generator, functions in PROGRAMS:
        if args.only and name != args.only:
            continue
        subprocess.run(["cargo", "build", "--release", "--example", name], cwd=ROOT, check=True,
                       capture_output=True)
        runs = []
        for _ in range(args.runs):
            for f in files:
                (ROOT / f).touch()
            cmd = ["/usr/bin/time", "-f", "%M", "cargo", "build", "--release", "--example", name]
            t = time.perf_counter()
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{name} did not build:\n{p.stderr[-4000:]}")
            runs.append((time.perf_counter() - t, int(re.findall(r"^(\d+)$", p.stderr, re.M)[-1])))
        emitted = sum(b for f in files for _, b in expansion(ROOT, ROOT / f))
        build = statistics.median(t for t, _ in runs)
        mib = max(k for _, k in runs) / 1024
        print(f"{name}: release build {build:.0f} s (runs {', '.join(f'{t:.0f}' for t, _ in runs)}), "
              f"rustc peak {mib:.0f} MiB, {emitted / 1e6:.1f} MB emitted")
        total = 0.0
        for expr, secs, eqns in xla_compile(generator, functions, args.runs):
            total += secs
            print(f"  XLA: jax.jit({expr}) compiles in {secs:.1f} s; {eqns} equations traced")
        print(f"  build / XLA's compile of both: {build / total:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="build in this directory and keep it")
    ap.add_argument("--per-function", action="store_true", help="cost per jitted function (see above)")
    ap.add_argument("--jax", help="with --per-function: the jax checkout to build against")
    ap.add_argument("--profiles", default="dev,release", help="with --per-function: dev,release")
    ap.add_argument("--skip-examples", action="store_true", help="with --per-function: no examples/")
    ap.add_argument("--programs", action="store_true", help="the suite's programs against XLA (see above)")
    ap.add_argument("--only", help="with --programs: this program alone")
    args = ap.parse_args()
    if args.programs:
        return programs_table(args)
    if args.per_function:
        return per_function(args)
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
