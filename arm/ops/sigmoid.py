"""aten.sigmoid -> TOSA SIGMOID (FP) or TABLE (INT) onto a fixed output grid."""

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


def annotate_sigmoid(node: Node, config: QuantizationConfig) -> None:
    """The output grid is [0, 1): step 1/256, zero point -128 (as in ExecuTorch and TFLite)."""
    annotate_unary(node, config, fixed_int8_output(1.0 / 256, -128))


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.sigmoid)
    value = ctx.value(node.args[0])
    return emit_unary(ctx, ts.Op.SIGMOID, ts.TosaSerializerAttribute.SigmoidAttribute, value, name=node.name)


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.sigmoid), random_inputs(0, (1, 8, 16, 16))),
    "rank2": OpTestCase(FunctionModule(torch.sigmoid), random_inputs(1, (4, 100))),
    # Inputs up to about +-9 reach both saturated ends of the fixed grid. (Wider inputs coarsen the input
    # grid until its rounding, times sigmoid's slope of up to 1/4, exceeds the harness's float bound.)
    "saturating": OpTestCase(FunctionModule(torch.sigmoid), tuple(2.5 * x for x in random_inputs(2, (2, 3, 40)))),
    # int16 activations: one interpolating int16 TABLE (common/table.py); the TOSA-1.0+INT targets
    # (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        FunctionModule(torch.sigmoid),
        tuple(2.0 * x for x in random_inputs(3, (2, 3, 40))),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="sigmoid",
    edge_targets=(exir_ops.edge.aten.sigmoid.default,),
    aten_targets=(torch.ops.aten.sigmoid.default,),
    support=unary_support,
    annotate=annotate_sigmoid,
    lower=lower,
    test_cases=TEST_CASES,
)
