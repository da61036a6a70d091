"""Rotary embeddings without rotate_half's copies: its negation goes into a SUB, its concat below the ADD.

Llama's rotary embedding is ``x * cos + rotate_half(x) * sin`` with ``rotate_half(x) = cat(-x2, x1)``
(x1, x2 the halves of the head dimension). Lowered op by op that is a TABLE for the negation, a
CONCAT that copies the other half, a TRANSPOSE of the concatenation to the heads-first layout and
then the MUL by sin. Vela 5.2.0 on the U55-128, Llama's queries [1, 16, 4, 16] int8: 792 + 792 +
256 cycles, for keys half that, in each layer. Written instead, with sin a constant:

    P = x * cat(sin2, sin1)          the halves of the constant swapped (exact)
    out = cat(A1 - P2, A2 + P1)      A = x * cos, per half, straight from P's halves

P reads the transposed x that ``x * cos`` reads, and the half SUB and ADD write the halves of the
output, which Vela writes in place: the TABLE, the copy and the second transpose go. Each half keeps
the rescales of the ADD it replaces. The integers are those of the graph as lowered except at the
ends of two grids: the negation table clips ``-x2`` to int8 (x2 at the end of its grid opposite the
zero point: -128 for a zero point of 0), and P2 is rounded onto B = ``rotate_half(x) * sin``'s grid
before it is negated, which differs from rounding -P2 only where that grid clips (it is not
symmetric about its zero point). Both are one step at a grid's end, where the new form is the exact
one; the sin constant's values are unchanged (negating them could leave int8: sin = -1 is -128).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, concat, slice_tensor
from arm.tosa.layout import remove_dead_operators, transpose
from arm.tosa.rescale import is_exact_widening
from arm.tosa.table_rescale_folding import has_int8_entries


@dataclasses.dataclass(frozen=True)
class _RotateHalfProduct:
    """``ADD(widen_a(A), widen_b(B))`` narrowed to ``output``, where B = ``rotate_half(x) * sin``."""

    source: str  # x, in the layout the concat was made in
    layout: tuple[int, ...] | None  # the TRANSPOSE between the concat and the MUL, if any
    zero_point: int  # x's (and the concat's) zero point
    widen_x: TosaOperator  # the MUL's RESCALE of the concatenation to int32
    widen_sin: TosaOperator  # the MUL's RESCALE of the sin constant to int32
    product: str  # B, the MUL's int8 output
    add: TosaOperator
    narrow: TosaOperator  # the ADD's RESCALE to int8


def rotate_halves_in_constants(graph: TosaGraph) -> None:
    for concatenation in [operator for operator in graph.operators if operator.op == ts.Op.CONCAT]:
        match = _match(graph, concatenation)
        if match is not None:
            _rewrite(graph, match)
    remove_dead_operators(graph)


def _match(graph: TosaGraph, concatenation: TosaOperator) -> _RotateHalfProduct | None:
    halves = _rotate_half_source(graph, concatenation)
    if halves is None:
        return None
    source, table = halves
    reader, layout = _sole_reader(graph, concatenation.outputs[0]), None
    if reader is not None and reader.perms is not None:
        if reader.perms[-1] != len(reader.perms) - 1:  # the halves must stay on the last axis
            return None
        layout, reader = reader.perms, _sole_reader(graph, reader.outputs[0])
    widen_x = reader
    if not is_exact_widening(graph, widen_x):
        return None
    zero_point = int(graph.const_data(widen_x.inputs[3])[0])
    if not _negates(graph.const_data(table.inputs[1]), zero_point):
        return None
    multiply = _sole_reader(graph, widen_x.outputs[0])
    if multiply is None or multiply.op != ts.Op.MUL or multiply.inputs[0] != widen_x.outputs[0]:
        return None
    widen_sin = graph.producer(multiply.inputs[1])
    if widen_sin is None or not is_exact_widening(graph, widen_sin) or graph.tensors[widen_sin.inputs[0]].kind != "const":
        return None
    narrow_product = _sole_reader(graph, multiply.outputs[0])
    if narrow_product is None or narrow_product.op != ts.Op.RESCALE:
        return None
    product = narrow_product.outputs[0]
    widen_b = _sole_reader(graph, product)
    add = _sole_reader(graph, widen_b.outputs[0]) if widen_b is not None and widen_b.op == ts.Op.RESCALE else None
    if add is None or add.op != ts.Op.ADD or not widen_b.elementwise_unary:
        return None
    other = graph.producer(next(name for name in add.inputs if name != widen_b.outputs[0]))
    narrow = _sole_reader(graph, add.outputs[0])
    if other is None or other.op != ts.Op.RESCALE or not other.elementwise_unary or narrow is None or narrow.op != ts.Op.RESCALE:
        return None
    if any(graph.tensors[name].shape != graph.tensors[add.outputs[0]].shape for name in add.inputs):
        return None
    return _RotateHalfProduct(source, layout, zero_point, widen_x, widen_sin, product, add, narrow)


def _rotate_half_source(graph: TosaGraph, concatenation: TosaOperator) -> tuple[str, TosaOperator] | None:
    """(x, the negation TABLE) when ``concatenation`` is ``cat(T(x[..., h:]), x[..., :h])`` on the last axis."""
    output = graph.tensors[concatenation.outputs[0]]
    rank = len(output.shape)
    if concatenation.axis != rank - 1 or len(concatenation.inputs) != 2 or output.dtype != np.int8:
        return None
    negated, first = concatenation.inputs
    table = graph.producer(negated)
    if table is None or table.op != ts.Op.TABLE or graph.consumers(negated) != [concatenation]:
        return None
    first_window, second_window = _window(graph, first), _window(graph, table.inputs[0])
    if first_window is None or second_window is None or first_window[0] != second_window[0]:
        return None
    source = graph.tensors[first_window[0]]
    half = source.shape[-1] // 2
    if source.shape != output.shape or source.shape[-1] != 2 * half or graph.consumers(first) != [concatenation]:
        return None
    if first_window[1] != 0 or second_window[1] != half or graph.consumers(table.inputs[0]) != [table]:
        return None
    if not has_int8_entries(graph, table):
        return None
    return source.name, table


def _window(graph: TosaGraph, name: str) -> tuple[str, int] | None:
    """(source, start on the last axis) when ``name`` is a SLICE of half the last axis and all of the others."""
    window = graph.producer(name)
    if window is None or window.op != ts.Op.SLICE or name in graph.outputs:
        return None
    source = graph.tensors[window.inputs[0]]
    start, size = graph.const_data(window.inputs[1]), graph.const_data(window.inputs[2])
    if any(start[:-1]) or list(size[:-1]) != list(source.shape[:-1]) or 2 * int(size[-1]) != source.shape[-1]:
        return None
    return source.name, int(start[-1])


def _sole_reader(graph: TosaGraph, name: str) -> TosaOperator | None:
    readers = graph.consumers(name)
    return readers[0] if len(readers) == 1 and name not in graph.outputs else None


def _negates(entries: np.ndarray, zero_point: int) -> bool:
    """Whether the table maps every int8 v to 2z - v, clipped to int8 (the quantized negation)."""
    reflected = np.clip(2 * zero_point - np.arange(-128, 128), -128, 127)
    return np.array_equal(entries.astype(np.int64), reflected)


def _swapped_halves(graph: TosaGraph, widen_sin: TosaOperator) -> np.ndarray | None:
    """cat(sin2, sin1) of the int8 sin constant, or None if its last axis has no halves."""
    sin = graph.const_data(widen_sin.inputs[0])
    half = sin.shape[-1] // 2
    if sin.shape[-1] != 2 * half:
        return None
    return np.concatenate([sin[..., half:], sin[..., :half]], axis=-1)


def _rewrite(graph: TosaGraph, match: _RotateHalfProduct) -> None:
    rotated = _swapped_halves(graph, match.widen_sin)
    if rotated is None:
        return
    sin_name = match.widen_sin.inputs[0]
    operators_before = len(graph.operators)
    # x in the MUL's layout: the transpose ``x * cos`` already reads, when there is one.
    x = _in_layout(graph, match.source, match.layout)
    widened_sin = graph.add_tensor(f"{match.widen_sin.outputs[0]}_rotated", graph.tensors[match.widen_sin.outputs[0]].shape, np.int32)
    graph.add_op(ts.Op.RESCALE, [graph.add_const(f"{sin_name}_rotated", rotated).name, *match.widen_sin.inputs[1:]],
                 [widened_sin], match.widen_sin.attribute, elementwise_unary=True)  # fmt: skip
    graph.move_appended(operators_before, graph.operators.index(match.widen_x))
    match.widen_x.inputs[0] = x
    multiply = _sole_reader(graph, match.widen_x.outputs[0])
    multiply.inputs[1] = widened_sin.name
    _add_by_halves(graph, match)


def _in_layout(graph: TosaGraph, source: str, layout: tuple[int, ...] | None) -> str:
    if layout is None:
        return source
    existing = next((op for op in graph.operators if op.perms == layout and op.inputs[0] == source), None)
    if existing is not None:
        return existing.outputs[0]
    tensor = graph.tensors[source]
    return transpose(graph, TosaValue(source, tensor.shape, tensor.dtype), layout, name=f"{source}_rotary_layout").name


def _add_by_halves(graph: TosaGraph, match: _RotateHalfProduct) -> None:
    """The ADD and its RESCALEs once per half, reading the halves of the swapped product: a SUB for the
    first half (the product there is x2 * sin1, rotate_half's negation undone), concatenated."""
    output = graph.tensors[match.narrow.outputs[0]]
    rank, half = len(output.shape), output.shape[-1] // 2
    operators_before = len(graph.operators)
    results = []
    for index, product_start in ((0, half), (1, 0)):
        size = (*output.shape[:-1], half)
        inputs = []
        for name in match.add.inputs:
            widening = graph.producer(name)
            read_product = widening.inputs[0] == match.product
            start = [0] * (rank - 1) + [product_start if read_product else index * half]
            window = slice_tensor(graph, _value(graph, widening.inputs[0]), start, size, name=f"{widening.inputs[0]}_half{index}")
            inputs.append(_copy_unary(graph, widening, window.name, f"{name}_half{index}"))
        total = graph.add_tensor(f"{match.add.outputs[0]}_half{index}", size, np.int32)
        if index == 0:  # A1 - P2, whichever side of the ADD the product was on
            product_input = next(i for i, name in enumerate(match.add.inputs) if graph.producer(name).inputs[0] == match.product)
            attribute = ts.TosaSerializerAttribute()
            attribute.SubAttribute()
            graph.add_op(ts.Op.SUB, [inputs[1 - product_input], inputs[product_input]], [total], attribute)
        else:
            graph.add_op(ts.Op.ADD, inputs, [total], match.add.attribute)
        results.append(_value(graph, _copy_unary(graph, match.narrow, total.name, f"{output.name}_half{index}")))
    # The concatenation takes over the output's name (its readers, or the graph's outputs, read it);
    # the whole-tensor ADD is left writing a tensor nobody reads, and goes as dead.
    match.narrow.outputs[0] = graph.add_tensor(f"{output.name}_whole", output.shape, output.dtype).name
    del graph.tensors[output.name]
    concat(graph, results, rank - 1, name=output.name)
    graph.move_appended(operators_before, graph.operators.index(match.narrow) + 1)


def _copy_unary(graph: TosaGraph, operator: TosaOperator, input_name: str, output_name: str) -> str:
    """``operator`` (a per-tensor RESCALE) applied to another tensor of its input's dtype."""
    source = graph.tensors[input_name]
    output = graph.add_tensor(output_name, source.shape, graph.tensors[operator.outputs[0]].dtype)
    graph.add_op(operator.op, [input_name, *operator.inputs[1:]], [output], operator.attribute, elementwise_unary=True)
    return output.name


def _value(graph: TosaGraph, name: str) -> TosaValue:
    tensor = graph.tensors[name]
    return TosaValue(tensor.name, tensor.shape, tensor.dtype)
