"""aten.reciprocal.default -> TOSA RECIPROCAL (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.unary import annotate_unary, emit_unary, lower_table, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.reciprocal)
    value = ctx.value(node.args[0])
    return emit_unary(ctx, ts.Op.RECIPROCAL, ts.TosaSerializerAttribute.ReciprocalAttribute, value, name=node.name)


def away_from_zero(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs in [1, 4.5] and [-4.5, -1]: 1/x is finite and its slope stays at most 1."""
    return tuple(torch.where(x < 0, x - 1.0, x + 1.0) for x in random_inputs(seed, *shapes))


TEST_CASES = {
    "positive": OpTestCase(FunctionModule(torch.reciprocal), tuple(x.abs() for x in away_from_zero(0, (1, 8, 16, 16)))),
    "both_signs": OpTestCase(FunctionModule(torch.reciprocal), away_from_zero(1, (4, 100))),
}

OP = ArmOp(
    name="reciprocal",
    edge_targets=(exir_ops.edge.aten.reciprocal.default,),
    aten_targets=(torch.ops.aten.reciprocal.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
)
