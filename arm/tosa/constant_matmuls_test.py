"""constant_matmuls_as_convolutions: a MATMUL with a constant operand (seen through TRANSPOSE, RESHAPE and
TILE) becomes a CONV2D computing the same integers; a product of two activations, or of a constant whose
batches differ, stays a MATMUL."""

import numpy as np
import pytest
import tosa_serializer as ts

from arm.tosa.constant_matmuls import constant_matmuls_as_convolutions
from arm.tosa.graph import TosaGraph, TosaValue, reshape
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.layout import transpose

_INT8 = np.dtype(np.int8)
_RNG = np.random.default_rng(7)


def _codes(*shape: int) -> np.ndarray:
    return _RNG.integers(-128, 128, size=shape).astype(np.int8)


def _matmul(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue) -> TosaValue:
    output = graph.add_tensor("product", (lhs.shape[0], lhs.shape[1], rhs.shape[2]), np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.MatMulAttribute()
    zero_points = [graph.add_scalar_const("lhs_zp", 3, _INT8), graph.add_scalar_const("rhs_zp", -7, _INT8)]
    graph.add_op(ts.Op.MATMUL, [lhs, rhs, *zero_points], [output], attribute)
    return output


def _transposed_constant(graph: TosaGraph, matrix: np.ndarray) -> TosaValue:
    """``matrix`` [C, W] as Falcon's ``weight.T``: a constant [W, C] transposed in the graph, batch 1."""
    stored = graph.add_const("weight", np.ascontiguousarray(matrix.T))
    return reshape(graph, transpose(graph, stored, (1, 0), name="weight_t"), (1, *matrix.shape), name="rhs")


def _tiled_constant(graph: TosaGraph, matrix: np.ndarray, batch: int) -> TosaValue:
    multiples = graph.add_shape_const("multiples", (batch, 1, 1))
    tiled = graph.add_tensor("lhs", (batch, *matrix.shape), _INT8)
    attribute = ts.TosaSerializerAttribute()
    attribute.TileAttribute()
    weight = graph.add_const("weight", matrix.reshape(1, *matrix.shape))
    graph.add_op(ts.Op.TILE, [weight, multiples], [tiled], attribute)
    return tiled


def _graph(case: str) -> tuple[TosaGraph, np.ndarray]:
    graph = TosaGraph()
    if case == "constant_rhs":  # x [10, 16] @ weight.T ([16, 12]), as matmul.py folds x's batch into rows
        x = graph.add_input("x", (1, 10, 16), _INT8)
        graph.mark_output(_matmul(graph, x, _transposed_constant(graph, _codes(16, 12))))
        return graph, _codes(1, 10, 16)
    if case == "constant_lhs":  # weight [6, 16] TILEd to the batch @ x [2, 16, 9]
        x = graph.add_input("x", (2, 16, 9), _INT8)
        graph.mark_output(_matmul(graph, _tiled_constant(graph, _codes(6, 16), 2), x))
        return graph, _codes(2, 16, 9)
    if case == "different_batches":  # a constant [2, 16, 4] whose batches differ: no single weight set
        x = graph.add_input("x", (2, 5, 16), _INT8)
        graph.mark_output(_matmul(graph, x, graph.add_const("weights", _codes(2, 16, 4))))
        return graph, _codes(2, 5, 16)
    x = graph.add_input("x", (1, 5, 16), _INT8)  # two activations
    graph.mark_output(_matmul(graph, x, transpose(graph, x, (0, 2, 1), name="x_t")))
    return graph, _codes(1, 5, 16)


@pytest.mark.parametrize(
    "case, rewritten",
    [("constant_rhs", True), ("constant_lhs", True), ("different_batches", False), ("activations", False)],
)
def test_a_constant_operand_makes_the_same_product_as_a_convolution(case: str, rewritten: bool) -> None:
    graph, x = _graph(case)
    (expected,) = run_on_reference_model(graph, x)

    constant_matmuls_as_convolutions(graph)

    names = operator_names(graph)
    assert (names.count("CONV2D"), names.count("MATMUL")) == ((1, 0) if rewritten else (0, 1))
    (got,) = run_on_reference_model(graph, x)
    np.testing.assert_array_equal(got, expected)
