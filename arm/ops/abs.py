"""aten.abs.default -> TOSA ABS (FP) or TABLE (INT)."""

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
        return lower_table(node, ctx, torch.abs)
    value = ctx.value(node.args[0])
    return emit_unary(ctx, ts.Op.ABS, ts.TosaSerializerAttribute.AbsAttribute, value, name=node.name)


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.abs), random_inputs(0, (1, 8, 16, 16))),
    "rank2": OpTestCase(FunctionModule(torch.abs), random_inputs(1, (4, 100))),
}

OP = ArmOp(
    name="abs",
    edge_targets=(exir_ops.edge.aten.abs.default,),
    aten_targets=(torch.ops.aten.abs.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
)
