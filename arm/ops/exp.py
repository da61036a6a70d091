"""aten.exp.default -> TOSA EXP (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.unary import annotate_unary, emit_unary, lower_table, unary_support
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.exp)
    value = ctx.value(node.args[0])
    return emit_unary(ctx, ts.Op.EXP, ts.TosaSerializerAttribute.ExpAttribute, value, name=node.name)


# exp magnifies input rounding by its own value; inputs within +-2 keep it within the harness bound.
TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.exp), tuple(0.5 * x for x in random_inputs(0, (1, 8, 16, 16)))),
    "rank2": OpTestCase(FunctionModule(torch.exp), tuple(0.5 * x for x in random_inputs(1, (4, 100)))),
    # int16 activations: one interpolating int16 TABLE (common/table.py); the TOSA-1.0+INT targets
    # (TOSA, VGF) have no int16 extension.
    # exp's curvature at the top of its range puts the interpolation a few int16 steps off (each 1/256
    # of an int8 step).
    "a16w8": OpTestCase(
        FunctionModule(torch.exp),
        random_inputs(2, (2, 3, 40)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
        steps_from_quantized=4,
    ),
}

OP = ArmOp(
    name="exp",
    edge_targets=(exir_ops.edge.aten.exp.default,),
    aten_targets=(torch.ops.aten.exp.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
)
