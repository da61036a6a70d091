"""An average rounded ties to even from a convolution's sums, as two small convolutions, for Vela.

arm/ops/common/ties_to_even.py rounds an int8 average of N codes as the quantized model does, from
the sums ``S'`` of the codes plus 128: two int32 ADDs of a constant, a RESCALE by 1/2N of each, the
ADD of the two halves and a RESCALE to int8. Where the sums come from sums_as_convolutions' 1x1
CONV2D (a last-axis mean, RMSNorm's mean of squares) Vela 5.2.0 runs those as three elementwise
passes after the convolution, and the TABLE that reads the average (RMSNorm's rsqrt) no longer fuses
into the convolution: Llama's five norms on the U55-128 went from 214 cycles each (the plain
rounding) to 264 + 3 x 320 (+5,050 for the network).

The same integers come from two convolutions: the first writes both halves as two output channels,
each channel's constant as its bias and the 1/2N RESCALE as its output scale (each half is between
0 and 128 when the codes are, so it fits int8 with a zero point); the second adds the two channels
with weights of one and writes the average with the final RESCALE, where Vela fuses the TABLE that
follows. Every step is exact integer arithmetic: the rounding happens in the same RESCALEs as before.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, rebuild_in_place
from arm.tosa.layout import remove_dead_operators
from arm.tosa.sum_as_convolution import ones_convolution

_INT8_MIN, _INT8_MAX = -128, 127


@dataclasses.dataclass(frozen=True)
class _TiesToEvenAverage:
    """The operators of one average from a convolution's sums (names as in the module docstring)."""

    sums_convolution: TosaOperator  # CONV2D [1, 1, R, C] int8 -> [1, 1, R, 1] int32, weights of one
    biases: tuple[int, int]  # the constants the two int32 ADDs add to the sums
    halving: TosaOperator  # the first half's RESCALE by 1/2N (the second's is equal)
    final: TosaOperator  # RESCALE of the halves' sum to int8


def ties_to_even_averages_as_convolutions(graph: TosaGraph) -> None:
    for final in list(graph.operators):
        average = _match(graph, final)
        if average is not None:
            _rewrite(graph, average)
    remove_dead_operators(graph)


def _match(graph: TosaGraph, final: TosaOperator) -> _TiesToEvenAverage | None:
    if not _is_per_tensor_rescale(graph, final, np.int32, np.int8) or _zero_points(graph, final)[0] != 0:
        return None
    adding = _only_producer(graph, final.inputs[0], final)
    if adding is None or adding.op != ts.Op.ADD or len(adding.inputs) != 2:
        return None
    halvings = [_only_producer(graph, name, adding) for name in adding.inputs]
    if any(h is None or not _is_per_tensor_rescale(graph, h, np.int32, np.int32) for h in halvings):
        return None
    if any(_zero_points(graph, h) != (0, 0) or _scale(graph, h) != _scale(graph, halvings[0]) for h in halvings):
        return None
    offsets = [_only_producer(graph, h.inputs[0], h) for h in halvings]
    if any(offset is None or offset.op != ts.Op.ADD for offset in offsets):
        return None
    sums_and_biases = [_tensor_and_constant(graph, offset) for offset in offsets]
    if any(pair is None for pair in sums_and_biases) or sums_and_biases[0][0] != sums_and_biases[1][0]:
        return None
    sums = sums_and_biases[0][0]
    if sums in graph.outputs or sorted(map(id, graph.consumers(sums))) != sorted(map(id, offsets)):
        return None
    convolution = _sums_convolution(graph, sums)
    if convolution is None:
        return None
    average = _TiesToEvenAverage(convolution, (sums_and_biases[0][1], sums_and_biases[1][1]), halvings[0], final)
    return average if _halves_fit_int8(graph, average) else None


def _rewrite(graph: TosaGraph, average: _TiesToEvenAverage) -> None:
    name = average.final.outputs[0]
    rows_image = graph.tensors[average.sums_convolution.inputs[0]]
    rows = rows_image.shape[2]
    halves_zero_point = _INT8_MIN - _halves_range(graph, average)[0]

    def halves_and_their_sum() -> TosaValue:
        sums = ones_convolution(
            graph, rows_image.name, outputs=2, biases=average.biases,
            input_zp=average.sums_convolution.inputs[3], name=f"{name}_halves_sums",
        )  # fmt: skip
        halves = graph.add_tensor(f"{name}_halves", (1, 1, rows, 2), np.int8)
        multiplier, shift = average.halving.inputs[1:3]
        graph.add_op(
            ts.Op.RESCALE,
            [sums, multiplier, shift, graph.add_scalar_const(f"{halves.name}_input_zp", 0, np.int32),
             graph.add_scalar_const(f"{halves.name}_output_zp", halves_zero_point, np.int8)],
            [halves], average.halving.attribute, elementwise_unary=True,
        )  # fmt: skip
        total = ones_convolution(
            graph, halves.name, outputs=1, biases=(0,),
            input_zp=graph.add_scalar_const(f"{name}_pair_input_zp", halves_zero_point, np.int8).name,
            name=f"{name}_pair",
        )  # fmt: skip
        written = graph.add_tensor(f"{name}_rows", (1, 1, rows, 1), np.int8)
        graph.add_op(
            ts.Op.RESCALE, [total, *average.final.inputs[1:]], [written], average.final.attribute, elementwise_unary=True
        )
        return written

    rebuild_in_place(graph, average.final, halves_and_their_sum)


def _halves_fit_int8(graph: TosaGraph, average: _TiesToEvenAverage) -> bool:
    low, high = _halves_range(graph, average)
    return high - low <= _INT8_MAX - _INT8_MIN


def _halves_range(graph: TosaGraph, average: _TiesToEvenAverage) -> tuple[int, int]:
    """The smallest and largest half over every int8 input: RESCALE rounds monotonically, so the ends
    of each bias's sum range bound it."""
    image = graph.tensors[average.sums_convolution.inputs[0]]
    channels = image.shape[-1]
    input_zp = int(graph.const_data(average.sums_convolution.inputs[3]).reshape(-1)[0])
    multiplier, shift = _scale(graph, average.halving)
    ends = [
        _apply_scale(channels * (code - input_zp) + bias, multiplier, shift)
        for code in (_INT8_MIN, _INT8_MAX)
        for bias in average.biases
    ]
    return min(ends), max(ends)


def _apply_scale(value: int, multiplier: int, shift: int) -> int:
    """TOSA's apply_scale_32 with single rounding: round(value * multiplier / 2**shift), halves up."""
    return (value * multiplier + (1 << (shift - 1))) >> shift


def _sums_convolution(graph: TosaGraph, sums: str) -> TosaOperator | None:
    """The CONV2D of sums_as_convolutions (weights of one, bias zero, one output channel) whose
    [1, 1, R, 1] int32 output ``sums`` reshapes, when it is that."""
    reshaping = graph.producer(sums)
    if reshaping is None or reshaping.op != ts.Op.RESHAPE:
        return None
    convolution = _only_producer(graph, reshaping.inputs[0], reshaping)
    if convolution is None or convolution.op != ts.Op.CONV2D:
        return None
    image, weights, bias, _, weight_zp = (graph.tensors[name] for name in convolution.inputs)
    output = graph.tensors[convolution.outputs[0]]
    if image.dtype != np.int8 or output.dtype != np.int32 or len(image.shape) != 4 or image.shape[:2] != (1, 1):
        return None
    if weights.data is None or weights.data.shape != (1, 1, 1, image.shape[-1]) or not np.all(weights.data == 1):
        return None
    if bias.data is None or np.any(bias.data != 0) or weight_zp.data is None or np.any(weight_zp.data != 0):
        return None
    return convolution


def _only_producer(graph: TosaGraph, name: str, reader: TosaOperator) -> TosaOperator | None:
    """The producer of ``name`` when ``reader`` is its only reader and it is no graph output."""
    if name in graph.outputs or graph.consumers(name) != [reader]:
        return None
    return graph.producer(name)


def _tensor_and_constant(graph: TosaGraph, adding: TosaOperator) -> tuple[str, int] | None:
    """(the computed operand, the one-element constant) of an ADD of the two."""
    constants = [name for name in adding.inputs if _one_element_constant(graph, name)]
    computed = [name for name in adding.inputs if name not in constants]
    if len(adding.inputs) != 2 or len(constants) != 1 or len(computed) != 1:
        return None
    return computed[0], int(graph.const_data(constants[0]).reshape(-1)[0])


def _one_element_constant(graph: TosaGraph, name: str) -> bool:
    data = graph.tensors[name].data
    return data is not None and data.size == 1 and data.dtype == np.int32


def _is_per_tensor_rescale(graph: TosaGraph, operator: TosaOperator, source: type, result: type) -> bool:
    if operator.op != ts.Op.RESCALE or not operator.elementwise_unary:
        return False
    if graph.tensors[operator.inputs[0]].dtype != source or graph.tensors[operator.outputs[0]].dtype != result:
        return False
    return all(graph.tensors[name].data is not None and graph.tensors[name].data.size == 1 for name in operator.inputs[1:5])


def _scale(graph: TosaGraph, rescale: TosaOperator) -> tuple[int, int]:
    multiplier, shift = (int(graph.const_data(name).reshape(-1)[0]) for name in rescale.inputs[1:3])
    return multiplier, shift


def _zero_points(graph: TosaGraph, rescale: TosaOperator) -> tuple[int, int]:
    input_zp, output_zp = (int(graph.const_data(name).reshape(-1)[0]) for name in rescale.inputs[3:5])
    return input_zp, output_zp

