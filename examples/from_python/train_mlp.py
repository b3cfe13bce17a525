"""Trains a small MLP on scikit-learn's digits in JAX and exports its
`predict` for Rust's `#[jax::jit(import = "...")]`.

Run from the repository root (pip install jax scikit-learn optax safetensors):

    python3 examples/from_python/train_mlp.py

The data: `sklearn.datasets.load_digits` (1797 8x8 images, pixels 0..16,
scaled by 1/16 to [0, 1], flattened to 64 features), split 75/25 into
train and test with `train_test_split(..., random_state=0, stratify=y)`.
The model: 64 -> 256 (tanh) -> 10 logits, parameters a flat dict
{"w1": f32[64,256], "b1": f32[256], "w2": f32[256,10], "b2": f32[10]},
initialised from `jax.random.key(0)` and trained with optax's adam
(learning rate 0.01) for 300 full-batch steps on the softmax cross-entropy.
It prints the test accuracy.

Then `python/export_jax.py` writes, next to this script:

- `mlp.jaxpr`: `str(jax.make_jaxpr(predict)(params, x))` for a batch of
  exactly 128 images (x: f32[128,64]); its inputs are the parameters'
  leaves in JAX's order, which sorts dict keys (b1, b2, w1, w2), then x;
- `mlp.safetensors`: the trained parameters, named b1, b2, w1, w2;
- `mlp_io.safetensors` (written here): `x`, the first 128 test images
  (f32[128,64]); `logits`, `jax.jit(predict)(params, x)` (f32[128,10]);
  `labels`, their labels (i32[128]);

and the script prints the suggested Rust declaration.
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import optax
from safetensors.numpy import load_file, save_file
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import export_jax  # noqa: E402

BATCH = 128
HIDDEN = 256
STEPS = 300
LEARNING_RATE = 0.01
# Paths as the Rust side names them (relative to the repository root, the
# directory this script runs from).
STEM = "examples/from_python/mlp"
IO_PATH = "examples/from_python/mlp_io.safetensors"


def predict(params, x):
    """The logits of a batch of images x: f32[batch, 64]."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def loss(params, x, y):
    logits = predict(params, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def init(key):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (64, HIDDEN), jnp.float32) / np.sqrt(64.0),
        "b1": jnp.zeros(HIDDEN, jnp.float32),
        "w2": jax.random.normal(k2, (HIDDEN, 10), jnp.float32) / np.sqrt(float(HIDDEN)),
        "b2": jnp.zeros(10, jnp.float32),
    }


def accuracy(params, x, y):
    return float(jnp.mean(jnp.argmax(jax.jit(predict)(params, x), -1) == y))


def main():
    if not os.path.isdir(os.path.join("examples", "from_python")):
        sys.exit("run from the repository root: python3 examples/from_python/train_mlp.py")
    digits = load_digits()
    x = (digits.images.reshape(-1, 64) / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)

    params = init(jax.random.key(0))
    opt = optax.adam(LEARNING_RATE)
    state = opt.init(params)

    @jax.jit
    def step(params, state, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    for i in range(STEPS):
        params, state, value = step(params, state, x_train, y_train)
        if i % 100 == 0 or i == STEPS - 1:
            print(f"step {i:3d}: train loss {float(value):.4f}")
    print(f"train accuracy {accuracy(params, x_train, y_train):.4f} ({len(y_train)} images)")
    print(f"test accuracy  {accuracy(params, x_test, y_test):.4f} ({len(y_test)} images)")

    xb, yb = x_test[:BATCH], y_test[:BATCH]
    # The path as examples/from_python.rs writes it: relative to that file.
    decl = export_jax.export(predict, (params, jnp.asarray(xb)), STEM, params_arg=0,
                             import_path="from_python/mlp.jaxpr")
    logits = np.asarray(jax.jit(predict)(params, xb))
    save_file({"x": np.ascontiguousarray(xb), "logits": logits, "labels": yb.astype(np.int32)}, IO_PATH)

    # The files read back as written.
    saved = load_file(STEM + ".safetensors")
    assert sorted(saved) == ["b1", "b2", "w1", "w2"], sorted(saved)
    assert all(np.array_equal(saved[k], np.asarray(v)) for k, v in params.items())
    assert not os.path.exists(STEM + ".consts.safetensors")
    print(f"batch accuracy {np.mean(logits.argmax(-1) == yb):.4f} (the {BATCH} exported test images)")
    for path in [STEM + ".jaxpr", STEM + ".safetensors", IO_PATH]:
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    print()
    print(decl, end="")


if __name__ == "__main__":
    main()
