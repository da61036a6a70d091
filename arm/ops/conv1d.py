"""aten.convolution (1-D, rank-3 input) -> a 1xK TOSA CONV2D / DEPTHWISE_CONV2D on [N, 1, L, C].

[N, C, L] is transposed to [N, L, C] and reshaped to NHWC with H = 1; the result comes back the same way.
The transposes are rank-3 and inverse to each other, so between consecutive 1-D convolutions (through
BatchNorm-folded adds and activations) the layout pass cancels them. conv2d.py owns the shared edge
operator and dispatches rank-3 nodes here. A stride above 3 (wav2vec2's first feature convolution: 10
taps, stride 5), which Vela refuses padded on the U55 and otherwise splits per output, is a
space-to-depth of [N, C, 1, L] and a stride-1 convolution (arm/ops/common/space_to_depth.py).
"""

from __future__ import annotations

import dataclasses

import torch
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.convolution import ConvWeights, ConvWindow, annotate_convolution, convolve_nhwc
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.space_to_depth import needs_space_to_depth, space_to_depth_convolution
from arm.ops.common.support import describe, profile_reason
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import transpose
from arm.tosa.specification import TosaSpecification

_SWAP_LAST_TWO = (0, 2, 1)


def support(node: Node, spec: TosaSpecification) -> str | None:
    """Called by conv2d's support rule for rank-3 convolution nodes."""
    x, weight, bias = node.args[:3]
    if len(shape_of(x)) != 3:
        return f"{describe(node)}: a 1-D convolution takes a rank-3 [N, C, L] input, got {shape_of(x)}"
    return profile_reason(node, spec, [x, weight] + ([bias] if bias is not None else []))


def annotate_conv1d(node: Node, config: QuantizationConfig) -> None:
    annotate_convolution(node, config)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, weight, bias, stride, padding, dilation, _, _, groups = node.args
    batch, channels, length = shape_of(x)
    _, out_channels, out_length = shape_of(node)
    weights = ConvWeights.read(ctx, weight, bias)
    weights = dataclasses.replace(weights, values=weights.values[:, :, None, :])
    window = ConvWindow.from_args(stride, padding, dilation, groups)
    output = None
    if needs_space_to_depth(window, (1, out_length), ctx.spec):
        x_nchw = reshape(ctx.graph, ctx.value(x), (batch, channels, 1, length), name=f"{node.name}_nchw_input")
        output = space_to_depth_convolution(
            ctx, node, x_nchw, weights, window, (batch, out_channels, 1, out_length), name=f"{node.name}_nhwc"
        )
    if output is None:
        time_major = transpose(ctx.graph, ctx.value(x), _SWAP_LAST_TWO, name=f"{node.name}_time_major")
        input_nhwc = reshape(ctx.graph, time_major, (batch, 1, length, channels), name=f"{node.name}_nhwc_input")
        output = convolve_nhwc(
            ctx,
            node,
            input_nhwc=input_nhwc,
            weights=weights,
            window=window,
            output_shape_nchw=(batch, out_channels, 1, out_length),
            name=f"{node.name}_nhwc",
        )
    rows = reshape(ctx.graph, output, (batch, out_length, out_channels), name=f"{node.name}_time_major_output")
    return transpose(ctx.graph, rows, _SWAP_LAST_TWO, name=node.name)


class _Conv1d(torch.nn.Module):
    def __init__(self, *args: object, relu: bool = False, **kwargs: object):
        super().__init__()
        self.conv = torch.nn.Conv1d(*args, **kwargs)
        self.relu = relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.relu(y) if self.relu else y


TEST_CASES = {
    "k3_pad1_relu": OpTestCase(seeded(0, _Conv1d, 8, 16, 3, padding=1, relu=True), random_inputs(0, (1, 8, 20))),
    # Stride 2 over 49 frames with a 9-tap kernel: the floored output drops the last input row.
    "k9_stride2_bias_free": OpTestCase(
        seeded(1, _Conv1d, 12, 8, 9, stride=2, padding=3, bias=False), random_inputs(1, (1, 12, 49))
    ),
    "depthwise_k5_dilation2": OpTestCase(
        seeded(2, _Conv1d, 8, 8, 5, padding=4, dilation=2, groups=8), random_inputs(2, (1, 8, 16))
    ),
    # wav2vec2's first feature convolution (one channel, 10 taps, stride 5), padded, which Vela refuses
    # on the U55 as it is: space-to-depth of the samples, the last partial block completed by a PAD.
    "k10_stride5_pad2": OpTestCase(seeded(3, _Conv1d, 1, 8, 10, stride=5, padding=2), random_inputs(3, (1, 1, 62))),
}

OP = ArmOp(
    name="conv1d",
    # conv2d.py owns the shared edge operator (aten.convolution) and dispatches rank-3 nodes here.
    edge_targets=(),
    aten_targets=(torch.ops.aten.conv1d.default, torch.ops.aten.conv1d.padding),
    support=support,
    annotate=annotate_conv1d,
    lower=lower,
    test_cases=TEST_CASES,
)
