"""On the U85, a transpose after a convolution as the lowest-rank transpose that moves the same bytes.

Axes of size one and runs of axes that stay neighbours in the output carry no movement: NHWC [1, H, W, C]
to NCHW is [H*W, C] to [C, H*W] between two RESHAPEs, which move nothing. Vela 5.2.0 fuses a rank-4
transpose into the write of the convolution before it on the U85, which is slow where the written rows
are short; a collapsed transpose is not fused and runs on its own. Measured (U85-256, int8, a 1x1
convolution, the transpose to NCHW, a RESCALE reading it): W = 2 ([1, 2, 2, 256]) 103,496 cycles
fused against 9,496 collapsed, W = 4 ([1, 4, 4, 96]) 5,704 against 3,728, W = 8 ([1, 8, 8, 64]) 6,997
against 10,735 (the fused write is the cheaper there). So a transpose right after a convolution (or
its fused activation) whose output rows are shorter than ``layout.SHORT_ROWS`` is collapsed; the others stay.
EfficientFormerV2's attention reads q, k and v from 1x1 convolutions of a 2x2 map this way.

Not on the U55: Vela runs a rank-4 NHWC <-> NCHW transpose there as two transposes and a collapsed one
as one (a tiny graph saved 1,024 cycles), but over whole models the reshapes around the collapsed
transposes cost more than that (mha_sequence U55-128 340,300 -> 345,380, Llama 216,330 -> 216,586:
Vela copies a reshaped tensor in front of a MATMUL and transposes MATMUL operands it read in place).
"""

from __future__ import annotations

import numpy as np

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, reshape
from arm.tosa.layout import has_short_rows, is_weighted_output, transpose

def collapse_transposes_after_convolutions(graph: TosaGraph) -> None:
    """Collapses each TRANSPOSE Vela would fuse slowly into the U85 convolution before it."""
    for operator in [operator for operator in graph.operators if operator.perms is not None]:
        if not _fuses_slowly(graph, operator):
            continue
        shape = graph.tensors[operator.inputs[0]].shape
        collapsed_shape, collapsed_perms = collapsed(shape, operator.perms)
        if len(collapsed_perms) < len(shape):
            _rewrite(graph, operator, collapsed_shape, collapsed_perms)


def collapsed(shape: tuple[int, ...], perms: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(input shape, perms) of the same transpose without axes of size one and with every run of input
    axes that stay neighbours in the output merged into one axis."""
    kept = [axis for axis in perms if shape[axis] != 1]
    runs: list[list[int]] = []  # input axes merged into each output axis, in output order
    for axis in kept:
        if runs and axis == runs[-1][-1] + 1:
            runs[-1].append(axis)
        else:
            runs.append([axis])
    by_input = sorted(range(len(runs)), key=lambda run: runs[run][0])
    collapsed_shape = tuple(int(np.prod([shape[axis] for axis in runs[run]])) for run in by_input)
    position = {run: index for index, run in enumerate(by_input)}
    return collapsed_shape, tuple(position[run] for run in range(len(runs)))


def _fuses_slowly(graph: TosaGraph, operator: TosaOperator) -> bool:
    source = graph.tensors[operator.inputs[0]]
    return has_short_rows(operator.perms, source.shape) and is_weighted_output(graph, source.name)


def _rewrite(graph: TosaGraph, operator: TosaOperator, shape: tuple[int, ...], perms: tuple[int, ...]) -> None:
    source = graph.tensors[operator.inputs[0]]
    name = operator.outputs[0]
    output_shape = graph.tensors[name].shape
    position = graph.operators.index(operator)
    first_new = len(graph.operators)
    value = TosaValue(source.name, source.shape, source.dtype)
    if len(perms) > 1:  # else the transpose moves nothing: one reshape
        value = transpose(graph, reshape(graph, value, shape, name=f"{name}_collapsed"), perms, name=f"{name}_collapsed_transposed")
    del graph.tensors[name]  # re-made by the reshape under the same name
    reshape(graph, value, output_shape, name=name)
    graph.operators.remove(operator)
    graph.move_appended(first_new - 1, position)
