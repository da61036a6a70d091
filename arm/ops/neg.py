"""aten.neg -> TOSA NEGATE (FP) or TABLE (INT).

The int8 NEGATE cannot flip an asymmetric grid (e.g. a relu output's) onto the observed output grid
without an int32 detour; a table maps each input code straight to its negated output code.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import emit
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.unary import annotate_unary, lower_table, unary_support
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.neg)
    value = ctx.value(node.args[0])
    # TOSA 1.0 passes NEGATE's zero points as operands, for float too (where they must be 0).
    zero_points = [
        ctx.graph.add_scalar_const(f"{node.name}_{which}_zp", 0.0, value.dtype) for which in ("input", "output")
    ]
    return emit(
        ctx,
        ts.Op.NEGATE,
        ts.TosaSerializerAttribute.NegateAttribute,
        [value, *zero_points],
        name=node.name,
        shape=value.shape,
        dtype=value.dtype,
    )


def negate_relu(x: torch.Tensor) -> torch.Tensor:
    """Negates an all-positive grid, which the output must mirror."""
    return torch.neg(torch.relu(x))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.neg), random_inputs(0, (1, 8, 16, 16))),
    "rank2": OpTestCase(FunctionModule(torch.neg), random_inputs(1, (4, 100))),
    "after_relu": OpTestCase(FunctionModule(negate_relu), random_inputs(2, (2, 6, 32))),
    # int16 activations: an int16 TABLE of a straight line, exact; no int16 on TOSA-1.0+INT (TOSA, VGF).
    "a16w8": OpTestCase(
        FunctionModule(torch.neg),
        random_inputs(3, (2, 3, 40)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="neg",
    edge_targets=(exir_ops.edge.aten.neg.default,),
    aten_targets=(torch.ops.aten.neg.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
)
