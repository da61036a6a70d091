"""aten.rms_norm (nn.RMSNorm, Llama's norm) -> x * rsqrt(mean(x * x) + eps) * weight.

INT: split before annotation into mul (x * x), mean, add (eps), rsqrt, mul and mul (weight), each
quantized and lowered by its own op file. FP: lowered whole, as MUL, REDUCE_SUM, MUL (1/N), ADD,
RSQRT, MUL and MUL.
"""

from __future__ import annotations

import dataclasses
import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.axis_reduction import reduce
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import emit_unary, float_constant, fp_add, fp_mul
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

aten = torch.ops.aten


@dataclasses.dataclass(frozen=True)
class RmsNormCall:
    x: Node
    axes: tuple[int, ...]  # the normalized trailing axes
    weight: Node | None
    eps: float


def rms_norm_call(node: Node) -> RmsNormCall:
    x, normalized_shape = node.args[:2]
    weight = node.args[2] if len(node.args) > 2 else node.kwargs.get("weight")
    eps = node.args[3] if len(node.args) > 3 else node.kwargs.get("eps")
    rank = len(shape(x))
    axes = tuple(range(rank - len(normalized_shape), rank))
    return RmsNormCall(x, axes, weight, torch.finfo(torch.float32).eps if eps is None else float(eps))


def support(node: Node, spec: TosaSpecification) -> str | None:
    call = rms_norm_call(node)
    return first_reason(
        f"{describe(node)}: {spec} lowers rms_norm after EthosUQuantizer has split it into mul, mean and rsqrt; "
        "quantize the model with the Arm quantizer"
        if spec.is_int
        else None,
        profile_reason(node, spec, [call.x]),
        rank_reason(node, shape(call.x)),
    )


def decompose(node: Node) -> None:
    call = rms_norm_call(node)
    build = AtenBuilder(node)
    square = build.call(aten.mul.Tensor, call.x, call.x)
    mean_square = build.call(aten.mean.dim, square, list(call.axes), True)
    inverse = build.call(aten.rsqrt.default, build.call(aten.add.Tensor, mean_square, call.eps))
    normalized = build.call(aten.mul.Tensor, call.x, inverse)
    if call.weight is not None:
        normalized = build.call(aten.mul.Tensor, normalized, call.weight)
    node.replace_all_uses_with(normalized)


def annotate_rms_norm(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the node was split before annotation."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    """FP only."""
    call = rms_norm_call(node)
    x = ctx.value(call.x)
    square = fp_mul(ctx, x, x, name=f"{node.name}_square")
    total = square
    for axis in call.axes:
        total = reduce(ctx.graph, ts.Op.REDUCE_SUM, total, axis, name=f"{node.name}_sum{axis}")
    count = math.prod(x.shape[axis] for axis in call.axes)
    mean = fp_mul(ctx, total, float_constant(ctx, 1.0 / count, x.rank, name=f"{node.name}_inverse_count", dtype=x.dtype),
                  name=f"{node.name}_mean")  # fmt: skip
    shifted = fp_add(ctx, mean, float_constant(ctx, call.eps, x.rank, name=f"{node.name}_eps", dtype=x.dtype), name=f"{node.name}_shifted")
    inverse = emit_unary(ctx, ts.Op.RSQRT, ts.TosaSerializerAttribute.RsqrtAttribute, shifted, name=f"{node.name}_rsqrt")
    normalized = fp_mul(ctx, x, inverse, name=f"{node.name}_normalized" if call.weight is not None else node.name)
    if call.weight is None:
        return normalized
    return fp_mul(ctx, normalized, ctx.value(call.weight, rank=x.rank), name=node.name)


class _RmsNorm(torch.nn.Module):
    def __init__(self, shape: tuple[int, ...], affine: bool = True):
        super().__init__()
        self.norm = torch.nn.RMSNorm(shape, eps=1e-6, elementwise_affine=affine)
        if affine:
            torch.nn.init.uniform_(self.norm.weight, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


TEST_CASES = {
    "tokens": OpTestCase(seeded(0, _RmsNorm, (32,)), random_inputs(0, (1, 10, 32))),
    "no_weight": OpTestCase(seeded(1, _RmsNorm, (16,), False), random_inputs(1, (4, 16))),
    "two_axes": OpTestCase(seeded(2, _RmsNorm, (4, 8)), random_inputs(2, (2, 4, 8))),
}

OP = ArmOp(
    name="rms_norm",
    edge_targets=(exir_ops.edge.aten.rms_norm.default,),
    aten_targets=(aten.rms_norm.default,),
    support=support,
    annotate=annotate_rms_norm,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(aten.rms_norm.default,),
    decompose_for_quantization=decompose,
)
