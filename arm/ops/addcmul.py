"""aten.addcmul (input + value * tensor1 * tensor2) -> TOSA MUL and ADD.

ConvNeXt-V2's global response normalization ends in ``addcmul(bias, weight, x * norm)``. FP: the two
MULs (and the ``value`` factor) and the broadcast ADD. INT: before annotation the node is rewritten into
aten.mul and aten.add, each quantized on its own grid and lowered by mul.py and add.py (a product and a
sum on other grids need the rescales those ops carry). Left whole, pt2e annotated nothing in it: timm's
``convnextv2_atto`` kept 12 muls and 12 adds on the CPU, in 13 partitions.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.aten_rewrite import AtenBuilder
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.common.unary import float_constant, fp_add, fp_mul
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def _value(node: Node) -> float:
    return node.kwargs.get("value", node.args[3] if len(node.args) > 3 else 1)


def decompose(node: Node) -> None:
    """addcmul -> add(input, mul(mul(tensor1, tensor2), value)), leaving out a value of 1."""
    bias, lhs, rhs = node.args[:3]
    value = _value(node)
    build = AtenBuilder(node)
    product = build.call(torch.ops.aten.mul.Tensor, lhs, rhs)
    if value != 1:
        product = build.call(torch.ops.aten.mul.Tensor, product, float(value))
    node.replace_all_uses_with(build.call(torch.ops.aten.add.Tensor, bias, product))


def support(node: Node, spec: TosaSpecification) -> str | None:
    bias, lhs, rhs = node.args[:3]
    return first_reason(
        # Reached only when quantization left the node whole (its decomposition runs in the quantizer).
        f"{describe(node)}: {spec} lowers addcmul as mul and add quantized one by one" if spec.is_int else None,
        profile_reason(node, spec, [bias, lhs, rhs]),
    )


def annotate_addcmul(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the node was decomposed before annotation."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    bias, lhs, rhs = node.args[:3]
    rank = len(shape_of(node))
    product = fp_mul(ctx, ctx.value(lhs, rank=rank), ctx.value(rhs, rank=rank), name=f"{node.name}_product")
    value = _value(node)
    if value != 1:
        factor = float_constant(ctx, value, rank, name=f"{node.name}_value", dtype=product.dtype)
        product = fp_mul(ctx, product, factor, name=f"{node.name}_scaled")
    return fp_add(ctx, ctx.value(bias, rank=rank), product, name=node.name)


def addcmul_scaled(bias: torch.Tensor, lhs: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    return torch.addcmul(bias, lhs, rhs, value=0.5)


class _ResponseNormTail(torch.nn.Module):
    """ConvNeXt-V2's GRN tail: per-channel bias and weight parameters broadcast over a channels-last map
    (value 1, so the decomposition is one mul and one add)."""

    def __init__(self, channels: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(channels))
        self.bias = torch.nn.Parameter(torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.addcmul(self.bias, self.weight, x * x.abs().mean(dim=(1, 2), keepdim=True))


TEST_CASES = {
    # value != 1, and a broadcast factor.
    "scaled": OpTestCase(FunctionModule(addcmul_scaled), random_inputs(1, (3, 5), (3, 5), (1, 5))),
    "response_norm": OpTestCase(seeded(2, _ResponseNormTail, 8), random_inputs(2, (1, 4, 4, 8))),
}

OP = ArmOp(
    name="addcmul",
    edge_targets=(exir_ops.edge.aten.addcmul.default,),
    aten_targets=(torch.ops.aten.addcmul.default,),
    support=support,
    annotate=annotate_addcmul,
    lower=lower,
    test_cases=TEST_CASES,
    decompose_for_quantization=decompose,
)
