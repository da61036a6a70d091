"""aten.max_pool1d -> RESHAPE [N, C, L] to [N, C, 1, L], a 1xK TOSA MAX_POOL2D in NHWC, RESHAPE back.

to_edge would write it as unsqueeze, max_pool2d_with_indices, getitem and squeeze, whose indices
output has no TOSA form; kept whole (where delegated) it is one MAX_POOL2D with the 2-D pools'
window arithmetic (common/pooling.py: floored or ceil_mode output size, padding as -inf).
"""

from __future__ import annotations

import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.pooling import PoolWindow, lower_pool, u55_reason
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.specification import TosaSpecification

_DEFAULTS = ([], [0], [1], False)  # stride, padding, dilation, ceil_mode


def _window(node: Node) -> tuple[PoolWindow, int]:
    """The pool as a 1xK window on [N, C, 1, L], and its dilation."""
    kernel, *given = node.args[1:]
    stride, padding, dilation, ceil_mode = (*given, *_DEFAULTS[len(given) :])
    first = lambda value: value if isinstance(value, int) else value[0]  # noqa: E731
    stride = stride or kernel
    window = PoolWindow((1, first(kernel)), (1, first(stride)), (0, first(padding)), ceil_mode)
    return window, first(dilation)


def _pooled_shape(node: Node) -> tuple[int, int, int, int]:
    """[N, C, 1, L] for a [N, C, L] or [C, L] input."""
    *batch, channels, length = shape_of(node.args[0])
    return (math.prod(batch), channels, 1, length)


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) not in (2, 3):
        return f"{describe(node)}: a 1-D max pool takes a [N, C, L] or [C, L] input, got shape {shape_of(x)}"
    window, dilation = _window(node)
    return first_reason(
        f"{describe(node)}: dilation {dilation} is not lowered (TOSA MAX_POOL2D has none)" if dilation != 1 else None,
        u55_reason(node, spec, window, padded_avg=False, input_shape=_pooled_shape(node)),
        profile_reason(node, spec, [x]),
    )


def annotate_max_pool1d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window, _ = _window(node)
    rows = reshape(ctx.graph, ctx.value(node.args[0]), _pooled_shape(node), name=f"{node.name}_rows")
    pooled = lower_pool(ctx, node, ts.Op.MAX_POOL2D, window, pad_inside=True, name=f"{node.name}_4d", nchw_input=rows)
    return reshape(ctx.graph, pooled, shape_of(node), name=node.name)


def pool3_stride2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 3, stride=2)


def pool2_pad1_ceil(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 2, padding=1, ceil_mode=True)


def pool_stride4(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 4)


TEST_CASES = {
    # 17 samples: the floored output leaves the last one unread.
    "k3_stride2": OpTestCase(FunctionModule(pool3_stride2), random_inputs(0, (1, 8, 17))),
    # Unbatched [C, L]; ceil_mode with padding: 11 + 2 -> 7 windows.
    "k2_pad1_ceil_unbatched": OpTestCase(FunctionModule(pool2_pad1_ceil), random_inputs(1, (4, 11))),
    # Stride 4 exceeds the U55's pooling stride limit of 3.
    "stride4": OpTestCase(FunctionModule(pool_stride4), random_inputs(2, (1, 4, 16)), cpu_targets=("u55_INT",)),
}

OP = ArmOp(
    name="max_pool1d",
    edge_targets=(exir_ops.edge.aten.max_pool1d.default,),
    aten_targets=(torch.ops.aten.max_pool1d.default,),
    support=support,
    annotate=annotate_max_pool1d,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.max_pool1d.default,),
)
