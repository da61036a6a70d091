"""An int8 TABLE followed by a per-tensor RESCALE becomes one TABLE holding the rescaled entries.

pt2e gives some activations a fixed output grid (sigmoid: steps of 1/256) and requantizes onto the
grid their consumer shares (squeeze-excite's gating MUL), so the lowering writes ``TABLE -> RESCALE``:
one more pass over the tensor on the NPU for what is a function of 256 values. The RESCALE of each
table entry is the RESCALE of each element the TABLE writes, so applying it to the 256 entries at
compile time computes the same integers. The entries are rescaled by the TOSA reference model running
the very RESCALE operator (its attributes and operands as recorded), not by a copy of its arithmetic.
"""

from __future__ import annotations

import numpy as np
import tosa_reference_model
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator

INT8_TABLE_ENTRIES = 256


def has_int8_entries(graph: TosaGraph, operator: TosaOperator) -> bool:
    """Whether ``operator`` is a TABLE of 256 constant int8 entries (an int8 lookup the passes can
    rewrite at compile time)."""
    if operator.op != ts.Op.TABLE:
        return False
    entries = graph.tensors[operator.inputs[1]]
    return entries.kind == "const" and entries.data.dtype == np.int8 and entries.data.shape == (INT8_TABLE_ENTRIES,)


def fold_rescales_into_tables(graph: TosaGraph) -> None:
    for rescale in [operator for operator in graph.operators if _is_foldable_rescale(graph, operator)]:
        table = graph.producer(rescale.inputs[0])
        entries = graph.const_data(table.inputs[1])
        rescaled = _rescale_entries(graph, rescale, entries)
        table.inputs[1] = graph.add_const(f"{table.inputs[1]}_{rescale.outputs[0]}", rescaled).name
        table.outputs[0] = rescale.outputs[0]
        graph.operators.remove(rescale)


def _is_foldable_rescale(graph: TosaGraph, rescale: TosaOperator) -> bool:
    """A per-tensor int8 -> int8 RESCALE that is the only reader of an int8 TABLE's output."""
    if rescale.op != ts.Op.RESCALE or not rescale.elementwise_unary:
        return False
    if graph.tensors[rescale.outputs[0]].dtype != np.int8:
        return False
    table = graph.producer(rescale.inputs[0])
    if table is None or not has_int8_entries(graph, table):
        return False
    table_output = table.outputs[0]
    return (
        graph.tensors[table_output].dtype == np.int8
        and table_output not in graph.outputs
        and graph.consumers(table_output) == [rescale]
    )


def _rescale_entries(graph: TosaGraph, rescale: TosaOperator, entries: np.ndarray) -> np.ndarray:
    """``rescale`` applied to ``entries``, on the TOSA reference model."""
    single = TosaGraph()
    values = single.add_input("entries", entries.shape, np.int8)
    operands = [single.add_const(name, graph.const_data(name)).name for name in rescale.inputs[1:]]
    output = single.add_tensor("rescaled", entries.shape, np.int8)
    single.add_op(ts.Op.RESCALE, [values, *operands], [output], rescale.attribute)
    single.mark_output(output)
    (rescaled,), status = tosa_reference_model.run(single.serialize(), [entries])
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise ValueError(f"the reference model rejected RESCALE {rescale.outputs[0]} on a table's entries: {status}")
    return np.asarray(rescaled, dtype=np.int8)
