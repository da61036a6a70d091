"""aten.adaptive_avg_pool3d to outputs of 1 along the pooled dims -> a mean (INT) or REDUCE_SUM and a scale (FP).

Video networks (torchvision's r3d_18, mc3_18, r2plus1d_18, X3D) end in ``AdaptiveAvgPool3d(1)``; the
output of every dim is then 1, or the input's own size where a model pools only some dims. Such a pool
is a mean over the pooled dims. INT: before annotation the node becomes aten.mean (arm/ops/mean.py: the
exact ties-to-even average, on the input's grid); a pool over depth, height and width first merges H
and W, so the mean is mean.py's global AVG_POOL2D of a rank-4 tensor, the form the NPU runs best, and
a view restores the rank-5 shape. FP: REDUCE_SUM over the pooled dims, times 1/count. Other output
sizes (windows of several values along a dim) stay on the CPU: no TOSA operator pools over depth.
Left alone, pt2e annotated nothing in the node and to_edge kept it: r3d_18's pool ran on the CPU in
float, after a dequantize.
"""

from __future__ import annotations

import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.aten_rewrite import AtenBuilder
from arm.ops.common.axis_reduction import reduce
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.common.unary import float_constant, fp_mul
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_VOLUME = (2, 3, 4)  # D, H, W of an NCDHW tensor


def pooled_dims(node: Node) -> list[int] | None:
    """The dims the pool averages whole (output 1, input more), or None when some dim has windows of
    several values that do not cover it (no mean computes those)."""
    source, result = shape_of(node.args[0]), shape_of(node)
    if len(source) != 5:
        return None
    if any(result[dim] not in (1, source[dim]) for dim in _VOLUME):
        return None
    return [dim for dim in _VOLUME if result[dim] == 1 and source[dim] > 1]


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if pooled_dims(node) is None:
        return (
            f"{describe(node)}: output size {list(shape_of(node)[2:])} of input {list(shape_of(x))}: only pools "
            "to 1 (or the input's own size) along each of D, H and W are lowered (a mean over those dims)"
        )
    return first_reason(
        # Reached only when quantization left the node whole (its decomposition runs in the quantizer).
        f"{describe(node)}: {spec} lowers adaptive_avg_pool3d as a quantized mean" if spec.is_int else None,
        profile_reason(node, spec, [x]),
    )


def decompose(node: Node) -> None:
    """adaptive_avg_pool3d -> mean over the pooled dims (over H*W merged, when D, H and W are all pooled)."""
    dims = pooled_dims(node)
    if dims is None:
        return  # stays whole: the support rule keeps it on the CPU with its reason
    x = node.args[0]
    build = AtenBuilder(node)
    if not dims:
        result = build.call(torch.ops.aten.clone.default, x)
    elif dims == list(_VOLUME):
        batch, channels, depth, height, width = shape_of(x)
        planes = build.call(torch.ops.aten.view.default, x, [batch, channels, depth, height * width])
        mean = build.call(torch.ops.aten.mean.dim, planes, [2, 3], True)
        result = build.call(torch.ops.aten.view.default, mean, list(shape_of(node)))
    else:
        result = build.call(torch.ops.aten.mean.dim, x, dims, True)
    node.replace_all_uses_with(result)


def annotate_adaptive_avg_pool3d(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the node was decomposed before annotation (or stays on the CPU)."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    dims = pooled_dims(node)
    for dim in dims:
        value = reduce(ctx.graph, ts.Op.REDUCE_SUM, value, dim, name=f"{node.name}_sum{dim}")
    count = math.prod(shape_of(node.args[0])[dim] for dim in dims)
    factor = float_constant(ctx, 1.0 / count, len(value.shape), name=f"{node.name}_inverse_count", dtype=value.dtype)
    return fp_mul(ctx, value, factor, name=node.name)


def to_1x1x1(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool3d(x, 1)


def over_depth(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool3d(x, (1, x.shape[3], x.shape[4]))


def to_2x2x2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool3d(x, 2)


_EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")

TEST_CASES = {
    # r3d_18's head: the whole clip pooled to one value per channel.
    "to_1x1x1": OpTestCase(FunctionModule(to_1x1x1), random_inputs(0, (1, 8, 2, 4, 4))),
    # Time pooled away, the frame kept (a mean over one dim of a rank-5 tensor).
    "over_depth": OpTestCase(FunctionModule(over_depth), random_inputs(1, (1, 4, 3, 2, 3))),
    # Windows of 2 along each dim: no single TOSA operator averages them.
    "4x4x4_to_2x2x2": OpTestCase(
        FunctionModule(to_2x2x2), random_inputs(2, (1, 2, 4, 4, 4)), cpu_targets=_EVERY_TARGET
    ),
}

OP = ArmOp(
    name="adaptive_avg_pool3d",
    edge_targets=(exir_ops.edge.aten._adaptive_avg_pool3d.default,),
    aten_targets=(torch.ops.aten.adaptive_avg_pool3d.default, torch.ops.aten._adaptive_avg_pool3d.default),
    support=support,
    annotate=annotate_adaptive_avg_pool3d,
    lower=lower,
    test_cases=TEST_CASES,
    decompose_for_quantization=decompose,
)
