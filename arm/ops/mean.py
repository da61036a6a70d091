"""aten.mean.dim (and aten.mean.default, ``x.mean()``: every dim, a 0-d result) -> AVG_POOL2D over H and W of an NCHW tensor (what the NPU runs best), else REDUCE_SUM
and a scale by 1/count; quantized, the output keeps the input's grid.

On that shared grid an average of an even count of int8 values lands on a half step about once in
count/2, where torch rounds to even and AVG_POOL2D or a RESCALE rounds up: such means take the exact
form of arm/ops/common/ties_to_even.py instead (an int16 AVG_POOL2D over H and W, or REDUCE_SUM, then
five small int32 operators on the mean). mha_sequence's mean over 40 tokens was a step off on 1 of 8 logits that way.
An odd count has no half steps: a 1-D global average of [N, C, L] over L is AVG_POOL2D too (``_pooled_over_last_axis``).

adaptive_avg_pool2d to a 1x1 output reaches the edge dialect as this op, over dims (-1, -2), only where
arm/ops/adaptive_avg_pool2d.py does not keep it whole (where it is not delegated).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, half_precision_cases, random_inputs
from arm.ops.common.tie_inputs import half_step_averages
from arm.ops.common.ties_to_even import lower_average, lower_pooled_average
from arm.ops.common.pooling import PoolWindow, add_avg_pool2d, lower_pool, u55_reason
from arm.ops.common.reduction import lower_reduce_sum, reduced_dims, reduction_support
from arm.ops.common.arm_op import ArmOp
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import transpose
from arm.tosa.specification import TosaSpecification

_SPATIAL = [2, 3]
_SWAP_LAST_TWO = (0, 2, 1)


def _spatial_window(node: Node, spec: TosaSpecification) -> PoolWindow | None:
    """The global pool window when ``node`` averages an NCHW tensor over H and W and the target pools it."""
    shape = shape_of(node.args[0])
    if len(shape) != 4 or reduced_dims(node) != _SPATIAL:
        return None
    window = PoolWindow(kernel=(shape[2], shape[3]), stride=(1, 1))
    return window if u55_reason(node, spec, window, padded_avg=False) is None else None


def annotate_mean(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def _pooled_over_last_axis(node: Node, ctx: LoweringContext) -> TosaValue | None:
    """A mean of the int8 [N, C, L] over L (a 1-D global average, as after Conv1d blocks) as AVG_POOL2D of
    [N, 1, L, C], where it computes the integers of REDUCE_SUM and its RESCALE: onto the input's own grid
    with an odd count L, no average lands on a half step, so the pool's rounding and the RESCALE's agree
    (an even count takes the exact form of ties_to_even.py). [N, C, L] -> [N, L, C] is the inverse of
    conv1d.py's own transpose, which the layout pass cancels. kws_conv1d's [1, 48, 7]: U55-128 520 -> 334
    cycles (Vela transposed the REDUCE_SUM's axis innermost), U85-256 649 -> 188. None where it does not apply."""
    source = ctx.value(node.args[0])
    if not ctx.spec.is_int or source.rank != 3 or reduced_dims(node) != [2] or source.shape[2] % 2 == 0:
        return None
    output = ctx.output_qparams(node)
    if source.qparams is None or output is None or np.dtype(source.dtype) != np.int8 or not source.qparams.matches(output):
        return None
    batch, channels, length = source.shape
    window = PoolWindow(kernel=(1, length), stride=(1, 1))
    if u55_reason(node, ctx.spec, window, padded_avg=False, input_shape=(batch, channels, 1, length)) is not None:
        return None
    rows = transpose(ctx.graph, source, _SWAP_LAST_TWO, name=f"{node.name}_time_major")
    image = reshape(ctx.graph, rows, (batch, 1, length, channels), name=f"{node.name}_image")
    pooled = ctx.graph.add_tensor(f"{node.name}_pooled", (batch, 1, 1, channels), source.dtype, output)
    window_attributes = ((1, length), (1, 1), (0, 0, 0, 0))
    add_avg_pool2d(ctx.graph, image, pooled, window_attributes, source.qparams.zero_point, ts.DType.INT32)
    return reshape(ctx.graph, pooled, shape_of(node), name=node.name)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    pooled = _pooled_over_last_axis(node, ctx)
    if pooled is not None:
        return pooled
    window = _spatial_window(node, ctx.spec)
    exact = lower_pooled_average(node, ctx, window.kernel) if window is not None else None
    exact = exact if exact is not None else lower_average(node, ctx, reduced_dims(node))
    if exact is not None:
        return exact
    if window is None:
        count = math.prod(shape_of(node.args[0])[dim] for dim in reduced_dims(node))
        return lower_reduce_sum(node, ctx, factor=1.0 / count)
    pooled = lower_pool(ctx, node, ts.Op.AVG_POOL2D, window, pad_inside=True, name=f"{node.name}_pooled")
    return pooled if pooled.shape == shape_of(node) else reshape(ctx.graph, pooled, shape_of(node), name=node.name)


def global_average(x: torch.Tensor) -> torch.Tensor:
    return x.mean((2, 3))


def global_average_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.mean((-1, -2), keepdim=True)


def adaptive_to_1x1(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 1)


def over_channels(x: torch.Tensor) -> torch.Tensor:
    return x.mean(1, keepdim=True)


def last_dim(x: torch.Tensor) -> torch.Tensor:
    return x.mean(-1)


def two_leading(x: torch.Tensor) -> torch.Tensor:
    return x.mean((0, 1))


def over_tokens(x: torch.Tensor) -> torch.Tensor:
    return x.mean(1)


def whole_tensor(x: torch.Tensor) -> torch.Tensor:
    """aten.mean.default, which to_edge keeps as it is: the mean of every element, 0-d."""
    return x.mean()


TEST_CASES = {
    "spatial": OpTestCase(FunctionModule(global_average), random_inputs(0, (1, 16, 7, 7))),
    "spatial_keepdim": OpTestCase(FunctionModule(global_average_keepdim), random_inputs(1, (1, 8, 5, 6))),
    "adaptive_1x1": OpTestCase(FunctionModule(adaptive_to_1x1), random_inputs(2, (1, 12, 4, 4))),
    "spatial_batch2": OpTestCase(FunctionModule(global_average), random_inputs(3, (2, 8, 4, 4))),
    "channels": OpTestCase(FunctionModule(over_channels), random_inputs(4, (1, 8, 5, 5))),
    "last_dim": OpTestCase(FunctionModule(last_dim), random_inputs(5, (3, 4, 10))),
    "two_leading": OpTestCase(FunctionModule(two_leading), random_inputs(6, (2, 3, 12))),
    # A 1-D global average of an odd count (kws_conv1d's [1, 48, 7]): AVG_POOL2D, no step off the quantized
    # model; batch 2, which the U55 does not pool, keeps REDUCE_SUM there.
    "last_dim_odd_count": OpTestCase(
        FunctionModule(last_dim), random_inputs(10, (1, 48, 7)), differing_from_quantized=0.0, float64_oracle=True
    ),
    "last_dim_odd_count_batch2": OpTestCase(
        FunctionModule(last_dim), random_inputs(11, (2, 8, 9)), differing_from_quantized=0.0, float64_oracle=True
    ),
    "whole_tensor": OpTestCase(FunctionModule(whole_tensor), random_inputs(9, (1, 3, 4, 5))),
    # Means on half steps of their grid (see tie_inputs.py), which the quantized model rounds to even:
    # mha_sequence's mean over 40 tokens (zero point 0), and a global spatial mean (zero point -1, the
    # other parity). No output may be a step off.
    "tokens_ties_to_even": OpTestCase(
        FunctionModule(over_tokens), (half_step_averages(7, (1, 40, 8), [1], zero_point=0),),
        differing_from_quantized=0.0,
    ),
    "spatial_ties_to_even": OpTestCase(
        FunctionModule(global_average), (half_step_averages(8, (1, 12, 2, 4), [2, 3], zero_point=-1),),
        differing_from_quantized=0.0,
    ),
    # MixNet-S's squeeze-excite means: 2x2 maps (the two-convolution form), many channels, an even
    # zero point (the other parity of the conv form's two halves).
    "squeeze_excite_2x2_ties_to_even": OpTestCase(
        FunctionModule(global_average_keepdim), (half_step_averages(9, (1, 180, 2, 2), [2, 3], zero_point=0),),
        differing_from_quantized=0.0,
    ),
}

# The op in float16 and bfloat16 on the float targets (the float-type rule: arm/ops/common/support.py).
TEST_CASES |= half_precision_cases(OpTestCase(FunctionModule(over_channels), random_inputs(20, (1, 6, 3, 4))))

OP = ArmOp(
    name="mean",
    edge_targets=(exir_ops.edge.aten.mean.dim, exir_ops.edge.aten.mean.default),
    aten_targets=(torch.ops.aten.mean.dim, torch.ops.aten.mean.default),
    support=reduction_support,
    annotate=annotate_mean,
    lower=lower,
    test_cases=TEST_CASES,
)
