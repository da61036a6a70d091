"""aten.hardsigmoid -> clamp(x + 3, 0, 6) / 6 as ADD, CLAMP, MUL (FP) or one TABLE (INT).

to_edge would decompose hardsigmoid into add, two clamps and a div, each with its own int8 grid in
the INT profile; kept whole (only where delegated) it is a single TABLE on the NPU.
"""

from __future__ import annotations

import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.relu import clamp
from arm.ops.common.unary import annotate_unary, float_constant, fp_add, fp_mul, lower_table, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.nn.functional.hardsigmoid)
    return hardsigmoid(ctx, ctx.value(node.args[0]), name=node.name)


def hardsigmoid(ctx: LoweringContext, value: TosaValue, *, name: str) -> TosaValue:
    """Float clamp(x + 3, 0, 6) / 6, in the order PyTorch's kernel computes it."""
    three = float_constant(ctx, 3.0, value.rank, name=f"{name}_three")
    shifted = fp_add(ctx, value, three, name=f"{name}_shifted")
    clamped = clamp(ctx, shifted, np.float32(0.0), np.float32(6.0), name=f"{name}_clamped")
    sixth = float_constant(ctx, 1.0 / 6.0, value.rank, name=f"{name}_sixth")
    return fp_mul(ctx, clamped, sixth, name=name)


TEST_CASES = {
    # Normal inputs times 3 cross both kinks at -3 and 3.
    "rank4": OpTestCase(
        FunctionModule(torch.nn.functional.hardsigmoid), tuple(3 * x for x in random_inputs(0, (1, 8, 16, 16)))
    ),
    "rank2": OpTestCase(FunctionModule(torch.nn.functional.hardsigmoid), random_inputs(1, (4, 100))),
}

OP = ArmOp(
    name="hardsigmoid",
    edge_targets=(exir_ops.edge.aten.hardsigmoid.default,),
    aten_targets=(torch.ops.aten.hardsigmoid.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.hardsigmoid.default,),
)
