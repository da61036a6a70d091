"""Arrays to and from the TOSA reference model, whose Python binding has no bfloat16 buffer type.

It takes a BF16 tensor's bits as uint16 and hands BF16 outputs back as raw two-byte records; every other
type goes through as numpy holds it.
"""

from __future__ import annotations

import numpy as np

from arm.tosa.graph import BFLOAT16


def reference_input(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    return array.view(np.uint16) if array.dtype == BFLOAT16 else array


def reference_output(array: object, dtype: np.dtype) -> np.ndarray:
    """The reference model's output as ``dtype`` (the TOSA graph's type for it)."""
    array = np.asarray(array)
    return array.view(BFLOAT16) if np.dtype(dtype) == BFLOAT16 else array
