"""fold_prologues_into_tables: RMSNorm's ``rsqrt(mean + eps)`` chain in front of a TABLE becomes one TABLE
with the same integers, and a chain that is read elsewhere or mixes two tensors stays."""

import numpy as np
import tosa_serializer as ts

from arm.ops.common.table import table
from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.rescale import rescale
from arm.tosa.table_prologue_folding import fold_prologues_into_tables

_ENTRIES = np.random.default_rng(0).integers(-128, 128, 256).astype(np.int8)


def _widen(graph: TosaGraph, value: TosaValue, name: str, scale: float, zero_point: int) -> TosaValue:
    return rescale(graph, value, name=name, scales=[scale], output_dtype=np.dtype(np.int32), input_zp=zero_point, output_zp=0)


def _add(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue, name: str) -> TosaValue:
    output = graph.add_tensor(name, lhs.shape, np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.AddAttribute()
    graph.add_op(ts.Op.ADD, [lhs, rhs], [output], attribute)
    return output


def _plus_eps_then_table(graph: TosaGraph, means: TosaValue) -> TosaValue:
    """int8 means -> int32 -> + a rescaled int8 constant -> int8 on another grid -> TABLE (rsqrt)."""
    eps = graph.add_const("eps", np.array([[[127]]], dtype=np.int8))
    total = _add(graph, _widen(graph, means, "lhs", 2.0**19, -128), _widen(graph, eps, "rhs", 0.0017, 0), "sum")
    narrowed = rescale(graph, total, name="shifted", scales=[1.3e-6], output_dtype=np.dtype(np.int8), input_zp=0, output_zp=-128)
    return table(graph, narrowed, _ENTRIES, name="rsqrt", qparams=None)


def test_the_eps_addition_moves_into_the_rsqrt_table() -> None:
    graph = TosaGraph()
    means = graph.add_input("means", (1, 16, 16), np.int8)
    graph.mark_output(_plus_eps_then_table(graph, means))
    data = np.arange(-128, 128, dtype=np.int8).reshape(1, 16, 16)  # every int8 value once
    expected = run_on_reference_model(graph, data)

    fold_prologues_into_tables(graph)

    assert operator_names(graph) == ["TABLE"]
    assert graph.operators[0].inputs[0] == "means"
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_a_prologue_read_elsewhere_or_of_two_tensors_stays() -> None:
    graph = TosaGraph()
    means = graph.add_input("means", (1, 16), np.int8)
    other = graph.add_input("other", (1, 16), np.int8)
    looked_up = _plus_eps_then_table(graph, means)
    graph.mark_output(looked_up)
    graph.mark_output(graph.tensors["shifted"] and TosaValue("shifted", (1, 16), np.dtype(np.int8)))
    both = _add(graph, _widen(graph, means, "m32", 1.0, 0), _widen(graph, other, "o32", 1.0, 0), "both")
    graph.mark_output(table(graph, rescale(graph, both, name="both8", scales=[0.5], output_dtype=np.dtype(np.int8),
                                           input_zp=0, output_zp=0), _ENTRIES, name="t2", qparams=None))  # fmt: skip
    before = operator_names(graph)

    fold_prologues_into_tables(graph)

    assert operator_names(graph) == before
