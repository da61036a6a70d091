"""A binary elementwise operator of rank 5 or more whose first operand is one element runs at rank 4 (U55/U65).

The U55's elementwise unit broadcasts only its second input (IFM2: NPU_SET_IFM2_BROADCAST has bits for H, W and C
of IFM2 and one that reverses the operand order), so a compiler must put a broadcast operand second and set the
reverse bit for SUB and the other operators whose order matters. Vela 5.2.0 does so at rank 4 and below, but for
a rank-5 operator it flattens both operands onto 4D feature maps, keeps the one-element operand first and sets
IFM2's broadcast bits on the full-size one: the stream reads the one element as a whole feature map (past its
constant, or past the end of the weight region) and broadcasts the other. ExecuTorch's a16w8 MHA softmax on (8, 1,
4, 1, 16) rows has such an operator in its per-row reciprocal (``1 - x * r``, the constant first) and stopped the
NPU model at an IFM read 16 bytes past region 0; tiny cases are in arm/ethosu/vela_departures.py.

The first operand broadcasts over every dimension, so the second operand has the output's shape, and the
operator computes the same on both with their leading dimensions merged into one: RESHAPEs around it (which Vela
runs as views) give Vela a rank-4 operator, whose stream is exact on the NPU model.
"""

from __future__ import annotations

import math
from typing import Sequence

import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, reshape

# The binary elementwise operators the flow emits: inputs (a, b) or, for MUL, (a, b, shift).
_BINARY_ELEMENTWISE = frozenset(
    {
        ts.Op.ADD, ts.Op.SUB, ts.Op.MUL, ts.Op.MAXIMUM, ts.Op.MINIMUM, ts.Op.ARITHMETIC_RIGHT_SHIFT,
        ts.Op.LOGICAL_LEFT_SHIFT, ts.Op.LOGICAL_RIGHT_SHIFT, ts.Op.BITWISE_AND, ts.Op.BITWISE_OR, ts.Op.BITWISE_XOR,
        ts.Op.LOGICAL_AND, ts.Op.LOGICAL_OR, ts.Op.LOGICAL_XOR, ts.Op.EQUAL, ts.Op.GREATER, ts.Op.GREATER_EQUAL,
        ts.Op.INTDIV, ts.Op.POW,
    }
)  # fmt: skip
_NPU_FEATURE_MAP_RANK = 4


def run_one_element_first_operands_at_rank4(graph: TosaGraph) -> None:
    for operator in [operator for operator in graph.operators if operator.op in _BINARY_ELEMENTWISE]:
        first, second = (graph.tensors[name] for name in operator.inputs[:2])
        output = graph.tensors[operator.outputs[0]]
        if len(output.shape) <= _NPU_FEATURE_MAP_RANK or math.prod(first.shape) != 1 or math.prod(second.shape) == 1:
            continue
        _run_at_rank4(graph, operator, rank4_shape(output.shape))


def rank4_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """``shape`` with its leading dimensions merged into one, leaving four."""
    leading = len(shape) - _NPU_FEATURE_MAP_RANK + 1
    return (math.prod(shape[:leading]), *shape[leading:])


def _run_at_rank4(graph: TosaGraph, operator: TosaOperator, output_shape: tuple[int, ...]) -> None:
    first, second, output = (graph.tensors[name] for name in (*operator.inputs[:2], operator.outputs[0]))
    operators_before = len(graph.operators)
    first4 = reshape(graph, TosaValue(first.name, first.shape, first.dtype), (1,) * 4, name=f"{first.name}_rank4")
    second4 = reshape(graph, TosaValue(second.name, second.shape, second.dtype), output_shape,
                      name=f"{second.name}_rank4")  # fmt: skip
    graph.move_appended(operators_before, graph.operators.index(operator))
    result4 = graph.add_tensor(f"{output.name}_rank4", output_shape, output.dtype)
    operator.inputs[:2] = [first4.name, second4.name]
    operator.outputs[0] = result4.name
    # The operator's old output tensor, now written by a RESHAPE back to its own shape.
    operators_before = len(graph.operators)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReshapeAttribute()
    shape = graph.add_shape_const(f"{output.name}_shape", output.shape)
    graph.add_op(ts.Op.RESHAPE, [result4.name, shape], [TosaValue(output.name, output.shape, output.dtype)], attribute)
    graph.move_appended(operators_before, graph.operators.index(operator) + 1)
