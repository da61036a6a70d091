"""aten.maximum -> TOSA MAXIMUM (INT: both operands on one int32 grid, as for add, then rescaled to int8).

TOSA 1.0's integer MAXIMUM is int32 only. An int32 grid fine enough for both int8 inputs keeps their
order exactly, so the result is one of the inputs, rounded once onto the output grid.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.elementwise import annotate_binary, binary_support, lower_add_sub
from arm.ops.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.registry import ArmOp
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def _attribute(attribute: ts.TosaSerializerAttribute) -> None:
    attribute.MaximumAttribute(ts.NanPropagationMode.PROPAGATE)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    return lower_add_sub(node, ctx, ts.Op.MAXIMUM, _attribute)


def maximum(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.maximum(x, y)


def maximum_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.relu(torch.maximum(x, y))


def maximum_of_scaled(x: torch.Tensor) -> torch.Tensor:
    """Operands on different grids: one is a third of the other."""
    return torch.maximum(x, x / 3.0)


TEST_CASES = {
    "tensor": OpTestCase(FunctionModule(maximum), random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16))),
    "broadcast": OpTestCase(FunctionModule(maximum), random_inputs(1, (2, 6, 32), (1, 6, 1))),
    "different_grids": OpTestCase(FunctionModule(maximum_of_scaled), random_inputs(2, (4, 50))),
    "relu_fused": OpTestCase(FunctionModule(maximum_relu), random_inputs(3, (1, 4, 8, 8), (1, 4, 8, 8))),
}

OP = ArmOp(
    name="maximum",
    edge_targets=(exir_ops.edge.aten.maximum.default,),
    aten_targets=(torch.ops.aten.maximum.default,),
    support=binary_support,
    annotate=annotate_binary,
    lower=lower,
    test_cases=TEST_CASES,
)
