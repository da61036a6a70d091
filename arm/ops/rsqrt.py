"""aten.rsqrt.default -> TOSA RSQRT (FP) or TABLE (INT)."""

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
        return lower_table(node, ctx, torch.rsqrt)
    value = ctx.value(node.args[0])
    return emit_unary(ctx, ts.Op.RSQRT, ts.TosaSerializerAttribute.RsqrtAttribute, value, name=node.name)


def positive_inputs(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs in [0.5, 4]: rsqrt is finite and its slope stays below 1.5."""
    return tuple(0.5 + x.abs() for x in random_inputs(seed, *shapes))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.rsqrt), positive_inputs(0, (1, 8, 16, 16))),
    "rank3": OpTestCase(FunctionModule(torch.rsqrt), positive_inputs(1, (2, 10, 32))),
    # int16 activations: one interpolating int16 TABLE (common/table.py); the TOSA-1.0+INT targets
    # (TOSA, VGF) have no int16 extension.
    # The output grid clips just below the smallest calibrated input: a kink (rsqrt's slope there is
    # ~3.6 output steps per input code) inside one 128-code segment, which the interpolation rounds
    # off by up to ~90 int16 steps (a third of an int8 step) within that segment, one step elsewhere.
    "a16w8": OpTestCase(
        FunctionModule(torch.rsqrt),
        positive_inputs(2, (2, 3, 40)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
        steps_from_quantized=96,
    ),
}

OP = ArmOp(
    name="rsqrt",
    edge_targets=(exir_ops.edge.aten.rsqrt.default,),
    aten_targets=(torch.ops.aten.rsqrt.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
)
