"""aten.convolution (2-D) -> TRANSPOSE to NHWC, CONV2D / DEPTHWISE_CONV2D, TRANSPOSE back to NCHW.

A stride above 3 (ViT and PVT patch embeddings), which Vela refuses or splits per output pixel, is a
space-to-depth of the input and a stride-1 CONV2D over the blocks (arm/ops/common/space_to_depth.py).

Transposed, 1-D and 3-D convolutions share the edge operator; their support rules and lowerings live in
transpose_conv2d.py, conv1d.py and conv3d.py.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops import conv1d, conv3d, transpose_conv2d
from arm.ops.common.convolution import (
    ConvWeights,
    ConvWindow,
    annotate_convolution,
    convolve_nhwc,
)
from arm.ops.common.space_to_depth import needs_space_to_depth, space_to_depth_convolution
from arm.ops.common.op_test_case import OpTestCase, half_precision_cases, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, profile_reason
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, weight, bias, _, _, _, transposed, _, _ = node.args
    input_shape = shape_of(x)
    if len(input_shape) == 5:
        return conv3d.support(node, spec)
    if transposed:
        return transpose_conv2d.support(node, spec)
    if len(input_shape) == 3:
        return conv1d.support(node, spec)
    if len(input_shape) != 4:
        return f"{describe(node)}: only 2-D convolution (rank-4 input) is lowered, got input shape {input_shape}"
    return profile_reason(node, spec, [x, weight] + ([bias] if bias is not None else []))


def annotate_conv2d(node: Node, config: QuantizationConfig) -> None:
    annotate_convolution(node, config)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, weight, bias, stride, padding, dilation, transposed, _, groups = node.args
    if len(shape_of(x)) == 5:
        return conv3d.lower(node, ctx)
    if transposed:
        return transpose_conv2d.lower(node, ctx)
    if len(shape_of(x)) == 3:
        return conv1d.lower(node, ctx)
    weights = ConvWeights.read(ctx, weight, bias)
    window = ConvWindow.from_args(stride, padding, dilation, groups)
    if needs_space_to_depth(window, shape_of(node)[2:], ctx.spec):
        blocked = space_to_depth_convolution(ctx, node, ctx.value(x), weights, window, shape_of(node), name=f"{node.name}_nhwc")
        if blocked is not None:
            return to_nchw(ctx.graph, blocked, name=node.name)
    output = convolve_nhwc(
        ctx,
        node,
        input_nhwc=to_nhwc(ctx.graph, ctx.value(x)),
        weights=weights,
        window=window,
        output_shape_nchw=shape_of(node),
        name=f"{node.name}_nhwc",
    )
    return to_nchw(ctx.graph, output, name=node.name)


class _Conv(torch.nn.Module):
    def __init__(self, *args: object, relu: bool = False, **kwargs: object):
        super().__init__()
        self.conv = torch.nn.Conv2d(*args, **kwargs)
        self.relu = relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.relu(y) if self.relu else y


TEST_CASES = {
    "3x3": OpTestCase(seeded(0, _Conv, 8, 16, 3, padding=1), random_inputs(0, (1, 8, 16, 16))),
    "stride2_pad1": OpTestCase(seeded(1, _Conv, 16, 32, 3, stride=2, padding=1), random_inputs(1, (1, 16, 15, 15))),
    "stride2_trim": OpTestCase(seeded(2, _Conv, 4, 8, 3, stride=2), random_inputs(2, (1, 4, 16, 16))),
    "depthwise": OpTestCase(seeded(3, _Conv, 16, 16, 3, padding=1, groups=16), random_inputs(3, (1, 16, 12, 12))),
    "depthwise_multiplier2": OpTestCase(seeded(4, _Conv, 8, 16, 3, groups=8), random_inputs(4, (1, 8, 10, 10))),
    "dilation2": OpTestCase(seeded(5, _Conv, 8, 8, 3, padding=2, dilation=2), random_inputs(5, (1, 8, 16, 16))),
    "1x1_bias_free": OpTestCase(seeded(6, _Conv, 32, 16, 1, bias=False), random_inputs(6, (1, 32, 8, 8))),
    # 16 channels in rows of 96: on the U85 the convolution reads the NCHW input itself, as [1, 16, 4*96, 1]
    # with a kernel (16, 1) (arm/tosa/transpose_collapsing.py pointwise_convolutions_of_channels_first).
    "1x1_channels_first_rows": OpTestCase(seeded(14, _Conv, 16, 4, 1), random_inputs(14, (1, 16, 4, 96))),
    "5x3_rect": OpTestCase(seeded(7, _Conv, 3, 8, (5, 3), padding=(2, 1)), random_inputs(7, (1, 3, 20, 12))),
    "same_padding": OpTestCase(seeded(10, _Conv, 6, 8, 3, padding="same"), random_inputs(10, (1, 6, 9, 9))),
    "groups2": OpTestCase(seeded(9, _Conv, 8, 12, 3, padding=1, groups=2), random_inputs(9, (1, 8, 10, 10))),
    # A ViT's patch embedding (stride == kernel > 3): space-to-depth and a 1x1 convolution.
    "patches": OpTestCase(seeded(13, _Conv, 3, 16, 8, stride=8), random_inputs(13, (2, 3, 24, 32))),
    # PVT-v2's spatial reduction on a 2x2 output: Vela takes it as it is (unpadded), and on the U85 its
    # per-pixel split costs less than the blocks' one CONV2D, so there it stays a stride-8 CONV2D.
    "stride8_few_outputs": OpTestCase(
        seeded(17, _Conv, 8, 8, 8, stride=8), random_inputs(17, (1, 8, 16, 16)), targets=("u55_INT", "u85_INT")
    ),
    # Strides above 3 with padding, which Vela refuses on the U55: space-to-depth and a stride-1
    # CONV2D. PVT-v2's stem (7x7, stride 4, padding 3) on an RGB input (read in NCHW); PoolFormer-v2's
    # geometry (padding 2) on 8 channels (read in NHWC) and a map that ends in partial blocks (a
    # zero-point PAD completes the rows, the convolution pads the columns); unequal strides, dilation
    # and groups, with trailing rows no output reads (sliced off).
    "stride4_pad3": OpTestCase(seeded(14, _Conv, 3, 8, 7, stride=4, padding=3), random_inputs(14, (1, 3, 16, 16))),
    "stride4_pad2_partial_blocks": OpTestCase(
        seeded(15, _Conv, 8, 8, 7, stride=4, padding=2, relu=True), random_inputs(15, (1, 8, 18, 15))
    ),
    "stride5x4_dilation2_groups2": OpTestCase(
        seeded(16, _Conv, 4, 6, (3, 2), stride=(5, 4), padding=(1, 2), dilation=2, groups=2),
        random_inputs(16, (1, 4, 21, 18)),
        targets=("tosa_INT", "u55_INT"),  # the geometry; space_to_depth_test covers its algebra exhaustively
    ),
    "batch2_relu": OpTestCase(seeded(8, _Conv, 8, 8, 3, padding=1, relu=True), random_inputs(8, (2, 8, 8, 8))),
    # int16 activations, int8 weights: the TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        seeded(11, _Conv, 8, 16, 3, padding=1, relu=True),
        random_inputs(11, (1, 8, 12, 12)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    "a16w8_depthwise": OpTestCase(
        seeded(12, _Conv, 16, 16, 3, padding=1, groups=16),
        random_inputs(12, (1, 16, 8, 8)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

# The op in float16 and bfloat16 on the float targets (the float-type rule: arm/ops/common/support.py).
TEST_CASES |= half_precision_cases(OpTestCase(seeded(20, _Conv, 3, 4, 3, padding=1), random_inputs(20, (1, 3, 6, 6))))

OP = ArmOp(
    name="conv2d",
    edge_targets=(exir_ops.edge.aten.convolution.default,),
    aten_targets=(torch.ops.aten.conv2d.default, torch.ops.aten.conv2d.padding),
    support=support,
    annotate=annotate_conv2d,
    lower=lower,
    test_cases=TEST_CASES,
)
