"""On the U55, an ADD/SUB whose operand RESCALEs Vela would fold as two different 16-bit multipliers keeps them apart.

Vela 5.2.0 folds both operand RESCALEs of an ADD/SUB (and the narrowing RESCALE after it) into the elementwise
operation when their multipliers fit 16 bits without a shift, but programs the U55's 16-bit scale mode only for two
equal scales: two different ones run in a 32-bit mode that weighs the larger operand 2^19 (8-bit) instead of its
multiplier (arm/tosa/u55_rescale_fusion.py has the source). ``x * 3 + y`` narrowed by 1/12 came out 48 of 48 off
on the NPU model, x * 2^19 + y saturated; the flow's own ADD/SUB put the larger operand at exactly 2^19 (the scale
that mode assumes) and never take this form, but a graph from elsewhere, or a new lowering, can.

The pass keeps Vela from folding either operand, changing no arithmetic: Vela folds the two only together
(IFM and IFM2 of one type, each with one scale), so it rewrites one of them:

- an operand of more than one channel is rescaled per channel, its one multiplier repeated (the U55 takes no
  per-channel IFM scale, so nothing folds; Vela runs each widening as a CAST and a MUL and the int32 ADD with unit
  operand scales, exact);
- a one-channel int8 operand reads an int16 copy of twice its values and halves them
  (``widened_window_copies.read_doubled_int16_copy``): an int16 operand beside an int8 one folds neither.

A one-channel int16 operand beside another one-channel operand is left as it is (doubling could overflow int16;
neither the flow nor the fuzzer makes one). Measured in ``//runtime/npu_model:vela_slice_window_test``
(vela_widened_window_test.py's unequal-scale cases) and by tools/u55_window_fuzz.py's windowless controls.
"""

from __future__ import annotations

import numpy as np

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue
from arm.tosa.rescale import rescale
from arm.tosa.u55_rescale_fusion import folds_with_unequal_narrow_scales
from arm.tosa.widened_window_copies import read_doubled_int16_copy


def keep_unequal_add_sub_scales_apart(graph: TosaGraph) -> None:
    for reader in [operator for operator in graph.operators if folds_with_unequal_narrow_scales(graph, operator)]:
        operands = [graph.producer(name) for name in reader.inputs[:2]]
        several_channels = [operand for operand in operands if graph.tensors[operand.inputs[0]].shape[-1] > 1]
        if several_channels:
            _rescale_per_channel(graph, several_channels[0], reader)
            continue
        int8 = [operand for operand in operands if np.dtype(graph.tensors[operand.inputs[0]].dtype) == np.int8]
        if int8:
            widening = int8[0]
            read_doubled_int16_copy(graph, widening, graph.operators.index(widening))


def _rescale_per_channel(graph: TosaGraph, widening: TosaOperator, reader: TosaOperator) -> None:
    """Replaces per-tensor ``widening`` (read by ``reader`` only) by the same scale repeated per channel."""
    source = graph.tensors[widening.inputs[0]]
    multiplier, shift, input_zp, output_zp = (graph.const_data(name).reshape(-1)[0] for name in widening.inputs[1:5])
    # multiplier * 2^-shift is exact in a double, and rescale() splits it back into the same product.
    scale = float(multiplier) * 2.0 ** -int(shift)
    position = graph.operators.index(widening)
    output = graph.tensors[widening.outputs[0]]
    operators_before = len(graph.operators)
    per_channel = rescale(graph, TosaValue(source.name, source.shape, source.dtype), name=f"{output.name}_per_channel",
                          scales=[scale] * source.shape[-1], output_dtype=np.dtype(output.dtype),
                          input_zp=int(input_zp), output_zp=int(output_zp))  # fmt: skip
    graph.move_appended(operators_before, position)
    graph.operators.remove(widening)
    reader.inputs[reader.inputs.index(output.name)] = per_channel.name
