"""A convolution with a stride above 3 as a space-to-depth of its input and a stride-1 convolution.

Vela 5.2.0 runs strides of 1 to 3 natively. Its U55/U65 constraint table says "Kernel stride must be in
the range (1,3). Stride>3 is only supported IF (dilation = 1 AND padding = VALID)"; measured on single
int8 graphs (3x3 and 7x7 kernels, strides 3, 4, 5, 8, padding 0, 1, 3, dilation 1 and 2), the U55-128
and U65-256 refuse every CONV2D with a stride above 3 and padding or dilation ("Non-passthrough operation
(Conv2D) could not run on NPU"; PVT-v2's and PoolFormer-v2's 7x7 stride-4 patch embeddings are padded),
and every DEPTHWISE_CONV2D with a stride above 3, padded or not; the U85-256 compiles all of them. Kernel
size is no limit there (up to 65x64, padded or not, on all three). Where Vela takes a stride above 3 it
splits the convolution into one operator per output pixel (deit_tiny's 16x16 patches at 224x224 on the
U85-256: 196 CONV2Ds of 65,206 cycles each, 40% of the network).

The same sum at stride 1: cut the input into s_y x s_x blocks and stack each block's pixels as channels
([B, C, H, W] -> [B, H/s_y, W/s_x, C*s_y*s_x], channel order (c, row in block, column in block)). An
output pixel o reads input rows o*s - p + t*dilation for taps t; shifting the kernel right by
d = (-p) mod s puts the first padded row on a block boundary, so tap position d + t*dilation =
a*s + b reads row b of block o + a - ceil(p/s). The convolution becomes a stride-1 one over the blocks
with ceil((d + (k-1)*dilation + 1) / s) taps per axis, ceil(p/s) blocks of padding before, and weights
W'[o, (c, b_y, b_x), a_y, a_x] = W[o, c, t_y, t_x] where the positions match and 0 elsewhere. Every
product of the original sum appears once and nothing else is added, so the integer result is the same,
bit for bit; padding stays the convolution's own (TOSA subtracts the input zero point, so a padded
position adds nothing). Input rows no output reads are sliced off; a last, partial block that some output
reads is completed with zero-point rows by a PAD.

Two forms of the space-to-depth. An input of few channels (an RGB image) or a grouped convolution (whose
groups must stay contiguous channels) is read in NCHW: two TRANSPOSEs whose innermost axis is a block's
row, never a 3-channel one (NCHW -> NHWC of a 224x224 RGB image alone costs 549k U85-256 cycles), with
channels ordered (c, row, column). Any other input is read in NHWC, where it already is between
convolutions (the layout pass cancels the round trip): one TRANSPOSE moving whole rows of s_x * C
bytes, channels ordered (row, column, c). On PVT-v2's spatial-reduction convolutions (64 channels, 8x8,
kernel and stride 4) the NCHW form cost 118,450 U85-256 cycles where Vela's own per-pixel split cost
23,269.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.block_geometry import BlockAxis, block_weights
from arm.ops.common.convolution import ConvGeometry, ConvWeights, ConvWindow, emit_grouped_convolution
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue, pad_tensor, reshape, slice_tensor
from arm.tosa.layout import to_nhwc
from arm.tosa.specification import TosaSpecification

# Vela 5.2.0's native stride range is 1..3 on every Ethos-U (U55 constraint "Kernel stride must be in
# the range (1,3)"; larger ones are refused or split per output pixel, see the module docstring).
LARGEST_NATIVE_STRIDE = 3
# On the U85, Vela's per-pixel split of an unpadded stride above 3 is cheaper up to about this many
# outputs (see needs_space_to_depth; between 5 and 18 on the two shapes measured).
_FEW_OUTPUT_PIXELS = 8
# Inputs of at most this many channels (an RGB image) take the NCHW form of the space-to-depth.
_FEW_CHANNELS = 4


def needs_space_to_depth(window: ConvWindow, output_hw: tuple[int, int], spec: TosaSpecification) -> bool:
    """Whether a 2-D convolution's stride is one Vela would refuse or split (above 3 on either axis).

    Except on the U85 where Vela takes the convolution as it is (unpadded, undilated, ungrouped) and its
    split into one operator per output pixel is the cheaper form: at most ``_FEW_OUTPUT_PIXELS`` of them.
    PVT-v2's spatial-reduction convolutions (2x2 outputs, at 64x64) cost 44,762 and 23,269 U85-256
    cycles split against 55,993 and 105,170 as blocks (its one CONV2D streams the whole kernel for four
    pixels); on the U55-128 the same split cost 241,782 and 245,548 against 66,640 and 63,584 as blocks.
    PVT-v2's stem (16x16 outputs) cost 65,720 U85 cycles as blocks against 213,317 split.
    """
    if max(window.stride) <= LARGEST_NATIVE_STRIDE:
        return False
    taken_as_is = window.padding == (0, 0) and window.dilation == (1, 1) and window.groups == 1
    few_outputs = output_hw[0] * output_hw[1] <= _FEW_OUTPUT_PIXELS
    return not (spec.has("u85") and taken_as_is and few_outputs)


def space_to_depth_convolution(
    ctx: LoweringContext,
    node: Node,
    x_nchw: TosaValue,
    weights: ConvWeights,
    window: ConvWindow,
    output_shape_nchw: tuple[int, ...],
    *,
    name: str,
) -> TosaValue | None:
    """The convolution of NCHW ``x_nchw`` as space-to-depth and a stride-1 convolution; NHWC result
    ``name``. None when an axis has no block form (see ``BlockAxis.plan``)."""
    batch, channels, height, width = x_nchw.shape
    _, _, kernel_h, kernel_w = weights.values.shape
    y = BlockAxis.plan(height, kernel_h, window.stride[0], window.padding[0], window.dilation[0])
    x = BlockAxis.plan(width, kernel_w, window.stride[1], window.padding[1], window.dilation[1])
    if y is None or x is None:
        return None
    channels_last = window.groups == 1 and channels > _FEW_CHANNELS
    value = to_nhwc(ctx.graph, x_nchw) if channels_last else x_nchw
    spatial = (1, 2) if channels_last else (2, 3)
    if (y.used, x.used) != (height, width):
        size = list(value.shape)
        size[spatial[0]], size[spatial[1]] = y.used, x.used
        value = slice_tensor(ctx.graph, value, (0, 0, 0, 0), size, name=f"{name}_rows_read")
    if y.completed or x.completed:
        padding = [(0, 0)] * 4
        padding[spatial[0]], padding[spatial[1]] = (0, y.completed), (0, x.completed)
        value = pad_tensor(ctx.graph, value, padding, _zero_code(value), name=f"{name}_last_block")
    if channels_last:
        depth = space_to_depth_nhwc(ctx, value, y.stride, x.stride, name=name)
    else:
        depth = space_to_depth(ctx, value, y.stride, x.stride, name=name)
    _, out_channels, out_h, out_w = output_shape_nchw
    return emit_grouped_convolution(
        ctx,
        node,
        name=name,
        input_nhwc=depth,
        weights=dataclasses.replace(weights, values=block_weights(weights.values, y, x, channels_last=channels_last)),
        geometry=ConvGeometry(pad=(y.pad_before, y.pad_after, x.pad_before, x.pad_after)),
        groups=window.groups,
        output_shape_nhwc=(batch, out_h, out_w, out_channels),
    )


def space_to_depth(ctx: LoweringContext, x_nchw: TosaValue, stride_y: int, stride_x: int, *, name: str) -> TosaValue:
    """[B, C, by*sy, bx*sx] NCHW -> [B, by, bx, C*sy*sx] NHWC, channels ordered (c, row, column) of a block.

    [B*C*by, sy, bx, sx] -> TRANSPOSE [B*C*by, bx, sy, sx] -> [B, C, by*bx, sy*sx] -> TRANSPOSE
    [B, by*bx, C, sy*sx] -> [B, by, bx, C*sy*sx]. The TRANSPOSEs are part of this computation (no layout
    perms), so the layout passes leave them alone.
    """
    batch, channels, height, width = x_nchw.shape
    blocks_y, blocks_x = height // stride_y, width // stride_x
    rows = reshape(ctx.graph, x_nchw, (batch * channels * blocks_y, stride_y, blocks_x, stride_x), name=f"{name}_block_rows")
    blocks = _transpose(ctx, rows, (0, 2, 1, 3), name=f"{name}_blocks")
    grouped = reshape(ctx.graph, blocks, (batch, channels, blocks_y * blocks_x, stride_y * stride_x), name=f"{name}_by_channel")
    pixels = _transpose(ctx, grouped, (0, 2, 1, 3), name=f"{name}_by_block")
    return reshape(ctx.graph, pixels, (batch, blocks_y, blocks_x, channels * stride_y * stride_x), name=f"{name}_depth")


def space_to_depth_nhwc(ctx: LoweringContext, x_nhwc: TosaValue, stride_y: int, stride_x: int, *, name: str) -> TosaValue:
    """[B, by*sy, bx*sx, C] NHWC -> [B, by, bx, sy*sx*C], channels ordered (row, column, c) of a block:
    [B*by, sy, bx, sx*C] -> TRANSPOSE [B*by, bx, sy, sx*C] -> [B, by, bx, sy*sx*C]."""
    batch, height, width, channels = x_nhwc.shape
    blocks_y, blocks_x = height // stride_y, width // stride_x
    rows = reshape(ctx.graph, x_nhwc, (batch * blocks_y, stride_y, blocks_x, stride_x * channels), name=f"{name}_block_rows")
    blocks = _transpose(ctx, rows, (0, 2, 1, 3), name=f"{name}_blocks")
    return reshape(ctx.graph, blocks, (batch, blocks_y, blocks_x, stride_y * stride_x * channels), name=f"{name}_depth")


def _transpose(ctx: LoweringContext, value: TosaValue, perms: tuple[int, ...], *, name: str) -> TosaValue:
    """TRANSPOSE, or a RESHAPE where only axes of size 1 move (a 1-D convolution's blocks: s_y = 1)."""
    shape = tuple(value.shape[p] for p in perms)
    if [p for p in perms if value.shape[p] != 1] == [axis for axis, size in enumerate(value.shape) if size != 1]:
        return reshape(ctx.graph, value, shape, name=name)
    output = ctx.graph.add_tensor(name, tuple(value.shape[p] for p in perms), value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute(list(perms))
    ctx.graph.add_op(ts.Op.TRANSPOSE, [value], [output], attribute)
    return output


def _zero_code(value: TosaValue) -> np.generic:
    """The value's encoding of a real 0: its zero point for a quantized tensor, 0 for a float one."""
    zero_point = value.qparams.zero_point if value.qparams is not None else 0
    return value.dtype.type(zero_point)
