"""split_channel_block_convolutions: nn.MultiheadAttention's packed projection (CONV2D, per-channel RESCALE,
RESHAPE [.., 3, E], TRANSPOSE of the 3 to the front, RESHAPE, a SLICE per block) becomes one convolution
per block computing the same integers; a transpose that also reorders the other axes, or a reader that
is not a whole-block SLICE, leaves the graph as it is."""

import numpy as np
import pytest
import tosa_serializer as ts

from arm.tosa.channel_block_convolutions import split_channel_block_convolutions
from arm.tosa.graph import TosaGraph, TosaValue, reshape, slice_tensor
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.layout import transpose
from arm.tosa.rescale import rescale

_INT8 = np.dtype(np.int8)
_RNG = np.random.default_rng(11)
_TOKENS, _WIDTH, _BLOCKS = 10, 16, 3


def _projection(graph: TosaGraph, x: TosaValue) -> TosaValue:
    """A 1x1 CONV2D of x [1, 1, tokens, width] to 3 * width channels, with a bias and per-channel scales."""
    outputs = _BLOCKS * _WIDTH
    weights = graph.add_const("weights", _RNG.integers(-128, 128, (outputs, 1, 1, _WIDTH)).astype(np.int8))
    bias = graph.add_const("bias", _RNG.integers(-2000, 2000, outputs).astype(np.int32))
    zero_points = [graph.add_scalar_const("input_zp", 5, _INT8), graph.add_scalar_const("weight_zp", 0, _INT8)]
    accumulated = graph.add_tensor("accumulated", (1, 1, _TOKENS, outputs), np.dtype(np.int32))
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    graph.add_op(ts.Op.CONV2D, [x, weights, bias, *zero_points], [accumulated], attribute)
    scales = list(_RNG.uniform(0.002, 0.01, outputs))
    return rescale(graph, accumulated, name="projected", scales=scales, output_dtype=_INT8, input_zp=0, output_zp=-3)


def _graph(case: str) -> TosaGraph:
    graph = TosaGraph()
    projected = _projection(graph, graph.add_input("x", (1, 1, _TOKENS, _WIDTH), _INT8))
    blocks = reshape(graph, projected, (_TOKENS, _BLOCKS, _WIDTH), name="blocks")
    if case == "reordering_transpose":  # the block axis first, but tokens and features swapped too
        moved = transpose(graph, blocks, (1, 2, 0), name="moved")
    else:
        moved = transpose(graph, blocks, (1, 0, 2), name="moved")
    grouped = reshape(graph, moved, (_BLOCKS, moved.shape[1], 1, moved.shape[2]), name="grouped")
    for index in range(_BLOCKS):
        size = (1, moved.shape[1], 1, moved.shape[2])
        if case == "partial_slice" and index == 1:  # half the tokens of one block
            size = (1, _TOKENS // 2, 1, moved.shape[2])
        block = slice_tensor(graph, grouped, (index, 0, 0, 0), size, name=f"block{index}")
        graph.mark_output(reshape(graph, block, (size[1], size[3]), name=f"rows{index}"))
    return graph


@pytest.mark.parametrize(
    "case, rewritten", [("packed_projection", True), ("reordering_transpose", False), ("partial_slice", False)]
)
def test_blocks_read_apart_become_one_convolution_each(case: str, rewritten: bool) -> None:
    graph = _graph(case)
    x = _RNG.integers(-128, 128, (1, 1, _TOKENS, _WIDTH)).astype(np.int8)
    expected = run_on_reference_model(graph, x)

    split_channel_block_convolutions(graph)

    names = operator_names(graph)
    assert (names.count("CONV2D"), names.count("SLICE"), names.count("TRANSPOSE")) == (
        (_BLOCKS, 0, 0) if rewritten else (1, _BLOCKS, 1)
    )
    got = run_on_reference_model(graph, x)
    for got_block, expected_block in zip(got, expected, strict=True):
        np.testing.assert_array_equal(got_block, expected_block)
