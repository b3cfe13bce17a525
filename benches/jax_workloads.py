"""The workloads of `benches/workloads.rs`, in JAX on CPU, timed the same way.

Run alone it prints one JSON line per workload, like the Rust side:

    python3 benches/jax_workloads.py [FILTER] [--budget=S] [--warmup=N]
                                     [--min-samples=N] [--max-samples=N]

`benches/compare.py` imports it and puts both sides in one table.

Every function is `jax.jit`-compiled, its inputs are created once (same shapes
and dtypes as the Rust side, uniform in [-1, 1) like its xorshift fill, though
not the same numbers), and `Timing.run` mirrors `Timing::run` in
`workloads.rs`: untimed warm-up calls (the first one compiles), then timed calls
until there are `min_samples` and the budget is spent, or `max_samples`; each
timed call ends with `block_until_ready()`, and the median is reported.
"""

import gc
import importlib
import json
import os
import sys
import time

# Must be set before jax is imported: the CPU backend, and nothing else probed.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

M1 = 1 << 20
M16 = 1 << 24


class Timing:
    """How every workload is timed; the same fields as `Timing` in workloads.rs."""

    def __init__(self, warmup=3, min_samples=10, max_samples=1000, budget=2.0):
        self.warmup = warmup
        self.min_samples = min_samples
        self.max_samples = max_samples
        self.budget = budget

    def run(self, call, before=None):
        """Order statistics (ms) of `call()`; `before()`, if given, runs untimed
        ahead of every call (warm-up ones too) and its result is `call`'s argument."""
        prep = before or (lambda: None)
        for _ in range(self.warmup):
            call(prep())
        samples = []
        # A collection in the middle of a sample would be charged to JAX.
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            while len(samples) < self.min_samples or (
                time.perf_counter() - start < self.budget and len(samples) < self.max_samples
            ):
                arg = prep()
                t = time.perf_counter()
                call(arg)
                samples.append((time.perf_counter() - t) * 1e3)
        finally:
            gc.enable()
        samples.sort()
        n = len(samples)
        # The same definitions as workloads.rs.
        median = samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) / 2
        rank = lambda q: samples[int(round((n - 1) * q))]  # noqa: E731
        return {
            "median_ms": median,
            "q1_ms": rank(0.25),
            "q3_ms": rank(0.75),
            "min_ms": samples[0],
            "samples": n,
            "warmup": self.warmup,
            "budget_s": self.budget,
        }


def _uniform(rng, *shape):
    return jnp.asarray(rng.uniform(-1.0, 1.0, size=shape).astype(np.float32))


def conv_nhwc(x, w):
    return jax.lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def conv_bias_relu(x, w, b):
    return jax.nn.relu(conv_nhwc(x, w) + b)


def conv_nhwc_vjp(x, w, g):
    return jax.vjp(conv_nhwc, x, w)[1](g)


def tanh_chain(x):
    return jnp.tanh(x * 1.5 + 0.5) * 2


def axpb(x, a, b):
    return x * a + b


def tiny_call(x):
    return x * 2.0 + 1.0


def sumsq(x):
    return jnp.sum(x * x)


def triad(x, y):
    return x + y * 1.5


def softmax_rows(x):
    return jax.nn.softmax(x, axis=-1)


def logsumexp_rows(x):
    return jax.nn.logsumexp(x, axis=-1)


def matmul(a, b):
    return a @ b


def mlp_forward(x, w1, b1, w2, b2):
    return jnp.tanh(x @ w1 + b1) @ w2 + b2


def mlp_digits_predict(params, x):
    """examples/from_python/train_mlp.py's `predict`, the same function the
    Rust side imports as a jaxpr: params a dict of b1, b2, w1, w2."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def mlp_loss(w1, b1, w2, b2, x, y):
    h = jnp.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits, -1) * y, -1))


def one_hot_rows(n=256):
    return jnp.asarray(np.eye(10, dtype=np.float32)[np.arange(n) % 10])


def mlp3_loss_one(p, x, y):
    """Softmax cross-entropy of one example, MLP 784-1024-1024-10."""
    w1, b1, w2, b2, w3, b3 = p
    h1 = jnp.tanh(x @ w1 + b1)
    h2 = jnp.tanh(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    return -jnp.sum(jax.nn.log_softmax(logits, -1) * y)


def per_example_grads(p, xs, ys):
    return jax.vmap(jax.grad(mlp3_loss_one), (None, 0, 0))(p, xs, ys)


def mnist_loss(p, x, y):
    """Softmax cross-entropy of JAX's examples/mnist_classifier.py: relu MLP
    784-1024-1024-10, mean over the batch."""
    w1, b1, w2, b2, w3, b3 = p
    h1 = jax.nn.relu(x @ w1 + b1)
    h2 = jax.nn.relu(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits, -1) * y, -1))


def mnist_train_step(make_params, make_x, make_y):
    """The fused training step as a JAX user writes it: value_and_grad, then
    optax.adam(1e-3), apply_updates, one jitted function that donates the
    parameters and the optimizer state. Each timed call feeds the previous
    call's results back in (a training loop), so donation is real."""

    def thunk(t):
        import optax  # only this row needs it: `pip install optax`

        opt = optax.adam(1e-3)

        def step(params, opt_state, x, y):
            loss, grads = jax.value_and_grad(mnist_loss)(params, x, y)
            updates, opt_state = opt.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

        f = jax.jit(step, donate_argnums=(0, 1))
        params = jax.block_until_ready(make_params())
        x, y = make_x().block_until_ready(), make_y().block_until_ready()
        carry = [params, jax.block_until_ready(opt.init(params))]

        def call(_):
            p, s, loss = jax.block_until_ready(f(carry[0], carry[1], x, y))
            carry[0], carry[1] = p, s

        stats = t.run(call)
        before = carry[0]
        call(None)
        stats["donation_used"] = all(a.is_deleted() for a in before)
        return stats

    return thunk


def tanh_layer(x, w, b):
    return jnp.tanh(w @ x + b)


def rnn_scan(w, xs, h):
    return jax.lax.scan(lambda h, x: (jnp.tanh(w @ h + x), 0.0), h, xs)[0]


def rnn_fori(w, xs, h):
    return jax.lax.fori_loop(0, xs.shape[0], lambda i, h: jnp.tanh(w @ h + xs[i]), h)


def rnn_loss(w, xs, h):
    return jnp.sum(rnn_scan(w, xs, h))


def noisy(x, k):
    return x + jax.random.normal(k, x.shape, jnp.float32) * 0.1


def _spd(rng, n, batch=()):
    """A well-conditioned symmetric positive definite matrix (or a batch):
    m mᵀ / n + I with m uniform in [-1, 1), as float32 NumPy."""
    m = rng.uniform(-1.0, 1.0, size=(*batch, n, n)).astype(np.float32)
    return (m @ np.swapaxes(m, -1, -2) / n + np.eye(n, dtype=np.float32)).astype(np.float32)


def _symmetric(rng, n):
    m = rng.uniform(-1.0, 1.0, size=(n, n)).astype(np.float32)
    return ((m + m.T) / 2).astype(np.float32)


def _general(rng, n):
    return rng.uniform(-1.0, 1.0, size=(n, n)).astype(np.float32)


def linalg_workloads(rng):
    """The linear-algebra rows: each as (name, make inputs as NumPy float32
    arrays, JAX function, NumPy function). JAX runs jitted on device copies
    (jaxlib's LAPACK on CPU); NumPy runs `np.linalg` on the NumPy arrays
    (its bundled OpenBLAS/LAPACK, which may use several threads)."""
    rows = []
    for n in (512, 1024):
        rows.append((f"linalg_cholesky_{n}", lambda n=n: (_spd(rng, n),), jnp.linalg.cholesky, np.linalg.cholesky))
        rows.append((
            f"linalg_solve_{n}",
            lambda n=n: (_general(rng, n), rng.uniform(-1.0, 1.0, size=n).astype(np.float32)),
            jnp.linalg.solve,
            np.linalg.solve,
        ))
        rows.append((f"linalg_inv_{n}", lambda n=n: (_general(rng, n),), jnp.linalg.inv, np.linalg.inv))
    for n in (256, 512):
        rows.append((f"linalg_eigh_{n}", lambda n=n: (_symmetric(rng, n),), jnp.linalg.eigh, np.linalg.eigh))
        # full_matrices=True and compute_uv=True: both libraries' defaults.
        rows.append((f"linalg_svd_{n}", lambda n=n: (_general(rng, n),), jnp.linalg.svd, np.linalg.svd))
    rows.append(("linalg_pinv_256", lambda: (_general(rng, 256),), jnp.linalg.pinv, np.linalg.pinv))
    rows.append((
        "linalg_lstsq_512x64",
        lambda: (
            rng.uniform(-1.0, 1.0, size=(512, 64)).astype(np.float32),
            rng.uniform(-1.0, 1.0, size=(512, 4)).astype(np.float32),
        ),
        lambda a, b: jnp.linalg.lstsq(a, b)[0],
        lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
    ))
    rows.append((
        "linalg_cholesky_batch_64x32",
        lambda: (_spd(rng, 32, (64,)),),
        jnp.linalg.cholesky,
        np.linalg.cholesky,
    ))
    return rows


def workloads():
    """(name, thunk) pairs; a thunk builds the inputs and returns a timing
    function `timing -> stats`, so inputs of one workload are freed before the
    next is built."""
    rng = np.random.default_rng(0)

    def plain(fn, *make, static=None):
        def thunk(t):
            args = [m() for m in make]
            for a in args:
                if hasattr(a, "block_until_ready"):
                    a.block_until_ready()
            f = jax.jit(fn) if static is None else jax.jit(fn, static_argnums=static)
            # block_until_ready on the whole result (value_and_grad gives a tuple).
            return t.run(lambda _: jax.block_until_ready(f(*args)))

        return thunk

    def step(name, fn, nargs):
        # A program's jitted step (a function of its generator, by name, or
        # made from the module) on the first `nargs` of its `inputs()`.
        p = program(name)
        f = getattr(p, fn) if isinstance(fn, str) else fn(p)
        return plain(f, *[lambda k=k: p.inputs()[k] for k in range(nargs)])

    def donated(fn, *make_rest):
        # Donation consumes the first argument, so every call needs its own: an
        # on-device copy of `x` made before the clock starts. Its allocation and
        # page-ins are not timed, just as the input of an undonated call is not.
        def thunk(t):
            x = _uniform(rng, M16).block_until_ready()
            rest = [m().block_until_ready() for m in make_rest]
            f = jax.jit(fn, donate_argnums=0)

            def fresh():
                return x.copy().block_until_ready()

            stats = t.run(lambda xi: f(xi, *rest).block_until_ready(), before=fresh)
            probe = fresh()
            f(probe, *rest).block_until_ready()
            stats["donation_used"] = probe.is_deleted()
            return stats

        return thunk

    def sampler(draw):
        # A key argument (not a constant), as the Rust side passes one.
        def thunk(t):
            key = jax.random.key(0)
            f = jax.jit(draw)
            return t.run(lambda _: f(key).block_until_ready())

        return thunk

    def numpy_sampler(draw):
        # NumPy's default generator (PCG64), single-threaded: a reference
        # point for a fast CPU generator, not JAX.
        def thunk(t):
            gen = np.random.default_rng(0)
            return t.run(lambda _: draw(gen))

        return thunk

    def jax_linalg(fn, make):
        def thunk(t):
            args = [jnp.asarray(a).block_until_ready() for a in make()]
            f = jax.jit(fn)
            return t.run(lambda _: jax.block_until_ready(f(*args)))

        return thunk

    def numpy_linalg(fn, make):
        def thunk(t):
            args = make()
            return t.run(lambda _: fn(*args))

        return thunk

    linalg = []
    for name, make, jax_fn, np_fn in linalg_workloads(rng):
        linalg.append((name, jax_linalg(jax_fn, make)))
        linalg.append(("numpy_" + name, numpy_linalg(np_fn, make)))

    u = lambda *shape: lambda: _uniform(rng, *shape)  # noqa: E731
    return linalg + [
        ("tanh_chain_1m", plain(tanh_chain, u(M1))),
        ("tanh_chain_16m", plain(tanh_chain, u(M16))),
        ("tanh_chain_16m_donated", donated(tanh_chain)),
        # a and b are Python floats, weakly typed as in Rust; traced, not static,
        # like the Rust f32 arguments.
        ("axpb_16m", plain(axpb, u(M16), lambda: 1.5, lambda: 0.5)),
        ("tiny_call", plain(tiny_call, u(8))),
        ("sumsq_16m", plain(sumsq, u(M16))),
        ("triad_16m", plain(triad, u(M16), u(M16))),
        ("triad_16m_donated", donated(triad, u(M16))),
        ("softmax_rows", plain(softmax_rows, u(4096, 1024))),
        ("logsumexp_rows", plain(logsumexp_rows, u(4096, 1024))),
        ("conv_lenet_1_32", plain(conv_nhwc, u(128, 28, 28, 1), u(5, 5, 1, 32))),
        ("conv_lenet_1_32_bias_relu", plain(conv_bias_relu, u(128, 28, 28, 1), u(5, 5, 1, 32), u(32))),
        ("conv_lenet_32_64", plain(conv_nhwc, u(128, 14, 14, 32), u(5, 5, 32, 64))),
        ("conv_resnet_3x3_64", plain(conv_nhwc, u(8, 56, 56, 64), u(3, 3, 64, 64))),
        ("conv_lenet_1_32_vjp", plain(conv_nhwc_vjp, u(128, 28, 28, 1), u(5, 5, 1, 32), u(128, 28, 28, 32))),
        ("conv_lenet_32_64_vjp", plain(conv_nhwc_vjp, u(128, 14, 14, 32), u(5, 5, 32, 64), u(128, 14, 14, 64))),
        ("conv_resnet_3x3_64_vjp", plain(conv_nhwc_vjp, u(8, 56, 56, 64), u(3, 3, 64, 64), u(8, 56, 56, 64))),
        ("matmul_1024", plain(matmul, u(1024, 1024), u(1024, 1024))),
        ("matmul_256_784_512", plain(matmul, u(256, 784), u(784, 512))),
        ("mlp_forward", plain(mlp_forward, u(256, 784), u(784, 512), u(512), u(512, 10), u(10))),
        (
            "mlp_digits_predict",
            plain(
                mlp_digits_predict,
                lambda: jax.block_until_ready({
                    "b1": _uniform(rng, 256) * 0.1,
                    "b2": _uniform(rng, 10) * 0.1,
                    "w1": _uniform(rng, 64, 256) / 8,
                    "w2": _uniform(rng, 256, 10) / 16,
                }),
                u(128, 64),
            ),
        ),
        ("noisy_16m", plain(noisy, u(M16), lambda: jax.random.key(0))),
        ("mlp_loss", plain(mlp_loss, u(784, 512), u(512), u(512, 10), u(10), u(256, 784), one_hot_rows)),
        (
            "mlp_value_and_grad",
            plain(
                jax.value_and_grad(mlp_loss, argnums=(0, 1, 2, 3)),
                u(784, 512), u(512), u(512, 10), u(10), u(256, 784), one_hot_rows,
            ),
        ),
        ("rnn_scan_10k", plain(rnn_scan, lambda: _uniform(rng, 64, 64) / 8, u(10000, 64), u(64))),
        ("rnn_fori_10k", plain(rnn_fori, lambda: _uniform(rng, 64, 64) / 8, u(10000, 64), u(64))),
        (
            "rnn_scan_grad_10k",
            plain(jax.grad(rnn_loss), lambda: _uniform(rng, 64, 64) / 8, u(10000, 64), u(64)),
        ),
        (
            "vmap_per_example_grads_mlp",
            plain(
                per_example_grads,
                lambda: (
                    _uniform(rng, 784, 1024) / 28,
                    _uniform(rng, 1024) * 0.1,
                    _uniform(rng, 1024, 1024) / 32,
                    _uniform(rng, 1024) * 0.1,
                    _uniform(rng, 1024, 10) / 32,
                    _uniform(rng, 10) * 0.1,
                ),
                u(128, 784),
                lambda: one_hot_rows(128),
            ),
        ),
        (
            "mnist_train_step_adam",
            mnist_train_step(
                lambda: (
                    _uniform(rng, 784, 1024) / 28,
                    _uniform(rng, 1024) * 0.1,
                    _uniform(rng, 1024, 1024) / 32,
                    _uniform(rng, 1024) * 0.1,
                    _uniform(rng, 1024, 10) / 32,
                    _uniform(rng, 10) * 0.1,
                ),
                u(128, 784),
                lambda: one_hot_rows(128),
            ),
        ),
        (
            "mnist_value_and_grad",
            plain(
                jax.value_and_grad(mnist_loss),
                lambda: (
                    _uniform(rng, 784, 1024) / 28,
                    _uniform(rng, 1024) * 0.1,
                    _uniform(rng, 1024, 1024) / 32,
                    _uniform(rng, 1024) * 0.1,
                    _uniform(rng, 1024, 10) / 32,
                    _uniform(rng, 10) * 0.1,
                ),
                u(128, 784),
                lambda: one_hot_rows(128),
            ),
        ),
        (
            "vmap_jacrev_tanh_layer_256",
            plain(jax.jacrev(tanh_layer), u(256), lambda: _uniform(rng, 256, 256) / 16, lambda: _uniform(rng, 256) * 0.1),
        ),
        ("grad_sin_times_x_16m", plain(jax.grad(lambda x: jnp.sum(jnp.sin(x) * x)), u(M16))),
        ("uniform_16m", sampler(lambda k: jax.random.uniform(k, (M16,), jnp.float32))),
        ("normal_16m", sampler(lambda k: jax.random.normal(k, (M16,), jnp.float32))),
        ("numpy_uniform_16m", numpy_sampler(lambda g: g.random(M16, dtype=np.float32))),
        ("numpy_normal_16m", numpy_sampler(lambda g: g.standard_normal(M16, dtype=np.float32))),
        ("sum_rows_axis", plain(lambda x: jnp.sum(x, axis=-1), u(4096, 1024))),
        # The suite's programs: the Python original of each, from its
        # fixture generator, on the inputs the Rust program uses.
        ("fluidsim_simulate", step("fluidsim", "simulate", 3)),
        ("fluidsim_loss_and_grad", step("fluidsim", lambda p: jax.value_and_grad(p.objective, argnums=(0, 1)), 4)),
        ("control_ilqr", step("control", "ilqr_run", 2)),
        ("control_mpc", step("control", "mpc_run", 2)),
        ("kernel_lsq_update", step("kernel_lsq", "update_run", 4)),
        ("advi_update", step("advi", "update_run", 2)),
        ("mnist_fromscratch_update", step("mnist_fromscratch", "update_run", 2)),
        ("mnist_classifier_update", step("mnist_classifier", "update_run", 2)),
        ("mnist_vae_epoch", step("mnist_vae", "run_epoch_run", 2)),
        ("dp_sgd_private_update", step("dp_sgd", "update_run", 2)),
        ("gaussian_process_grad", step("gaussian_process", "grad_run", 3)),
    ]


def program(name):
    """The Python original of the suite's program `name`: its fixture
    generator, tests/fixtures/gen/NAME.py (JAX's examples/NAME.py, or the
    example it names in its docstring), imported without running it."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "gen"))
    return importlib.import_module(name)


def print_json(name, stats):
    print(json.dumps({"name": name, **stats}), flush=True)


def run(timing, name_filter=None, emit=print_json):
    """Runs the workloads whose names contain `name_filter`; returns
    {name: stats}, and hands each to `emit(name, stats)` as it finishes
    (by default a JSON line on stdout, like the Rust side)."""
    results = {}
    for name, thunk in workloads():
        if name_filter and name_filter not in name:
            continue
        stats = thunk(timing)
        results[name] = stats
        emit(name, stats)
    return results


def parse_args(argv):
    """FILTER and --key=value flags, as the Rust side takes them."""
    flags = {"budget": 2.0, "warmup": 3, "min-samples": 10, "max-samples": 1000}
    name_filter = None
    for a in argv:
        if a in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            if k not in flags:
                sys.exit(f"unknown flag --{k}")
            flags[k] = type(flags[k])(v)
        elif not a.startswith("-"):
            name_filter = a
    timing = Timing(
        warmup=flags["warmup"],
        min_samples=flags["min-samples"],
        max_samples=flags["max-samples"],
        budget=flags["budget"],
    )
    return timing, name_filter


if __name__ == "__main__":
    t, f = parse_args(sys.argv[1:])
    run(t, f)
