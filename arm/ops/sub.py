"""aten.sub.Tensor -> TOSA SUB (INT: both operands rescaled onto one int32 grid)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import annotate_binary, binary_support, lower_add_sub
from arm.ops.common.integer_arithmetic import integer_support, is_integer_arithmetic, lower_integer_binary
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, in_float_type, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    if is_integer_arithmetic(node):
        return integer_support(node, spec)
    return binary_support(node, spec)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if is_integer_arithmetic(node):
        return lower_integer_binary(node, ctx, ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute)
    return lower_add_sub(node, ctx, ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute)


def subtract(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x - y


def subtract_with_alpha(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.sub(x, y, alpha=5)


def subtract_scalar(x: torch.Tensor) -> torch.Tensor:
    return x - 0.75


def scalar_minus(x: torch.Tensor) -> torch.Tensor:
    return 2.0 - x


TEST_CASES = {
    "tensor": OpTestCase(FunctionModule(subtract), random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16))),
    "broadcast": OpTestCase(FunctionModule(subtract), random_inputs(1, (1, 8, 16, 16), (1, 1, 16, 16))),
    "broadcast_rank": OpTestCase(FunctionModule(subtract), random_inputs(2, (4, 64), (64,))),
    "scalar": OpTestCase(FunctionModule(subtract_scalar), random_inputs(3, (1, 4, 8, 8))),
    "scalar_minus": OpTestCase(FunctionModule(scalar_minus), random_inputs(4, (2, 3, 10))),
    # x - alpha * y: in INT alpha scales y's RESCALE onto the int32 grid (the peer's alpha cases).
    "alpha": OpTestCase(FunctionModule(subtract_with_alpha), random_inputs(6, (2, 3, 4), (2, 3, 4))),
    # x - alpha * y in float16: alpha * y rounded to float16, then the SUB; FP only.
    "alpha_float16": in_float_type(
        OpTestCase(FunctionModule(subtract_with_alpha), random_inputs(5, (3, 8), (3, 8))), torch.float16
    ),
}

OP = ArmOp(
    name="sub",
    edge_targets=(exir_ops.edge.aten.sub.Tensor,),
    aten_targets=(torch.ops.aten.sub.Tensor, torch.ops.aten.rsub.Scalar),
    support=support,
    annotate=annotate_binary,
    lower=lower,
    test_cases=TEST_CASES,
)
