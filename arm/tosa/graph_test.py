"""TosaGraph's regions (COND_IF's branches) and rank-0 constants, run on the TOSA reference model."""

from __future__ import annotations

import numpy as np
import pytest
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph
from arm.tosa.graph_testing import run_on_reference_model


def _branch(name: str, op: ts.Op, set_attribute, constant: float) -> TosaGraph:
    region = TosaGraph(name)
    x = region.add_input("x", (2, 3), np.float32)
    c = region.add_const("c", np.full((1, 1), constant, np.float32))
    y = region.add_tensor("y", (2, 3), np.float32)
    attribute = ts.TosaSerializerAttribute()
    set_attribute(attribute)
    region.add_op(op, [x, c], [y], attribute)
    region.mark_output(y)
    return region


@pytest.mark.parametrize("predicate, expected", [(True, 1.5), (False, -0.25)])
def test_cond_if_runs_the_branch_its_predicate_names(predicate, expected):
    graph = TosaGraph()
    p = graph.add_input("p", (), np.bool_)
    x = graph.add_input("x", (2, 3), np.float32)
    then_branch = _branch("then", ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute, 1.5)
    else_branch = _branch("else", ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute, 0.25)
    graph.add_region(then_branch)
    graph.add_region(else_branch)
    y = graph.add_tensor("y", (2, 3), np.float32)
    attribute = ts.TosaSerializerAttribute()
    attribute.CondIfAttribute("then", "else")
    graph.add_op(ts.Op.COND_IF, [p, x], [y], attribute)
    graph.mark_output(y)

    (result,) = run_on_reference_model(graph, np.array(predicate), np.zeros((2, 3), np.float32))

    np.testing.assert_array_equal(result, np.full((2, 3), expected, np.float32))
    # Names are unique across regions: the branches' "x" and "y" carry their region's name.
    assert then_branch.inputs == ["x@then"] and else_branch.outputs == ["y@else"]


def test_a_region_name_is_defined_once():
    graph = TosaGraph()
    graph.add_region(TosaGraph("then"))
    with pytest.raises(ValueError, match="defined twice"):
        graph.add_region(TosaGraph("then"))


def test_a_rank0_constant_stays_rank0():
    """A 0-d compare against a number: the constant must be 0-d too (it was written as [1], an invalid graph)."""
    graph = TosaGraph()
    x = graph.add_input("x", (), np.float32)
    threshold = graph.add_const("threshold", np.float32(0.5))
    above = graph.add_tensor("above", (), np.bool_)
    attribute = ts.TosaSerializerAttribute()
    attribute.GreaterAttribute()
    graph.add_op(ts.Op.GREATER, [x, threshold], [above], attribute)
    graph.mark_output(above)

    assert threshold.shape == ()
    assert run_on_reference_model(graph, np.array(0.75, np.float32))[0].item() is True
    assert run_on_reference_model(graph, np.array(0.25, np.float32))[0].item() is False
