"""The sum over each pooling window, as a DEPTHWISE_CONV2D with a kernel of ones.

avg_pool2d with ``divisor_override`` is sum / divisor, whatever the window counts: PyTorch sums the
elements inside the input (padding and a ceil_mode overhang add nothing) and always divides by the
divisor. A convolution pads with real zeros, so every window's sum is exact, in the INT profile too:
the codes' distances from the zero point accumulate in int32 (int48 for int16 inputs) and one RESCALE
by s_x / (s_out * divisor) rounds the quotient once, where AVG_POOL2D would round the mean before any
factor could scale it.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.pooling import PoolWindow
from arm.ops.common.unary import float_constant, fp_mul
from arm.tosa.context import LoweringContext
from arm.tosa.graph import INT48, TosaValue, slice_tensor, tosa_dtype
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.rescale import rescale


def window_sum_nhwc(ctx: LoweringContext, node: Node, window: PoolWindow, nchw_input: TosaValue) -> TosaValue:
    """The NHWC sum of each window of ``nchw_input``: float in FP; in INT the int32 (int48) accumulator
    of code distances, worth the input's step each."""
    batch, channels, height, width = nchw_input.shape
    out_h, out_w = window.output_size(height, width)
    pad_h, pad_w = window.axis_padding(height, 0, out_h), window.axis_padding(width, 1, out_w)
    value = to_nhwc(ctx.graph, nchw_input)
    used_h, used_w = height - pad_h.dropped, width - pad_w.dropped
    if (used_h, used_w) != (height, width):  # rows no window reads: TOSA wants the windows to tile exactly
        value = slice_tensor(ctx.graph, value, (0, 0, 0, 0), (batch, used_h, used_w, channels), name=f"{node.name}_read")
    if ctx.spec.is_fp:
        weight_type, accumulator, zero_point = value.dtype, np.dtype(np.float32), 0.0
    else:
        weight_type, zero_point = np.dtype(np.int8), value.qparams.zero_point
        accumulator = INT48 if value.dtype == np.int16 else np.dtype(np.int32)
    output_type = value.dtype if ctx.spec.is_fp else accumulator
    operands = [
        value,
        ctx.graph.add_const(f"{node.name}_ones", np.ones((*window.kernel, channels, 1), dtype=weight_type)),
        ctx.graph.add_const(f"{node.name}_no_bias", np.zeros(channels, dtype=output_type)),
        ctx.graph.add_scalar_const(f"{node.name}_input_zp", zero_point, value.dtype),
        ctx.graph.add_scalar_const(f"{node.name}_weight_zp", 0, weight_type),
    ]
    output = ctx.graph.add_tensor(f"{node.name}_window_sum", (batch, out_h, out_w, channels), output_type)
    attribute = ts.TosaSerializerAttribute()
    attribute.DepthwiseConv2dAttribute(
        pad=[pad_h.before, pad_h.after, pad_w.before, pad_w.after],
        stride=list(window.stride),
        dilation=[1, 1],
        local_bound=False,
        acc_type=tosa_dtype(accumulator),
    )
    ctx.graph.add_op(ts.Op.DEPTHWISE_CONV2D, operands, [output], attribute)
    return output


def window_sum_divided(ctx: LoweringContext, node: Node, window: PoolWindow, divisor: int) -> TosaValue:
    """``node``'s input pooled as sum / divisor, in NCHW named like the node (INT: on its output grid)."""
    nchw_input = ctx.value(node.args[0])
    window = window.for_input(*nchw_input.shape[2:])
    total = window_sum_nhwc(ctx, node, window, nchw_input)
    if ctx.spec.is_fp:
        reciprocal = float_constant(ctx, 1.0 / divisor, total.rank, name=f"{node.name}_reciprocal", dtype=total.dtype)
        divided = fp_mul(ctx, total, reciprocal, name=f"{node.name}_divided")
    else:
        output = ctx.output_qparams(node)
        divided = rescale(
            ctx.graph,
            total,
            name=f"{node.name}_divided",
            scales=[nchw_input.qparams.scale / (output.scale * divisor)],
            output_dtype=output.dtype,
            input_zp=0,
            output_zp=output.zero_point,
            output_qparams=output,
        )
    return to_nchw(ctx.graph, divided, name=node.name)
