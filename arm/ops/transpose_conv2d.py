"""aten.conv_transpose2d (convolution with transposed=True) -> TOSA TRANSPOSE_CONV2D in NHWC.

The edge dialect has one convolution operator for both directions: arm/ops/conv2d.py owns it and
hands transposed nodes to ``support`` and ``lower`` here. Weights must be constants. PyTorch's
output row is ``iy * stride - padding + ky``, TOSA's ``iy * stride + out_pad_top + ky``, so
out_pad = (-padding, output_padding - padding) per axis.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch.fx import Node

from arm.ops.common.convolution import ConvGeometry, ConvWeights, emit_convolution
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.specification import TosaSpecification

# Vela's Ethos-U transpose convolutions: strides 1x1 or 2x2, and an output of input * stride ("same")
# or input * stride + max(kernel - stride, 0) ("valid") on each axis.
_U55_STRIDES = ((1, 1), (2, 2))


def support(node: Node, spec: TosaSpecification) -> str | None:
    """Called by conv2d's support rule for convolution nodes with transposed=True."""
    x, weight, bias, stride, _, dilation, _, _, groups = node.args
    if len(shape_of(x)) != 4:
        return f"{describe(node)}: only 2-D transposed convolution (rank-4 input) is lowered"
    if tuple(dilation) != (1, 1):
        return f"{describe(node)}: dilated transposed convolution is not lowered (TOSA has no dilation for it)"
    return first_reason(
        profile_reason(node, spec, [x, weight] + ([bias] if bias is not None else [])), _u55_reason(node, spec)
    )


def _u55_reason(node: Node, spec: TosaSpecification) -> str | None:
    if not spec.has("u55"):
        return None
    stride = tuple(node.args[3])
    _, _, kernel_h, kernel_w = shape_of(node.args[1])
    _, _, in_h, in_w = shape_of(node.args[0])
    _, _, out_h, out_w = shape_of(node)
    fits = all(
        out in (size * step, size * step + max(kernel - step, 0))
        for size, out, kernel, step in ((in_h, out_h, kernel_h, stride[0]), (in_w, out_w, kernel_w, stride[1]))
    )
    if stride not in _U55_STRIDES or not fits:
        return (
            f"{describe(node)}: the U55 runs transposed convolutions with stride 1x1 or 2x2 whose output is "
            f"input * stride (+ kernel - stride); got stride {stride}, {in_h}x{in_w} -> {out_h}x{out_w}"
        )
    return None


def annotate_transpose_conv2d(node: Node, config: QuantizationConfig) -> None:
    """Weights are [in, out, kh, kw]: per-channel scales go along dim 1, the output channels."""
    x, weight = node.args[:2]
    groups = node.args[6] if len(node.args) > 6 else 1  # aten.conv_transpose2d.input's groups
    if groups != 1:
        # Grouped: dim 1 holds out/groups channels while the bias has all of them, so per-channel scales
        # along it cannot line up with the bias; one scale for the whole weight tensor does.
        config = config.with_per_tensor_weights()
    bias = node.args[2] if len(node.args) > 2 else None
    weight_spec = dataclasses.replace(config.weight, ch_axis=1) if config.is_per_channel else config.weight
    inputs = {x: config.activation, weight: weight_spec}
    if isinstance(bias, Node):
        inputs[bias] = config.bias(node, x, weight)
    annotate_with_fused_activation(node, inputs, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, weight, bias, stride, padding, _, _, output_padding, groups = node.args
    batch, out_channels, out_h, out_w = shape_of(node)
    geometry = ConvGeometry(
        stride=(stride[0], stride[1]),
        pad=(-padding[0], output_padding[0] - padding[0], -padding[1], output_padding[1] - padding[1]),
        transposed=True,
    )
    output = emit_convolution(
        ctx,
        node,
        name=f"{node.name}_nhwc",
        input_nhwc=to_nhwc(ctx.graph, ctx.value(x)),
        weights=_output_major_weights(ctx, weight, bias, groups),
        geometry=geometry,
        output_shape_nhwc=(batch, out_h, out_w, out_channels),
    )
    return to_nchw(ctx.graph, output, name=node.name)


def _output_major_weights(ctx: LoweringContext, weight: Node, bias: Node | None, groups: int) -> ConvWeights:
    """[in, out / groups, kh, kw] PyTorch weights as the [out, in, kh, kw] the shared emitter lays out."""
    real_bias = None if bias is None else ctx.real_constant(bias)
    if ctx.spec.is_fp:
        dense = _block_diagonal(ctx.real_constant(weight), groups)
        return ConvWeights(np.ascontiguousarray(dense.swapaxes(0, 1)), real_bias, None)
    values, qparams = ctx.quantized_constant(weight)
    if groups != 1 and qparams.zero_point != 0:
        raise ValueError(f"{weight.name}: grouped weights need a zero point of 0 (symmetric), got {qparams.zero_point}")
    output_major = np.ascontiguousarray(_block_diagonal(values, groups).swapaxes(0, 1))
    scales = np.array(qparams.scales, np.float64)
    if scales.size != 1:  # per channel along dim 1: the same out / groups scales in every group
        scales = np.tile(scales, output_major.shape[0] // scales.size)
    scales = np.broadcast_to(scales, (output_major.shape[0],))
    return ConvWeights(output_major, real_bias, scales)


def _block_diagonal(weights: np.ndarray, groups: int) -> np.ndarray:
    """Grouped [in, out / groups, kh, kw] weights as one dense [in, out, kh, kw] tensor: group g's inputs feed
    its own outputs only, zeros elsewhere (TOSA's TRANSPOSE_CONV2D has no groups; the NPU multiplies the zeros
    too, groups times the grouped work)."""
    if groups == 1:
        return weights
    inputs, per_group, *kernel = weights.shape
    dense = np.zeros((inputs, per_group * groups, *kernel), dtype=weights.dtype)
    step = inputs // groups
    for group in range(groups):
        rows = slice(group * step, (group + 1) * step)
        dense[rows, group * per_group : (group + 1) * per_group] = weights[rows]
    return dense


class _ConvTranspose(torch.nn.Module):
    def __init__(self, *args: object, **kwargs: object):
        super().__init__()
        self.conv = torch.nn.ConvTranspose2d(*args, **kwargs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


TEST_CASES = {
    "stride2_k4_pad1": OpTestCase(
        seeded(0, _ConvTranspose, 8, 4, 4, stride=2, padding=1), random_inputs(0, (1, 8, 5, 5))
    ),
    "stride2_k2": OpTestCase(seeded(1, _ConvTranspose, 6, 8, 2, stride=2), random_inputs(1, (1, 6, 4, 6))),
    "stride2_k3_output_padding": OpTestCase(
        seeded(2, _ConvTranspose, 4, 4, 3, stride=2, padding=1, output_padding=1), random_inputs(2, (1, 4, 6, 6))
    ),
    "stride1_k3_bias_free": OpTestCase(
        seeded(3, _ConvTranspose, 8, 8, 3, padding=1, bias=False), random_inputs(3, (1, 8, 7, 7))
    ),
    # groups=2 (the peer's grouped case): block-diagonal dense weights; INT weights per tensor.
    "grouped": OpTestCase(
        seeded(5, _ConvTranspose, 4, 6, 3, padding=1, groups=2), random_inputs(5, (1, 4, 5, 5))
    ),
    "grouped_stride2": OpTestCase(
        seeded(6, _ConvTranspose, 6, 9, 4, stride=2, padding=1, groups=3), random_inputs(6, (1, 6, 4, 4))
    ),
    "stride3": OpTestCase(
        seeded(4, _ConvTranspose, 4, 4, 3, stride=3), random_inputs(4, (1, 4, 4, 4)), cpu_targets=("u55_INT",)
    ),
}

OP = ArmOp(
    name="transpose_conv2d",
    # conv2d.py owns the shared edge operator (aten.convolution) and dispatches here.
    edge_targets=(),
    aten_targets=(torch.ops.aten.conv_transpose2d.input,),
    support=support,
    annotate=annotate_transpose_conv2d,
    lower=lower,
    test_cases=TEST_CASES,
)
