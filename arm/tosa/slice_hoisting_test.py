"""hoist_slices_below_transposes: a slice left in front of a transpose moves below it, with the same numbers."""

import numpy as np
import tosa_reference_model

from arm.tosa.graph import TosaGraph, slice_tensor
from arm.tosa.layout import NCHW_TO_NHWC, transpose
from arm.tosa.slice_hoisting import hoist_slices_below_transposes


def _ops(graph: TosaGraph) -> list[str]:
    return [operator.op.name for operator in graph.operators]


def _run(graph: TosaGraph, data: np.ndarray) -> list[np.ndarray]:
    outputs, status = tosa_reference_model.run(graph.serialize(), [data])
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID
    return [np.asarray(output) for output in outputs]


def test_stem_window_is_taken_after_the_transpose() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 9, 8), np.int8)
    window = slice_tensor(graph, x, (0, 1, 0, 1), (1, 2, 8, 7), name="window")
    graph.mark_output(transpose(graph, window, NCHW_TO_NHWC, name="y"))
    data = np.random.default_rng(0).integers(-128, 128, (1, 3, 9, 8)).astype(np.int8)
    expected = _run(graph, data)

    hoist_slices_below_transposes(graph)

    assert _ops(graph) == ["TRANSPOSE", "SLICE"]
    assert graph.operators[1].outputs == ["y"]
    np.testing.assert_array_equal(_run(graph, data)[0], expected[0])


def test_a_slice_read_elsewhere_stays() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 9, 8), np.int8)
    window = slice_tensor(graph, x, (0, 0, 0, 0), (1, 3, 8, 8), name="window")
    graph.mark_output(window)
    graph.mark_output(transpose(graph, window, NCHW_TO_NHWC, name="y"))

    hoist_slices_below_transposes(graph)

    assert _ops(graph) == ["SLICE", "TRANSPOSE"]
