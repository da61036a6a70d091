"""copy_windowed_matmul_operands: a MATMUL operand read through a SLICE gets a RESCALE copy, with the same numbers.

That the copy is what makes Vela's stream exact is asserted on the NPU model by arm/ops/unbind.py's
``qkv`` case (u55_INT, u85_INT) and the conformer zoo tests; here, the rewrite itself.
"""

import numpy as np
import tosa_reference_model
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue, reshape, slice_tensor
from arm.tosa.matmul_operand_copies import copy_windowed_matmul_operands


def _matmul(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue, *, zero_points: tuple[int, int]) -> TosaValue:
    output = graph.add_tensor("product", (lhs.shape[0], lhs.shape[1], rhs.shape[2]), np.int32)
    operands = [
        lhs,
        rhs,
        graph.add_scalar_const("lhs_zp", zero_points[0], lhs.dtype),
        graph.add_scalar_const("rhs_zp", zero_points[1], rhs.dtype),
    ]
    attribute = ts.TosaSerializerAttribute()
    attribute.MatMulAttribute()
    graph.add_op(ts.Op.MATMUL, operands, [output], attribute)
    return output


def _run(graph: TosaGraph, inputs: list[np.ndarray]) -> np.ndarray:
    (output,), status = tosa_reference_model.run(graph.serialize(), inputs)
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID
    return np.asarray(output)


def _heads_graph() -> TosaGraph:
    """q = x[0] (a window through SLICE + RESHAPE) times k, a graph input of its own."""
    graph = TosaGraph()
    x = graph.add_input("x", (3, 2, 4, 8), np.int8)
    k = graph.add_input("k", (2, 8, 4), np.int8)
    q = reshape(graph, slice_tensor(graph, x, (0, 0, 0, 0), (1, 2, 4, 8), name="q_window"), (2, 4, 8), name="q")
    graph.mark_output(_matmul(graph, q, k, zero_points=(-3, 5)))
    return graph


def test_a_windowed_operand_is_copied_and_the_product_is_unchanged() -> None:
    rng = np.random.default_rng(0)
    inputs = [rng.integers(-128, 128, (3, 2, 4, 8)).astype(np.int8), rng.integers(-128, 128, (2, 8, 4)).astype(np.int8)]
    graph = _heads_graph()
    expected = _run(graph, inputs)

    copy_windowed_matmul_operands(graph)

    assert [operator.op.name for operator in graph.operators] == ["SLICE", "RESHAPE", "RESCALE", "MATMUL"]
    matmul = graph.operators[-1]
    assert matmul.inputs[0] == graph.operators[2].outputs[0]  # the copy, not the window
    assert matmul.inputs[1] == "k"  # a whole tensor stays as it is
    # One multiplier per channel: Vela 5.2.0 drops a per-tensor identity RESCALE in some contexts (deit_tiny U85).
    multipliers = graph.operators[2].inputs[1]
    assert graph.const_data(multipliers).shape == (8,) and len(set(graph.const_data(multipliers))) == 1
    np.testing.assert_array_equal(_run(graph, inputs), expected)


def test_whole_operands_are_left_alone() -> None:
    graph = TosaGraph()
    q = graph.add_input("q", (2, 4, 8), np.int8)
    k = graph.add_input("k", (2, 8, 4), np.int8)
    graph.mark_output(_matmul(graph, reshape(graph, q, (2, 4, 8), name="q_view"), k, zero_points=(0, 0)))

    copy_windowed_matmul_operands(graph)

    assert [operator.op.name for operator in graph.operators] == ["RESHAPE", "MATMUL"]
