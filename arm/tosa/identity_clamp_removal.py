"""Removes int8 CLAMPs that let every int8 value through.

A ReLU whose producer writes onto the ReLU's own grid (pt2e annotates conv + relu as one pattern, so
the grid starts at 0 and its zero point is -128) lowers to CLAMP(-128, 127): the identity on int8.
After a convolution Vela fuses it for free, but after a CONCAT (a grouped convolution lowered as one
convolution per group, RegNetX) or an ADD it is a pass of its own over the tensor (RegNetX-400MF on
the U55: 45 such CLAMPs, 72,192 cycles). Whether a CLAMP is the identity is asked of the TOSA
reference model, on all 256 int8 values, rather than read back from its attribute.
"""

from __future__ import annotations

import numpy as np
import tosa_reference_model
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator
from arm.tosa.layout import remove_dead_operators

_INT8_VALUES = np.arange(-128, 128, dtype=np.int8)


def remove_identity_clamps(graph: TosaGraph) -> None:
    for clamp in [operator for operator in graph.operators if _is_identity_clamp(graph, operator)]:
        source, output = clamp.inputs[0], clamp.outputs[0]
        producer = graph.producer(source)
        consumers = graph.consumers(source)
        if producer is not None and source not in graph.outputs and len(consumers) == 1 and consumers[0] is clamp:
            # The producer writes the clamp's tensor itself: the layer keeps the name it had when Vela
            # fused the clamp (the ReLU's), which arm.report and Vela's per-layer CSV read.
            producer.outputs = [output if name == source else name for name in producer.outputs]
            graph.operators = [operator for operator in graph.operators if operator is not clamp]
            continue
        for consumer in graph.consumers(output):
            consumer.inputs = [source if name == output else name for name in consumer.inputs]
    remove_dead_operators(graph)


def _is_identity_clamp(graph: TosaGraph, clamp: TosaOperator) -> bool:
    if clamp.op != ts.Op.CLAMP or clamp.outputs[0] in graph.outputs:
        return False
    if graph.tensors[clamp.inputs[0]].dtype != np.int8:
        return False
    single = TosaGraph()
    values = single.add_input("values", _INT8_VALUES.shape, np.int8)
    output = single.add_tensor("clamped", _INT8_VALUES.shape, np.int8)
    single.add_op(ts.Op.CLAMP, [values], [output], clamp.attribute)
    single.mark_output(output)
    (clamped,), status = tosa_reference_model.run(single.serialize(), [_INT8_VALUES])
    return status == tosa_reference_model.GraphStatus.TOSA_VALID and np.array_equal(np.asarray(clamped), _INT8_VALUES)
