"""aten.avg_pool1d (``nn.AvgPool1d``), before quantization, as a reshape, a 1xK avg_pool2d and a reshape.

SEW squeezes its audio frames by 2 with ``nn.AvgPool1d`` before the encoder. torch.export keeps
avg_pool1d whole, pt2e annotated nothing in it, and to_edge then wrote it as unsqueeze, avg_pool2d and
squeeze that nobody had quantized: they stayed float on the CPU between two partitions (sew: 2
partitions, 96.5% on tosa-INT). Before annotation (``decompose_for_quantization``) the node becomes a
reshape to a [1, N*C, 1, L] map (batch 1, which is all the U55 pools), the 1xK avg_pool2d and a reshape
back, each annotated and lowered by its own file (avg_pool2d.py's window arithmetic: count_include_pad,
ceil_mode). In FP, to_edge's own split is lowered by those files, so no edge operator is left to lower
here.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from arm.ops.common.arm_op import decomposed_op
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

_DEFAULTS = ([], [0], False, True)  # stride, padding, ceil_mode, count_include_pad


def _single(value: int | list[int]) -> int:
    return value if isinstance(value, int) else int(value[0])


def decompose(node: Node) -> None:
    x, kernel = node.args[0], _single(node.args[1])
    given = node.args[2:]
    stride, padding, ceil_mode, count_include_pad = (*given, *_DEFAULTS[len(given) :])
    stride = _single(stride) if stride not in ([], ()) else kernel
    aten = torch.ops.aten
    build = AtenBuilder(node)
    pad = _single(padding)
    # Batch and channels merged into one batch-1 map, [1, N*C, 1, L]: the U55 pools batch 1 only.
    leading = shape(x)[:-1]
    rows = build.call(aten.reshape.default, x, [1, math.prod(leading), 1, shape(x)[-1]])
    pooled = build.call(aten.avg_pool2d.default, rows, [1, kernel], [1, stride], [0, pad], ceil_mode, count_include_pad)
    node.replace_all_uses_with(build.call(aten.reshape.default, pooled, [*leading, shape(pooled)[-1]]))


def squeeze_frames(x: torch.Tensor) -> torch.Tensor:
    """SEW's squeeze: frames averaged in pairs (an odd count drops the last)."""
    return torch.nn.functional.avg_pool1d(x, 2, 2)


def padded_overlapping(x: torch.Tensor) -> torch.Tensor:
    """Windows of 3 every 1 with zero padding counted (the border averages hold a padded zero)."""
    return torch.nn.functional.avg_pool1d(x, 3, 1, 1) - x


def ceil_excluding_padding(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool1d(x, 4, 3, 1, ceil_mode=True, count_include_pad=False)


TEST_CASES = {
    "squeeze_frames": OpTestCase(FunctionModule(squeeze_frames), random_inputs(0, (1, 16, 31))),
    "padded_overlapping": OpTestCase(FunctionModule(padded_overlapping), random_inputs(1, (2, 8, 10))),
    "ceil_excluding_padding": OpTestCase(FunctionModule(ceil_excluding_padding), random_inputs(2, (1, 4, 14))),
}

OP = decomposed_op("avg_pool1d", (torch.ops.aten.avg_pool1d.default,), decompose, TEST_CASES)
