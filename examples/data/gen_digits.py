"""Writes examples/data/digits.bin, the data of `examples/mnist_fromscratch.rs`:
scikit-learn's 8x8 handwritten digits (`sklearn.datasets.load_digits`, 1797
images, 10 classes, pixels 0..16).

Origin and licence: the data set is the test set of the UCI "Optical
Recognition of Handwritten Digits" data (E. Alpaydin, C. Kaynak, 1998),
as bundled with scikit-learn (BSD-3-Clause licence, (c) the scikit-learn
developers). Regenerate with `pip install scikit-learn` and, from the repo
root:

    python3 examples/data/gen_digits.py

Format (all bytes, no header besides the magic): b"DIGITS8\\0", then the
image count n as a little-endian u32, then n*64 u8 pixels (row-major 8x8
images, values 0..16), then n u8 labels (0..9), in scikit-learn's order.
"""
import struct
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

OUT = Path(__file__).resolve().parent / "digits.bin"


def main():
    digits = load_digits()
    images = digits.images.astype(np.uint8)
    labels = digits.target.astype(np.uint8)
    assert images.shape[1:] == (8, 8) and images.max() <= 16 and labels.max() <= 9
    n = images.shape[0]
    with open(OUT, "wb") as f:
        f.write(b"DIGITS8\0")
        f.write(struct.pack("<I", n))
        f.write(images.reshape(n, 64).tobytes())
        f.write(labels.tobytes())
    print(f"wrote {OUT}: {n} images, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
