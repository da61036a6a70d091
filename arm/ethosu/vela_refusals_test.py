"""The search for the nodes Vela refuses, on a hand-built TOSA graph with a stand-in for Vela.

The stand-in refuses any graph holding one of a chosen set of operators, so each test knows which units
are refused and counts the compiles the search asks for. The flow-level case, with Vela itself refusing a
convolution, is vela_refusal_fallback_test.py.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.ethosu.vela_refusals import PROBE_LIMIT, RefusalSearch, Unit, candidates, subgraph, units_of
from arm.tosa.graph import TosaGraph, TosaValue

_NODES = [f"node_{index}" for index in range(12)]


def _chain(graph: TosaGraph, names: list[str]) -> None:
    """node_i: CONV2D-typed stand-in op reading the previous node's output and a constant, then a CLAMP
    (two operators per unit; ``node_1`` and ``node_10`` share a prefix, as FX names do)."""
    value: TosaValue = graph.add_input("x", (1, 4), np.dtype(np.int8))
    for name in names:
        weight = graph.add_const(f"{name}_weight", np.ones((1, 4), np.int8))
        product = graph.add_tensor(f"{name}_int32", (1, 4), np.dtype(np.int32))
        graph.add_op(ts.Op.CONV2D, [value, weight], [product], ts.TosaSerializerAttribute())
        value = graph.add_tensor(name, (1, 4), np.dtype(np.int8))
        graph.add_op(ts.Op.CLAMP, [product], [value], ts.TosaSerializerAttribute())
    graph.mark_output(value)


def _graph() -> TosaGraph:
    graph = TosaGraph()
    _chain(graph, _NODES)
    return graph


def _refusing(*nodes: str):
    """A stand-in for Vela that refuses any graph with an operator of one of ``nodes``; records each call."""
    calls: list[TosaGraph] = []

    def compiles(part: TosaGraph) -> bool:
        calls.append(part)
        return not any(operator.outputs[0].startswith(f"{node}_int32") or operator.outputs[0] == node
                       for operator in part.operators for node in nodes)  # fmt: skip

    return compiles, calls


def test_units_are_the_operators_of_each_node_by_longest_name() -> None:
    units = units_of(_graph(), _NODES)
    assert [unit.node for unit in units] == _NODES
    node_1 = next(unit for unit in units if unit.node == "node_1")
    # node_10's operators start with "node_1" too: the longest matching name owns them.
    assert [operator.outputs[0] for operator in node_1.operators] == ["node_1_int32", "node_1"]


def test_a_part_reads_from_outside_as_inputs_and_keeps_constants() -> None:
    graph = _graph()
    units = units_of(graph, _NODES)
    part = subgraph(graph, [operator for unit in units[3:5] for operator in unit.operators])
    assert part.inputs == ["node_2"]
    assert part.outputs == ["node_4"]
    assert part.tensors["node_3_weight"].kind == "const"
    assert part.tensors["node_2"].kind == "input" and graph.tensors["node_2"].kind == "intermediate"
    assert len(part.operators) == 4


def test_the_search_finds_exactly_the_refused_units_in_few_compiles() -> None:
    graph = _graph()
    compiles, calls = _refusing("node_3", "node_10")
    search = RefusalSearch(graph, compiles)
    refused = search.refused(units_of(graph, _NODES))
    assert [unit.node for unit in refused] == ["node_3", "node_10"]
    # Two refusals among 12 units: well under one compile per unit.
    assert search.probes == len(calls) < len(_NODES)
    # Every probe is a graph Vela could compile on its own: its inputs are declared, its operators' inputs exist.
    for part in calls:
        for operator in part.operators:
            assert all(name in part.tensors for name in operator.inputs)


def test_a_search_with_no_refused_unit_costs_one_compile() -> None:
    graph = _graph()
    compiles, calls = _refusing()
    assert RefusalSearch(graph, compiles).refused(units_of(graph, _NODES)) == []
    assert len(calls) == 1


def test_the_search_gives_up_past_its_probe_limit() -> None:
    graph = TosaGraph()
    names = [f"node_{index}" for index in range(PROBE_LIMIT + 1)]
    _chain(graph, names)
    compiles, _ = _refusing(*names)  # every unit refused: one compile per unit and more
    assert RefusalSearch(graph, compiles).refused(units_of(graph, names)) is None


def test_candidates_are_the_units_with_an_operator_of_the_type_vela_named() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4), np.dtype(np.int8))
    y = graph.add_tensor("clamped", (1, 4), np.dtype(np.int8))
    graph.add_op(ts.Op.CLAMP, [x], [y], ts.TosaSerializerAttribute())
    z = graph.add_tensor("conv", (1, 4), np.dtype(np.int8))
    graph.add_op(ts.Op.DEPTHWISE_CONV2D, [y], [z], ts.TosaSerializerAttribute())
    units = units_of(graph, ["clamped", "conv"])
    assert [u.node for u in candidates(units, "Non-passthrough operation (DepthwiseConv2D) could not run on NPU")] == ["conv"]
    assert [u.node for u in candidates(units, "Vela left 1 operator(s) on the CPU for ethos-u85-256: Clamp = clamped")] == ["clamped"]
    # A type the graph does not hold, or none at all: every unit is a candidate.
    assert candidates(units, "Non-passthrough operation (Gather) could not run on NPU") == units
    assert candidates(units, "exit status 1") == units
    assert isinstance(units[0], Unit)
