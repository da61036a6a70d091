"""sum_without_transposes: a transpose only whole-row integer sums read goes, with the same sums on the TOSA
reference model; a transpose anything else reads (or a float or partial sum) stays."""

import numpy as np
import tosa_serializer as ts

from arm.ops.common.axis_reduction import reduce
from arm.tosa.graph import TosaGraph, TosaValue, reshape
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.layout import transpose
from arm.tosa.unordered_sums import sum_without_transposes

_SHAPE = (4, 2, 3, 5)


def _summed(dtype: type = np.int32, row: tuple[int, ...] = (1, 120), also_read: bool = False) -> TosaGraph:
    """x -> TRANSPOSE -> RESHAPE(row) -> REDUCE_SUM over the row's last axis, as the group norm's exact
    sums read MobileViTv2's unfolded patches; ``also_read``: the transpose is a graph output too."""
    graph = TosaGraph()
    x = graph.add_input("x", _SHAPE, dtype)
    moved = transpose(graph, x, (0, 2, 3, 1), name="moved")
    flat = reshape(graph, moved, row, name="flat")
    graph.mark_output(reduce(graph, ts.Op.REDUCE_SUM, flat, len(row) - 1, name="total"))
    if also_read:
        graph.mark_output(TosaValue("moved", moved.shape, moved.dtype))
    return graph


def _x(dtype: type = np.int32) -> np.ndarray:
    values = np.random.default_rng(0).integers(-(1 << 20), 1 << 20, _SHAPE)
    return values.astype(dtype)


def test_a_transpose_read_only_by_a_whole_row_sum_goes_and_the_sum_stays() -> None:
    graph = _summed()
    (expected,) = run_on_reference_model(graph, _x())
    assert int(expected.reshape(-1)[0]) == int(_x().astype(np.int64).sum())  # the numpy oracle

    sum_without_transposes(graph)

    assert operator_names(graph) == ["RESHAPE", "REDUCE_SUM"]
    np.testing.assert_array_equal(run_on_reference_model(graph, _x())[0], expected)


def test_a_transpose_something_else_reads_stays() -> None:
    graph = _summed(also_read=True)
    sum_without_transposes(graph)
    assert "TRANSPOSE" in operator_names(graph)


def test_a_sum_over_part_of_the_values_keeps_its_transpose() -> None:
    # Rows of 15: which values share a row depends on their order, so the transpose matters.
    graph = _summed(row=(8, 15))
    x = _x()
    (expected,) = run_on_reference_model(graph, x)
    sum_without_transposes(graph)
    assert "TRANSPOSE" in operator_names(graph)
    np.testing.assert_array_equal(run_on_reference_model(graph, x)[0], expected)


def test_a_float_sum_keeps_its_transpose() -> None:
    # The order of a float sum decides its rounding.
    graph = _summed(np.float32)
    sum_without_transposes(graph)
    assert "TRANSPOSE" in operator_names(graph)
