"""The TOSA CONV2D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D emitter shared by conv2d, conv1d (a 1xK
convolution), linear (a 1x1 convolution) and transpose_conv2d.

Callers hand over an NHWC input and the PyTorch weight node; this module chooses the weight layout,
quantizes the bias onto the accumulator grid (INT) and rescales the int32 accumulator to int8.
``convolve_nhwc`` adds PyTorch's window semantics (floored output size, groups) on top.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.cast import cast
from arm.tosa.context import LoweringContext
from arm.tosa.graph import INT48, TosaValue, concat, slice_tensor, tosa_dtype
from arm.tosa.rescale import from_int32


@dataclasses.dataclass(frozen=True)
class ConvGeometry:
    """Window parameters in TOSA order: pad is (top, bottom, left, right), stride/dilation are (y, x).

    For a ``transposed`` convolution, ``pad`` is TOSA's out_pad (negative crops) and dilation is 1.
    """

    stride: tuple[int, int] = (1, 1)
    pad: tuple[int, int, int, int] = (0, 0, 0, 0)
    dilation: tuple[int, int] = (1, 1)
    depthwise: bool = False
    transposed: bool = False


@dataclasses.dataclass(frozen=True)
class ConvWeights:
    """Weights in PyTorch layout ([O, I, KH, KW], or linear's [O, I]) and per-output-channel extras.

    ``values`` are float32 for FP and int8 for INT; ``scales`` (INT only) are the weight scales per
    output channel; ``bias`` is real-valued, quantized later onto the accumulator grid.
    """

    values: np.ndarray
    bias: np.ndarray | None
    scales: np.ndarray | None

    @classmethod
    def read(cls, ctx: LoweringContext, weight: Node, bias: Node | None) -> ConvWeights:
        real_bias = None if bias is None else ctx.real_constant(bias)
        if ctx.spec.is_fp:
            return cls(ctx.real_constant(weight), real_bias, None)
        values, qparams = ctx.quantized_constant(weight)
        scales = np.broadcast_to(np.array(qparams.scales, np.float64), (values.shape[0],))
        return cls(values, real_bias, scales)

    def group(self, index: int, groups: int) -> ConvWeights:
        """The output channels of one group of a grouped convolution."""
        size = self.values.shape[0] // groups
        channels = slice(index * size, (index + 1) * size)
        return ConvWeights(
            self.values[channels],
            None if self.bias is None else self.bias[channels],
            None if self.scales is None else self.scales[channels],
        )


def emit_convolution(
    ctx: LoweringContext,
    node: Node,
    *,
    name: str,
    input_nhwc: TosaValue,
    weights: ConvWeights,
    geometry: ConvGeometry,
    output_shape_nhwc: tuple[int, ...],
) -> TosaValue:
    """Emits the convolution of ``input_nhwc`` with ``weights``.

    Returns the NHWC result named ``name``: float32 for FP, int8 on ``node``'s output grid for INT.
    """
    out_channels = output_shape_nhwc[-1]
    values = weights.values
    if ctx.spec.is_fp and _rounds_bias_twice(input_nhwc.dtype, weights.bias):
        return _in_float32(ctx, node, name=name, input_nhwc=input_nhwc, weights=weights, geometry=geometry,
                           output_shape_nhwc=output_shape_nhwc)  # fmt: skip
    if ctx.spec.is_fp:
        # Float16 and bfloat16 convolutions keep their type for weights, bias and output and accumulate
        # in float32 (TOSA 1.0 allows that accumulator for both; bfloat16 has no other).
        float_type = input_nhwc.dtype
        values = values.astype(float_type)
        biases = weights.bias if weights.bias is not None else np.zeros(out_channels, np.float32)
        biases = biases.astype(float_type)
        zero_point = float_type.type(0.0)
        accumulator = np.dtype(np.float32)
        output_dtype = float_type
        output_name = name
    else:
        accumulator_scales = input_nhwc.qparams.scale * weights.scales
        biases = _quantized_bias(weights.bias, accumulator_scales)
        zero_point = input_nhwc.dtype.type(input_nhwc.qparams.zero_point)
        # int16 activations (a16w8) accumulate in int48, as TOSA and Vela define int16 x int8.
        accumulator = INT48 if input_nhwc.dtype == np.int16 else np.dtype(np.int32)
        biases = biases.astype(accumulator)
        output_dtype = accumulator
        output_name = f"{name}_int32"

    tosa_weights = _tosa_weight_layout(values, geometry.depthwise, input_nhwc.shape[-1])
    operands = [
        input_nhwc,
        ctx.graph.add_const(f"{name}_weight", tosa_weights),
        ctx.graph.add_const(f"{name}_bias", biases),
        ctx.graph.add_scalar_const(f"{name}_input_zp", zero_point, input_nhwc.dtype),
        # Weights are symmetric: their zero point is always 0.
        ctx.graph.add_scalar_const(f"{name}_weight_zp", 0, tosa_weights.dtype),
    ]
    output = ctx.graph.add_tensor(output_name, output_shape_nhwc, output_dtype)
    attribute = ts.TosaSerializerAttribute()
    accumulator_type = tosa_dtype(accumulator)
    if geometry.transposed:
        op = ts.Op.TRANSPOSE_CONV2D
        attribute.TransposeConv2dAttribute(
            out_pad=list(geometry.pad), stride=list(geometry.stride), local_bound=False, acc_type=accumulator_type
        )
    else:
        op = ts.Op.DEPTHWISE_CONV2D if geometry.depthwise else ts.Op.CONV2D
        set_attribute = attribute.DepthwiseConv2dAttribute if geometry.depthwise else attribute.Conv2dAttribute
        set_attribute(
            pad=list(geometry.pad),
            stride=list(geometry.stride),
            dilation=list(geometry.dilation),
            local_bound=False,
            acc_type=accumulator_type,
        )
    ctx.graph.add_op(op, operands, [output], attribute)
    if ctx.spec.is_fp:
        return output
    per_tensor = np.all(accumulator_scales == accumulator_scales[0])
    return from_int32(
        ctx.graph,
        output,
        name=name,
        accumulator_scales=accumulator_scales[:1] if per_tensor else accumulator_scales,
        output=ctx.output_qparams(node),
    )


def _rounds_bias_twice(float_type: np.dtype, bias: np.ndarray | None) -> bool:
    """Whether a half-type convolution would round twice: TOSA rounds the float32 accumulator to the
    output type and adds the bias in that type (the reference model's float16/bfloat16 CONV2D is
    round(round(sum) + bias)), where PyTorch rounds sum + bias once, a unit in the last place apart in
    about a third of a bfloat16 3x3x3 convolution's outputs."""
    return float_type != np.float32 and bias is not None and bool(np.any(bias != 0))


def _in_float32(
    ctx: LoweringContext,
    node: Node,
    *,
    name: str,
    input_nhwc: TosaValue,
    weights: ConvWeights,
    geometry: ConvGeometry,
    output_shape_nhwc: tuple[int, ...],
) -> TosaValue:
    """The convolution of a half-type input with a bias, computed in float32 and rounded once: the
    input CAST up (exact), float32 weights and bias (the half-type values, exact), and the result CAST
    back to the input's type."""
    wide = cast(ctx.graph, input_nhwc, np.dtype(np.float32), name=f"{name}_float32_input")
    float32_weights = dataclasses.replace(
        weights,
        values=weights.values.astype(input_nhwc.dtype).astype(np.float32),
        bias=weights.bias.astype(input_nhwc.dtype).astype(np.float32),
    )
    result = emit_convolution(ctx, node, name=f"{name}_float32", input_nhwc=wide, weights=float32_weights,
                              geometry=geometry, output_shape_nhwc=output_shape_nhwc)  # fmt: skip
    return cast(ctx.graph, result, input_nhwc.dtype, name=name)


def _tosa_weight_layout(weights: np.ndarray, depthwise: bool, in_channels: int) -> np.ndarray:
    """PyTorch [O, I, KH, KW] (or linear's [O, I]) -> TOSA CONV2D [O, KH, KW, I], or DEPTHWISE_CONV2D [KH, KW, C, M]."""
    if weights.ndim == 2:
        weights = weights[:, :, None, None]
    if not depthwise:
        return np.ascontiguousarray(weights.transpose(0, 2, 3, 1))
    _, _, kernel_h, kernel_w = weights.shape
    # Depthwise weights are [C*M, 1, KH, KW]; output channel c*M + m splits row-major into (c, m).
    hwo = weights.reshape(-1, kernel_h, kernel_w).transpose(1, 2, 0)
    return np.ascontiguousarray(hwo.reshape(kernel_h, kernel_w, in_channels, -1))


def _quantized_bias(bias: np.ndarray | None, accumulator_scales: np.ndarray) -> np.ndarray:
    """The bias on the int32 accumulator grid (input scale * weight scale), whatever grid it came on."""
    if bias is None:
        return np.zeros(len(accumulator_scales), np.int32)
    real = bias.astype(np.float64)
    limit = np.iinfo(np.int32)
    return np.clip(np.round(real / accumulator_scales), limit.min, limit.max).astype(np.int32)


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


@dataclasses.dataclass(frozen=True)
class ConvWindow:
    """A PyTorch convolution's (y, x) stride, symmetric padding and dilation, and its group count."""

    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    groups: int

    @classmethod
    def from_args(cls, stride: list[int], padding: list[int], dilation: list[int], groups: int) -> ConvWindow:
        """aten.convolution's arguments; a 1-D convolution's single values become the x axis (y is 1, unpadded)."""
        if len(stride) == 1:
            return cls((1, stride[0]), (0, padding[0]), (1, dilation[0]), groups)
        return cls((stride[0], stride[1]), (padding[0], padding[1]), (dilation[0], dilation[1]), groups)


def convolve_nhwc(
    ctx: LoweringContext,
    node: Node,
    *,
    input_nhwc: TosaValue,
    weights: ConvWeights,
    window: ConvWindow,
    output_shape_nchw: tuple[int, ...],
    name: str,
) -> TosaValue:
    """PyTorch's convolution of ``input_nhwc`` (weights [O, I/groups, KH, KW]) as NHWC ``name``.

    Depthwise when groups == in_channels; other groupings run one CONV2D per group, concatenated.
    """
    batch, in_h, in_w, in_channels = input_nhwc.shape
    _, _, kernel_h, kernel_w = weights.values.shape
    _, out_channels, out_h, out_w = output_shape_nchw
    pad_h = exact_padding(in_h, kernel_h, window.stride[0], window.padding[0], window.dilation[0])
    pad_w = exact_padding(in_w, kernel_w, window.stride[1], window.padding[1], window.dilation[1])
    value = input_nhwc
    used_h, used_w = in_h - pad_h.dropped, in_w - pad_w.dropped
    if (used_h, used_w) != (in_h, in_w):
        value = slice_tensor(ctx.graph, value, (0, 0, 0, 0), (batch, used_h, used_w, in_channels), name=f"{name}_window")
    geometry = ConvGeometry(
        stride=window.stride,
        pad=(pad_h.before, pad_h.after, pad_w.before, pad_w.after),
        dilation=window.dilation,
    )
    return emit_grouped_convolution(
        ctx,
        node,
        name=name,
        input_nhwc=value,
        weights=weights,
        geometry=geometry,
        groups=window.groups,
        output_shape_nhwc=(batch, out_h, out_w, out_channels),
    )


def emit_grouped_convolution(
    ctx: LoweringContext,
    node: Node,
    *,
    name: str,
    input_nhwc: TosaValue,
    weights: ConvWeights,
    geometry: ConvGeometry,
    groups: int,
    output_shape_nhwc: tuple[int, ...],
) -> TosaValue:
    """``emit_convolution`` with PyTorch's groups: depthwise when groups == in_channels, one CONV2D per
    group (concatenated) for other groupings; ``geometry.depthwise`` is set here."""
    batch, height, width, in_channels = input_nhwc.shape
    depthwise = groups == in_channels and groups > 1
    geometry = dataclasses.replace(geometry, depthwise=depthwise)
    if groups == 1 or depthwise:
        return emit_convolution(
            ctx,
            node,
            name=name,
            input_nhwc=input_nhwc,
            weights=weights,
            geometry=geometry,
            output_shape_nhwc=output_shape_nhwc,
        )
    group_in, group_out = in_channels // groups, output_shape_nhwc[-1] // groups
    outputs = [
        emit_convolution(
            ctx,
            node,
            name=f"{name}_group{group}",
            input_nhwc=slice_tensor(
                ctx.graph,
                input_nhwc,
                (0, 0, 0, group * group_in),
                (batch, height, width, group_in),
                name=f"{name}_group{group}_input",
            ),
            weights=weights.group(group, groups),
            geometry=geometry,
            output_shape_nhwc=(*output_shape_nhwc[:3], group_out),
        )
        for group in range(groups)
    ]
    return concat(ctx.graph, outputs, axis=3, name=name)


def annotate_convolution(node: Node, config: QuantizationConfig) -> None:
    """Activation input, weight and (accumulator-grid) bias of an aten.conv1d/conv2d node; a following
    activation fuses into its output."""
    x, weight = node.args[:2]
    bias = node.args[2] if len(node.args) > 2 else None
    inputs = {x: config.activation, weight: config.weight}
    if isinstance(bias, Node):
        inputs[bias] = config.bias(node, x, weight)
    annotate_with_fused_activation(node, inputs, config.activation)
