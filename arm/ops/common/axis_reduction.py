"""TOSA REDUCE_* along one axis; the reduced axis stays, with size 1, as TOSA 1.0 defines it."""

from __future__ import annotations

import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue

_ATTRIBUTES = {
    ts.Op.REDUCE_SUM: lambda attribute, axis: attribute.ReduceSumAttribute(axis),
    ts.Op.REDUCE_MAX: lambda attribute, axis: attribute.ReduceMaxAttribute(axis, ts.NanPropagationMode.PROPAGATE),
    ts.Op.REDUCE_MIN: lambda attribute, axis: attribute.ReduceMinAttribute(axis, ts.NanPropagationMode.PROPAGATE),
}


def reduce(graph: TosaGraph, op: ts.Op, value: TosaValue, axis: int, *, name: str) -> TosaValue:
    """``op`` (REDUCE_SUM, REDUCE_MAX or REDUCE_MIN) of ``value`` along ``axis``, keeping its qparams."""
    if op not in _ATTRIBUTES:
        raise ValueError(f"{name}: {op} is not an axis reduction; use one of {', '.join(map(str, _ATTRIBUTES))}")
    shape = tuple(1 if dim == axis else size for dim, size in enumerate(value.shape))
    output = graph.add_tensor(name, shape, value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    _ATTRIBUTES[op](attribute, axis)
    # The axis lets arm.tosa.layout move the reduction into another layout.
    graph.add_op(op, [value], [output], attribute, axis=axis)
    return output
