"""aten.pixel_shuffle -> RESHAPE to [B, C, r, r, H, W], TRANSPOSE to [B, C, H, r, W, r], RESHAPE to [B, C, H*r, W*r].

to_edge would write it as the same view/permute/view chain, with clones between them; kept whole, the
quantizer sees one data-movement op sharing its input's grid, and the TRANSPOSE keeps only the axes
that really move (permute.essential_transpose), so a batch-1 shuffle is a rank-5 TRANSPOSE at most.
pixel_unshuffle.py is the inverse and shares ``lower_shuffle``.
"""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.permute import essential_transpose
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import transpose
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

# [B, C, r, r, H, W] -> [B, C, H, r, W, r]
_SHUFFLE = (0, 1, 4, 2, 5, 3)


def shuffle_reason(node: Node, spec: TosaSpecification) -> str | None:
    """The rule pixel_shuffle and pixel_unshuffle share: rank 3 or more ([*, C, H, W]), profile rules."""
    x = node.args[0]
    rank = len(shape_of(x))
    return first_reason(
        f"{describe(node)}: a pixel (un)shuffle takes a [*, C, H, W] input, got rank {rank}" if rank < 3 else None,
        profile_reason(node, spec, [x]),
    )


def annotate_shuffle(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower_shuffle(
    node: Node, ctx: LoweringContext, split_shape: tuple[int, ...], perms: tuple[int, ...]
) -> TosaValue:
    """Input reshaped to ``split_shape`` (rank 6, batch dims merged), permuted by ``perms``, reshaped to the output."""
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        # The quantizer shares the input's grid; a foreign annotation may have chosen another.
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    shape, essential = essential_transpose(split_shape, perms)
    split = reshape(ctx.graph, value, shape, name=f"{node.name}_split")
    moved = transpose(ctx.graph, split, essential, name=f"{node.name}_moved")
    return reshape(ctx.graph, moved, shape_of(node), name=node.name)


def batch_size(shape: tuple[int, ...]) -> int:
    """The leading dims of a [*, C, H, W] shape merged into one."""
    return math.prod(shape[:-3])


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    factor = node.args[1]
    *_, channels, height, width = shape_of(node.args[0])
    batch = batch_size(shape_of(node.args[0]))
    split = (batch, channels // factor**2, factor, factor, height, width)
    return lower_shuffle(node, ctx, split, _SHUFFLE)


def shuffle2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pixel_shuffle(x, 2)


def shuffle3_rank3(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pixel_shuffle(x, 3)


TEST_CASES = {
    "factor2": OpTestCase(FunctionModule(shuffle2), random_inputs(0, (1, 8, 3, 5))),
    # No batch dim, and a factor whose square does not divide into a power of two.
    "factor3_rank3": OpTestCase(FunctionModule(shuffle3_rank3), random_inputs(1, (9, 2, 3))),
    # int16 activations: the TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        FunctionModule(shuffle2),
        random_inputs(2, (2, 4, 2, 3)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="pixel_shuffle",
    edge_targets=(exir_ops.edge.aten.pixel_shuffle.default,),
    aten_targets=(torch.ops.aten.pixel_shuffle.default,),
    support=shuffle_reason,
    annotate=annotate_shuffle,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.pixel_shuffle.default,),
)
