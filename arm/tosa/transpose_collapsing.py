"""A TRANSPOSE as the lowest-rank transpose that moves the same bytes, where Vela 5.2.0 runs that one better.

Axes of size one and runs of axes that stay neighbours in the output carry no movement: NHWC [1, H, W, C]
to NCHW is [H*W, C] to [C, H*W] between two RESHAPEs, which move nothing. Measured (Vela 5.2.0, int8,
a 1x1 convolution, the transpose, a RESCALE reading it):

* U55-128: Vela runs a rank-4 NHWC <-> NCHW transpose as two transposes, the collapsed one as one:
  [1, 2, 2, 256] 4,512 -> 3,488 cycles, [1, 8, 8, 64] 11,872 -> 10,848, [1, 2, 2, 1024] int32
  32,768 -> 20,480. Every transpose that collapses is collapsed.
* U85-256: Vela fuses a rank-4 transpose into the write of the convolution before it, which is slow
  where the written rows are short: to NCHW with W = 2 ([1, 2, 2, 256]) the convolution took 102,600
  cycles instead of 5,336, with W = 4 ([1, 4, 4, 96]) 5,704 against 3,728 for the collapsed
  transpose on its own; with W = 8 ([1, 8, 8, 64]) the fused write is the cheaper (6,997 against
  10,735). A collapsed transpose is not fused. So a transpose right after a convolution (or its
  fused activation) whose output rows are shorter than ``_U85_SHORT_ROWS`` is collapsed; the others stay.
  EfficientFormerV2's attention reads its q, k and v from 1x1 convolutions of a 2x2 map this way.
"""

from __future__ import annotations

import numpy as np

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, reshape
from arm.tosa.layout import is_weighted_output, transpose

# Output rows (the last axis) shorter than this make the U85's fused transposed write slow (see above).
_U85_SHORT_ROWS = 8


def collapse_transposes(graph: TosaGraph, *, only_short_rows_after_convolutions: bool) -> None:
    """Collapses every TRANSPOSE whose collapsed form has fewer axes (the U55's rule), or with
    ``only_short_rows_after_convolutions`` only those Vela would fuse slowly into a convolution (the U85's)."""
    for operator in [operator for operator in graph.operators if operator.perms is not None]:
        if only_short_rows_after_convolutions and not _fuses_slowly(graph, operator):
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
    output = graph.tensors[operator.outputs[0]]
    return output.shape[-1] < _U85_SHORT_ROWS and is_weighted_output(graph, operator.inputs[0])


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
