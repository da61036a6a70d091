"""remove_identity_clamps drops the CLAMPs that pass every int8 value and keeps the others."""

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue, concat
from arm.tosa.identity_clamp_removal import remove_identity_clamps


def _clamp(graph: TosaGraph, value: TosaValue, low: int, high: int, name: str) -> TosaValue:
    output = graph.add_tensor(name, value.shape, value.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.ClampAttribute(list(np.array([low], np.int8).tobytes()), list(np.array([high], np.int8).tobytes()),
                             ts.NanPropagationMode.PROPAGATE)  # fmt: skip
    graph.add_op(ts.Op.CLAMP, [value], [output], attribute, elementwise_unary=True)
    return output


def _ops(graph: TosaGraph) -> list[str]:
    return [operator.op.name for operator in graph.operators]


def test_relu_on_a_grid_starting_at_zero_is_dropped_and_a_real_relu_kept() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 2, 2, 4), np.int8)
    joined = concat(graph, [x, x], axis=3, name="joined")
    passes_all = _clamp(graph, joined, -128, 127, "relu_on_its_grid")
    graph.mark_output(_clamp(graph, passes_all, -5, 127, "y"))

    remove_identity_clamps(graph)

    assert _ops(graph) == ["CONCAT", "CLAMP"]
    # The CONCAT now writes the dropped clamp's tensor: the layer keeps the ReLU's name.
    assert graph.operators[0].outputs == ["relu_on_its_grid"]
    assert graph.operators[1].inputs == ["relu_on_its_grid"]


def test_a_source_read_elsewhere_is_read_in_the_clamps_place() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 2, 2, 4), np.int8)
    joined = concat(graph, [x, x], axis=3, name="joined")
    passes_all = _clamp(graph, joined, -128, 127, "relu_on_its_grid")
    graph.mark_output(_clamp(graph, passes_all, -5, 127, "y"))
    graph.mark_output(_clamp(graph, joined, -7, 127, "z"))

    remove_identity_clamps(graph)

    assert _ops(graph) == ["CONCAT", "CLAMP", "CLAMP"]
    assert graph.operators[0].outputs == ["joined"]
    assert [operator.inputs for operator in graph.operators[1:]] == [["joined"], ["joined"]]


def test_a_graph_output_keeps_its_clamp() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4), np.int8)
    graph.mark_output(_clamp(graph, x, -128, 127, "y"))

    remove_identity_clamps(graph)

    assert _ops(graph) == ["CLAMP"]
