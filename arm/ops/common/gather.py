"""TOSA GATHER for embedding and index_select: rows of a [N, K, C] table picked by [N, W] int32 indices.

TOSA has no int64, so indices must be int32. The U55 has no GATHER, and Vela 5.2.0 leaves GATHER on
the CPU for the U85 too (a bare TOSA GATHER of int8, int16 or int32 values with int32 indices, in the
Sram_Only, Shared_Sram and Dedicated_Sram_384KB memory modes): on both these ops stay on the CPU.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.support import describe, dtype_of
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.specification import TosaSpecification


def indices_reason(node: Node, indices: Node, spec: TosaSpecification) -> str | None:
    """The rule both ops share: a target with GATHER, and int32 indices."""
    if spec.has("u55"):
        return f"{describe(node)}: the U55 has no GATHER; the lookup stays on the CPU"
    if spec.has("u85"):
        return f"{describe(node)}: Vela 5.2.0 runs no GATHER on the U85; the lookup stays on the CPU"
    if dtype_of(indices) != torch.int32:
        return (
            f"{describe(node)}: indices {indices.name} are {dtype_of(indices)}; TOSA has no int64, "
            "so pass int32 indices (e.g. indices.to(torch.int32))"
        )
    return None


def index_value(ctx: LoweringContext, indices: Node, rows: int, *, name: str) -> TosaValue:
    """The indices as the [rows, W] tensor GATHER takes; constants are repeated per row at compile time."""
    count = math.prod(shape_of(indices))
    if ctx.is_constant(indices):
        data = ctx.constant(indices).numpy().astype(np.int32).reshape(1, count)
        return ctx.graph.add_const(name, np.ascontiguousarray(np.repeat(data, rows, axis=0)))
    row = reshape(ctx.graph, ctx.value(indices), (1, count), name=name if rows == 1 else f"{name}_row")
    if rows == 1:
        return row
    output = ctx.graph.add_tensor(name, (rows, count), row.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.TileAttribute()
    ctx.graph.add_op(ts.Op.TILE, [row, ctx.graph.add_shape_const(f"{name}_multiples", (rows, 1))], [output], attribute)
    return output


def gather(ctx: LoweringContext, table: TosaValue, indices: TosaValue, *, name: str) -> TosaValue:
    """GATHER of [N, K, C] ``table`` rows by [N, W] ``indices``: a [N, W, C] tensor on the table's grid."""
    rows, _, channels = table.shape
    output = ctx.graph.add_tensor(name, (rows, indices.shape[1], channels), table.dtype, table.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.GatherAttribute()
    ctx.graph.add_op(ts.Op.GATHER, [table, indices], [output], attribute)
    return output
