"""aten.hardswish -> x * hardsigmoid(x) as ADD, CLAMP, MUL, MUL (FP) or one TABLE (INT).

to_edge would decompose hardswish into add, two clamps, mul and div, each with its own int8 grid in
the INT profile; kept whole (only where delegated) it is a single TABLE on the NPU, which matters for
MobileNetV3, where it follows most convolutions.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.hardsigmoid import hardsigmoid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.unary import annotate_unary, fp_mul, lower_table, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_int:
        return lower_table(node, ctx, torch.nn.functional.hardswish)
    value = ctx.value(node.args[0])
    return fp_mul(ctx, value, hardsigmoid(ctx, value, name=f"{node.name}_gate"), name=node.name)


class _ConvHardswish(torch.nn.Module):
    """MobileNetV3's pattern: the activation reads the convolution's int8 output."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 16, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.hardswish(self.conv(x))


TEST_CASES = {
    # Normal inputs times 3 cross both kinks at -3 and 3.
    "rank4": OpTestCase(
        FunctionModule(torch.nn.functional.hardswish), tuple(3 * x for x in random_inputs(0, (1, 8, 16, 16)))
    ),
    "rank2": OpTestCase(FunctionModule(torch.nn.functional.hardswish), random_inputs(1, (4, 100))),
    "after_conv": OpTestCase(seeded(2, _ConvHardswish), random_inputs(3, (1, 8, 12, 12))),
}

OP = ArmOp(
    name="hardswish",
    edge_targets=(exir_ops.edge.aten.hardswish.default,),
    aten_targets=(torch.ops.aten.hardswish.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.hardswish.default,),
)
