"""aten.pixel_unshuffle -> RESHAPE to [B, C, H, r, W, r], TRANSPOSE to [B, C, r, r, H, W], RESHAPE to [B, C*r*r, H, W].

The inverse of pixel_shuffle.py, whose support rule, annotation and lowering it shares.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.pixel_shuffle import annotate_shuffle, batch_size, lower_shuffle, shuffle_reason
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue

# [B, C, H, r, W, r] -> [B, C, r, r, H, W]
_UNSHUFFLE = (0, 1, 3, 5, 2, 4)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    factor = node.args[1]
    *_, channels, height, width = shape_of(node.args[0])
    batch = batch_size(shape_of(node.args[0]))
    split = (batch, channels, height // factor, factor, width // factor, factor)
    return lower_shuffle(node, ctx, split, _UNSHUFFLE)


def unshuffle2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pixel_unshuffle(x, 2)


def unshuffle3(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pixel_unshuffle(x, 3)


TEST_CASES = {
    "factor2": OpTestCase(FunctionModule(unshuffle2), random_inputs(0, (1, 3, 4, 6))),
    "factor3_batch2": OpTestCase(FunctionModule(unshuffle3), random_inputs(1, (2, 2, 6, 3))),
}

OP = ArmOp(
    name="pixel_unshuffle",
    edge_targets=(exir_ops.edge.aten.pixel_unshuffle.default,),
    aten_targets=(torch.ops.aten.pixel_unshuffle.default,),
    support=shuffle_reason,
    annotate=annotate_shuffle,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.pixel_unshuffle.default,),
)
