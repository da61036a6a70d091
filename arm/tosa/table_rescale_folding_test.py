"""fold_rescales_into_tables: TABLE -> RESCALE becomes one TABLE with the same integers, and only where it may."""

import numpy as np

from arm.ops.common.table import table
from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.rescale import rescale
from arm.tosa.table_rescale_folding import fold_rescales_into_tables

_ENTRIES = np.random.default_rng(0).integers(-128, 128, 256).astype(np.int8)


def _requantize(graph: TosaGraph, value: TosaValue, name: str) -> TosaValue:
    """Onto a grid with another step and zero point, as pt2e's requantization after a sigmoid."""
    return rescale(graph, value, name=name, scales=[0.37], output_dtype=np.dtype(np.int8), input_zp=-128, output_zp=5)


def test_rescale_of_a_table_is_folded_into_its_entries() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 4, 16), np.int8)
    graph.mark_output(_requantize(graph, table(graph, x, _ENTRIES, name="sigmoid", qparams=None), "y"))
    data = np.arange(-128, 128, dtype=np.int8).reshape(1, 4, 4, 16)  # every table index once
    expected = run_on_reference_model(graph, data)

    fold_rescales_into_tables(graph)

    assert operator_names(graph) == ["TABLE"]
    assert graph.operators[0].outputs == ["y"]
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_a_table_output_read_elsewhere_keeps_its_rescale() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 8), np.int8)
    looked_up = table(graph, x, _ENTRIES, name="sigmoid", qparams=None)
    graph.mark_output(looked_up)
    graph.mark_output(_requantize(graph, looked_up, "y"))

    fold_rescales_into_tables(graph)

    assert operator_names(graph) == ["TABLE", "RESCALE"]
