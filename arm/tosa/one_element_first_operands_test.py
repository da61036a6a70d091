"""run_one_element_first_operands_at_rank4: the same results on the TOSA reference model, a rank-4 operator, and
nothing left for vela_departures' "one element first" rule; rank-4 operators and one-element second operands
stay as they are."""

import numpy as np
import tosa_serializer as ts

from arm.ethosu.vela_departures import departures
from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.one_element_first_operands import run_one_element_first_operands_at_rank4


def _binary(graph: TosaGraph, op: ts.Op, first: TosaValue, second: TosaValue, shape: tuple[int, ...]) -> TosaValue:
    output = graph.add_tensor("y", shape, np.int32)
    attribute = ts.TosaSerializerAttribute()
    inputs = [first, second]
    if op == ts.Op.MUL:
        attribute.MulAttribute()
        inputs.append(graph.add_scalar_const("shift", 0, np.int8))
    else:
        attribute.SubAttribute()
    graph.add_op(op, inputs, [output], attribute)
    graph.mark_output(output)
    return output


def _one_minus(shape: tuple[int, ...], op: ts.Op = ts.Op.SUB) -> TosaGraph:
    """``c - x`` (or ``c * x``) with a one-element constant c first, as softmax's row reciprocal has it."""
    graph = TosaGraph()
    x = graph.add_input("x", shape, np.int32)
    one = graph.add_const("one", np.full((1,) * len(shape), 1 << 29, np.int32))
    _binary(graph, op, one, x, shape)
    return graph


def test_a_rank5_sub_runs_at_rank4_with_the_same_results() -> None:
    shape = (8, 1, 4, 1, 1)
    x = np.random.default_rng(0).integers(-(1 << 20), 1 << 20, shape, dtype=np.int32)
    graph = _one_minus(shape)
    expected = run_on_reference_model(graph, x)
    assert [departure.output for departure in departures(graph.serialize(), "ethos-u55-128")] == ["y"]

    run_one_element_first_operands_at_rank4(graph)

    assert operator_names(graph) == ["RESHAPE", "RESHAPE", "SUB", "RESHAPE"]
    sub = graph.operators[2]
    assert [graph.tensors[name].shape for name in sub.inputs] == [(1, 1, 1, 1), (8, 4, 1, 1)]
    assert graph.operators[-1].outputs == ["y"]  # the graph output keeps its name and shape
    np.testing.assert_array_equal(run_on_reference_model(graph, x)[0], expected[0])
    assert departures(graph.serialize(), "ethos-u55-128") == []


def test_rank4_and_one_element_second_operands_are_left_alone() -> None:
    rank4 = _one_minus((8, 4, 1, 1))
    second_is_one = TosaGraph()
    x = second_is_one.add_input("x", (8, 1, 4, 1, 1), np.int32)
    _binary(second_is_one, ts.Op.SUB, x, second_is_one.add_const("one", np.ones((1,) * 5, np.int32)), x.shape)

    for graph in (rank4, second_is_one):
        run_one_element_first_operands_at_rank4(graph)
        assert operator_names(graph) == ["SUB"]


def test_a_rank6_mul_collapses_too() -> None:
    shape = (2, 1, 3, 1, 1, 4)
    x = np.arange(24, dtype=np.int32).reshape(shape) - 12
    graph = _one_minus(shape, ts.Op.MUL)
    expected = run_on_reference_model(graph, x)

    run_one_element_first_operands_at_rank4(graph)

    assert [graph.tensors[name].shape for name in graph.operators[2].inputs[:2]] == [(1, 1, 1, 1), (6, 1, 1, 4)]
    np.testing.assert_array_equal(run_on_reference_model(graph, x)[0], expected[0])
