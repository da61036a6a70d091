"""Data layout: the TOSA graph keeps PyTorch's NCHW at its edges, convolutions run in NHWC.

Every layout change of the lowering is a TRANSPOSE made here. Lowering each convolution on its own
leaves round trips such as ``conv -> to NCHW -> relu -> to NHWC -> conv``; ``cancel_round_trips``
runs after the lowering and removes them, moving position-independent ops (clamp, per-tensor
rescale) into the inner layout.
"""

from __future__ import annotations

import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)


def transpose(graph: TosaGraph, value: TosaValue, perms: tuple[int, ...], *, name: str) -> TosaValue:
    output = graph.add_tensor(name, tuple(value.shape[p] for p in perms), value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute(list(perms))
    graph.add_op(ts.Op.TRANSPOSE, [value], [output], attribute, perms=tuple(perms))
    return output


def to_nhwc(graph: TosaGraph, value: TosaValue) -> TosaValue:
    """Names the result ``<value>_to_nhwc``."""
    _require_rank4(value)
    return transpose(graph, value, NCHW_TO_NHWC, name=f"{value.name}_to_nhwc")


def to_nchw(graph: TosaGraph, value: TosaValue, *, name: str) -> TosaValue:
    """``name`` is the tensor name the NCHW result should carry (usually the FX node's name)."""
    _require_rank4(value)
    return transpose(graph, value, NHWC_TO_NCHW, name=name)


def _require_rank4(value: TosaValue) -> None:
    if value.rank != 4:
        raise ValueError(f"layout change of {value.name} needs a rank-4 tensor, got shape {value.shape}")


def cancel_round_trips(graph: TosaGraph) -> None:
    """Removes TRANSPOSE pairs that undo each other, with only elementwise unary ops between them.

    ``X -T-> Y -u1-> ... -un-> Z -T'-> W`` with T' the inverse of T becomes ``X -u1-> ... -un-> W``;
    the u_i (single-consumer CLAMP or per-tensor RESCALE) then run in X's layout. Graph inputs and
    outputs are never renamed, so their shapes stay PyTorch's.
    """
    changed = True
    while changed:
        changed = False
        for operator in list(graph.operators):
            changed |= _cancel_one(graph, operator)
        _remove_dead_operators(graph)


def _cancel_one(graph: TosaGraph, closing: TosaOperator) -> bool:
    if closing.perms is None or closing.outputs[0] in graph.outputs:
        return False
    chain: list[TosaOperator] = []
    producer = graph.producer(closing.inputs[0])
    while producer is not None and producer.elementwise_unary and _single_internal_use(graph, producer.outputs[0]):
        chain.insert(0, producer)
        producer = graph.producer(producer.inputs[0])
    opening = producer
    if opening is None or opening.perms is None or not _undoes(opening.perms, closing.perms):
        return False
    source = opening.inputs[0]
    for operator in chain:
        operator.inputs[0] = source
        tensor = graph.tensors[operator.outputs[0]]
        tensor.shape = graph.tensors[source].shape
        source = tensor.name
    for consumer in graph.consumers(closing.outputs[0]):
        consumer.inputs = [source if name == closing.outputs[0] else name for name in consumer.inputs]
    return True


def _undoes(first: tuple[int, ...], second: tuple[int, ...]) -> bool:
    return len(first) == len(second) and all(first[second[i]] == i for i in range(len(first)))


def _single_internal_use(graph: TosaGraph, name: str) -> bool:
    return name not in graph.outputs and len(graph.consumers(name)) == 1


def _remove_dead_operators(graph: TosaGraph) -> None:
    live = set(graph.outputs)
    kept: list[TosaOperator] = []
    for operator in reversed(graph.operators):
        if any(name in live for name in operator.outputs):
            kept.append(operator)
            live.update(operator.inputs)
    graph.operators = kept[::-1]
