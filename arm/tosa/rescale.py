"""Integer rescaling, the one place that turns real-valued scale ratios into TOSA RESCALE operators.

TOSA's INT profile has no float arithmetic: moving a value from one quantization grid to another is
``out = out_zp + apply_scale(in - in_zp, multiplier, shift)``, with ``scale ~= multiplier * 2**-shift``.
TOSA 1.0 passes multiplier, shift and both zero points as constant tensors.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import INT48, TosaGraph, TosaOperator, TosaValue
from arm.tosa.quantization import QParams

# Fraction bits of the common int32 grid of an ADD/SUB of int8 operands: the grid is 2**-SHIFT of twice
# the larger input step. TOSA's RESCALE needs its input below 2**(shift - 1) in magnitude and a
# multiplier below 2**31, so an int8 value off its zero point by up to 255 can be scaled by at most
# 2**30 * 2**-9 = 2**21 exactly: 22 is the finest grid that keeps the larger operand exact (the sum,
# 2 * 255 * 2**21, is far from overflow). The smaller operand is rounded to that grid (its scale ratio
# is not a power of two), by up to 2**-22 of the larger step: a sum within that of a half output step
# can round either way; TFLite's 20 bits left that band 4x wider (MobileViT-xxs met a sum 1.4e-7 of
# a step from a half: bench/README.md "MobileViT-xxs U85 in float64, session 10").
ADD_SUB_LEFT_SHIFT = 22
# The U55 keeps TFLite's 20: Vela 5.2.0 folds an ADD/SUB's operand RESCALEs into the U55's 32-bit add
# scaling only where the larger operand's scale is exactly 2**19 (arm/tosa/u55_rescale_fusion.py); on a
# finer grid each widening runs as a CAST and a MUL of its own (MobileViT-xxs 256 U55-128: +6.1M cycles).
ADD_SUB_LEFT_SHIFT_U55 = 20
# The same for int16 operands: 17 bits for the sum leave 15 bits of fraction (as TFLite's int16 add).
ADD_SUB_LEFT_SHIFT_INT16 = 15


def add_sub_common_scale(
    lhs: TosaValue, rhs: TosaValue, *, rhs_scale: float | None = None, for_u55: bool = False
) -> float:
    """The step of the common int32 grid an ADD/SUB (or a comparison) brings its quantized operands to:
    twice the larger operand step (``rhs_scale``, where given, stands for ``rhs``'s: add's alpha) over
    the fraction bits its widest operand type and the target allow."""
    if np.int16 in (lhs.dtype, rhs.dtype):
        fraction_bits = ADD_SUB_LEFT_SHIFT_INT16
    else:
        fraction_bits = ADD_SUB_LEFT_SHIFT_U55 if for_u55 else ADD_SUB_LEFT_SHIFT
    rhs_step = rhs.qparams.scale if rhs_scale is None else rhs_scale
    return 2 * max(lhs.qparams.scale, rhs_step) / (1 << fraction_bits)

_MULTIPLIER_BITS = 31
# int48 inputs (int16 convolution accumulators) need TOSA's 16-bit multipliers (scale32 = false), so
# that the product fits 64 bits.
_MULTIPLIER_BITS_FOR_INT48 = 15
_MIN_SHIFT, _MAX_SHIFT = 2, 62


def multiplier_and_shift(scale: float, multiplier_bits: int = _MULTIPLIER_BITS) -> tuple[int, int]:
    """Splits ``scale`` into a multiplier below ``2**multiplier_bits`` and a right shift:
    scale ~= multiplier * 2**-shift."""
    if not scale > 0.0 or not math.isfinite(scale):
        raise ValueError(f"a rescale needs a positive finite scale, got {scale}")
    mantissa, exponent = math.frexp(scale)  # scale == mantissa * 2**exponent, 0.5 <= mantissa < 1
    multiplier = round(mantissa * (1 << multiplier_bits))
    if multiplier == 1 << multiplier_bits:  # the mantissa rounded up to 1.0
        multiplier //= 2
        exponent += 1
    shift = multiplier_bits - exponent
    if shift > _MAX_SHIFT:
        # Tiny scales: drop multiplier precision rather than exceed the largest shift TOSA allows.
        multiplier >>= shift - _MAX_SHIFT
        shift = _MAX_SHIFT
    if shift < _MIN_SHIFT:
        raise ValueError(f"scale {scale} is too large for a TOSA RESCALE (needs a shift below {_MIN_SHIFT})")
    return multiplier, shift


def rescale(
    graph: TosaGraph,
    value: TosaValue,
    *,
    name: str,
    scales: Sequence[float],
    output_dtype: np.dtype,
    input_zp: int,
    output_zp: int,
    output_qparams: QParams | None = None,
) -> TosaValue:
    """Emits RESCALE of ``value``; several scales mean per-channel along the innermost dimension."""
    scale32 = value.dtype != INT48
    bits = _MULTIPLIER_BITS if scale32 else _MULTIPLIER_BITS_FOR_INT48
    multipliers, shifts = zip(*(multiplier_and_shift(scale, bits) for scale in scales))
    output = graph.add_tensor(name, value.shape, output_dtype, output_qparams)
    operands = [
        value,
        graph.add_const(f"{output.name}_multiplier", np.array(multipliers, dtype=np.int32 if scale32 else np.int16)),
        graph.add_const(f"{output.name}_shift", np.array(shifts, dtype=np.int8)),
        graph.add_scalar_const(f"{output.name}_input_zp", input_zp, value.dtype),
        graph.add_scalar_const(f"{output.name}_output_zp", output_zp, output_dtype),
    ]
    attribute = ts.TosaSerializerAttribute()
    attribute.RescaleAttribute(
        scale32=scale32,
        rounding_mode=ts.RoundingMode.SINGLE_ROUND,
        per_channel=len(scales) > 1,
        input_unsigned=False,
        output_unsigned=False,
    )
    graph.add_op(ts.Op.RESCALE, operands, [output], attribute, elementwise_unary=len(scales) == 1)
    return output


def to_int32(graph: TosaGraph, value: TosaValue, *, name: str, scale: float) -> TosaValue:
    """Moves a quantized int8 value onto an int32 grid whose step is ``value``'s step divided by ``scale``.

    The result's real meaning is ``result * value.scale / scale``; its zero point is 0.
    """
    qparams = _require_qparams(value, name)
    return rescale(
        graph,
        value,
        name=name,
        scales=[scale],
        output_dtype=np.dtype(np.int32),
        input_zp=qparams.zero_point,
        output_zp=0,
        output_qparams=QParams((qparams.scale / scale,), 0, np.dtype(np.int32)),
    )


def from_int32(
    graph: TosaGraph, value: TosaValue, *, name: str, accumulator_scales: Sequence[float], output: QParams
) -> TosaValue:
    """Writes an int32 accumulator (real = acc * accumulator_scale[c]) onto ``output``'s int8 grid."""
    return rescale(
        graph,
        value,
        name=name,
        scales=[accumulator_scale / output.scale for accumulator_scale in accumulator_scales],
        output_dtype=output.dtype,
        input_zp=0,
        output_zp=output.zero_point,
        output_qparams=output,
    )


def requantize(graph: TosaGraph, value: TosaValue, *, name: str, output: QParams) -> TosaValue:
    """Moves a quantized value onto another grid of the same kind; no op when the grids already match."""
    qparams = _require_qparams(value, name)
    if qparams.matches(output):
        return value.with_qparams(output)
    return rescale(
        graph,
        value,
        name=name,
        scales=[qparams.scale / output.scale],
        output_dtype=output.dtype,
        input_zp=qparams.zero_point,
        output_zp=output.zero_point,
        output_qparams=output,
    )


def _require_qparams(value: TosaValue, name: str) -> QParams:
    if value.qparams is None:
        raise ValueError(f"cannot rescale {value.name} for {name}: it carries no quantization parameters")
    return value.qparams


def is_exact_widening(graph: TosaGraph, rescale: TosaOperator | None) -> bool:
    """Whether ``rescale`` is a per-tensor int8 -> int32 RESCALE by exactly one, which only takes the zero
    point off (passes that read such an int32 tensor can read the int8 one instead)."""
    if rescale is None or rescale.op != ts.Op.RESCALE or not rescale.elementwise_unary:
        return False
    if graph.tensors[rescale.inputs[0]].dtype != np.int8 or graph.tensors[rescale.outputs[0]].dtype != np.int32:
        return False
    multiplier, shift, _, output_zp = (graph.const_data(name) for name in rescale.inputs[1:5])
    if any(value is None or value.size != 1 for value in (multiplier, shift, output_zp)):
        return False
    return int(output_zp[0]) == 0 and int(multiplier[0]) == 1 << int(shift[0])
