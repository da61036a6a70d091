"""TOSA TABLE lookups: any function of an int8 tensor is one 256-entry table.

The INT profile computes elementwise functions that have no integer formula (exp, reciprocal,
sigmoid, ...) by tabulating them over the 256 values of the input grid. Ethos-U55/U65 run TABLE on
int8 only, so the helpers here produce int8 -> int8 tables.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.quantization import QParams

INT8_VALUES = np.arange(-128, 128, dtype=np.int64)


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
