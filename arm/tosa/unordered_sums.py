"""A TRANSPOSE whose values only reach integer sums over all of them moves nothing those sums can see.

The group norm's exact form (arm/ops/common/int8_normalization.py) sums a group's int32 values and their
squares over one row: RESHAPE to [rows, values] and REDUCE_SUM. Where the group norm reads the unfolded
patches of MobileViTv2 ([B, C, P, N] from a rank-6 permute), the layout pass sinks the unfold's transpose
down to those reshapes, so each sum reads its row through a rank-5 TRANSPOSE that Vela 5.2.0 runs as nine
(~300k cycles a sum at 64x64 on the U85-256; four such sums per block). An integer sum over every value
of a tensor is the same whatever order the values are in, so the sum can reshape the transpose's input
instead, and the transpose goes when nothing else reads it.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator


def sum_without_transposes(graph: TosaGraph) -> None:
    """Drops each integer TRANSPOSE whose output is read only by RESHAPEs to one row that only REDUCE_SUMs
    over that row read (each sum then reshapes the transpose's input)."""
    for operator in [operator for operator in graph.operators if operator.op == ts.Op.TRANSPOSE]:
        source, moved = operator.inputs[0], operator.outputs[0]
        readers = graph.consumers(moved)
        if (
            not np.issubdtype(graph.tensors[moved].dtype, np.integer)
            or moved in graph.outputs
            or not readers
            or not all(_is_reshape_to_one_summed_row(graph, reader, moved) for reader in readers)
        ):
            continue
        for reader in readers:
            reader.inputs[0] = source
        graph.operators.remove(operator)
        del graph.tensors[moved]


def _is_reshape_to_one_summed_row(graph: TosaGraph, operator: TosaOperator, value: str) -> bool:
    """``operator`` reshapes ``value`` (as its data, not its shape) to a row only whole-row sums read."""
    if operator.op != ts.Op.RESHAPE or operator.inputs[0] != value:
        return False
    row = operator.outputs[0]
    shape = graph.tensors[row].shape
    long_axes = [axis for axis, size in enumerate(shape) if size != 1]
    readers = graph.consumers(row)
    return (
        len(long_axes) <= 1
        and row not in graph.outputs
        and bool(readers)
        and all(reader.op == ts.Op.REDUCE_SUM and reader.axis in long_axes for reader in readers)
    )
