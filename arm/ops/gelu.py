"""aten.gelu (exact or tanh-approximated) -> ERF/TANH arithmetic (FP) or one TABLE (INT)."""

from __future__ import annotations

import functools
import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason
from arm.ops.common.unary import annotate_unary, emit_unary, float_constant, fp_add, fp_mul, lower_table, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_APPROXIMATIONS = ("none", "tanh")


def _approximate(node: Node) -> str:
    return node.kwargs.get("approximate", "none")


def support(node: Node, spec: TosaSpecification) -> str | None:
    approximate = _approximate(node)
    return first_reason(
        None if approximate in _APPROXIMATIONS else f"{describe(node)}: unknown gelu approximation {approximate!r}",
        unary_support(node, spec),
    )


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    approximate = _approximate(node)
    if ctx.spec.is_int:
        return lower_table(node, ctx, functools.partial(torch.nn.functional.gelu, approximate=approximate))
    value = ctx.value(node.args[0])
    gate = _tanh_gate(ctx, value, node.name) if approximate == "tanh" else _erf_gate(ctx, value, node.name)
    # gelu = x * (1 + gate) / 2
    one = float_constant(ctx, 1.0, value.rank, name=f"{node.name}_one", dtype=value.dtype)
    half = float_constant(ctx, 0.5, value.rank, name=f"{node.name}_half", dtype=value.dtype)
    half_x = fp_mul(ctx, value, half, name=f"{node.name}_half_x")
    return fp_mul(ctx, half_x, fp_add(ctx, gate, one, name=f"{node.name}_one_plus"), name=node.name)


def _erf_gate(ctx: LoweringContext, value: TosaValue, name: str) -> TosaValue:
    """erf(x / sqrt(2))."""
    scale = float_constant(ctx, math.sqrt(0.5), value.rank, name=f"{name}_rsqrt2", dtype=value.dtype)
    scaled = fp_mul(ctx, value, scale, name=f"{name}_scaled")
    return emit_unary(ctx, ts.Op.ERF, ts.TosaSerializerAttribute.ErfAttribute, scaled, name=f"{name}_erf")


def _tanh_gate(ctx: LoweringContext, value: TosaValue, name: str) -> TosaValue:
    """tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))."""
    cube = fp_mul(ctx, value, fp_mul(ctx, value, value, name=f"{name}_square"), name=f"{name}_cube")
    coefficient = float_constant(ctx, 0.044715, value.rank, name=f"{name}_coefficient", dtype=value.dtype)
    inner = fp_add(ctx, value, fp_mul(ctx, cube, coefficient, name=f"{name}_cubic"), name=f"{name}_inner")
    scale = float_constant(ctx, math.sqrt(2.0 / math.pi), value.rank, name=f"{name}_scale", dtype=value.dtype)
    scaled = fp_mul(ctx, inner, scale, name=f"{name}_scaled")
    return emit_unary(ctx, ts.Op.TANH, ts.TosaSerializerAttribute.TanhAttribute, scaled, name=f"{name}_tanh")


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x, approximate="tanh")


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.nn.functional.gelu), random_inputs(0, (1, 8, 16, 16))),
    "rank3": OpTestCase(FunctionModule(torch.nn.functional.gelu), random_inputs(1, (2, 10, 64))),
    "tanh_rank3": OpTestCase(FunctionModule(gelu_tanh), random_inputs(2, (2, 10, 64))),
}

OP = ArmOp(
    name="gelu",
    edge_targets=(exir_ops.edge.aten.gelu.default,),
    aten_targets=(torch.ops.aten.gelu.default,),
    support=support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
)
