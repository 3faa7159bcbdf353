"""The distributions a dataset case can ask for.

Each takes a numpy Generator, a size and the case's parameters and returns an
array of the manifest's dtype. Inputs are random, never all zero: constant and
zero inputs hide indexing bugs (a "constant" case exists to test contention).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Params = dict[str, Any]


def uniform(rng: np.random.Generator, n: int, dtype: np.dtype, p: Params) -> np.ndarray:
    """Values drawn uniformly from [low, high)."""
    low, high = p["low"], p["high"]
    if np.issubdtype(dtype, np.integer):
        return rng.integers(low, high, size=n, dtype=dtype)
    return rng.uniform(low, high, size=n).astype(dtype)


def contention(rng: np.random.Generator, n: int, dtype: np.dtype, p: Params) -> np.ndarray:
    """A fraction `hot_fraction` of the values equal one hot value, the rest uniform.

    Many threads then hit the same histogram bin: the case that punishes
    un-privatized atomics.
    """
    values = uniform(rng, n, dtype, p)
    hot_value = p.get("hot_value", int(rng.integers(p["low"], p["high"])))
    values[rng.random(n) < p["hot_fraction"]] = hot_value
    return values


def constant(rng: np.random.Generator, n: int, dtype: np.dtype, p: Params) -> np.ndarray:
    """Every value the same (`value`): the worst contention there is."""
    del rng
    return np.full(n, p["value"], dtype=dtype)


DISTRIBUTIONS: dict[str, Callable[..., np.ndarray]] = {
    "uniform": uniform,
    "contention": contention,
    "constant": constant,
}


def signed_magnitude(rng: np.random.Generator, n: int, dtype: np.dtype, p: Params) -> np.ndarray:
    """Magnitudes drawn uniformly from [low, high), each with a random sign.

    Keeps values away from zero: with 0.5 <= |x| < 1.5, x**64 stays a normal
    float32 (between 5.4e-20 and 1.9e11), so powers are never 0, denormal or inf.
    """
    magnitude = rng.uniform(p["low"], p["high"], size=n)
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return (sign * magnitude).astype(dtype)


DISTRIBUTIONS["signed_magnitude"] = signed_magnitude


# lab6: the four corrections the course's pipeline adds to pixel k (by its index in
# the compacted image, k & 3), and the value it drops: the same as the contract's
# kMapDelta and kGarbage (labs/lab6_image_pipeline/image_pipeline.cuh).
MAP_DELTA = (1, -5, 3, -8)
GARBAGE = -27


def corrupted_image(rng: np.random.Generator, n: int, dtype: np.dtype, p: Params) -> np.ndarray:
    """A buffer of n ints holding an image of `pixels` pixels with the course's defects.

    The clean grey levels are drawn uniformly from [low, high) (0 <= low < high <= 256),
    a share `hot_fraction` of them set to one hot level (histogram contention). Pixel k
    then loses MAP_DELTA[k & 3], which the pipeline's map gives back, and the n - pixels
    GARBAGE values are inserted at random places, which its compaction drops. No
    corrupted pixel equals GARBAGE: they lie in [low - 3, high + 7].
    """
    pixels = int(p["pixels"])
    clean = uniform(rng, pixels, dtype, {"low": p["low"], "high": p["high"]})
    hot_fraction = p.get("hot_fraction", 0.0)
    if hot_fraction > 0:
        clean[rng.random(pixels) < hot_fraction] = int(rng.integers(p["low"], p["high"]))
    delta = np.asarray(MAP_DELTA, dtype=dtype)
    image = clean - delta[np.arange(pixels) & 3]
    buffer = np.full(n, GARBAGE, dtype=dtype)
    keep = np.sort(rng.choice(n, size=pixels, replace=False)) if pixels < n else np.arange(n)
    buffer[keep] = image
    return buffer


DISTRIBUTIONS["corrupted_image"] = corrupted_image


def rgba_image(rng: np.random.Generator, n: int, dtype: np.dtype, p: Params) -> np.ndarray:
    """An image of n pixels, each 8-bit red, green, blue and alpha packed into one int32 (bytes
    R, G, B, A in memory order: a CUDA uchar4, x = red). Channels are uniform in 0..255 and
    alpha is any byte (the lab ignores it). A share `grey_fraction` of the pixels are greys
    (red = green = blue) and as many have two channels equal (where the hue formula's
    cases meet); then a share `hot_fraction` take one colour (contention on three bins).
    """
    rgba = rng.integers(0, 256, size=(n, 4), dtype=np.uint8)
    grey = p.get("grey_fraction", 0.0)
    if grey > 0:
        u = rng.random(n)
        greys = u < grey
        rgba[greys, 1] = rgba[greys, 0]
        rgba[greys, 2] = rgba[greys, 0]
        ties = (u >= grey) & (u < 2 * grey)
        pair = rng.integers(0, 3, size=n)
        for c in range(3):  # channel c + 1 (mod 3) copies channel c
            rgba[ties & (pair == c), (c + 1) % 3] = rgba[ties & (pair == c), c]
    hot = p.get("hot_fraction", 0.0)
    if hot > 0:
        rgba[rng.random(n) < hot, :3] = rng.integers(0, 256, size=3, dtype=np.uint8)
    return rgba.view("<i4").reshape(n).astype(dtype, copy=False)


DISTRIBUTIONS["rgba_image"] = rgba_image
