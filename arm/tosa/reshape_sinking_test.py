"""fold_reshapes sinks reshapes below elementwise ops, folds the pairs that meet, and keeps the numbers."""

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue, reshape
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.reshape_sinking import fold_reshapes


def _clamp(graph: TosaGraph, value: TosaValue, name: str) -> TosaValue:
    output = graph.add_tensor(name, value.shape, value.dtype)
    attribute = ts.TosaSerializerAttribute()
    low, high = (list(np.array([bound], np.float32).tobytes()) for bound in (0.0, 1.0))
    attribute.ClampAttribute(low, high, ts.NanPropagationMode.PROPAGATE)
    graph.add_op(ts.Op.CLAMP, [value], [output], attribute, elementwise_unary=True)
    return output


def _add(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue, name: str) -> TosaValue:
    output = graph.add_tensor(name, lhs.shape, lhs.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.AddAttribute()
    graph.add_op(ts.Op.ADD, [lhs, rhs], [output], attribute)
    return output


def _pool(graph: TosaGraph, value: TosaValue, name: str) -> TosaValue:
    """Stands for a 1xL convolution on [N, 1, L, C]: a 1x1 max pool, which the pass must not move."""
    output = graph.add_tensor(name, value.shape, value.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.MaxPool2dAttribute([1, 1], [1, 1], [0, 0, 0, 0], ts.NanPropagationMode.PROPAGATE)
    graph.add_op(ts.Op.MAX_POOL2D, [value], [output], attribute)
    return output


def _conv1d(graph: TosaGraph, rows: TosaValue, name: str) -> TosaValue:
    """As arm/ops/conv1d.py lowers one: [N, L, C] reshaped to [N, 1, L, C], the op, reshaped back."""
    batch, length, channels = rows.shape
    nhwc = reshape(graph, rows, (batch, 1, length, channels), name=f"{name}_nhwc_input")
    return reshape(graph, _pool(graph, nhwc, f"{name}_nhwc"), (batch, length, channels), name=name)


def test_residual_block_of_1d_convolutions_keeps_only_the_edge_reshapes() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 7, 5), np.float32)
    first = _clamp(graph, _conv1d(graph, x, "first"), "first_relu")
    # The branch point: two convolutions read the activation, as in a residual block's shortcut.
    residual = _add(graph, _conv1d(graph, first, "body"), _conv1d(graph, first, "shortcut"), "residual")
    graph.mark_output(_clamp(graph, residual, "y"))
    data = np.random.default_rng(0).standard_normal((1, 7, 5)).astype(np.float32)
    expected = run_on_reference_model(graph, data)

    fold_reshapes(graph)

    assert operator_names(graph) == ["RESHAPE", "MAX_POOL2D", "CLAMP", "MAX_POOL2D", "MAX_POOL2D", "ADD", "CLAMP", "RESHAPE"]
    assert graph.tensors["y"].shape == (1, 7, 5)
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_scalar_constants_follow_and_broadcast_operands_stop_the_sinking() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 4), np.float32)
    rows = reshape(graph, x, (3, 4), name="rows")
    shifted = _add(graph, rows, graph.add_const("half", np.full((1, 1), 0.5, np.float32)), "shifted")
    per_column = _add(graph, shifted, graph.add_const("columns", np.arange(4, dtype=np.float32)[None, :]), "y")
    graph.mark_output(per_column)
    data = np.random.default_rng(1).standard_normal((1, 3, 4)).astype(np.float32)
    expected = run_on_reference_model(graph, data)

    fold_reshapes(graph)

    # The scalar add now runs on x's shape; the per-column add (a broadcast) stays after the reshape.
    assert operator_names(graph) == ["ADD", "RESHAPE", "ADD"]
    assert graph.tensors[graph.operators[0].inputs[0]].shape == (1, 3, 4)
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_graph_outputs_keep_their_names_and_shapes() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 6, 4), np.float32)
    relu = _clamp(graph, _conv1d(graph, x, "first"), "relu")
    graph.mark_output(relu)
    graph.mark_output(_conv1d(graph, relu, "y"))

    fold_reshapes(graph)

    assert graph.outputs == ["relu", "y"]
    assert graph.tensors["relu"].shape == (1, 6, 4)
    assert graph.tensors["y"].shape == (1, 6, 4)
    data = np.random.default_rng(2).standard_normal((1, 6, 4)).astype(np.float32)
    relu_out, y_out = run_on_reference_model(graph, data)
    np.testing.assert_array_equal(relu_out, np.clip(data, 0, 1))
    np.testing.assert_array_equal(y_out, np.clip(data, 0, 1))


def _normalized_tokens_read_by_a_projection_and_a_residual(*, residual_reads_twice: bool) -> TosaGraph:
    """A layer norm's output X [4, 8]: viewed as [1, 1, 4, 8] by a projection (a pool here) and clamped
    for the residual add (a RESCALE in the flow); with ``residual_reads_twice`` the add reads X itself too."""
    graph = TosaGraph()
    x = graph.add_input("x", (4, 8), np.float32)
    normalized = _clamp(graph, x, "normalized")
    graph.mark_output(_pool(graph, reshape(graph, normalized, (1, 1, 4, 8), name="rows"), "projected"))
    residual = _clamp(graph, normalized, "residual")
    graph.mark_output(_add(graph, residual, normalized if residual_reads_twice else x, "y"))
    return graph


def test_elementwise_readers_move_after_a_staying_reshape_so_it_is_the_sources_only_reader() -> None:
    graph = _normalized_tokens_read_by_a_projection_and_a_residual(residual_reads_twice=False)
    data = np.random.default_rng(3).standard_normal((4, 8)).astype(np.float32) * 2
    expected = run_on_reference_model(graph, data)

    fold_reshapes(graph)

    # Vela copies a reshaped tensor that has another reader; now the reshape is "normalized"'s only one.
    assert [operator.op for operator in graph.consumers("normalized")] == [ts.Op.RESHAPE]
    assert [operator.op for operator in graph.consumers("rows")] == [ts.Op.MAX_POOL2D, ts.Op.CLAMP]
    assert graph.outputs == ["projected", "y"]
    assert graph.tensors["residual"].shape == (4, 8)
    for actual, wanted in zip(run_on_reference_model(graph, data), expected, strict=True):
        np.testing.assert_array_equal(actual, wanted)


def test_nothing_moves_when_the_source_keeps_a_reader_that_cannot() -> None:
    # The add reads the normalized tokens directly: moving the clamp would leave two readers all the same.
    graph = _normalized_tokens_read_by_a_projection_and_a_residual(residual_reads_twice=True)
    before = operator_names(graph)

    fold_reshapes(graph)

    assert operator_names(graph) == before
    assert graph.consumers("residual")[0].op == ts.Op.ADD
