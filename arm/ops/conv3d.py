"""aten.convolution (3-D, rank-5 input) -> depth taps stacked on channels and one TOSA CONV2D.

Vela 5.2.0 rejects a TOSA CONV3D for the U55 ("Non-passthrough operation (Conv3D) could not run on
NPU") and compiles one for the U85 (checked on a 3x5x5x2 input); the peer runs neither. Every target
gets the same exact rewrite into CONV2D, which the NPU model checks bit for bit on both (whether the
U85's own CONV3D would be faster is not measured). The input goes to
[N, D, H, W, C], is padded along depth (with its zero point) and, for each of the KD depth taps, the
depth rows that tap reads for the Dout outputs are sliced out as a batch of Dout 2-D images.
Concatenated along channels they form
[N * Dout, H, W, KD * C], and the weights [O, C, KD, KH, KW] become [O, KD * C, KH, KW] in the same
order, so one CONV2D (common/convolution.py: H/W padding, stride, dilation, bias, int32 or int48
accumulation and the rescale) sums over depth, height, width and channels at once. The result is
[N * Dout, Ho, Wo, O], reshaped and transposed back to [N, O, Dout, Ho, Wo]. A grouped convolution
regroups the stacked channels from [tap][group][channel] to [group][tap][channel] (one TRANSPOSE), so
that each group's channels are contiguous for convolve_nhwc's per-group CONV2Ds. conv2d.py owns the
shared edge operator and dispatches rank-5 nodes here.
"""

from __future__ import annotations

import dataclasses

import torch
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.convolution import ConvWeights, ConvWindow, annotate_convolution, convolve_nhwc
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.permute import essential_transpose
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, pad_tensor, reshape, slice_tensor
from arm.tosa.layout import transpose
from arm.tosa.specification import TosaSpecification

_NCDHW_TO_NDHWC = (0, 2, 3, 4, 1)
_NDHWC_TO_NCDHW = (0, 4, 1, 2, 3)


def support(node: Node, spec: TosaSpecification) -> str | None:
    """Called by conv2d's support rule for rank-5 convolution nodes."""
    x, weight, bias, _, _, _, transposed, _, _ = node.args
    return first_reason(
        f"{describe(node)}: 3-D transposed convolution is not lowered" if transposed else None,
        profile_reason(node, spec, [x, weight] + ([bias] if bias is not None else [])),
        _ethos_u_grouped_reason(node, spec),
    )


def _ethos_u_grouped_reason(node: Node, spec: TosaSpecification) -> str | None:
    """Found by this file's cases: for a grouped convolution whose 2-D images come in a batch (N * Dout
    > 1) with height/width padding, Vela 5.2.0's command stream (per-group CONV2Ds on sliced channels)
    departs from the TOSA reference model on the NPU model; unpadded or depth-only padded ones match."""
    _, _, _, _, padding, _, _, _, groups = node.args
    batch, _, out_depth = shape_of(node)[:3]
    if (spec.has("u55") or spec.has("u85")) and groups > 1 and any(padding[1:]) and batch * out_depth > 1:
        return (
            f"{describe(node)}: grouped 3-D convolution (groups={groups}) with height/width padding "
            f"{list(padding[1:])} over {batch * out_depth} depth outputs: Vela 5.2.0's command stream for it "
            "departs from the TOSA reference model, so it runs on the CPU"
        )
    return None


def annotate_conv3d(node: Node, config: QuantizationConfig) -> None:
    annotate_convolution(node, config)


def _permuted(ctx: LoweringContext, value: TosaValue, perms: tuple[int, ...], *, name: str) -> TosaValue:
    """``value`` permuted by ``perms``, as a TRANSPOSE of only the axes that really move (Vela splits
    rank-5 TRANSPOSEs into many small ones)."""
    shape, essential = essential_transpose(value.shape, perms)
    moved = transpose(ctx.graph, reshape(ctx.graph, value, shape, name=f"{name}_essential"), essential,
                      name=f"{name}_moved")  # fmt: skip
    return reshape(ctx.graph, moved, tuple(value.shape[axis] for axis in perms), name=name)


def _depth_taps(
    ctx: LoweringContext,
    node: Node,
    ndhwc: TosaValue,
    *,
    kernel: int,
    stride: int,
    pad: int,
    dilation: int,
    outputs: int,
) -> TosaValue:
    """[N * outputs, H, W, kernel * C]: for each depth tap, the input rows it reads, as 2-D images."""
    batch, depth, height, width, channels = ndhwc.shape
    plane = height * width * channels
    rows = reshape(ctx.graph, ndhwc, (batch, depth, plane), name=f"{node.name}_depth_rows")
    # Each tap reads rows k * dilation + stride * j for j < outputs: padded, every tap's range is whole.
    padded_depth = max(depth + 2 * pad, (kernel - 1) * dilation + stride * outputs)
    if padded_depth != depth:
        zero = ndhwc.qparams.zero_point if ctx.spec.is_int else 0.0
        padding = ((0, 0), (pad, padded_depth - depth - pad), (0, 0))
        rows = pad_tensor(ctx.graph, rows, padding, rows.dtype.type(zero), name=f"{node.name}_depth_padded")
    taps = []
    for tap in range(kernel):
        name = f"{node.name}_tap{tap}"
        window = slice_tensor(ctx.graph, rows, (0, tap * dilation, 0), (batch, stride * outputs, plane), name=name)
        if stride > 1:  # every stride-th row: the first of each group of `stride`
            grouped = reshape(ctx.graph, window, (batch * outputs, stride, plane), name=f"{name}_strided")
            window = slice_tensor(ctx.graph, grouped, (0, 0, 0), (batch * outputs, 1, plane), name=f"{name}_first")
        taps.append(reshape(ctx.graph, window, (batch * outputs, height, width, channels), name=f"{name}_images"))
    return taps[0] if kernel == 1 else concat(ctx.graph, taps, axis=3, name=f"{node.name}_taps")


def _group_major(ctx: LoweringContext, node: Node, taps: TosaValue, *, kernel: int, groups: int) -> TosaValue:
    """Stacked taps' channels from [tap][group][channel] to [group][tap][channel]."""
    images, height, width, channels = taps.shape
    per_group = channels // (kernel * groups)
    split = reshape(ctx.graph, taps, (images * height * width, kernel, groups, per_group),
                    name=f"{node.name}_taps_split")  # fmt: skip
    regrouped = _permuted(ctx, split, (0, 2, 1, 3), name=f"{node.name}_taps_by_group")
    return reshape(ctx.graph, regrouped, taps.shape, name=f"{node.name}_grouped_taps")


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, weight, bias, stride, padding, dilation, _, _, groups = node.args
    batch, out_channels, out_depth, out_h, out_w = shape_of(node)
    kernel_depth = shape_of(weight)[2]
    ndhwc = _permuted(ctx, ctx.value(x), _NCDHW_TO_NDHWC, name=f"{node.name}_ndhwc")
    images = _depth_taps(ctx, node, ndhwc, kernel=kernel_depth, stride=stride[0], pad=padding[0],
                         dilation=dilation[0], outputs=out_depth)  # fmt: skip
    if groups > 1 and kernel_depth > 1:
        images = _group_major(ctx, node, images, kernel=kernel_depth, groups=groups)
    weights = ConvWeights.read(ctx, weight, bias)
    values = weights.values
    # [O, C, KD, KH, KW] -> [O, KD * C, KH, KW], channel k * C + c as in the stacked taps.
    stacked = values.transpose(0, 2, 1, 3, 4).reshape(values.shape[0], -1, *values.shape[3:])
    output = convolve_nhwc(
        ctx,
        node,
        input_nhwc=images,
        weights=dataclasses.replace(weights, values=stacked),
        window=ConvWindow.from_args(stride[1:], padding[1:], dilation[1:], groups),
        output_shape_nchw=(batch * out_depth, out_channels, out_h, out_w),
        name=f"{node.name}_nhwc",
    )
    volumes = reshape(ctx.graph, output, (batch, out_depth, out_h, out_w, out_channels), name=f"{node.name}_ndhwc_out")
    return _permuted(ctx, volumes, _NDHWC_TO_NCDHW, name=node.name)


class _Conv3d(torch.nn.Module):
    def __init__(self, *args: object, relu: bool = False, **kwargs: object):
        super().__init__()
        self.conv = torch.nn.Conv3d(*args, **kwargs)
        self.relu = relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.relu(y) if self.relu else y


TEST_CASES = {
    "k3_pad1_relu": OpTestCase(seeded(0, _Conv3d, 3, 8, 3, padding=1, relu=True), random_inputs(0, (1, 3, 4, 6, 6))),
    # Depth stride 2 with a dilated depth kernel, a 1x2 H/W kernel and stride, batch 2, no bias.
    "strided_dilated_batch2": OpTestCase(
        seeded(1, _Conv3d, 4, 6, (2, 1, 2), stride=(2, 1, 2), padding=(1, 0, 1), dilation=(2, 1, 1), bias=False),
        random_inputs(1, (2, 4, 7, 3, 5)),
    ),
    # Depthwise (a group per channel, two taps per group, depth padding) and grouped with a one-deep kernel.
    "depthwise": OpTestCase(
        seeded(3, _Conv3d, 4, 4, (2, 3, 3), padding=(1, 0, 0), groups=4), random_inputs(3, (1, 4, 3, 5, 5))
    ),
    "groups2_1xkxk": OpTestCase(seeded(4, _Conv3d, 4, 6, (1, 3, 3), groups=2), random_inputs(4, (1, 4, 2, 5, 5))),
    "grouped_hw_padded": OpTestCase(
        seeded(5, _Conv3d, 4, 4, (2, 3, 3), padding=1, groups=2),
        random_inputs(5, (1, 4, 3, 5, 5)),
        cpu_targets=("u55_INT", "u85_INT"),
    ),
    # int16 activations: the TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        seeded(2, _Conv3d, 2, 4, (2, 3, 3), padding=(0, 1, 1)),
        random_inputs(2, (1, 2, 3, 5, 5)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="conv3d",
    # conv2d.py owns the shared edge operator (aten.convolution) and dispatches rank-5 nodes here.
    edge_targets=(),
    aten_targets=(torch.ops.aten.conv3d.default, torch.ops.aten.conv3d.padding),
    support=support,
    annotate=annotate_conv3d,
    lower=lower,
    test_cases=TEST_CASES,
)
