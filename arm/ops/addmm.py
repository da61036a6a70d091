"""aten.addmm (beta * input + alpha * mat1 @ mat2) -> TOSA MATMUL, MUL and ADD.

FP: one MATMUL on [1, M, K] x [1, K, N], the scalar factors as MULs and the broadcast ADD.
INT: before annotation the node is rewritten into aten.mm, mul by the scalars and add, each
quantized on its own grid and lowered by matmul.py, mul.py and add.py: the sum of a matrix product
and a bias on another grid needs the rescales those ops already carry. With int16 activations (a16w8)
those pieces run where matmul and add do (the U85; Vela 5.2.0 has no int16 MATMUL on the U55, where
the mm stays on the CPU); matmul.py's a16w8 case covers that product.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.aten_rewrite import scaled_product_plus_input
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.common.unary import float_constant, fp_add, fp_mul
from arm.ops.matmul import matmul_values
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.specification import TosaSpecification


def _factors(node: Node) -> tuple[float, float]:
    """(beta, alpha)."""
    return node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)


def decompose(node: Node) -> None:
    """addmm -> add(mul(input, beta), mul(mm(mat1, mat2), alpha)), leaving out factors of 1 and a beta of 0."""
    scaled_product_plus_input(node, torch.ops.aten.mm.default)


def support(node: Node, spec: TosaSpecification) -> str | None:
    bias, lhs, rhs = node.args[:3]
    return first_reason(
        # Reached only when quantization left the node whole (its decomposition runs in the quantizer).
        f"{describe(node)}: {spec} lowers addmm as mm, mul and add quantized one by one" if spec.is_int else None,
        profile_reason(node, spec, [bias, lhs, rhs]),
    )


def annotate_addmm(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the node was decomposed before annotation."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    bias, lhs, rhs = node.args[:3]
    beta, alpha = _factors(node)
    rows, inner = shape_of(lhs)
    columns = shape_of(rhs)[1]
    product = matmul_values(
        ctx,
        reshape(ctx.graph, ctx.value(lhs), (1, rows, inner), name=f"{node.name}_lhs"),
        reshape(ctx.graph, ctx.value(rhs), (1, inner, columns), name=f"{node.name}_rhs"),
        name=f"{node.name}_product",
    )
    result = reshape(ctx.graph, product, (rows, columns), name=f"{node.name}_matrix")
    if alpha != 1:
        factor = float_constant(ctx, alpha, 2, name=f"{node.name}_alpha")
        result = fp_mul(ctx, result, factor, name=f"{node.name}_scaled")
    if beta == 0:
        return result
    bias_value = ctx.value(bias, rank=2)
    if beta != 1:
        bias_value = fp_mul(ctx, bias_value, float_constant(ctx, beta, 2, name=f"{node.name}_beta"),
                            name=f"{node.name}_bias_scaled")  # fmt: skip
    return fp_add(ctx, result, bias_value, name=node.name)


def addmm(bias: torch.Tensor, lhs: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    return torch.addmm(bias, lhs, rhs)


def addmm_scaled(bias: torch.Tensor, lhs: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    return torch.addmm(bias, lhs, rhs, beta=0.5, alpha=2.0)


class _AffineParameters(torch.nn.Module):
    """addmm on a weight and bias the module holds, as traced fully-connected layers are written."""

    def __init__(self, inputs: int, outputs: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(inputs, outputs) / inputs**0.5)
        self.bias = torch.nn.Parameter(torch.randn(outputs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.addmm(self.bias, x, self.weight)


TEST_CASES = {
    "bias_vector": OpTestCase(FunctionModule(addmm), random_inputs(0, (6,), (4, 8), (8, 6))),
    # beta and alpha, with a full [M, N] input.
    "scaled": OpTestCase(FunctionModule(addmm_scaled), random_inputs(1, (3, 5), (3, 7), (7, 5))),
    # Weight and bias held by the module, as traced fully-connected layers write addmm.
    "parameters": OpTestCase(seeded(2, _AffineParameters, 16, 8), random_inputs(2, (4, 16))),
}

OP = ArmOp(
    name="addmm",
    edge_targets=(exir_ops.edge.aten.addmm.default,),
    aten_targets=(torch.ops.aten.addmm.default,),
    support=support,
    annotate=annotate_addmm,
    lower=lower,
    test_cases=TEST_CASES,
    decompose_for_quantization=decompose,
)
