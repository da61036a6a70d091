"""aten.leaky_relu -> MAXIMUM(x, slope * x) (FP) or TABLE (INT)."""

from __future__ import annotations

import functools

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import emit
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.unary import annotate_unary, float_constant, fp_mul, lower_table, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue

_DEFAULT_SLOPE = 0.01


def _slope(node: Node) -> float:
    return float(node.args[1] if len(node.args) > 1 else node.kwargs.get("negative_slope", _DEFAULT_SLOPE))


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    slope = _slope(node)
    if ctx.spec.is_int:
        return lower_table(node, ctx, functools.partial(torch.nn.functional.leaky_relu, negative_slope=slope))
    value = ctx.value(node.args[0])
    slope_value = float_constant(ctx, slope, value.rank, name=f"{node.name}_slope", dtype=value.dtype)
    scaled = fp_mul(ctx, value, slope_value, name=f"{node.name}_scaled")
    # For slope <= 1, x >= slope * x exactly when x >= 0, so the larger one is leaky_relu's choice;
    # for slope > 1 it is the smaller one.
    op, set_attribute = (
        (ts.Op.MAXIMUM, ts.TosaSerializerAttribute.MaximumAttribute)
        if slope <= 1.0
        else (ts.Op.MINIMUM, ts.TosaSerializerAttribute.MinimumAttribute)
    )
    return emit(
        ctx,
        op,
        lambda attribute: set_attribute(attribute, ts.NanPropagationMode.PROPAGATE),
        [value, scaled],
        name=node.name,
        shape=value.shape,
        dtype=value.dtype,
    )


def leaky_relu_tenth(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.leaky_relu(x, 0.1)


def leaky_relu_steep(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.leaky_relu(x, 1.5)


class _ConvLeakyRelu(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.activation = torch.nn.LeakyReLU(0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.activation(self.conv(x))


TEST_CASES = {
    "default_slope": OpTestCase(FunctionModule(torch.nn.functional.leaky_relu), random_inputs(0, (1, 8, 16, 16))),
    "slope_tenth": OpTestCase(FunctionModule(leaky_relu_tenth), random_inputs(1, (4, 100))),
    "slope_above_one": OpTestCase(FunctionModule(leaky_relu_steep), random_inputs(2, (2, 5, 32))),
    "after_conv": OpTestCase(seeded(3, _ConvLeakyRelu), random_inputs(4, (1, 8, 12, 12))),
}

OP = ArmOp(
    name="leaky_relu",
    edge_targets=(exir_ops.edge.aten.leaky_relu.default,),
    aten_targets=(torch.ops.aten.leaky_relu.default,),
    support=unary_support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
)
