"""collapse_transposes_after_convolutions: a transpose after a convolution whose transposed rows are short
(Vela fuses those into the U85 convolution's write) becomes reshape, lower-rank transpose, reshape with the
same results; other transposes stay."""

import numpy as np
import pytest
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.layout import transpose
from arm.tosa.rescale import rescale
from arm.tosa.transpose_collapsing import (
    change_input_layouts,
    collapse_transposes_after_convolutions,
    collapsed,
    pointwise_convolutions_of_channels_first,
)


@pytest.mark.parametrize(
    "shape, perms, expected",
    [
        ((1, 2, 3, 4), (0, 3, 1, 2), ((6, 4), (1, 0))),  # NHWC -> NCHW
        ((1, 4, 2, 3), (0, 2, 3, 1), ((4, 6), (1, 0))),  # NCHW -> NHWC
        ((2, 3, 4, 5), (0, 2, 1, 3), ((2, 3, 4, 5), (0, 2, 1, 3))),  # attention's heads: nothing merges
        ((1, 1, 1, 7), (0, 3, 1, 2), ((7,), (0,))),  # moves nothing
    ],
)
def test_collapsed_drops_single_axes_and_merges_neighbours(shape, perms, expected) -> None:
    assert collapsed(shape, perms) == expected


def _pointwise_conv(graph: TosaGraph, x: TosaValue, name: str) -> TosaValue:
    """A 1x1 CONV2D of NHWC int8 ``x`` and its output RESCALE to int8."""
    channels = x.shape[-1]
    weights = np.random.default_rng(3).integers(-127, 128, size=(channels, 1, 1, channels)).astype(np.int8)
    summed = graph.add_tensor(f"{name}_int32", x.shape, np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    operands = [
        x,
        graph.add_const(f"{name}_weights", weights),
        graph.add_const(f"{name}_bias", np.zeros((channels,), dtype=np.int32)),
        graph.add_scalar_const(f"{name}_input_zp", 0, np.int8),
        graph.add_scalar_const(f"{name}_weight_zp", 0, np.int8),
    ]
    graph.add_op(ts.Op.CONV2D, operands, [summed], attribute)
    return rescale(graph, summed, name=name, scales=[2.0**-9], output_dtype=np.dtype(np.int8), input_zp=0, output_zp=0)


def _graph(width: int) -> tuple[TosaGraph, np.ndarray]:
    """x (NHWC) -> a transpose to NCHW (x itself is no convolution's) and a convolution's output to NCHW."""
    graph = TosaGraph()
    x = graph.add_input("x", (1, 2, width, 8), np.int8)
    graph.mark_output(transpose(graph, x, (0, 3, 1, 2), name="input_nchw"))
    graph.mark_output(transpose(graph, _pointwise_conv(graph, x, "conv"), (0, 3, 1, 2), name="conv_nchw"))
    return graph, np.random.default_rng(4).integers(-128, 128, size=(1, 2, width, 8)).astype(np.int8)


@pytest.mark.parametrize("width, collapsed_count", [(2, 1), (8, 0)])
def test_only_a_transpose_of_short_rows_after_a_convolution_collapses(width: int, collapsed_count: int) -> None:
    graph, data = _graph(width)
    expected = run_on_reference_model(graph, data)

    collapse_transposes_after_convolutions(graph)

    names = operator_names(graph)
    assert names.count("RESHAPE") == 2 * collapsed_count and names.count("TRANSPOSE") == 2
    ranks = sorted(len(graph.tensors[op.outputs[0]].shape) for op in graph.operators if op.op == ts.Op.TRANSPOSE)
    assert ranks == sorted([2] * collapsed_count + [4] * (2 - collapsed_count))
    for before, after in zip(expected, run_on_reference_model(graph, data)):
        np.testing.assert_array_equal(after, before)


def _input_layout_graph(shape: tuple[int, ...], dtype: type = np.int8) -> tuple[TosaGraph, np.ndarray]:
    """An NCHW graph input -> NHWC, read by a RESCALE (the input's only transpose) and also a graph output."""
    graph = TosaGraph()
    x = graph.add_input("x", shape, dtype)
    nhwc = transpose(graph, x, (0, 2, 3, 1), name="x_nhwc")
    graph.mark_output(nhwc)
    halved = rescale(graph, nhwc, name="halved", scales=[0.5], output_dtype=np.dtype(dtype), input_zp=0, output_zp=0)
    graph.mark_output(halved)
    info = np.iinfo(dtype)
    return graph, np.random.default_rng(5).integers(info.min, info.max + 1, size=shape).astype(dtype)


@pytest.mark.parametrize(
    "shape, by_convolution, expected_operators",
    [
        ((1, 3, 4, 5), True, {"CONV2D": 1, "TRANSPOSE": 0}),  # the U85: an identity convolution
        ((1, 17, 2, 2), True, {"CONV2D": 0, "TRANSPOSE": 1}),  # 17 channels: the U85 keeps its transpose
        ((1, 3, 4, 5), False, {"CONV2D": 0, "TRANSPOSE": 1}),  # the U55: one rank-2 transpose
    ],
)
def test_a_graph_inputs_layout_change_keeps_every_code(shape, by_convolution, expected_operators) -> None:
    graph, data = _input_layout_graph(shape)
    expected = run_on_reference_model(graph, data)

    change_input_layouts(graph, by_convolution=by_convolution)

    names = operator_names(graph)
    assert {op: names.count(op) for op in expected_operators} == expected_operators
    if not by_convolution:
        assert [len(graph.tensors[op.outputs[0]].shape) for op in graph.operators if op.op == ts.Op.TRANSPOSE] == [2]
    for before, after in zip(expected, run_on_reference_model(graph, data)):
        np.testing.assert_array_equal(after, before)


def test_an_int16_input_keeps_its_transpose() -> None:
    graph, _ = _input_layout_graph((1, 3, 4, 5), np.int16)
    change_input_layouts(graph, by_convolution=True)
    assert operator_names(graph).count("TRANSPOSE") == 1


def test_the_u55_keeps_a_transpose_with_an_axis_vela_refuses_at_rank_2() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 257, 257), np.int8)  # [3, 66049] collapsed: longer than 65536
    graph.mark_output(transpose(graph, x, (0, 2, 3, 1), name="x_nhwc"))
    change_input_layouts(graph, by_convolution=False)
    transposed = [graph.tensors[op.outputs[0]].shape for op in graph.operators if op.op == ts.Op.TRANSPOSE]
    assert transposed == [(1, 257, 257, 3)]


def _transposed_pointwise_graph(shape: tuple[int, ...], outputs: int) -> tuple[TosaGraph, np.ndarray]:
    """x (NCHW) -> a requantizing RESCALE -> NHWC -> a 1x1 CONV2D (and its RESCALE): YOLOv8n's DFL head."""
    graph = TosaGraph()
    x = graph.add_input("x", shape, np.int8)
    requantized = rescale(graph, x, name="r", scales=[0.7], output_dtype=np.dtype(np.int8), input_zp=-128, output_zp=-128)
    nhwc = transpose(graph, requantized, (0, 2, 3, 1), name="r_nhwc")
    graph.mark_output(_pointwise_conv_to(graph, nhwc, outputs, "conv"))
    return graph, np.random.default_rng(6).integers(-128, 128, size=shape).astype(np.int8)


def _pointwise_conv_to(graph: TosaGraph, x: TosaValue, outputs: int, name: str) -> TosaValue:
    weights = np.random.default_rng(8).integers(-127, 128, size=(outputs, 1, 1, x.shape[-1])).astype(np.int8)
    summed = graph.add_tensor(f"{name}_int32", (*x.shape[:3], outputs), np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    operands = [
        x,
        graph.add_const(f"{name}_weights", weights),
        graph.add_const(f"{name}_bias", np.arange(outputs, dtype=np.int32) * 1000),
        graph.add_scalar_const(f"{name}_input_zp", -128, np.int8),
        graph.add_scalar_const(f"{name}_weight_zp", 0, np.int8),
    ]
    graph.add_op(ts.Op.CONV2D, operands, [summed], attribute)
    return rescale(graph, summed, name=name, scales=[2.0**-10], output_dtype=np.dtype(np.int8), input_zp=0, output_zp=0)


@pytest.mark.parametrize(
    "shape, outputs, folded",
    [
        ((1, 16, 4, 525), 1, True),  # YOLOv8n's DFL: rows of 525
        ((1, 4, 64, 64), 16, True),
        ((1, 16, 8, 8), 32, False),  # short rows: Vela's fused write is the cheaper
        ((1, 17, 4, 525), 1, False),  # more channels than the U85 convolves cheaply
    ],
)
def test_a_transpose_read_by_pointwise_convolutions_folds_into_them_with_the_same_codes(shape, outputs, folded) -> None:
    graph, data = _transposed_pointwise_graph(shape, outputs)
    expected = run_on_reference_model(graph, data)

    pointwise_convolutions_of_channels_first(graph)

    names = operator_names(graph)
    assert names.count("TRANSPOSE") == (0 if folded else 1) and names.count("CONV2D") == 1
    for before, after in zip(expected, run_on_reference_model(graph, data)):
        np.testing.assert_array_equal(after, before)


def test_a_transpose_with_another_reader_stays() -> None:
    graph, _ = _transposed_pointwise_graph((1, 16, 4, 525), 1)
    graph.mark_output(TosaValue("r_nhwc", (1, 4, 525, 16), np.dtype(np.int8)))
    pointwise_convolutions_of_channels_first(graph)
    assert operator_names(graph).count("TRANSPOSE") == 1
