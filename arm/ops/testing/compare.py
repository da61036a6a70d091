"""Tolerance checks whose failures say how far off a result is, and where."""

from __future__ import annotations

import numpy as np


def assert_close(actual: np.ndarray, expected: np.ndarray, *, atol: float, rtol: float = 0.0, what: str) -> None:
    """Asserts ``|actual - expected| <= atol + rtol * |expected|`` elementwise.

    On failure the message gives the worst element (index, both values), the largest absolute
    error and how many elements are out of tolerance.
    """
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        raise AssertionError(f"{what}: shape {actual.shape} differs from the expected {expected.shape}")
    error = np.abs(actual - expected)
    allowed = atol + rtol * np.abs(expected)
    outside = error > allowed
    if not outside.any():
        return
    worst = np.unravel_index(np.argmax(error - allowed), error.shape)
    raise AssertionError(
        f"{what}: {int(outside.sum())} of {error.size} elements outside tolerance "
        f"(atol {atol:.3g}, rtol {rtol:.3g}); max abs error {error.max():.6g}; "
        f"worst at index {tuple(int(i) for i in worst)}: got {actual[worst]:.6g}, expected {expected[worst]:.6g}"
    )
