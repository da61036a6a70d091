"""The peer's output comparison, applied to our program's outputs."""

from __future__ import annotations

import numpy as np
import torch

from bench.peer_op_replay.request import Tolerance


def output_scales(quantized: torch.fx.GraphModule | None, count: int) -> list[float]:
    """Each output's quantization step: the scale of the dequantize that produces it, 0 for a float output.

    The peer widens its tolerance by ``qtol`` of these steps (its ``quantization_scale``).
    """
    if quantized is None:
        return [0.0] * count
    (returned,) = quantized.graph.find_nodes(op="output")
    nodes = torch.utils._pytree.tree_leaves(returned.args[0])
    scales = []
    for node in nodes:
        is_dequantize = isinstance(node, torch.fx.Node) and "dequantize_per_tensor" in str(node.target)
        scale = node.args[1] if is_dequantize else 0.0
        scales.append(float(scale) if isinstance(scale, (int, float)) else 0.0)
    return (scales + [0.0] * count)[:count]


def _comparable(array: np.ndarray) -> np.ndarray:
    """The array as numpy computes with it: bfloat16 and float8 (ml_dtypes types) widened to float32, exactly."""
    array = np.asarray(array)
    return array.astype(np.float32) if array.dtype.name in _WIDENED else array


_WIDENED = frozenset({"bfloat16", "float8_e4m3fn", "float8_e5m2"})


def compare_output(got: np.ndarray, want: np.ndarray, tolerance: Tolerance, scale: float, index: int) -> str | None:
    """None when ``got`` is within the peer's tolerance of ``want``; otherwise what is off, and how far."""
    got = _comparable(got)
    want = _comparable(want)
    if got.shape != want.shape:
        if got.size != want.size:
            return f"output {index}: shape {got.shape}, expected {want.shape}"
        got = got.reshape(want.shape)
    if want.dtype == np.bool_ or got.dtype == np.bool_:
        differing = int(np.count_nonzero(got.astype(np.bool_) != want.astype(np.bool_)))
        return f"output {index}: {differing} of {want.size} booleans differ" if differing else None
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    # Equal values (infinities of one sign too) and NaN against NaN agree, as in torch.allclose(equal_nan=True).
    agree = (got64 == want64) | (np.isnan(got64) & np.isnan(want64))
    with np.errstate(invalid="ignore"):
        error = np.where(agree, 0.0, np.abs(got64 - want64))
    allowed = tolerance.atol + tolerance.qtol * scale + tolerance.rtol * np.abs(want64)
    outside = ~(error <= allowed) & ~agree  # a NaN on one side only is outside
    if not outside.any():
        return None
    worst = np.unravel_index(int(np.argmax(np.where(outside, error - allowed, -np.inf))), want.shape) if want.ndim else ()
    return (
        f"output {index}: {int(outside.sum())} of {want.size} elements outside atol {tolerance.atol:g} + "
        f"qtol {tolerance.qtol} x scale {scale:.3g}, rtol {tolerance.rtol:g}; max abs error "
        f"{float(np.nanmax(error)):.4g}; worst at {tuple(int(i) for i in worst)}: got {float(got64[worst]):.5g}, "
        f"expected {float(want64[worst]):.5g}"
    )
