"""The last-axis sum of an int8 tensor as a 1x1 CONV2D with weights of one, for Vela.

TOSA 1.0 sums integers in int32 only, so a lowering writes ``RESCALE(int8 -> int32, zero point z)``
then ``REDUCE_SUM``. Vela 5.2.0 turns that pair into a convolution by itself (the zero point is the
convolution's input zero point) only for some output rescales: when the sum's RESCALE to int8 is a
pure power of two (a mean over 64 channels onto its input's grid, as in RMSNorm) it runs a ReduceSum
and then a SUB for the zero point instead, and a TABLE after it (RMSNorm's rsqrt) cannot fuse. Llama's
RMSNorm on the U55-128, [16, 64] int8: 358 + 256 cycles, then the lookup on its own, against 220 for
the convolution with the lookup fused. The convolution computes the same integers: sum(x - z) * 1.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, reshape
from arm.tosa.rescale import is_exact_widening


def sums_as_convolutions(graph: TosaGraph) -> None:
    for reduce_sum in [operator for operator in graph.operators if _is_int8_last_axis_sum(graph, operator)]:
        widening = graph.producer(reduce_sum.inputs[0])
        source = graph.tensors[widening.inputs[0]]
        zero_point = int(graph.const_data(widening.inputs[3]).reshape(-1)[0])
        position = graph.operators.index(reduce_sum)
        first_new = len(graph.operators)
        _convolution_sum(graph, TosaValue(source.name, source.shape, source.dtype), zero_point, reduce_sum.outputs[0])
        del graph.operators[position]  # the REDUCE_SUM the convolution replaces
        graph.move_appended(first_new - 1, position)
        if not graph.consumers(widening.outputs[0]):
            graph.operators.remove(widening)


def _is_int8_last_axis_sum(graph: TosaGraph, operator: TosaOperator) -> bool:
    """REDUCE_SUM over the last axis of an int32 tensor that is an int8 tensor minus its zero point
    (a per-tensor RESCALE by exactly one), read by this sum alone."""
    if operator.op != ts.Op.REDUCE_SUM or operator.axis is None:
        return False
    summed = graph.tensors[operator.inputs[0]]
    if summed.dtype != np.int32 or operator.axis != len(summed.shape) - 1:
        return False
    if summed.name in graph.outputs or graph.consumers(summed.name) != [operator]:
        return False
    return is_exact_widening(graph, graph.producer(summed.name))


def _convolution_sum(graph: TosaGraph, source: TosaValue, zero_point: int, output_name: str) -> None:
    """Writes ``output_name`` (shape [..., 1], int32) as CONV2D of ``source`` seen as [1, 1, rows, C]."""
    rows = math.prod(source.shape[:-1])
    image = reshape(graph, source, (1, 1, rows, source.shape[-1]), name=f"{output_name}_rows")
    input_zp = graph.add_scalar_const(f"{output_name}_input_zp", zero_point, np.int8)
    sums = ones_convolution(graph, image.name, outputs=1, biases=(0,), input_zp=input_zp.name, name=f"{output_name}_conv")
    output_shape = graph.tensors[output_name].shape
    del graph.tensors[output_name]  # re-made by the reshape under the same name
    reshape(graph, sums, output_shape, name=output_name)


def ones_convolution(
    graph: TosaGraph, image: str, *, outputs: int, biases: Sequence[int], input_zp: str, name: str
) -> TosaValue:
    """CONV2D of the int8 ``image`` [1, 1, rows, C] (zero point: the constant ``input_zp``) with weights of
    one: ``outputs`` channels of int32 sums, channel i plus ``biases[i]``."""
    _, _, rows, channels = graph.tensors[image].shape
    weights = graph.add_const(f"{name}_ones", np.ones((outputs, 1, 1, channels), dtype=np.int8))
    bias = graph.add_const(f"{name}_bias", np.array(biases, dtype=np.int32))
    sums = graph.add_tensor(name, (1, 1, rows, outputs), np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    operands = [image, weights, bias, input_zp, graph.add_scalar_const(f"{name}_weight_zp", 0, np.int8)]
    graph.add_op(ts.Op.CONV2D, operands, [sums], attribute)
    return sums
