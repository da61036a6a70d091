"""hoist_slices_below_transposes: a slice left in front of a transpose moves below it, with the same numbers."""

import numpy as np

from arm.tosa.graph import TosaGraph, slice_tensor
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.layout import NCHW_TO_NHWC, transpose
from arm.tosa.slice_hoisting import hoist_slices_below_transposes


def test_stem_window_is_taken_after_the_transpose() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 9, 8), np.int8)
    window = slice_tensor(graph, x, (0, 1, 0, 1), (1, 2, 8, 7), name="window")
    graph.mark_output(transpose(graph, window, NCHW_TO_NHWC, name="y"))
    data = np.random.default_rng(0).integers(-128, 128, (1, 3, 9, 8)).astype(np.int8)
    expected = run_on_reference_model(graph, data)

    hoist_slices_below_transposes(graph)

    assert operator_names(graph) == ["TRANSPOSE", "SLICE"]
    assert graph.operators[1].outputs == ["y"]
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_a_slice_read_elsewhere_stays() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 9, 8), np.int8)
    window = slice_tensor(graph, x, (0, 0, 0, 0), (1, 3, 8, 8), name="window")
    graph.mark_output(window)
    graph.mark_output(transpose(graph, window, NCHW_TO_NHWC, name="y"))

    hoist_slices_below_transposes(graph)

    assert operator_names(graph) == ["SLICE", "TRANSPOSE"]
