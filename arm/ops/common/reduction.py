"""Shared pieces of mean and sum over dims: the dims a node reduces and the REDUCE_SUM lowering.

TOSA reduces one axis at a time and keeps it with size 1; the node's own shape (keepdim or not)
comes last, by a RESHAPE. In the INT profile the int8 input moves to int32 first (REDUCE_SUM adds
int32 only) and one RESCALE writes the sum, times ``factor``, onto the output grid.

On the Ethos-U85 a short axis with data after it (ResNeSt's sum over its 2 radix groups of a
[1, 2, 64, 16, 16] tensor) is added up slice by slice instead: Vela 5.2.0 reduces such an axis
by a TRANSPOSE that moves it innermost, which costs about 50 cycles per element when the axis is
short (1,638,400 cycles for that tensor, 98% of the sum; 2 ADDs instead). The int32 sum is the same.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.axis_reduction import reduce
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape, slice_tensor
from arm.tosa.rescale import from_int32, to_int32
from arm.tosa.specification import TosaSpecification

# Vela's U55 REDUCE_SUM limit: the reduced axis and the products of the axes before and after it.
_U55_MAX_REDUCE_EXTENT = 65536

# The longest axis the U85 adds up by slices rather than by Vela's transposing REDUCE_SUM (see above).
_U85_SLICED_SUM_EXTENT = 4


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
        if _sums_by_slices(ctx, value, dim):
            value = _sum_of_slices(ctx, value, dim, name=f"{node.name}_sum{dim}")
        else:
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


def _sums_by_slices(ctx: LoweringContext, value: TosaValue, dim: int) -> bool:
    """An int32 axis the U85 adds up faster by slices: short, with data after it."""
    short = 1 < value.shape[dim] <= _U85_SLICED_SUM_EXTENT
    return ctx.spec.has("u85") and ctx.spec.is_int and short and int(np.prod(value.shape[dim + 1 :])) > 1


def _sum_of_slices(ctx: LoweringContext, value: TosaValue, dim: int, *, name: str) -> TosaValue:
    """REDUCE_SUM's result (the axis kept with size 1) as int32 ADDs of the axis's slices, on value's grid."""
    size = [1 if axis == dim else extent for axis, extent in enumerate(value.shape)]
    slices = [
        slice_tensor(ctx.graph, value, [index if axis == dim else 0 for axis in range(value.rank)], size,
                     name=f"{name}_slice{index}")
        for index in range(value.shape[dim])
    ]  # fmt: skip
    total = slices[0]
    for index, piece in enumerate(slices[1:], start=1):
        output = ctx.graph.add_tensor(f"{name}_add{index}", size, np.dtype(np.int32), value.qparams)
        attribute = ts.TosaSerializerAttribute()
        attribute.AddAttribute()
        ctx.graph.add_op(ts.Op.ADD, [total, piece], [output], attribute)
        total = output
    return total


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
