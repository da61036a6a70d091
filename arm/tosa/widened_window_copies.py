"""On the U55, a wide RESCALE that Vela would run on a window of a tensor reads a copy of the window instead.

Vela 5.2.0's C++ core (ethosu/regor, read in the ethos-u-vela 5.2.0 sdist) lowers a TOSA SLICE to a copy with an
IFM window, then (``MoveSplitSliceToConsumer``) hands the window to each operator reading the SLICE, and only
after that (``MakeSinglePathRescale``, ``FuseRescale``, ``RewriteRescale``, in that order) decides what a RESCALE
becomes. Likewise a CONCAT whose output only a RESCALE reads becomes one RESCALE per input, each writing its own
piece of the output (``MakeSinglePathRescale``). A RESCALE with a side wider than 16 bits that the U55 cannot read
inside its reader (arm/tosa/u55_rescale_fusion.py) is then rewritten by ``RewriteRescale`` into a CAST and a MUL,
and both drop the window: the CAST reads the source from its first element at the source's whole shape, and the
MUL writes that whole shape from the output's first element (``CreateRescalingMul`` sets both slices to offset
zero). So, on the U55, exactly when:

- a RESCALE with an int32 side reads a SLICE window, or is the only reader of a CONCAT of two or more inputs, and
- Vela does not fold it into its reader (``u55_rescale_fusion.folds_into_reader``),

the stream computes the rescale over the source's (or each piece's) first elements and writes them from the
output's start, past the window's buffer into whatever Vela placed after it. Whether that changes the outputs
depends on the allocation: x[3:] * 0.5 + y came out exact and x[:3] * 0.5 + y 24 of 24 off from bit-identical
command streams, so an exact measurement proves nothing about this construct. Measured on the NPU model against the TOSA
reference model: x[3:] + x[:3] (23 of 24 off), (2x)[:, 3:] + (2x)[:, :4] with the products computed apart (the
operands share a grid, so the U55 cannot fold their scales: 12 of 12), x - roll(x) (a CONCAT of two windows
read by the SUB's widening: 21 of 21), a window widened by 0.5 for an ADD or MUL, glu's fine gate (a window times
a computed int32 gate: an OFM write 16 bytes past the scratch area).

The pass copies each such window or CONCAT output (a per-channel int8/int16 RESCALE by one, arm/tosa/
identity_copy.py, which the U55 runs natively and which reads its window or writes its pieces in place; a
one-channel window, whose copy would have one scale, gets equal nonzero zero points instead) and points the
departing RESCALE at the copy; the set is chosen before any copy goes in. Where Vela folds the RESCALE into its
reader (an ADD of windows of two grids, the flow's usual case, or a MUL of two widenings by one) the window is read
in place, exactly, and the graph is left alone. Windows of int32 tensors (an int32 SLICE narrowed by a RESCALE)
depart the same way; the lowering does not emit them, and they would need another copy than an int8 RESCALE.
``vela_widened_window_test`` pins
both sides on tiny graphs and fails once a Vela upgrade changes either.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue
from arm.tosa.identity_copy import insert_identity_copy
from arm.tosa.rescale import rescale
from arm.tosa.u55_rescale_fusion import folds_into_reader, is_wide

_COPYABLE = frozenset({np.dtype(np.int8), np.dtype(np.int16)})
# A one-channel copy has one scale, which Vela folds into the widening after it (or drops) like any per-tensor
# identity: its zero points, equal and not zero, keep it an operation of its own (FuseRescale folds no RESCALE
# whose folded side has a zero point) and the values as they are.
_ONE_CHANNEL_COPY_ZERO_POINT = 1


def copy_widened_windows(graph: TosaGraph) -> None:
    # Chosen before any copy goes in: a copy changes what the reader's other operand reads.
    departing = [operator for operator in graph.operators if departs_on_u55(graph, operator)]
    copies: dict[str, str] = {}
    for widening in departing:
        source = widening.inputs[0]
        position = graph.operators.index(graph.producer(source)) + 1
        if _is_plain_widening(graph, widening):
            read_doubled_int16_copy(graph, widening, position)
            continue
        if source not in copies:
            copies[source] = _copy(graph, source, position)
        widening.inputs[0] = copies[source]


def _is_plain_widening(graph: TosaGraph, rescale: TosaOperator) -> bool:
    """An int8 widening by exactly one from a zero point of 0 (found by tools/u55_window_fuzz.py: behind an int8
    copy of the window it still departed, 7-277 outputs off): it reads an int16 copy of twice the window instead."""
    if np.dtype(graph.tensors[rescale.inputs[0]].dtype) != np.int8:
        return False
    multiplier, shift, input_zp = (graph.const_data(name) for name in rescale.inputs[1:4])
    if multiplier is None or shift is None or input_zp is None or multiplier.size != 1 or shift.size != 1:
        return False
    return int(input_zp.reshape(-1)[0]) == 0 and int(multiplier.reshape(-1)[0]) == 1 << int(shift.reshape(-1)[0])


def read_doubled_int16_copy(graph: TosaGraph, widening: TosaOperator, position: int) -> None:
    """``widening`` (an int8 RESCALE) reads ``2 * (x - zp)`` in int16, copied at ``position``, and halves it: exact
    (an even value halved), and the copy's scale of 2 keeps Vela from folding the widening into it (FuseRescale
    folds nothing into a producer with a scale). arm/tosa/unequal_add_sub_scales.py uses it too: an int16 operand
    beside an int8 one keeps Vela from folding either into their ADD/SUB."""
    name = widening.inputs[0]
    tensor = graph.tensors[name]
    input_zp = int(graph.const_data(widening.inputs[3]).reshape(-1)[0])
    operators_before = len(graph.operators)
    copy = rescale(graph, TosaValue(name, tensor.shape, tensor.dtype), name=f"{name}_doubled", scales=[2.0],
                   output_dtype=np.dtype(np.int16), input_zp=input_zp, output_zp=0)  # fmt: skip
    graph.move_appended(operators_before, position)
    widening.inputs[0] = copy.name
    widening.inputs[2] = graph.add_scalar_const(f"{widening.outputs[0]}_halving_shift",
                                                int(graph.const_data(widening.inputs[2]).reshape(-1)[0]) + 1,
                                                np.int8).name  # fmt: skip
    widening.inputs[3] = graph.add_scalar_const(f"{widening.outputs[0]}_int16_zp", 0, np.int16).name


def _copy(graph: TosaGraph, name: str, position: int) -> str:
    tensor = graph.tensors[name]
    # TOSA allows a zero point other than 0 on int8 only: a one-channel int16 window keeps the identity copy,
    # which Vela may fold away (not seen in the lowering's graphs).
    if tensor.shape[-1] > 1 or np.dtype(tensor.dtype) != np.int8:
        return insert_identity_copy(graph, name, position=position)
    operators_before = len(graph.operators)
    copy = rescale(graph, TosaValue(name, tensor.shape, tensor.dtype), name=f"{name}_copy", scales=[1.0],
                   output_dtype=tensor.dtype, input_zp=_ONE_CHANNEL_COPY_ZERO_POINT,
                   output_zp=_ONE_CHANNEL_COPY_ZERO_POINT)  # fmt: skip
    graph.move_appended(operators_before, position)
    return copy.name


def departs_on_u55(graph: TosaGraph, operator: TosaOperator) -> bool:
    """Whether Vela 5.2.0's U55 stream would compute ``operator`` over the wrong elements (see the module), in a
    form this pass can copy away (an int8/int16 input)."""
    if operator.op != ts.Op.RESCALE or np.dtype(graph.tensors[operator.inputs[0]].dtype) not in _COPYABLE:
        return False
    return reads_a_window(graph, operator) and is_wide(graph, operator) and not folds_into_reader(graph, operator)


def reads_a_window(graph: TosaGraph, rescale: TosaOperator) -> bool:
    """Whether Vela hands ``rescale`` a window of its input's producer: a SLICE that leaves part of its source
    out, or a CONCAT of several inputs that only ``rescale`` reads."""
    name = rescale.inputs[0]
    producer = graph.producer(name)
    if producer is None:
        return False
    if producer.op == ts.Op.SLICE:
        return graph.tensors[producer.inputs[0]].shape != graph.tensors[name].shape
    if producer.op == ts.Op.CONCAT:
        readers = graph.consumers(name)
        only_reader = len(readers) == 1 and readers[0] is rescale
        return len(producer.inputs) > 1 and only_reader and name not in graph.outputs
    return False
