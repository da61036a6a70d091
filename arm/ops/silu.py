"""aten.silu -> x * SIGMOID(x) (FP) or one TABLE (INT).

to_edge would decompose silu into sigmoid and mul; in the INT profile that is a TABLE onto an extra
int8 grid plus a MUL with rescales. Kept whole (only where delegated) it is a single TABLE.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.unary import annotate_unary, emit_unary, fp_mul, lower_table, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.nn.functional.silu)
    value = ctx.value(node.args[0])
    gate = emit_unary(ctx, ts.Op.SIGMOID, ts.TosaSerializerAttribute.SigmoidAttribute, value, name=f"{node.name}_gate")
    return fp_mul(ctx, value, gate, name=node.name)


def silu_inplace_after_neg(x: torch.Tensor) -> torch.Tensor:
    """silu_ (nn.SiLU(inplace=True) after a layer): the registry derives the in-place form from silu."""
    return torch.nn.functional.silu(torch.neg(x), inplace=True)


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.nn.functional.silu), random_inputs(0, (1, 8, 16, 16))),
    "rank3": OpTestCase(FunctionModule(torch.nn.functional.silu), random_inputs(1, (2, 10, 64))),
    "inplace": OpTestCase(FunctionModule(silu_inplace_after_neg), random_inputs(3, (2, 3, 20))),
}

OP = ArmOp(
    name="silu",
    edge_targets=(exir_ops.edge.aten.silu.default,),
    aten_targets=(torch.ops.aten.silu.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.silu.default,),
)
