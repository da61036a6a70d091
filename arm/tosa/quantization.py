"""Quantization parameters as the lowering sees them, read from the q/dq nodes of an edge graph.

pt2e's ``convert`` leaves ``quantize -> dequantize`` pairs around every quantized op. The INT lowering
does not emit them: a ``dequantize`` marks where an int8 tensor gets its real-number meaning and a
``quantize`` says which int8 grid an op must write into. This module names those nodes and reads
their parameters.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Callable

import ml_dtypes
import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

_quantized_decomposed = torch.ops.quantized_decomposed
_edge_quantized_decomposed = exir_ops.edge.quantized_decomposed

# Both dialects: the partitioner also asks support rules about ATen nodes, before to_edge.
QUANTIZE_OPS = frozenset({
    _edge_quantized_decomposed.quantize_per_tensor.default,
    _edge_quantized_decomposed.quantize_per_channel.default,
    _quantized_decomposed.quantize_per_tensor.default,
    _quantized_decomposed.quantize_per_channel.default,
})  # fmt: skip
DEQUANTIZE_OPS = frozenset({
    _edge_quantized_decomposed.dequantize_per_tensor.default,
    _edge_quantized_decomposed.dequantize_per_channel.default,
    _quantized_decomposed.dequantize_per_tensor.default,
    _quantized_decomposed.dequantize_per_channel.default,
})  # fmt: skip
_PER_CHANNEL_OPS = frozenset({
    _edge_quantized_decomposed.quantize_per_channel.default,
    _edge_quantized_decomposed.dequantize_per_channel.default,
    _quantized_decomposed.quantize_per_channel.default,
    _quantized_decomposed.dequantize_per_channel.default,
})  # fmt: skip

ConstantLookup = Callable[[Node], torch.Tensor]


@dataclasses.dataclass(frozen=True)
class QParams:
    """real = scale * (q - zero_point), per tensor (one scale) or per channel along ``axis``."""

    scales: tuple[float, ...]
    zero_point: int
    dtype: np.dtype
    axis: int | None = None

    @property
    def is_per_channel(self) -> bool:
        return self.axis is not None

    @property
    def scale(self) -> float:
        if self.is_per_channel:
            raise ValueError(f"per-channel qparams (axis {self.axis}) have no single scale")
        return self.scales[0]

    def matches(self, other: QParams) -> bool:
        """Same integer grid, allowing float noise in the scales."""
        return (
            self.zero_point == other.zero_point
            and self.dtype == other.dtype
            and self.axis == other.axis
            and np.allclose(self.scales, other.scales, rtol=1e-6, atol=0.0)
        )


def is_quantize(node: object) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and node.target in QUANTIZE_OPS


def is_dequantize(node: object) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and node.target in DEQUANTIZE_OPS


def qparams_of(node: Node, constant_of: ConstantLookup) -> QParams:
    """The parameters of a quantize or dequantize node; per-channel scales live in constant tensors."""
    if node.target in _PER_CHANNEL_OPS:
        _, scales, zero_points, axis, _, _, dtype = node.args
        zps = constant_of(zero_points).flatten().tolist()
        if any(zp != 0 for zp in zps):
            raise NotImplementedError(
                f"{node.name} ({node.target}) has non-zero per-channel zero points; only symmetric "
                "per-channel weights are supported. Quantize weights with is_per_channel=True symmetric specs."
            )
        return QParams(
            scales=tuple(float(s) for s in constant_of(scales).flatten().tolist()),
            zero_point=0,
            dtype=numpy_dtype(dtype),
            axis=int(axis),
        )
    _, scale, zero_point, _, _, dtype = node.args[:6]
    return QParams(scales=(float(scale),), zero_point=int(zero_point), dtype=numpy_dtype(dtype))


def is_first_result(node: object) -> bool:
    """``getitem(op, 0)``: how the edge dialect reads the only used result of a multi-result op
    (``_native_batch_norm_legit_no_training``, ``native_layer_norm``)."""
    is_getitem = isinstance(node, Node) and node.op == "call_function" and node.target is operator.getitem
    return is_getitem and node.args[1] == 0


def output_quantize(node: Node, is_fused_activation: Callable[[Node], bool]) -> Node | None:
    """The quantize node that decides the int8 grid ``node`` writes to, or None if its output is float.

    That is the quantize all users of ``node`` agree on, or, when ``node``'s only user is an activation
    fused into it (conv + relu) or the selection of its first result (batch norm's ``getitem(bn, 0)``),
    that user's.
    """
    users = list(node.users)
    if len(users) == 1 and (is_fused_activation(users[0]) or is_first_result(users[0])):
        return output_quantize(users[0], is_fused_activation)
    if not users or not all(is_quantize(user) for user in users):
        return None
    first = users[0]
    same = all(user.target == first.target and user.args[1:] == first.args[1:] for user in users)
    return first if same else None


def numpy_dtype(dtype: torch.dtype) -> np.dtype:
    # torch cannot hand these to numpy, which has no such types; ml_dtypes has them.
    special = {torch.bfloat16: ml_dtypes.bfloat16, torch.float8_e4m3fn: ml_dtypes.float8_e4m3fn,
               torch.float8_e5m2: ml_dtypes.float8_e5m2}  # fmt: skip
    if dtype in special:
        return np.dtype(special[dtype])
    return np.dtype(torch.empty((), dtype=dtype).numpy().dtype)
