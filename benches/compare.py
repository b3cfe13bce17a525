#!/usr/bin/env python3
"""Side-by-side timing of `benches/workloads.rs` (#[jax::jit]) and JAX on CPU.

    python3 benches/compare.py [FILTER] [--rounds=R] [--budget=S] [--warmup=N]
                               [--min-samples=N] [--max-samples=N] [--out=PATH]

One run builds `cargo bench --bench workloads` (release) and the suite's
programs that time themselves (`PROGRAMS`: `--example NAME -- --bench`,
release), then, R times, runs the Rust workloads and the JAX ones (`benches/jax_workloads.py`, in this
process, JAX_PLATFORMS=cpu) one side after the other. Both sides time alike:
`warmup` untimed calls, then timed calls until there are `min-samples` and
`budget` seconds have passed (at most `max-samples`); the median of those is
one round's figure. The table gives the median of the R round medians, the
total sample count, and the spread of the round medians, so a burst of load
from another process shows up as spread rather than silently as a number.
The Markdown goes to stdout and to benches/results.md (or --out); a run
with a FILTER writes only to --out, so it never replaces the whole table.
"""

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ["JAX_PLATFORMS"] = "cpu"

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import jax  # noqa: E402
import jaxlib  # noqa: E402
import jax_workloads  # noqa: E402

M16 = 1 << 24
F32 = 4

# (row label, JAX workload, ours workload or None, note). Ours is None where
# the compiler does not accept the function yet.
ROWS = [
    ("`tanh(x*1.5+0.5)*2`, 1M f32", "tanh_chain_1m", "tanh_chain_1m", ""),
    ("`tanh(x*1.5+0.5)*2`, 16M f32", "tanh_chain_16m", "tanh_chain_16m", ""),
    (
        "same, 16M, JAX donating `x`",
        "tanh_chain_16m_donated",
        "tanh_chain_16m",
        "ours reuses pooled output buffers instead",
    ),
    ("`x*a+b`, 16M f32, a, b scalars", "axpb_16m", "axpb_16m", ""),
    ("`sum(x*x)`, 16M f32", "sumsq_16m", "sumsq_16m", ""),
    ("tiny call `x*2+1`, 8 f32", "tiny_call", "tiny_call", "the cost of a call: dispatch, allocation"),
    ("`softmax(x, -1)`, 4096×1024", "softmax_rows", "softmax_rows", ""),
    (
        "`softmax(x, -1)`, 4096×1024, ours eager",
        "softmax_rows",
        "softmax_rows_eager",
        "ours: eager `jnp::softmax`, not jit",
    ),
    ("`logsumexp(x, -1)`, 4096×1024", "logsumexp_rows", "logsumexp_rows", ""),
    (
        "`logsumexp(x, -1)`, 4096×1024, ours eager",
        "logsumexp_rows",
        "logsumexp_rows_eager",
        "ours: eager `jnp::logsumexp_axis` (one text with jit, run by `Eager`), not jit",
    ),
    ("conv 5×5, 1→32, batch 128, 28×28, NHWC SAME", "conv_lenet_1_32", "conv_lenet_1_32", "jitted"),
    ("its vjp (input and kernel cotangents)", "conv_lenet_1_32_vjp", "conv_lenet_1_32_vjp", ""),
    (
        "same conv + bias + relu (a LeNet layer)",
        "conv_lenet_1_32_bias_relu",
        "conv_lenet_1_32_bias_relu",
        "ours: bias and relu in the conv's output write",
    ),
    ("conv 5×5, 32→64, batch 128, 14×14, NHWC SAME", "conv_lenet_32_64", "conv_lenet_32_64", ""),
    ("its vjp", "conv_lenet_32_64_vjp", "conv_lenet_32_64_vjp", ""),
    ("conv 3×3, 64→64, batch 8, 56×56 (ResNet block)", "conv_resnet_3x3_64", "conv_resnet_3x3_64", ""),
    ("its vjp", "conv_resnet_3x3_64_vjp", "conv_resnet_3x3_64_vjp", ""),
    ("matmul 1024×1024×1024", "matmul_1024", "matmul_1024", ""),
    ("matmul 256×784×512", "matmul_256_784_512", "matmul_256_784_512", ""),
    ("MLP forward 256×784→512→10", "mlp_forward", "mlp_forward", "`tanh(x@w1+b1)@w2+b2`"),
    (
        "MLP predict 128×64→256→10, imported jaxpr",
        "mlp_digits_predict",
        "mlp_digits_predict",
        "ours: `#[jax::jit(import = ..)]` of examples/from_python/mlp.jaxpr, what `jax.make_jaxpr` printed",
    ),
    ("`random.uniform` f32, 16M", "uniform_16m", "uniform_16m", "eager `jax::random::uniform`, bit-identical to JAX"),
    ("`random.normal` f32, 16M", "normal_16m", "normal_16m", "eager `jax::random::normal`, bit-identical to JAX"),
    (
        "`x + normal(k) * 0.1`, 16M f32",
        "noisy_16m",
        "noisy_16m",
        "jitted; ours computes the noise inside the add's loop",
    ),
    (
        "uniform f32, 16M, NumPy in the JAX column",
        "numpy_uniform_16m",
        "uniform_16m",
        "JAX column: NumPy `default_rng().random` (PCG64, one thread)",
    ),
    (
        "normal f32, 16M, NumPy in the JAX column",
        "numpy_normal_16m",
        "normal_16m",
        "JAX column: NumPy `default_rng().standard_normal` (ziggurat, one thread)",
    ),
    ("MLP loss (softmax cross-entropy)", "mlp_loss", "mlp_loss", "forward only"),
    (
        "MLP `value_and_grad` (4 parameter arrays)",
        "mlp_value_and_grad",
        "mlp_value_and_grad",
        "`argnums = (0, 1, 2, 3)`",
    ),
    ("`grad(sum(sin(x) * x))`, 16M f32", "grad_sin_times_x_16m", "grad_sin_times_x_16m", ""),
    ("`scan` of `tanh(W h + x_t)`, 10,000 steps, W 64×64", "rnn_scan_10k", "rnn_scan_10k", ""),
    ("the same through `fori_loop`, reading `xs[i]`", "rnn_fori_10k", "rnn_fori_10k", ""),
    (
        "`grad` of `sum(h_T)` of that scan w.r.t. `W`",
        "rnn_scan_grad_10k",
        "rnn_scan_grad_10k",
        "reverse mode: per-step residuals, reversed scan",
    ),
    (
        "per-example gradients, MLP 784-1024-1024-10, batch 128",
        "vmap_per_example_grads_mlp",
        "vmap_per_example_grads_mlp",
        "`vmap(grad(loss), (None, 0, 0))`, tanh; 944 MB of gradients per call",
    ),
    (
        "MNIST MLP training step (grad + adam), fused",
        "mnist_train_step_adam",
        "mnist_train_step_adam",
        "relu 784-1024-1024-10, batch 128; JAX: optax.adam(1e-3), donating params and state",
    ),
    (
        "its `value_and_grad` alone (no adam)",
        "mnist_value_and_grad",
        "mnist_value_and_grad",
        "the step's loss and gradient, parameters by reference",
    ),
    (
        "`jacrev` of `tanh(W x + b)`, 256→256",
        "vmap_jacrev_tanh_layer_256",
        "vmap_jacrev_tanh_layer_256",
        "ours: the companion `f::jacrev`",
    ),
    ("triad `x + y*1.5`, 16M f32", "triad_16m", "triad_16m", "bandwidth reference"),
    (
        "triad, 16M, no output allocation",
        "triad_16m_donated",
        "triad_16m_into",
        "JAX donating `x`; ours: plain Rust loop (rayon) into a buffer made once, not jit",
    ),
    ("`sum(x, -1)`, 4096×1024", "sum_rows_axis", "sum_rows_axis", ""),
    (
        "`sum(x, -1)`, 4096×1024, ours eager",
        "sum_rows_axis",
        "sum_rows_axis_eager",
        "ours: eager `jnp::sum_axis`, not jit",
    ),
    (
        "fluidsim: `simulate`, 10 unrolled steps on 32×32",
        "fluidsim_simulate",
        "fluidsim_simulate",
        "program `examples/fluidsim.rs` against its Python original (tests/fixtures/gen/fluidsim.py)",
    ),
    (
        "fluidsim: `value_and_grad` of its objective",
        "fluidsim_loss_and_grad",
        "fluidsim_loss_and_grad",
        "`argnums=(0, 1)`, what the example's optimizer calls",
    ),
    (
        "control: iLQR, 7 iterations, horizon 10",
        "control_ilqr",
        "control_ilqr",
        "program `examples/control.rs` against its Python original (tests/fixtures/gen/control.py)",
    ),
    (
        "control: MPC, iLQR at each of 10 steps",
        "control_mpc",
        "control_mpc",
        "`fori_loop`s three deep, `jacfwd` of `grad` under `vmap`, 1×1 `solve`s",
    ),
    (
        "kernel_lsq: one jitted momentum step",
        "kernel_lsq_update",
        "kernel_lsq_update",
        "program `examples/kernel_lsq.rs` against its Python original (tests/fixtures/gen/kernel_lsq.py), n = 100",
    ),
    (
        "advi: one jitted iteration (40-sample ELBO, its gradient, momentum)",
        "advi_update",
        "advi_update",
        "program `examples/advi.rs` against its Python original (tests/fixtures/gen/advi.py)",
    ),
    (
        "gaussian_process: `grad` of the negative marginal likelihood",
        "gaussian_process_grad",
        "gaussian_process_grad",
        "program `examples/gaussian_process.rs` against its Python original (tests/fixtures/gen/gaussian_process.py): 7 points, Cholesky and triangular solves",
    ),
    (
        "mnist_fromscratch: one jitted SGD step, MLP 64-1024-1024-10, batch 128",
        "mnist_fromscratch_update",
        "mnist_fromscratch_update",
        "program `examples/mnist_fromscratch.rs` against its Python original (tests/fixtures/gen/mnist_fromscratch.py)",
    ),
    (
        "mnist_classifier: one jitted momentum step, stax MLP 64-1024-1024-10 (relu), batch 128",
        "mnist_classifier_update",
        "mnist_classifier_update",
        "program `examples/mnist_classifier.rs` against its Python original (tests/fixtures/gen/mnist_classifier.py)",
    ),
    (
        "mnist_vae: one jitted epoch (`fori_loop` of 44 momentum steps, stax VAE 64-512-512-10)",
        "mnist_vae_epoch",
        "mnist_vae_epoch",
        "program `examples/mnist_vae.rs` against its Python original (tests/fixtures/gen/mnist_vae.py)",
    ),
    (
        "differentially_private_sgd: one jitted DP-SGD step (per-example gradients of a stax conv net on 28×28 images, clipped, noised), batch 128",
        "dp_sgd_private_update",
        "dp_sgd_private_update",
        "program `examples/dp_sgd.rs` against its Python original (tests/fixtures/gen/dp_sgd.py)",
    ),
]

# The suite's programs that time themselves (`cargo run --release --example
# NAME -- --bench`), and the rows each prints.
PROGRAMS = {
    "fluidsim": ("fluidsim_simulate", "fluidsim_loss_and_grad"),
    "control": ("control_ilqr", "control_mpc"),
    "kernel_lsq": ("kernel_lsq_update",),
    "advi": ("advi_update",),
    "gaussian_process": ("gaussian_process_grad",),
    "mnist_fromscratch": ("mnist_fromscratch_update",),
    "mnist_classifier": ("mnist_classifier_update",),
    "mnist_vae": ("mnist_vae_epoch",),
    "dp_sgd": ("dp_sgd_private_update",),
}

# Linear algebra, f32: (row label, JAX workload, NumPy workload, ours jitted,
# ours eager). JAX: `jax.jit` of the `jnp.linalg` function (jaxlib's LAPACK);
# NumPy: `np.linalg` (its OpenBLAS) on the same kind of input, timed by the
# same loop in the same Python process. Ours: a `#[jax::jit]` function calling
# `jnp::linalg::NAME`, and the eager `jnp::linalg::NAME`.
LINALG_ROWS = [
    (f"`{f}` {n}×{n}", f"linalg_{f}_{n}", f"numpy_linalg_{f}_{n}", f"linalg_{f}_{n}", f"linalg_{f}_{n}_eager")
    for f, sizes in (("cholesky", (512, 1024)), ("solve", (512, 1024)), ("inv", (512, 1024)),
                     ("eigh", (256, 512)), ("svd", (256, 512)))
    for n in sizes
] + [
    (
        "`cholesky`, 64 batched 32×32",
        "linalg_cholesky_batch_64x32",
        "numpy_linalg_cholesky_batch_64x32",
        "linalg_cholesky_batch_64x32",
        "linalg_cholesky_batch_64x32_eager",
    ),
]

# FLOPs per call of the matmul-bound rows (ours workload name; the JAX one
# computes the same), each multiply-add two FLOPs: a product m×k×n is 2mkn.
def _mlp_grad_flops(batch, dims):
    """Forward, then for each layer the weight gradient, and the input
    gradient of every layer but the first (the data needs none)."""
    layers = sum(a * b for a, b in zip(dims, dims[1:]))
    return 2 * batch * (2 * layers + layers - dims[0] * dims[1])


FLOPS = {
    "matmul_1024": 2 * 1024**3,
    "matmul_256_784_512": 2 * 256 * 784 * 512,
    "mlp_forward": 2 * 256 * (784 * 512 + 512 * 10),
    "mlp_digits_predict": 2 * 128 * (64 * 256 + 256 * 10),
    "mlp_loss": 2 * 256 * (784 * 512 + 512 * 10),
    "mlp_value_and_grad": _mlp_grad_flops(256, (784, 512, 10)),
    "mnist_train_step_adam": _mlp_grad_flops(128, (784, 1024, 1024, 10)),
    "mnist_value_and_grad": _mlp_grad_flops(128, (784, 1024, 1024, 10)),
}

# Bytes a streaming workload must move per call (inputs read, output written).
STREAMING = [
    ("tanh chain 16M", "tanh_chain_16m", "tanh_chain_16m", 2 * M16 * F32),
    ("`x*a+b` 16M", "axpb_16m", "axpb_16m", 2 * M16 * F32),
    ("`sum(x*x)` 16M", "sumsq_16m", "sumsq_16m", 1 * M16 * F32),
    ("triad 16M", "triad_16m", "triad_16m", 3 * M16 * F32),
    ("triad 16M, no output allocation", "triad_16m_donated", "triad_16m_into", 3 * M16 * F32),
]


def parse_args(argv):
    rounds, out, rest = 3, None, []
    for a in argv:
        if a in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if a.startswith("--rounds="):
            rounds = int(a.split("=", 1)[1])
        elif a.startswith("--out="):
            out = Path(a.split("=", 1)[1])
        else:
            rest.append(a)
    timing, name_filter = jax_workloads.parse_args(rest)
    if out is None and not name_filter:
        out = HERE / "results.md"
    return rounds, out, timing, name_filter


def timing_flags(t):
    return [
        f"--budget={t.budget}",
        f"--warmup={t.warmup}",
        f"--min-samples={t.min_samples}",
        f"--max-samples={t.max_samples}",
    ]


def cargo_bench(args):
    cmd = ["cargo", "bench", "-q", "--bench", "workloads", *args]
    return subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout


def run_program(name, timing):
    cmd = [str(ROOT / "target" / "release" / "examples" / name), "--bench", *timing_flags(timing)]
    return subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout


def programs_only(name_filter):
    """Whether FILTER names only rows the programs time (no need to build
    `workloads.rs`)."""
    rows = {r for rs in PROGRAMS.values() for r in rs}
    names = {o for _, _, o, _ in ROWS if o} | {n for r in LINALG_ROWS for n in r[3:] if n}
    return bool(name_filter) and not any(name_filter in n for n in names - rows)


def run_rust(timing, name_filter):
    out = ""
    if not programs_only(name_filter):
        out = cargo_bench(["--", *([name_filter] if name_filter else []), *timing_flags(timing)])
    for program, rows in PROGRAMS.items():
        if not name_filter or any(name_filter in r for r in rows):
            out += run_program(program, timing)
    results = {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            results[r.pop("name")] = r
    return results


def combine(rounds):
    """Per workload: the median of the round medians, their spread, total samples."""
    merged = {}
    for name in {n for r in rounds for n in r}:
        stats = [r[name] for r in rounds if name in r]
        medians = [s["median_ms"] for s in stats]
        merged[name] = {
            "median_ms": statistics.median(medians),
            "lo_ms": min(medians),
            "hi_ms": max(medians),
            "samples": sum(s["samples"] for s in stats),
            "rounds": len(stats),
            **({"donation_used": stats[-1]["donation_used"]} if "donation_used" in stats[-1] else {}),
            **{k: stats[-1][k] for k in ("flops", "simd_width", "threads") if k in stats[-1]},
            **({"min_ms": min(s["min_ms"] for s in stats)} if all("min_ms" in s for s in stats) else {}),
        }
    return merged


def fmt_ms(v):
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def peak_gflops(ours_r):
    """The measured f32 FMA peak in GFLOP/s (benches/peak.rs): its fastest
    call over all rounds (load only ever slows a call down), or None."""
    p = ours_r.get("fma_peak")
    return p["flops"] / (p.get("min_ms", p["median_ms"]) * 1e-3) / 1e9 if p else None


def gflops_cell(name, j, o, peak):
    """`JAX / ours` GFLOP/s of a matmul-bound row, with % of the peak."""
    if name not in FLOPS:
        return ""
    def one(r):
        if not r:
            return "–"
        g = FLOPS[name] / (r["median_ms"] * 1e-3) / 1e9
        return f"{g:.0f} ({100 * g / peak:.0f} %)" if peak else f"{g:.0f}"
    return f"{one(j)} / {one(o)}"


def cmd_out(cmd):
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def markdown(jax_r, ours_r, timing, rounds, load_before, load_after, wall):
    lines = []
    w = lines.append
    w("# `#[jax::jit]` against JAX on CPU")
    w("")
    w("Written by `python3 benches/compare.py`; rerun it to refresh. Times are per call, in ms.")
    w("")
    w(f"- machine: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu_model()}")
    peak = peak_gflops(ours_r)
    if peak:
        p = ours_r["fma_peak"]
        w(
            f"- f32 FMA peak, measured: **{peak:.0f} GFLOP/s** ({p['threads']} threads × "
            f"12 independent FMA chains of {p['simd_width']} lanes, fastest call; benches/peak.rs)"
        )
    w(f"- JAX {jax.__version__}, jaxlib {jaxlib.__version__}, backend {jax.default_backend()}")
    w(f"- {cmd_out(['rustc', '-V'])}; commit {cmd_out(['git', 'describe', '--always', '--dirty'])}")
    w(f"- date (UTC): {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M')}")
    w(f"- load average (1, 5, 15 min) before / after: {load_before} / {load_after} (a shared machine)")
    w(
        f"- timing, both sides alike: {timing.warmup} warm-up calls, then timed calls until "
        f"at least {timing.min_samples} samples and {timing.budget:g} s (at most "
        f"{timing.max_samples} samples); median per round; {rounds} rounds, each running ours "
        f"then JAX; the table shows the median of the round medians, and `n` the samples "
        f"over all rounds. Whole run: {wall:.0f} s."
    )
    w("- JAX side: `jax.jit`, inputs built once, each timed call ends in `block_until_ready()`.")
    w("  Ours: the `#[jax::jit]` function; dropping the result is inside the timing, as in Python.")
    w("")
    w(
        "| workload | JAX ms | ours ms | JAX/ours | GFLOP/s (% of peak) JAX / ours "
        "| JAX rounds, min–max | ours rounds, min–max | n JAX / ours | note |"
    )
    w("|---|---:|---:|---:|---|---|---|---|---|")
    for label, jname, oname, note in ROWS:
        j = jax_r.get(jname)
        o = ours_r.get(oname) if oname else None
        if j is None and o is None:
            continue
        js = fmt_ms(j["median_ms"]) if j else "–"
        os_ = fmt_ms(o["median_ms"]) if o else "not yet"
        ratio = f"{j['median_ms'] / o['median_ms']:.2f}" if (j and o) else "–"
        jspread = f"{fmt_ms(j['lo_ms'])}–{fmt_ms(j['hi_ms'])}" if j else "–"
        ospread = f"{fmt_ms(o['lo_ms'])}–{fmt_ms(o['hi_ms'])}" if o else "–"
        n = f"{j['samples'] if j else '–'} / {o['samples'] if o else '–'}"
        if j and j.get("donation_used") is False:
            note = (note + "; " if note else "") + "JAX did not use the donated buffer"
        g = gflops_cell(oname, j, o, peak)
        w(f"| {label} | {js} | {os_} | {ratio} | {g} | {jspread} | {ospread} | {n} | {note} |")
    w("")
    w("JAX/ours above 1 means ours is faster.")
    w("")
    linalg_table(w, jax_r, ours_r)
    streaming = [(l, b, jax_r.get(jk), ours_r.get(ok)) for l, jk, ok, b in STREAMING]
    if any(j or o for _, _, j, o in streaming):
        w("Streaming workloads as bandwidth (bytes that must move per call / median time):")
        w("")
        w("| workload | MB per call | JAX GB/s | ours GB/s |")
        w("|---|---:|---:|---:|")
        for label, b, j, o in streaming:
            if not (j or o):
                continue
            gbs = lambda r: f"{b / (r['median_ms'] * 1e-3) / 1e9:.1f}" if r else "–"  # noqa: E731
            w(f"| {label} | {b / 1e6:.0f} | {gbs(j)} | {gbs(o)} |")
        w("")
    if not any(k.endswith("_donated") for k in jax_r):
        return "\n".join(lines) + "\n"
    w("Donation: `jax.jit(f, donate_argnums=0)` consumes its input, so before every call")
    w("(warm-up ones too) a fresh on-device copy of `x` is made and made ready outside the")
    w("timing; the timed call may then write its result into that buffer instead of")
    w("allocating and faulting in 64 MB. Ours has no donation, so the tanh row compares JAX")
    w("donating against ours allocating its output; the second triad row has no allocation")
    w("on either side (ours: a plain rayon loop into a buffer made once, not jit).")
    return "\n".join(lines) + "\n"


def linalg_table(w, jax_r, ours_r):
    """The linear-algebra rows: JAX and NumPy against ours, jitted and eager;
    the ratios use the faster of our two paths (what a user can get)."""
    rows = [r for r in LINALG_ROWS if any(k in jax_r or k in ours_r for k in (r[1], r[2])) or r[3] in ours_r]
    if not rows:
        return
    w("Linear algebra (float32; solve's right-hand side a vector; svd with `full_matrices=True`):")
    w("")
    w("| workload | JAX ms | NumPy ms | ours jit ms | ours eager ms | JAX/ours | NumPy/ours | JAX rounds, min–max | ours (best) rounds, min–max |")
    w("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for label, jname, nname, jit_name, eager_name in rows:
        j, npy = jax_r.get(jname), jax_r.get(nname)
        oj, oe = ours_r.get(jit_name), ours_r.get(eager_name)
        best = min((o for o in (oj, oe) if o), key=lambda o: o["median_ms"], default=None)
        ms = lambda r: fmt_ms(r["median_ms"]) if r else "–"  # noqa: E731
        ratio = lambda r: f"{r['median_ms'] / best['median_ms']:.2f}" if (r and best) else "–"  # noqa: E731
        spread = lambda r: f"{fmt_ms(r['lo_ms'])}–{fmt_ms(r['hi_ms'])}" if r else "–"  # noqa: E731
        w(f"| {label} | {ms(j)} | {ms(npy)} | {ms(oj)} | {ms(oe)} | {ratio(j)} | {ratio(npy)} | {spread(j)} | {spread(best)} |")
    w("")


def progress(side, name, s):
    print(f"  {side} {name}: median {s['median_ms']:.3f} ms, n={s['samples']}", file=sys.stderr)


def main():
    rounds, out, timing, name_filter = parse_args(sys.argv[1:])
    if not programs_only(name_filter):
        print("building: cargo bench --bench workloads --no-run (release)", file=sys.stderr)
    if not programs_only(name_filter):
        subprocess.run(["cargo", "bench", "--bench", "workloads", "--no-run"], cwd=ROOT, check=True)
    for program, rows in PROGRAMS.items():
        if not name_filter or any(name_filter in r for r in rows):
            print(f"building: cargo build --release --example {program}", file=sys.stderr)
            subprocess.run(["cargo", "build", "--release", "--example", program], cwd=ROOT, check=True)
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    start = time.perf_counter()
    ours, theirs = [], []
    for r in range(rounds):
        print(f"round {r + 1}/{rounds}: ours", file=sys.stderr)
        ours.append(run_rust(timing, name_filter))
        if "fma_peak" not in ours[-1] and not programs_only(name_filter):
            # The peak is measured every round, whatever the filter.
            ours[-1].update(run_rust(timing, "fma_peak"))
        for name, s in ours[-1].items():
            progress("ours", name, s)
        print(f"round {r + 1}/{rounds}: JAX", file=sys.stderr)
        theirs.append(jax_workloads.run(timing, name_filter, emit=lambda n, s: progress("JAX", n, s)))
    wall = time.perf_counter() - start
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    md = markdown(combine(theirs), combine(ours), timing, rounds, load_before, load_after, wall)
    print(md)
    if out is not None:
        out.write_text(md)
        print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
