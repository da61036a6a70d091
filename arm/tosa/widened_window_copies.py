"""On the U55, a SLICE window that a widening RESCALE reads is copied out first, unless the RESCALE folds into its reader.

Vela 5.2.0 (U55) runs an int8 -> int32 RESCALE that it cannot fold into the operator reading its output as an
elementwise operation of its own (an ADD of the zero point, then a MUL by the multiplier). When that RESCALE reads
a SLICE, Vela moves the slice below it: the whole source tensor is widened, into a buffer sized for the window, and
the reader reads the window at that buffer's base. The window's offset is dropped (the reader sees the source's
first rows or channels), and the widened source overruns its buffer into whatever Vela placed after it (the NPU
model stops there when that is the end of the scratch area, or computes with overwritten inputs). Measured on the
NPU model, bit for bit against the TOSA reference model (``widened_window_copies_test``): glu's fine gate (an x
(6, 8) whose value half x[:, :4] is widened for a MUL by a computed int32 gate: an OFM write 16 bytes past the
scratch area), a rank-4 channel window x[..., 8:] widened by 0.5 for a MUL (54 of 64 outputs off), and rows
x[:3] of a (6, 8) x (22 of 24 off: the widened x overwrote the MUL's other input).

A MUL reads the window in place, exactly, when both its operands are widenings by exactly one (their zero points
become the MUL's IFM and IFM2 zero points); a window widened for any other MUL gets a per-channel int8 copy right
after the SLICE (arm/tosa/identity_copy.py), which Vela writes out whole: one elementwise pass over the window.
An ADD or SUB whose two operands are widened windows of one source (x[:, 3:] + x[:, :4], x[3:] + x[:3], one
window twice) departs too: 11-23 of 12-24 outputs off on the NPU model. Both windows are copied, the set chosen
before any copy goes in (a copy changes what the reader's other operand reads). A window beside another tensor
is left alone: the flow's ADD/SUB operand rescales measured exact through the flow (x[..., 8:] + y,
x[:, :4] + y, x[:3] + y, x[:, 3:] + y[:, :4]), and so are Llama's ADDs of windows of two computed tensors
(copying them cost Llama U55-128 10,000 cycles). Open, measured in tiny graphs: (2x)[:, 3:] + (2x)[:, :4] with
the two products computed apart (11 of 12 off), a CONCAT of windows of x widened for a SUB with x
(x - roll(x) as slices and a cat: 18 of 21 off), and an ADD of a window widened by a plain 0.5. Vela's C++ core (regor) is not on disk, so this is the
measured condition, not one read from its source;
``widened_window_test`` pins both sides and fails once a Vela upgrade changes either.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator
from arm.tosa.identity_copy import insert_identity_copy
from arm.tosa.rescale import is_exact_widening

_COPYABLE = frozenset({np.dtype(np.int8), np.dtype(np.int16)})
def copy_widened_windows(graph: TosaGraph) -> None:
    # Chosen before any copy goes in: a copy changes what the other operand of a reader reads.
    departing = [slice_op for slice_op in graph.operators if slice_op.op == ts.Op.SLICE and _departs(graph, slice_op)]
    for slice_op in departing:
        widenings = [reader for reader in graph.consumers(slice_op.outputs[0]) if _is_widening(graph, reader)]
        copy = insert_identity_copy(graph, slice_op.outputs[0], position=graph.operators.index(slice_op) + 1)
        for widening in widenings:
            widening.inputs[0] = copy


def _departs(graph: TosaGraph, slice_op: TosaOperator) -> bool:
    """Whether Vela would read ``slice_op``'s window wrongly through a widening RESCALE."""
    source, window = graph.tensors[slice_op.inputs[0]], graph.tensors[slice_op.outputs[0]]
    if window.shape == source.shape or window.dtype not in _COPYABLE:
        return False
    widenings = [reader for reader in graph.consumers(window.name) if _is_widening(graph, reader)]
    return any(not _folds_into_readers(graph, widening) for widening in widenings)


def _is_widening(graph: TosaGraph, operator: TosaOperator) -> bool:
    return operator.op == ts.Op.RESCALE and graph.tensors[operator.outputs[0]].dtype == np.int32


def _folds_into_readers(graph: TosaGraph, widening: TosaOperator) -> bool:
    """Whether Vela reads the window in place for every operator reading ``widening``'s output."""
    return all(_folds_into(graph, reader) for reader in graph.consumers(widening.outputs[0]))


def _folds_into(graph: TosaGraph, reader: TosaOperator) -> bool:
    if reader.op == ts.Op.MUL:
        return all(is_exact_widening(graph, graph.producer(name)) for name in reader.inputs[:2])
    # Two operands widened from windows of one source depart for an ADD or SUB (see the module docstring).
    sources = _widened_window_sources(graph, reader)
    return len(sources) == len(set(sources))


def _widened_window_sources(graph: TosaGraph, reader: TosaOperator) -> list[str]:
    """The source tensor of each of ``reader``'s operands that is a widened SLICE window."""
    operands = []
    for name in reader.inputs[:2]:
        widening = graph.producer(name)
        if widening is None or not _is_widening(graph, widening):
            continue
        window = graph.producer(widening.inputs[0])
        if window is not None and window.op == ts.Op.SLICE:
            operands.append(window.inputs[0])
    return operands
