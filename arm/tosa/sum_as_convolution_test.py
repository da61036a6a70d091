"""sums_as_convolutions: an int8 tensor's last-axis sum (RESCALE by one, REDUCE_SUM) becomes a CONV2D with
the same integers; a sum of a scaled or shared widening stays."""

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.rescale import rescale
from arm.tosa.sum_as_convolution import sums_as_convolutions


def _sum(graph: TosaGraph, x: TosaValue, *, scale: float, zero_point: int, name: str) -> TosaValue:
    widened = rescale(graph, x, name=f"{name}_int32", scales=[scale], output_dtype=np.dtype(np.int32),
                      input_zp=zero_point, output_zp=0)  # fmt: skip
    output = graph.add_tensor(name, (*x.shape[:-1], 1), np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReduceSumAttribute(x.rank - 1)
    graph.add_op(ts.Op.REDUCE_SUM, [widened], [output], attribute, axis=x.rank - 1)
    return output


def test_a_last_axis_sum_becomes_a_convolution_with_the_same_integers() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (2, 5, 64), np.int8)
    graph.mark_output(_sum(graph, x, scale=1.0, zero_point=-128, name="sums"))
    data = np.random.default_rng(0).integers(-128, 128, (2, 5, 64)).astype(np.int8)
    expected = run_on_reference_model(graph, data)

    sums_as_convolutions(graph)

    assert operator_names(graph) == ["RESHAPE", "CONV2D", "RESHAPE"]
    assert graph.outputs == ["sums"] and graph.tensors["sums"].shape == (2, 5, 1)
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_a_scaled_or_shared_widening_keeps_its_reduce_sum() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (4, 16), np.int8)
    graph.mark_output(_sum(graph, x, scale=2.0**20, zero_point=3, name="scaled"))
    shared = _sum(graph, x, scale=1.0, zero_point=0, name="shared")
    graph.mark_output(shared)
    graph.mark_output(TosaValue("shared_int32", (4, 16), np.dtype(np.int32)))

    sums_as_convolutions(graph)

    assert operator_names(graph).count("REDUCE_SUM") == 2
