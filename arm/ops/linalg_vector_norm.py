"""aten.linalg_vector_norm -> its pieces: abs, pow, sum and pow (or abs and amax/amin for ord=±inf).

FP: to_edge writes the norm as those pieces itself (pow, sum, pow for ord=2), which pow.py, sum.py,
abs.py and amax.py lower. INT: before annotation the node is rewritten into the same pieces
(``decompose_for_quantization``), so each gets its own observed grid: the powers are int8 TABLEs and
the sum a REDUCE_SUM on int32, where a single int8 grid for the whole norm would have nothing to hold
the squares on. ord=0 (a count of non-zeros) is left whole and stays on the CPU.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from arm.ops.common.arm_op import decomposed_op
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

_DEFAULTS = (2, None, False)  # ord, dim, keepdim


def _arguments(node: Node) -> tuple[float, list[int], bool]:
    given = list(node.args[1:])
    order, dim, keepdim = (*given, *_DEFAULTS[len(given) :])
    order = node.kwargs.get("ord", order)
    dim = node.kwargs.get("dim", dim)
    keepdim = node.kwargs.get("keepdim", keepdim)
    rank = len(shape(node.args[0]))
    dims = list(range(rank)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return float(order), dims, keepdim


def decompose(node: Node) -> None:
    """|x| -> x**p -> sum -> **(1/p), or |x| -> amax/amin for ord=±inf; ord=0 is left alone."""
    x = node.args[0]
    order, dims, keepdim = _arguments(node)
    if order == 0:
        return
    build = AtenBuilder(node)
    aten = torch.ops.aten
    # An even integer power needs no abs: x**2 is |x|**2.
    magnitude = x if order == 2 else build.call(aten.abs.default, x)
    if math.isinf(order):
        extremum = aten.amax.default if order > 0 else aten.amin.default
        result = build.call(extremum, magnitude, dims, keepdim)
    else:
        powered = magnitude if order == 1 else build.call(aten.pow.Tensor_Scalar, magnitude, order)
        result = build.call(aten.sum.dim_IntList, powered, dims, keepdim)
        if order != 1:
            result = build.call(aten.pow.Tensor_Scalar, result, 1.0 / order)
    node.replace_all_uses_with(result)


def l2_last_keepdim(x: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(x, dim=-1, keepdim=True)


def l1_all(x: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(x, ord=1)


def inf_channels(x: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(x, ord=float("inf"), dim=1)


TEST_CASES = {
    "l2_last_dim_keepdim": OpTestCase(FunctionModule(l2_last_keepdim), random_inputs(0, (2, 4, 16))),
    "l1_all_dims": OpTestCase(FunctionModule(l1_all), random_inputs(1, (3, 10))),
    "inf_dim1": OpTestCase(FunctionModule(inf_channels), random_inputs(2, (1, 6, 5))),
}

OP = decomposed_op("linalg_vector_norm", (torch.ops.aten.linalg_vector_norm.default,), decompose, TEST_CASES)
