"""ties_to_even_averages_as_convolutions: the ties-to-even average of ties_to_even.py, from the sums of
sums_as_convolutions, becomes two convolutions with the same integers (numpy's half-to-even rounding
of the codes' mean, ties included, for both zero-point parities); other averages stay."""

import types

import numpy as np
import pytest
import tosa_serializer as ts

from arm.ops.common.ties_to_even import average_ties_to_even, widen_from_minimum
from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.quantization import QParams
from arm.tosa.sum_as_convolution import sums_as_convolutions
from arm.tosa.ties_to_even_convolutions import ties_to_even_averages_as_convolutions

_ROWS, _COUNT = 6, 64


def _mean_graph(zero_point: int) -> tuple[TosaGraph, TosaValue]:
    """int8 x [1, rows, 64] -> its last-axis mean on x's own grid, as arm/ops/common/ties_to_even.py
    lowers it (the lowering's emitters only use the context's graph), then sums_as_convolutions."""
    graph = TosaGraph()
    x = graph.add_input("x", (1, _ROWS, _COUNT), np.int8).with_qparams(QParams((0.1,), zero_point, np.dtype(np.int8)))
    ctx = types.SimpleNamespace(graph=graph)
    widened = widen_from_minimum(ctx, x, name="mean_int32")
    sums = graph.add_tensor("mean_sums", (1, _ROWS, 1), np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReduceSumAttribute(2)
    graph.add_op(ts.Op.REDUCE_SUM, [widened], [sums], attribute, axis=2)
    mean = average_ties_to_even(ctx, sums, _COUNT, x.qparams, name="mean")
    graph.mark_output(mean)
    sums_as_convolutions(graph)
    return graph, mean


def _codes_with_ties(zero_point: int) -> np.ndarray:
    """Random rows, and rows whose sum less the zero points is k * 64 + 32 for even and odd k."""
    rng = np.random.default_rng(7)
    codes = rng.integers(-128, 128, (1, _ROWS, _COUNT))
    for row, k in enumerate((2, 3, 6, 7)):
        target = k * _COUNT + _COUNT // 2 + zero_point * _COUNT  # sum of the codes
        codes[0, row] = target // _COUNT
        codes[0, row, : target % _COUNT] += 1
    codes[0, 4] = -128  # every code at the bottom: the halves' lowest sums
    return codes.astype(np.int8)


@pytest.mark.parametrize("zero_point", [-128, 3])
def test_the_average_becomes_two_convolutions_rounding_ties_to_even(zero_point: int) -> None:
    graph, mean = _mean_graph(zero_point)
    codes = _codes_with_ties(zero_point)
    before = run_on_reference_model(graph, codes)[0]

    ties_to_even_averages_as_convolutions(graph)

    assert operator_names(graph) == ["RESHAPE", "CONV2D", "RESCALE", "CONV2D", "RESCALE", "RESHAPE"]
    assert graph.outputs == [mean.name] and graph.tensors[mean.name].shape == (1, _ROWS, 1)
    after = run_on_reference_model(graph, codes)[0]
    expected = np.round((codes.astype(np.int64) - zero_point).sum(axis=-1, keepdims=True) / _COUNT) + zero_point
    np.testing.assert_array_equal(after, expected)
    np.testing.assert_array_equal(after, before)
    assert int(np.sum((codes.astype(np.int64) - zero_point).sum(-1) % _COUNT == _COUNT // 2)) >= 4  # ties were there


def test_an_average_whose_sums_are_read_elsewhere_stays() -> None:
    graph, _ = _mean_graph(-128)
    graph.mark_output(TosaValue("mean_sums", (1, _ROWS, 1), np.dtype(np.int32)))
    names = operator_names(graph)

    ties_to_even_averages_as_convolutions(graph)

    assert operator_names(graph) == names
