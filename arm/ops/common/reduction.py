"""Shared pieces of mean and sum over dims: the dims a node reduces and the REDUCE_SUM lowering.

TOSA reduces one axis at a time and keeps it with size 1; the node's own shape (keepdim or not)
comes last, by a RESHAPE. In the INT profile the int8 input moves to int32 first (REDUCE_SUM adds
int32 only) and one RESCALE writes the sum, times ``factor``, onto the output grid.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.axis_reduction import reduce
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import from_int32, to_int32
from arm.tosa.specification import TosaSpecification

# Vela's U55 REDUCE_SUM limit: the reduced axis and the products of the axes before and after it.
_U55_MAX_REDUCE_EXTENT = 65536


def reduced_dims(node: Node) -> list[int]:
    """The dims ``node`` (mean.dim / sum.dim_IntList) reduces, normalized and sorted; None means all."""
    rank = len(shape_of(node.args[0]))
    dims = node.args[1] if len(node.args) > 1 else None
    if rank == 0:
        return []  # a 0-d tensor is its own sum; dim 0 and -1 name it without an axis to reduce
    return sorted({dim % rank for dim in dims}) if dims else list(range(rank))


def reduction_support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    dtype = node.kwargs.get("dtype")
    return first_reason(
        f"{describe(node)}: an explicit dtype={dtype} is not lowered" if dtype is not None else None,
        profile_reason(node, spec, [x]),
        rank_reason(node, shape_of(x)),
        _u55_reason(node, spec),
    )


def _u55_reason(node: Node, spec: TosaSpecification) -> str | None:
    if not spec.has("u55"):
        return None
    shape = shape_of(node.args[0])
    for dim in reduced_dims(node):
        extents = (shape[dim], int(np.prod(shape[:dim])), int(np.prod(shape[dim + 1 :])))
        if max(extents) > _U55_MAX_REDUCE_EXTENT:
            return (
                f"{describe(node)}: the U55 reduces axes with at most {_U55_MAX_REDUCE_EXTENT} elements on, "
                f"before and after the axis; dim {dim} of shape {shape} exceeds that"
            )
    return None


def lower_reduce_sum(node: Node, ctx: LoweringContext, *, factor: float) -> TosaValue:
    """``factor`` times the sum of node.args[0] over the node's dims, in the node's shape."""
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        value = to_int32(ctx.graph, value, name=f"{node.name}_int32", scale=1.0)
    for dim in reduced_dims(node):
        value = reduce(ctx.graph, ts.Op.REDUCE_SUM, value, dim, name=f"{node.name}_sum{dim}")
    if ctx.spec.is_int:
        value = from_int32(
            ctx.graph,
            value,
            name=f"{node.name}_rescaled",
            accumulator_scales=[value.qparams.scale * factor],
            output=ctx.output_qparams(node),
        )
    elif factor != 1.0:
        value = _scaled(ctx, value, factor, name=f"{node.name}_scaled")
    return value if value.shape == shape_of(node) else reshape(ctx.graph, value, shape_of(node), name=node.name)


def _scaled(ctx: LoweringContext, value: TosaValue, factor: float, *, name: str) -> TosaValue:
    """Float MUL by a constant, broadcast from a same-rank [1, ..., 1] tensor."""
    output = ctx.graph.add_tensor(name, value.shape, value.dtype)
    operands = [
        value,
        ctx.graph.add_const(f"{name}_factor", np.full((1,) * value.rank, factor, value.dtype)),
        ctx.graph.add_scalar_const(f"{name}_shift", 0, np.int8),
    ]
    attribute = ts.TosaSerializerAttribute()
    attribute.MulAttribute()
    ctx.graph.add_op(ts.Op.MUL, operands, [output], attribute)
    return output
