"""TOSA RESIZE for upsample_nearest2d and upsample_bilinear2d: parameters, support rule, emitter.

RESIZE maps output row y to input row (y * scale_d + offset) / scale_n. The parameters below are
PyTorch's sampling positions in that form, with scales doubled so half-pixel offsets are integers:

* nearest: PyTorch reads floor(y * in / out); RESIZE rounds to nearest, so the offset takes half a
  step back (for an integer upscale s this is the half-pixel form offset = 1 - s);
* bilinear, align_corners=False: half-pixel centres, offset = (scale_d - scale_n) / 2;
* bilinear, align_corners=True: the corner pixels coincide, scale (out - 1) / (in - 1), offset 0.

Given scale factors (``scale_factor=1.5``) PyTorch samples with the factor itself, not out / in, and
floors the output size (7 rows of 5 by 1.5): the factor is then the RESIZE ratio, and the border makes
up the difference.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.common.ties_to_even import average_ties_to_even, rounds_ties_to_even
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import INT48, TosaValue
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.rescale import requantize, rescale
from arm.tosa.specification import TosaSpecification

_INT8_MIN = -128

# TOSA 1.0 RESIZE limits (level 8K): scale_n <= 2048 and scale_d < 16 * scale_n (at most 16x down).
_MAX_SCALE_N = 1 << 11
_MAX_DOWNSCALE = 16
# Vela runs RESIZE on the U55 only as a nearest-neighbour upscale of batch 1 by 2, 4 or 8 on both axes.
_U55_NEAREST_FACTORS = (2, 4, 8)


@dataclasses.dataclass(frozen=True)
class AxisResize:
    """RESIZE parameters of one axis."""

    scale_n: int
    scale_d: int
    offset: int
    border: int


def axis_resize(
    in_size: int, out_size: int, *, bilinear: bool, align_corners: bool, factor: Fraction | None = None
) -> AxisResize:
    corners = align_corners and in_size > 1 and out_size > 1
    if corners:
        ratio = Fraction(out_size - 1, in_size - 1)
    else:
        ratio = factor if factor is not None else Fraction(out_size, in_size)
    scale_n, scale_d = 2 * ratio.numerator, 2 * ratio.denominator
    if not bilinear:
        offset = (scale_d - scale_n) // 2 if ratio.denominator == 1 else -(scale_n // 2)
    else:
        offset = 0 if corners else (scale_d - scale_n) // 2
    border = scale_d * (out_size - 1) - scale_n * (in_size - 1) + offset
    return AxisResize(scale_n, scale_d, offset, border)


# A scale factor is taken as the exact fraction of its float; small denominators only (1.5, 2.5, 0.75),
# which keep RESIZE's numerator within its limit.
_MAX_FACTOR_DENOMINATOR = 16


def _factors(node: Node) -> tuple[Fraction | None, Fraction | None]:
    """The sampling ratio per axis where a scale factor does not give the output size exactly (else None:
    out / in is the factor)."""
    scale_factors = node.args[-1]
    if scale_factors is None:
        return None, None
    sizes = zip(shape_of(node.args[0])[2:], shape_of(node)[2:], scale_factors)
    return tuple(None if out == in_ * factor else Fraction(factor) for in_, out, factor in sizes)  # type: ignore[return-value]


def _axes(node: Node, *, bilinear: bool, align_corners: bool) -> tuple[AxisResize, AxisResize]:
    _, _, in_h, in_w = shape_of(node.args[0])
    _, _, out_h, out_w = shape_of(node)
    factor_h, factor_w = _factors(node)
    return (
        axis_resize(in_h, out_h, bilinear=bilinear, align_corners=align_corners, factor=factor_h),
        axis_resize(in_w, out_w, bilinear=bilinear, align_corners=align_corners, factor=factor_w),
    )


def resize_support(node: Node, spec: TosaSpecification, *, bilinear: bool, align_corners: bool) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) != 4:
        return f"{describe(node)}: only rank-4 (NCHW) inputs are resized, got shape {shape_of(x)}"
    factors = [factor for factor in _factors(node) if factor is not None]
    if any(factor.denominator > _MAX_FACTOR_DENOMINATOR for factor in factors):
        return (
            f"{describe(node)}: scale factors {list(node.args[-1])} do not give whole output sizes, and PyTorch "
            f"samples with the factor itself, which RESIZE takes as a fraction of denominator up to "
            f"{_MAX_FACTOR_DENOMINATOR} only; pass size= instead"
        )
    axes = _axes(node, bilinear=bilinear, align_corners=align_corners)
    if any(axis.scale_n > _MAX_SCALE_N or axis.scale_d >= _MAX_DOWNSCALE * axis.scale_n for axis in axes):
        return (
            f"{describe(node)}: resize from {shape_of(x)[2:]} to {shape_of(node)[2:]} exceeds TOSA RESIZE's "
            f"limits (scale numerator <= {_MAX_SCALE_N}, at most {_MAX_DOWNSCALE}x down)"
        )
    return first_reason(profile_reason(node, spec, [x]), _u55_reason(node, spec, bilinear=bilinear))


def _u55_reason(node: Node, spec: TosaSpecification, *, bilinear: bool) -> str | None:
    if not spec.has("u55"):
        return None
    if bilinear:
        return f"{describe(node)}: the U55 has no bilinear resize (Vela runs nearest-neighbour upscales only)"
    batch, _, in_h, in_w = shape_of(node.args[0])
    _, _, out_h, out_w = shape_of(node)
    factor = out_h // in_h
    if batch != 1 or factor not in _U55_NEAREST_FACTORS or (out_h, out_w) != (in_h * factor, in_w * factor):
        return (
            f"{describe(node)}: the U55 resizes only batch 1 by the same factor 2, 4 or 8 on both axes; "
            f"got batch {batch}, {in_h}x{in_w} -> {out_h}x{out_w}"
        )
    return None


def lower_resize(node: Node, ctx: LoweringContext, *, bilinear: bool, align_corners: bool) -> TosaValue:
    """RESIZE in NHWC. INT bilinear writes int32 scaled by scale_n_y * scale_n_x, rescaled onto the output grid."""
    y, x = _axes(node, bilinear=bilinear, align_corners=align_corners)
    value = to_nhwc(ctx.graph, ctx.value(node.args[0]))
    batch, channels, out_h, out_w = shape_of(node)
    widened = bilinear and ctx.spec.is_int
    # TOSA's bilinear RESIZE widens int8 to int32 and int16 (a16w8) to int48.
    dtype = (INT48 if value.dtype == np.int16 else np.dtype(np.int32)) if widened else value.dtype
    output = ctx.graph.add_tensor(
        f"{node.name}_nhwc" if not widened else f"{node.name}_int32", (batch, out_h, out_w, channels), dtype
    )
    graph = ctx.graph
    operands = [
        value,
        graph.add_shape_const(f"{output.name}_scale", [y.scale_n, y.scale_d, x.scale_n, x.scale_d]),
        graph.add_shape_const(f"{output.name}_offset", [y.offset, x.offset]),
        graph.add_shape_const(f"{output.name}_border", [y.border, x.border]),
    ]
    attribute = ts.TosaSerializerAttribute()
    attribute.ResizeAttribute(ts.ResizeMode.BILINEAR if bilinear else ts.ResizeMode.NEAREST)
    graph.add_op(ts.Op.RESIZE, operands, [output], attribute)
    count = y.scale_n * x.scale_n
    if widened and rounds_ties_to_even(count, value.qparams, value.qparams):
        # The int32 result is the interpolated code (zero point included) times the weight sum N: a half
        # step wherever it is an odd multiple of N / 2, which the quantized model rounds to even and a
        # RESCALE up (deeplabv3_mobilenet_v3_large's head upsample: 0.46% of its outputs a step off).
        # Its sums of N raw codes weighed take the exact average of arm/ops/common/ties_to_even.py.
        output = average_ties_to_even(
            ctx, output, count, value.qparams, name=f"{node.name}_narrowed", offset=-_INT8_MIN * count
        )
    elif widened:
        # The int32 (int48) result is the interpolated code (zero point included) times the weight sum.
        output = rescale(
            graph,
            output,
            name=f"{node.name}_narrowed",
            scales=[1.0 / count],
            output_dtype=value.dtype,
            input_zp=0,
            output_zp=0,
            output_qparams=value.qparams,
        )
    if ctx.spec.is_int:
        # The quantizer shares the input's grid, so this rescale is only there for foreign annotations.
        output = requantize(
            graph, output.with_qparams(value.qparams), name=f"{node.name}_rescaled", output=ctx.output_qparams(node)
        )
    return to_nchw(graph, output, name=node.name)
