"""aten.select_copy (x[..., i, ...]) -> TOSA SLICE of one index, RESHAPE dropping that dim.

Integer data (int32 ids: BART's first decoder column) is selected as it is, in the INT profile.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.support import first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape, slice_tensor
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    data = integer_data_support(node, spec) if is_integer_arithmetic(node) else profile_reason(node, spec, [node.args[0]])
    return first_reason(data, rank_reason(node, shape_of(node.args[0])))


def annotate_select(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, dim, index = node.args
    shape = shape_of(x)
    dim %= len(shape)
    index %= shape[dim]
    value = ctx.value(x)
    if ctx.spec.is_int and not is_integer_arithmetic(node):  # integer data moves as it is
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    begin = [index if axis == dim else 0 for axis in range(len(shape))]
    size = [1 if axis == dim else extent for axis, extent in enumerate(shape)]
    row = slice_tensor(ctx.graph, value, begin, size, name=f"{node.name}_slice")
    return reshape(ctx.graph, row, shape_of(node), name=node.name)


def channel_2(x: torch.Tensor) -> torch.Tensor:
    return x[:, 2]


def last_row(x: torch.Tensor) -> torch.Tensor:
    return x[-1]


def middle_of_last(x: torch.Tensor) -> torch.Tensor:
    return x[..., 3]


TEST_CASES = {
    "channel": OpTestCase(FunctionModule(channel_2), random_inputs(0, (1, 4, 6, 6))),
    "negative_index": OpTestCase(FunctionModule(last_row), random_inputs(1, (5, 3, 8))),
    "last_dim": OpTestCase(FunctionModule(middle_of_last), random_inputs(2, (2, 6, 7))),
}

OP = ArmOp(
    name="select",
    edge_targets=(exir_ops.edge.aten.select_copy.int,),
    aten_targets=(torch.ops.aten.select.int, torch.ops.aten.select_copy.int),
    support=support,
    annotate=annotate_select,
    lower=lower,
    test_cases=TEST_CASES,
)
