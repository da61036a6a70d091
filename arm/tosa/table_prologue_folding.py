"""Per-element integer arithmetic in front of an int8 TABLE moves into the table's entries.

A TABLE reads an int8 tensor, so whatever computed that tensor from one other int8 tensor element by
element, with nothing but one-element constants besides (RESCALEs, an ADD or SUB of a constant, a
MUL by one), is a function of 256 values: the table can read the earlier tensor and hold
``entries[prologue(v)]``. RMSNorm's ``rsqrt(mean + eps)`` is the case that made this: the eps ADD
(int8 -> int32, ADD, back to int8) ran as its own pass over the means before the rsqrt lookup (384
U55-128 cycles for Llama's 16 tokens, five norms); folded, Vela fuses the lookup into the op that
writes the means. The prologue is evaluated on the TOSA reference model, running its own operators
with their recorded attributes and constants on the 256 int8 values, not a copy of their arithmetic,
so the folded table gives the same integers.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tosa_reference_model
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator
from arm.tosa.layout import remove_dead_operators
from arm.tosa.table_rescale_folding import INT8_TABLE_ENTRIES, has_int8_entries

# Element-by-element operators that may sit in a prologue (MUL and the shifts take a one-element
# shift or amount); RESCALE only per tensor (``elementwise_unary``).
_BINARY = frozenset({ts.Op.ADD, ts.Op.SUB, ts.Op.MUL, ts.Op.MAXIMUM, ts.Op.MINIMUM})


def fold_prologues_into_tables(graph: TosaGraph) -> None:
    for table in [operator for operator in graph.operators if _is_int8_table(graph, operator)]:
        prologue = _prologue(graph, table)
        if prologue is None:
            continue
        source, operators = prologue
        entries = graph.const_data(table.inputs[1])
        indices = _evaluate(graph, source, operators, table.inputs[0]).astype(np.int32) + 128
        table.inputs[1] = graph.add_const(f"{table.inputs[1]}_from_{source}", entries[indices]).name
        table.inputs[0] = source
    remove_dead_operators(graph)


def _is_int8_table(graph: TosaGraph, operator: TosaOperator) -> bool:
    return has_int8_entries(graph, operator) and graph.tensors[operator.inputs[0]].dtype == np.int8


def _prologue(graph: TosaGraph, table: TosaOperator) -> tuple[str, list[TosaOperator]] | None:
    """(the earliest int8 tensor the table's input is a per-element function of, the operators from
    it to the table's input in graph order), or None when the input is not such a function."""
    found: tuple[str, list[TosaOperator]] | None = None
    operators: list[TosaOperator] = []
    current, reader = table.inputs[0], table
    while True:
        producer = graph.producer(current)
        if producer is None or current in graph.outputs or graph.consumers(current) != [reader]:
            return found
        data_input = _single_data_input(graph, producer)
        if data_input is None or graph.tensors[current].shape != graph.tensors[data_input].shape:
            return found
        operators.insert(0, producer)
        current, reader = data_input, producer
        if graph.tensors[current].dtype == np.int8:
            found = (current, list(operators))


def _single_data_input(graph: TosaGraph, operator: TosaOperator) -> str | None:
    """The one input of ``operator`` that is not a one-element constant (or computed from constants
    alone), when it is a per-element operator of such a form."""
    if operator.op == ts.Op.RESCALE and operator.elementwise_unary:
        candidates = operator.inputs[:1]
    elif operator.op in _BINARY:
        candidates = [name for name in operator.inputs if not _is_constant_scalar(graph, name)]
    else:
        return None
    if len(candidates) != 1 or _is_constant_scalar(graph, candidates[0]):
        return None
    return candidates[0]


def _is_constant_scalar(graph: TosaGraph, name: str) -> bool:
    """A one-element constant, or a one-element tensor computed from such constants only."""
    tensor = graph.tensors[name]
    if tensor.data is not None and tensor.data.size == 1:
        return True
    if int(np.prod(tensor.shape)) != 1:
        return False
    producer = graph.producer(name)
    return producer is not None and all(_is_constant_scalar(graph, input) for input in producer.inputs)


def _evaluate(graph: TosaGraph, source: str, operators: list[TosaOperator], result: str) -> np.ndarray:
    """``operators`` applied to the 256 int8 values in place of ``source``, on the reference model."""
    rank = len(graph.tensors[source].shape)
    values_shape = (INT8_TABLE_ENTRIES,) + (1,) * (rank - 1)
    single = TosaGraph()
    values = single.add_input("values", values_shape, np.int8)
    renamed = {source: values.name}

    def copy(operator: TosaOperator, shape: tuple[int, ...] | None) -> None:
        for name in operator.inputs:
            if name in renamed:
                continue
            tensor = graph.tensors[name]
            if tensor.kind in ("const", "shape"):
                renamed[name] = single._record(dataclasses.replace(tensor)).name
            else:
                copy(graph.producer(name), None)
        for name in operator.outputs:
            tensor = graph.tensors[name]
            renamed[name] = single.add_tensor(name, shape or tensor.shape, tensor.dtype).name
        single.operators.append(
            TosaOperator(operator.op, [renamed[name] for name in operator.inputs], [renamed[name] for name in operator.outputs],
                         operator.attribute, operator.perms, operator.elementwise_unary, operator.axis)  # fmt: skip
        )

    for operator in operators:
        copy(operator, values_shape)
    single.mark_output(single.tensors[renamed[result]])
    (output,), status = tosa_reference_model.run(single.serialize(), [np.arange(-128, 128, dtype=np.int8).reshape(values_shape)])
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise ValueError(f"the reference model rejected the prologue of the table reading {result}: {status}")
    return np.asarray(output, dtype=np.int8).reshape(-1)

