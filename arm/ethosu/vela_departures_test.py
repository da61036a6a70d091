"""Vela 5.2.0's segfault on unit rescales of a rank-5 slice (arm/ethosu/vela_departures.py), pinned on a tiny graph.

The rule must find the construct on the U55 and nothing in its neighbours; Vela must still crash on it
(this test fails once a Vela upgrade fixes the crash, and the rule can go) and compile the neighbours
and the U85's version. Vela runs in its server process, so its crash here costs one compile.
"""

from __future__ import annotations

import numpy as np
import pytest
import tosa_serializer as ts

from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.vela import VelaCompileError, compile_tosa
from arm.ethosu.vela_departures import departures
from arm.tosa.graph import TosaGraph, reshape, slice_tensor
from arm.tosa.rescale import rescale

INT8, INT32 = np.dtype(np.int8), np.dtype(np.int32)


def _sliced_times_constant(*, first_scale: float = 1.0, rank4_input: bool = False) -> bytes:
    """``x[0:1]`` of an int8 (3, 2, 2, 8, 16) input (or (3, 4, 8, 16)), rescaled to int32 by
    ``first_scale`` and reshaped to (2, 2, 8, 16), times a unit rescale of an int8 constant."""
    graph = TosaGraph()
    shape = (3, 4, 8, 16) if rank4_input else (3, 2, 2, 8, 16)
    x = graph.add_input("x", shape, INT8)
    sliced = slice_tensor(graph, x, [0] * len(shape), (1, *shape[1:]), name="q")
    wide = rescale(graph, sliced, name="q_int32", scales=[first_scale], output_dtype=INT32, input_zp=-1, output_zp=0)
    rows = reshape(graph, wide, (2, 2, 8, 16), name="q_rows")
    constant = graph.add_const("scale", np.full((1, 1, 1, 1), 127, dtype=np.int8))
    factor = rescale(graph, constant, name="scale_int32", scales=[1.0], output_dtype=INT32, input_zp=0, output_zp=0)
    out = graph.add_tensor("aten_mul_tensor_int32", (2, 2, 8, 16), INT32)
    attribute = ts.TosaSerializerAttribute()
    attribute.MulAttribute()
    graph.add_op(ts.Op.MUL, [rows, factor, graph.add_const("shift", np.zeros(1, dtype=np.int8))], [out], attribute)
    graph.mark_output(out)
    return graph.serialize()


def test_rule_finds_the_construct_on_the_u55_only() -> None:
    (found,) = departures(_sliced_times_constant(), "ethos-u55-128")
    assert found.output == "aten_mul_tensor_int32"
    assert "crashes (segmentation fault)" in found.reason and "[3, 2, 2, 8, 16]" in found.reason
    assert departures(_sliced_times_constant(), "ethos-u85-256") == []


@pytest.mark.parametrize("neighbour", [{"first_scale": 0.5}, {"rank4_input": True}])
def test_rule_leaves_the_neighbours_alone_and_vela_compiles_them(neighbour: dict[str, object]) -> None:
    graph = _sliced_times_constant(**neighbour)
    assert departures(graph, "ethos-u55-128") == []
    assert compile_tosa(graph, EthosUCompileSpec("ethos-u55-128")).npu_cycles > 0


def test_vela_still_crashes_on_the_u55_and_compiles_on_the_u85() -> None:
    with pytest.raises(VelaCompileError, match="Vela crashed with SIGSEGV"):
        compile_tosa(_sliced_times_constant(), EthosUCompileSpec("ethos-u55-128"))
    assert compile_tosa(_sliced_times_constant(), EthosUCompileSpec("ethos-u85-256")).npu_cycles > 0
