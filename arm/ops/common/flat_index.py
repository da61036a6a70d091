"""Advanced indexing by several index tensors (``x[i, j]``, ``x[i, :, j]``) as one flat row position:
what index (read, GATHER) and index_put (write, SCATTER) share.

The index tensors broadcast against each other to one shape; each element names one row of the
indexed dims, at the flat position ``sum(index_d * stride_d)`` of those dims viewed as one. Indexed
dims that are adjacent keep x as it is (x viewed as [before, indexed, after]); others move to the
front by a TRANSPOSE, which is where PyTorch puts the indices' broadcast shape in the result (and in
index_put's written values) too. Positions are folded at compile time for constant indices (negative
ones counted from the end) and are int32 MUL and ADD at run time (run-time indices must be in
[0, size): PyTorch's negative ones would need a comparison and SELECT per dim).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.fx import Node

from arm.ops.common.fixed_point import Int32Emitter
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape


def index_tensors(node: Node) -> list[tuple[int, Node]]:
    """(dim, index tensor) of every indexed dim of an index or index_put node (None entries are whole dims)."""
    return [(dim, index) for dim, index in enumerate(node.args[1]) if index is not None]


def indexed_view(node: Node) -> tuple[tuple[int, ...] | None, tuple[int, ...], int]:
    """(permutation, shape, first indexed dim) of the x that is read or written. Adjacent indexed dims
    (``x[:, i, j]``) keep x as it is; others move to the front (no permutation when already there)."""
    shape = shape_of(node.args[0])
    dims = [dim for dim, _ in index_tensors(node)]
    if dims == list(range(dims[0], dims[0] + len(dims))):
        return None, shape, dims[0]
    permutation = (*dims, *(dim for dim in range(len(shape)) if dim not in dims))
    return permutation, tuple(shape[dim] for dim in permutation), 0


def index_shape(node: Node) -> tuple[int, ...]:
    """The shape the index tensors broadcast to: one row per element."""
    return tuple(torch.broadcast_shapes(*(shape_of(index) for _, index in index_tensors(node))))


def indexed_shape(node: Node) -> tuple[int, ...]:
    """The view's indexed dims replaced by the indices' shape: index's result, index_put's written values."""
    _, shape, first = indexed_view(node)
    count = len(index_tensors(node))
    return (*shape[:first], *index_shape(node), *shape[first + count :])


def rows_shape(node: Node) -> tuple[int, int, int, int]:
    """(before, indexed rows, picked rows, after) of the [before, indexed, after] view."""
    _, shape, first = indexed_view(node)
    count = len(index_tensors(node))
    return (
        math.prod(shape[:first]),
        math.prod(shape[first : first + count]),
        math.prod(index_shape(node)),
        math.prod(shape[first + count :]),
    )


def flat_positions(node: Node, ctx: LoweringContext) -> np.ndarray | TosaValue:
    """Each row's flat position in the indexed dims: numbers for constant indices (negative ones counted
    from the end), else a [1, W] int32 tensor."""
    _, shape, first = indexed_view(node)
    indices = index_tensors(node)
    sizes = list(shape[first : first + len(indices)])
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    broadcast = index_shape(node)
    if all(ctx.is_constant(index) for _, index in indices):
        flat = sum(
            np.broadcast_to(ctx.constant(index).numpy().astype(np.int64) % size, broadcast) * stride
            for (_, index), size, stride in zip(indices, sizes, strides)
        )
        return np.asarray(flat).reshape(-1)
    rank = len(broadcast)
    emitter = Int32Emitter(ctx.graph, f"{node.name}_position", rank)
    total = None
    for (dim, index), stride in zip(indices, strides):
        value = ctx.value(index, rank=rank)
        if stride != 1:
            value = emitter.mul(value, emitter.constant(stride, f"stride_{dim}"), f"dim_{dim}", shift=0)
        total = value if total is None else emitter.add(total, value, f"through_{dim}")
    if total.shape != broadcast:  # every index tensor smaller than their broadcast shape
        zeros = ctx.graph.add_const(f"{node.name}_position_zeros", np.zeros(broadcast, dtype=np.int32))
        total = emitter.add(total, zeros, "broadcast")
    return reshape(ctx.graph, total, (1, math.prod(broadcast)), name=f"{node.name}_positions")
