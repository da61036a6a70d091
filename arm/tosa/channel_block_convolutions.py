"""A convolution whose output channels are read as k separate blocks becomes k convolutions, one per block.

nn.MultiheadAttention projects q, k and v with one packed linear (``in_proj_weight``, 3 * E outputs) and
takes them apart by ``unflatten(-1, (3, E))``, a transpose that puts the 3 first, and ``select``: in TOSA
CONV2D -> RESCALE -> RESHAPE [.., 3, E] -> TRANSPOSE [3, .., E] -> (RESHAPE) -> SLICE [i] for each i.
Vela 5.2.0 runs the TRANSPOSE as a full copy and each SLICE feeding the heads' TRANSPOSE as a memory copy:
on mha_sequence's [40, 192] projection (U55-128) 2,880 cycles for the transpose and 5,877 for each of the
three slices, beside 14,224 for the convolution. Three convolutions of 64 outputs each write q, k and v
where they are read, in the layout the slices had.

Bit-exact: each output channel of a CONV2D and of its per-channel RESCALE depends on its own weights,
bias, multiplier and shift only, so the blocks' convolutions compute the same integers, on the same
output grid (the RESCALE's zero points are kept).

Only the exact form is rewritten: the RESHAPE splits the last axis into (k, B) and keeps the leading
axes' order, the TRANSPOSE moves the k axis first and keeps the others in order, and every reader of the
result is a SLICE of one whole block (size 1 along that axis, everything of the others). Other orders
(timm's ``permute(2, 0, 3, 1, 4)``) would need a transpose per block and are left as they are.
"""

from __future__ import annotations

import math

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, rebuild_in_place
from arm.tosa.layout import remove_dead_operators


def split_channel_block_convolutions(graph: TosaGraph) -> None:
    for convolution in [operator for operator in graph.operators if operator.op == ts.Op.CONV2D]:
        match = _blocks_read(graph, convolution)
        if match is not None:
            _split(graph, convolution, *match)
    remove_dead_operators(graph)


def _only_consumer(graph: TosaGraph, name: str, op: ts.Op) -> TosaOperator | None:
    consumers = graph.consumers(name)
    if len(consumers) != 1 or consumers[0].op != op or name in graph.outputs:
        return None
    return consumers[0]


def _blocks_read(graph: TosaGraph, convolution: TosaOperator) -> tuple[TosaOperator, int, list[TosaOperator]] | None:
    """The convolution's output RESCALE, the block count k and the SLICEs reading one block each, when
    the convolution's output reaches readers only as described in the module doc; else None."""
    if any(graph.tensors[name].data is None for name in convolution.inputs[1:3]):
        return None
    output = convolution.outputs[0]
    requantize = _only_consumer(graph, output, ts.Op.RESCALE)
    if requantize is None:
        return None
    channels = graph.tensors[output].shape[-1]
    leading = math.prod(graph.tensors[output].shape[:-1])
    split = _only_consumer(graph, requantize.outputs[0], ts.Op.RESHAPE)
    if split is None:
        return None
    split_shape = graph.tensors[split.outputs[0]].shape
    if len(split_shape) < 2 or split_shape[-2] * split_shape[-1] != channels or math.prod(split_shape[:-2]) != leading:
        return None
    blocks, rank = split_shape[-2], len(split_shape)
    moved = _only_consumer(graph, split.outputs[0], ts.Op.TRANSPOSE)
    if moved is None or tuple(moved.perms) != (rank - 2, *range(rank - 2), rank - 1):
        return None
    sliced_name = moved.outputs[0]
    regrouped = _only_consumer(graph, sliced_name, ts.Op.RESHAPE)
    if regrouped is not None:
        if graph.tensors[regrouped.outputs[0]].shape[0] != blocks:
            return None
        sliced_name = regrouped.outputs[0]
    slices = graph.consumers(sliced_name)
    sliced_shape = graph.tensors[sliced_name].shape
    if not slices or sliced_name in graph.outputs or not all(_one_block(graph, s, sliced_shape) for s in slices):
        return None
    return requantize, blocks, slices


def _one_block(graph: TosaGraph, operator: TosaOperator, shape: tuple[int, ...]) -> bool:
    if operator.op != ts.Op.SLICE:
        return False
    start = [int(v) for v in graph.const_data(operator.inputs[1])]
    size = [int(v) for v in graph.const_data(operator.inputs[2])]
    return size == [1, *shape[1:]] and all(v == 0 for v in start[1:])


def _per_channel(graph: TosaGraph, name: str, block: slice, what: str) -> str:
    """The constant ``name`` restricted to the block's channels along its first axis (a one-element
    constant applies to every channel and is kept)."""
    data = graph.const_data(name)
    if data.shape[0] == 1:
        return name
    return graph.add_const(f"{name}_{what}", data[block]).name


def _split(graph: TosaGraph, convolution: TosaOperator, requantize: TosaOperator, blocks: int,
           slices: list[TosaOperator]) -> None:  # fmt: skip
    """Replaces each SLICE by the convolution and RESCALE of its block, reshaped to the slice's shape."""
    output = graph.tensors[convolution.outputs[0]]
    width = output.shape[-1] // blocks
    image, weights, bias, *zero_points = convolution.inputs
    requantized = graph.tensors[requantize.outputs[0]]
    _, multiplier, shift, *rescale_zero_points = requantize.inputs
    for reader in slices:
        index = int(graph.const_data(reader.inputs[1])[0])
        block = slice(index * width, (index + 1) * width)
        name = f"{reader.outputs[0]}_block"

        def build(block: slice = block, name: str = name) -> TosaValue:
            accumulated = graph.add_tensor(f"{name}_int32", (*output.shape[:-1], width), output.dtype)
            graph.add_op(ts.Op.CONV2D, [image, _per_channel(graph, weights, block, "block"),
                                        _per_channel(graph, bias, block, "block"), *zero_points],
                         [accumulated], convolution.attribute)  # fmt: skip
            result = graph.add_tensor(name, accumulated.shape, requantized.dtype)
            graph.add_op(ts.Op.RESCALE, [accumulated, _per_channel(graph, multiplier, block, "block"),
                                         _per_channel(graph, shift, block, "block"), *rescale_zero_points],
                         [result], requantize.attribute)  # fmt: skip
            return result

        rebuild_in_place(graph, reader, build)
