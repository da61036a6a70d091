"""aten.as_strided_copy where it reads memory in order -> RESHAPE to one row, SLICE, RESHAPE.

``as_strided`` addresses the input's storage directly. When the strides are the row-major strides of
the requested size (so consecutive outputs read consecutive elements), the result is elements
[offset, offset + numel) of the flattened input: a view. Other strides (overlapping windows, a
transposed walk) would need a GATHER and stay on the CPU, with the strides in the reason.
"""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import EVERY_TARGET, FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape, slice_tensor
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def _offset(node: Node) -> int:
    offset = node.args[3] if len(node.args) > 3 else node.kwargs.get("storage_offset")
    return offset or 0


def row_major_strides(size: list[int]) -> list[int]:
    strides, step = [], 1
    for dim in reversed(size):
        strides.append(step)
        step *= dim
    return strides[::-1]


def _view_reason(node: Node) -> str | None:
    x, size, stride = node.args[:3]
    # A size-1 dim is never stepped along, so its stride does not matter.
    moving = [(given, wanted) for dim, given, wanted in zip(size, stride, row_major_strides(size)) if dim != 1]
    if any(given != wanted for given, wanted in moving):
        return (
            f"{describe(node)}: strides {list(stride)} for size {list(size)} do not read the input in order "
            f"(row-major strides would be {row_major_strides(size)}); only such views are lowered"
        )
    available = math.prod(shape_of(x))
    if _offset(node) + math.prod(size) > available:
        return f"{describe(node)}: reads past the input's {available} elements"
    return None


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    return first_reason(_view_reason(node), profile_reason(node, spec, [x]), rank_reason(node, shape_of(node)))


def annotate_as_strided_copy(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    count, offset = math.prod(shape_of(node)), _offset(node)
    if (offset, count) != (0, math.prod(value.shape)):
        row = reshape(ctx.graph, value, (math.prod(value.shape),), name=f"{node.name}_row")
        value = slice_tensor(ctx.graph, row, (offset,), (count,), name=f"{node.name}_window")
    return reshape(ctx.graph, value, shape_of(node), name=node.name)


def regroup(x: torch.Tensor) -> torch.Tensor:
    return torch.as_strided(x, (4, 6), (6, 1))


def window_with_offset(x: torch.Tensor) -> torch.Tensor:
    return torch.as_strided(x, (2, 1, 5), (5, 7, 1), 3)


def overlapping_windows(x: torch.Tensor) -> torch.Tensor:
    return torch.as_strided(x, (3, 4), (2, 1))


TEST_CASES = {
    "regroup": OpTestCase(FunctionModule(regroup), random_inputs(0, (2, 3, 4))),
    # A size-1 dim with an arbitrary stride, and an offset into the storage.
    "window_with_offset": OpTestCase(FunctionModule(window_with_offset), random_inputs(1, (4, 4))),
    "overlapping_windows": OpTestCase(
        FunctionModule(overlapping_windows),
        random_inputs(2, (12,)),
        cpu_targets=EVERY_TARGET,
    ),
}

OP = ArmOp(
    name="as_strided_copy",
    edge_targets=(exir_ops.edge.aten.as_strided_copy.default,),
    aten_targets=(torch.ops.aten.as_strided.default, torch.ops.aten.as_strided_copy.default),
    support=support,
    annotate=annotate_as_strided_copy,
    lower=lower,
    test_cases=TEST_CASES,
)
