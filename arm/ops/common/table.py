"""TOSA TABLE lookups: any function of an int8 tensor is one 256-entry table; of an int16 tensor,
one 513-entry interpolating table.

The INT profile computes elementwise functions that have no integer formula (exp, reciprocal,
sigmoid, ...) by tabulating them over the values of the input grid. For int8 the 256 entries are
the function itself, exact. For int16 (a16w8) TOSA 1.0's TABLE holds the function at every 128th
input code and interpolates linearly between neighbours into an int32 with 7 fraction bits, which a
RESCALE rounds back to int16. The entries are the least-squares fit of that interpolation to the
function over all 65536 codes (not the samples themselves), which keeps the result within about one
int16 step of the exact function wherever its curvature is moderate (tanh, sigmoid, exp, gelu);
steep stretches (rsqrt near 0) stay within a few steps, each 1/256 of an int8 step.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.quantization import QParams
from arm.tosa.rescale import rescale

INT8_VALUES = np.arange(-128, 128, dtype=np.int64)
INT16_VALUES = np.arange(-(1 << 15), 1 << 15, dtype=np.int64)
# TOSA 1.0's int16 TABLE: entry i stands for input code -32768 + 128 * i; the last one (i = 512)
# for 32768, one past the largest code, so the top segment interpolates too.
INT16_TABLE_ENTRIES = 513
_INT16_SEGMENT_BITS = 7
# The most an int16 TABLE may be off the function it interpolates, in int16 steps of its output: half
# an int8 step of the same range. Smooth functions stay within a few steps (rsqrt next to its clipped
# maximum: 96); one that jumps between two entries (ceil, round, sign) is off by whole units there.
INT16_TABLE_MAX_ERROR_STEPS = 128


def table(graph: TosaGraph, value: TosaValue, entries: np.ndarray, *, name: str, qparams: QParams | None) -> TosaValue:
    """``entries[value + 128]`` for an int8 ``value``; ``entries`` holds 256 int8 values."""
    if value.dtype != np.int8 or entries.shape != (256,) or entries.dtype != np.int8:
        raise ValueError(
            f"TABLE {name} needs an int8 input and 256 int8 entries, got {value.dtype} and "
            f"{entries.dtype}{list(entries.shape)}"
        )
    table_value = graph.add_const(f"{name}_table", entries)
    output = graph.add_tensor(name, value.shape, np.int8, qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TableAttribute()
    graph.add_op(ts.Op.TABLE, [value, table_value], [output], attribute, elementwise_unary=True)
    return output


def quantized_function_table(
    function: Callable[[np.ndarray], np.ndarray], input_qparams: QParams, output_qparams: QParams
) -> np.ndarray:
    """The int8 table of ``function`` from one quantization grid to another; results round half to
    even onto the output grid, as torch's quantize does."""
    real = function((INT8_VALUES - input_qparams.zero_point) * input_qparams.scale)
    quantized = np.round(real / output_qparams.scale) + output_qparams.zero_point
    return np.clip(quantized, -128, 127).astype(np.int8)


def int16_table(
    graph: TosaGraph, value: TosaValue, entries: np.ndarray, *, name: str, qparams: QParams | None
) -> TosaValue:
    """TOSA's interpolating TABLE of an int16 ``value`` with 513 int16 ``entries``, rounded back to int16."""
    if value.dtype != np.int16 or entries.shape != (INT16_TABLE_ENTRIES,) or entries.dtype != np.int16:
        raise ValueError(
            f"TABLE {name} needs an int16 input and {INT16_TABLE_ENTRIES} int16 entries, got {value.dtype} and "
            f"{entries.dtype}{list(entries.shape)}"
        )
    interpolated = graph.add_tensor(f"{name}_interpolated", value.shape, np.dtype(np.int32))
    attribute = ts.TosaSerializerAttribute()
    attribute.TableAttribute()
    graph.add_op(ts.Op.TABLE, [value, graph.add_const(f"{name}_table", entries)], [interpolated], attribute,
                 elementwise_unary=True)  # fmt: skip
    return rescale(graph, interpolated, name=name, scales=[2.0**-_INT16_SEGMENT_BITS], output_dtype=np.dtype(np.int16),
                   input_zp=0, output_zp=0, output_qparams=qparams)  # fmt: skip


def quantized_function_table16(
    function: Callable[[np.ndarray], np.ndarray], input_qparams: QParams, output_qparams: QParams
) -> np.ndarray:
    """The 513 int16 entries whose interpolation best fits ``function`` from one int16 grid to another.

    Both grids are symmetric (TOSA's int16 operators take zero point 0). Non-finite results (rsqrt of
    a negative code) count as the nearest end of the output range.
    """
    real = function(INT16_VALUES * input_qparams.scale)
    targets = np.clip(np.nan_to_num(real / output_qparams.scale, nan=0.0, posinf=np.inf, neginf=-np.inf),
                      -(1 << 15), (1 << 15) - 1)  # fmt: skip
    return np.clip(np.round(_fit_interpolation(targets)), -(1 << 15), (1 << 15) - 1).astype(np.int16)


def int16_table_error_steps(
    function: Callable[[np.ndarray], np.ndarray], input_qparams: QParams, output_qparams: QParams
) -> int:
    """How far, in output steps, the int16 TABLE of ``function`` (``function_table``) gets from the
    function rounded onto the output grid, over all 65536 input codes."""
    entries = quantized_function_table16(function, input_qparams, output_qparams).astype(np.int64)
    offset = INT16_VALUES + (1 << 15)
    segment = offset >> _INT16_SEGMENT_BITS
    fraction = offset & ((1 << _INT16_SEGMENT_BITS) - 1)
    # TOSA's int16 TABLE, then int16_table's RESCALE by 2**-7 (round half up).
    interpolated = (entries[segment] << _INT16_SEGMENT_BITS) + (entries[segment + 1] - entries[segment]) * fraction
    result = np.clip((interpolated + (1 << (_INT16_SEGMENT_BITS - 1))) >> _INT16_SEGMENT_BITS, -(1 << 15), (1 << 15) - 1)
    real = function(INT16_VALUES * input_qparams.scale)
    wanted = np.clip(np.round(np.nan_to_num(real / output_qparams.scale, nan=0.0)), -(1 << 15), (1 << 15) - 1)
    return int(np.abs(result - wanted).max())


def _fit_interpolation(targets: np.ndarray) -> np.ndarray:
    """Least-squares entries for TABLE's interpolation of ``targets`` (one per int16 code).

    Code c lies in segment i = (c + 32768) >> 7 at weight w = ((c + 32768) & 127) / 128 and reads
    (1 - w) * e[i] + w * e[i + 1]; the normal equations are tridiagonal.
    """
    offset = INT16_VALUES + (1 << 15)
    segment = offset >> _INT16_SEGMENT_BITS
    weight = (offset & ((1 << _INT16_SEGMENT_BITS) - 1)) / float(1 << _INT16_SEGMENT_BITS)
    normal = np.zeros((INT16_TABLE_ENTRIES, INT16_TABLE_ENTRIES))
    right = np.zeros(INT16_TABLE_ENTRIES)
    np.add.at(normal, (segment, segment), (1 - weight) ** 2)
    np.add.at(normal, (segment + 1, segment + 1), weight**2)
    np.add.at(normal, (segment, segment + 1), (1 - weight) * weight)
    np.add.at(normal, (segment + 1, segment), (1 - weight) * weight)
    np.add.at(right, segment, (1 - weight) * targets)
    np.add.at(right, segment + 1, weight * targets)
    return np.linalg.solve(normal, right)


def function_table(
    graph: TosaGraph, value: TosaValue, function: Callable[[np.ndarray], np.ndarray], output: QParams, *, name: str
) -> TosaValue:
    """``function`` (real -> real) of a quantized ``value`` onto ``output``'s grid as one TABLE: 256
    exact entries for int8, 513 interpolated ones for int16 (input and output have the same width)."""
    if value.dtype == np.int16:
        return int16_table(graph, value, quantized_function_table16(function, value.qparams, output), name=name,
                           qparams=output)  # fmt: skip
    return table(graph, value, quantized_function_table(function, value.qparams, output), name=name, qparams=output)
