"""cancel_round_trips removes inverse TRANSPOSE pairs and keeps the graph's edges in PyTorch layout."""

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.layout import cancel_round_trips, to_nchw, to_nhwc


def _clamp(graph: TosaGraph, value: TosaValue, name: str, *, movable: bool = True) -> TosaValue:
    """A CLAMP; with ``movable`` False it stands for a layout-bound op such as a convolution."""
    output = graph.add_tensor(name, value.shape, value.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.ClampAttribute([0], [127], ts.NanPropagationMode.PROPAGATE)
    graph.add_op(ts.Op.CLAMP, [value], [output], attribute, elementwise_unary=movable)
    return output


def _ops(graph: TosaGraph) -> list[str]:
    return [operator.op.name for operator in graph.operators]


def test_round_trip_between_two_convolutions_is_removed() -> None:
    # conv -> to NCHW -> relu -> to NHWC -> conv, as two convolution lowerings leave it.
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 5, 6), np.int8)
    first = _clamp(graph, to_nhwc(graph, x), "first", movable=False)
    relu = _clamp(graph, to_nchw(graph, first, name="first_nchw"), "relu")
    second = _clamp(graph, to_nhwc(graph, relu), "second", movable=False)
    graph.mark_output(to_nchw(graph, second, name="y"))

    cancel_round_trips(graph)

    assert _ops(graph) == ["TRANSPOSE", "CLAMP", "CLAMP", "CLAMP", "TRANSPOSE"]
    assert graph.tensors["relu"].shape == (1, 5, 6, 4)
    assert graph.tensors["y"].shape == (1, 4, 5, 6)


def test_graph_outputs_keep_their_layout() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 5, 6), np.int8)
    first = _clamp(graph, to_nhwc(graph, x), "first", movable=False)
    relu = _clamp(graph, to_nchw(graph, first, name="first_nchw"), "relu")
    graph.mark_output(relu)
    second = _clamp(graph, to_nhwc(graph, relu), "second", movable=False)
    graph.mark_output(to_nchw(graph, second, name="y"))

    cancel_round_trips(graph)

    assert graph.tensors["relu"].shape == (1, 4, 5, 6)
    assert _ops(graph) == ["TRANSPOSE", "CLAMP", "TRANSPOSE", "CLAMP", "TRANSPOSE", "CLAMP", "TRANSPOSE"]


def test_serialization_is_deterministic() -> None:
    def build() -> bytes:
        graph = TosaGraph()
        x = graph.add_input("x", (1, 4, 5, 6), np.int8)
        graph.mark_output(to_nchw(graph, _clamp(graph, to_nhwc(graph, x), "c"), name="y"))
        return graph.serialize()

    assert build() == build()
