"""Arrays to and from the TOSA reference model, whose Python binding has no bfloat16 or float8 buffer type.

It takes a BF16 tensor's bits as uint16 and an FP8 one's as uint8, and hands such outputs back as raw
records; every other type goes through as numpy holds it.
"""

from __future__ import annotations

import numpy as np

from arm.tosa.graph import BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2

_AS_BITS = {BFLOAT16: np.dtype(np.uint16), FLOAT8_E4M3: np.dtype(np.uint8), FLOAT8_E5M2: np.dtype(np.uint8)}


def reference_input(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    return array.view(_AS_BITS[array.dtype]) if array.dtype in _AS_BITS else array


def reference_output(array: object, dtype: np.dtype) -> np.ndarray:
    """The reference model's output as ``dtype`` (the TOSA graph's type for it)."""
    array = np.asarray(array)
    return array.view(dtype) if np.dtype(dtype) in _AS_BITS else array
