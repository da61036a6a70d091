"""What maximum.py and minimum.py share: TOSA MAXIMUM/MINIMUM lowered like add.

In the INT profile both operands go onto one int32 grid, as for add, then the result is rescaled to
int8: TOSA 1.0's integer MAXIMUM and MINIMUM are int32 only. An int32 grid fine enough for both int8
inputs keeps their order exactly, so the result is one of the inputs, rounded once onto the output grid.
"""

from __future__ import annotations

from typing import Callable

import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.elementwise import annotate_binary, binary_support, lower_add_sub
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue

TensorPairFunction = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
AttributeSetter = Callable[[ts.TosaSerializerAttribute], None]


def extremum_op(
    name: str,
    function: TensorPairFunction,
    edge_target: object,
    aten_target: torch._ops.OpOverload,
    tosa_op: int,
    set_attribute: AttributeSetter,
    two_tensor_form: tuple[TensorPairFunction, torch._ops.OpOverload],
) -> ArmOp:
    """The ArmOp of ``function`` (torch.maximum or torch.minimum) lowered to ``tosa_op``.

    ``two_tensor_form`` is the same function spelled ``torch.max(a, b)`` (ATen ``max.other``), which
    to_edge turns into ``function``'s operator but the quantizer sees under its own name.
    """

    def lower(node: Node, ctx: LoweringContext) -> TosaValue:
        return lower_add_sub(node, ctx, tosa_op, set_attribute)

    return ArmOp(
        name=name,
        edge_targets=(edge_target,),
        aten_targets=(aten_target, two_tensor_form[1]),
        support=binary_support,
        annotate=annotate_binary,
        lower=lower,
        test_cases=_test_cases(function, two_tensor_form[0]),
    )


class _Pair(torch.nn.Module):
    def __init__(self, function: TensorPairFunction, *, relu: bool = False):
        super().__init__()
        self.function = function
        self.relu = relu

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        result = self.function(x, y)
        return torch.relu(result) if self.relu else result


class _WithScaled(torch.nn.Module):
    """Operands on different grids: one is a third of the other."""

    def __init__(self, function: TensorPairFunction):
        super().__init__()
        self.function = function

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x, x / 3.0)


def _test_cases(function: TensorPairFunction, two_tensor_form: TensorPairFunction) -> dict[str, OpTestCase]:
    return {
        "tensor": OpTestCase(_Pair(function), random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16))),
        "broadcast": OpTestCase(_Pair(function), random_inputs(1, (2, 6, 32), (1, 6, 1))),
        "different_grids": OpTestCase(_WithScaled(function), random_inputs(2, (4, 50))),
        "relu_fused": OpTestCase(_Pair(function, relu=True), random_inputs(3, (1, 4, 8, 8), (1, 4, 8, 8))),
        "two_tensor_form": OpTestCase(_Pair(two_tensor_form), random_inputs(4, (3, 10), (3, 10))),
    }
