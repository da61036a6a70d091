"""TILE of a value brought to the output's rank: the lowering expand and repeat share.

Both ops copy their input along some axes; the quantized forms keep the input's grid (a copy changes
no value), so the INT lowering only requantizes when the output's grid differs, as select does.
"""

from __future__ import annotations

import math
from typing import Sequence

import tosa_serializer as ts
import torch
from torch.fx import Node

from arm.ops.common.integer_arithmetic import moved_data_support, moves_data
from arm.ops.common.support import describe, dtype_of, first_reason, movement_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def tile_support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    return first_reason(
        moved_data_support(node, spec) if moves_data(node) else movement_reason(node, spec, [x]),
        rank_reason(node, shape_of(node)),
        f"{describe(node)}: the input {shape_of(x)} has more dims than the output {shape_of(node)}"
        if len(shape_of(x)) > len(shape_of(node))
        else None,
    )


def annotate_tile(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower_tile(node: Node, ctx: LoweringContext, multiples: Sequence[int]) -> TosaValue:
    """``node``'s input, reshaped to ``len(multiples)`` dims (leading 1s), TILEd by ``multiples``."""
    value = ctx.value(node.args[0])
    if ctx.spec.is_int and not moves_data(node):
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    rank = len(multiples)
    if value.rank < rank:
        value = reshape(ctx.graph, value, (1,) * (rank - value.rank) + value.shape, name=f"{node.name}_ranked")
    if math.prod(multiples) == 1:
        return reshape(ctx.graph, value, shape_of(node), name=node.name)
    return _tile(ctx, value, multiples, shape_of(node), name=node.name)


def broadcast_value(ctx: LoweringContext, value: TosaValue, shape: Sequence[int], *, name: str) -> TosaValue:
    """``value`` broadcast to ``shape`` as PyTorch broadcasts (leading 1s added, size-1 dims repeated):
    a RESHAPE and one TILE, for operators that take no broadcast operand (SCATTER's values)."""
    shape = tuple(shape)
    if value.shape == shape:
        return value
    ranked = (1,) * (len(shape) - value.rank) + tuple(value.shape)
    if ranked != value.shape:
        value = reshape(ctx.graph, value, ranked, name=f"{name}_ranked")
    multiples = [extent if size == 1 else 1 for size, extent in zip(ranked, shape)]
    return _tile(ctx, value, multiples, shape, name=name)


def _tile(ctx: LoweringContext, value: TosaValue, multiples: Sequence[int], shape: Sequence[int], *, name: str) -> TosaValue:
    output = ctx.graph.add_tensor(name, shape, value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TileAttribute()
    multiples_name = ctx.graph.add_shape_const(f"{name}_multiples", multiples)
    ctx.graph.add_op(ts.Op.TILE, [value, multiples_name], [output], attribute)
    return output
