"""aten.tanh -> TOSA TANH (FP) or TABLE (INT) onto a fixed output grid."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.unary import annotate_unary, emit_unary, fixed_int8_output, lower_table, unary_support
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def annotate_tanh(node: Node, config: QuantizationConfig) -> None:
    """The output grid is [-1, 1): step 1/128, zero point 0 (as in ExecuTorch and TFLite)."""
    annotate_unary(node, config, fixed_int8_output(1.0 / 128, 0))


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.tanh)
    value = ctx.value(node.args[0])
    return emit_unary(ctx, ts.Op.TANH, ts.TosaSerializerAttribute.TanhAttribute, value, name=node.name)


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.tanh), random_inputs(0, (1, 8, 16, 16))),
    "rank3": OpTestCase(FunctionModule(torch.tanh), random_inputs(1, (2, 10, 32))),
    # Both saturated ends of the fixed grid; tanh's slope of 1 bounds how wide the inputs may be.
    "saturating": OpTestCase(FunctionModule(torch.tanh), tuple(1.5 * x for x in random_inputs(2, (4, 60)))),
    # int16 activations: one interpolating int16 TABLE (common/table.py); the TOSA-1.0+INT targets
    # (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        FunctionModule(torch.tanh),
        random_inputs(3, (2, 3, 40)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="tanh",
    edge_targets=(exir_ops.edge.aten.tanh.default,),
    aten_targets=(torch.ops.aten.tanh.default,),
    support=unary_support,
    annotate=annotate_tanh,
    lower=lower,
    test_cases=TEST_CASES,
)
