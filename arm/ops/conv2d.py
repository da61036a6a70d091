"""aten.convolution (2-D) -> TRANSPOSE to NHWC, CONV2D / DEPTHWISE_CONV2D, TRANSPOSE back to NCHW.

Transposed convolutions share the edge operator; their support rule and lowering live in
transpose_conv2d.py.
"""

from __future__ import annotations

import dataclasses

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops import transpose_conv2d
from arm.ops.common.convolution import ConvGeometry, ConvWeights, emit_convolution
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, profile_reason
from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, slice_tensor
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, weight, bias, _, _, _, transposed, _, _ = node.args
    input_shape = shape_of(x)
    if transposed:
        return transpose_conv2d.support(node, spec)
    if len(input_shape) != 4:
        return f"{describe(node)}: only 2-D convolution (rank-4 input) is lowered, got input shape {input_shape}"
    return profile_reason(node, spec, [x, weight] + ([bias] if bias is not None else []))


def annotate_conv2d(node: Node, config: QuantizationConfig) -> None:
    x, weight = node.args[:2]
    bias = node.args[2] if len(node.args) > 2 else None
    inputs = {x: config.activation, weight: config.weight}
    if isinstance(bias, Node):
        inputs[bias] = config.bias(node, x, weight)
    annotate_with_fused_activation(node, inputs, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    """Depthwise when groups == in_channels; other groupings run one CONV2D per group, concatenated."""
    x, weight, bias, stride, padding, dilation, transposed, _, groups = node.args
    if transposed:
        return transpose_conv2d.lower(node, ctx)
    _, in_channels, in_h, in_w = shape_of(x)
    _, _, kernel_h, kernel_w = shape_of(weight)
    batch, out_channels, out_h, out_w = shape_of(node)
    pad_h = exact_padding(in_h, kernel_h, stride[0], padding[0], dilation[0])
    pad_w = exact_padding(in_w, kernel_w, stride[1], padding[1], dilation[1])
    value = to_nhwc(ctx.graph, ctx.value(x))
    used_h, used_w = in_h - pad_h.dropped, in_w - pad_w.dropped
    if (used_h, used_w) != (in_h, in_w):
        value = slice_tensor(
            ctx.graph, value, (0, 0, 0, 0), (batch, used_h, used_w, in_channels), name=f"{node.name}_window"
        )
    depthwise = groups == in_channels and groups > 1
    geometry = ConvGeometry(
        stride=(stride[0], stride[1]),
        pad=(pad_h.before, pad_h.after, pad_w.before, pad_w.after),
        dilation=(dilation[0], dilation[1]),
        depthwise=depthwise,
    )
    weights = ConvWeights.read(ctx, weight, bias)
    name = f"{node.name}_nhwc"
    if groups == 1 or depthwise:
        output = emit_convolution(
            ctx,
            node,
            name=name,
            input_nhwc=value,
            weights=weights,
            geometry=geometry,
            output_shape_nhwc=(batch, out_h, out_w, out_channels),
        )
        return to_nchw(ctx.graph, output, name=node.name)
    group_in, group_out = in_channels // groups, out_channels // groups
    outputs = [
        emit_convolution(
            ctx,
            node,
            name=f"{name}_group{group}",
            input_nhwc=slice_tensor(
                ctx.graph,
                value,
                (0, 0, 0, group * group_in),
                (batch, used_h, used_w, group_in),
                name=f"{name}_group{group}_input",
            ),
            weights=weights.group(group, groups),
            geometry=geometry,
            output_shape_nhwc=(batch, out_h, out_w, group_out),
        )
        for group in range(groups)
    ]
    return to_nchw(ctx.graph, concat(ctx.graph, outputs, axis=3, name=name), name=node.name)


@dataclasses.dataclass(frozen=True)
class AxisPadding:
    """Padding along one axis, plus how many trailing input rows the convolution never reads."""

    before: int
    after: int
    dropped: int


def exact_padding(size: int, kernel: int, stride: int, pad: int, dilation: int) -> AxisPadding:
    """PyTorch floors the output size; TOSA requires (size - 1 + pads - (kernel - 1) * dilation) to
    divide by the stride. The rows no output reads come off the end padding first, then the input."""
    excess = (size - 1 + 2 * pad - (kernel - 1) * dilation) % stride
    trimmed = min(excess, pad)
    return AxisPadding(before=pad, after=pad - trimmed, dropped=excess - trimmed)


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
    "5x3_rect": OpTestCase(seeded(7, _Conv, 3, 8, (5, 3), padding=(2, 1)), random_inputs(7, (1, 3, 20, 12))),
    "same_padding": OpTestCase(seeded(10, _Conv, 6, 8, 3, padding="same"), random_inputs(10, (1, 6, 9, 9))),
    "groups2": OpTestCase(seeded(9, _Conv, 8, 12, 3, padding=1, groups=2), random_inputs(9, (1, 8, 10, 10))),
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

OP = ArmOp(
    name="conv2d",
    edge_targets=(exir_ops.edge.aten.convolution.default,),
    aten_targets=(torch.ops.aten.conv2d.default, torch.ops.aten.conv2d.padding),
    support=support,
    annotate=annotate_conv2d,
    lower=lower,
    test_cases=TEST_CASES,
)
